// cuscope's one way to tell the user something from inside the host program.
#ifndef CUSCOPE_LIB_INJECT_WARN_H_
#define CUSCOPE_LIB_INJECT_WARN_H_

#include <string>

namespace cuscope::inject {

// Prints "cuscope: <message>" as one line on stderr (one write: lines of several
// threads do not mix).
void Warn(const std::string& message);

// Warns once per process, one line each, of the CUSCOPE_* variables of the environment
// that are neither settings nor cuscope's own (config::UnknownVariableWarnings). Only
// the first profiled process of a run says it (CUSCOPE_OWNER_PID unset): under
// `cuscope run`, which has said it already, and in child processes, it says nothing.
void WarnUnknownVariables();

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_WARN_H_
