#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where a recording's cost goes, part by part, in at most 4 minutes:
#
#   tests/gpu/overhead-parts.sh OUTDIR
#
# Needs $KCLI (kinescope-cli; KINESCOPE_INJECT_DIR and KINESCOPE_PYTHON_DIR
# as for any run from the build tree), python3 with CUDA PyTorch, a C++
# compiler and ninja (torch.utils.cpp_extension), gcc and the CUDA headers
# ($CUDA_HOME/include, default /usr/local/cuda/include), taskset.
#
# 1. The floors' libraries, built while 2. runs: mincupti.c (the least a
#    CUPTI kernel tracer does), nopnvtx.c (an NVTX client whose handlers
#    return at once), noinject.c (the injector's two operator entry
#    points, returning at once) and, with observer_floors.py against this
#    torch, nop_observer.cpp (a RecordFunction observer with our
#    configuration whose callbacks return at once) and our observer.
# 2. Exactness of the default recording, whose operators come from our
#    RecordFunction observer (built here the first time into
#    ~/.cache/kinescope/observer): train.py --model transformer recorded,
#    and run under torch.profiler with the seed settings over the same
#    steps; check_pytorch.py (operator counts per name, innermost operator
#    per kernel, allocator) and check_train.py (kernels) over steps 20..29.
#    Which operator path the recording took is read from its diagnostics.
#    EXACT=0 leaves it out.
# 3. Interleaved rounds (the order turning by one each round) of one
#    process per part, every process of a round on the same cores (PIN,
#    default "taskset -c 2-9": the program, its DataLoader workers and its
#    recorder), for the launch-bound transformer (train.py --model
#    transformer, T_STEPS=120 steps) and the DataLoader-bound MLP (train.py
#    --loader-work 3000 --loader-in-step --batch 64, M_STEPS=40 steps):
#      plain-a, plain-b   no profiler, twice (apart in the order): the
#                         noise floor
#      record             kinescope-cli record, defaults
#      record-shapes      the same with input shapes (--pytorch=autograd-shapes-nvtx)
#      cupti-floor        mincupti.so as the CUDA injection, nothing else
#      nvtx-floor         emit_nvtx() with nopnvtx.so as the NVTX client
#      rf-floor           nop_observer.cpp: torch's RecordFunction with a
#                         callback of our configuration (global, every
#                         scope, needsIds), no recorder
#      rf-floor-noids     the same without needsIds (what the handle costs)
#      observer-noinject  our observer with noinject.so for the injector:
#                         its clock reads and what it reads of each operator
#      ops-observer       operators alone, from the observer (-t nvtx)
#      ops-nvtx           operators alone, from torch's NVTX emission
#      sampler            the Python stack sampler alone
#      allocator          the caching allocator's history alone, with the
#                         recorder's settings (train.py --memory-history)
#      torchprof          torch.profiler, CPU + CUDA, steps 20..N-1
#      torchprof-seed     the same with record_shapes, profile_memory,
#                         with_stack
#      record-nvtx        the default recording with its operators from
#                         torch's NVTX emission (KINESCOPE_TORCH_OPERATORS=nvtx)
#      record-nosampling, record-nomemory
#                         the default recording without the Python stacks,
#                         without the caching allocator: each part's cost
#                         as what taking it out of the recording saves
#      record-100hz       the default recording sampling at 100 Hz
#      record-idle        the default recording, its sampling thread
#                         SCHED_IDLE (KINESCOPE_PYTHON_SAMPLER_POLICY=idle)
#      record-noops       the default recording without the operators
#                         (--pytorch=none)
#      cuda               the recorder's CUDA tracing alone (-t cuda, no
#                         operators, stacks or allocator): with
#                         cupti-floor, what it adds to CUPTI's floor
#      rf-floor-inputs    rf-floor asking for the inputs, as shapes do:
#                         what torch spends boxing every operator's
#                         arguments for a callback
#      observer-shapes-noinject
#                         our observer reading the inputs' sizes, the
#                         injector returning at once
#      ops-shapes         operators with input shapes alone (-t nvtx)
#    A round runs each part for each model in turn. Rounds go on while
#    they fit in BUDGET seconds (default 225) counted from the start, up
#    to ROUNDS (default 3): the first one part by part in the order of
#    PARTS below (a budget cut leaves out the same last parts of both
#    models), a later one only whole. ONLY (a list
#    of part names) and MODEL_ONLY (transformer or loader-mlp) run fewer,
#    so that more rounds fit.
#
# The results land in OUTDIR, all small text: parts.md (the tables: per
# part, and the decomposition into floors with the noise floor; also
# printed), log.txt (what ran, what failed, what was left out), times.txt
# (seconds per process), observer.txt, floors.txt (the builds),
# exactness.txt and the per-process results parts-MODEL-PART-ROUND.json.
# Recordings, traces and libraries go to WORK (default a new folder under
# /tmp).
set -u
OUT=${1:?usage: overhead-parts.sh OUTDIR}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/parts-lib.sh"
PY=${PYTHON:-python3}
BUDGET=${BUDGET:-225}
ROUNDS=${ROUNDS:-3}
T_STEPS=${T_STEPS:-120}
M_STEPS=${M_STEPS:-40}
EXACT=${EXACT:-1}
PIN=${PIN-taskset -c 2-9}
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
# the large files (recordings, traces, libraries) apart from the results
WORK=${WORK:-$(mktemp -d /tmp/ks-overhead-parts-XXXXXX)}
FLOORS=$WORK/floors
mkdir -p "$OUT" "$WORK"
rm -f "$OUT"/parts-*.json "$OUT/log.txt" "$OUT/times.txt"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
elapsed () { echo $(( $(date +%s) - T0 )); }
log () { echo "$*" | tee -a "$OUT/log.txt"; }
# a command, its output kept in WORK/last.log, a line in log.txt when it fails
quiet () { timeout "${QT:-90}" "$@" > "$WORK/last.log" 2>&1 || { log "failed: $*"; tail -5 "$WORK/last.log" >> "$OUT/log.txt"; }; }
if [ -n "$PIN" ] && ! $PIN true 2>/dev/null; then
  log "PIN=\"$PIN\" does not run here: the processes are not pinned"
  PIN=
