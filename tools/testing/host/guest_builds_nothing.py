#!/usr/bin/env python3
"""The guest compiles nothing: no script or program that runs in the
guest calls a compiler, a linker or a build tool. The suites' programs
are built on the host (`make progs`, tools/testing/progs/Makefile), where
a compile costs a small part of what it does under TCG, and the guest
runs them from build/progs.

What runs in the guest (GUEST below): the suites (the two-guest ones of
tools/testing/pair too), their library and
runner, the repro scripts, make check-dkms' suites, the guest halves of
demo, bench and profile (shell), and the pyverbs programs (python). (The
rdmavt-dkms package that make check-dkms installs compiles its modules
under DKMS there: that build is what the lane tests, and no script of
ours calls a compiler for it.)

A shell file is read as the shell would split it: comments and the text
of quoted strings go (a message may name `make progs`), but what runs
inside $(...) or backquotes stays (in double quotes too), and so do heredocs (they are code fed
to a shell or to python more often than prose). A word is a compiler
when its last path component is one of TOOLS (gcc-12 and the like too),
or when it expands $CC, $CXX, $LD or $MAKE. In python, a string that is
one (an argv's program), or a command line that starts with one given to
os.system(), subprocess.run() and the like.

Before reading the tree the check runs its detector on SAMPLES, lines
that must be caught and lines that must not, so a detector broken by an
edit fails here rather than passing everything.

Usage: guest_builds_nothing.py, from anywhere in the tree. Prints each
call found (file:line: word) and exits 1, or what it read and exits 0.
"""
import ast
import glob
import os
import re
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", "..", ".."))

# Folder and pattern of every file that runs in the guest; each pattern
# must match a file, so that a renamed folder does not pass unread.
GUEST = [
    "tools/testing/guest.sh",
    "tools/testing/suites/*.sh",
    "tools/testing/pair/*.sh",
    "tools/testing/lib/*.sh",
    "tools/testing/repro/*.sh",
    "tools/testing/dkms/*.sh",
    "tools/guest/*.sh",
    "tools/testing/py/*.py",
]

TOOLS = {"cc", "gcc", "clang", "c++", "g++", "cpp", "tcc", "ld", "ld.bfd",
         "ld.gold", "make", "gmake", "cmake", "ninja", "meson", "kbuild"}
# gcc-12, x86_64-linux-gnu-gcc, clang-16, ...
TOOL_RE = re.compile(r"^(?:[\w.]+-)*(?:gcc|g\+\+|clang|cc|ld)(?:-[\d.]+)?$")
VAR_RE = re.compile(r"\$\{?(CC|CXX|LD|MAKE)\b")
# Shell words end at blanks and at the operators.
WORD_SPLIT = re.compile(r"[\s;&|()<>`]+")


def is_tool(word):
    """Whether word, a command word or an argument, runs a build tool."""
    if VAR_RE.search(word):
        return True
    base = word.rsplit("/", 1)[-1]
    return base in TOOLS or bool(TOOL_RE.match(base))


def _quoted(text, i, quote):
    """The end of the quoted string opening at text[i], and the code in it
    (what $(...) holds, in double quotes) or its whole text if that is a
    lone word (a compiler named in quotes is still run)."""
    j = i + 1
    code = []
    while j < len(text) and text[j] != quote:
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if quote == '"' and text[j] == "`":
            end = text.find("`", j + 1)
            end = len(text) if end < 0 else end
            code.append(text[j + 1:end])
            j = end + 1
            continue
        if quote == '"' and text.startswith("$(", j):
            end, inner = _subst(text, j + 2)
            code.append(inner)
            j = end
            continue
        j += 1
    body = text[i + 1:j]
    if re.fullmatch(r"[\w.+/${}:-]+", body):
        code.append(body)
    return j + 1, " ".join(code)


def _subst(text, i):
    """The end of the $(...) whose body starts at text[i], and its code."""
    out, depth = [], 1
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i, code = _quoted(text, i, c)
            out.append(" " + code + " ")
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1, "".join(out)
        out.append(c)
        i += 1
    return i, "".join(out)


