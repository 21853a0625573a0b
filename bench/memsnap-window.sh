#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# memsnap-window.sh OUTDIR: opening a large PyTorch memory snapshot as the
# window does (docs/performance.md, "GPU memory snapshots"), on two cores
# of an otherwise idle machine (taskset -c 0,1: the 2-core machine of the
# goal "a 1 GB snapshot opens in under 10 s"), and on all cores.
#
#   KCLI=$PWD/_build/src/cli/kinescope-cli bench/memsnap-window.sh /tmp/ks-memsnap
#
# Generates a snapshot with bench/gen-memsnap.py (ENTRIES, default
# 7,250,000: 505 MB, half the 1 GB one, about 2 CPU minutes; 14,500,000
# is the 1 GB one and takes 4), then runs bench/ks-bench-memsnap-blocks
# (the loader's work, headless: timeline ready, analysis ready, and the
# blocks row's frames) and, where xvfb-run is installed, bench/ks-bench-open
# (the real window), under /usr/bin/time for CPU time and peak memory.
# The build is found from $KCLI (BUILD/src/cli/kinescope-cli) or
# $KS_BUILD_DIR. Writes OUTDIR/summary.txt and OUTDIR/*.txt (each run's
# whole output).

set -u
out=${1:?usage: memsnap-window.sh OUTDIR}
mkdir -p "$out"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${KS_BUILD_DIR:-}
if [ -z "$build" ] && [ -n "${KCLI:-}" ]; then
  build=$(cd "$(dirname "$KCLI")/../.." && pwd)
fi
entries=${ENTRIES:-7250000}
blocks="$build/bench/ks-bench-memsnap-blocks"
open="$build/bench/ks-bench-open"
summary="$out/summary.txt"
snap="$out/snap-$entries.pickle"

say () { echo "$*" | tee -a "$summary"; }
: > "$summary"

if [ -z "$build" ] || [ ! -x "$blocks" ]; then
  say "NOT RUN: no bench/ks-bench-memsnap-blocks under '$build' (set KCLI or KS_BUILD_DIR)"
  exit 1
fi

say "memsnap-window.sh, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s)
if ! python3 "$src/bench/gen-memsnap.py" "$entries" "$snap" > "$out/gen.txt" 2>&1; then
  say "NOT RUN: gen-memsnap.py failed: $(tail -1 "$out/gen.txt")"
  exit 1
fi
say "snapshot: $entries trace entries, $(stat -c %s "$snap") bytes, generated in $(( $(date +%s) - t0 )) s"
say "1 GB is 14,500,000 entries: times grow about linearly with the entries (docs/performance.md)"
[ -x /usr/bin/time ] || say "note: no /usr/bin/time here: no peak memory, the benches' own times only"
command -v taskset > /dev/null 2>&1 || { say "NOT RUN: no taskset to pin the runs to two cores"; exit 1; }

# One line per run: the bench's own lines, then /usr/bin/time's (where
# it is installed: the peak memory comes from it).
run () {
  name=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "time: %e s wall, %U s user, %S s system, %M KB peak" "$@" > "$out/$name.txt" 2>&1
  else
    "$@" > "$out/$name.txt" 2>&1
  fi
  status=$?
  say ""
  say "== $name (exit $status): $*"
  grep -E "from the start|^load|^blocks|^memory series|^analysis|view panned|whole snapshot|^time:|first-frame-ms|analysis-shown-ms|longest-stall-ms|^load-ms" \
    "$out/$name.txt" | tee -a "$summary"
}

# the page cache warm, as when a file is opened a second time
cat "$snap" > /dev/null
run blocks-2cores taskset -c 0,1 "$blocks" "$snap"
run blocks-2cores-sequential taskset -c 0,1 "$blocks" --sequential "$snap"
run blocks-allcores "$blocks" "$snap"

if [ -x "$open" ] && command -v xvfb-run > /dev/null 2>&1; then
  bus=""
  command -v dbus-run-session > /dev/null 2>&1 && bus="dbus-run-session --"
  GSK_RENDERER=cairo NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory \
    run open-2cores timeout 200 $bus xvfb-run -a -s "-screen 0 1920x1080x24" taskset -c 0,1 "$open" "$snap"
  say "(ks-bench-open: first-frame-ms is launch to the first frame with the timeline, analysis-shown-ms"
  say " to the analysis on every page, both after its own headless load-ms; longest-stall-ms is the"
  say " longest time the window's main thread did not get back to its main loop)"
else
  say ""
  say "ks-bench-open not run: no $open (a GUI build) or no xvfb-run"
fi

python3 - "$out" "$entries" <<'PY' | tee -a "$summary"
import re, sys, os
out, entries = sys.argv[1], int(sys.argv[2])
def wall(name, key):
    try:
        text = open(os.path.join(out, name + '.txt')).read()
    except OSError:
        return None
    m = re.search(r'from the start: %s\s+wall\s+(\d+) ms' % key, text)
    return int(m.group(1)) if m else None
t, a = wall('blocks-2cores', 'timeline'), wall('blocks-2cores', 'analysis')
scale = 14500000 / entries
if t is not None and a is not None:
    print('\ntwo cores, headless, this snapshot: timeline ready %.1f s, analysis ready %.1f s' % (t / 1000, a / 1000))
    print('scaled to 1 GB (x%.2f, linear): timeline %.1f s, analysis %.1f s'
          % (scale, t * scale / 1000, a * scale / 1000))
try:
    text = open(os.path.join(out, 'open-2cores.txt')).read()
    shown = int(re.search(r'analysis-shown-ms (\d+)', text).group(1))
    frame = int(re.search(r'^first-frame-ms (\d+)', text, re.M).group(1))
    window = int(re.search(r'window-first-frame-ms (\d+)', text).group(1))
except (OSError, AttributeError):
    print('no window run: the goal is judged on the headless figures above')
    sys.exit(0)
print('two cores, the window, this snapshot: timeline drawn %.1f s, analysis shown %.1f s after launch'
      % (frame / 1000, shown / 1000))
def scaled(ms):
    # GTK's start-up (to the window's first frame) does not grow with the file
    return (window + (ms - window) * scale) / 1000
print('scaled to 1 GB (x%.2f, linear past GTK\'s start-up of %.1f s): timeline %.1f s, analysis shown %.1f s; '
      'goal "opens in under 10 s" (the timeline drawn): %s'
      % (scale, window / 1000, scaled(frame), scaled(shown), 'MET' if scaled(frame) < 10 else 'NOT MET'))
PY
rm -f "$snap"
