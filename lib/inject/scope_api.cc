// The C ABI of user scopes: cuscope_range_push / cuscope_range_push_at /
// cuscope_range_pop. The C++ Scope class and CUSCOPE_SCOPE (include/cuscope/scope.h)
// are inline over these.
#include "cuscope/cuscope_c.h"
#include "lib/collect/scopes.h"
#include "lib/inject/session.h"

#define CUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

CUSCOPE_EXPORT int cuscope_range_push(const char* name) {
  const char* n = name != nullptr ? name : "";
  // Scopes are regions like NVTX ranges: they can open a capture window too.
  cuscope::inject::TheSession().OnScopePush(n);
  return static_cast<int>(cuscope::collect::scopes::Push(n));
}

CUSCOPE_EXPORT int cuscope_range_push_at(const cuscope_source_location* site, const char* name) {
  if (site == nullptr) return cuscope_range_push(name);
  const char* n = name != nullptr ? name : (site->name != nullptr ? site->name : "");
  cuscope::inject::TheSession().OnScopePush(n);
  return static_cast<int>(cuscope::collect::scopes::PushAt(site, name));
}

CUSCOPE_EXPORT int cuscope_range_push_python(const cuscope_source_location* site) {
  if (site == nullptr) return cuscope_range_push(nullptr);
  // A Python line is no region: no capture window opens at it.
  return static_cast<int>(cuscope::collect::scopes::PushPython(site));
}

CUSCOPE_EXPORT int cuscope_range_pop_python(void) { return cuscope::collect::scopes::Pop(); }

CUSCOPE_EXPORT int cuscope_range_pop(void) {
  int depth = cuscope::collect::scopes::Pop();
  if (depth >= 0) cuscope::inject::TheSession().OnScopePop();  // an unbalanced pop closes nothing
  return depth;
}
