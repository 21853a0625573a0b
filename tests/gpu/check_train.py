#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares a kinescope recording of train.py with torch.profiler.

    check_train.py FILE.kscope TORCH_TRACE.json A:B

Counts the kernels whose launch call lies inside the NVTX ranges
"step A" .. "step B-1" of the recording (on any thread of the process:
backward kernels are launched by the autograd engine's thread; the steps
end with torch.cuda.synchronize, so nothing leaks across), and the kernel
events of the
torch.profiler trace of the same steps (another run of the same
deterministic program); they must be equal. Also checks that the NVTX
ranges nest: forward/backward/optimizer inside their step, on the thread
that launched the kernels, and that DataLoader worker processes were
seen."""

import json
import sqlite3
import re
import sys

path, trace, span = sys.argv[1], sys.argv[2], sys.argv[3]
a, b = (int(v) for v in span.split(":"))
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
failures = 0


def check(name, cond, detail=""):
    global failures
    failures += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name} {detail}")


steps = db.execute("SELECT start, end, globalTid, text FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'step %'").fetchall()
# the NVTX ranges "step N" (a record_function("step N") is an operator:
# "step N, op_id = M"), as check_pytorch.py takes them
steps = [s for s in steps if re.fullmatch(r"step (\d+)", s[3])]
window = [s for s in steps if a <= int(s[3].split()[1]) < b]
check("step ranges in the window", len(window) == b - a, f"{len(window)}")
inner = db.execute("SELECT start, end, globalTid, text FROM NVTX_EVENTS WHERE eventType = 59 "
                   "AND text IN ('forward', 'backward', 'optimizer')").fetchall()
check("forward/backward/optimizer nest in a step on the same thread",
      all(any(s[2] == r[2] and s[0] <= r[0] and r[1] <= s[1] for s in steps) for r in inner), f"{len(inner)} ranges")

rows = db.execute("SELECT r.start, r.end, r.globalTid / 16777216 FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                  "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                  "AND r.globalTid / 16777216 = k.globalPid / 16777216").fetchall()
ours = sum(1 for r in rows if any(s[2] // 16777216 == r[2] and s[0] <= r[0] and r[1] <= s[1] for s in window))
total = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
correlated = len(rows)
check("every kernel joins its launch call", correlated == total, f"{correlated}/{total}")

with open(trace) as f:
    events = json.load(f)["traceEvents"]
theirs = sum(1 for e in events if e.get("cat") == "kernel")
check("kernels in steps = torch.profiler kernels", ours == theirs and ours > 0,
      f"kinescope {ours}, torch.profiler {theirs}")

procs = db.execute("SELECT pid, name FROM PROCESSES").fetchall()
print("processes:", procs)
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
