#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Derives a local variant of flatpak/org.kinescope.Kinescope.json for
# machines that reach neither Flathub nor the modules' upstream URLs:
# the same modules, build options, finish-args and cleanup, with
#   - the runtime and SDK replaced by the ones build-aux/flatpak-runtime.sh
#     makes from Debian 12 packages (their id says so), and
#   - each module's downloaded sources replaced by local archives (Debian
#     source packages, or a vendored copy), given in SOURCES.
# Every module whose sources are downloaded must have a replacement, and
# every replacement a module: a module added to the manifest without one
# stops the variant instead of being dropped from it.
#
# Usage: flatpak-variant.py MANIFEST SOURCES OUTPUT
#   SOURCES: JSON {"module": [flatpak source, ...], ...}, replacing the
#   sources with a url; archive paths are absolute. The local sources of
#   MANIFEST (dir, patch) stay, their paths made absolute.

import json
import os
import sys

RUNTIME = 'org.kinescope.Debian12.Platform'
SDK = 'org.kinescope.Debian12.Sdk'
BRANCH = '12'


def main():
    manifest_path, sources_path, output = sys.argv[1:4]
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    with open(sources_path, encoding='utf-8') as f:
        local = json.load(f)

    errors = []
    manifest_dir = os.path.dirname(os.path.abspath(manifest_path))
    real_runtime = '%s//%s' % (manifest['runtime'], manifest['runtime-version'])
    manifest['runtime'] = RUNTIME
    manifest['sdk'] = SDK
    manifest['runtime-version'] = BRANCH
    manifest['x-comment-variant'] = (
        'Derived by build-aux/flatpak-variant.py from %s for a local check: '
        'runtime %s//%s (Debian 12 packages) in place of %s, module sources '
        'from Debian source packages or vendored copies.'
        % (os.path.basename(manifest_path), RUNTIME, BRANCH, real_runtime))

    used = set()
    for module in manifest['modules']:
        name = module['name']
        sources = module.get('sources', [])
        downloaded = [s for s in sources if 'url' in s]
        kept = [s for s in sources if 'url' not in s]
        # Local sources (the app's folder, patches) stay, found from here.
        for s in kept:
            if 'path' in s:
                s['path'] = os.path.normpath(os.path.join(manifest_dir, s['path']))
            if 'paths' in s:
                s['paths'] = [os.path.normpath(os.path.join(manifest_dir, p)) for p in s['paths']]
        if not downloaded:
            continue
        if not local.get(name):
            errors.append('%s: downloaded sources and no local replacement' % name)
            continue
        used.add(name)
        # The replacement first: patches apply to it.
        module['sources'] = local[name] + kept
        module['x-comment-sources'] = 'upstream: ' + ', '.join(
            s.get('url', '') + ('@' + s['tag'] if 'tag' in s else '') for s in downloaded)

    for name in sorted(set(local) - used):
        errors.append('%s: a local replacement for a module the manifest does not download' % name)
    if errors:
        for e in errors:
            print('flatpak-variant: ' + e, file=sys.stderr)
        return 1

    with open(output, 'w', encoding='utf-8') as f:
        json.dump(manifest, f, indent=4)
        f.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
