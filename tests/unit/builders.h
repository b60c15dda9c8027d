// Synthetic profiles for tests: small, deterministic, with every record kind.
#ifndef CUSCOPE_TESTS_UNIT_BUILDERS_H_
#define CUSCOPE_TESTS_UNIT_BUILDERS_H_

#include <string>

#include "lib/model/profile.h"

namespace cuscope::testing {

// A builder that keeps the string table and the records consistent.
class ProfileBuilder {
 public:
  ProfileBuilder() {
    p_.run.command_line = "./app --flag";
    p_.run.pid = 4242;
    p_.run.cuscope_version = "0.1.0";
    p_.run.hostname = "test-host";
    model::DeviceInfo d;
    d.id = 0;
    d.name = "NVIDIA H200";
    d.compute_major = 9;
    d.compute_minor = 0;
    d.sm_count = 132;
    d.global_memory_bytes = 150ll << 30;
    d.l2_cache_bytes = 60 << 20;
    d.max_threads_per_block = 1024;
    d.max_warps_per_sm = 64;
    d.max_blocks_per_sm = 32;
    d.warp_size = 32;
    d.core_clock_khz = 1980000;
    p_.devices.push_back(d);
  }
  model::KernelRecord& Kernel(const std::string& name, uint64_t start, uint64_t end,
                              uint32_t stream = 7, uint32_t correlation = 0) {
    model::KernelRecord k;
    k.name = p_.strings.Intern(name);
    k.mangled_name = p_.strings.Intern("_Z" + std::to_string(name.size()) + name + "v");
    k.start_ns = start;
    k.end_ns = end;
    k.stream_id = stream;
    k.context_id = 1;
    k.correlation_id = correlation ? correlation : ++next_correlation_;
    k.grid = {128, 1, 1};
    k.block = {256, 1, 1};
    k.registers_per_thread = 32;
    p_.kernels.push_back(k);
    return p_.kernels.back();
  }
  model::ApiRecord& Api(const std::string& name, uint64_t start, uint64_t end, uint32_t correlation,
                        uint32_t thread = 100) {
    model::ApiRecord a;
    a.name = p_.strings.Intern(name);
    a.start_ns = start;
    a.end_ns = end;
    a.correlation_id = correlation;
    a.process_id = 4242;
    a.thread_id = thread;
    p_.api_calls.push_back(a);
    return p_.api_calls.back();
  }
  model::MemcpyRecord& Memcpy(model::MemcpyKind kind, model::MemoryKind host_kind, uint64_t bytes,
                              uint64_t start, uint64_t end) {
    model::MemcpyRecord m;
    m.kind = kind;
    m.src_kind = kind == model::MemcpyKind::kHtoD ? host_kind : model::MemoryKind::kDevice;
    m.dst_kind = kind == model::MemcpyKind::kDtoH ? host_kind : model::MemoryKind::kDevice;
    m.bytes = bytes;
    m.start_ns = start;
    m.end_ns = end;
    m.stream_id = 7;
    m.context_id = 1;
    m.correlation_id = ++next_correlation_;
    p_.memcpys.push_back(m);
    return p_.memcpys.back();
  }
  model::MemsetRecord& Memset(uint64_t bytes, uint64_t start, uint64_t end) {
    model::MemsetRecord m;
    m.bytes = bytes;
    m.start_ns = start;
    m.end_ns = end;
    m.stream_id = 7;
    m.memory_kind = model::MemoryKind::kDevice;
    m.correlation_id = ++next_correlation_;
    p_.memsets.push_back(m);
    return p_.memsets.back();
  }
  model::RangeRecord& Range(const std::string& name, uint64_t start, uint64_t end,
                            uint32_t depth = 0, uint32_t thread = 100,
                            const std::string& domain = "") {
    model::RangeRecord r;
    r.name = p_.strings.Intern(name);
    r.domain = p_.strings.Intern(domain);
    r.start_ns = start;
    r.end_ns = end;
    r.depth = depth;
    r.process_id = 4242;
    r.thread_id = thread;
    r.id = ++next_range_;
    p_.ranges.push_back(r);
    return p_.ranges.back();
  }
  model::SyncRecord& Sync(model::SyncType type, uint64_t start, uint64_t end) {
    model::SyncRecord s;
    s.type = type;
    s.start_ns = start;
    s.end_ns = end;
    s.stream_id = 7;
    s.correlation_id = ++next_correlation_;
    p_.syncs.push_back(s);
    return p_.syncs.back();
  }
  model::Profile& profile() { return p_; }
  model::Profile Take() { return std::move(p_); }

 private:
  model::Profile p_;
  uint32_t next_correlation_ = 1000;
  uint64_t next_range_ = 0;
};

}  // namespace cuscope::testing

#endif  // CUSCOPE_TESTS_UNIT_BUILDERS_H_
