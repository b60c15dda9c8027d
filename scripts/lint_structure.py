#!/usr/bin/env python3
"""Structure checks for lib/ (run by ctest as `structure`):

- no file in lib/ over 500 lines;
- no function over 80 lines, except those marked `// lint: table` on the line
  before their signature (table-like field mappings);
- no include cycle among the concepts of one lib/ folder (a concept is a file stem:
  a.h and a.cc are one node; an edge a -> b when a.h or a.cc includes b.h);
- the layers: model, store, config, analysis and report never include collect,
  inject or CUPTI; the CLI never includes collect; inject includes no CUPTI header;
- no class with more than 2 mutexes or 15 guarded fields, and no member function
  defined in a .cc not named like its class's header (lint_classes.py);
- no history in the comments of lib/ and include/: dates, numbered rounds of work,
  GPUs as a measurement record (lint_history.py).

Usage: lint_structure.py [ROOT]. Prints one line per violation; exit 1 if any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lint_classes  # noqa: E402
import lint_history  # noqa: E402

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
TABLE_MARK = "lint: table"
SOURCE_EXT = (".h", ".cc", ".cu")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+[<"]([^">]+)[">]', re.M)

# Folders and what they must not include (prefixes of include paths).
FORBIDDEN = {
    "model": ("lib/collect/", "lib/inject/", "lib/store/", "lib/analysis/", "lib/report/", "cupti", "sqlite3"),
    "store": ("lib/collect/", "lib/inject/", "lib/analysis/", "lib/report/", "cupti"),
    "config": ("lib/collect/", "lib/inject/", "lib/report/", "cupti"),
    "analysis": ("lib/collect/", "lib/inject/", "lib/report/", "lib/store/", "cupti", "sqlite3"),
    "report": ("lib/collect/", "lib/inject/", "cupti"),
    "cli": ("lib/collect/", "lib/inject/", "cupti"),
    # The session reaches CUPTI only through collect (cupti_entry.h for the clock and
    # the NVTX hook).
    "inject": ("cupti", "generated_cuda", "nvperf"),
}


def digit_separator(text, i):
    """Whether the ' at i separates digits (1'000'000): the token before it is a number."""
    k = i
    while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_'."):
        k -= 1
    return k < i and text[k].isdigit()


