#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A large PyTorch memory snapshot for the reader's benchmark, shaped like
torch's own (_dump_snapshot: segments with blocks, device_traces of
alloc / free_requested / free_completed / segment_alloc entries with
Python frames), without a GPU.

    gen-memsnap.py ENTRIES OUT.pickle

Allocations cycle through 64 live slots of 1 KiB to 64 MiB in 512 segments,
with 200 distinct stacks of 8 to 24 frames."""

import pickle
import random
import sys

n = int(sys.argv[1])
out = sys.argv[2]
rng = random.Random(7)
files = [f"/opt/app/model/layer{i}.py" for i in range(40)]
stacks = []
for s in range(200):
    depth = rng.randint(8, 24)
    stacks.append([{"name": f"fn{rng.randint(0, 500)}", "filename": rng.choice(files),
                    "line": rng.randint(1, 900)} for _ in range(depth)])
seg_size = 256 << 20
segments_base = 0x7f0000000000
trace = []
t = 1796402543000000
for k in range(512):
    trace.append({"action": "segment_alloc", "addr": segments_base + k * seg_size, "size": seg_size,
                  "stream": 0, "time_us": t, "frames": stacks[k % 200]})
    t += 1
live = {}
slot_size = seg_size // 64
i = 0
while len(trace) < n:
    slot = rng.randrange(512 * 64)
    addr = segments_base + slot * slot_size
    if addr in live:
        size, st = live.pop(addr)
        for action in ("free_requested", "free_completed"):
            trace.append({"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t,
                          "compile_context": "N/A", "user_metadata": "", "frames": stacks[st]})
    else:
        size = rng.choice((1024, 65536, 1 << 20, 4 << 20, 16 << 20, slot_size))
        st = rng.randrange(200)
        live[addr] = (size, st)
        trace.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t,
                      "compile_context": "N/A", "user_metadata": "", "frames": stacks[st]})
    t += rng.randint(1, 50)
segments = []
for k in range(512):
    base = segments_base + k * seg_size
    blocks = []
    at = base
    for j in range(64):
        a = base + j * slot_size
        if a in live:
            size, st = live[a]
            if a > at:
                blocks.append({"address": at, "size": a - at, "requested_size": 0, "state": "inactive", "frames": []})
            rounded = (size + 511) // 512 * 512
            blocks.append({"address": a, "size": rounded, "requested_size": size,
                           "state": "active_allocated", "frames": stacks[st]})
            at = a + rounded
    if base + seg_size > at:
        blocks.append({"address": at, "size": base + seg_size - at, "requested_size": 0, "state": "inactive",
                       "frames": []})
    segments.append({"device": 0, "address": base, "total_size": seg_size,
                     "allocated_size": sum(b["size"] for b in blocks if b["state"] != "inactive"),
                     "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large",
                     "segment_pool_id": (0, 0), "is_expandable": False, "blocks": blocks, "frames": []})
with open(out, "wb") as f:
    pickle.dump({"segments": segments, "device_traces": [trace],
                 "allocator_settings": {"expandable_segments": False}}, f, protocol=4)
