#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The recording's parts on and off in one process:
#
#   tests/gpu/onoff-parts.sh OUTDIR
#
# Between two processes of the same program the GPU machine's step time
# moves by up to 40 %, more than most parts of a recording cost. Here
# each part runs as one process of train.py --toggle BLOCK under
# kinescope-cli record --capture-range=cudaProfilerApi: the program
# opens and closes the range every BLOCK steps, and what a range switches
# (CUPTI's activity records, the operators' observer, which is out of
# torch's RecordFunction between ranges, and the Python stacks, which are
# not read between ranges) is on in every other block. overhead_summary.py
# onoff compares neighbouring blocks of the same process. What stays on
# between ranges (CUPTI attached, the caching allocator's history, the
# recorder beside the program) is the same in both blocks and is not
# measured here; "control" runs the same toggles without a recorder and
# must come out near 0.
#
# Parts: control, record (the defaults), record-nosampling,
# record-nomemory, record-noops, cuda (the CUDA tracing alone),
# cuda-sampler (with the Python stacks), cuda-ops (with the operators),
# cuda-ops-noapi (without the API rows), cuda-ops-noactivity (without
# CUPTI's activity records: API rows only), record-apart (the
# defaults, the recorder on cores of its own: APART, "taskset -c 10-15",
# the program on PIN's), and without a recorder, paused in the off blocks
# (train.py --observer, built by observer_floors.py): rf-floor
# (nop_observer.cpp: torch's RecordFunction with a callback of our
# configuration that returns at once), rf-floor-noids (the same without
# needsIds), observer-noinject (our observer, noinject.c for the
# injector), allocator (the caching allocator's history with the
# recorder's settings, which a recording keeps on between ranges). Only the parts with CUDA tracing in them toggle the range:
# without -t cuda the recorder never sees cudaProfilerStart. Rounds of one
# process per part, the order turning each round, while BUDGET (480 s)
# lasts or ROUNDS (2) are done. MODEL (train.py arguments, default
# "--model transformer"), STEPS (440), BLOCK (20), PIN ("taskset -c 2-9"),
# ONLY (part names). The first recording is checked with onoff_check.py
# (the same operators in every step inside a range), unless MODEL has
# --loader-in-step, whose step ranges open before the range is toggled. Writes onoff.md,
# log.txt and the per-process results to OUTDIR.
set -u
OUT=${1:-/tmp/kinescope-onoff}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/parts-lib.sh"
PY=${PYTHON:-python3}
PIN=${PIN-taskset -c 2-9}
APART=${APART-taskset -c 10-15}
STEPS=${STEPS:-440}
BLOCK=${BLOCK:-20}
ROUNDS=${ROUNDS:-2}
BUDGET=${BUDGET:-480}
MODEL=${MODEL:---model transformer}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$OUT" "$WORK"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
elapsed () { echo $(( $(date +%s) - T0 )); }
log () { echo "$*" | tee -a "$OUT/log.txt"; }

PARTS=(
  "control|plain|"
  "record|record|"
  "record-nosampling|record|--python-sampling=false"
  "record-nomemory|record|--pytorch-memory=false"
  "record-noops|record|--pytorch=none"
  "cuda-sampler|record|-t cuda --pytorch=none --python-sampling=true --pytorch-memory=false"
  "cuda|record|-t cuda --pytorch=none --python-sampling=false --pytorch-memory=false"
  "cuda-ops|record|-t cuda,nvtx --python-sampling=false --pytorch-memory=false"
  "cuda-ops-noapi|record|-t cuda,nvtx --python-sampling=false --pytorch-memory=false KINESCOPE_CUPTI_RUNTIME=0 KINESCOPE_CUPTI_DRIVER=0"
  "cuda-ops-noactivity|record|-t cuda,nvtx --python-sampling=false --pytorch-memory=false KINESCOPE_CUPTI_ACTIVITY=0"
  "record-apart|apart|"
  "rf-floor|floor|$WORK/floors/nop/nop_observer.so,-,0"
  "rf-floor-noids|floor|$WORK/floors/nop/nop_observer.so,-,2"
  "observer-noinject|floor|$WORK/floors/ours/kinescope_observer.so,$WORK/noinject.so,0"
  "allocator|history|"
)
only_parts

