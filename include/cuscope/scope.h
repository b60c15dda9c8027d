// User scopes in C++: a named span of the calling thread, recorded as a region like
// an NVTX push/pop range (docs/regions.md).
//
//   void Attention(...) {
//     CUSCOPE_SCOPE("attention");   // from here to the end of the enclosing block
//     ...
//   }
//
// Inline over the C ABI (cuscope_range_push / cuscope_range_pop): link libcuscope.
// Outside a session a scope costs a few nanoseconds and records nothing.
//
// Defining CUSCOPE_DISABLE before including this header compiles scopes out:
// CUSCOPE_SCOPE(name) expands to nothing (its argument is not evaluated, like
// assert's under NDEBUG) and cuscope::Scope does nothing; no call into the library
// remains, so the program need not link libcuscope.
#ifndef CUSCOPE_SCOPE_H_
#define CUSCOPE_SCOPE_H_

#include <string>

#include "cuscope/cuscope_c.h"

#define CUSCOPE_SCOPE_CAT2_(a, b) a##b
#define CUSCOPE_SCOPE_CAT_(a, b) CUSCOPE_SCOPE_CAT2_(a, b)

namespace cuscope {

#if !defined(CUSCOPE_DISABLE)

// Opens a scope on construction and closes it on destruction, on the same thread.
// Scopes must nest (destroy them in reverse order of construction, as automatic
// variables are); do not move one to another thread.
class Scope {
 public:
  explicit Scope(const char* name) noexcept { cuscope_range_push(name); }
  explicit Scope(const std::string& name) noexcept { cuscope_range_push(name.c_str()); }
  ~Scope() { cuscope_range_pop(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

// The variable is cuscope_scope_<line>_<counter>: unique, also with two on a line.
#define CUSCOPE_SCOPE(name)                                                         \
  ::cuscope::Scope CUSCOPE_SCOPE_CAT_(CUSCOPE_SCOPE_CAT_(cuscope_scope_, __LINE__), \
                                      CUSCOPE_SCOPE_CAT_(_, __COUNTER__))(name)

#else  // CUSCOPE_DISABLE

class Scope {
 public:
  constexpr explicit Scope(const char*) noexcept {}
  explicit Scope(const std::string&) noexcept {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

#define CUSCOPE_SCOPE(name)

#endif  // CUSCOPE_DISABLE

}  // namespace cuscope

#endif  // CUSCOPE_SCOPE_H_