def segments(text):
    """Splits C++ source into (kind, start, end) spans, kind one of 'code', 'comment'
    (// or /* */, delimiters included), 'raw' (a raw string literal, R"d(...)d") and
    'literal' (a string or char literal, quotes included). Spans cover the text."""
    i, n = 0, len(text)
    code_start = 0
    while i < n:
        c = text[i]
        kind, j = None, i
        if text.startswith("//", i):
            j = text.find("\n", i)
            kind, j = "comment", (n if j < 0 else j)
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            kind, j = "comment", (n if j < 0 else j + 2)
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                kind, j = "raw", (n if end < 0 else end + len(m.group(1)) + 2)
        elif c in "\"'" and not (c == "'" and digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            # An unclosed literal ends at the line's end (its newline stays code).
            kind, j = "literal", (j + 1 if j < n and text[j] == c else j)
        if kind is None:
            i += 1
            continue
        if code_start < i:
            yield "code", code_start, i
        yield kind, i, j
        i = code_start = j
    if code_start < n:
        yield "code", code_start, n


def strip_code(text):
    """Blanks comments, string and char literals, keeping newlines (line numbers)."""
    out = []
    for kind, i, j in segments(text):
        part = text[i:j]
        if kind == "code":
            out.append(part)
        elif kind == "comment":
            out.append(re.sub(r"[^\n]", " ", part))
        elif kind == "raw":
            out.append('""' + re.sub(r"[^\n]", " ", part[2:]))
        else:
            closed = len(part) > 1 and part[-1] == part[0]
            out.append(part[0] + " " * (len(part) - (2 if closed else 1)) + (part[0] if closed else ""))
    return "".join(out)


def functions(text):
    """Yields (name, first_line, line_count) for each function body in the text."""
    code = strip_code(text)
    raw_lines = text.split("\n")
    # Stack of scope kinds: 'ns' (namespace/extern/class: transparent), 'fn', 'other'.
    stack = []
    stmt_start = 0  # index where the current namespace-level statement began
    fn_start = None
    depth_fn = None
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == ";" and "fn" not in stack:
            stmt_start = i + 1
        elif c == "{":
            if "fn" in stack:
                stack.append("other")
                continue
            stmt = code[stmt_start:i]
            head = stmt.strip()
            prev = code[:i].rstrip()[-1:] if code[:i].rstrip() else ""
            if re.match(r"^(namespace\b|extern\s+\"|template\s*<.*>\s*(class|struct)\b|(class|struct|union)\b)", head, re.S) \
                    and not re.search(r"\)\s*(const\s*)?$", head):
                stack.append("ns")
                stmt_start = i + 1
            elif re.match(r"^(enum\b|typedef\b)", head) or re.search(r"=\s*$", head) or "(" not in head \
                    or prev.isalnum() or prev == "_" or re.search(r"=\s*[^;]*$", head.split("(")[0]):
                stack.append("other")
            else:
                stack.append("fn")
                fn_start = line
                sig = " ".join(head.split())
                name = re.findall(r"([~\w:]+)\s*\(", sig)
                fn_name = name[0] if name else sig[:40]
                # The marker may sit on any line of the signature or the line before it.
                sig_first = line - head.count("\n") - 1
                marked = any(TABLE_MARK in raw_lines[k] for k in range(max(0, sig_first - 1), line))
                depth_fn = (fn_name, marked)
        elif c == "}":
            if not stack:
                continue
            kind = stack.pop()
            if kind == "fn":
                yield depth_fn[0], fn_start, line - fn_start + 1, depth_fn[1]
            if "fn" not in stack:
                stmt_start = i + 1


def include_graph(folder_path, folder):
    """Edges stem -> stem among the concepts of one folder."""
    stems = {}
    for f in os.listdir(folder_path):
        if f.endswith(SOURCE_EXT):
            stems.setdefault(os.path.splitext(f)[0], []).append(f)
    edges = {s: set() for s in stems}
    for s, files in stems.items():
        for f in files:
            with open(os.path.join(folder_path, f), encoding="utf-8", errors="replace") as fh:
                for inc in INCLUDE_RE.findall(fh.read()):
                    prefix = "lib/%s/" % folder
                    if inc.startswith(prefix):
                        target = os.path.splitext(inc[len(prefix):])[0]
                        if target != s and target in edges:
                            edges[s].add(target)
    return edges


def find_cycle(edges):
    color = {}
    path = []

    def visit(n):
        color[n] = 1
        path.append(n)
        for m in sorted(edges[n]):
            if color.get(m) == 1:
                return path[path.index(m):] + [m]
            if m not in color:
                cyc = visit(m)
                if cyc:
                    return cyc
        path.pop()
        color[n] = 2
        return None

    for n in sorted(edges):
        if n not in color:
            cyc = visit(n)
            if cyc:
                return cyc
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    lib = os.path.join(root, "lib")
    problems = []
    sources = {}
    for folder in sorted(os.listdir(lib)):
        fp = os.path.join(lib, folder)
        if not os.path.isdir(fp):
            continue
        for f in sorted(os.listdir(fp)):
            if not f.endswith(SOURCE_EXT):
                continue
            rel = "lib/%s/%s" % (folder, f)
            with open(os.path.join(fp, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            sources[rel] = text
            n = text.count("\n")
            if n > MAX_FILE_LINES:
                problems.append("%s: %d lines (at most %d)" % (rel, n, MAX_FILE_LINES))
            for name, first, count, marked in functions(text):
                if count > MAX_FUNCTION_LINES and not marked:
                    problems.append("%s:%d: function %s is %d lines (at most %d; mark a table-like "
                                    "field mapping with '// %s')" % (rel, first, name, count,
                                                                    MAX_FUNCTION_LINES, TABLE_MARK))
            for inc in INCLUDE_RE.findall(text):
                for bad in FORBIDDEN.get(folder, ()):
                    if inc.startswith(bad):
                        problems.append("%s: includes %s (lib/%s must not include %s)" % (rel, inc, folder, bad))
        cycle = find_cycle(include_graph(fp, folder))
        if cycle:
            problems.append("lib/%s: include cycle %s" % (folder, " -> ".join(cycle)))
    problems += lint_classes.check(root, sources, strip_code, functions)
    problems += lint_history.check(root, sources, segments)
    for p in problems:
        print(p)
    print("structure: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
