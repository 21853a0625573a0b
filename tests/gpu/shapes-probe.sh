#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the time of the operators' input sizes goes, on the GPU machine:
#
#   tests/gpu/shapes-probe.sh OUTDIR
#
# Builds shapes_probe.cpp, nop_observer.cpp and our observer
# (observer_floors.py) against this python3's torch, then runs
# train.py --model transformer (STEPS, default 60) once with each, pinned
# as overhead-parts.sh pins (PIN): the do-nothing observer asking for the
# inputs, our observer reading the sizes with noinject.so as its library
# (built as the recorder builds it, and without NDEBUG as it was built
# before), without the sizes, and the probe, which prints its counts and
# the slowest operators' walks.
# OUTDIR/shapes-probe.txt has the step times and the probe's report.
set -u
OUT=${1:?usage: tests/gpu/shapes-probe.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
STEPS=${STEPS:-60}
PIN=${PIN-taskset -c 2-9}
mkdir -p "$OUT/build"
gcc -O2 -shared -fPIC -o "$OUT/build/noinject.so" "$HERE/noinject.c" || exit 1
python3 "$HERE/observer_floors.py" "$OUT/build" > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
OURS=${KINESCOPE_PYTHON_DIR:-$HERE/../../src/collector/python}/kinescope_observer.cpp
python3 - "$HERE/shapes_probe.cpp" "$OUT/build/probe" "$OURS" "$OUT/build/ours-debug" <<'PYEOF' >> "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
import sys
sys.path.insert(0, __import__("os").path.dirname(sys.argv[1]))
from observer_floors import build
build("shapes_probe", sys.argv[1], sys.argv[2])
# our observer as it was built before NDEBUG
build("kinescope_observer", sys.argv[3], sys.argv[4], cflags=["-O2"])
PYEOF
{
  echo "shapes-probe.sh: train.py --model transformer --steps $STEPS, ${PIN:-unpinned}"
  for run in "nop-inputs|$OUT/build/nop/nop_observer.so,-,1" \
             "ours-shapes-noinject|$OUT/build/ours/kinescope_observer.so,$OUT/build/noinject.so,1" \
             "ours-noshapes-noinject|$OUT/build/ours/kinescope_observer.so,$OUT/build/noinject.so,0" \
             "ours-shapes-noinject-without-NDEBUG|$OUT/build/ours-debug/kinescope_observer.so,$OUT/build/noinject.so,1" \
             "probe|$OUT/build/probe/shapes_probe.so,-,1"; do
    name=${run%%|*}
    echo "== $name"
    $PIN python3 "$HERE/train.py" --model transformer --steps "$STEPS" --workers 0 \
      --observer "${run#*|}" 2>&1 | grep -E "^shapes-probe|median step|^Traceback|Error:" | head -30
  done
} > "$OUT/shapes-probe.txt" 2>&1
cat "$OUT/shapes-probe.txt"
