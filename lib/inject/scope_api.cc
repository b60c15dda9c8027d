// The C ABI of user scopes: cuscope_range_push / cuscope_range_pop. The C++ Scope
// class and CUSCOPE_SCOPE (include/cuscope/scope.h) are inline over these.
#include "cuscope/cuscope_c.h"
#include "lib/collect/scopes.h"

#define CUSCOPE_EXPORT extern "C" __attribute__((visibility("default")))

CUSCOPE_EXPORT int cuscope_range_push(const char* name) {
  return static_cast<int>(cuscope::collect::scopes::Push(name != nullptr ? name : ""));
}

CUSCOPE_EXPORT int cuscope_range_pop(void) { return cuscope::collect::scopes::Pop(); }
