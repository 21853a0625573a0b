#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators of two recordings of the same deterministic program: one
from the RecordFunction observer, one from torch's NVTX emission.

    observer_compare.py OBSERVER.kscope NVTX.kscope A:B

Both come from train.py --annotate-steps. Over the steps "step A" ..
"step B-1" of the main process (its threads that launch kernels and the
autograd engine's), checked: the operators' count per name, the sequence
numbers per name, the input sizes per (name, sequence number) when the
texts have any, and each operator's parent (the innermost enclosing
operator on its thread) per name, all equal. RecordFunction handles
(op_id) are process-wide counters, so they are left out."""

import bisect
import collections
import re
import sqlite3
import sys

DECOR = re.compile(r", (seq|op_id|sizes|input_op_ids) = ")
SEQ = re.compile(r", seq = (\d+)")
SIZES = re.compile(r", sizes = (\[.*?\]\])(?:, input_op_ids|$)")
failures = 0


def check(name, cond, detail=""):
    global failures
    failures += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name} {detail}")


def operators(path, a, b):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    rows = [(s, e, tid, t if t is not None else strings.get(tid_text, ""))
            for s, e, tid, t, tid_text in db.execute(
                "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS "
                "WHERE eventType = 59 AND end IS NOT NULL")]
    pid = db.execute("SELECT globalPid FROM PROCESSES ORDER BY globalPid LIMIT 1").fetchone()
    launchers = {r[0] for r in db.execute(
        "SELECT DISTINCT r.globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId")}
    windows = sorted((s, e) for s, e, _, t in rows
                     if re.fullmatch(r"step (\d+)", t) and a <= int(t.split()[1]) < b)
    ops = []
    for s, e, tid, t in rows:
        if ", op_id = " not in t or tid not in launchers:
            continue
        m = DECOR.search(t)
        name = t[: m.start()] if m else t
        seq = SEQ.search(t)
        sizes = SIZES.search(t)
        # sizes cut short: NVTX text past 512 bytes, or past the observer's 64 numbers
        cut = sizes is None and ", sizes = " in t
        ops.append((s, e, tid, name, int(seq.group(1)) if seq else -1, sizes.group(1) if sizes else None, cut))
    ops.sort(key=lambda o: (o[2], o[0], -o[1]))

    def inside(o):
        i = bisect.bisect_right(windows, (o[0], float("inf"))) - 1
        return i >= 0 and windows[i][0] <= o[0] and o[1] <= windows[i][1]

    # parents: a stack per thread over the operators sorted by start
    parent = {}
    stack = []
    for o in ops:
        while stack and (stack[-1][2] != o[2] or stack[-1][1] < o[1]):
            stack.pop()
        parent[id(o)] = stack[-1][3] if stack else None
        stack.append(o)
    chosen = [o for o in ops if inside(o) and not o[3].startswith("step ")]
    return {
        "windows": len(windows),
        "counts": collections.Counter(o[3] for o in chosen),
        "seqs": collections.Counter((o[3], o[4]) for o in chosen),
        "sizes": collections.Counter((o[3], o[4], o[5]) for o in chosen if o[5] is not None),
        "cut": collections.Counter((o[3], o[4]) for o in chosen if o[6]),
        "parents": collections.Counter((o[3], parent[id(o)]) for o in chosen),
    }


def main():
    obs_path, nvtx_path, span = sys.argv[1], sys.argv[2], sys.argv[3]
    a, b = (int(v) for v in span.split(":"))
    obs = operators(obs_path, a, b)
    nvtx = operators(nvtx_path, a, b)
    check("step ranges", obs["windows"] == nvtx["windows"] == b - a, f"{obs['windows']} / {nvtx['windows']}")
    total = sum(obs["counts"].values())
    check("operators found", total > 0, f"{total} calls, {len(obs['counts'])} names")
    for key, what in (("counts", "calls per name"), ("seqs", "sequence numbers per name"),
                      ("sizes", "input sizes per (name, seq)"), ("parents", "parent operator per name")):
        diff = (obs[key] - nvtx[key]) + (nvtx[key] - obs[key])
        note = ""
        if key == "sizes" and diff:
            # an operator on many tensors: one side has its sizes, the other
            # had them cut (NVTX's 512-byte texts, the observer's 64 numbers)
            cut = obs["cut"] + nvtx["cut"]
            explained = collections.Counter({k: n for k, n in diff.items() if cut[k[:2]] >= n})
            diff = diff - explained
            if explained:
                note = f" (and {sum(explained.values())} where one side's sizes were cut short)"
        check(what, not diff,
              f"{sum(obs[key].values())} = {sum(nvtx[key].values())}{note}" if not diff
              else f"first differences: {list(diff.items())[:5]}")
    print(f"failures={failures}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
