#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators of a recording made with a capture range that opens and
closes, as train.py --toggle makes them under
kinescope-cli record --capture-range=cudaProfilerApi:

    onoff_check.py FILE.kscope RESULT.json

Every step inside the range ("step N", the capturing flags of train.py's
result) must hold the same number of operator rows (PyTorch's NVTX text,
which has an op_id) on the threads that launch kernels (the main thread
and autograd's: not the pin-memory thread, whose work is not the step's),
from the first block on
and after each time the range reopened (the observer is out of torch's
RecordFunction between ranges and back in at each start), and no operator
row may start outside a range. Exit status 1 when not."""

import collections
import json
import sqlite3
import sys

path, result = sys.argv[1], sys.argv[2]
capturing = json.load(open(result))["capturing"]
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
strings = dict(db.execute("SELECT id, value FROM StringIds"))
rows = [(s, e, tid, t if t is not None else strings.get(t_id, ""))
        for s, e, tid, t, t_id in db.execute(
            "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS WHERE eventType = 59 AND end IS NOT NULL")]
launchers = {tid for (tid,) in db.execute(
    "SELECT DISTINCT r.globalTid FROM CUPTI_ACTIVITY_KIND_KERNEL k "
    "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
    "AND r.globalTid / 16777216 = k.globalPid / 16777216")}
steps = sorted((s, e, int(t.split()[1])) for s, e, _, t in rows
               if t.startswith("step ") and t.split()[1].isdigit())
ops = sorted(s for s, e, tid, t in rows if ", op_id = " in t and tid in launchers)

per_step = collections.Counter()
outside = 0
j = 0
for s in ops:
    while j < len(steps) and steps[j][1] < s:
        j += 1
    if j < len(steps) and steps[j][0] <= s <= steps[j][1]:
        per_step[steps[j][2]] += 1
    else:
        outside += 1

inside = [n for n, on in enumerate(capturing) if on]
recorded = [n for _, _, n in steps]
# a step's operators include the optimizer's first-step set-up: from step 2 on
counts = {n: per_step[n] for n in inside if n >= 2}
values = collections.Counter(counts.values())
print(f"steps inside the range: {len(inside)}, step ranges recorded: {len(recorded)} "
      f"(outside the range: {len([n for n in recorded if not capturing[n]])})")
print(f"operator rows per step inside the range (from step 2): {dict(sorted(values.items()))}")
print(f"operator rows of those threads between the steps (the loop's own): {outside}")
ok = len(values) == 1 and set(recorded) == set(inside)
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
