#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Step time of train.py without a profiler, under kinescope-cli record and
# under torch.profiler, interleaved REPEAT times; then, once each, variants
# that switch parts of the collector off.
#
#   tests/gpu/overhead-matrix.sh OUTDIR
set -u
OUT=${1:-/tmp/kinescope-overhead}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
S=${STEPS:-300}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
t () { "$@" > /dev/null 2>&1 || echo "failed: $*"; }

for size in small large; do
  if [ $size = small ]; then A="--width 1024 --batch 256"; n=3; else A="--width 8192 --batch 2048"; n=2; fi
  for i in $(seq $n); do
    R="$OUT/$size-$i"
    t $PY "$HERE/train.py" $A --steps $S --result "$R-plain.json"
    t $KCLI record -f -o "$OUT/$size.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-record.json"
    t $PY "$HERE/train.py" $A --steps $S --profile-steps 20:$S --torch-profiler "$OUT/$size-torch.json" --result "$R-torchprof.json"
  done
done
R="$OUT/small"
A="--width 1024 --batch 256"
KINESCOPE_CUPTI_API=essential t $KCLI record -f -o "$R-v.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-essential.json"
KINESCOPE_CUPTI_DRIVER=0 t $KCLI record -f -o "$R-v.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-nodriver.json"
t $KCLI record -f -t nvtx,gpu-metrics -o "$R-v.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-nocuda.json"
KINESCOPE_CUPTI_CLOCK=callback t $KCLI record -f -o "$R-v.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-clockcb.json"
t $PY "$HERE/train.py" $A --steps $S --result "$R-plain-last.json"

for size in small large; do
  echo
  echo "### $size model, steps 20..$((S - 1)), each run in order"
  set --
  for f in "$OUT/$size"-[0-9]-*.json; do
    set -- "$@" "$(basename "$f" .json)=$f"
  done
  $PY "$HERE/overhead.py" 20 $S "$@"
  $PY - "$OUT" $size $S <<'PYEOF'
import glob, json, statistics, sys
out, size, last = sys.argv[1], sys.argv[2], int(sys.argv[3])
med = {}
for kind in ("plain", "record", "torchprof"):
    runs = [statistics.median(json.load(open(f))["step_times"][20:last]) * 1e3
            for f in sorted(glob.glob(f"{out}/{size}-[0-9]-{kind}.json"))]
    med[kind] = statistics.median(runs)
    print(f"{kind}: runs {', '.join(f'{r:.3f}' for r in runs)} ms; median {med[kind]:.3f} ms "
          f"({100 * (med[kind] / med['plain'] - 1):+.1f} % vs. no profiler)")
PYEOF
  $PY "$HERE/check_train.py" "$OUT/$size.kscope" "$OUT/$size-torch.json" 20:$S | grep -E "kernels in steps"
done
echo
echo "### small model, variants (one run each)"
$PY "$HERE/overhead.py" 20 $S "no profiler=$R-1-plain.json" "KINESCOPE_CUPTI_API=essential=$R-essential.json" \
  "no driver API records=$R-nodriver.json" "-t nvtx,gpu-metrics (no CUPTI)=$R-nocuda.json" \
  "KINESCOPE_CUPTI_CLOCK=callback=$R-clockcb.json" "no profiler, last=$R-plain-last.json"
