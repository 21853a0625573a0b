#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the host-wait gaps of a recording are attributed to.

    check_gaps.py KINESCOPE_CLI FILE.kscope [MIN_SHARE]

Runs `kinescope-cli stats --report gaps --format json --limit 0` and sums
the host-wait gap time by cause. A named cause is an operator or
annotation, the DataLoader, a Python frame, a synchronizing call, an OS
runtime call or an NVTX range; "no_cpu_activity" and "unknown" are not.
Fails unless the named share is at least MIN_SHARE (default 0.95). Prints
the ten largest gaps with what ran in them."""

import collections
import json
import subprocess
import sys

cli, path = sys.argv[1], sys.argv[2]
need = float(sys.argv[3]) if len(sys.argv) > 3 else 0.95
out = subprocess.run([cli, "stats", "--report", "gaps", "--format", "json", "--limit", "0", path],
                     capture_output=True, text=True, check=True).stdout
gaps = [g for g in json.loads(out)["gaps"] if g["class"] == "host_wait"]
by = collections.Counter()
for g in gaps:
    by[g["cause"]] += g["dur_ns"]
total = sum(by.values())
named = sum(v for k, v in by.items() if k not in ("no_cpu_activity", "unknown"))
print(f"host-wait gaps: {len(gaps)}, {total / 1e6:.1f} ms")
for k, v in by.most_common():
    print(f"  {k:16} {v / 1e6:10.2f} ms {100 * v / total:6.2f} %")
for g in sorted(gaps, key=lambda g: -g["dur_ns"])[:10]:
    print(f"  {g['dur_ns'] / 1e3:10.1f} us  {g['cause']:12} {g['cause_name'][:70]}  [{g['thread']}]")
share = named / total if total else 0
ok = share >= need and total > 0
print(f"{'ok  ' if ok else 'FAIL'} named share of host-wait time {100 * share:.2f} % (need {100 * need:.0f} %)")
sys.exit(0 if ok else 1)
