// The names of the profile's enums, each said once: one table per enum, a row per
// value in value order. A row's `name` is what the profile file's enum_names table
// holds and what the reports write; `display` is set only where the Chrome trace
// spells the value another way (its output keeps that spelling).
//
// profile.h declares the per-enum functions (MemcpyKindName, ...); they and the
// store's enum_names rows and range checks all read these tables.
#ifndef CUSCOPE_LIB_MODEL_ENUM_NAMES_H_
#define CUSCOPE_LIB_MODEL_ENUM_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <iterator>

#include "lib/model/profile.h"

namespace cuscope::model {

template <typename E>
struct EnumNameRow {
  E value;
  const char* name;
  const char* display = nullptr;  // nullptr: displayed as `name`
};

// EnumNames<E>::kEnum names the enum in the profile's enum_names table;
// EnumNames<E>::kRows holds every value of E, in value order from 0.
template <typename E>
struct EnumNames;

template <>
struct EnumNames<MemcpyKind> {
  static constexpr char kEnum[] = "memcpy_kind";
  static constexpr EnumNameRow<MemcpyKind> kRows[] = {
      {MemcpyKind::kUnknown, "unknown"}, {MemcpyKind::kHtoD, "HtoD"}, {MemcpyKind::kDtoH, "DtoH"},
      {MemcpyKind::kHtoA, "HtoA"},       {MemcpyKind::kAtoH, "AtoH"}, {MemcpyKind::kAtoA, "AtoA"},
      {MemcpyKind::kAtoD, "AtoD"},       {MemcpyKind::kDtoA, "DtoA"}, {MemcpyKind::kDtoD, "DtoD"},
      {MemcpyKind::kHtoH, "HtoH"},       {MemcpyKind::kPtoP, "PtoP"},
  };
};

template <>
struct EnumNames<MemoryKind> {
  static constexpr char kEnum[] = "memory_kind";
  static constexpr EnumNameRow<MemoryKind> kRows[] = {
      {MemoryKind::kUnknown, "unknown"},
      {MemoryKind::kPageable, "pageable"},
      {MemoryKind::kPinned, "pinned"},
      {MemoryKind::kDevice, "device"},
      {MemoryKind::kArray, "array"},
      {MemoryKind::kManaged, "managed"},
      {MemoryKind::kDeviceStatic, "device_static"},
      {MemoryKind::kManagedStatic, "managed_static"},
  };
};

template <>
struct EnumNames<SyncType> {
  static constexpr char kEnum[] = "sync_type";
  static constexpr EnumNameRow<SyncType> kRows[] = {
      {SyncType::kUnknown, "unknown"},
      {SyncType::kEventSynchronize, "cudaEventSynchronize"},
      {SyncType::kStreamWaitEvent, "cudaStreamWaitEvent"},
      {SyncType::kStreamSynchronize, "cudaStreamSynchronize"},
      {SyncType::kContextSynchronize, "cudaDeviceSynchronize"},
  };
};

template <>
struct EnumNames<ApiDomain> {
  static constexpr char kEnum[] = "api_domain";
  static constexpr EnumNameRow<ApiDomain> kRows[] = {
      {ApiDomain::kRuntime, "runtime"},
      {ApiDomain::kDriver, "driver"},
  };
};

template <>
struct EnumNames<RangeSource> {
  static constexpr char kEnum[] = "range_source";
  static constexpr EnumNameRow<RangeSource> kRows[] = {
      {RangeSource::kNvtxPushPop, "nvtx_push_pop", "nvtx push/pop"},
      {RangeSource::kNvtxStartEnd, "nvtx_start_end", "nvtx start/end"},
      {RangeSource::kNvtxMark, "nvtx_mark", "nvtx mark"},
      {RangeSource::kScope, "scope"},
  };
};

template <>
struct EnumNames<CounterStrategy> {
  static constexpr char kEnum[] = "counter_strategy";
  static constexpr EnumNameRow<CounterStrategy> kRows[] = {
      {CounterStrategy::kRotate, "rotate"},
      {CounterStrategy::kKernelReplay, "kernel replay"},
      {CounterStrategy::kUserRange, "region"},
      {CounterStrategy::kSweep, "sweep"},
  };
};

template <>
struct EnumNames<SourceLocationKind> {
  static constexpr char kEnum[] = "source_location_kind";
  static constexpr EnumNameRow<SourceLocationKind> kRows[] = {
      {SourceLocationKind::kScope, "scope"},
      {SourceLocationKind::kPython, "python"},
  };
};

template <>
struct EnumNames<OwnKind> {
  static constexpr char kEnum[] = "own_kind";
  static constexpr EnumNameRow<OwnKind> kRows[] = {
      {OwnKind::kKernelReplay, "kernel replay"},  {OwnKind::kRotateWindow, "rotate window"},
      {OwnKind::kSweepWindow, "sweep window"},    {OwnKind::kRegionCounters, "region counters"},
      {OwnKind::kPmDecode, "GPU metrics decode"}, {OwnKind::kFlush, "profile flush"},
  };
};

// The row of `e`, or nullptr for a value outside E's table.
template <typename E>
const EnumNameRow<E>* FindEnumRow(E e) {
  const size_t i = static_cast<size_t>(e);
  return i < std::size(EnumNames<E>::kRows) ? &EnumNames<E>::kRows[i] : nullptr;
}

// The name of `e` ("unknown" for a value outside E's table).
template <typename E>
const char* EnumName(E e) {
  const EnumNameRow<E>* row = FindEnumRow(e);
  return row != nullptr ? row->name : "unknown";
}

// How the Chrome trace spells `e`: its display name, else its name.
template <typename E>
const char* EnumDisplayName(E e) {
  const EnumNameRow<E>* row = FindEnumRow(e);
  if (row == nullptr) return "unknown";
  return row->display != nullptr ? row->display : row->name;
}

// The largest value of E (values above it are out of range in a profile).
template <typename E>
constexpr int64_t MaxEnumValue() {
  return static_cast<int64_t>(std::size(EnumNames<E>::kRows)) - 1;
}

// True when E's table holds the values 0, 1, ... in order (checked at compile
// time for every table, in enum_names.cc).
template <typename E>
constexpr bool EnumRowsAreDense() {
  for (size_t i = 0; i < std::size(EnumNames<E>::kRows); ++i) {
    if (static_cast<size_t>(EnumNames<E>::kRows[i].value) != i) return false;
  }
  return true;
}

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_ENUM_NAMES_H_
