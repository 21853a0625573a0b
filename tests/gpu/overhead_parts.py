#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The decomposition table of overhead-parts.sh.

    overhead_parts.py OUTDIR MODEL STEPS PART...

For each PART, OUTDIR/parts-MODEL-PART-ROUND.json (train.py --result) per
round: the median step time of steps 20..STEPS-1 of each process; per
part the median over its processes, against the median of every plain-a
and plain-b process; and, since the machine drifts over a run, the median
over rounds of (the part's process / the mean of the round's plain-a and
plain-b processes). The noise floor is plain-b against plain-a of the same
round. Missing processes (a failed run) show as gaps."""

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
    "ops-observer": "operators alone, RecordFunction observer",
    "ops-nvtx": "operators alone, torch's NVTX emission",
    "sampler": "Python stack sampler alone",
    "allocator": "caching allocator history alone",
    "torchprof": "torch.profiler, CPU + CUDA",
    "torchprof-seed": "torch.profiler, record_shapes + profile_memory + with_stack",
}


def main():
    out, model, steps, parts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    runs = {}
    for part in parts:
        runs[part] = {}
        for i in range(1, 100):
            try:
                with open(f"{out}/parts-{model}-{part}-{i}.json") as f:
                    t = json.load(f)["step_times"][20:steps]
            except (FileNotFoundError, ValueError, KeyError):
                continue
            if t:
                runs[part][i] = statistics.median(t) * 1e3

    plain = {i: [runs[p][i] for p in ("plain-a", "plain-b") if i in runs.get(p, {})]
             for i in set(runs.get("plain-a", {})) | set(runs.get("plain-b", {}))}
    plain_all = [x for v in plain.values() for x in v]
    if not plain_all:
        print("(no plain processes: nothing to compare with)")
        return
    base = statistics.median(plain_all)

    print("| part | processes: median step (ms) | median (ms) | vs. no profiler | same round: median | rounds |")
    print("|---|---|---|---:|---:|---:|")
    for part in parts:
        r = runs[part]
        label = LABELS.get(part, part)
        if not r:
            print(f"| {label} | (no run) | | | | 0 |")
            continue
        med = statistics.median(r.values())
        if part == "plain-b":
            same = [100 * (r[i] / runs["plain-a"][i] - 1) for i in r if i in runs.get("plain-a", {})]
        else:
            same = [100 * (r[i] / statistics.fmean(plain[i]) - 1) for i in r if plain.get(i)]
        same_text = f"{statistics.median(same):+.1f} %" if same else ""
        print(f"| {label} | {' / '.join(f'{x:.3f}' for _, x in sorted(r.items()))} | {med:.3f} | "
              f"{100 * (med / base - 1):+.1f} % | {same_text} | {len(same)} |")


if __name__ == "__main__":
    main()
