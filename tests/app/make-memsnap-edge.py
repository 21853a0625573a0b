#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/data/memsnap_edge.pickle: a memory snapshot (the shape of
torch.cuda.memory._dump_snapshot()'s) whose history holds what pairing
allocations with their frees must get right: frees of blocks allocated
before the history, an allocation of a live block, allocations of one
microsecond at addresses out of order, a clock that goes back, addresses
reused at random, blocks outside any segment, segment events and an
out-of-memory error; its dump a segment and blocks the history never
touched, two of them at one address; a second device whose clock goes
back; and a third whose first two blocks, and two from its middle, live
to the end among 1,500 that live a microsecond or two.

    make-memsnap-edge.py tests/data/memsnap_edge.pickle"""
import pickle, random
random.seed(37)
MB = 1 << 20
base = 0x7f0000000000
fr = [[{'name': 'f%d' % i, 'filename': 'edge.py', 'line': i}] for i in range(5)]
def ev(action, addr, size, t, frames=None, stream=0, **kw):
    d = {'action': action, 'addr': addr, 'size': size, 'stream': stream, 'time_us': t,
         'compile_context': 'N/A', 'user_metadata': '', 'frames': frames if frames is not None else fr[t % 5]}
    d.update(kw)
    return d
t0 = 1796402533000000
tr = []
seg0, seg1, seg2 = base, base + 64 * MB, base + 128 * MB
tr.append(ev('segment_alloc', seg1, 32 * MB, t0 + 1))
# a free whose alloc came before the history (a close with none open)
tr.append(ev('free_requested', seg0 + 4 * MB, MB, t0 + 2))
tr.append(ev('free_completed', seg0 + 4 * MB, MB, t0 + 3))
# two frees of the same address before any alloc there
tr.append(ev('free_completed', seg0 + 6 * MB, MB, t0 + 3))
# an alloc of a live block (the first one ended unseen)
tr.append(ev('alloc', seg1, 2 * MB, t0 + 4))
tr.append(ev('alloc', seg1, 2 * MB, t0 + 6))
# several allocations at the same microsecond, addresses out of order
for a in (5, 1, 3, 2, 4):
    tr.append(ev('alloc', seg1 + a * 2 * MB, MB + a * 1000, t0 + 10, stream=a % 2))
for a in (3, 1):
    tr.append(ev('free_requested', seg1 + a * 2 * MB, MB + a * 1000, t0 + 11))
    tr.append(ev('free_completed', seg1 + a * 2 * MB, MB + a * 1000, t0 + 12))
# blocks where no segment was seen: the widest at an address makes its band
far = base + 512 * MB
tr.append(ev('alloc', far, 4 * MB, t0 + 13))
tr.append(ev('free_completed', far, 4 * MB, t0 + 14))
tr.append(ev('alloc', far, MB, t0 + 15))
tr.append(ev('alloc', far + 6 * MB, MB, t0 + 15))
tr.append(ev('free_completed', far + 6 * MB, MB, t0 + 16))
tr.append(ev('alloc', far + 6 * MB, 3 * MB, t0 + 17))
# a random stretch of allocations and frees at reused addresses
live = {}
t = t0 + 30
for i in range(300):
    t += random.choice((0, 0, 1, 2, 5))
    slot = seg1 + (18 + random.randrange(12)) * 512 * 1024
    if slot in live and random.random() < 0.7:
        tr.append(ev('free_completed', slot, live.pop(slot), t))
    else:
        size = random.choice((512, 1000, 4096, 65536, 300000))
        tr.append(ev('alloc', slot, size, t, stream=random.randrange(3)))
        live[slot] = size
# segment events: one freed, an expandable map/unmap pair, an oom
tr.append(ev('segment_alloc', seg2, 16 * MB, t + 1))
tr.append(ev('alloc', seg2, 8 * MB, t + 2))
tr.append(ev('free_completed', seg2, 8 * MB, t + 3))
tr.append(ev('segment_free', seg2, 16 * MB, t + 4))
tr.append(ev('segment_map', seg2 + 32 * MB, 2 * MB, t + 5))
tr.append(ev('segment_unmap', seg2 + 32 * MB, 2 * MB, t + 6))
tr.append(ev('oom', 0, 64 * MB, t + 7, device_free=12 * MB))
# the dump: segment 0 never touched by the history as a segment, with a
# block the history never saw and two blocks at one address (damaged)
def blk(addr, size, state, frames):
    return {'address': addr, 'size': size, 'requested_size': size, 'state': state, 'frames': frames}
segs = [
    {'device': 0, 'address': seg0, 'total_size': 8 * MB, 'allocated_size': 0, 'active_size': 0,
     'requested_size': 0, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
     'is_expandable': False, 'frames': [],
     'blocks': [blk(seg0, 2 * MB, 'active_allocated', fr[1]), blk(seg0 + 2 * MB, 2 * MB, 'inactive', []),
                blk(seg0 + 4 * MB, MB, 'inactive', []), blk(seg0 + 5 * MB, MB, 'active_pending_free', fr[2]),
                blk(seg0 + 6 * MB, 2 * MB, 'inactive', [])]},
    {'device': 0, 'address': seg1, 'total_size': 32 * MB, 'allocated_size': 0, 'active_size': 0,
     'requested_size': 0, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
     'is_expandable': False, 'frames': [],
     'blocks': [blk(seg1, 32 * MB, 'inactive', [])]},
    {'device': 0, 'address': base + 256 * MB, 'total_size': 4 * MB, 'allocated_size': 0, 'active_size': 0,
     'requested_size': 0, 'stream': 1, 'segment_type': 'small', 'segment_pool_id': (0, 0),
     'is_expandable': False, 'frames': [],
     'blocks': [blk(base + 256 * MB, MB, 'active_allocated', fr[3]),
                blk(base + 256 * MB, MB, 'active_allocated', fr[4]),
                blk(base + 257 * MB, 3 * MB, 'inactive', [])]},
]
# device 1: its clock goes back (clocks are not promised to be monotonic)
tr1 = []
seg3 = base + 1024 * MB
t = t0 + 5
for i in range(120):
    t += random.choice((-3, 0, 0, 1, 4))
    slot = seg3 + random.randrange(10) * MB
    action = random.choice(('alloc', 'alloc', 'free_completed'))
    tr1.append(ev(action, slot, random.choice((512, 8192, MB)), t, stream=random.randrange(2)))
segs.append({'device': 1, 'address': seg3, 'total_size': 16 * MB, 'allocated_size': 0, 'active_size': 0,
             'requested_size': 0, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
             'is_expandable': False, 'frames': [], 'blocks': [blk(seg3, 16 * MB, 'inactive', [])]})
# device 2: two blocks kept from the start (a model's weights), and two
# from the middle, among 1,500 that live a microsecond or two
tr2 = []
seg4 = base + 2048 * MB
t = t0 + 2
for k in range(2):
    tr2.append(ev('alloc', seg4 + k * 4 * MB, 4 * MB, t))
for i in range(1500):
    slot = seg4 + 8 * MB + random.randrange(8) * MB
    if i in (600, 900):
        # kept too, from the middle on
        tr2.append(ev('alloc', base + 3072 * MB + i * MB, MB, t))
    tr2.append(ev('alloc', slot, 4096, t))
    t += random.choice((1, 2, 3))
    tr2.append(ev('free_completed', slot, 4096, t))
segs.append({'device': 2, 'address': seg4, 'total_size': 16 * MB, 'allocated_size': 0, 'active_size': 0,
             'requested_size': 0, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
             'is_expandable': False, 'frames': [],
             'blocks': [blk(seg4, 4 * MB, 'active_allocated', fr[0]), blk(seg4 + 4 * MB, 4 * MB, 'active_allocated', fr[1]),
                        blk(seg4 + 8 * MB, 8 * MB, 'inactive', [])]})
snap = {'segments': segs, 'device_traces': [tr, tr1, tr2], 'allocator_settings': {'expandable_segments': False},
        'external_annotations': []}
import sys
with open(sys.argv[1], 'wb') as f:
    pickle.dump(snap, f, protocol=4)
print(len(tr), 'entries')