fi
MACHINE="$(nproc) CPUs, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), torch $($PY -c 'import torch; print(torch.__version__)' 2>/dev/null), Python $($PY -c 'import platform; print(platform.python_version())')"
log "machine: $MACHINE; pinned: ${PIN:-no}; large files in $WORK"

log "=== 1. floors' libraries, the observers built in the background ($(elapsed) s)"
gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$WORK/mincupti.so" "$HERE/mincupti.c" -ldl -lpthread || log "failed: mincupti.c"
gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$WORK/nopnvtx.so" "$HERE/nopnvtx.c" || log "failed: nopnvtx.c"
gcc -O2 -shared -fPIC -o "$WORK/noinject.so" "$HERE/noinject.c" || log "failed: noinject.c"
# on cores the rounds leave alone
${PIN:+taskset -c 10-15} timeout 200 $PY "$HERE/observer_floors.py" "$FLOORS" > "$OUT/floors.txt" 2>&1 &
floors_pid=$!

if [ "$EXACT" = 1 ]; then
  log "=== 2. exactness of the default recording, transformer, steps 20..29 ($(elapsed) s)"
  t=$(date +%s)
  QT=150 quiet $PIN $KCLI record -f -o "$WORK/exact.kscope" -- $PY "$HERE/train.py" --model transformer --annotate-steps \
    --steps 30 --result "$OUT/exact-rec.json"
  log "recorded in $(( $(date +%s) - t )) s (with the observer's first build, if it was not cached)"
  $PY - "$WORK/exact.kscope" > "$OUT/observer.txt" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT severity, text FROM KS_DIAGNOSTICS WHERE text LIKE 'PyTorch operators%'").fetchall()
for severity, text in rows:
    print(f"{severity}: {text}")
if not any("from the RecordFunction observer" in text for _, text in rows):
    print("NOT THE OBSERVER: this recording's operators came from NVTX emission; "
          "the observer's numbers below are not what they say")
