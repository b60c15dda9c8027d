#include <cstdio>
#include <cstring>

#include "cuscope/cuscope.h"
#include "cuscope/version.h"

int main() {
  // The library's version must be the headers' version.
  if (std::strcmp(cuscope_version(), CUSCOPE_VERSION_STRING) != 0) return 1;
  // Without a session, stop reports that none runs.
  if (cuscope::Session::Stop()) return 2;
  std::printf("consumer: cuscope %s, active %d\n", cuscope_version(), cuscope::Session::Active());
  return 0;
}
