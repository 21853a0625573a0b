#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Every language in po/LINGUAS is complete: msgfmt --check passes, and it
# reports no fuzzy or untranslated message against the current template.
#
# Usage: check-po.py SOURCE_ROOT

import os
import re
import subprocess
import sys
import tempfile

root = sys.argv[1]
po_dir = os.path.join(root, 'po')
with open(os.path.join(po_dir, 'LINGUAS'), encoding='utf-8') as f:
    langs = [w for l in f if not l.startswith('#') for w in l.split()]

failed = False
with tempfile.TemporaryDirectory() as tmp:
    # Compare against a template extracted now, so strings added to the
    # sources since the catalogue was last updated count as untranslated.
    pot = os.path.join(tmp, 'kinescope.pot')
    subprocess.run(['xgettext', '--package-name=kinescope', '-p', tmp, '-o', 'kinescope.pot',
                    '-f', os.path.join(po_dir, 'POTFILES.in'), '-D', root,
                    '--from-code=UTF-8', '--add-comments', '-k_', '-kN_', '-kC_:1c,2',
                    '-kNC_:1c,2', '-kg_dngettext:2,3', '-kngettext:1,2',
                    '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
                    '--flag=g_string_printf:2:c-format',
                    '--flag=g_string_append_printf:2:c-format',
                    '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
                    '--flag=g_markup_printf_escaped:1:c-format'],
                   check=True)
    print('languages: ' + ' '.join(langs))
    for lang in langs:
        po = os.path.join(po_dir, lang + '.po')
        merged = os.path.join(tmp, lang + '.po')
        subprocess.run(['msgmerge', '--quiet', '--no-fuzzy-matching', '-o', merged, po, pot],
                       check=True)
        p = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, merged],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print('%s: %s' % (lang, p.stdout.strip()))
        if p.returncode != 0 or re.search(r'untranslated|fuzzy', p.stdout):
            failed = True
            # Name what is missing, so the failure says what to translate.
            p = subprocess.run(['msgattrib', '--untranslated', '--no-obsolete', merged],
                               stdout=subprocess.PIPE, text=True)
            missing = re.findall(r'^msgid "(.+)"$', p.stdout, flags=re.M)
            for m in missing[:40]:
                print('  untranslated: ' + m)
            p = subprocess.run(['msgattrib', '--only-fuzzy', '--no-obsolete', merged],
                               stdout=subprocess.PIPE, text=True)
            for m in re.findall(r'^msgid "(.+)"$', p.stdout, flags=re.M)[:40]:
                print('  fuzzy: ' + m)
sys.exit(1 if failed else 0)
