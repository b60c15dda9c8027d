#include "lib/report/name_cut.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cuscope::report {
namespace {

bool Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string CutWithEllipsis(absl::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t cut = n - 3;
  while (cut > 0 && Continuation(s[cut])) --cut;
  return absl::StrCat(s.substr(0, cut), "...");
}

std::string CutInTheMiddle(absl::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  if (n < 5) return CutWithEllipsis(s, n);
  size_t head = (n - 3 + 1) / 2;
  size_t tail = s.size() - (n - 3 - head);
  while (head > 0 && Continuation(s[head])) --head;
  while (tail < s.size() && Continuation(s[tail])) ++tail;
  return absl::StrCat(s.substr(0, head), "...", s.substr(tail));
}

std::string CollapseParameters(absl::string_view name) {
  if (name.empty() || name.back() != ')') return std::string(name);
  int level = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++level;
    if (name[i] == '(' && --level == 0) {
      return i > 0 ? absl::StrCat(name.substr(0, i), "(...)") : std::string(name);
    }
  }
  return std::string(name);
}

std::string FitName(absl::string_view name, size_t width) {
  if (width < 4 || name.size() <= width) return std::string(name);
  const std::string collapsed = CollapseParameters(name);
  return CutInTheMiddle(collapsed.size() < name.size() ? collapsed : name, width);
}

