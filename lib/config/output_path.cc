#include "lib/config/output_path.h"

#include "absl/strings/str_cat.h"
#include "lib/config/config.h"
#include "lib/config/setting.h"

namespace cuscope::config {
namespace {

constexpr char kAccepted[] = "accepted: %p (pid), %h (host), %r (rank), %q{VAR}, %%";

// Expands `output`; with `ctx` null only checks the spelling. `distinct` says whether
// the name tells processes apart.
absl::StatusOr<std::string> Expand(absl::string_view output, const OutputContext* ctx,
                                   bool* distinct) {
  std::string out;
  *distinct = false;
  for (size_t i = 0; i < output.size(); ++i) {
    if (output[i] != '%') {
      out += output[i];
      continue;
    }
    const char kind = i + 1 < output.size() ? output[i + 1] : '\0';
    ++i;
    if (kind == '%') {
      out += '%';
    } else if (kind == 'p') {
      *distinct = true;
      if (ctx != nullptr) absl::StrAppend(&out, ctx->pid);
    } else if (kind == 'h') {
      if (ctx != nullptr) out += ctx->host;
    } else if (kind == 'r') {
      if (ctx != nullptr) {
        *distinct = *distinct || ctx->rank >= 0;
        absl::StrAppend(&out, ctx->rank >= 0 ? absl::StrCat(ctx->rank) : "none");
      }
    } else if (kind == 'q') {
      const size_t close = output.find('}', i);
      if (i + 1 >= output.size() || output[i + 1] != '{' || close == absl::string_view::npos ||
          close == i + 2) {
        return absl::InvalidArgumentError("%q needs a variable name in braces: %q{RANK}");
      }
      const std::string name(output.substr(i + 2, close - i - 2));
      i = close;
      *distinct = true;
      if (ctx == nullptr) continue;
      const char* value = ctx->getenv ? ctx->getenv(name.c_str()) : nullptr;
      if (value == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(Quoted(absl::StrCat("%q{", name, "}")),
                                                       " in the output name, but ", Quoted(name),
                                                       " is not set"));
      }
      out += value;
    } else {
      // Quoted: the character after % may be a newline or any other byte.
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown placeholder ",
          Quoted(absl::StrCat("%", kind == '\0' ? std::string() : std::string(1, kind))),
          " in the output name; ", kAccepted));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> ExpandOutputPath(const std::string& output, const OutputContext& ctx) {
  bool distinct = false;
  absl::StatusOr<std::string> path =
      Expand(output.empty() ? kDefaultOutput : output, &ctx, &distinct);
  if (!path.ok() || distinct || ctx.owner_pid <= 0 || ctx.owner_pid == ctx.pid) return path;
  // A child of the profiled program: never overwrite the owner's file.
  const size_t slash = path->rfind('/');
  const size_t dot = path->rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    absl::StrAppend(&*path, ".", ctx.pid);
  } else {
    path->insert(dot, absl::StrCat(".", ctx.pid));
  }
  return path;
}

absl::Status CheckOutputPlaceholders(absl::string_view output) {
  bool distinct = false;
  return Expand(output, nullptr, &distinct).status();
}

}  // namespace cuscope::config