EOF
  cat "$OUT/observer.txt" | tee -a "$OUT/log.txt"
  quiet $PIN $PY "$HERE/train.py" --model transformer --annotate-steps --steps 30 --profile-steps 20:30 \
    --seed-settings --torch-profiler "$WORK/exact-torch.json" --result "$OUT/exact-tp.json"
  {
    echo "## check_pytorch.py: operators per name, innermost operator per kernel, allocator"
    $PY "$HERE/check_pytorch.py" "$WORK/exact.kscope" "$WORK/exact-torch.json" 20:30 "$KCLI" 2>&1 | tail -25
    echo "## check_train.py: kernels against torch.profiler"
    $PY "$HERE/check_train.py" "$WORK/exact.kscope" "$WORK/exact-torch.json" 20:30 2>&1 | tail -12
  } > "$OUT/exactness.txt"
  grep -E "^(ok|FAIL)|failure|kernels in steps|without --include-warmup" "$OUT/exactness.txt" | tee -a "$OUT/log.txt"
fi

wait $floors_pid || log "failed: observer_floors.py (the rf-floor and observer-noinject parts fail with it)"
cat "$OUT/floors.txt" >> "$OUT/log.txt"

log "=== 3. interleaved rounds ($(elapsed) s)"
COMMON="-t nvtx --python-sampling=false --pytorch-memory=false"
# name|how|kinescope-cli options or environment|train.py arguments. The
# two no-profiler processes apart, so that they see different moments of a
# round; round 1 runs in this order, so that a budget cut leaves out the
# parts of NVTX emission (now only the fallback) first.
PARTS=(
  "plain-a|plain||"
  "record|record||"
  "rf-floor|plain||--observer $FLOORS/nop/nop_observer.so,-,0"
  "observer-noinject|plain||--observer $FLOORS/ours/kinescope_observer.so,$WORK/noinject.so,0"
  "ops-observer|record|$COMMON|"
  "cupti-floor|env|CUDA_INJECTION64_PATH=$WORK/mincupti.so|"
  "sampler|record|-t nvtx --pytorch=none --python-sampling=true|"
  "allocator|plain||--memory-history"
  "plain-b|plain||"
  "torchprof|plain||--torch-profiler $WORK/tp.json --profile-steps 20:STEPS"
  "rf-floor-noids|plain||--observer $FLOORS/nop/nop_observer.so,-,2"
  "record-shapes|record|--pytorch=autograd-shapes-nvtx|"
  "torchprof-seed|plain||--torch-profiler $WORK/tp.json --profile-steps 20:STEPS --seed-settings"
  "nvtx-floor|env|NVTX_INJECTION64_PATH=$WORK/nopnvtx.so|--emit-nvtx"
  "ops-nvtx|record|$COMMON KINESCOPE_TORCH_OPERATORS=nvtx|"
  "record-nvtx|record|KINESCOPE_TORCH_OPERATORS=nvtx|"
  "record-nosampling|record|--python-sampling=false|"
  "record-nomemory|record|--pytorch-memory=false|"
  "record-100hz|record|--python-sampling-frequency=100|"
  "record-idle|record|KINESCOPE_PYTHON_SAMPLER_POLICY=idle|"
  "record-noops|record|--pytorch=none|"
  "cuda|record|-t cuda --pytorch=none --python-sampling=false --pytorch-memory=false|"
  "rf-floor-inputs|plain||--observer $FLOORS/nop/nop_observer.so,-,1"
  "observer-shapes-noinject|plain||--observer $FLOORS/ours/kinescope_observer.so,$WORK/noinject.so,1"
  "ops-shapes|record|$COMMON --pytorch=autograd-shapes-nvtx|"
)

only_parts

# run_part MODEL STEPS ROUND "PART-SPEC" TRAIN.PY-ARGUMENTS...
run_part () {
  local model=$1 steps=$2 round=$3 name how opts extra envs cli
  IFS='|' read -r name how opts extra <<< "$4"
  shift 4
  extra=${extra//STEPS/$steps}
  split_opts "$opts"
  local R="$OUT/parts-$model-$name-$round.json"
  case $how in
    plain) quiet $PIN $PY "$HERE/train.py" "$@" --steps "$steps" $extra --result "$R" ;;
    env) quiet env "${envs[@]}" $PIN $PY "$HERE/train.py" "$@" --steps "$steps" $extra --result "$R" ;;
    record) quiet env "${envs[@]}" $PIN $KCLI record -f "${cli[@]}" -o "$WORK/run.kscope" -- \
              $PY "$HERE/train.py" "$@" --steps "$steps" $extra --result "$R" ;;
  esac
}

