#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# po/POTFILES.in must list every file with translatable strings (C sources
# using _(), N_(), C_(), NC_(), g_dngettext/ngettext, .ui files with
# translatable="yes", data files merged through gettext), be sorted, and name
# only files that exist. Translatable strings must not be built with GLib's
# format macros (G_GUINT64_FORMAT...): xgettext cuts the message there, so it
# can never be translated; the <inttypes.h> macros (PRIu64) work.
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

GLIB_FORMAT = re.compile(r'\bG_G(U?INT(8|16|32|64)|SIZE|SSIZE|OFFSET|INTPTR|UINTPTR)_FORMAT\b')
GETTEXT_CALL = re.compile(r'(?<![A-Za-z0-9_])(_|N_|C_|NC_|ngettext|g_dngettext)\s*\(')


def gettext_calls(text):
    """The text of each gettext call, up to its closing parenthesis."""
    for m in GETTEXT_CALL.finditer(text):
        depth, j, instr = 1, m.end(), False
        while j < len(text) and depth:
            c = text[j]
            if instr:
                if c == '\\':
                    j += 1
                elif c == '"':
                    instr = False
            elif c == '"':
                instr = True
            elif c == '(':
                depth += 1
            elif c == ')':
                depth -= 1
            j += 1
        yield text.count('\n', 0, m.start()) + 1, text[m.start():j]


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
                for line, call in gettext_calls(text):
                    # Only the message arguments: stop at the first
                    # argument after the string literals.
                    m = GLIB_FORMAT.search(call.split('),')[0])
                    if m:
                        errors.append('%s:%d: %s in a translatable string (use PRIu64 & co.)'
                                      % (rel, line, m.group(0)))
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
