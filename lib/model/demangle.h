// Kernel-name demangling: the one demangler of cuscope. The collector stores kernel
// names through it (counter sets and kernel records must agree to be joined) and the
// writers show names through it. Pure: string in, string out.
#ifndef CUSCOPE_LIB_MODEL_DEMANGLE_H_
#define CUSCOPE_LIB_MODEL_DEMANGLE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace cuscope::model {

// Whether a name looks like an Itanium-ABI mangled symbol ("_Z...").
inline bool LooksMangled(std::string_view name) {
  return name.size() > 2 && name[0] == '_' && name[1] == 'Z';
}

// The longest symbol demangled with DemangleLimit::kLong.
inline constexpr size_t kLongestDemangled = 4096;

// How long a symbol is demangled. libstdc++'s demangler refuses any over 1,024 characters
// (CUTLASS and cuDNN kernels have longer ones); GCC's libiberty takes them up to
// kLongestDemangled, as c++filt --no-recurse-limit does. The collector stores names with
// kLong (counter sets and kernel records through the same call); the writers show stored
// names with kStandard, so that a profile whose long names were stored mangled (recorded
// before) shows them as the Python package reads them, mangled.
enum class DemangleLimit { kStandard, kLong };

// The demangled form of an Itanium-ABI symbol ("_Z..."); anything else, or a
// symbol that does not demangle, is returned unchanged. As c++filt without -t: an
// extern "C" name that happens to spell a type ("f", "Pi") stays as it is.
std::string Demangle(std::string_view symbol, DemangleLimit limit = DemangleLimit::kStandard);

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_DEMANGLE_H_
