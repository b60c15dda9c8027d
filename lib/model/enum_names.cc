#include "lib/model/enum_names.h"

namespace cuscope::model {

static_assert(EnumRowsAreDense<MemcpyKind>());
static_assert(EnumRowsAreDense<MemoryKind>());
static_assert(EnumRowsAreDense<SyncType>());
static_assert(EnumRowsAreDense<ApiDomain>());
static_assert(EnumRowsAreDense<RangeSource>());
static_assert(EnumRowsAreDense<CounterStrategy>());
static_assert(EnumRowsAreDense<SourceLocationKind>());
static_assert(EnumRowsAreDense<OwnKind>());

// Each enum's last value is in its table (a value added to an enum must be named).
static_assert(MaxEnumValue<MemcpyKind>() == static_cast<int64_t>(MemcpyKind::kPtoP));
static_assert(MaxEnumValue<MemoryKind>() == static_cast<int64_t>(MemoryKind::kManagedStatic));
static_assert(MaxEnumValue<SyncType>() == static_cast<int64_t>(SyncType::kContextSynchronize));
static_assert(MaxEnumValue<ApiDomain>() == static_cast<int64_t>(ApiDomain::kDriver));
static_assert(MaxEnumValue<RangeSource>() == static_cast<int64_t>(RangeSource::kScope));
static_assert(MaxEnumValue<CounterStrategy>() == static_cast<int64_t>(CounterStrategy::kSweep));
static_assert(MaxEnumValue<SourceLocationKind>() ==
              static_cast<int64_t>(SourceLocationKind::kPython));
static_assert(MaxEnumValue<OwnKind>() == static_cast<int64_t>(OwnKind::kFlush));

const char* MemcpyKindName(MemcpyKind k) { return EnumName(k); }
const char* MemoryKindName(MemoryKind k) { return EnumName(k); }
const char* SyncTypeName(SyncType t) { return EnumName(t); }
const char* CounterStrategyName(CounterStrategy s) { return EnumName(s); }

}  // namespace cuscope::model
