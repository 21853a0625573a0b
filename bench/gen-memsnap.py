#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A large PyTorch memory snapshot for the reader's benchmark, shaped like
torch's own (_dump_snapshot: segments with blocks, device_traces of
alloc / free_requested / free_completed / segment_alloc entries with
Python frames), without a GPU.

    gen-memsnap.py ENTRIES OUT.pickle [KEPT]

KEPT (default 0) allocations of 4 MiB come first and are never freed,
as a model's weights are, in segments of their own. Allocations then
cycle through 32,768 live slots of 1 KiB to 4 MiB in 512
segments, with 200 distinct stacks of 8 to 24 frames.

The pickle is written as it is generated, opcode by opcode as Python's
pickle.dump(protocol=4) writes it (memo, MARK ... APPENDS batches of 1000),
so that a 1 GB snapshot needs no more memory here than a small one:
pickle.dump() would first hold ten million dicts."""

import random
import struct
import sys


class Writer:
    """The opcodes of pickle protocol 4 for None, bool, int, str, tuple,
    list and dict, with the memo as pickle.Pickler keeps it."""

    def __init__(self, f):
        self.f = f
        self.memo = {}          # id -> (index, obj): obj kept alive
        self.n_memo = 0
        self.f.write(b'\x80\x04')

    def memoize(self, obj=None):
        self.f.write(b'\x94')
        if obj is not None:
            self.memo[id(obj)] = (self.n_memo, obj)
        self.n_memo += 1

    def get(self, obj):
        found = self.memo.get(id(obj))
        if found is None:
            return False
        i = found[0]
        self.f.write(b'h' + bytes([i]) if i < 256 else b'j' + struct.pack('<I', i))
        return True

    def value(self, v):
        w = self.f.write
        if v is None:
            w(b'N')
        elif v is True or v is False:
            w(b'\x88' if v else b'\x89')
        elif isinstance(v, int):
            if 0 <= v < 256:
                w(b'K' + bytes([v]))
            elif 0 <= v < 65536:
                w(b'M' + struct.pack('<H', v))
            elif -2**31 <= v < 2**31:
                w(b'J' + struct.pack('<i', v))
            else:
                raw = v.to_bytes((v.bit_length() + 8) // 8, 'little', signed=True)
                w(b'\x8a' + bytes([len(raw)]) + raw)
        elif isinstance(v, str):
            if self.get(v):
                return
            raw = v.encode()
            w((b'\x8c' + bytes([len(raw)]) if len(raw) < 256 else b'X' + struct.pack('<I', len(raw))) + raw)
            self.memoize(v)
        elif isinstance(v, tuple):
            if self.get(v):
                return
            for x in v:
                self.value(x)
            w(b'\x86' if len(v) == 2 else b'(' + b't')  # tuples here have 2 items
            self.memoize(v)
        elif isinstance(v, list):
            if self.get(v):
                return
            w(b']')
            self.memoize(v)
            self.items(v, self.value, b'e')
        elif isinstance(v, dict):
            self.dict(v, keep=True)
        else:
            raise TypeError(type(v))

    def dict(self, d, keep):
        if keep and self.get(d):
            return
        self.f.write(b'}')
        self.memoize(d if keep else None)
        self.items(list(d.items()), lambda kv: (self.value(kv[0]), self.value(kv[1])), b'u')

    def items(self, seq, put, op):
        for k in range(0, len(seq), 1000):
            batch = seq[k:k + 1000]
            if len(batch) > 1:
                self.f.write(b'(')
            for x in batch:
                put(x)
            self.f.write(op if len(batch) > 1 else (b'a' if op == b'e' else b's'))


n = int(sys.argv[1])
kept = int(sys.argv[3]) if len(sys.argv) > 3 else 0
kept_size = 4 << 20
kept_segments = (kept * kept_size + (256 << 20) - 1) // (256 << 20)
rng = random.Random(7)
files = [f"/opt/app/model/layer{i}.py" for i in range(40)]
stacks = []
for s in range(200):
    depth = rng.randint(8, 24)
    stacks.append([{"name": f"fn{rng.randint(0, 500)}", "filename": rng.choice(files),
                    "line": rng.randint(1, 900)} for _ in range(depth)])
seg_size = 256 << 20
segments_base = 0x7f0000000000
slot_size = seg_size // 64
live = {}
kept_base = segments_base + 512 * seg_size


def trace():
    t = 1796402543000000
    for k in range(512):
        yield {"action": "segment_alloc", "addr": segments_base + k * seg_size, "size": seg_size,
               "stream": 0, "time_us": t, "frames": stacks[k % 200]}
        t += 1
    for k in range(kept_segments):
        yield {"action": "segment_alloc", "addr": kept_base + k * seg_size, "size": seg_size,
               "stream": 0, "time_us": t, "frames": stacks[k % 200]}
        t += 1
    for i in range(kept):
        yield {"action": "alloc", "addr": kept_base + i * kept_size, "size": kept_size, "stream": 0,
               "time_us": t, "compile_context": "N/A", "user_metadata": "", "frames": stacks[i % 200]}
        t += 1
    made = 512 + kept_segments + kept
    while made < n:
        slot = rng.randrange(512 * 64)
        addr = segments_base + slot * slot_size
        if addr in live:
            size, st = live.pop(addr)
            for action in ("free_requested", "free_completed"):
                yield {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t,
                       "compile_context": "N/A", "user_metadata": "", "frames": stacks[st]}
            made += 2
        else:
            size = rng.choice((1024, 65536, 1 << 20, 4 << 20, 16 << 20, slot_size))
            st = rng.randrange(200)
            live[addr] = (size, st)
            yield {"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t,
                   "compile_context": "N/A", "user_metadata": "", "frames": stacks[st]}
            made += 1
        t += rng.randint(1, 50)


def segments():
    out = []
    for k in range(512):
        base = segments_base + k * seg_size
        blocks = []
        at = base
        for j in range(64):
            a = base + j * slot_size
            if a in live:
                size, st = live[a]
                if a > at:
                    blocks.append({"address": at, "size": a - at, "requested_size": 0, "state": "inactive",
                                   "frames": []})
                rounded = (size + 511) // 512 * 512
                blocks.append({"address": a, "size": rounded, "requested_size": size,
                               "state": "active_allocated", "frames": stacks[st]})
                at = a + rounded
        if base + seg_size > at:
            blocks.append({"address": at, "size": base + seg_size - at, "requested_size": 0,
                           "state": "inactive", "frames": []})
        out.append({"device": 0, "address": base, "total_size": seg_size,
                    "allocated_size": sum(b["size"] for b in blocks if b["state"] != "inactive"),
                    "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large",
                    "segment_pool_id": (0, 0), "is_expandable": False, "blocks": blocks, "frames": []})
    for k in range(kept_segments):
        base = kept_base + k * seg_size
        blocks = [{"address": base + j * kept_size, "size": kept_size, "requested_size": kept_size,
                   "state": "active_allocated", "frames": stacks[(k * 64 + j) % 200]}
                  for j in range(64) if k * 64 + j < kept]
        at = base + len(blocks) * kept_size
        if base + seg_size > at:
            blocks.append({"address": at, "size": base + seg_size - at, "requested_size": 0,
                           "state": "inactive", "frames": []})
        out.append({"device": 0, "address": base, "total_size": seg_size,
                    "allocated_size": sum(b["size"] for b in blocks if b["state"] != "inactive"),
                    "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large",
                    "segment_pool_id": (0, 0), "is_expandable": False, "blocks": blocks, "frames": []})
    return out


with open(sys.argv[2], "wb") as f:
    w = Writer(f)
    # {"device_traces": [trace], "segments": [...], "allocator_settings": {...}}: the
    # trace first, so that the segments can show the blocks still live at its end
    w.f.write(b'}')
    w.memoize()
    w.f.write(b'(')
    w.value("device_traces")
    w.f.write(b']')
    w.memoize()
    w.f.write(b']')
    w.memoize()
    batch = []
    for entry in trace():
        batch.append(entry)
        if len(batch) == 1000:
            w.f.write(b'(')
            for e in batch:
                w.dict(e, keep=False)
            w.f.write(b'e')
            batch = []
    if batch:
        w.f.write(b'(')
        for e in batch:
            w.dict(e, keep=False)
        w.f.write(b'e')
    w.f.write(b'a')
    w.value("segments")
    w.value(segments())
    w.value("allocator_settings")
    w.value({"expandable_segments": False})
    w.f.write(b'u.')
