#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Python stacks read from outside the process, on this machine's python3
# (the frame layouts of CPython 3.11 and 3.12 are the recorder's own: this
# checks the one CI cannot, 3.12): the CI program of
# tests/collector/python/spin-sleep.py (one thread spinning in pure
# Python, one asleep in time.sleep) at 1000 Hz, and a short train.py GPT
# run, whose stacks must name train.py's functions.
#
#   tests/gpu/python-outside-check.sh OUTDIR
#
# Writes OUTDIR/python-outside.txt (PASS/FAIL lines and the numbers
# behind them) and the recordings. Needs $KCLI (kinescope-cli) and
# $KINESCOPE_INJECT_DIR as tests/gpu/README.md says; about a minute.
set -u
OUT=${1:-/tmp/kinescope-outside}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
REPORT="$OUT/python-outside.txt"
: > "$REPORT"

$PY - "$KCLI" "$HERE" "$OUT" "$PY" <<'EOF' 2>&1 | tee -a "$REPORT"
import json, os, sqlite3, subprocess, sys

kcli, here, out, py = sys.argv[1:5]
program = os.path.join(here, '..', 'collector', 'python', 'spin-sleep.py')
failed = False


def check(ok, what):
    global failed
    failed |= not ok
    print('%s %s' % ('PASS' if ok else 'FAIL', what))


print('python', sys.version.split()[0], 'at', sys.executable)
path = os.path.join(out, 'spin-sleep.kscope')
facts = os.path.join(out, 'spin-sleep.txt')
r = subprocess.run([kcli, 'record', '-f', '-t', 'nvtx', '-o', path, '--', py, program, '1.5', facts],
                   capture_output=True, text=True)
check(r.returncode == 0, 'recorded spin-sleep.py (exit %d)' % r.returncode)
start, end, main_tid, sleeper_tid = map(int, open(facts).read().split())
db = sqlite3.connect(path)
q = lambda sql, *a: db.execute(sql, a).fetchone()[0]
has_diag = q("SELECT COUNT(*) FROM sqlite_master WHERE name = 'KS_DIAGNOSTICS'")
diags = db.execute("SELECT text FROM KS_DIAGNOSTICS WHERE source = 'python'").fetchall() if has_diag else []
for (text,) in diags:
    print('  diagnostic:', text)
check(not diags and q('SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE waiting IS NULL') == 0,
      'stacks read from outside (no python diagnostic, every sample running or waiting)')
names = dict(db.execute('SELECT tid, name FROM KS_THREADS').fetchall())
check(names.get(main_tid) == 'MainThread' and names.get(sleeper_tid) == 'sleeper',
      'thread names: %r' % {main_tid: names.get(main_tid), sleeper_tid: names.get(sleeper_tid)})


def count(tid, function, waiting):
    return q('SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId '
             'AND c.stackDepth = 0 JOIN StringIds f ON f.id = c.symbol JOIN KS_THREADS t '
             'ON t.globalTid = e.globalTid WHERE t.tid = ? AND f.value = ? AND e.waiting = ?',
             tid, function, waiting)


seconds = (end - start) / 1e9
spin = count(main_tid, 'spin', 0)
check(spin >= 0.9 * 1000 * seconds, 'spinning thread: %d running samples in spin() over %.3f s (%.0f Hz)'
      % (spin, seconds, spin / seconds))
waiting, running = count(sleeper_tid, 'sleeper', 1), count(sleeper_tid, 'sleeper', 0)
check(waiting >= 0.9 * 1000 * seconds and running * 10 < waiting,
      'sleeping thread: %d waiting, %d running samples in sleeper()' % (waiting, running))
info = json.loads(subprocess.run([kcli, 'info', '--format', 'json', path], capture_output=True,
                                 text=True).stdout)
for t in info.get('python_sampling', []):
    print('  info: %s tid %d: %d samples, %d waiting, %.1f Hz'
          % (t['thread'], t['tid'], t['samples'], t['waiting'], t['rate_hz']))

# a training loop: its functions in the samples
path = os.path.join(out, 'gpt.kscope')
r = subprocess.run([kcli, 'record', '-f', '-o', path, '--', py, os.path.join(here, 'train.py'),
                    '--model', 'gpt', '--width', '512', '--batch', '32', '--steps', '60',
                    '--result', os.path.join(out, 'gpt.json')], capture_output=True, text=True)
check(r.returncode == 0, 'recorded train.py --model gpt (exit %d)' % r.returncode)
db = sqlite3.connect(path)
has_diag = q("SELECT COUNT(*) FROM sqlite_master WHERE name = 'KS_DIAGNOSTICS'")
diags = db.execute("SELECT text FROM KS_DIAGNOSTICS WHERE source = 'python'").fetchall() if has_diag else []
for (text,) in diags:
    print('  diagnostic:', text)
frames = q("SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId "
           "JOIN StringIds m ON m.id = c.module WHERE m.value LIKE '%train.py'")
total = q('SELECT COUNT(*) FROM COMPOSITE_EVENTS')
outside = q('SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE waiting IS NOT NULL')
check(total > 0 and outside == total and frames > 0,
      'train.py: %d samples, %d read from outside, %d frames in train.py' % (total, outside, frames))
top = db.execute("SELECT f.value, m.value, c.lineNumber, COUNT(*) FROM COMPOSITE_EVENTS e "
                 "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                 "JOIN StringIds f ON f.id = c.symbol JOIN StringIds m ON m.id = c.module "
                 "GROUP BY 1, 2, 3 ORDER BY 4 DESC LIMIT 8").fetchall()
for function, module, line, n in top:
    print('  innermost: %6d %s %s:%s' % (n, function, module, line))
print('RESULT', 'FAIL' if failed else 'PASS')
sys.exit(1 if failed else 0)
EOF
