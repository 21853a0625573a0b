#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU memory snapshots from torch.cuda.memory._record_memory_history and
_dump_snapshot, with what torch itself says at dump time.

    memsnap.py OUTDIR frag|oom|train

frag: allocations of alternating sizes, every other one freed, then larger
ones that cannot reuse the holes: a fragmented allocator. oom: the same
under set_per_process_memory_fraction until an allocation fails
(the snapshot is dumped in the except). train: a few steps of a small
model, also under torch.profiler (OUTDIR/memsnap_train.pt.trace.json.gz),
so that both share one time axis. Each run writes OUTDIR/memsnap_KIND.pickle
and OUTDIR/memsnap_KIND.json (memory_stats(), the segments' sums, the
OOM's message)."""

import json
import os
import sys

import torch
import torch.nn as nn


def facts(extra):
    snap = torch.cuda.memory._snapshot()
    segs = snap["segments"]
    d = {
        "memory_stats": {k: v for k, v in torch.cuda.memory_stats().items()},
        "segments": len(segs),
        "reserved_bytes": sum(s["total_size"] for s in segs),
        "allocated_bytes": sum(s["allocated_size"] for s in segs),
        "active_blocks": sum(1 for s in segs for b in s["blocks"] if b["state"] == "active_allocated"),
        "inactive_blocks": sum(1 for s in segs for b in s["blocks"] if b["state"] == "inactive"),
        "largest_free_bytes": max([b["size"] for s in segs for b in s["blocks"] if b["state"] == "inactive"] or [0]),
        "free_bytes": sum(b["size"] for s in segs for b in s["blocks"] if b["state"] == "inactive"),
        "trace_entries": sum(len(t) for t in snap["device_traces"]),
    }
    d.update(extra)
    return d


def main():
    out, kind = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    dev = torch.device("cuda")
    torch.cuda.memory._record_memory_history(enabled="all", stacks="python", max_entries=200000)
    extra = {}
    if kind in ("frag", "oom"):
        mib = 1 << 20
        if kind == "oom":
            total = torch.cuda.get_device_properties(0).total_memory
            torch.cuda.set_per_process_memory_fraction(600 * mib / total)
        # One 512 MiB segment, cut into 20 and 12 MiB blocks; the 20 MiB
        # ones freed leave 16 holes no 28 MiB request fits, and the
        # segment cannot be released while the 12 MiB blocks live.
        big = torch.empty(512 * mib, dtype=torch.uint8, device=dev)
        del big
        held = []
        for i in range(16):
            held.append(torch.empty(20 * mib, dtype=torch.uint8, device=dev))
            held.append(torch.empty(12 * mib, dtype=torch.uint8, device=dev))
        keep = held[1::2]
        del held
        more = []
        try:
            for i in range(3 if kind == "frag" else 64):
                more.append(torch.empty(28 * mib, dtype=torch.uint8, device=dev))
        except torch.OutOfMemoryError as e:
            extra["oom_message"] = str(e)
    else:
        model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).to(dev)
        opt = torch.optim.AdamW(model.parameters())
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts, profile_memory=True, record_shapes=True,
                                    with_stack=True) as prof:
            for step in range(4):
                with torch.profiler.record_function(f"ProfilerStep#{step}"):
                    x = torch.randn(512, 1024, device=dev)
                    loss = model(x).square().mean()
                    loss.backward()
                    opt.step()
                    opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        prof.export_chrome_trace(os.path.join(out, "memsnap_train.pt.trace.json.gz"))
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(os.path.join(out, f"memsnap_{kind}.pickle"))
    with open(os.path.join(out, f"memsnap_{kind}.json"), "w") as f:
        json.dump(facts(extra), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
