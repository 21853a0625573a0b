#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every icon the windows name (icon-name properties of ui/, "*-symbolic"
# strings of src/) is in the Adwaita icon theme of the system it runs on,
# GTK's own icons, or the application's resources (ui/kinescope.gresource.xml
# under icons/): GTK draws a missing one as its "image missing" icon, as it
# did for utilities-system-monitor-symbolic, which Adwaita 43 (Debian 12)
# no longer has.
#
# Usage: check-icons.py SOURCE_ROOT
# Output: TAP.

import os
import re
import sys
import xml.etree.ElementTree as ET

from ks_tap import finish, ok, skip

root = sys.argv[1]
THEMES = ['/usr/share/icons/Adwaita', '/usr/share/icons/hicolor']
UI_ICON = re.compile(r'<property name="icon[-_]name">([^<]+)</property>')
C_ICON = re.compile(r'"([a-z0-9][a-z0-9-]*-symbolic)"')


def used_icons():
    names = {}
    for top, pattern in (('ui', UI_ICON), ('src', C_ICON)):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith(('.ui', '.c')):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding='utf-8') as fh:
                    for name in pattern.findall(fh.read()):
                        names.setdefault(name.strip(), os.path.relpath(path, root))
    return names


def resource_icons():
    tree = ET.parse(os.path.join(root, 'ui', 'kinescope.gresource.xml'))
    names = set()
    for f in tree.iter('file'):
        alias = f.get('alias') or f.text
        if alias.startswith('icons/'):
            names.add(os.path.splitext(os.path.basename(alias))[0])
    return names


def theme_icons():
    names = set()
    for theme in THEMES:
        for _, _, files in os.walk(theme):
            for f in files:
                base, ext = os.path.splitext(f)
                if ext in ('.svg', '.png'):
                    names.add(base)
    return names


if not os.path.isdir(THEMES[0]):
    skip('no Adwaita icon theme in %s' % THEMES[0])
    finish()

have = theme_icons() | resource_icons()
used = used_icons()
ok(len(used) >= 10, 'icon names found in ui/ and src/ (%d)' % len(used))
for name, where in sorted(used.items()):
    ok(name in have, '%s (%s) is in Adwaita or the resources' % (name, where),
       'ship it under icons/ in ui/kinescope.gresource.xml')
finish()
