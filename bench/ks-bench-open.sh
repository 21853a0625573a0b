#!/bin/sh
# ks-bench-open.sh OUTDIR: bench/ks-bench-open on the 137 MB GPT trace,
# five runs each with the renderer chosen by default, GTK's GL and its
# cairo renderer, on two cores of an
# otherwise idle machine (taskset -c 0,1: the "idle 2-core machine" of
# docs/performance.md, "Opening a trace in the window"), and on all
# cores. Needs xvfb-run and a build with the GUI. The build is found
# from $KCLI (BUILD/src/cli/kinescope-cli) or $KS_BUILD_DIR.
#
#   KCLI=$PWD/_build/src/cli/kinescope-cli bench/ks-bench-open.sh /tmp/ks-open
#
# Writes OUTDIR/summary.txt (min and median per setting, and whether the
# goals hold: first frame within 1.3x the headless load, longest stall
# at most 100 ms, from launch and once the timeline is drawn) and
# OUTDIR/runs-*.txt (every run's full output).
# RUNS (5) sets the runs per setting. About 4 minutes on an idle machine.

set -u
out=${1:?usage: ks-bench-open.sh OUTDIR}
mkdir -p "$out"
src=$(cd "$(dirname "$0")/.." && pwd)
build=${KS_BUILD_DIR:-}
if [ -z "$build" ] && [ -n "${KCLI:-}" ]; then
  build=$(cd "$(dirname "$KCLI")/../.." && pwd)
fi
bench="$build/bench/ks-bench-open"
gen="$build/bench/ks-gen-trace"
summary="$out/summary.txt"

say () { echo "$*" | tee -a "$summary"; }
: > "$summary"

if [ -z "$build" ] || [ ! -x "$bench" ] || [ ! -x "$gen" ]; then
  say "NOT RUN: no bench/ks-bench-open or bench/ks-gen-trace under '$build' (set KCLI or KS_BUILD_DIR to a GUI build)"
  exit 1
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
  say "NOT RUN: xvfb-run is not installed here; ks-bench-open needs a display"
  exit 1
fi

trace="$out/gpt137.json"
"$gen" --input "$src/tests/data/gpt_3steps.pt.trace.json.gz" --size-mb 137 "$trace" > "$out/gen.txt" 2>&1 || {
  say "NOT RUN: ks-gen-trace failed: $(tail -1 "$out/gen.txt")"
  exit 1
}

# Each run gets a session bus of its own with the accessibility bus
# already started, as a desktop session has it from login: otherwise the
# window's first accessible widget waits while the bus activates
# at-spi-bus-launcher (about 20 ms), which a user never sees.
bus=""
command -v dbus-run-session >/dev/null 2>&1 && bus="dbus-run-session -- sh -c"
a11y='gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.a11y.Bus.GetAddress >/dev/null 2>&1; exec "$@"'

say "ks-bench-open on $(basename "$trace") ($(stat -c %s "$trace") bytes), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$bus" ] && say "note: no dbus-run-session: GApplication starts dbus-launch at startup, a stall of its own"

for cores in 0,1 all; do
  for r in default gl cairo; do
    runs="$out/runs-$r-cores-$cores.txt"
    : > "$runs"
    pin=""
    [ "$cores" != all ] && pin="taskset -c $cores"
    for i in $(seq 1 "${RUNS:-5}"); do
      echo "== run $i" >> "$runs"
      # default: the renderer the application and GTK choose themselves
      renderer="GSK_RENDERER=$r"
      [ "$r" = default ] && renderer="-u GSK_RENDERER"
      if [ -n "$bus" ]; then
        env $renderer NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory \
          timeout 120 $bus "$a11y" sh xvfb-run -a -s "-screen 0 1920x1080x24" $pin "$bench" "$trace"
      else
        env $renderer NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory \
          timeout 120 xvfb-run -a -s "-screen 0 1920x1080x24" $pin "$bench" "$trace"
      fi 2>/dev/null | tr -d '\r' >> "$runs"
    done
    python3 - "$runs" "$r" "$cores" <<'EOF' | tee -a "$summary"
import re, statistics, sys
path, renderer, cores = sys.argv[1:]
runs, cur = [], None
for line in open(path):
    if line.startswith('== run'):
        cur = {}
        runs.append(cur)
        continue
    m = re.match(r'(first-frame-ms|load-ms|longest-stall-ms|longest-stall-after-first-frame-ms|'
                 r'window-first-frame-ms|analysis-shown-ms|window-first-frame-cpu-ms|first-frame-cpu-ms) (\d+)$',
                 line.strip())
    if m and cur is not None:
        cur[m.group(1)] = int(m.group(2))
    # the longest stall's own CPU time on the main thread
    m = re.match(r'stall-ms (\d+) at-ms \d+ \w+ cpu-ms (\d+)$', line.strip())
    if m and cur is not None and int(m.group(1)) >= cur.get('stall', (-1, 0))[0]:
        cur['stall'] = (int(m.group(1)), int(m.group(2)))
    m = re.match(r'window-loads (\d+) early (\d+) adopted (\d+)$', line.strip())
    if m and cur is not None:
        cur['loads'] = tuple(int(x) for x in m.groups())
ok = [r for r in runs if 'longest-stall-ms' in r]
label = 'renderer %s, cores %s' % (renderer, 'all' if cores == 'all' else cores)
if not ok:
    print('%s: no run finished (see %s)' % (label, path))
    sys.exit(0)
def mm(key):
    xs = [r[key] for r in ok]
    return '%d / %d' % (min(xs), statistics.median(xs))
ratios = [r['first-frame-ms'] / r['load-ms'] for r in ok]
stalls = [r['longest-stall-ms'] for r in ok]
after = [r.get('longest-stall-after-first-frame-ms', 0) for r in ok]
print('%s: %d runs (min / median): window first frame %s ms, first frame with rows %s ms, '
      'headless load %s ms, ratio %.2f / %.2f, longest stall %s ms, '
      'longest stall after the timeline is drawn %d / %d ms, analysis shown %s ms'
      % (label, len(ok), mm('window-first-frame-ms'), mm('first-frame-ms'), mm('load-ms'),
         min(ratios), statistics.median(ratios), mm('longest-stall-ms'),
         min(after), statistics.median(after), mm('analysis-shown-ms')))
# the main thread's own CPU time: what a busy machine changes least
if all('first-frame-cpu-ms' in r for r in ok):
    print('  main thread CPU (min / median): to the window\'s first frame %s ms, to the first frame with rows %s ms, '
          'in the longest stall %s ms'
          % (mm('window-first-frame-cpu-ms'), mm('first-frame-cpu-ms'),
             '%d / %d' % (min(r.get('stall', (0, 0))[1] for r in ok),
                          statistics.median(r.get('stall', (0, 0))[1] for r in ok))))
print('  goal first frame <= 1.3x load (median): %s; goal longest stall <= 100 ms (median): %s; '
      'after the timeline is drawn: %s'
      % ('MET' if statistics.median(ratios) <= 1.3 else 'NOT MET',
         'MET' if statistics.median(stalls) <= 100 else 'NOT MET',
         'MET' if statistics.median(after) <= 100 else 'NOT MET'))
# the file's load starts at the application's start-up and the window
# adopts it: one load a run, not two
adopted = sum(1 for r in ok if r.get('loads') == (1, 1, 1))
print('  file loaded once, at start-up, and adopted by the window: %d of %d runs' % (adopted, len(ok)))
EOF
  done
done
say "every run's stalls of 50 ms or more, with their phase, are in $out/runs-*.txt"
