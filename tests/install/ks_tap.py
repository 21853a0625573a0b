# SPDX-License-Identifier: GPL-3.0-or-later
#
# TAP output for the Python tests of tests/install: record results with
# ok(), then finish() prints them and exits 1 if any failed.

import sys

results = []


def ok(cond, what, detail=''):
    results.append((bool(cond), what, detail))
    return bool(cond)


def skip(what):
    results.append((True, what + ' # SKIP', ''))


def finish():
    print('1..%d' % len(results))
    failed = 0
    for i, (good, what, detail) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if good else 'not ok', i, what))
        if not good:
            failed += 1
            for line in detail.strip().splitlines():
                print('# ' + line)
    sys.exit(1 if failed else 0)
