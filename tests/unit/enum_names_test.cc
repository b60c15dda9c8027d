// Tests of the enum name tables (lib/model/enum_names.h): the spellings that
// profiles and reports hold, the Chrome trace's display spellings, and values
// outside a table.
#include "lib/model/enum_names.h"

#include <cstdint>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "lib/model/profile.h"

namespace cuscope::model {
namespace {

TEST(EnumNamesTest, NamesAreTheOnesProfilesAndReportsHold) {
  EXPECT_STREQ(MemcpyKindName(MemcpyKind::kUnknown), "unknown");
  EXPECT_STREQ(MemcpyKindName(MemcpyKind::kHtoD), "HtoD");
  EXPECT_STREQ(MemcpyKindName(MemcpyKind::kPtoP), "PtoP");
  EXPECT_STREQ(MemoryKindName(MemoryKind::kPinned), "pinned");
  EXPECT_STREQ(MemoryKindName(MemoryKind::kManagedStatic), "managed_static");
  EXPECT_STREQ(SyncTypeName(SyncType::kStreamWaitEvent), "cudaStreamWaitEvent");
  EXPECT_STREQ(SyncTypeName(SyncType::kContextSynchronize), "cudaDeviceSynchronize");
  EXPECT_STREQ(CounterStrategyName(CounterStrategy::kRotate), "rotate");
  EXPECT_STREQ(CounterStrategyName(CounterStrategy::kKernelReplay), "kernel replay");
  EXPECT_STREQ(CounterStrategyName(CounterStrategy::kUserRange), "region");
  EXPECT_STREQ(CounterStrategyName(CounterStrategy::kSweep), "sweep");
  EXPECT_STREQ(EnumName(ApiDomain::kRuntime), "runtime");
  EXPECT_STREQ(EnumName(ApiDomain::kDriver), "driver");
  EXPECT_STREQ(EnumName(RangeSource::kNvtxPushPop), "nvtx_push_pop");
  EXPECT_STREQ(EnumName(RangeSource::kNvtxStartEnd), "nvtx_start_end");
  EXPECT_STREQ(EnumName(RangeSource::kNvtxMark), "nvtx_mark");
  EXPECT_STREQ(EnumName(RangeSource::kScope), "scope");
}

// The Chrome trace spells NVTX range sources with spaces; elsewhere the display
// name is the name.
TEST(EnumNamesTest, DisplayNamesFallBackToTheName) {
  EXPECT_STREQ(EnumDisplayName(RangeSource::kNvtxPushPop), "nvtx push/pop");
  EXPECT_STREQ(EnumDisplayName(RangeSource::kNvtxStartEnd), "nvtx start/end");
  EXPECT_STREQ(EnumDisplayName(RangeSource::kNvtxMark), "nvtx mark");
  EXPECT_STREQ(EnumDisplayName(RangeSource::kScope), "scope");
  EXPECT_STREQ(EnumDisplayName(MemcpyKind::kDtoD), "DtoD");
  EXPECT_STREQ(EnumDisplayName(CounterStrategy::kKernelReplay), "kernel replay");
}

TEST(EnumNamesTest, ValuesOutsideTheTableAreUnknown) {
  EXPECT_STREQ(EnumName(static_cast<RangeSource>(4)), "unknown");
  EXPECT_STREQ(EnumDisplayName(static_cast<RangeSource>(200)), "unknown");
  EXPECT_STREQ(MemcpyKindName(static_cast<MemcpyKind>(11)), "unknown");
  EXPECT_STREQ(CounterStrategyName(static_cast<CounterStrategy>(4)), "unknown");
  EXPECT_EQ(FindEnumRow(static_cast<SyncType>(5)), nullptr);
}

TEST(EnumNamesTest, MaxValueIsTheLastRow) {
  EXPECT_EQ(MaxEnumValue<MemcpyKind>(), static_cast<int64_t>(MemcpyKind::kPtoP));
  EXPECT_EQ(MaxEnumValue<MemoryKind>(), static_cast<int64_t>(MemoryKind::kManagedStatic));
  EXPECT_EQ(MaxEnumValue<ApiDomain>(), 1);
  EXPECT_EQ(MaxEnumValue<RangeSource>(), 3);
  EXPECT_EQ(MaxEnumValue<CounterStrategy>(), 3);
  for (const EnumNameRow<SyncType>& row : EnumNames<SyncType>::kRows) {
    EXPECT_EQ(FindEnumRow(row.value), &row);
  }
}

}  // namespace
}  // namespace cuscope::model
