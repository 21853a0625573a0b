#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The verdicts of gpm-check.sh from the files it leaves in OUTDIR:
monitor.csv (kinescope-cli monitor), dmon.txt (nvidia-smi dmon -o DT -s u
--gpm-metrics 1,2,3,4,5,10,11), memory.csv (nvidia-smi --query-gpu
memory.used and memory.reserved), and {gpm,nogpm}-ROUND.json (train.py
--result). Exits 1 when a check fails.

Usage: gpm_compare.py OUTDIR ROUNDS"""

import json
import statistics
import sys

# the monitor's column (after timestamp and index), dmon's (its header)
COLUMNS = [("sm_active", 0, "smutil"), ("sm_occupancy", 1, "smocc"), ("tensor_active", 2, "mmaact"),
           ("dram_active", 3, "dram"), ("fp64_active", 4, "fp64")]
MEMORY = [("memory.used", 5, 0), ("memory.reserved", 6, 1)]
POINTS = 2


def second(stamp):
    """ "2026/12/04 16:42:52.647" -> "16:42:52" """
    return stamp.split()[1].split(".")[0]


def read_csv(path, n):
    rows = {}
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) == n:
            rows[(second(f[0]), f[1])] = f[2:]
    return rows


def read_dmon(path):
    rows, header = {}, None
    for line in open(path):
        if line.startswith("#"):
            if header is None:
                header = line[1:].split()
            continue
        if line.strip():
            f = line.split()
            rows[(f[1], f[2])] = dict(zip(header, f))
    return rows


def compare(out):
    ok = True
    mon = read_csv(f"{out}/monitor.csv", 9)
    dmon = read_dmon(f"{out}/dmon.txt")
    smi = read_csv(f"{out}/memory.csv", 4)
    # Each tool's first GPM interval is no second's: the monitor's runs
    # from its start, dmon prints "-" and then 0 for everything. Both are
    # left out.
    for rows, gpm in ((mon, lambda r: r[0] != "[N/A]"), (dmon, lambda r: r["smutil"] != "-")):
        with_gpm = sorted(k for k in rows if gpm(rows[k]))
        if with_gpm:
            del rows[with_gpm[0]]
    keys = sorted(set(mon) & set(dmon) & set(smi))
    print(f"{len(keys)} seconds sampled by all three")
    if len(keys) < 3:
        print("FAIL: fewer than 3 common seconds")
        return False
    # An idle GPU agrees with itself: the seconds must be under load.
    busy = [k for k in keys if dmon[k]["smutil"] not in ("-",) and float(dmon[k]["smutil"]) >= 10]
    if len(busy) < len(keys) // 2 + 1:
        print(f"FAIL: the GPU was busy (SM activity 10 % or more) in only {len(busy)} of the {len(keys)} seconds")
        ok = False
    for name, col, dname in COLUMNS:
        diffs = [abs(float(mon[k][col]) - float(dmon[k][dname])) for k in keys
                 if mon[k][col] != "[N/A]" and dmon[k][dname] != "-"]
        good = bool(diffs) and max(diffs) <= POINTS
        ok &= good
        worst = f"{max(diffs):5.1f}" if diffs else "  n/a"
        print(f"{name:15} vs dmon {dname:7} {len(diffs):3} seconds, largest difference {worst} points  "
              f"{'PASS' if good else 'FAIL'}")
    for name, col, scol in MEMORY:
        diffs = [abs(float(mon[k][col]) - float(smi[k][scol])) for k in keys]
        good = max(diffs) == 0
        ok &= good
        print(f"{name:15} vs nvidia-smi  {len(diffs):3} seconds, largest difference {max(diffs):5.0f} MiB     "
              f"{'PASS' if good else 'FAIL'}")
    return ok


def overhead(out, rounds):
    medians = {"gpm": [], "nogpm": []}
    for r in range(1, rounds + 1):
        for mode, values in medians.items():
            try:
                with open(f"{out}/{mode}-{r}.json") as f:
                    values.append(statistics.median(json.load(f)["step_times"][10:]) * 1e3)
            except (OSError, ValueError, KeyError):
                print(f"no step times: {mode} round {r}")
    if not medians["gpm"] or not medians["nogpm"]:
        print("FAIL: no step times from the recordings")
        return False
    print("median step (ms) per recording:")
    for mode, values in medians.items():
        print(f"  {mode:6} " + " ".join(f"{v:.3f}" for v in values))
    gpm, nogpm = statistics.median(medians["gpm"]), statistics.median(medians["nogpm"])
    extra = (gpm / nogpm - 1) * 100
    good = extra < 1
    print(f"with GPM {gpm:.3f} ms, without {nogpm:.3f} ms: GPM sampling adds {extra:+.2f} %  "
          f"{'PASS' if good else 'FAIL'}")
    return good


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    ok = compare(out)
    ok &= overhead(out, rounds)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
