#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# docs/architecture.md is the map of the code: its "feature → files per
# layer" table must name every source file (src/**/*.c, src/**/*.h,
# ui/*.ui), and every file it names anywhere must exist. A name may stand
# for a pair: `ks-trace.[ch]` is ks-trace.c and ks-trace.h. Names are file
# names (they are unique across src/ and ui/) or paths below src/.
#
# Usage: check-architecture.py SOURCE_ROOT

import os
import re
import sys

root = sys.argv[1]
doc_path = os.path.join(root, 'docs', 'architecture.md')
with open(doc_path, encoding='utf-8') as f:
    doc = f.read()

sources = {}
for base in ('src', 'ui'):
    for dirpath, _, names in os.walk(os.path.join(root, base)):
        for name in names:
            if name.endswith(('.c', '.h')) and base == 'src' or name.endswith('.ui'):
                path = os.path.relpath(os.path.join(dirpath, name), root)
                sources.setdefault(name, []).append(path)

errors = []
for name, paths in sorted(sources.items()):
    if len(paths) > 1:
        errors.append('file name used twice, the map cannot tell them apart: ' + ', '.join(paths))

NAME = re.compile(r'[A-Za-z0-9_./+-]+?\.(?:\[ch\]|c|h|ui)(?![A-Za-z0-9_])')


def expand(token):
    if token.endswith('.[ch]'):
        return [token[:-4] + 'c', token[:-4] + 'h']
    return [token]


def spans(text):
    """The `code` spans of @text, line by line, outside ``` fences."""
    fenced = False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        if not fenced:
            yield from re.findall(r'`([^`]+)`', line)


def named_in(text):
    found = set()
    for span in spans(text):
        for token in re.split(r'[\s,]+', span):
            if NAME.fullmatch(token):
                found.update(expand(token))
    return found


def exists(token):
    base = os.path.basename(token)
    if base not in sources:
        return False
    return any(p.endswith(token) for p in sources[base])


for token in sorted(named_in(doc)):
    if not exists(token):
        errors.append('docs/architecture.md names a file that does not exist: ' + token)

heading = '## Feature → files per layer'
if heading not in doc:
    errors.append('docs/architecture.md has no "%s" section' % heading[3:])
    table = ''
else:
    table = doc.split(heading, 1)[1].split('\n## ', 1)[0]
in_table = {os.path.basename(t) for t in named_in(table)}
for name, paths in sorted(sources.items()):
    if name not in in_table:
        errors.append('missing from the feature table of docs/architecture.md: ' + paths[0])

for e in errors:
    print(e)
print('%d source files, %d named in the feature table' % (len(sources), len(in_table & set(sources))))
sys.exit(1 if errors else 0)
