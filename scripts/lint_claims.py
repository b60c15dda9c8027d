#!/usr/bin/env python3
"""Every measured figure in README.md is in docs/performance.md, where the command that
reproduces it is (issue #33's "claims that reproduce").

    python3 scripts/lint_claims.py [REPO]

A figure is a number with a unit of time, size, ratio or share in README's prose (code
blocks left out): "1.15x", "96.7%", "0.14 s", "10 us", "1.36-1.40x" (a range: both ends).
Its number must appear in docs/performance.md. The figures that are not measurements
(a package's size as Debian lists it, the wording of an example) are listed in
NOT_MEASURED with the reason. Prints each missing figure with its line; exits 1 if any.
"""
import os
import re
import sys

# README text around a figure -> why it is not a measurement of ours.
NOT_MEASURED = {
    "an 81 MB download": "Debian's package listing for chromium, not a measurement",
    "DRAM at 70% of peak": "the wording of a verdict's reason, an example",
    "FP32 at 0.8%": "the wording of a verdict's reason, an example",
}

FIGURE = re.compile(
    r"(?<![\w.#/-])(\d[\d,]*(?:\.\d+)?)(?:-(\d[\d,]*(?:\.\d+)?))?(x|%| ms| us| s| MB| GB)(?!\w)")


def figures(text):
    """(line, figure, [numbers]) for each figure in the prose of `text`."""
    out = []
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for m in FIGURE.finditer(line):
            context = line[max(0, m.start() - 30):m.end() + 10]
            if any(key in context for key in NOT_MEASURED):
                continue
            numbers = [n for n in (m.group(1), m.group(2)) if n]
            out.append((number, m.group(0), numbers))
    return out


def missing(readme, performance):
    """The README figures whose numbers are not in the performance document."""
    found = set(re.findall(r"\d[\d,]*(?:\.\d+)?", performance))
    return [(line, fig) for line, fig, numbers in figures(readme)
            if any(n not in found for n in numbers)]


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(repo, "docs", "performance.md"), encoding="utf-8") as f:
        performance = f.read()
    bad = missing(readme, performance)
    for line, fig in bad:
        print(f"README.md:{line}: {fig} is not in docs/performance.md (add its measurement "
              "and command there, or say in scripts/lint_claims.py why it is not one)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
