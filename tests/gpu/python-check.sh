#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Python side of recordings on a GPU: operators, allocator and gap
# causes against torch.profiler, and what each option costs.
#
#   tests/gpu/python-check.sh OUTDIR [checks|overhead|all]
#
# checks: for the GPT and CNN models of train.py, a default recording and
#   a torch.profiler run with the seed settings (record_shapes,
#   profile_memory, with_stack) of the same steps, compared by
#   check_pytorch.py; the host-wait gaps of each recording and of a
#   DataLoader-bound program (pure-Python work per sample, its step ranges
#   holding the fetch of the batch, with and
#   without worker processes) named by check_gaps.py.
# overhead: for the small MLP, GPT and CNN models, rounds of processes in
#   turn (the order turning by one each round): no profiler; record with
#   the Python side off (--pytorch=none --python-sampling=false); the
#   default record; record with everything on (-t cuda,nvtx,osrt,gpu-metrics);
#   torch.profiler with the seed settings over steps 20..N-1. REPEAT rounds
#   (default 2); STEPS_SMALL, STEPS_GPT, STEPS_CNN; OVERHEAD_MODES replaces
#   the list of modes.
set -u
OUT=${1:-/tmp/kinescope-python}
WHAT=${2:-all}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
fail=0
run () { echo "+ $*"; "$@"; rc=$?; echo "[rc=$rc]"; return $rc; }
quiet () { "$@" > "$OUT/last.log" 2>&1 || { echo "failed: $*"; tail -5 "$OUT/last.log"; }; }

if [ "$WHAT" != overhead ]; then
  for m in "gpt|--model gpt --width 512 --batch 32|40" "cnn|--model cnn --batch 64|40"; do
    IFS='|' read -r name args steps <<< "$m"
    echo; echo "=== $name: recording against torch.profiler (seed settings), steps 20..29"
    run $KCLI record -f -o "$OUT/$name.kscope" -- $PY "$HERE/train.py" $args --annotate-steps --steps "$steps" \
      --result "$OUT/$name-rec.json" > "$OUT/$name-rec.log" 2>&1 || { fail=1; tail -20 "$OUT/$name-rec.log"; }
    run $PY "$HERE/train.py" $args --annotate-steps --steps "$steps" --profile-steps 20:30 \
      --torch-profiler "$OUT/$name-torch.json" --seed-settings --result "$OUT/$name-tp.json" > "$OUT/$name-tp.log" 2>&1 || fail=1
    run $PY "$HERE/check_pytorch.py" "$OUT/$name.kscope" "$OUT/$name-torch.json" 20:30 "$KCLI" || fail=1
    run $PY "$HERE/check_gaps.py" "$KCLI" "$OUT/$name.kscope" || fail=1
  done
  for w in 0 2; do
    echo; echo "=== DataLoader-bound, $w workers"
    run $KCLI record -f -o "$OUT/loader-$w.kscope" -- $PY "$HERE/train.py" --loader-work 3000 --loader-in-step --workers $w \
      --batch 64 --steps 30 > "$OUT/loader-$w.log" 2>&1 || { fail=1; tail -20 "$OUT/loader-$w.log"; }
    run $PY "$HERE/check_gaps.py" "$KCLI" "$OUT/loader-$w.kscope" || fail=1
    run $KCLI stats --report samples -n 8 "$OUT/loader-$w.kscope"
  done
  $KCLI info "$OUT/gpt.kscope" | head -40
fi

if [ "$WHAT" != checks ]; then
  MODES=(
    "plain|plain|"
    "record-cuda|record|--pytorch=none --python-sampling=false"
    "record|record|"
    "record-all|record|-t cuda,nvtx,osrt,gpu-metrics --pytorch=autograd-shapes-nvtx"
    "torchprof|torchprof|"
  )
  # OVERHEAD_MODES="name|how|options;…" replaces the list
  if [ -n "${OVERHEAD_MODES:-}" ]; then
    IFS=';' read -r -a MODES <<< "$OVERHEAD_MODES"
  fi
  for m in "small|--width 1024 --batch 256|${STEPS_SMALL:-300}" \
           "gpt|--model gpt --width 512 --batch 32|${STEPS_GPT:-60}" \
           "cnn|--model cnn --batch 64|${STEPS_CNN:-100}"; do
    IFS='|' read -r name args steps <<< "$m"
    D="$OUT/overhead-$name"
    mkdir -p "$D"
    for i in $(seq "${REPEAT:-2}"); do
      for j in $(seq 0 $((${#MODES[@]} - 1))); do
        IFS='|' read -r mode how opts <<< "${MODES[$(( (j + i) % ${#MODES[@]} ))]}"
        R="$D/parts-$mode-$i.json"
        case $how in
          plain) quiet $PY "$HERE/train.py" $args --steps "$steps" --result "$R" ;;
          record) quiet $KCLI record -f $opts -o "$D/run.kscope" -- $PY "$HERE/train.py" $args --steps "$steps" --result "$R" ;;
          torchprof) quiet $PY "$HERE/train.py" $args --steps "$steps" --profile-steps "20:$steps" --seed-settings \
                       --torch-profiler "$D/torch.json" --result "$R" ;;
        esac
      done
    done
    echo; echo "### $name ($steps steps)"
    names=()
    for p in "${MODES[@]}"; do names+=("${p%%|*}"); done
    $PY "$HERE/overhead_summary.py" parts "$D" "$steps" "${names[@]}"
  done
fi
echo "fail=$fail"
exit $fail
