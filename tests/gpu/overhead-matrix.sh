#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Recording overhead of train.py, two ways:
#
#   tests/gpu/overhead-matrix.sh OUTDIR [table|onoff|all|parts|pairs]
#
# table: for each model, rounds of three processes in turn (no profiler,
#   under kinescope-cli record, under torch.profiler); a round repeated
#   REPEAT_<MODEL> times; per process the median step time, per mode the
#   median of those.
# onoff: one process per line under kinescope-cli record
#   --capture-range=cudaProfilerApi with train.py --toggle, so that CUPTI is
#   on and off in alternate blocks of steps of the same process; the
#   difference between on and off blocks does not carry the process-to-
#   process spread of the table. The variants switch parts of the
#   collector off (see ks-inject-cupti.c); "control" runs without a
#   recorder and must come out near 0.
# pairs: train.py --toggle 1, CUPTI on and off every other step of one
#   process, each on step against the off steps either side of it: the
#   recording, its API rows alone, its activity kinds alone, and mincupti.c
#   (the least a CUPTI kernel tracer does), with a control without any.
# parts: rounds of small-model processes in turn, each part of the
#   recording alone: no profiler, the default recording, CUPTI attached
#   with its activity kinds never switched on (a capture range that never
#   starts), no CUPTI (NVTX and NVML only), CUPTI only. Rounds go on until
#   PARTS_SECONDS (default 480) would be exceeded or REPEAT_PARTS are done;
#   the order turns by one each round. PARTS_MODEL=gpt measures the GPT
#   model instead. PARTS_SET=floor compares the recording with the least a
#   CUPTI kernel tracer does (mincupti.c: kernel, memcpy and memset records
#   only); it needs gcc and the CUPTI headers in $CUDA_HOME/include.
#   PARTS_SET=sampling compares what Python stack sampling costs: no
#   profiler, the default recording (stacks read from outside the
#   process), the recording with the in-process sampler
#   (KINESCOPE_PYTHON_SAMPLER=inside) and with --python-sampling=false;
#   it writes OUTDIR/sampling-summary.txt and, per recording mode, the rate
#   each thread was sampled at (OUTDIR/sampling-rates-MODE.txt).
set -u
OUT=${1:-/tmp/kinescope-overhead}
WHAT=${2:-all}
PIN=${PIN:-}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
t () { "$@" > /dev/null 2>&1 || echo "failed: $*"; }

# One train.py process, how (plain, env or record) with opts: the
# KINESCOPE_*, CUDA_* and MINCUPTI_* words go to the environment, the
# others to kinescope-cli record.
#   run_train HOW "OPTS" RESULT.json TRAIN.PY-ARGUMENTS...
run_train () {
  local how=$1 opts=$2 result=$3 o
  local envs=() cli=()
  shift 3
  for o in $opts; do
    case $o in KINESCOPE_*=*|CUDA_*=*|MINCUPTI_*=*) envs+=("$o") ;; *) cli+=("$o") ;; esac
  done
  case $how in
    plain) t $PIN $PY "$HERE/train.py" "$@" --result "$result" ;;
    env) t env "${envs[@]}" $PIN $PY "$HERE/train.py" "$@" --result "$result" ;;
    record) t env "${envs[@]}" $PIN $KCLI record -f "${cli[@]}" -o "$OUT/run.kscope" -- \
              $PY "$HERE/train.py" "$@" --result "$result" ;;
  esac
}

# mincupti.c, built into OUTDIR
build_mincupti () {
  MINCUPTI="$OUT/mincupti.so"
  gcc -O2 -shared -fPIC -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$MINCUPTI" \
    "$HERE/mincupti.c" -ldl -lpthread || exit 1
}

# model name, train.py arguments, steps, repeats
MODELS=(
  "small|--width 1024 --batch 256|${STEPS_SMALL:-400}|${REPEAT_SMALL:-5}"
  "gpt|--model gpt --width 512 --batch 32|${STEPS_GPT:-120}|${REPEAT_GPT:-3}"
  "large|--width 8192 --batch 2048|${STEPS_LARGE:-150}|${REPEAT_LARGE:-2}"
  "cnn|--model cnn --batch 64|${STEPS_CNN:-150}|${REPEAT_CNN:-3}"
)

if [ "$WHAT" = pairs ]; then
  # train.py --toggle 1: CUPTI's kinds on and off every other step of one
  # process, under the recorder's capture range or under mincupti.c's.
  build_mincupti
  PAIRS=(
    "control|plain|"
    "record|record|--capture-range=cudaProfilerApi"
    "API rows only|record|--capture-range=cudaProfilerApi KINESCOPE_CUPTI_ACTIVITY=0"
    "kinds only|record|--capture-range=cudaProfilerApi --no-cuda-memory KINESCOPE_CUPTI_RUNTIME=0 KINESCOPE_CUPTI_DRIVER=0 KINESCOPE_CUPTI_SYNC=0"
    "mincupti|env|CUDA_INJECTION64_PATH=$MINCUPTI MINCUPTI_TOGGLE=1"
  )
  set --
  for rep in $(seq "${REPEAT_PAIRS:-1}"); do
    for m in "small|--width 1024 --batch 256 --steps ${STEPS_SMALL:-600}" \
             "gpt|--model gpt --width 512 --batch 32 --steps ${STEPS_GPT:-300}"; do
      IFS='|' read -r model args <<< "$m"
      for p in "${PAIRS[@]}"; do
        IFS='|' read -r name how opts <<< "$p"
        R="$OUT/pairs-$model-${name// /_}-$rep.json"
        run_train "$how" "$opts" "$R" $args --toggle 1
        set -- "$@" "$model: $name ($rep)=$R"
      done
    done
  done
  $PY "$HERE/overhead_summary.py" onoff "$@"
  exit 0
