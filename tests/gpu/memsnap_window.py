#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A memory snapshot with what the fixtures lack, and the profiler's trace
of the same run, for memsnap-window-check.sh:

    memsnap_window.py OUTDIR

Under torch.profiler and _record_memory_history: a few steps of a small
MLP, torch.cuda.empty_cache() after freeing a large tensor (segment_free
entries), then under a per-process fraction a request larger than the
device has left: a demand out-of-memory error, not fragmentation. Writes
OUTDIR/snap.pickle, OUTDIR/trace.pt.trace.json.gz and OUTDIR/facts.json
(torch's figures: the segment_free and oom entries counted, the OOM
message)."""

import json
import os
import sys

import torch
import torch.nn as nn

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = torch.device("cuda")
mib = 1 << 20
torch.cuda.memory._record_memory_history(enabled="all", stacks="python", max_entries=200000)
facts = {}
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
                            profile_memory=True, record_shapes=True, with_stack=True) as prof:
    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(3):
        x = torch.randn(256, 1024, device=dev)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    big = torch.empty(256 * mib, dtype=torch.uint8, device=dev)
    del big
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction((torch.cuda.memory_reserved() + 64 * mib) / total)
    try:
        too_big = torch.empty(512 * mib, dtype=torch.uint8, device=dev)
    except torch.OutOfMemoryError as e:
        facts["oom_message"] = str(e).splitlines()[0]
    torch.cuda.synchronize()
snap = torch.cuda.memory._snapshot()
torch.cuda.memory._dump_snapshot(os.path.join(out, "snap.pickle"))
prof.export_chrome_trace(os.path.join(out, "trace.pt.trace.json.gz"))
actions = [e["action"] for t in snap["device_traces"] for e in t]
facts["segment_free"] = actions.count("segment_free")
facts["oom"] = actions.count("oom")
facts["alloc"] = actions.count("alloc")
facts["torch"] = torch.__version__
with open(os.path.join(out, "facts.json"), "w") as f:
    json.dump(facts, f, indent=1)
