#!/usr/bin/env python3
"""Every C file of the tree stands on the level that layers.txt gives it,
uses nothing on a level above its own, and takes part in no circle.

A unit is a .c file together with the .h file of the same name beside it
(Documentation/layout.rst pairs them the same way); the others are units of
their own. Unit A uses unit B when a file of A
  - includes a file of B ("..." includes, from the including file's
    folder; those after a #define of CREATE_TRACE_POINTS do not count:
    there a file instantiates the trace events that others fire), or
  - names what B defines at file scope and the build would bind to it: a
    function or variable of a .c file of the same module (the objects a
    Kbuild links into one, or the .c files of a folder a Makefile builds;
    a header belongs to the modules of the files that include it), or of
    any module if exported, or a header's static inline function. A
    unit's own names stay its own; a name that several units offer
    counts only if just one of them is in the user's folder.
Prototypes and extern declarations name without using; struct members,
tags and trace event names are other namespaces.

layers.txt lists the levels top down, one a line, in sections: "[DIR]"
starts one, whose lines name units of DIR ("." for the top folder) by
name or by shell pattern. A unit's level is that of its most specific
name (a plain name before a pattern, then the longest pattern). A line
"map: FILE" holds the list of files in FILE's first block comment (lines
" *   name.c  what it does") to the levels' order, top down.

The check fails when a unit has no level (place every new file there), a
unit uses one of a higher level, units use each other in a loop (a
circle, whatever their levels), or a map lists its files out of order.

Usage: layers_test.py [--edges] [--floors], from anywhere in the tree.
Prints each failure and exits 1, or what it checked and exits 0. --edges
prints every use with the names or includes that make it; --floors the
units by the longest chain of uses beneath them, to see the order as
measured.
"""
import fnmatch
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS = os.path.join(HERE, "layers.txt")

# Words that are followed by "(" in a declaration without being the
# declared function's name.
NOT_NAMES = {
    "if", "for", "while", "switch", "return", "sizeof", "typeof",
    "__attribute__", "__acquires", "__releases", "__must_hold", "__printf",
    "__aligned", "__section", "__cond_acquires", "__counted_by",
    "__diag_ignore", "alignof", "__alignof__", "_Alignof", "defined",
}


def repo_files():
    """Every tracked (or new, unignored) .c and .h file of the tree."""
    top = subprocess.check_output(
        ["git", "-C", HERE, "rev-parse", "--show-toplevel"], text=True).strip()
    names = subprocess.check_output(
        ["git", "-C", top, "ls-files", "--cached", "--others",
         "--exclude-standard", "*.c", "*.h"], text=True).split()
    return top, sorted(f for f in names if not f.endswith(".mod.c")
                       and os.path.exists(os.path.join(top, f)))


def unit_of(path):
    return os.path.splitext(path)[0]


def strip_code(text):
    """Comments, strings and character constants blanked out (line count
    kept), so that only code is searched."""
    out = []
    i, n = 0, len(text)
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                         r"'(?:\\.|[^'\\\n])*'", re.S)
    for m in pattern.finditer(text):
        out.append(text[i:m.start()])
        token = m.group(0)
        out.append("\n" * token.count("\n") if token[0] == "/" else '""')
        i = m.end()
    out.append(text[i:n])
    return "".join(out)


def includes(text):
    """The files a file includes with "...". Those after a #define of
    CREATE_TRACE_POINTS are not among them: there the file instantiates
    the events that the trace headers declare for others to fire."""
    text = re.split(r"^\s*#\s*define\s+CREATE_TRACE_POINTS\b", text,
                    maxsplit=1, flags=re.M)[0]
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)


def without_event_names(code):
    """An event's and its class's names (the arguments before TP_PROTO)
    name no function, whatever functions share them."""
    return re.sub(r"\b((?:TRACE|DEFINE|DECLARE)_EVENT\w*\s*\()[^;]*?(?=TP_)",
                  r"\1", code)


def without_directives(code):
    """The code with preprocessor lines (and their continuations) blank."""
    lines = code.split("\n")
    keep, cont = [], False
    for line in lines:
        directive = cont or line.lstrip().startswith("#")
        cont = directive and line.rstrip().endswith("\\")
        keep.append("" if directive else line)
    return "\n".join(keep)


def statements(code):
    """File-scope statements: (head, is a function definition, start,
    end). A function's head is what precedes its body; any other
    statement runs to its ";", with what it holds in braces (a struct's
    members, an initializer) left out of the head."""
    depth, start, first, head, out = 0, 0, 0, "", []
    function = False
    for m in re.finditer(r"[{};]", code):
        ch = m.group(0)
        if ch == "{":
            if depth == 0:
                head += code[start:m.start()]
                flat = re.sub(r"\([^()]*\)", "()", head)
                function = "(" in head and "=" not in flat
                if function:
                    out.append((head, True, first, m.start()))
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                start = m.end()
                if function:
                    first, head = start, ""
                else:
                    head += "{}"
        elif depth == 0:
            head += code[start:m.start()]
            out.append((head, False, first, m.end()))
            start = first = m.end()
            head = ""
    return out


