// The run's notes: what the collector's parts say about the run beside its records
// (why counters or GPU metrics are missing, what a strategy measured, what was left
// out) and the settings the run was taken with. Each note is a named field of
// RunNotes, declared once in CUSCOPE_RUN_NOTES below with its stored key, its type and
// its doc: a misspelled note fails to compile, the profile stores each under its key
// (lib/store), and docs/profile-format.md lists them from the same declaration.
//
// Two types: kText (a sentence; AddNote appends a second one after "; ") and kCount
// (an integer, absent until set).
#ifndef CUSCOPE_LIB_MODEL_RUN_NOTES_H_
#define CUSCOPE_LIB_MODEL_RUN_NOTES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuscope::model {

using NoteText = std::string;
using NoteCount = std::optional<int64_t>;

// X(member, type (Text or Count), stored key, doc). Keys are "<group>.<name>"; the
// group is what a report section reads (counters, gpu_metrics, ...).
// clang-format off
#define CUSCOPE_RUN_NOTES(X) \
  X(activity_status, Text, "activity.status", "why activity records stopped or are incomplete (another CUPTI client took over)") \
  X(capture_status, Text, "capture.status", "why capture control could not start") \
  X(capture_windows, Count, "capture.windows", "capture windows opened") \
  X(counters_status, Text, "counters.status", "why hardware counters are missing, when they are") \
  X(counters_chip, Text, "counters.chip", "the chip the counters were configured for (GH100, ...)") \
  X(counters_passes, Count, "counters.passes", "passes of the counter configuration") \
  X(counters_strategy, Text, "counters.strategy", "how launches were measured: kernel replay, rotate, sweep or region (user range)") \
  X(counters_config, Text, "counters.config", "the configuration: metrics, chip, passes, strategy (printed with verbose; not stored)") \
  X(counters_dropped, Text, "counters.dropped", "requested metrics this chip does not have") \
  X(counters_image, Text, "counters.image", "the size of the largest counter image") \
  X(counters_image_sizing, Text, "counters.image_sizing", "a counter image sized to its set dropped ranges") \
  X(counters_image_full, Text, "counters.image_full", "the counter image filled up") \
  X(counters_image_placement, Text, "counters.image_placement", "a set's ranges were not where expected in the image") \
  X(counters_ranges_short, Text, "counters.ranges_short", "a set decoded fewer ranges than launches") \
  X(counters_decode, Text, "counters.decode", "decoding counter data failed") \
  X(counters_evaluate, Text, "counters.evaluate", "evaluating metric values failed") \
  X(counters_stop, Text, "counters.stop", "stopping a pass failed") \
  X(counters_disable, Text, "counters.disable", "the Range Profiler could not be disabled") \
  X(counters_region_open, Text, "counters.region_open", "a measured region was still open at the end") \
  X(counters_region_kernels, Text, "counters.region_kernels", "kernel records held off inside measured regions") \
  X(counters_region_context, Text, "counters.region_context", "a region had no CUDA context to measure on") \
  X(counters_no_context_callbacks, Count, "counters.no_context_callbacks", "launch callbacks with no current context, left to the driver's") \
  X(counters_launches_measured, Count, "counters.launches_measured", "launches measured") \
  X(counters_samples_complete, Count, "counters.samples_complete", "counter sets whose passes all ran") \
  X(counters_samples_dropped, Count, "counters.samples_dropped", "counter sets dropped") \
  X(counters_summary, Text, "counters.summary", "the strategy and what its planner measured") \
  X(counters_windows, Count, "counters.windows", "the sweep's windows opened (each a complete set)") \
  X(counters_windows_unproductive, Count, "counters.windows_unproductive", "the sweep's windows that kept no sample") \
  X(counters_backoff, Text, "counters.backoff", "the sweep backed off: windows in a row kept no sample, and it waited") \
  X(counters_nccl_launches, Count, "counters.nccl_launches", "NCCL kernel launches seen, never measured (they wait on other GPUs)") \
  X(counters_captured_launches, Count, "counters.captured_launches", "launches made during stream capture (they do not execute) left unmeasured") \
  X(counters_advice, Text, "counters.advice", "a better strategy for this program") \
  X(counters_setup_ms, Text, "counters.setup_ms", "milliseconds setting up the Range Profiler") \
  X(counters_measure_ms, Text, "counters.measure_ms", "milliseconds of the program's threads held by measurement") \
  X(counters_host_ms, Text, "counters.host_ms", "milliseconds decoding, evaluating and initializing images") \
  X(counters_made_records, Text, "counters.made_records", "kernel records made from launches that were left out") \
  X(counters_kernel_trace, Text, "counters.kernel_trace", "GPU records held off while rotate's sets run") \
  X(counters_budget, Text, "counters.budget", "rotate's time budget: unused, and why") \
  X(counters_budget_idle, Text, "counters.budget_idle", "launch callbacks off while the time budget allowed no set") \
  X(counters_idle, Text, "counters.idle", "launch callbacks off while nothing was left to measure") \
  X(counters_window, Text, "counters.window", "rotate's window limit") \
  X(counters_log, Text, "counters.log", "with verbose: lines on decoding and rotate's windows (up to 40), joined by '; '") \
  X(gpu_metrics_status, Text, "gpu_metrics.status", "why GPU metric samples are missing, when they are") \
  X(gpu_metrics_contexts, Text, "gpu_metrics.contexts", "contexts the sampler could not follow") \
  X(gpu_metrics_metrics, Text, "gpu_metrics.metrics", "the metrics sampled") \
  X(gpu_metrics_left_out, Text, "gpu_metrics.left_out", "metrics left out of sampling, and why") \
  X(gpu_metrics_setup_ms, Text, "gpu_metrics.setup_ms", "time choosing the metrics and starting, per GPU") \
  X(gpu_metrics_samples, Count, "gpu_metrics.samples", "samples recorded") \
  X(gpu_metrics_sampled_ms, Text, "gpu_metrics.sampled_ms", "milliseconds of sampling") \
  X(gpu_metrics_bursts, Text, "gpu_metrics.bursts", "sampling bursts and their pauses") \
  X(gpu_metrics_behind, Text, "gpu_metrics.behind", "decoding fell behind the sampling") \
  X(gpu_metrics_long, Text, "gpu_metrics.long", "samples longer than the interval") \
  X(gpu_metrics_decode_ms, Text, "gpu_metrics.decode_ms", "milliseconds decoding samples") \
  X(gpu_metrics_lost, Text, "gpu_metrics.lost", "samples past the limit, not kept") \
  X(gpu_metrics_bad_times, Text, "gpu_metrics.bad_times", "samples with unusable timestamps") \
  X(gpu_metrics_overflow, Text, "gpu_metrics.overflow", "the GPU's sample buffer overflowed") \
  X(source_status, Text, "source.status", "why PC samples (source hotspots) are missing or partial, when they are") \
  X(source_period, Count, "source.period", "PC sampling period asked for: a sample every 2^period cycles per SM") \
  X(source_samples, Count, "source.samples", "PC samples collected (all PCs, CUPTI's totalSamples)") \
  X(source_dropped, Count, "source.dropped", "PC samples the hardware dropped (buffer back pressure)") \
  X(source_other_kernels, Count, "source.other_kernels", "PC samples of kernels CUPTI gives no PCs for (non-user kernels)") \
  X(source_buffer_full, Text, "source.buffer_full", "the PC sampling hardware buffer filled up: samples were lost") \
  X(source_no_cubin, Count, "source.no_cubin", "sampled PCs whose module was not seen loaded (no lines)") \
  X(scopes_recorded, Count, "scopes_recorded", "user scopes recorded") \
  X(scopes_dropped, Count, "scopes_dropped", "user scopes dropped (open at the end, or past the limit)") \
  X(scopes_unbalanced_pops, Count, "scopes_unbalanced_pops", "scope pops without a push") \
  X(rank_source, Text, "rank_source", "the variable the rank came from (RANK, OMPI_COMM_WORLD_RANK, ...)") \
  X(local_rank, Count, "local_rank", "the rank on its node") \
  X(world_size, Count, "world_size", "the number of ranks")
