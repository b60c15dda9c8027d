/* cuscope's C ABI: stable, for any language that can call C (Python's ctypes, ...).
 *
 * Every function is safe to call from any thread, and safe to call whether or not
 * cuscope was also injected through CUDA_INJECTION64_PATH: there is one profiler
 * per process. Functions that can fail return 0 on success and a negative code
 * otherwise; cuscope_last_error() then gives one line saying why.
 */
#ifndef CUSCOPE_CUSCOPE_C_H_
#define CUSCOPE_CUSCOPE_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(CUSCOPE_BUILDING_LIBRARY)
#define CUSCOPE_API __attribute__((visibility("default")))
#else
#define CUSCOPE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CUSCOPE_OK = 0,
  CUSCOPE_ERROR_INVALID_SETTING = -1, /* a setting's value is not accepted */
  CUSCOPE_ERROR_ALREADY_ACTIVE = -2,  /* a session runs already */
  CUSCOPE_ERROR_NOT_ACTIVE = -3,      /* no session runs */
  CUSCOPE_ERROR_CUPTI = -4,           /* CUPTI refused (no GPU, another profiler, ...) */
  CUSCOPE_ERROR_OUTPUT = -5,          /* the profile file cannot be written */
  CUSCOPE_ERROR_DISABLED = -6         /* CUSCOPE_ENABLE=0 */
};

/* Starts a profiling session. `settings` is NULL or a list of NAME=VALUE pairs
 * separated by ';' or newlines, with the names of the environment variables
 * (CUSCOPE_OUTPUT=run.sqlite;CUSCOPE_API=all). Settings not given come from the
 * environment, then from the defaults (docs/configuration.md). */
CUSCOPE_API int cuscope_start(const char* settings);
/* Stops the session: flushes every record, writes the profile, prints the report
 * (unless CUSCOPE_REPORT=none) and lets CUDA run untraced again. */
CUSCOPE_API int cuscope_stop(void);
/* Writes the records buffered so far to the profile: those of completed work (a
 * buffer that still holds a kernel queued or running waits for the next flush or
 * cuscope_stop, so that no kernel loses its start and end times). */
CUSCOPE_API int cuscope_flush(void);
/* 1 while a session records, 0 otherwise. */
CUSCOPE_API int cuscope_is_active(void);
/* The path of the current (or last) session's profile; "" if none. The string is
 * the calling thread's and stays valid until its next call. */
CUSCOPE_API const char* cuscope_output_path(void);
/* The last error of the calling thread, "" if none. */
CUSCOPE_API const char* cuscope_last_error(void);
/* "MAJOR.MINOR.PATCH" */
CUSCOPE_API const char* cuscope_version(void);

/* User scopes (docs/regions.md): a named span on the calling thread, recorded as a
 * region like an NVTX push/pop range (domain "cuscope"). Scopes nest per thread.
 * Cheap outside a session (a few ns); the name (NULL is "") is copied.
 *
 * cuscope_range_push returns the thread's new nesting depth (>= 1) when the scope is
 * recorded, 0 when no session records (the push still counts for balance: pop it). */
CUSCOPE_API int cuscope_range_push(const char* name);
/* A scope's site in the source code, for cuscope_range_push_at: CUSCOPE_SCOPE makes
 * one per use as a static constant, so a push passes a pointer and copies no string.
 * `name` is the scope's name, or NULL when each push gives it; `function`, `file`
 * (NULL is "") and `line` (0: unknown) say where the site is. */
typedef struct cuscope_source_location {
  const char* name;
  const char* function;
  const char* file;
  uint32_t line;
} cuscope_source_location;

/* Opens a scope at `site`, as cuscope_range_push does, and records where it is: the
 * profile's source_locations table gets one row per distinct site, and the scope's
 * region names it. With `name` NULL the scope is named site->name, which is not
 * copied; a non-NULL `name` is copied (a name made at run time). `site` NULL: as
 * cuscope_range_push(name).
 *
 * The library keeps the pointer: the record and the strings it points to must stay
 * unchanged while the process runs (static storage; a library holding sites must not
 * be unloaded while a session records). Returns as cuscope_range_push; close the
 * scope with cuscope_range_pop. */
CUSCOPE_API int cuscope_range_push_at(const cuscope_source_location* site, const char* name);
/* Opens a scope at a Python call site, as cuscope_range_push_at(site, NULL), recorded
 * with source location kind "python": the PyTorch hook (`cuscope run --pytorch`) opens
 * one around each torch call made from Python, and reports tie kernels to its line.
 * Such scopes are not regions and open no capture window. `site` must not be NULL and
 * stays as cuscope_range_push_at says. */
CUSCOPE_API int cuscope_range_push_python(const cuscope_source_location* site);
/* Closes a scope opened by cuscope_range_push_python (the calling thread's innermost
 * one), as cuscope_range_pop does, without closing a region. */
CUSCOPE_API int cuscope_range_pop_python(void);
/* Closes the calling thread's innermost scope. Returns the remaining depth (>= 0), or
 * -1 when the thread has no open scope (ignored; the first such pop in the process
 * prints one warning line on stderr). */
CUSCOPE_API int cuscope_range_pop(void);

/* Metric sets per chip (docs/counters.md), as `cuscope run` checks them before the
 * program starts and `cuscope metrics` lists them; CUPTI's Profiler Host API needs
 * no GPU. Those that write text into `buf` (at most `size` bytes, NUL-terminated
 * when size > 0) return the length of the whole text, so a result >= size means it
 * was cut: call again with a larger buffer. Negative: an error, as above.
 *
 * The chip of the GPU a program started now would run on (CUDA device 0), e.g.
 * "GH100"; 0 and "" when none is visible (cuscope_last_error() says why). Loads and
 * initializes the CUDA driver in the calling process. */
CUSCOPE_API int cuscope_visible_chip(char* buf, size_t size);
/* The chips the Range Profiler supports, with their architecture and GPUs.
 * `format`: "text" (NULL) or "json". */
CUSCOPE_API int cuscope_metrics_chips(const char* format, char* buf, size_t size);
/* 0 when each name of `request` (named sets and metric names, comma separated, as
 * CUSCOPE_METRICS takes them) can be measured on `chip`, or with `chip` NULL or ""
 * on at least one supported chip. CUSCOPE_ERROR_INVALID_SETTING names the first bad
 * name and the nearest valid ones; CUSCOPE_ERROR_CUPTI: CUPTI does not know `chip`. */
CUSCOPE_API int cuscope_metrics_check(const char* chip, const char* request);
/* `chip`, here and above, is a chip's name in any case ("GH100", "gh100") or a GPU's
 * that cuscope_metrics_chips lists for it ("H200"); an unknown one's error lists those
 * accepted.
 * The sets and metrics of `request` (NULL or "": every named set, one line each)
 * resolved for `chip`: each metric with CUPTI's description, the chip's own name for
 * it where it differs, and what the chip cannot measure. `format`: "text" or "json". */
CUSCOPE_API int cuscope_metrics_resolve(const char* chip, const char* request, const char* format,
                                        char* buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* CUSCOPE_CUSCOPE_C_H_ */