def is_declaration(head):
    """A prototype or an extern declaration: it names, it does not use."""
    words = re.findall(r"\b\w+\b", head)
    if "extern" in words:
        return True
    head = re.sub(r"\b__\w+\s*\((?:[^()]|\([^()]*\))*\)", "", head)
    before = head.split("(", 1)[0]
    return "(" in head and "{" not in head and \
        (len(re.findall(r"\w+", before)) > 1 or "*" in before)


def uses_text(code):
    """The code without its file-scope declarations."""
    for head, body, start, end in reversed(statements(code)):
        if not body and is_declaration(head):
            code = code[:start] + code[end:]
    return code


def declared_function(head):
    """The name a function definition's head declares, or None."""
    flat = re.sub(r"\s+", " ", head)
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", flat):
        if m.group(1) not in NOT_NAMES:
            return m.group(1)
    return None


def directives(code):
    """The preprocessor lines alone: macros may call functions."""
    return "\n".join(line for line in code.split("\n")
                     if line.lstrip().startswith("#")
                     and not re.match(r"\s*#\s*include", line))


def definitions(path, code, every):
    """Names a file defines at file scope: with every, all of them;
    without, those that other units may use: non-static functions and
    variables of a .c file, static inline functions of a .h file."""
    names = set()
    header = path.endswith(".h")
    for head, body, _, _ in statements(without_directives(code)):
        head = head.strip()
        words = set(re.findall(r"\b\w+\b", head))
        if not head or words & {"typedef", "extern"}:
            continue
        static = "static" in words
        if every:
            pass
        elif header and not (static and "inline" in words and body):
            continue
        elif not header and static:
            continue
        top = re.sub(r"\([^()]*\)", "()", head).split("=")[0]
        if body:
            name = declared_function(head)
        elif "(" in top and not re.search(r"\(\s*\*", head):
            name = None             # a prototype or a macro's invocation
        else:
            # a variable (of a type named or defined here), or a type
            m = re.search(r"([A-Za-z_]\w*)\s*(\[[^]]*\]\s*)*$", top.strip())
            name = m.group(1) if m and len(re.findall(r"\w+", top)) > 1 \
                and not re.search(r"\b(struct|union|enum)\s+\w+\s*\{?\}?$",
                                  top.strip()) else None
        if name:
            names.add(name)
    return names


def used_names(code):
    """Identifiers the code uses: members (after . or ->) and tags (after
    struct, union or enum) are other namespaces."""
    names = set()
    for m in re.finditer(r"\b[A-Za-z_]\w*\b", code):
        before = code[max(0, m.start() - 16):m.start()].rstrip()
        if before.endswith((".", "->")) or \
                re.search(r"\b(struct|union|enum)$", before):
            continue
        names.add(m.group(0))
    return names


def read_layers(path):
    """The levels, top down, as [(line number, [unit pattern, ...])], and
    the files whose map to check."""
    levels, maps, folder = [], [], "."
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                folder = line[1:-1].strip("/") or "."
            elif line.startswith("map:"):
                maps.append(line[len("map:"):].strip())
            else:
                levels.append((number, [
                    os.path.normpath(os.path.join(folder, name))
                    for name in line.split()]))
    return levels, maps


def place(unit, levels):
    """The index of a unit's level (0 is the top), or None."""
    best = None
    for index, (_, patterns) in enumerate(levels):
        for pattern in patterns:
            if not fnmatch.fnmatchcase(unit, pattern):
                continue
            rank = (not any(c in pattern for c in "*?["), len(pattern))
            if best is None or rank > best[0]:
                best = (rank, index)
    return best[1] if best else None


def map_order(top, header, level):
    """Failures of the file list in header's first block comment."""
    with open(os.path.join(top, header), encoding="utf-8") as f:
        comment = re.search(r"/\*\n(.*?)\*/", f.read(), re.S)
    comment = comment.group(1) if comment else ""
    folder = os.path.dirname(header)
    names = re.findall(r"^ \*   (\w+\.[ch])\s", comment, re.M)
    if not names:
        return [f"{header}: no map of files in its first comment"]
    failures, last = [], None
    for name in names:
        unit = unit_of(os.path.normpath(os.path.join(folder, name)))
        if level.get(unit) is None:
            failures.append(f"{header}'s map names {name}, which has no level")
            continue
        if last and level[unit] < level[last[1]]:
            failures.append(f"{header}'s map lists {name} under "
                            f"{last[0]}, but its level is higher")
        last = (name, unit)
    return failures


