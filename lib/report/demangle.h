// Demangling of C++ symbol names, for kernels the collector could not demangle.
#ifndef CUSCOPE_LIB_REPORT_DEMANGLE_H_
#define CUSCOPE_LIB_REPORT_DEMANGLE_H_

#include <string>
#include <string_view>

namespace cuscope::report {

// The demangled form of an Itanium-ABI symbol ("_Z..."); anything else, or a
// symbol that does not demangle, is returned unchanged.
std::string Demangle(std::string_view symbol);

// Whether a name looks like an Itanium-ABI mangled symbol.
inline bool LooksMangled(std::string_view name) {
  return name.size() > 2 && name[0] == '_' && name[1] == 'Z';
}

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DEMANGLE_H_
