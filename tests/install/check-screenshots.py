#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every screenshot the AppStream metainfo names is in data/screenshots, is a
# PNG of the size the metainfo states, and shows something (many colours),
# and every PNG there is named by the metainfo. The tour in docs/screenshots
# has each side page in each of its sets (light, dark, zh_CN, 800x600).
#
# Usage: check-screenshots.py SOURCE_ROOT

import os
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

root = sys.argv[1]
shots = os.path.join(root, 'data', 'screenshots')
meta = ET.parse(os.path.join(root, 'data', 'org.kinescope.Kinescope.metainfo.xml.in'))
errors = []


def png_size(path):
    """Width and height from the PNG header alone."""
    with open(path, 'rb') as f:
        data = f.read(24)
    if data[:8] != b'\x89PNG\r\n\x1a\n' or data[12:16] != b'IHDR':
        raise ValueError('not a PNG')
    return struct.unpack('>II', data[16:24])


def png_info(path):
    """Width, height and the number of distinct pixel values (8-bit RGB/RGBA)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, ihdr = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    width, height, depth, color = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or color not in (2, 6):
        return width, height, None
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xff
        if y % 8 == 0:
            for x in range(0, stride, bpp * 4):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    return width, height, len(colours)


named = set()
images = meta.findall('./screenshots/screenshot/image')
if not images:
    errors.append('the metainfo has no screenshots')
for image in images:
    name = image.text.strip().rsplit('/', 1)[-1]
    named.add(name)
    path = os.path.join(shots, name)
    if not os.path.isfile(path):
        errors.append('%s: named by the metainfo but not in data/screenshots' % name)
        continue
    width, height, colours = png_info(path)
    if (str(width), str(height)) != (image.get('width'), image.get('height')):
        errors.append('%s: %dx%d, the metainfo says %sx%s' % (name, width, height,
                                                            image.get('width'), image.get('height')))
    if colours is not None and colours < 32:
        errors.append('%s: only %d colours, nothing drawn?' % (name, colours))
    print('%s: %dx%d, %s colours sampled' % (name, width, height, colours))

for name in sorted(os.listdir(shots)):
    if name.endswith('.png') and name not in named:
        errors.append('%s: in data/screenshots but not named by the metainfo' % name)

# The tour: the pages build-aux/ks-screenshot.c --tour takes, in the sets
# docs/screenshots/take.sh takes; the window content is the window less
# its 10-pixel client-side frame.
tour = os.path.join(root, 'docs', 'screenshots')
tour_sets = {'light': (1590, 890), 'dark': (1590, 890), 'zh_CN': (1590, 890), '800x600': (790, 590)}
tour_pages = ('summary', 'steps', 'gaps', 'operators', 'kernels', 'memory', 'ranks', 'communication', 'tensor-cores',
              'queue', 'memcpy-bandwidth', 'kernel-sequences', 'gpu-annotations', 'profiler-ranges', 'selection')
# Other inputs than the demo trace, in the light and Chinese sets: an
# nvidia-smi log, a rank folder, a before/after pair in the Compare view.
scenario_sets = ('light', 'zh_CN')
scenario_pages = ('nvsmi-summary', 'rank-folder-summary', 'rank-folder-steps', 'rank-folder-ranks',
                  'before-after-steps', 'before-after-compare')
for prefix in scenario_sets:
    for page in scenario_pages:
        name = '%s-%s.png' % (prefix, page)
        if not os.path.isfile(os.path.join(tour, name)):
            errors.append('docs/screenshots/%s: missing from the tour (docs/screenshots/take.sh)' % name)
for prefix, size in tour_sets.items():
    for page in tour_pages:
        name = '%s-%s.png' % (prefix, page)
        path = os.path.join(tour, name)
        if not os.path.isfile(path):
            errors.append('docs/screenshots/%s: missing from the tour (docs/screenshots/take.sh)' % name)
            continue
        # The header only: decoding two dozen of them in Python takes a minute.
        width, height = png_size(path)
        if (width, height) != size:
            errors.append('docs/screenshots/%s: %dx%d, not %dx%d' % (name, width, height, size[0], size[1]))
for name in sorted(os.listdir(tour)):
    # SET-PAGE.png; page names have dashes of their own, set names none
    if name.endswith('.png') and name.split('-', 1)[0] not in tour_sets:
        errors.append('docs/screenshots/%s: not a set of the tour' % name)
    elif name.endswith('.png') and name.split('-', 1)[1][:-len('.png')] not in tour_pages + scenario_pages:
        errors.append('docs/screenshots/%s: not a page of the tour' % name)

for e in errors:
    print('error: ' + e)
sys.exit(1 if errors else 0)