def modules(top, files):
    """{.c file: the module or program it is linked into}: a Kbuild's
    composite objects (NAME-y := a.o b.o) share one; so do the .c files
    of a folder that a Makefile and no Kbuild builds (one program); any
    other .c file is linked alone."""
    linked = {}
    for folder in {os.path.dirname(f) for f in files}:
        kbuild = os.path.join(top, folder, "Kbuild")
        if not os.path.exists(kbuild):
            if os.path.exists(os.path.join(top, folder, "Makefile")):
                linked.update({f: folder or "." for f in files
                               if os.path.dirname(f) == folder})
            continue
        with open(kbuild, encoding="utf-8") as f:
            text = f.read().replace("\\\n", " ")
        for name, objs in re.findall(r"^([\w-]+)-y\s*[:+]?=(.*)$", text, re.M):
            for obj in objs.split():
                linked[os.path.join(folder, obj[:-2] + ".c")] = \
                    os.path.join(folder, name)
    return {f: linked.get(f, f) for f in files if f.endswith(".c")}


def included(path, code, known):
    """The files that path includes, directly or not."""
    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        for inc in code[current][0]:
            target = os.path.normpath(
                os.path.join(os.path.dirname(current), inc))
            if target in known and target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def dependencies(top, files):
    """{unit: {unit: set of the names or includes that tie them}}.

    A name ties a file to the unit that defines it where the linker or
    the preprocessor would: a .c file's non-static name in the same
    module (for a header: a module of its folder), an exported one in
    any module, a header's static inline function wherever it is
    included. Each unit's own names, static ones too, stay its own."""
    code, own = {}, defaultdict(set)
    homes = defaultdict(set)          # name -> {(defining file, exported)}
    for path in files:
        with open(os.path.join(top, path), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        stripped = without_event_names(strip_code(text))
        code[path] = (includes(text), uses_text(without_directives(stripped))
                      + "\n" + directives(stripped))
        own[unit_of(path)] |= definitions(path, stripped, True)
        for name in definitions(path, stripped, False):
            exported = re.search(
                r"EXPORT_SYMBOL\w*\(\s*" + name + r"\s*\)", text)
            homes[name].add((path, bool(exported)))
    module = modules(top, files)
    linked_into = defaultdict(set)    # file -> modules that contain it
    for path in module:
        for header in included(path, code, set(files)):
            linked_into[header].add(module[path])
        linked_into[path].add(module[path])

    def reaches(user, home, exported):
        if home.endswith(".h") or exported:
            return True
        return module[home] in linked_into[user]

    deps = defaultdict(lambda: defaultdict(set))
    known = set(files)
    for path, (incs, text) in code.items():
        unit = unit_of(path)
        folder = os.path.dirname(path)
        for inc in incs:
            target = os.path.normpath(os.path.join(folder, inc))
            if target in known and unit_of(target) != unit:
                deps[unit][unit_of(target)].add("#include " + inc)
        for name in used_names(text) - own[unit]:
            found = {unit_of(h) for h, exp in homes.get(name, ())
                     if reaches(path, h, exp)}
            if len(found) > 1:
                found = {u for u in found if os.path.dirname(u) == folder}
            if len(found) == 1:
                deps[unit][found.pop()].add(name)
    return deps


def circles(units, deps):
    """Strongly connected groups of two units or more (Tarjan)."""
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in deps.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(units):
        if v not in index:
            visit(v)
    return groups


def print_floors(units, deps):
    """Each unit on the lowest floor above everything it depends on."""
    floor = {}

    def height(u):
        if u not in floor:
            floor[u] = 1 + max((height(v) for v in deps.get(u, {})),
                               default=0)
        return floor[u]

    for number in sorted({height(u) for u in units}, reverse=True):
        print(f"floor {number}:",
              " ".join(u for u in units if floor[u] == number))


def main():
    top, files = repo_files()
    levels, maps = read_layers(LAYERS)
    units = sorted({unit_of(f) for f in files})
    deps = dependencies(top, files)
    failures = []
    level = {}
    for unit in units:
        level[unit] = place(unit, levels)
        if level[unit] is None:
            failures.append(f"{unit}: on no level of layers.txt")
    uses = 0
    for a in units:
        for b, why in sorted(deps.get(a, {}).items()):
            uses += 1
            if "--edges" in sys.argv:
                print(f"{a} -> {b}: {', '.join(sorted(why))}")
            if None in (level[a], level[b]) or level[a] <= level[b]:
                continue
            failures.append(
                f"{a} (layers.txt line {levels[level[a]][0]}) uses {b}, "
                f"a level up (line {levels[level[b]][0]}): "
                f"{', '.join(sorted(why))}")
    groups = circles(units, deps)
    for group in groups:
        ties = "; ".join(f"{a} -> {b}: {', '.join(sorted(deps[a][b]))}"
                         for a in group for b in group if b in deps[a])
        failures.append(f"circle {' '.join(group)} ({ties})")
    for header in maps:
        failures += map_order(top, header, level)
    if "--floors" in sys.argv and not groups:
        print_floors(units, deps)
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(units)} units on {len(levels)} levels, {uses} uses, "
          f"{len(maps)} map(s) checked: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