def shell_code(line):
    """What of one shell line the shell would run: without its comment
    and the text of its quoted strings."""
    out, i = [], 0
    while i < len(line):
        c = line[i]
        if c == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            break
        if c == "\\":
            out.append(line[i:i + 2])
            i += 2
            continue
        if c in "'\"":
            i, code = _quoted(line, i, c)
            out.append(" " + code + " ")
            continue
        out.append(c)
        i += 1
    return "".join(out)


def shell_calls(text):
    """(line number, word) of every build tool a shell text names."""
    for num, line in enumerate(text.splitlines(), 1):
        for word in WORD_SPLIT.split(shell_code(line)):
            if word and is_tool(word):
                yield num, word


# The functions that run a command line given as one string.
RUNNERS = {"system", "popen", "run", "call", "check_call", "check_output",
           "Popen", "getoutput", "getstatusoutput"}


def python_calls(text):
    """(line number, word) of every build tool a python text names as a
    program: a string constant that is one (an argv's first element), or
    a command line that starts with one, given to a function that runs
    it."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if is_tool(node.value.strip()):
                yield node.lineno, node.value.strip()
        elif isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            arg = node.args[0]
            if (name in RUNNERS and isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str) and arg.value.split()
                    and is_tool(arg.value.split()[0])):
                yield node.lineno, arg.value.split()[0]


# (language, text, whether it must be caught)
SAMPLES = [
    ("sh", 'cc -O2 -o "$WORK/x" x.c', True),
    ("sh", '\tgcc-12 -o x x.c && ./x', True),
    ("sh", 'step build make -s -C "$DIR" -j "$(nproc)"', True),
    ("sh", 'out=$(make -C "$DIR" 2>&1) || return', True),
    ("sh", 'echo "built: $(/usr/bin/cc --version)"', True),
    ("sh", '"$CC" -o x x.c', True),
    ("sh", 'x=$(cd d && ${MAKE:-make} all)', True),
    ("sh", '"gcc" -c x.c', True),
    ("sh", 'run_bounded build 60 x86_64-linux-gnu-gcc x.c', True),
    ("sh", 'ld -r -o x.o a.o', True),
    ("sh", 'echo "version: `gcc --version`"', True),
    ("sh", 'v=`clang-16 -v`', True),
    ("sh", '# cc -O2 -o x x.c (a comment)', False),
    ("sh", 'echo "$PROGS/x missing: build it on the host with make progs"',
     False),
    ("sh", "known_on_distro 'upstream does not make it' x", False),
    ("sh", 'make_qp && build_fuzzer && ccx', False),
    ("sh", 'have_progs uverbs_fuzz/uverbs_fuzz  # built by make progs', False),
    ("py", 'subprocess.run(["gcc", "-o", "x", "x.c"], check=True)', True),
    ("py", 'os.system("make -C /tmp/x")', True),
    ("py", 'subprocess.check_output("cc -v", shell=True)', True),
    ("py", 'subprocess.run(["insmod", PROBE], check=True)', False),
    ("py", 'print("make sure it is loaded")', False),
]


def self_test():
    """The detector's verdict on each sample; the failures, as text."""
    bad = []
    for lang, text, caught in SAMPLES:
        calls = shell_calls if lang == "sh" else python_calls
        if any(True for _ in calls(text)) != caught:
            bad.append(f"FAIL: self-test: {text!r} "
                       f"{'not caught' if caught else 'caught'}")
    return bad


def main():
    failures = self_test()
    read = 0
    for pattern in GUEST:
        files = sorted(glob.glob(os.path.join(REPO, pattern)))
        if not files:
            failures.append(f"FAIL: no file matches {pattern}: where did "
                            "the guest's files go? (update GUEST)")
        for path in files:
            read += 1
            with open(path, encoding="utf-8") as f:
                text = f.read()
            calls = python_calls if path.endswith(".py") else shell_calls
            rel = os.path.relpath(path, REPO)
            failures += [f"FAIL: {rel}:{num}: {word}: the guest compiles "
                         "nothing (build it in tools/testing/progs/Makefile)"
                         for num, word in calls(text)]
    for line in failures:
        print(line)
    print(f"{len(SAMPLES)} samples, {read} guest files read: "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