// clang-format on

struct RunNotes {
#define CUSCOPE_RUN_NOTE_MEMBER_(member, type, key, doc) Note##type member;
  CUSCOPE_RUN_NOTES(CUSCOPE_RUN_NOTE_MEMBER_)
#undef CUSCOPE_RUN_NOTE_MEMBER_
  // The settings the run was taken with: (setting name, value as its parser accepts
  // it), in the settings table's order (lib/config/setting.h); stored as
  // "setting.<name>" (the profile keeps their order: lib/store/run_notes_rows.h;
  // NotesFromKeyValues, reading a map, sorts them by name).
  std::vector<std::pair<std::string, std::string>> settings;
  // Keys no field declares (a newer version's notes), kept as they were read.
  std::map<std::string, std::string> other;

  bool operator==(const RunNotes& o) const;
  bool operator!=(const RunNotes& o) const { return !(*this == o); }
};

enum class NoteType { kText, kCount };

// One declared note: its stored key, type, doc and how to read and set it as text.
struct RunNoteField {
  const char* key;
  NoteType type;
  const char* doc;
  // "" when unset.
  std::string (*get)(const RunNotes& notes);
  // False (nothing set) when `text` is not of the note's type.
  bool (*set)(RunNotes* notes, std::string_view text);
};

// Every declared note, in declaration order.
const std::vector<RunNoteField>& RunNoteFields();
// The field stored under `key`; null when none is declared.
const RunNoteField* FindRunNote(std::string_view key);

// Appends `text` to a text note, after "; " when it already says something.
void AddNote(NoteText* note, std::string_view text);

// Copies every note `from` sets into `into`, replacing what `into` says of it: the
// declared notes that are set, the settings (when `from` has any) and the others.
void MergeNotes(const RunNotes& from, RunNotes* into);

// The settings' stored key prefix: "setting.".
inline constexpr std::string_view kSettingNotePrefix = "setting.";

// Every note that is set as (key, text): the declared ones, the settings
// ("setting.<name>") and the others; sorted by key.
std::map<std::string, std::string> NotesToKeyValues(const RunNotes& notes);
// The inverse: declared keys to their fields, "setting.*" to settings (sorted by
// name), anything else (or a count that is no integer) to `other`.
RunNotes NotesFromKeyValues(const std::map<std::string, std::string>& values);

// The notes of one group ("counters", "gpu_metrics") that are set, as (name after the
// group's "<group>.", text), sorted by name; undeclared keys of the group included.
std::vector<std::pair<std::string, std::string>> NotesOfGroup(const RunNotes& notes,
                                                              std::string_view group);

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_RUN_NOTES_H_
