"""History checks for the comments of lib/ and include/, used by lint_structure.py.

A comment states a contract: what the code guarantees or relies on, with the number
when the code depends on it. When and where something was measured, and which round
of work changed what, belongs to docs/validation.md ("Facts the code relies on") or
docs/performance.md. A comment fails when it carries:

- a date (2026-12-01, or a year and month, 2026-12) or a time of day in UTC;
- a numbered round of work: round 3, stop 12, session 5, issue 14 (or #14), commit N;
- a GPU as the record of a measurement: "measured on the H200", "on an H100",
  "(H200, CUDA 13.0)", "(H200: 0.6-0.9 s)".

Only comments are read (string literals and code are not): the help text of the
settings and the device names a report prints are not history.
"""
import os
import re

GPU = r"(?:NVIDIA\s+)?(?:H100|H200|H800|A100|A10|L4|L40S?|B100|B200|GH200|GB200|V100|T4)\b"
PATTERNS = (
    ("a date", re.compile(r"\b20\d\d-(?:0[1-9]|1[0-2])(?:-(?:[0-2]\d|3[01]))?\b")),
    ("a time of day", re.compile(r"\b[0-2]?\d:[0-5]\d(?:-[0-2]?\d:[0-5]\d)?\s*UTC\b")),
    ("a numbered round of work",
     re.compile(r"\b(?:rounds?|stops?|sessions?|issues?|commits?)\s+#?\d+\b(?!\.\d|\s*%)"
                r"|\bissue\s*#\d+", re.I)),
    ("a GPU as a measurement record",
     re.compile(r"\b(?:measured|seen|found|observed|crashed|ran|timed|tested|run)\s+(?:on|with)\s+"
                r"(?:the\s+|an?\s+)?" + GPU, re.I)),
    ("a GPU as a measurement record", re.compile(r"\b[Oo]n\s+(?:the|an?)\s+" + GPU)),
    ("a GPU as a measurement record", re.compile(r"\(\s*" + GPU + r"\s*[,:]")),
)
SOURCE_EXT = (".h", ".cc", ".cu")


def comment_lines(text, segments):
    """Yields (line number, text of the line's comment part) for every comment line."""
    for kind, i, j in segments(text):
        if kind != "comment":
            continue
        first = text.count("\n", 0, i) + 1
        for k, line in enumerate(text[i:j].split("\n")):
            yield first + k, line


def runs(text, segments):
    """Comment lines on consecutive lines, joined (a phrase may wrap): yields
    (joined text, [(offset in it, line number)])."""
    joined, starts, last = "", [], None
    for line, comment in comment_lines(text, segments):
        body = re.sub(r"^\s*(?://+|/\*+|\*+(?!/))", "", comment)
        if last is not None and line != last + 1:
            yield joined, starts
            joined, starts = "", []
        if joined:
            joined += " "
        starts.append((len(joined), line))
        joined += body
        last = line
    if starts:
        yield joined, starts


def problems_in(rel, text, segments):
    out, flagged = [], set()
    for joined, starts in runs(text, segments):
        for what, pattern in PATTERNS:
            for m in pattern.finditer(joined):
                line = [n for offset, n in starts if offset <= m.start()][-1]
                if line in flagged:
                    continue
                flagged.add(line)
                out.append((line, "%s:%d: history in a comment (%s: '%s'): state the contract; "
                                  "the measurement goes to docs/validation.md or docs/performance.md"
                            % (rel, line, what, " ".join(m.group(0).split()))))
    return [p for _, p in sorted(out)]


def check(root, sources, segments):
    """`sources`: {relative path: text} of lib/ (as lint_structure.py read them);
    include/ is read here. Returns one line per comment line that carries history."""
    files = dict(sources)
    inc = os.path.join(root, "include")
    for d, _, names in os.walk(inc):
        for f in sorted(names):
            if f.endswith(SOURCE_EXT):
                path = os.path.join(d, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    files[os.path.relpath(path, root)] = fh.read()
    out = []
    for rel in sorted(files):
        out += problems_in(rel, files[rel], segments)
    return out
