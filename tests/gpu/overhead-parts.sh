#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where a recording's cost goes, part by part, in at most 4 minutes:
#
#   tests/gpu/overhead-parts.sh OUTDIR
#
# Needs $KCLI (kinescope-cli; KINESCOPE_INJECT_DIR and KINESCOPE_PYTHON_DIR
# as for any run from the build tree), python3 with CUDA PyTorch, gcc and
# the CUDA headers ($CUDA_HOME/include, default /usr/local/cuda/include).
#
# 1. The floors' libraries: mincupti.c (the least a CUPTI kernel tracer
#    does) and nopnvtx.c (an NVTX client whose handlers return at once).
# 2. Exactness of the default recording, whose operators come from our
#    RecordFunction observer (built here the first time into
#    ~/.cache/kinescope/observer, which this recording times): train.py
#    --model transformer recorded, and run under torch.profiler with the
#    seed settings over the same steps; check_pytorch.py (operator counts
#    per name, innermost operator per kernel, allocator) and check_train.py
#    (kernels) over steps 20..29. Which operator path the recording took
#    is read from its diagnostics.
# 3. Interleaved rounds (the order turning by one each round) of one
#    process per part, for the launch-bound transformer (train.py --model
#    transformer, T_STEPS=200 steps) and the DataLoader-bound MLP (train.py
#    --loader-work 3000 --loader-in-step --batch 64, M_STEPS=60 steps):
#      plain-a, plain-b   no profiler, twice: the noise floor
#      record             kinescope-cli record, defaults
#      record-shapes      the same with input shapes (--pytorch=autograd-shapes-nvtx)
#      cupti-floor        mincupti.so as the CUDA injection, nothing else
#      nvtx-floor         emit_nvtx() with nopnvtx.so as the NVTX client
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
#    Rounds go on while the next one fits in BUDGET seconds (default 225)
#    counted from the start, up to ROUNDS (default 3) per model. ONLY (a
#    list of part names) and MODEL_ONLY (transformer or loader-mlp) run
#    fewer, so that more rounds fit.
#
# Everything lands in OUTDIR: log.txt (what ran, how long), observer.txt,
# exactness.txt, parts.md (the decomposition tables, also printed) and the
# per-process results parts-MODEL-PART-ROUND.json.
set -u
OUT=${1:?usage: overhead-parts.sh OUTDIR}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
BUDGET=${BUDGET:-225}
ROUNDS=${ROUNDS:-3}
T_STEPS=${T_STEPS:-200}
M_STEPS=${M_STEPS:-60}
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
mkdir -p "$OUT"
rm -f "$OUT"/parts-*.json "$OUT/log.txt"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
elapsed () { echo $(( $(date +%s) - T0 )); }
log () { echo "$*" | tee -a "$OUT/log.txt"; }
# a command, its output kept in OUTDIR/last.log, a line when it fails
quiet () { timeout "${QT:-90}" "$@" > "$OUT/last.log" 2>&1 || { log "failed: $*"; tail -5 "$OUT/last.log" >> "$OUT/log.txt"; }; }

log "=== 1. floors' libraries ($(elapsed) s)"
gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$OUT/mincupti.so" "$HERE/mincupti.c" -ldl -lpthread || log "failed: mincupti.c"
gcc -O2 -shared -fPIC -I"$CUDA_INC" -o "$OUT/nopnvtx.so" "$HERE/nopnvtx.c" || log "failed: nopnvtx.c"

log "=== 2. exactness of the default recording, transformer, steps 20..29 ($(elapsed) s)"
t=$(date +%s)
QT=200 quiet $KCLI record -f -o "$OUT/exact.kscope" -- $PY "$HERE/train.py" --model transformer --annotate-steps \
  --steps 40 --result "$OUT/exact-rec.json"
log "recorded in $(( $(date +%s) - t )) s (with the observer's first build, if it was not cached)"
$PY - "$OUT/exact.kscope" > "$OUT/observer.txt" <<'EOF'
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
quiet $PY "$HERE/train.py" --model transformer --annotate-steps --steps 40 --profile-steps 20:30 \
  --seed-settings --torch-profiler "$OUT/exact-torch.json" --result "$OUT/exact-tp.json"
{
  echo "## check_pytorch.py: operators per name, innermost operator per kernel, allocator"
  $PY "$HERE/check_pytorch.py" "$OUT/exact.kscope" "$OUT/exact-torch.json" 20:30 "$KCLI" 2>&1 | tail -25
  echo "## check_train.py: kernels against torch.profiler"
  $PY "$HERE/check_train.py" "$OUT/exact.kscope" "$OUT/exact-torch.json" 20:30 2>&1 | tail -12
} > "$OUT/exactness.txt"
grep -E "^(ok|FAIL)|failure|kernels in steps" "$OUT/exactness.txt" | tee -a "$OUT/log.txt"