namespace {

// Bytes of words: letters, digits and every byte of a UTF-8 sequence (so that a cut
// at a word's edge is never inside one); identifiers add '_'.
bool Alnum(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80;
}
bool IdentifierByte(char c) { return Alnum(c) || c == '_'; }

// The end of a namespace qualifier ("at::", "(anonymous namespace)::") that starts
// at `at`; npos when none does. Keywords ("const::{lambda...") are no qualifiers.
size_t QualifierEnd(absl::string_view s, size_t at) {
  constexpr absl::string_view kAnonymous = "(anonymous namespace)::";
  if (absl::StartsWith(s.substr(at), kAnonymous)) return at + kAnonymous.size();
  if (at >= s.size() || !(IdentifierByte(s[at]) && !(s[at] >= '0' && s[at] <= '9'))) {
    return absl::string_view::npos;
  }
  size_t end = at;
  while (end < s.size() && IdentifierByte(s[end])) ++end;
  const absl::string_view word = s.substr(at, end - at);
  if (word == "const" || word == "volatile" || !absl::StartsWith(s.substr(end), "::")) {
    return absl::string_view::npos;
  }
  return end + 2;
}

// `s` without its namespace qualifiers: "at::native::f<std::array<int, 2> >" is
// "f<array<int, 2> >". Qualifiers after "::" that follow something else than an
// identifier ("Outer<T>::Inner", "{lambda()#1}::operator()") stay.
std::string DropQualifiers(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (i == 0 || (!IdentifierByte(s[i - 1]) && s[i - 1] != ':')) {
      size_t j = i;
      for (size_t end = QualifierEnd(s, j); end != absl::string_view::npos;
           end = QualifierEnd(s, j)) {
        j = end;
      }
      if (j > i) {
        i = j;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

// The shortening steps of a name, each one shorter or equal: the name, its parameter
// list collapsed, then without "void ", then without namespace qualifiers.
constexpr size_t kSteps = 4;
using Steps = std::array<std::string, kSteps>;

Steps StepsOf(absl::string_view name) {
  Steps s;
  s[0] = std::string(name);
  s[1] = CollapseParameters(name);
  if (s[1].size() > name.size()) s[1] = s[0];  // "k(i)" stays
  s[2] = absl::StartsWith(s[1], "void ") ? s[1].substr(5) : s[1];
  s[3] = DropQualifiers(s[2]);
  return s;
}

// Each name's shortest step that fits `width` (the last step when none does), taken
// back one step at a time for the names whose step another name shares, until no
// two share one (the names themselves are distinct).
std::vector<std::string> ChooseForms(const std::vector<Steps>& steps, size_t width) {
  std::vector<size_t> step(steps.size(), 0);
  for (size_t i = 0; i < steps.size(); ++i) {
    while (step[i] + 1 < kSteps && steps[i][step[i]].size() > width) ++step[i];
  }
  for (bool changed = true; changed;) {
    changed = false;
    absl::flat_hash_map<absl::string_view, std::vector<size_t>> sharing;
    for (size_t i = 0; i < steps.size(); ++i) sharing[steps[i][step[i]]].push_back(i);
    for (const auto& [form, names] : sharing) {
      if (names.size() < 2) continue;
      for (size_t i : names) {
        if (step[i] > 0) --step[i], changed = true;
      }
    }
  }
  std::vector<std::string> forms;
  for (size_t i = 0; i < steps.size(); ++i) forms.push_back(steps[i][step[i]]);
  return forms;
}

size_t CommonPrefix(absl::string_view a, absl::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// Where each form first differs from the forms nearest to it: the longest prefix it
// shares with another form (its neighbours in sorted order).
std::vector<size_t> FirstDifferences(const std::vector<std::string>& forms) {
  std::vector<size_t> order(forms.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return forms[a] < forms[b]; });
  std::vector<size_t> diff(forms.size(), 0);
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    const size_t shared = CommonPrefix(forms[order[k]], forms[order[k + 1]]);
    diff[order[k]] = std::max(diff[order[k]], shared);
    diff[order[k + 1]] = std::max(diff[order[k + 1]], shared);
  }
  return diff;
}

// Positions in a form: word edges and the words around a byte.
struct Form {
  absl::string_view s;

  // Whether `p` is no cut inside a word.
  bool Edge(size_t p) const { return p == 0 || p >= s.size() || !(Alnum(s[p - 1]) && Alnum(s[p])); }
  // `p` moved by `step` (+1 or -1) to the nearest word edge within [lo, hi], at most
  // 12 bytes away; `p` itself when there is none.
  size_t Snap(size_t p, int step, size_t lo, size_t hi) const {
    size_t q = p;
    for (int moved = 0; moved <= 12 && q >= lo && q <= hi; ++moved, q += step) {
      if (Edge(q)) return q;
      if (q == 0) break;
    }
    return p;
  }
  // The end of the word (identifier when `identifier`) that holds byte `p`.
  size_t WordEnd(size_t p, bool identifier) const {
    auto in = identifier ? IdentifierByte : Alnum;
    size_t e = p + 1;
    while (e < s.size() && in(s[e - 1]) && in(s[e])) ++e;
    return e;
  }
  size_t WordStart(size_t p) const {
    while (p > 0 && Alnum(s[p - 1]) && Alnum(s[p])) --p;
    return p;
  }
  // A tail's start moved past the separators it would begin with (", ").
  size_t TailStart(size_t t, size_t hi) const {
    while (t < hi && (s[t] == ' ' || s[t] == ',')) ++t;
    while (t < s.size() && Continuation(s[t])) ++t;
    return t;
  }
  std::string Join(size_t head, size_t tail) const {
    while (head > 0 && Continuation(s[head])) --head;
    return absl::StrCat(s.substr(0, head), "...", s.substr(tail));
  }
};

// `f` cut to `width` around "..." so that the word at `diff` stays, in the head
// when it fits there, else in the tail; "" when neither holds it.
std::string CutInTwo(const Form& f, size_t width, size_t diff) {
  constexpr size_t kMinTail = 6, kMinHead = 12;
  const size_t room = width - 3, n = f.s.size();
  size_t need = f.WordEnd(diff, true);
  if (need + kMinTail > room) need = f.WordEnd(diff, false);
  if (need <= room) {  // the head holds it
    const size_t head = std::max(need, f.Snap((room + 1) / 2, -1, need, room));
    const size_t tail = f.TailStart(f.Snap(n - (room - head), 1, 0, n), n);
    return f.Join(head, tail);
  }
  const size_t start = f.WordStart(diff);
  if (n - start + kMinHead > room) return "";
  const size_t head = f.Snap(room - (n - start), -1, 1, room);  // the tail holds it
  const size_t tail = f.TailStart(f.Snap(n - (room - head), 1, 0, start), start);
  return f.Join(head, tail);
}

// `f` cut to `width` as the function's name, "...", a window that holds the word at
// `diff`, "..." and the end ("(...)"); "" when the window cannot hold the word.
std::string CutInThree(const Form& f, size_t width, size_t diff) {
  if (width < 20) return "";
  const size_t room = width - 6, n = f.s.size();
  const size_t name_end = std::min(n, f.s.find_first_of("<(")) + 1;
  size_t head = name_end <= room / 2 ? name_end : f.Snap(room / 3, -1, 1, room);
  while (head > 0 && Continuation(f.s[head])) --head;
  size_t tail = n - (absl::EndsWith(f.s, "(...)") ? 5 : 8);
  while (tail < n && Continuation(f.s[tail])) ++tail;
  const size_t window = room - head - (n - tail);
  const size_t start = f.WordStart(diff), end = f.WordEnd(diff, false);
  if (end - start > window || end > tail) return "";
  size_t a = std::max(head, end - window);
  a = f.TailStart(f.Snap(a, 1, a, std::max(a, start)), std::max(a, start));
  size_t b = std::min(a + window, tail);
  b = f.Snap(b, -1, std::min(b, end), b);
  while (b > a && Continuation(f.s[b])) --b;
  if (a >= b) return "";
  return absl::StrCat(f.s.substr(0, head), "...", f.s.substr(a, b - a), "...", f.s.substr(tail));
}

// `form` (longer than `width`) cut so that the word at `diff` stays; the middle cut
// when no cut holds it.
std::string CutKeeping(const std::string& form, size_t width, size_t diff) {
  const Form f{form};
  diff = std::min(diff, form.size() - 1);
  if (width >= 8) {
    if (std::string cut = CutInTwo(f, width, diff); !cut.empty()) return cut;
    if (std::string cut = CutInThree(f, width, diff); !cut.empty()) return cut;
  }
  return CutInTheMiddle(form, width);
}

// Where printed names still meet, each of them numbered instead: its middle cut to
// leave room for the number, then " #1", " #2", ... among the numbered names whose
// cut is the same, in the order of `forms` (the names' order). Numbered names meet
// no other (no kernel name ends in " #<number>").
void NumberCollisions(const std::vector<std::string>& forms, size_t width,
                      std::vector<std::string>& printed) {
  const size_t suffix = absl::StrCat(" #", forms.size()).size();
  const size_t room = width >= suffix + 4 ? width - suffix : 4;
  std::vector<bool> numbered(forms.size(), false);
  for (size_t round = 0; round <= forms.size(); ++round) {
    absl::flat_hash_map<std::string, std::vector<size_t>> sharing;
    for (size_t i = 0; i < printed.size(); ++i) sharing[printed[i]].push_back(i);
    bool met = false;
    for (const auto& [text, names] : sharing) {
      if (names.size() < 2) continue;
      met = true;
      for (size_t i : names) numbered[i] = true;
    }
    if (!met) return;
    absl::flat_hash_map<std::string, size_t> count;  // cut -> names numbered so far
    for (size_t i = 0; i < forms.size(); ++i) {
      if (!numbered[i]) continue;
      const std::string cut = CutInTheMiddle(forms[i], room);
      printed[i] = absl::StrCat(cut, " #", ++count[cut]);
    }
  }
}

}  // namespace

NameCut::NameCut(std::vector<std::string> names) : names_(std::move(names)) {
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
}

const NameCut::Fitted& NameCut::At(size_t width) const {
  auto it = by_width_.find(width);
  if (it != by_width_.end()) return it->second;
  std::vector<Steps> steps;
  steps.reserve(names_.size());
  for (const std::string& name : names_) steps.push_back(StepsOf(name));
  const std::vector<std::string> forms = ChooseForms(steps, width);
  const std::vector<size_t> diff = FirstDifferences(forms);
  std::vector<std::string> printed(forms.size());
  for (size_t i = 0; i < forms.size(); ++i) {
    printed[i] = forms[i].size() <= width ? forms[i] : CutKeeping(forms[i], width, diff[i]);
  }
  NumberCollisions(forms, width, printed);
  Fitted fitted;
  for (size_t i = 0; i < names_.size(); ++i) fitted.emplace(names_[i], std::move(printed[i]));
  return by_width_.emplace(width, std::move(fitted)).first->second;
}

std::string NameCut::Fit(absl::string_view name, size_t width) const {
  if (width < 4 || name.size() <= width) return std::string(name);
  if (!std::binary_search(names_.begin(), names_.end(), name)) return FitName(name, width);
  return At(width).at(std::string(name));
}

}  // namespace cuscope::report
