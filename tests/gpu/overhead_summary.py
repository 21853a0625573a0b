#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tables of overhead-matrix.sh.

    overhead_summary.py table OUTDIR NAME|ARGS|STEPS|REPEATS...
    overhead_summary.py onoff LABEL=RESULT.json...
    overhead_summary.py parts OUTDIR STEPS MODE...

table: per model and mode (plain, record, torchprof), the median step time
of steps 20..STEPS-1 of each process OUTDIR/NAME-I-MODE.json; the median
of those per mode against no profiler; and, since the machine drifts over
a run, the median over rounds I of (mode's process / no profiler's process
of the same round - 1).

onoff: train.py --toggle results. Steps are grouped into the blocks in
which the capture range was on or off; the first 3 steps of each block and
steps before 20 are left out. Reported: median of all on steps against all
off steps, and the median and quartiles over neighbouring on/off block
pairs of (on median / off median - 1). With --toggle 1 (on and off every
other step), each on step is compared with the mean of its two off
neighbours instead.

parts: like table, for OUTDIR/parts-MODE-I.json; the first MODE is the
reference; also the quartiles of the same-round ratios, and one line per
process with train.py's probes of the machine's speed."""

import glob
import json
import statistics
import sys

MODES = (("plain", "no profiler"), ("record", "kinescope-cli record"),
         ("torchprof", "torch.profiler (CPU+CUDA)"))


def table(out, models):
    print("| model | mode | processes: median step (ms) | median | vs. no profiler | same round |")
    print("|---|---|---|---|---|---|")
    for m in models:
        name, _, steps, _ = m.split("|")
        steps = int(steps)
        base = None
        base_runs = None
        for mode, label in MODES:
            runs = []
            for i in range(1, 1000):
                try:
                    t = json.load(open(f"{out}/{name}-{i}-{mode}.json"))["step_times"][20:steps]
                except FileNotFoundError:
                    break
                runs.append(statistics.median(t) * 1e3)
            if not runs:
                print(f"| {name} | {label} | (no runs) | | | |")
                continue
            med = statistics.median(runs)
            base = base or med
            base_runs = base_runs or runs
            rounds = statistics.median(100 * (r / b - 1) for r, b in zip(runs, base_runs))
            print(f"| {name} | {label} | {' / '.join(f'{r:.3f}' for r in runs)} | {med:.3f} | "
                  f"{100 * (med / base - 1):+.1f} % | {rounds:+.1f} % |")


def step_pairs(label, d):
    """train.py --toggle 1: on and off alternate every step, so each on step
    is compared with the mean of the off steps either side of it, which
    cancels any drift of the machine slower than two steps."""
    t, c = d["step_times"], d["capturing"]
    ratios = [100 * (t[i] / ((t[i - 1] + t[i + 1]) / 2) - 1)
              for i in range(20, len(t) - 1) if c[i] and not c[i - 1] and not c[i + 1]]
    on = [t[i] for i in range(20, len(t)) if c[i]]
    off = [t[i] for i in range(20, len(t)) if not c[i]]
    q = statistics.quantiles(ratios, n=4)
    mon, moff = statistics.median(on) * 1e3, statistics.median(off) * 1e3
    return (f"| {label} | {mon:.3f} | {moff:.3f} | {100 * (mon / moff - 1):+.1f} % | "
            f"{statistics.median(ratios):+.1f} % | {q[0]:+.1f} .. {q[2]:+.1f} % | {len(ratios)} steps |")


def onoff(args):
    print("| run | on (ms) | off (ms) | on vs. off | block pairs: median | quartiles | pairs |")
    print("|---|---|---|---|---|---|---|")
    for arg in args:
        label, path = arg.rsplit("=", 1)
        try:
            d = json.load(open(path))
        except FileNotFoundError:
            print(f"| {label} | (no result) | | | | | |")
            continue
        if len(d["step_times"]) > 1 and d["capturing"][0] != d["capturing"][1]:
            print(step_pairs(label, d))
            continue
        blocks = []
        for i, (x, on) in enumerate(zip(d["step_times"], d["capturing"])):
            if not blocks or blocks[-1][0] != on:
                blocks.append((on, i, []))
            if i - blocks[-1][1] >= 3 and i >= 20:
                blocks[-1][2].append(x)
        blocks = [b for b in blocks if b[2]]
        on = [x for b in blocks if b[0] for x in b[2]]
        off = [x for b in blocks if not b[0] for x in b[2]]
        pairs = []
        for a, b in zip(blocks, blocks[1:]):
            if a[0] != b[0]:
                o, f = (a, b) if a[0] else (b, a)
                pairs.append(100 * (statistics.median(o[2]) / statistics.median(f[2]) - 1))
        if not pairs:
            print(f"| {label} | (no on block beside an off block after step 20) | | | | | |")
            continue
        # quartiles need two pairs at least: a short run has one
        quartiles = ("%+.1f .. %+.1f %%" % tuple(statistics.quantiles(pairs, n=4)[::2])
                     if len(pairs) >= 2 else "")
        mon, moff = statistics.median(on) * 1e3, statistics.median(off) * 1e3
        print(f"| {label} | {mon:.3f} | {moff:.3f} | {100 * (mon / moff - 1):+.1f} % | "
              f"{statistics.median(pairs):+.1f} % | {quartiles} | {len(pairs)} |")


def parts(out, steps, modes):
    runs = {}
    probes = []
    for mode in modes:
        runs[mode] = {}
        for i in range(1, 1000):
            try:
                d = json.load(open(f"{out}/parts-{mode}-{i}.json"))
            except FileNotFoundError:
                continue
            runs[mode][i] = statistics.median(d["step_times"][20:steps]) * 1e3
            if "probe_mem_ms" in d:
                probes.append((mode, i, runs[mode][i], d["probe_cpu_ms"], d["probe_mem_ms"]))
    if probes:
        # Whether a process ran in the machine's fast or slow mode shows in
        # the probes taken before CUDA started; one line per process.
        print("| part | round | median step (ms) | probe: interpreter (ms) | probe: gather (ms) |")
        print("|---|---|---|---|---|")
        for mode, i, med, cpu, mem in sorted(probes, key=lambda p: (p[1], modes.index(p[0]))):
            print(f"| {mode} | {i} | {med:.3f} | {cpu:.2f} | {mem:.2f} |")
        print()
    base = runs[modes[0]]
    print("| part | processes | median step (ms) | vs. no profiler | same round: median | quartiles |")
    print("|---|---|---|---|---|---|")
    for mode in modes:
        r = runs[mode]
        if not r:
            print(f"| {mode} | 0 | | | | |")
            continue
        med = statistics.median(r.values())
        ratios = [100 * (r[i] / base[i] - 1) for i in r if i in base]
        q = statistics.quantiles(ratios, n=4) if len(ratios) >= 2 else [0, 0, 0]
        print(f"| {mode} | {len(r)} | {med:.3f} | {100 * (med / statistics.median(base.values()) - 1):+.1f} % | "
              f"{statistics.median(ratios):+.1f} % | {q[0]:+.1f} .. {q[2]:+.1f} % |")


if sys.argv[1] == "table":
    table(sys.argv[2], sys.argv[3:])
elif sys.argv[1] == "parts":
    parts(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
else:
    onoff(sys.argv[2:])
