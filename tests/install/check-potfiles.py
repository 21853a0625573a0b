#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# po/POTFILES.in must list every file with translatable strings (C sources
# using _(), N_(), C_(), NC_(), g_dngettext/ngettext, .ui files with
# translatable="yes", data files merged through gettext), be sorted, and name
# only files that exist.
#
# Usage: check-potfiles.py SOURCE_ROOT

import os
import re
import sys

root = sys.argv[1]
C_MARKERS = re.compile(r'(?<![A-Za-z0-9_])(_|N_|C_|NC_|ngettext|g_dngettext)\s*\(\s*"')
UI_MARKER = re.compile(r'translatable\s*=\s*"(yes|true|1)"')
SCAN_DIRS = ['src', 'ui', 'data']
DATA_SUFFIXES = ('.desktop.in', '.metainfo.xml.in', '.gschema.xml', '.xml.in')

with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
    listed = [l.strip() for l in f if l.strip() and not l.startswith('#')]

errors = []
if listed != sorted(listed):
    errors.append('po/POTFILES.in is not sorted')
for dup in sorted({l for l in listed if listed.count(l) > 1}):
    errors.append('listed twice in po/POTFILES.in: ' + dup)
for l in listed:
    if not os.path.isfile(os.path.join(root, l)):
        errors.append('listed in po/POTFILES.in but missing: ' + l)

needed = []
for top in SCAN_DIRS:
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if name.endswith(('.c', '.h')):
                with open(path, encoding='utf-8', errors='replace') as f:
                    text = f.read()
                # Ignore the macro definitions in comments and the marker in
                # string literals such as format descriptions.
                text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
                if C_MARKERS.search(text):
                    needed.append(rel)
            elif name.endswith('.ui'):
                with open(path, encoding='utf-8', errors='replace') as f:
                    if UI_MARKER.search(f.read()):
                        needed.append(rel)
            elif top == 'data' and name.endswith(DATA_SUFFIXES):
                needed.append(rel)

for rel in needed:
    if rel not in listed:
        errors.append('has translatable strings but is not in po/POTFILES.in: ' + rel)

print('%d files with translatable strings, %d listed' % (len(needed), len(listed)))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