fi

if [ "$WHAT" = parts ]; then
  # name, how it runs (plain, record or env), kinescope-cli options or environment
  if [ "${PARTS_SET:-}" = floor ]; then
    build_mincupti
    PARTS=(
      "plain|plain|"
      "record|record|"
      "mincupti|env|CUDA_INJECTION64_PATH=$MINCUPTI"
    )
  elif [ "${PARTS_SET:-}" = sampling ]; then
    PARTS=(
      "plain|plain|"
      "record|record|"
      "inside|record|KINESCOPE_PYTHON_SAMPLER=inside"
      "no-sampling|record|--python-sampling=false"
    )
  else
    PARTS=(
      "plain|plain|"
      "record|record|"
      "attached|record|--capture-range=cudaProfilerApi"
      "no-cupti|record|-t nvtx,gpu-metrics"
      "cupti-only|record|-t cuda"
    )
  fi
  steps=${STEPS_PARTS:-300}
  args="--width 1024 --batch 256 --steps $steps"
  [ "${PARTS_MODEL:-small}" = gpt ] && args="--model gpt --width 512 --batch 32 --steps $steps"
  t0=$(date +%s)
  for i in $(seq "${REPEAT_PARTS:-12}"); do
    rs=$(date +%s)
    for j in $(seq 0 $((${#PARTS[@]} - 1))); do
      IFS='|' read -r name how opts <<< "${PARTS[$(( (j + i) % ${#PARTS[@]} ))]}"
      R="$OUT/parts-$name-$i.json"
      run_train "$how" "$opts" "$R" $args
      # the rate each thread got, from the recording's info
      if [ "${PARTS_SET:-}" = sampling ] && [ "$how" = record ]; then
        $KCLI info --format json "$OUT/run.kscope" 2>/dev/null | $PY -c '
import json, sys
for t in json.load(sys.stdin).get("python_sampling", []):
    print("round %s %s tid %d: %d samples, %d waiting, %.1f Hz"
          % (sys.argv[1], t["thread"], t["tid"], t["samples"], t["waiting"], t["rate_hz"]))' "$i" \
          >> "$OUT/sampling-rates-$name.txt"
      fi
    done
    now=$(date +%s)
    echo "round $i: $((now - rs)) s"
    [ $((now - t0 + now - rs)) -gt "${PARTS_SECONDS:-480}" ] && break
  done
  names=()
  for p in "${PARTS[@]}"; do names+=("${p%%|*}"); done
  if [ "${PARTS_SET:-}" = sampling ]; then
    { echo "# Python stack sampling: median step time per process against plain, $steps steps of $args"
      $PY -c 'import sys, torch; print("# python", sys.version.split()[0], "torch", torch.__version__)'
      $PY "$HERE/overhead_summary.py" parts "$OUT" "$steps" "${names[@]}"; } | tee "$OUT/sampling-summary.txt"
  else
    $PY "$HERE/overhead_summary.py" parts "$OUT" "$steps" "${names[@]}"
  fi
  exit 0
fi

if [ "$WHAT" != onoff ]; then
  for m in "${MODELS[@]}"; do
    IFS='|' read -r name args steps n <<< "$m"
    [ "$n" -gt 0 ] || continue
    for i in $(seq "$n"); do
      R="$OUT/$name-$i"
      t $PY "$HERE/train.py" $args --steps "$steps" --result "$R-plain.json"
      t $KCLI record -f -o "$OUT/$name.kscope" -- $PY "$HERE/train.py" $args --steps "$steps" --result "$R-record.json"
      t $PY "$HERE/train.py" $args --steps "$steps" --profile-steps "20:$steps" \
        --torch-profiler "$OUT/$name-torch.json" --result "$R-torchprof.json"
    done
    echo "### $name: kernels of the recording against torch.profiler, steps 20..$((steps - 1))"
    $PY "$HERE/check_train.py" "$OUT/$name.kscope" "$OUT/$name-torch.json" "20:$steps" | grep -E "kernels in steps|failure"
  done
  echo
  $PY "$HERE/overhead_summary.py" table "$OUT" "${MODELS[@]}"
fi

if [ "$WHAT" != table ]; then
  # model, toggle block, steps, variant, environment
  ONOFF=(
    "small|50|2020|control|"
    "small|50|2020|default|"
    "small|50|2020|KINESCOPE_CUPTI_POOL=0|KINESCOPE_CUPTI_POOL=0"
    "small|50|2020|KINESCOPE_CUPTI_PER_THREAD=0|KINESCOPE_CUPTI_PER_THREAD=0"
    "gpt|20|420|control|"
    "gpt|20|420|default|"
    "gpt|20|420|KINESCOPE_CUPTI_POOL=0|KINESCOPE_CUPTI_POOL=0"
    "large|10|210|default|"
  )
  set --
  for v in "${ONOFF[@]}"; do
    IFS='|' read -r name block steps variant envs <<< "$v"
    for m in "${MODELS[@]}"; do
      IFS='|' read -r mname args _ _ <<< "$m"
      [ "$mname" = "$name" ] && break
    done
    R="$OUT/onoff-$name-${variant//[^A-Za-z0-9_.-]/_}.json"
    if [ "$variant" = control ]; then
      t $PY "$HERE/train.py" $args --steps "$steps" --toggle "$block" --result "$R"
    else
      t env $envs $KCLI record -f --capture-range=cudaProfilerApi -o "$OUT/onoff.kscope" -- \
        $PY "$HERE/train.py" $args --steps "$steps" --toggle "$block" --result "$R"
    fi
    set -- "$@" "$name: $variant=$R"
  done
  echo
  $PY "$HERE/overhead_summary.py" onoff "$@"
fi
