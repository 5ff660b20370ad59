"""Every exported function and every ib_device_ops entry of rdmavt and
rvtsw has a kernel-doc comment with a Context: section, and a Return:
section unless it returns void.

Usage: doc_audit.py (from the repository's top directory). Prints what
is missing and exits 1, or prints the count checked and exits 0.
"""
import re
import subprocess
import sys


def sources():
    names = subprocess.check_output(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard",
         "*.c", "rvtsw/*.c"], text=True).split()
    return {f: open(f, encoding="utf-8").read() for f in names
            if not f.startswith("tools/") and not f.endswith(".mod.c")}


def wanted(src):
    """Exported symbols and the functions in ib_device_ops tables."""
    names = set()
    for text in src.values():
        names |= set(re.findall(r"EXPORT_SYMBOL(?:_GPL)?\((\w+)\)", text))
        for table in re.finditer(
                r"struct ib_device_ops \w+ = \{(.*?)\n\};", text, re.S):
            names |= set(re.findall(r"=\s*(\w+),", table.group(1)))
    return names


def definition(src, name):
    """(file, kernel-doc text, return type) of a function, or None."""
    pattern = re.compile(
        r"/\*\*\n \* " + name + r"\b(?P<doc>.*?)\*/\n"
        r"(?P<type>(?:[^\n(]*\n)?[^\n(]*?)\b" + name + r"\(", re.S)
    for path, text in src.items():
        match = pattern.search(text)
        if match:
            return path, match.group("doc"), match.group("type")
    return None


def is_function(src, name):
    return any(re.search(r"^\w[^\n;=]*\b" + name + r"\(", text, re.M)
               for text in src.values())


def main():
    src = sources()
    missing = []
    names = sorted(n for n in wanted(src) if is_function(src, n))
    for name in names:
        found = definition(src, name)
        if not found:
            missing.append(f"{name}: no kernel-doc comment")
            continue
        path, doc, rtype = found
        lacks = [] if "Context:" in doc else ["Context:"]
        if not re.search(r"\bvoid\s*$", rtype.strip() + " ") and \
                "Return:" not in doc:
            lacks.append("Return:")
        if lacks:
            missing.append(f"{path}: {name} lacks {', '.join(lacks)}")
    if missing or len(names) < 70:
        print("\n".join(missing) or f"only {len(names)} functions found")
        sys.exit(1)
    print(f"{len(names)} exported functions and ib_device_ops entries: "
          "kernel-doc with Context: and Return:")


if __name__ == "__main__":
    main()