log "=== 3. interleaved rounds ($(elapsed) s)"
COMMON="-t nvtx --python-sampling=false --pytorch-memory=false"
# name|how|kinescope-cli options or environment|train.py arguments
PARTS=(
  "plain-a|plain||"
  "plain-b|plain||"
  "record|record||"
  "record-nvtx|record|KINESCOPE_TORCH_OPERATORS=nvtx|"
  "record-shapes|record|--pytorch=autograd-shapes-nvtx|"
  "cupti-floor|env|CUDA_INJECTION64_PATH=$OUT/mincupti.so|"
  "nvtx-floor|env|NVTX_INJECTION64_PATH=$OUT/nopnvtx.so|--emit-nvtx"
  "ops-observer|record|$COMMON|"
  "ops-nvtx|record|$COMMON KINESCOPE_TORCH_OPERATORS=nvtx|"
  "sampler|record|-t nvtx --pytorch=none --python-sampling=true|"
  "allocator|plain||--memory-history"
  "torchprof|plain||--torch-profiler $OUT/tp.json --profile-steps 20:STEPS"
  "torchprof-seed|plain||--torch-profiler $OUT/tp.json --profile-steps 20:STEPS --seed-settings"
)

if [ -n "${ONLY:-}" ]; then
  kept=()
  for p in "${PARTS[@]}"; do
    case " $ONLY " in *" ${p%%|*} "*) kept+=("$p") ;; esac
  done
  PARTS=("${kept[@]}")
fi

# run_part MODEL STEPS ROUND "PART-SPEC" TRAIN.PY-ARGUMENTS...
run_part () {
  local model=$1 steps=$2 round=$3 name how opts extra o envs=() cli=()
  IFS='|' read -r name how opts extra <<< "$4"
  shift 4
  extra=${extra//STEPS/$steps}
  for o in $opts; do
    case $o in KINESCOPE_*=*|CUDA_*=*|NVTX_*=*) envs+=("$o") ;; *) cli+=("$o") ;; esac
  done
  local R="$OUT/parts-$model-$name-$round.json"
  case $how in
    plain) quiet $PY "$HERE/train.py" "$@" --steps "$steps" $extra --result "$R" ;;
    env) quiet env "${envs[@]}" $PY "$HERE/train.py" "$@" --steps "$steps" $extra --result "$R" ;;
    record) quiet env "${envs[@]}" $KCLI record -f "${cli[@]}" -o "$OUT/run.kscope" -- \
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
declare -A took=( [transformer]=110 [loader-mlp]=90 )
declare -A done_rounds=( [transformer]=0 [loader-mlp]=0 )
for round in $(seq "$ROUNDS"); do
  for m in "${MODELS[@]}"; do
    IFS='|' read -r model steps args <<< "$m"
    if [ $(( $(elapsed) + ${took[$model]} )) -gt "$BUDGET" ]; then
      log "$model round $round: left out, ~${took[$model]} s would pass the budget of $BUDGET s"
      continue
    fi
    rs=$(date +%s)
    for j in $(seq 0 $((${#PARTS[@]} - 1))); do
      run_part "$model" "$steps" "$round" "${PARTS[$(( (j + round) % ${#PARTS[@]} ))]}" $args
    done
    took[$model]=$(( $(date +%s) - rs ))
    done_rounds[$model]=$round
    log "$model round $round: ${took[$model]} s (at $(elapsed) s)"
  done
done

names=()
for p in "${PARTS[@]}"; do names+=("${p%%|*}"); done
{
  for m in "${MODELS[@]}"; do
    IFS='|' read -r model steps args <<< "$m"
    echo "### $model ($steps steps, median of steps 20..$((steps - 1)) per process, ${done_rounds[$model]} rounds)"
    echo
    $PY "$HERE/overhead_parts.py" "$OUT" "$model" "$steps" "${names[@]}"
    echo
  done
} > "$OUT/parts.md"
cat "$OUT/parts.md"
log "=== done in $(elapsed) s"
