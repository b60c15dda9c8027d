"""Class-level checks for lib/, used by lint_structure.py:

- no class (or struct) holds more than MAX_MUTEXES mutexes or MAX_GUARDED guarded
  fields, counted through the members it holds by value (a member of a class type
  brings that class's mutexes and guarded fields; a guarded member of a struct type
  counts that struct's fields), except the profile's and the settings' plain data
  (structs of lib/model and lib/config), which are one value each where another
  layer holds them;
- a member function is defined in the .cc named like the header that declares its
  class (CounterSampler::Tick belongs in counters.cc when counters.h declares
  CounterSampler), or in the file that declares the class itself.

The parsing is a light one over code with comments and literals blanked: class bodies
are found by brace matching, members split at top-level semicolons.
"""
import os
import re

MAX_MUTEXES = 2
MAX_GUARDED = 15
VALUE_LAYERS = ("lib/model/", "lib/config/")
MUTEX_TYPES = re.compile(r"^(absl::Mutex|std::mutex|std::shared_mutex|std::recursive_mutex|std::timed_mutex)$")
CLASS_HEAD = re.compile(r"\b(class|struct)\s+(?:ABSL_\w+(?:\([^)]*\))?\s+)*(\w+(?:::\w+)*)\s*(?:final\s*)?(?::[^:{;][^{;]*)?\{")
SKIP_MEMBER = re.compile(r"^\s*(using|typedef|friend|static|template|enum|class|struct|union|public|private|protected)\b")
ANNOTATION = re.compile(r"\bABSL_\w+\s*(\((?:[^()]|\([^()]*\))*\))?")


