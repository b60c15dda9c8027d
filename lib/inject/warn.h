// cuscope's one way to tell the user something from inside the host program.
#ifndef CUSCOPE_LIB_INJECT_WARN_H_
#define CUSCOPE_LIB_INJECT_WARN_H_

#include <string>

namespace cuscope::inject {

// Prints "cuscope: <message>" as one line on stderr (one write: lines of several
// threads do not mix).
void Warn(const std::string& message);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_WARN_H_