# run_part ROUND "NAME|HOW|OPTIONS": OPTIONS split by split_opts, or the
# --observer argument of a floor
run_part () {
  local round=$1 name how opts envs cli
  IFS='|' read -r name how opts <<< "$2"
  split_opts "$opts"
  local R="$OUT/onoff-$name-$round.json"
  local TRAIN=($PY "$HERE/train.py" $MODEL --steps "$STEPS" --toggle "$BLOCK" --result "$R")
  case $how in
    plain) $PIN "${TRAIN[@]}" ;;
    floor) $PIN "${TRAIN[@]}" --observer "$opts" ;;
    history) $PIN "${TRAIN[@]}" --memory-history ;;
    record) env "${envs[@]}" $PIN $KCLI record -f --capture-range=cudaProfilerApi "${cli[@]}" \
              -o "$WORK/$name.kscope" -- "${TRAIN[@]}" ;;
    # the recorder on cores of its own (APART), the program on PIN's
    apart) env "${envs[@]}" $APART $KCLI record -f --capture-range=cudaProfilerApi "${cli[@]}" \
             -o "$WORK/$name.kscope" -- $PIN "${TRAIN[@]}" ;;
  esac > "$WORK/$name-$round.log" 2>&1 || log "failed: $name, round $round (see $WORK/$name-$round.log)"
}

# the floors' observers, built against this torch as the recorder builds ours
case " ${PARTS[*]} " in *"|floor|"*)
  gcc -O2 -shared -fPIC -o "$WORK/noinject.so" "$HERE/noinject.c" || log "failed: noinject.c"
  $PY "$HERE/observer_floors.py" "$WORK/floors" 2>&1 | tee -a "$OUT/log.txt" ;;
esac

per_process=30
checked=0
for round in $(seq "$ROUNDS"); do
  for j in $(seq 0 $((${#PARTS[@]} - 1))); do
    spec=${PARTS[$(( (j + round - 1) % ${#PARTS[@]} ))]}
    name=${spec%%|*}
    if [ $(( $(elapsed) + per_process )) -gt "$BUDGET" ]; then
      log "round $round: $name and what follows left out at $(elapsed) s (budget $BUDGET s)"
      break 2
    fi
    ps=$(date +%s)
    run_part "$round" "$spec"
    took=$(( $(date +%s) - ps ))
    [ "$took" -gt "$per_process" ] && per_process=$took
    log "round $round, $name: $took s"
    # the check wants the range toggled between steps; --loader-in-step
    # opens a step's range before the toggle, in the batch's fetch
    if [ "$name" = record ] && [ "$checked" = 0 ] && [[ " $MODEL " != *" --loader-in-step "* ]]; then
      checked=1
      $PY "$HERE/onoff_check.py" "$WORK/record.kscope" "$OUT/onoff-record-$round.json" 2>&1 | tee -a "$OUT/log.txt"
    fi
  done
done

set --
for p in "${PARTS[@]}"; do
  for r in $(seq "$ROUNDS"); do
    [ -f "$OUT/onoff-${p%%|*}-$r.json" ] && set -- "$@" "${p%%|*} $r=$OUT/onoff-${p%%|*}-$r.json"
  done
done
{
  echo "## The recording's parts on and off in one process ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "\`train.py $MODEL --steps $STEPS --toggle $BLOCK\`, every process pinned: ${PIN:-no}; on: inside the"
  echo "capture range. Blocks of $BLOCK steps, the first 3 of each and steps 0..19 left out."
  echo
  $PY "$HERE/overhead_summary.py" onoff "$@"
} > "$OUT/onoff.md"
cat "$OUT/onoff.md"
log "=== done in $(elapsed) s"
