#!/usr/bin/env python3
"""Turn an instruction profile (tools/vm/insn_profile.c's output) into
instructions per function and per module, with the guest's kallsyms.

Usage: insn_profile.py [--per N] [--top K] [--module M ...] [--diff]
       PROFILE KALLSYMS [PROFILE KALLSYMS ...]

PROFILE: lines "<hex address> <instructions>" (run.sh --insn-profile).
KALLSYMS: the guest's /proc/kallsyms, taken while the modules of interest
were loaded (lines "address type name [module]"); any prefix before the
address is ignored if the line is given as "KS <line>".

Prints, for each profile, the instructions of each module and of the K
functions that ran most (divided by N, e.g. the number of requests, to
read per request), or of the modules named by --module only. With
several profiles, one column each, matched by
module (functions differ between builds).

A profile may be one of the files a mark cut (FILE.N, see
tools/vm/insn_profile.c), each with the kallsyms of its boot.

--diff: the profiles come in pairs, a run and its baseline (the same
guest doing less, e.g. fewer requests), and each column is their
difference: what the boot and the setup cost cancels out, and --per
divides what is left by the difference in requests. Functions are
matched by name, since addresses differ between boots (KASLR).
"""
import argparse
import bisect
import collections


def load_kallsyms(path):
    """Sorted addresses of text symbols, and (name, module) for each."""
    syms = []
    with open(path, errors="replace") as f:
        for line in f:
            words = line.split()
            if words and words[0] == "KS":
                words = words[1:]
            if len(words) < 3 or words[1] not in "tTwW":
                continue
            try:
                addr = int(words[0], 16)
            except ValueError:
                continue
            module = words[3].strip("[]") if len(words) > 3 else "vmlinux"
            syms.append((addr, words[2], module))
    syms.sort()
    return [s[0] for s in syms], [(s[1], s[2]) for s in syms]


def attribute(profile, kallsyms):
    """Instructions by function (name, module) and by module."""
    addrs, names = load_kallsyms(kallsyms)
    funcs = collections.Counter()
    with open(profile) as f:
        for line in f:
            vaddr, insns = line.split()
            i = bisect.bisect_right(addrs, int(vaddr, 16)) - 1
            # User space, or below the first symbol.
            key = names[i] if i >= 0 and int(vaddr, 16) >> 63 else \
                ("(user)", "user")
            funcs[key] += int(insns)
    modules = collections.Counter()
    for (_, module), insns in funcs.items():
        modules[module] += insns
    return funcs, modules


def subtract(run, base):
    """run minus base, function by function and module by module."""
    funcs = collections.Counter(run[0])
    funcs.subtract(base[0])
    modules = collections.Counter(run[1])
    modules.subtract(base[1])
    return funcs, modules


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--per", type=float, default=1)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--module", action="append", default=[])
    parser.add_argument("--diff", action="store_true")
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("PROFILE and KALLSYMS come in pairs")
    runs = [attribute(args.pairs[i], args.pairs[i + 1])
            for i in range(0, len(args.pairs), 2)]
    if args.diff:
        if len(runs) % 2:
            parser.error("--diff takes a baseline for each profile")
        runs = [subtract(runs[i], runs[i + 1])
                for i in range(0, len(runs), 2)]
    print("instructions by module" +
          (" per %g" % args.per if args.per != 1 else ""))
    names = sorted(set().union(*(m for _, m in runs)),
                   key=lambda m: -runs[0][1][m])
    for module in names:
        print("  %-24s" % module +
              "".join(" %14.1f" % (m[module] / args.per) for _, m in runs))
    print("  %-24s" % "(all)" +
          "".join(" %14.1f" % (sum(m.values()) / args.per) for _, m in runs))
    for n, (funcs, _) in enumerate(runs):
        print("profile %d: the %d functions that ran most" % (n + 1, args.top))
        shown = [(key, insns) for key, insns in funcs.most_common()
                 if not args.module or key[1] in args.module]
        for (name, module), insns in shown[:args.top]:
            print("  %14.1f  %s [%s]" % (insns / args.per, name, module))


if __name__ == "__main__":
    main()