def match_brace(code, open_index):
    """Index of the brace closing the one at open_index."""
    depth = 0
    for i in range(open_index, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(code) - 1


def top_level(body):
    """The body with every nested brace block blanked (kept as '{}' markers)."""
    out, depth = [], 0
    for c in body:
        if c == "{":
            depth += 1
            if depth == 1:
                out.append("{")
            continue
        if c == "}":
            depth -= 1
            if depth == 0:
                out.append("}")
            continue
        out.append(c if depth == 0 else ("\n" if c == "\n" else " "))
    return "".join(out)


def classes(code):
    """Yields (name, kind, body, start offset) for every class or struct with a body;
    `name` is qualified as written (Outer::Inner for one defined out of line)."""
    for m in CLASS_HEAD.finditer(code):
        # `struct X {` after `=`/`(` etc. is still a definition; skip `enum class`.
        if code[max(0, m.start() - 5):m.start()].strip().endswith("enum"):
            continue
        open_i = m.end() - 1
        close_i = match_brace(code, open_i)
        yield m.group(2), m.group(1), code[open_i + 1:close_i], m.start()


def members(body):
    """Yields (type, declarator count, guarded) for each data member of a class body."""
    flat = top_level(body)
    for stmt in flat.split(";"):
        # Access labels end with ':' and may precede the member in one statement.
        stmt = re.sub(r"\b(public|private|protected)\s*:", " ", stmt)
        stmt = stmt.replace("{}", " ").strip()
        if not stmt or SKIP_MEMBER.match(stmt):
            continue
        guarded = bool(re.search(r"\bABSL_(PT_)?GUARDED_BY\b", stmt))
        stmt = ANNOTATION.sub(" ", stmt)
        stmt = re.split(r"=(?!=)", stmt, 1)[0] if "operator" not in stmt else stmt
        if "(" in stmt or "operator" in stmt or "~" in stmt:
            continue  # a function, constructor or operator
        words = stmt.split()
        if len(words) < 2:
            continue
        depth, commas = 0, 0
        for c in stmt:
            depth += c == "<"
            depth -= c == ">"
            commas += c == "," and depth == 0
        first = re.sub(r"\b(mutable|const|volatile|inline|constexpr)\b", " ", stmt).strip()
        first = first.split(",")[0] if "<" not in first else first
        decl = re.match(r"^(.*?)\s*\b\w+\s*(\[[^\]]*\])?\s*$", first, re.S)
        type_name = decl.group(1) if decl and decl.group(1) else words[0]
        yield " ".join(type_name.split()), commas + 1, guarded


def base_type(type_name):
    """std::optional<T> and plain T give T; pointers and containers give None."""
    t = type_name.replace(" ", "")
    m = re.match(r"^std::optional<(.+)>$", t)
    if m:
        t = m.group(1)
    if "<" in t or "*" in t or "&" in t:
        return None
    return t.split("::")[-1]


class ClassIndex:
    def __init__(self):
        self.bodies = {}   # name -> list of bodies
        self.structs = set()  # names declared with `struct`: plain data, counted through
        self.homes = {}    # name -> set of files (rel) that define it
        self.value_structs = set()  # structs of lib/model and lib/config: one value each

    def add(self, rel, code):
        for name, kind, body, start in classes(code):
            short = name.split("::")[-1]
            self.bodies.setdefault(short, []).append(body)
            if kind == "struct":
                self.structs.add(short)
                if rel.startswith(VALUE_LAYERS):
                    self.value_structs.add(short)
            if "::" not in name:
                self.homes.setdefault(name, set()).add(rel)

    def counts(self, name, seen=(), folder=None):
        """(mutexes, guarded fields) of the class `name`, through the members it holds
        by value whose type is a struct (plain data grouped with it); a member of a
        class type is an object of its own, with its own budget."""
        if name in seen or name not in self.bodies:
            return 0, 0
        best = (0, 0)
        for body in self.bodies[name]:
            mutexes = guarded = 0
            for type_name, n, is_guarded in members(body):
                if MUTEX_TYPES.match(type_name.replace(" ", "")):
                    mutexes += n
                    continue
                inner = base_type(type_name)
                through = inner in self.structs and not (
                    inner in self.value_structs and folder is not None
                    and not folder.startswith(VALUE_LAYERS))
                sub = self.counts(inner, seen + (name,), folder) if through else (0, 0)
                mutexes += sub[0] * n
                if is_guarded:
                    fields = self.field_count(inner) if through else 0
                    guarded += (fields or 1) * n
                else:
                    guarded += sub[1] * n
            best = max(best, (mutexes, guarded))
        return best

    def field_count(self, name):
        if name not in self.bodies:
            return 0
        return max(sum(n for _, n, _ in members(b)) for b in self.bodies[name])


DEFINITION = re.compile(r"^([A-Z]\w*(?:::[A-Z]\w*)*)::(~?\w+|operator\W+)$")


def check(root, files, strip_code, functions):
    """Problems of lib/ as lines. `files`: {rel: text} of every lib/ source."""
    index = ClassIndex()
    stripped = {rel: strip_code(text) for rel, text in files.items()}
    for rel, code in stripped.items():
        index.add(rel, code)
    problems = []
    for rel in sorted(files):
        for name, kind, body, start in classes(stripped[rel]):
            mutexes, guarded = index.counts(name.split("::")[-1], folder=rel)
            if mutexes > MAX_MUTEXES or guarded > MAX_GUARDED:
                line = stripped[rel].count("\n", 0, start) + 1
                problems.append("%s:%d: class %s holds %d mutexes and %d guarded fields "
                                "(at most %d and %d, counted through members)" %
                                (rel, line, name, mutexes, guarded, MAX_MUTEXES, MAX_GUARDED))
    for rel in sorted(files):
        if not rel.endswith(".cc"):
            continue
        stem = os.path.splitext(rel)[0]
        for fn_name, first, _, _ in functions(files[rel]):
            m = DEFINITION.match(fn_name.replace("cuscope::", "").split("(")[0])
            if not m:
                continue
            outer = m.group(1).split("::")[0]
            homes = index.homes.get(outer)
            if not homes or rel in homes:
                continue
            if not any(os.path.splitext(h)[0] == stem for h in homes):
                problems.append("%s:%d: %s is defined outside the file of its class (%s)" %
                                (rel, first, fn_name, ", ".join(sorted(homes))))
    return problems
