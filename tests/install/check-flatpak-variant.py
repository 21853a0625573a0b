#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# build-aux/flatpak-variant.py on the real manifest: the variant keeps
# every module, build option and permission, swaps the runtime for the
# Debian 12 one and each downloaded source for the given local one, keeps
# the local sources (the app's folder, patches) with absolute paths, and
# refuses a replacement list that misses a module or names an unknown one.
#
# Usage: check-flatpak-variant.py SOURCE_ROOT

import copy
import json
import os
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
manifest_path = os.path.join(root, 'flatpak', 'org.kinescope.Kinescope.json')
script = os.path.join(root, 'build-aux', 'flatpak-variant.py')
errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)


with open(manifest_path, encoding='utf-8') as f:
    real = json.load(f)

downloading = [m['name'] for m in real['modules'] if any('url' in s for s in m['sources'])]


def run(local, tmp):
    sources = os.path.join(tmp, 'sources.json')
    output = os.path.join(tmp, 'variant.json')
    with open(sources, 'w', encoding='utf-8') as f:
        json.dump(local, f)
    if os.path.exists(output):
        os.unlink(output)
    p = subprocess.run([sys.executable, script, manifest_path, sources, output],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    variant = None
    if os.path.exists(output):
        with open(output, encoding='utf-8') as f:
            variant = json.load(f)
    return p, variant


with tempfile.TemporaryDirectory() as tmp:
    local = {name: [{'type': 'archive', 'path': '/srv/%s.tar.gz' % name, 'sha256': '%064d' % i}]
             for i, name in enumerate(downloading)}
    p, variant = run(local, tmp)
    need(p.returncode == 0 and variant is not None, 'variant failed: ' + p.stderr)
    if variant is not None:
        need(variant['runtime'] == 'org.kinescope.Debian12.Platform', 'runtime not replaced')
        need(variant['sdk'] == 'org.kinescope.Debian12.Sdk', 'sdk not replaced')
        need(variant['runtime-version'] == '12', 'runtime-version not replaced')
        for key in ('id', 'command', 'finish-args', 'build-options', 'cleanup'):
            need(variant.get(key) == real.get(key), '%s differs from the real manifest' % key)
        need([m['name'] for m in variant['modules']] == [m['name'] for m in real['modules']],
             'the modules differ from the real manifest')
        for mine, theirs in zip(variant['modules'], real['modules']):
            name = theirs['name']
            a, b = copy.deepcopy(mine), copy.deepcopy(theirs)
            for m in (a, b):
                m.pop('sources')
                m.pop('x-comment-sources', None)
            need(a == b, '%s: build settings differ from the real manifest' % name)
            need(not any('url' in s for s in mine['sources']), '%s: still downloads' % name)
            kept = [s for s in theirs['sources'] if 'url' not in s]
            expected = (local.get(name, []) if name in downloading else []) + [
                dict(s, **({'path': os.path.normpath(os.path.join(root, 'flatpak', s['path']))}
                           if 'path' in s else {}),
                     **({'paths': [os.path.join(root, 'flatpak', x) for x in s['paths']]}
                        if 'paths' in s else {}))
                for s in kept]
            need(mine['sources'] == expected, '%s: sources %r, not %r' % (name, mine['sources'], expected))
            for s in mine['sources'][len(local.get(name, [])):]:
                for path in s.get('paths', []) + ([s['path']] if 'path' in s else []):
                    need(os.path.exists(path), '%s: %s does not exist' % (name, path))

    # A module the list forgets stops the variant; so does one it invents.
    for broken, what in ((dict(list(local.items())[1:]), 'a missing module'),
                         (dict(local, nosuch=[{'type': 'archive', 'path': '/x', 'sha256': '0' * 64}]),
                          'an unknown module')):
        p, variant = run(broken, tmp)
        need(p.returncode == 1 and variant is None, 'variant accepted %s' % what)
        need('flatpak-variant: ' in p.stderr, 'no message for %s' % what)

print('flatpak-variant: %d modules, %d with local replacements' % (len(real['modules']), len(downloading)))
for e in errors:
    print('error: ' + e)
sys.exit(1 if errors else 0)
