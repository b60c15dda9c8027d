#include "lib/model/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cuscope::model {

std::string Demangle(std::string_view symbol) {
  if (!LooksMangled(symbol)) return std::string(symbol);
  const std::string copy(symbol);  // __cxa_demangle needs a terminated string
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || demangled == nullptr) return copy;
  return std::string(demangled.get());
}

}  // namespace cuscope::model
