#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The blocks of a memory snapshot (ks-memory-blocks.h), computed from the
pickle with Python's own reader, independently of Kinescope, for
test-render-memsnap's /render-memsnap/blocks-reference:

    memory-blocks-reference.py SNAPSHOT.pickle

Per device with history, in the order of ks_memory_blocks_get():
  dev DEVICE end END long LONG_NS
  b START END ADDR SIZE STACK STREAM FREED MAX_END     by start, address, rank
                                  (MAX_END: of the blocks so far not long)
  s START END ADDR SIZE STREAM FREED                   segments, the same order
  n ADDR SIZE OFFSET                                   bands by address
  m TIME ENTRY                                         segment events, ooms
STACK is the text of the allocation's frames, innermost first, joined by
" ← " ("-" for none): the ids are Kinescope's. Times are ns from the trace's start: the first event that
becomes one (an alloc, a free_completed, a segment event, an oom)."""

import pickle
import sys

MAX_TIME_US = (1 << 62) // 1000
BLOCK = ('alloc', 'free_requested', 'free_completed', 'free')


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError('no classes in a snapshot')


def stack_text(frames):
    if not frames:
        return '-'
    return ' \u2190 '.join('%s (%s:%d)' % (f.get('name', ''), f.get('filename', ''), f.get('line', 0))
                       for f in frames if isinstance(f, dict))


def clamp_size(addr, size):
    return min(max(0, size), min((1 << 64) - 1 - addr, (1 << 63) - 1))


def main():
    with open(sys.argv[1], 'rb') as f:
        snap = DataOnly(f).load()
    traces = snap.get('device_traces', [])
    times = []
    for tr in traces:
        for e in tr:
            a = 'free_completed' if e['action'] == 'free' else e['action']
            if a in ('alloc', 'free_completed', 'segment_alloc', 'segment_free', 'segment_map',
                     'segment_unmap', 'oom'):
                times.append(min(max(e['time_us'], 0), MAX_TIME_US) * 1000)
    origin, end = min(times), max(times) - min(times)
    segs_by_dev = {}
    for s in snap['segments']:
        segs_by_dev.setdefault(s['device'], []).append(s)

    for dev, tr in enumerate(traces):
        if not tr:
            continue
        n = len(tr)
        entries = []
        for e in tr:
            a = 'free_completed' if e['action'] == 'free' else e['action']
            size = e.get('size', 0)
            if a in BLOCK:
                size = max(size + 511, 512) // 512 * 512
            entries.append(dict(action=a, addr=e.get('addr', 0), size=size, stream=e.get('stream', 0),
                                t=min(max(e['time_us'], 0), MAX_TIME_US) * 1000 - origin,
                                stack=stack_text(e.get('frames'))))

        def pair(opens, closes):
            out, open_at = [], {}
            for i, e in enumerate(entries):
                if e['action'] in opens:
                    if e['addr'] in open_at:
                        o = open_at[e['addr']]
                        out.append((o['t'], e['t'], o, True, True, i))
                    open_at[e['addr']] = dict(e, entry=i)
                elif e['action'] in closes:
                    o = open_at.pop(e['addr'], None)
                    if o is not None:
                        out.append((o['t'], e['t'], o, True, True, i))
                    else:
                        out.append((min(0, e['t']), e['t'], e, False, True, i))
            for o in open_at.values():
                out.append((o['t'], max(end, o['t']), o, True, False, n + o['entry']))
            seen = {e['addr'] for e in entries if e['action'] in opens or e['action'] in closes}
            return [dict(start=s, end=max(s, t), addr=o['addr'], size=clamp_size(o['addr'], o['size']),
                         stack=o['stack'] if with_stack else '-', stream=o['stream'], freed=freed, rank=r)
                    for s, t, o, with_stack, freed, r in out], seen

        blocks, block_addrs = pair(('alloc',), ('free_completed',))
        segments, segment_addrs = pair(('segment_alloc', 'segment_map'), ('segment_free', 'segment_unmap'))
        rank = 2 * n
        for s in sorted(segs_by_dev.get(dev, []), key=lambda s: s['address']):
            if s['address'] not in segment_addrs:
                segments.append(dict(start=0, end=end, addr=s['address'],
                                     size=clamp_size(s['address'], s['total_size']), stack='-',
                                     stream=s.get('stream', 0), freed=False, rank=rank))
                rank += 1
            at = s['address']
            for b in sorted(s['blocks'], key=lambda b: b.get('address', 0)):
                addr = b.get('address', at)
                at = addr + b['size']
                if b['state'] != 'inactive' and addr not in block_addrs:
                    blocks.append(dict(start=0, end=end, addr=addr, size=clamp_size(addr, b['size']),
                                       stack=stack_text(b.get('frames')), stream=s.get('stream', 0),
                                       freed=False, rank=rank))
                    rank += 1
        order = lambda b: (b['start'], b['addr'], b['rank'])
        blocks.sort(key=order)
        segments.sort(key=order)

        # long blocks: over the power of two that all but one in 256 stay
        # under, and over a thousandth of the span
        counts = [0] * 64
        for b in blocks:
            counts[max(1, (b['end'] - b['start']).bit_length())] += 1
        k, seen = 0, 0
        while k < 63 and (seen + counts[k]) * 256 < len(blocks) * 255:
            seen += counts[k]
            k += 1
        long_ns = (1 << 63) - 1 if k >= 63 else 1 << k
        if blocks:
            long_ns = max(long_ns, (max(b['end'] for b in blocks) - min(b['start'] for b in blocks)) // 1000)

        print('dev %d end %d long %d' % (dev, end, long_ns))
        max_end = -(1 << 63)
        for b in blocks:
            if b['end'] - b['start'] <= long_ns:
                max_end = max(max_end, b['end'])
            print('b %d %d %d %d %s %d %d %d' % (b['start'], b['end'], b['addr'], b['size'], b['stack'],
                                                 b['stream'], b['freed'], max_end))
        for s in segments:
            print('s %d %d %d %d %d %d' % (s['start'], s['end'], s['addr'], s['size'], s['stream'], s['freed']))
        ranges = sorted((b['addr'], min(max(1, b['size']), (1 << 64) - 1 - b['addr'])) for b in segments + blocks)
        bands, span = [], 0
        for addr, size in ranges:
            if bands and addr <= bands[-1][0] + bands[-1][1]:
                grown = max(bands[-1][0] + bands[-1][1], addr + size)
                span += grown - (bands[-1][0] + bands[-1][1])
                bands[-1][1] = grown - bands[-1][0]
            else:
                bands.append([addr, size, span])
                span += size
        for addr, size, offset in bands:
            print('n %d %d %d' % (addr, size, offset))
        for i, e in enumerate(entries):
            if e['action'] in ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap', 'oom'):
                print('m %d %d' % (e['t'], i))


main()
