#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# What build-aux/flatpak-check.sh reads back from files the sandboxed app
# wrote; each command exits 0 when the file says what it should, else
# prints why and exits 1.
#
#   png FILE MAX            a PNG of at most MAX pixels a side, not blank
#   osrt KSCOPE FUNCTION    the trace has OS runtime calls to FUNCTION
#   keyfile FILE KEY VALUE  the GSettings keyfile sets KEY to VALUE
#   xbel FILE URI           the recent-files list has URI

import configparser
import sqlite3
import struct
import sys
import zlib


def fail(msg):
    print(msg)
    return 1


def png_rows(path):
    """Width, height and the unfiltered rows of an 8-bit non-interlaced PNG."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, header = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError('unexpected PNG format (depth %d, color type %d)' % (depth, color))
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xff
            elif kind == 2:
                line[x] = (line[x] + b) & 0xff
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xff
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def check_png(path, size):
    width, height, channels, rows = png_rows(path)
    if not (0 < width <= int(size) and 0 < height <= int(size)):
        return fail('%s: %dx%d, not within %s' % (path, width, height, size))
    colours = set()
    for row in rows:
        for x in range(0, len(row), channels):
            colours.add(row[x:x + channels])
    if len(colours) < 3:
        return fail('%s: %d colours, nothing drawn' % (path, len(colours)))
    print('%s: %dx%d, %d colours' % (path, width, height, len(colours)))
    return 0


def check_osrt(path, function):
    db = sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    n = db.execute('SELECT count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId '
                   'WHERE s.value = ?', (function,)).fetchone()[0]
    if n == 0:
        return fail('%s: no %s calls in OSRT_API' % (path, function))
    print('%s: %d %s calls' % (path, n, function))
    return 0


def check_keyfile(path, key, value):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(path, encoding='utf-8')
    got = parser.get('org/kinescope/Kinescope', key, fallback=None)
    if got != value:
        return fail('%s: %s is %r, not %r' % (path, key, got, value))
    print('%s: %s=%s' % (path, key, got))
    return 0


def check_xbel(path, uri):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if ('href="%s"' % uri) not in text:
        return fail('%s does not list %s' % (path, uri))
    print('%s lists %s' % (path, uri))
    return 0


COMMANDS = {'png': check_png, 'osrt': check_osrt, 'keyfile': check_keyfile, 'xbel': check_xbel}

if __name__ == '__main__':
    try:
        sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:]))
    except (OSError, ValueError, sqlite3.Error) as e:
        sys.exit(fail('%s: %s' % (sys.argv[1], e)))