MODELS=(
  "transformer|$T_STEPS|--model transformer"
  "loader-mlp|$M_STEPS|--loader-work 3000 --loader-in-step --batch 64"
)
if [ -n "${MODEL_ONLY:-}" ]; then
  kept=()
  for m in "${MODELS[@]}"; do [ "${m%%|*}" = "$MODEL_ONLY" ] && kept+=("$m"); done
  MODELS=("${kept[@]}")
fi
# A round runs each part for each model in turn (the models interleaved,
# so that a budget cut leaves the same parts out of both). The first
# round goes part by part while the budget lasts (the next process taken
# to be as long as the longest so far); a later round only when all of it
# fits (at the mean so far). Seconds: a guess until a process has run.
declare -A per_process=( [transformer]=8 [loader-mlp]=6 )
declare -A spent=( [transformer]=0 [loader-mlp]=0 )
declare -A count=( [transformer]=0 [loader-mlp]=0 )
declare -A done_rounds=( [transformer]=0 [loader-mlp]=0 )
declare -A ran=( [transformer]=0 [loader-mlp]=0 )
for round in $(seq "$ROUNDS"); do
  rs=$(date +%s)
  whole=0
  for m in "${MODELS[@]}"; do
    model=${m%%|*}
    whole=$(( whole + (count[$model] > 0 ? spent[$model] / count[$model] : per_process[$model]) * ${#PARTS[@]} ))
  done
  if [ "$round" -gt 1 ] && [ $(( $(elapsed) + whole )) -gt "$BUDGET" ]; then
    log "round $round left out: ~$whole s would pass the budget of $BUDGET s (at $(elapsed) s)"
    break
  fi
  for model in "${!ran[@]}"; do ran[$model]=0; done
  cut=
  for j in $(seq 0 $((${#PARTS[@]} - 1))); do
    spec=${PARTS[$(( (j + round - 1) % ${#PARTS[@]} ))]}
    for m in "${MODELS[@]}"; do
      IFS='|' read -r model steps args <<< "$m"
      if [ $(( $(elapsed) + per_process[$model] )) -gt "$BUDGET" ]; then
        cut="${spec%%|*} ($model) and what follows it: ~${per_process[$model]} s a process would pass the budget of $BUDGET s"
        break 2
      fi
      ps=$(date +%s)
      run_part "$model" "$steps" "$round" "$spec" $args
      took=$(( $(date +%s) - ps ))
      echo "$model ${spec%%|*} round $round: $took s" >> "$OUT/times.txt"
      [ "${count[$model]}" = 0 ] || [ "$took" -gt "${per_process[$model]}" ] && per_process[$model]=$took
      spent[$model]=$(( spent[$model] + took ))
      count[$model]=$(( count[$model] + 1 ))
      ran[$model]=$(( ran[$model] + 1 ))
    done
  done
  for m in "${MODELS[@]}"; do
    model=${m%%|*}
    [ "${ran[$model]}" -gt 0 ] && done_rounds[$model]=$round
    log "round $round, $model: ${ran[$model]} of ${#PARTS[@]} parts"
  done
  log "round $round: $(( $(date +%s) - rs )) s (at $(elapsed) s)${cut:+; left out: $cut}"
  [ -n "$cut" ] && break
done

names=()
for p in "${PARTS[@]}"; do names+=("${p%%|*}"); done
{
  echo "## Where a recording's cost goes, part by part ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "tests/gpu/overhead-parts.sh on $MACHINE; every process pinned: ${PIN:-no}."
  echo "One process per part and round, the order turning by one each round; a process's step time"
  echo "is the median of its steps 20..N-1."
  echo
  for m in "${MODELS[@]}"; do
    IFS='|' read -r model steps args <<< "$m"
    echo "### $model: \`train.py $args\`, $steps steps, ${done_rounds[$model]} round(s)"
    echo
    $PY "$HERE/overhead_parts.py" "$OUT" "$model" "$steps" "${names[@]}"
    echo
  done
  if [ "$EXACT" = 1 ]; then
    echo "### Exactness of the default recording (transformer, steps 20..29, against torch.profiler with the seed settings)"
    echo
    echo '```'
    cat "$OUT/observer.txt"
    grep -E "^(ok|FAIL)|failure|kernels in steps|without --include-warmup" "$OUT/exactness.txt"
    echo '```'
  fi
} > "$OUT/parts.md"
cat "$OUT/parts.md"
log "=== done in $(elapsed) s"
