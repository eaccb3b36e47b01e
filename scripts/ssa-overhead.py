#!/usr/bin/env python3
"""The cost of SSA form and of the round trip (into SSA, out again), the lab's against Bril's
own `to_ssa.py` / `from_ssa.py`, measured as Bril's `examples/ssa_brench.toml` measures them:
static instructions and dynamic instructions (`total_dyn_inst`) per benchmark folder.

Both sides start from the same program: the benchmark after Bril's `tdce.py tdce+`, the
brench file's baseline. Bril's stages are each followed by `tdce+` again, as that file runs
them; the lab's are not (its SSA form has no dead φ to clean up). Every stage's output is run
with the lab's interpreter, which counts as `brili -p` does, and must print what the baseline
prints.

Not part of the test command (it needs a checkout of sampsyo/bril and Python's `lark`):

    python3 scripts/ssa-overhead.py --bril PATH/TO/bril --optlab target/release/optlab \
        --benchmarks ../shared/corpus/bril/benchmarks

`--bril` is a directory holding Bril's `examples/*.py` and `bril-txt/briltxt.py` (or all of
them flat).
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict


def tool(bril, name):
    for sub in ("examples", "bril-txt", "."):
        p = os.path.join(bril, sub, name)
        if os.path.exists(p):
            return p
    sys.exit(f"{name} not found under {bril}")


def sh(cmd, stdin):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout, r.stderr


class Bril:
    def __init__(self, bril):
        self.briltxt = tool(bril, "briltxt.py")
        self.py = {n: tool(bril, n) for n in ("tdce.py", "to_ssa.py", "from_ssa.py")}

    def call(self, fn, stdin):
        # briltxt.py has no command line of its own: its entry points are functions.
        d, mod = os.path.split(self.briltxt)
        code = f"import sys; sys.path.insert(0, {d!r}); import {mod[:-3]} as m; m.{fn}()"
        return sh([sys.executable, "-c", code], stdin)

    def to_json(self, text):
        code, out, err = self.call("bril2json", text)
        if code:
            raise RuntimeError(f"bril2json: {err}")
        return out

    def to_text(self, js):
        code, out, err = self.call("bril2txt", js)
        if code:
            raise RuntimeError(f"bril2txt: {err}")
        return out

    def run(self, script, js, *args):
        code, out, err = sh([sys.executable, self.py[script], *args], js)
        if code:
            raise RuntimeError(f"{script}: {err.strip().splitlines()[-1] if err.strip() else code}")
        return out


def static_count(js):
    return sum(1 for f in json.loads(js)["functions"] for i in f.get("instrs", []) if "op" in i)


def run_optlab(optlab, text, args):
    code, out, err = sh([optlab, "run", "--lang", "bril", "--profile", "-", "--", *args], text)
    m = re.search(r"total_dyn_inst: (\d+)", err)
    if code or not m:
        raise RuntimeError(f"optlab run: {err[-400:]}")
    return out, int(m.group(1))


def optlab_opt(optlab, text, passes):
    code, out, err = sh([optlab, "opt", "--lang", "bril", "--passes", passes, "-"], text)
    if code:
        raise RuntimeError(f"optlab opt {passes}: {err[-400:]}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bril", required=True)
    ap.add_argument("--optlab", required=True)
    ap.add_argument("--benchmarks", required=True)
    a = ap.parse_args()
    b = Bril(a.bril)
    stages = ["baseline", "bril ssa", "bril round trip", "lab ssa", "lab round trip"]
    totals = defaultdict(lambda: {s: [0, 0] for s in stages})
    counts = defaultdict(int)
    problems = []
    excluded = []
    for folder in sorted(os.listdir(a.benchmarks)):
        d = os.path.join(a.benchmarks, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".bril"):
                continue
            path = os.path.join(d, name)
            src = open(path).read()
            m = re.search(r"^#\s*ARGS:(.*)$", src, re.M)
            args = m.group(1).split() if m else []
            try:
                base_js = b.run("tdce.py", b.to_json(src), "tdce+")
                base_txt = b.to_text(base_js)
                want, base_dyn = run_optlab(a.optlab, base_txt, args)
                ssa_js = b.run("tdce.py", b.run("to_ssa.py", base_js), "tdce+")
                rt_js = b.run("tdce.py", b.run("from_ssa.py", ssa_js), "tdce+")
                lab_ssa = optlab_opt(a.optlab, base_txt, "ssa")
                lab_rt = optlab_opt(a.optlab, base_txt, "ssa,out-of-ssa")
                row = {"baseline": (static_count(base_js), base_dyn)}
                for stage, text, js in [
                    ("bril ssa", b.to_text(ssa_js), ssa_js),
                    ("bril round trip", b.to_text(rt_js), rt_js),
                    ("lab ssa", lab_ssa, None),
                    ("lab round trip", lab_rt, None),
                ]:
                    out, dyn = run_optlab(a.optlab, text, args)
                    if out != want:
                        problems.append(f"{folder}/{name}: {stage} prints differently")
                    row[stage] = (static_count(js if js else b.to_json(text)), dyn)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                # A stage that does not run (Bril's own output refused by the checker, say)
                # leaves the program out of every column, so the totals compare like with like.
                lines = [l for l in str(e).strip().splitlines() if l.strip() and not set(l.strip()) <= set("^~ ")]
                excluded.append(f"{folder}/{name}: {' '.join(lines[:2])[:240]}")
                continue
            counts[folder] += 1
            for s in stages:
                totals[folder][s][0] += row[s][0]
                totals[folder][s][1] += row[s][1]
            print(f"{folder}/{name}: " + ", ".join(f"{s} {row[s][0]}/{row[s][1]}" for s in stages), file=sys.stderr)

    def pct(x, base):
        return f"{100.0 * (x - base) / base:+.1f}%" if base else "—"

    print("| folder | programs | what | baseline | Bril's SSA | Bril's round trip | lab's SSA | lab's round trip |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for folder in sorted(totals):
        t = totals[folder]
        for k, what in ((0, "static"), (1, "dynamic")):
            base = t["baseline"][k]
            cells = [f"{t[s][k]:,} ({pct(t[s][k], base)})" for s in stages[1:]]
            print(f"| {folder} | {counts[folder]} | {what} | {base:,} | " + " | ".join(cells) + " |")
    if excluded:
        print("\nleft out (a stage did not run):")
        for p in excluded:
            print(f"- {p}")
    if problems:
        print("\nproblems:")
        for p in problems:
            print(f"- {p}")
        sys.exit(1)


if __name__ == "__main__":
    main()
