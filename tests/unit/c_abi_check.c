/* The C ABI from C, against libcuscope.so, without a GPU: every function links and
 * answers as documented when no session runs. Prints one line per check and
 * "N passed, M failed"; exits non-zero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuscope/cuscope_c.h"
#include "cuscope/version.h"

static int passed = 0, failed = 0;

static void check(int ok, const char* what) {
  if (ok) {
    ++passed;
    printf("ok   %s\n", what);
  } else {
    ++failed;
    printf("FAIL %s\n", what);
  }
}

/* A program may call cuscope_* from its own atexit handler: a failing call there must
 * not crash (the error text must outlive C++ thread_local destruction). */
static void AtExitCalls(void) {
  int stop = cuscope_stop();
  int start = cuscope_start("CUSCOPE_API=bogus-and-long-enough-to-need-the-heap-xxxxxxxxxxxxxxxx");
  if (stop != CUSCOPE_ERROR_NOT_ACTIVE || start != CUSCOPE_ERROR_INVALID_SETTING ||
      strstr(cuscope_last_error(), "CUSCOPE_API") == NULL) {
    printf("FAIL cuscope_* calls from an atexit handler\n");
    _Exit(1);
  }
  printf("ok   cuscope_* calls from an atexit handler\n");
}

int main(void) {
  atexit(AtExitCalls);
  const char* version = cuscope_version();
  check(version != NULL && strcmp(version, CUSCOPE_VERSION_STRING) == 0,
        "cuscope_version() == CUSCOPE_VERSION_STRING");
  check(cuscope_is_active() == 0, "cuscope_is_active() == 0 before any start");
  check(cuscope_output_path() != NULL && cuscope_output_path()[0] == '\0',
        "cuscope_output_path() is \"\" before any start");

  /* Scopes without a session: not recorded (0), balanced, never a crash. */
  check(cuscope_range_push("outer") == 0, "cuscope_range_push without a session returns 0");
  check(cuscope_range_push(NULL) == 0, "cuscope_range_push(NULL) returns 0");
  check(cuscope_range_pop() == 1, "cuscope_range_pop returns the remaining depth (1)");
  check(cuscope_range_pop() == 0, "cuscope_range_pop returns the remaining depth (0)");
  check(cuscope_range_pop() == -1, "an extra cuscope_range_pop returns -1");
  check(cuscope_range_push("again") == 0 && cuscope_range_pop() == 0,
        "scopes still work after an unbalanced pop");
  {
    static const cuscope_source_location site = {"located", "main", __FILE__, __LINE__};
    check(cuscope_range_push_at(&site, NULL) == 0, "cuscope_range_push_at without a session");
    check(cuscope_range_push_at(&site, "renamed") == 0, "cuscope_range_push_at with a name");
    check(cuscope_range_push_at(NULL, NULL) == 0, "cuscope_range_push_at(NULL, NULL)");
    check(cuscope_range_pop() == 2 && cuscope_range_pop() == 1 && cuscope_range_pop() == 0,
          "located scopes pop like the others");
    check(cuscope_range_push_python(&site) == 0 && cuscope_range_pop_python() == 0,
          "cuscope_range_push_python / pop_python without a session");
  }

  check(cuscope_stop() == CUSCOPE_ERROR_NOT_ACTIVE, "cuscope_stop() without a session");
  check(cuscope_last_error()[0] != '\0', "cuscope_last_error() says why");
  check(cuscope_flush() == CUSCOPE_ERROR_NOT_ACTIVE, "cuscope_flush() without a session");

  check(cuscope_start("CUSCOPE_API=bogus") == CUSCOPE_ERROR_INVALID_SETTING,
        "cuscope_start(\"CUSCOPE_API=bogus\") == CUSCOPE_ERROR_INVALID_SETTING");
  check(strstr(cuscope_last_error(), "CUSCOPE_API") != NULL, "its error names CUSCOPE_API");
  printf("     (%s)\n", cuscope_last_error());
  check(cuscope_start("garbage") == CUSCOPE_ERROR_INVALID_SETTING,
        "cuscope_start(\"garbage\") == CUSCOPE_ERROR_INVALID_SETTING");
  printf("     (%s)\n", cuscope_last_error());
  check(cuscope_start("CUSCOPE_NO_SUCH_SETTING=1") == CUSCOPE_ERROR_INVALID_SETTING,
        "cuscope_start with an unknown setting == CUSCOPE_ERROR_INVALID_SETTING");
  check(cuscope_is_active() == 0, "still not active after refused starts");
  check(cuscope_start("CUSCOPE_ENABLE=0") == CUSCOPE_ERROR_DISABLED,
        "cuscope_start(\"CUSCOPE_ENABLE=0\") == CUSCOPE_ERROR_DISABLED");

  /* Metric sets per chip: the Host API needs no GPU. */
  {
    char small[8];
    char chip[64];
    int n;
    check(cuscope_metrics_chips(NULL, NULL, 0) > 0, "cuscope_metrics_chips gives its length");
    check(cuscope_metrics_check(NULL, "roofline,dram__bytes.sum") == CUSCOPE_OK,
          "cuscope_metrics_check accepts a set and a metric");
    check(cuscope_metrics_check(NULL, "rooflin") == CUSCOPE_ERROR_INVALID_SETTING,
          "cuscope_metrics_check refuses a typo");
    check(strstr(cuscope_last_error(), "nearest: roofline") != NULL, "and names the nearest set");
    check(cuscope_metrics_check("GX999", "roofline") == CUSCOPE_ERROR_CUPTI,
          "cuscope_metrics_check refuses an unknown chip");
    n = cuscope_metrics_resolve("GA100", "roofline", "text", small, sizeof(small));
    check(n > (int)sizeof(small) && strlen(small) == sizeof(small) - 1,
          "cuscope_metrics_resolve cuts to the buffer and returns the whole length");
    check(cuscope_visible_chip(chip, sizeof(chip)) >= 0, "cuscope_visible_chip without a GPU");
  }

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
