#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tables of overhead-parts.sh, in markdown.

    overhead_parts.py OUTDIR MODEL STEPS PART...

For each PART, OUTDIR/parts-MODEL-PART-ROUND.json (train.py --result) per
round: the median step time of steps 20..STEPS-1 of each process; per
part the median over its processes, against the median of every plain-a
and plain-b process; and, since the machine drifts over a run, the median
over rounds of (the part's process / the mean of the round's plain-a and
plain-b processes). The noise floor is plain-b against plain-a of the same
round. Then the decomposition: what each layer adds over the one below it
(the same-round medians subtracted), the floors first. Missing processes
(a failed run, a part left out by the budget) show as gaps."""

import json
import statistics
import sys

LABELS = {
    "plain-a": "no profiler (a)",
    "plain-b": "no profiler (b): the noise floor, b against a",
    "record": "kinescope-cli record, defaults",
    "record-nvtx": "kinescope-cli record, defaults, operators from NVTX emission",
    "record-shapes": "kinescope-cli record, with input shapes",
    "cupti-floor": "floor of CUPTI: mincupti.c",
    "nvtx-floor": "floor of NVTX emission: emit_nvtx() into a do-nothing client",
    "rf-floor": "floor of RecordFunction: a do-nothing observer, our configuration",
    "rf-floor-noids": "the same without needsIds",
    "observer-noinject": "our observer, the injector's entry points returning at once",
    "ops-observer": "operators alone, RecordFunction observer",
    "ops-nvtx": "operators alone, torch's NVTX emission",
    "sampler": "Python stack sampler alone",
    "allocator": "caching allocator history alone",
    "torchprof": "torch.profiler, CPU + CUDA",
    "torchprof-seed": "torch.profiler, record_shapes + profile_memory + with_stack",
    "record-nosampling": "kinescope-cli record without the Python stacks",
    "record-nomemory": "kinescope-cli record without the caching allocator",
    "record-100hz": "kinescope-cli record, Python stacks at 100 Hz",
    "record-idle": "kinescope-cli record, the sampling thread SCHED_IDLE",
    "record-noops": "kinescope-cli record without the operators",
    "cuda": "kinescope-cli record -t cuda: the CUDA tracing alone",
    "rf-floor-inputs": "floor of RecordFunction asking for the inputs (a do-nothing observer)",
    "observer-shapes-noinject": "our observer reading input sizes, the injector returning at once",
    "ops-shapes": "operators with input shapes alone, RecordFunction observer",
}

# (what it is, the part, the part below it): each layer's share of the
# operator path, then the other parts over no profiler
LAYERS = [
    ("torch's RecordFunction with a callback of our configuration", "rf-floor", None),
    ("of it, the handle (needsIds)", "rf-floor", "rf-floor-noids"),
    ("our observer: two clock reads, the operator's fields", "observer-noinject", "rf-floor"),
    ("the injector, its channel and the recorder (operators alone, -t nvtx)", "ops-observer", "observer-noinject"),
    ("CUPTI's floor (mincupti.c)", "cupti-floor", None),
    ("the recorder's CUDA tracing over CUPTI's floor (-t cuda)", "cuda", "cupti-floor"),
    ("the Python stack sampler (with the recorder, -t nvtx)", "sampler", None),
    ("the caching allocator's history", "allocator", None),
    ("the whole default recording", "record", None),
    ("the Python stacks, taken out of the recording", "record", "record-nosampling"),
    ("the caching allocator, taken out of the recording", "record", "record-nomemory"),
    ("the operators, taken out of the recording", "record", "record-noops"),
    ("with shapes: torch boxing the inputs for a callback, over the floor without", "rf-floor-inputs", "rf-floor"),
    ("with shapes: our observer reading the sizes, over torch's boxing", "observer-shapes-noinject", "rf-floor-inputs"),
    ("with shapes: the injector, its channel and the recorder", "ops-shapes", "observer-shapes-noinject"),
    ("input shapes in the whole recording", "record-shapes", "record"),
    ("900 Hz of the Python stacks (1000 against 100 Hz)", "record", "record-100hz"),
    ("torch.profiler, CPU + CUDA", "torchprof", None),
]


def pct(x):
    return f"{x:+.1f} %"


# a process ran in the host's fast mode when its probes, before and after
# its steps, are both within this of the run's least probe
FAST = 1.15


def fast_mode(parts, runs, probes, ends):
    """The parts again from the processes of the fast mode alone, against
    the no-profiler processes of the fast mode: the slow mode makes a
    process 20-30 % slower whatever its profiler, more than most parts."""
    every = [p for d in (probes, ends) for part in parts for p in d[part].values() if p is not None]
    if not every:
        return
    least = min(every)

    def fast(part, i):
        a, b = probes[part].get(i), ends[part].get(i)
        return a is not None and b is not None and a <= FAST * least and b <= FAST * least

    kept = {part: {i: x for i, x in runs[part].items() if fast(part, i)} for part in parts}
    plain = [x for p in ("plain-a", "plain-b") for x in kept.get(p, {}).values()]
    print()
    print(f"Fast mode only: the processes whose CPU probes before and after the steps are both within "
          f"{100 * (FAST - 1):.0f} % of the run's least ({least:.2f} ms), each part's median step against the "
          f"median of the no-profiler processes among them.")
    print()
    if not plain:
        print("(no no-profiler process ran in the fast mode: nothing to compare with)")
        return
    base = statistics.median(plain)
    print("| part | processes kept | median (ms) | vs. no profiler (fast mode) |")
    print("|---|---:|---:|---:|")
    for part in parts:
        r = kept[part]
        label = LABELS.get(part, part)
        if not r:
            print(f"| {label} | 0 of {len(runs[part])} | | |")
            continue
        med = statistics.median(r.values())
        print(f"| {label} | {len(r)} of {len(runs[part])} | {med:.3f} | {pct(100 * (med / base - 1))} |")


def main():
    out, model, steps, parts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    runs = {}
    probes = {}
    ends = {}
    for part in parts:
        runs[part] = {}
        probes[part] = {}
        ends[part] = {}
        for i in range(1, 100):
            try:
                with open(f"{out}/parts-{model}-{part}-{i}.json") as f:
                    result = json.load(f)
                t = result["step_times"][20:steps]
            except (FileNotFoundError, ValueError, KeyError):
                continue
            if t:
                runs[part][i] = statistics.median(t) * 1e3
                probes[part][i] = result.get("probe_cpu_ms")
                ends[part][i] = result.get("probe_end_cpu_ms")

    plain = {i: [runs[p][i] for p in ("plain-a", "plain-b") if i in runs.get(p, {})]
             for i in set(runs.get("plain-a", {})) | set(runs.get("plain-b", {}))}
    plain_all = [x for v in plain.values() for x in v]
    if not plain_all:
        print("(no plain processes: nothing to compare with)")
        return
    base = statistics.median(plain_all)

    print("Per part: each process's median step time (ms), in round order; their median; that against "
          "the median of every no-profiler process; the median over rounds of the part's process "
          "against the mean of the two no-profiler processes of its own round; and each process's CPU "
          "probe (train.py's interpreter loop before CUDA starts, best of 5: a process of the machine's "
          "slow mode shows 20-30 % more here, whatever the profiler).")
    print()
    print("| part | processes: median step (ms) | median (ms) | vs. no profiler | same round: median | rounds "
          "| processes: CPU probe (ms) |")
    print("|---|---|---|---:|---:|---:|---|")
    same_round = {}
    for part in parts:
        r = runs[part]
        label = LABELS.get(part, part)
        if not r:
            print(f"| {label} | (no run) | | | | 0 | |")
            continue
        med = statistics.median(r.values())
        if part == "plain-b":
            same = [100 * (r[i] / runs["plain-a"][i] - 1) for i in r if i in runs.get("plain-a", {})]
        else:
            same = [100 * (r[i] / statistics.fmean(plain[i]) - 1) for i in r if plain.get(i)]
        if same:
            same_round[part] = statistics.median(same)
        same_text = pct(statistics.median(same)) if same else ""
        probe_text = " / ".join(f"{p:.2f}" if p is not None else "?" for _, p in sorted(probes[part].items()))
        print(f"| {label} | {' / '.join(f'{x:.3f}' for _, x in sorted(r.items()))} | {med:.3f} | "
              f"{pct(100 * (med / base - 1))} | {same_text} | {len(same)} | {probe_text} |")

    fast_mode(parts, runs, probes, ends)

    # the noise floor
    noise = [100 * (runs["plain-b"][i] / runs["plain-a"][i] - 1)
             for i in runs.get("plain-b", {}) if i in runs.get("plain-a", {})]
    print()
    if noise:
        print(f"Noise floor: the second no-profiler process against the first of the same round, "
              f"{', '.join(pct(x) for x in noise)} (largest {max(abs(x) for x in noise):.1f} %); "
              f"every no-profiler process between {min(plain_all):.3f} and {max(plain_all):.3f} ms. "
              f"A difference between two parts smaller than that is not a measurement.")
    else:
        print("Noise floor: no round had both no-profiler processes.")

    # the decomposition
    print()
    print("Decomposition (same-round medians; a layer is the part minus the part below it, "
          "in points of the no-profiler step time):")
    print()
    print("| layer | part | below it | adds |")
    print("|---|---|---|---:|")
    for what, part, below in LAYERS:
        if part not in parts:
            continue
        if part not in same_round or (below is not None and below not in same_round):
            print(f"| {what} | {part} | {below or 'no profiler'} | (not measured) |")
            continue
        value = same_round[part] - (same_round[below] if below else 0.0)
        print(f"| {what} | {part} | {below or 'no profiler'} | {pct(value)} |")


if __name__ == "__main__":
    main()
