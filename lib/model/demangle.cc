#include "lib/model/demangle.h"

#include <cxxabi.h>
// libiberty.h declares basename() unless told the C library does (glibc's C++ one differs).
#define HAVE_DECL_BASENAME 1
#include <libiberty/demangle.h>

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace cuscope::model {
namespace {

// libstdc++'s demangler refuses any symbol longer than this (GCC's cp-demangle, its
// DEMANGLE_RECURSION_LIMIT of 2,048 components at two a character: a guard on the
// stack its arrays take, about 72 bytes a character).
constexpr size_t kStandardDemangleChars = 1024;

// The demangled form of `symbol` (terminated), or nullptr: libstdc++'s demangler, then,
// with kLong, for a symbol it refuses only for its length, libiberty's without that limit.
char* DemangleOrNull(const std::string& symbol, DemangleLimit limit) {
  int status = 0;
  char* out = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (out != nullptr || limit != DemangleLimit::kLong || symbol.size() <= kStandardDemangleChars ||
      symbol.size() > kLongestDemangled) {
    return out;
  }
  // The same demangler with the same options (__cxa_demangle's), without the limit, up
  // to kLongestDemangled characters: at most about 300 KB of the calling thread's stack.
  return cplus_demangle_v3(symbol.c_str(), DMGL_PARAMS | DMGL_TYPES | DMGL_NO_RECURSE_LIMIT);
}

}  // namespace

std::string Demangle(std::string_view symbol, DemangleLimit limit) {
  if (!LooksMangled(symbol)) return std::string(symbol);
  const std::string copy(symbol);  // the demanglers need a terminated string
  std::unique_ptr<char, void (*)(void*)> demangled(DemangleOrNull(copy, limit), std::free);
  if (demangled == nullptr) return copy;
  return std::string(demangled.get());
}

}  // namespace cuscope::model
