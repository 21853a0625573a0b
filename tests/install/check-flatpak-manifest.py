#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Checks flatpak/org.kinescope.Kinescope.json: the keys flatpak-builder needs,
# the permissions a profiler needs, every source pinned (git tag + commit id,
# url + sha256, or a patch beside the manifest), the app built from this tree with meson; then, when
# flatpak-builder is installed, that it parses the manifest without a warning.
#
# Usage: check-flatpak-manifest.py SOURCE_ROOT

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
path = os.path.abspath(os.path.join(root, 'flatpak', 'org.kinescope.Kinescope.json'))
errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)


with open(path, encoding='utf-8') as f:
    manifest = json.load(f)

for key, kind in (('id', str), ('runtime', str), ('runtime-version', str), ('sdk', str),
                  ('command', str), ('finish-args', list), ('modules', list)):
    need(isinstance(manifest.get(key), kind), 'missing or wrong type: %s' % key)

need(manifest.get('id') == 'org.kinescope.Kinescope', 'id is not org.kinescope.Kinescope')
need(manifest.get('runtime') == 'org.gnome.Platform', 'runtime is not org.gnome.Platform')
need(manifest.get('sdk') == 'org.gnome.Sdk', 'sdk is not org.gnome.Sdk')
need(re.fullmatch(r'\d+', manifest.get('runtime-version', '')) is not None,
     'runtime-version is not a stable GNOME release')
need(manifest.get('command') == 'kinescope', 'command is not kinescope')

args = manifest.get('finish-args', [])
for perm in ('--share=ipc', '--socket=wayland', '--socket=fallback-x11', '--device=dri',
             '--talk-name=org.freedesktop.Flatpak'):
    need(perm in args, 'finish-args lacks ' + perm)
need(any(a in args for a in ('--filesystem=host', '--filesystem=home')),
     'finish-args gives no access to trace files (--filesystem=host or home)')
need('--socket=x11' not in args, 'use --socket=fallback-x11, not --socket=x11')

names = []
for module in manifest.get('modules', []):
    if isinstance(module, str):
        errors.append('module given as a file name: %s' % module)
        continue
    name = module.get('name')
    names.append(name)
    need(isinstance(name, str) and name, 'a module has no name')
    need(module.get('buildsystem') in ('meson', 'cmake', 'cmake-ninja', 'autotools', 'simple',
                                       'qmake'), '%s: unknown buildsystem' % name)
    sources = module.get('sources', [])
    need(sources, '%s: no sources' % name)
    for src in sources:
        t = src.get('type')
        if t == 'git':
            need(re.fullmatch(r'https://\S+\.git', src.get('url', '')) is not None,
                 '%s: git url is not https' % name)
            need(isinstance(src.get('tag'), str), '%s: git source without tag' % name)
            need(re.fullmatch(r'[0-9a-f]{40}', src.get('commit', '')) is not None,
                 '%s: git source not pinned to a commit id' % name)
        elif t in ('archive', 'file'):
            need(src.get('url', '').startswith('https://'), '%s: url is not https' % name)
            need(re.fullmatch(r'[0-9a-f]{64}', src.get('sha256', '')) is not None,
                 '%s: %s source without sha256' % (name, t))
        elif t == 'patch':
            # Patches ship beside the manifest, so they are pinned with it.
            paths = src.get('paths', [src['path']] if 'path' in src else [])
            need(paths, '%s: patch source without path' % name)
            for p in paths:
                need(os.path.isfile(os.path.join(os.path.dirname(path), p)),
                     '%s: patch %s is not beside the manifest' % (name, p))
        elif t == 'dir':
            d = os.path.normpath(os.path.join(os.path.dirname(path), src.get('path', '')))
            need(os.path.isfile(os.path.join(d, 'meson.build')),
                 '%s: dir source %s has no meson.build' % (name, d))
        else:
            errors.append('%s: unexpected source type %r' % (name, t))

need(names and names[-1] == 'kinescope', 'the app is not the last module')
need('yajl' in names, 'yajl (not in the GNOME runtime) is not built')
app = manifest['modules'][-1] if manifest.get('modules') else {}
need(app.get('buildsystem') == 'meson', 'the app is not built with meson')
# The window points a host kinescope-cli at app-path/lib/kinescope.
need('-Dlibdir=lib' in app.get('config-opts', []),
     'kinescope: no -Dlibdir=lib, so the collector may not be in app-path/lib/kinescope')

# Every -Dname=value of the app is an option of this project (or a meson
# built-in one), with a value it accepts.
with open(os.path.join(root, 'meson_options.txt'), encoding='utf-8') as f:
    options_text = f.read()
project_options = dict(re.findall(r"option\('([^']+)',\s*type:\s*'([^']+)'", options_text))
builtin = {'buildtype', 'prefix', 'libdir', 'b_lto', 'b_ndebug', 'optimization', 'debug'}
for opt in app.get('config-opts', []):
    m = re.fullmatch(r'-D([A-Za-z0-9_]+)=(.*)', opt)
    if not m:
        errors.append('kinescope: config-opt %s is not -Dname=value' % opt)
        continue
    name, value = m.groups()
    if name in builtin:
        continue
    kind = project_options.get(name)
    need(kind is not None, 'kinescope: -D%s is not an option of meson_options.txt' % name)
    if kind == 'feature':
        need(value in ('enabled', 'disabled', 'auto'), 'kinescope: -D%s=%s is not a feature value' % (name, value))
    elif kind == 'boolean':
        need(value in ('true', 'false'), 'kinescope: -D%s=%s is not a boolean' % (name, value))

flatpak_builder = shutil.which('flatpak-builder')
if flatpak_builder:
    # flatpak-builder makes its state folder in the working directory.
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([flatpak_builder, '--show-manifest', path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=tmp)
    need(p.returncode == 0, 'flatpak-builder --show-manifest failed: ' + p.stderr)
    need('WARNING' not in p.stderr and 'CRITICAL' not in p.stderr,
         'flatpak-builder --show-manifest warns:\n' + p.stderr)
    try:
        shown = json.loads(p.stdout)
        need(shown.get('id') == manifest.get('id') and
             len(shown.get('modules', [])) == len(manifest.get('modules', [])),
             'flatpak-builder read a different manifest')
    except ValueError:
        errors.append('flatpak-builder --show-manifest printed no JSON')
    print('flatpak-builder --show-manifest: parsed %d modules' % len(names))
else:
    print('flatpak-builder not installed: checked the manifest structure only')

for e in errors:
    print('error: ' + e)
sys.exit(1 if errors else 0)
