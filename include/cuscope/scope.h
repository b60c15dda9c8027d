// User scopes in C++: a named span of the calling thread, recorded as a region like
// an NVTX push/pop range (docs/regions.md).
//
//   void Attention(...) {
//     CUSCOPE_SCOPE("attention");   // from here to the end of the enclosing block
//     ...
//   }
//
// CUSCOPE_SCOPE records where the scope is: each use makes one static constant
// cuscope_source_location (name, function, file, line) and a push passes its
// address, so a literal name is never copied and the location costs nothing per
// push. A name that is not a string literal (a std::string, a const char* variable)
// is copied at each push, as cuscope::Scope does; the location is recorded too.
// (A local `const char name[]` array is taken for a literal and does not compile:
// make it static or constexpr.)
//
// Inline over the C ABI (cuscope_range_push_at / cuscope_range_push /
// cuscope_range_pop): link libcuscope. Outside a session a scope costs a few
// nanoseconds and records nothing.
//
// Defining CUSCOPE_DISABLE before including this header compiles scopes out:
// CUSCOPE_SCOPE(name) expands to nothing (its argument is not evaluated, like
// assert's under NDEBUG) and cuscope::Scope does nothing; no call into the library
// remains, so the program need not link libcuscope.
#ifndef CUSCOPE_SCOPE_H_
#define CUSCOPE_SCOPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

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
  // At a static site (see cuscope_range_push_at): named site->name when `name` is
  // nullptr, else `name` (copied).
  Scope(const cuscope_source_location* site, const char* name) noexcept {
    cuscope_range_push_at(site, name);
  }
  ~Scope() { cuscope_range_pop(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

namespace scope_detail {

// Whether CUSCOPE_SCOPE's argument, of type decltype((name)), is a string literal
// (or another array of const char): then it goes into the static site.
template <typename T>
inline constexpr bool kLiteral = false;
template <size_t N>
inline constexpr bool kLiteral<const char (&)[N]> = true;

// The site's name: the literal itself. Only called when kLiteral holds.
template <size_t N>
constexpr const char* SiteName(const char (&name)[N]) {
  return name;
}
template <typename T>
constexpr const char* SiteName(const T&) {
  return nullptr;
}

// The name passed at each push: nullptr for a literal (the site holds it), else
// the name as a C string (valid to the end of the full expression: it is copied).
template <bool kIsLiteral, typename T>
const char* PushName(const T& name) noexcept {
  if constexpr (kIsLiteral) {
    return nullptr;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return name.c_str();
  } else {
    return name;
  }
}

}  // namespace scope_detail

// The site is cuscope_site_<counter> and the variable cuscope_scope_<line>_<counter>:
// unique, also with two on a line.
#define CUSCOPE_SCOPE(name) CUSCOPE_SCOPE_N_(name, __COUNTER__)
#define CUSCOPE_SCOPE_N_(name, n)                                                             \
  static constexpr ::cuscope_source_location CUSCOPE_SCOPE_CAT_(cuscope_site_, n){            \
      ::cuscope::scope_detail::kLiteral<decltype((name))>                                     \
          ? ::cuscope::scope_detail::SiteName(name)                                           \
          : nullptr,                                                                          \
      __func__, __FILE__, static_cast<uint32_t>(__LINE__)};                                   \
  ::cuscope::Scope CUSCOPE_SCOPE_CAT_(CUSCOPE_SCOPE_CAT_(cuscope_scope_, __LINE__),           \
                                      CUSCOPE_SCOPE_CAT_(_, n))(                              \
      &CUSCOPE_SCOPE_CAT_(cuscope_site_, n),                                                  \
      ::cuscope::scope_detail::PushName<::cuscope::scope_detail::kLiteral<decltype((name))>>( \
          name))

#else  // CUSCOPE_DISABLE

class Scope {
 public:
  constexpr explicit Scope(const char*) noexcept {}
  explicit Scope(const std::string&) noexcept {}
  constexpr Scope(const cuscope_source_location*, const char*) noexcept {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

#define CUSCOPE_SCOPE(name)

#endif  // CUSCOPE_DISABLE

}  // namespace cuscope

#endif  // CUSCOPE_SCOPE_H_
