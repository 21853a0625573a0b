#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares the PyTorch side of a recording with torch.profiler.

    check_pytorch.py FILE.kscope TORCH_TRACE.json A:B [KINESCOPE_CLI]

Both come from train.py --annotate-steps over the same deterministic
steps; the torch.profiler run used --seed-settings (record_shapes,
profile_memory, with_stack) over steps A..B-1. Checked, for the operators
and annotations that lie inside the ranges "step A" .. "step B-1" (any
thread: backward runs on the autograd engine's):

- call counts per operator name are equal;
- for at least 99 % of the kernels launched there, the innermost operator
  around their launch call is the same in both (kernels paired by name, in
  launch order);
- the CUDA caching allocator's allocations there: count within 1 %; peak
  allocated not above torch.profiler's and within 2 % of it. The
  recording's figures come from the allocator's history, whose entries
  give the bytes asked for (as memory_viz counts them); torch.profiler's
  "Total Allocated" counts the allocator's blocks, rounded up to 512
  bytes and, for a large block whose rest would be under 1 MiB, not
  split, so its peak is the higher by a little.

The recording's operators are read from its NVTX text here, independently
of Kinescope's reader; with KINESCOPE_CLI given, `stats --report operators
--include-warmup` on the whole recording must give the same counts per name
as that text (its calls with its merged_calls)."""

import bisect
import collections
import json
import re
import sqlite3
import subprocess
import sys

path, trace, span = sys.argv[1], sys.argv[2], sys.argv[3]
cli = sys.argv[4] if len(sys.argv) > 4 else None
a, b = (int(v) for v in span.split(":"))
failures = 0


def check(name, cond, detail=""):
    global failures
    failures += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name} {detail}")


DECOR = re.compile(r", (seq|op_id|sizes|input_op_ids) = ")


def op_name(text):
    """The operator name of PyTorch's NVTX text, or None when the text is
    not PyTorch's (no op_id)."""
    if ", op_id = " not in text:
        return None
    m = DECOR.search(text)
    return text[: m.start()] if m else text


def innermost(spans, t):
    """spans: (start, end, name) sorted by start; the latest-starting
    span containing t."""
    for i in range(bisect.bisect_right(spans, (t, float("inf"), "")) - 1, -1, -1):
        if spans[i][0] <= t <= spans[i][1]:
            return spans[i][2]
    return None


def in_windows(windows, t0, t1):
    i = bisect.bisect_right(windows, (t0, float("inf"))) - 1
    return i >= 0 and windows[i][0] <= t0 and t1 <= windows[i][1]


# --- the recording ---------------------------------------------------------
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
strings = dict(db.execute("SELECT id, value FROM StringIds"))
nvtx = [(s, e, tid, t if t is not None else strings.get(tid_text, ""))
        for s, e, tid, t, tid_text in db.execute(
            "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL")]
win_k = sorted((s, e) for s, e, _, t in nvtx if re.fullmatch(r"step (\d+)", t) and a <= int(t.split()[1]) < b)
check("recording: step ranges", len(win_k) == b - a, f"{len(win_k)}")
launch_rows = db.execute(
    "SELECT r.start, r.globalTid, k.demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL k "
    "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
    "AND r.globalTid / 16777216 = k.globalPid / 16777216 ORDER BY r.start").fetchall()
# The threads that launch kernels (the main thread, the autograd engine's):
# torch.profiler sees operators only there, while a recording also has the
# DataLoader's pin-memory thread.
launchers_k = {r[1] for r in launch_rows}
ops_k = [(s, e, tid, op_name(t)) for s, e, tid, t in nvtx]
ops_k = [o for o in ops_k if o[3] is not None]
ops_in_k = [o for o in ops_k if o[2] in launchers_k]
all_counts_k = collections.Counter(o[3] for o in ops_k)
count_k = collections.Counter(o[3] for o in ops_in_k if in_windows(win_k, o[0], o[1]) and not o[3].startswith("step "))
by_thread_k = collections.defaultdict(list)
for s, e, tid, n in ops_k:
    by_thread_k[tid].append((s, e, n))
for v in by_thread_k.values():
    v.sort()
kern_k = collections.defaultdict(list)
for rs, tid, name in launch_rows:
    if in_windows(win_k, rs, rs):
        kern_k[strings.get(name, "")].append(innermost(by_thread_k.get(tid, []), rs))
mem_k = db.execute("SELECT timestamp, bytes, totalAllocated FROM KS_MEMORY_EVENTS "
                   "WHERE totalReserved IS NOT NULL AND deviceId >= 0 ORDER BY timestamp").fetchall()
mem_k = [m for m in mem_k if win_k and win_k[0][0] <= m[0] <= win_k[-1][1]]

# --- torch.profiler ----------------------------------------------------------
with open(trace) as f:
    events = json.load(f)["traceEvents"]
ns = lambda us: int(round(float(us) * 1000))
cpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")]
win_t = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in cpu
               if e["cat"] == "user_annotation" and re.fullmatch(r"step (\d+)", e["name"])
               and a <= int(e["name"].split()[1]) < b)
check("torch.profiler: step annotations", len(win_t) == b - a, f"{len(win_t)}")
launch = {}
for e in events:
    if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
        launch[e["args"]["correlation"]] = e
kernels_t = [e for e in events if e.get("cat") == "kernel"]
launchers_t = {(launch[k["args"]["correlation"]]["pid"], launch[k["args"]["correlation"]]["tid"])
               for k in kernels_t if k["args"].get("correlation") in launch}
count_t = collections.Counter(e["name"] for e in cpu if (e["pid"], e["tid"]) in launchers_t and in_windows(win_t, ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
                              and not e["name"].startswith("step "))
by_thread_t = collections.defaultdict(list)
for e in cpu:
    by_thread_t[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]))
for v in by_thread_t.values():
    v.sort()
kern_t = collections.defaultdict(list)
for e in sorted(kernels_t,
                key=lambda e: float(launch.get(e["args"].get("correlation"), {"ts": e["ts"]})["ts"])):
    r = launch.get(e["args"].get("correlation"))
    if r is None:
        continue
    t = ns(r["ts"])
    if in_windows(win_t, t, t):
        kern_t[e["name"]].append(innermost(by_thread_t.get((r["pid"], r["tid"]), []), t))
mem_t = [e["args"] for e in events if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type") == 1]

# --- comparisons -------------------------------------------------------------
names = sorted(set(count_k) | set(count_t))
diff = [(n, count_k[n], count_t[n]) for n in names if count_k[n] != count_t[n]]
check("operator call counts per name equal", not diff and sum(count_k.values()) > 0,
      f"{len(names)} names, {sum(count_k.values())} calls; different: {diff[:8]}")

pairs = same = 0
unequal = collections.Counter()
for k in set(kern_k) | set(kern_t):
    x, y = kern_k.get(k, []), kern_t.get(k, [])
    for i in range(max(len(x), len(y))):
        pairs += 1
        u = x[i] if i < len(x) else "(missing)"
        v = y[i] if i < len(y) else "(missing)"
        if u == v:
            same += 1
        else:
            unequal[(u, v)] += 1
share = same / pairs if pairs else 0
check("kernels with the same innermost operator >= 99 %", share >= 0.99 and pairs > 0,
      f"{same}/{pairs} = {100 * share:.2f} %; differing (recording, torch.profiler): {unequal.most_common(5)}")

alloc_k = sum(1 for m in mem_k if m[1] > 0)
alloc_t = sum(1 for m in mem_t if m.get("Bytes", 0) > 0)
peak_k = max((m[2] for m in mem_k), default=0)
peak_t = max((m.get("Total Allocated", 0) for m in mem_t), default=0)
check("allocations within 1 %", alloc_t > 0 and abs(alloc_k - alloc_t) <= 0.01 * alloc_t,
      f"recording {alloc_k}, torch.profiler {alloc_t}")
check("peak allocated (bytes asked for) not above torch.profiler's (blocks) and within 2 %",
      peak_t > 0 and peak_k <= peak_t and peak_t - peak_k <= 0.02 * peak_t,
      f"recording {peak_k}, torch.profiler {peak_t} ({100 * (peak_k - peak_t) / max(peak_t, 1):+.2f} %)")

if cli:
    # Every row: the warm-up included, and the calls nested alone in one of
    # their name (which the report counts as one call with it, as
    # key_averages() does) added back from merged_calls.
    out = subprocess.run([cli, "stats", "--report", "operators", "--format", "json", "--limit", "0",
                          "--include-warmup", path], capture_output=True, text=True, check=True).stdout
    rows = json.loads(out)["operators"]
    reader = {r["name"]: r["calls"] + r.get("merged_calls", 0) for r in rows}
    merged = sum(r.get("merged_calls", 0) for r in rows)
    text = {n: c for n, c in all_counts_k.items() if "::" in n}
    diff = [(n, reader.get(n), c) for n, c in text.items() if reader.get(n) != c]
    check("kinescope-cli stats --report operators --include-warmup: calls + merged_calls = the NVTX text's operators",
          not diff, f"{len(reader)} names, {merged} merged calls; different (reader, text): {diff[:8]}")
    out = subprocess.run([cli, "stats", "--report", "operators", "--format", "json", "--limit", "0", path],
                         capture_output=True, text=True, check=True).stdout
    warmup = json.loads(out).get("warmup", {})
    print(f"     without --include-warmup: warm-up steps {warmup.get('steps')}, "
          f"{warmup.get('operator_calls')} operator calls there not counted")

print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
