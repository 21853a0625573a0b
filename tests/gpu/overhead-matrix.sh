#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What each part of the collector costs on train.py, against torch.profiler.
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
  if [ $size = small ]; then A="--width 1024 --batch 256"; else A="--width 8192 --batch 2048"; fi
  R="$OUT/$size"
  t $PY "$HERE/train.py" $A --steps $S --result "$R-plain.json"
  t $KCLI record -f -o "$R.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-record.json"
  t $PY "$HERE/train.py" $A --steps $S --profile-steps 20:$S --torch-profiler "$R-torch.json" --result "$R-torchprof.json"
  KINESCOPE_CUPTI_API=essential t $KCLI record -f -o "$R-e.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-essential.json"
  if [ $size = small ]; then
    KINESCOPE_CUPTI_RUNTIME=0 KINESCOPE_CUPTI_DRIVER=0 t $KCLI record -f -o "$R-n.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-noapi.json"
    KINESCOPE_CUPTI_DRIVER=0 t $KCLI record -f -o "$R-n.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-nodriver.json"
    t $KCLI record -f -t nvtx,gpu-metrics -o "$R-n.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-nocuda.json"
    KINESCOPE_CUPTI_CLOCK=callback t $KCLI record -f -o "$R-n.kscope" -- $PY "$HERE/train.py" $A --steps $S --result "$R-clockcb.json"
  fi
  t $PY "$HERE/train.py" $A --steps $S --result "$R-plain2.json"
done

for size in small large; do
  R="$OUT/$size"
  echo
  echo "### $size"
  set -- "no profiler=$R-plain.json" "kinescope-cli record=$R-record.json" \
    "kinescope-cli record, KINESCOPE_CUPTI_API=essential=$R-essential.json" \
    "torch.profiler (CPU + CUDA)=$R-torchprof.json"
  if [ $size = small ]; then
    set -- "$@" "record, no runtime/driver API records=$R-noapi.json" "record, no driver API records=$R-nodriver.json" \
      "record -t nvtx,gpu-metrics (no CUPTI)=$R-nocuda.json" "record, KINESCOPE_CUPTI_CLOCK=callback=$R-clockcb.json"
  fi
  $PY "$HERE/overhead.py" 20 $S "$@" "no profiler, again=$R-plain2.json"
  $PY "$HERE/check_train.py" "$R.kscope" "$R-torch.json" 20:$S | grep -E "kernels in steps|failure"
done
