#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GPM against nvidia-smi, on a GPU machine with GPM (Hopper or later):
#
#   KCLI=_build/src/cli/kinescope-cli tests/gpu/gpm-check.sh OUTDIR
#
# 0. The GPM and memory declarations of ks-nvml.c against nvml.h.
# 1. While train.py --model gpt trains, kinescope-cli monitor --format csv
#    (the GPM columns and memory.used), nvidia-smi dmon --gpm-metrics
#    1,2,3,4,5,10,11 and nvidia-smi --query-gpu=memory.used sample the
#    same seconds (SAMPLES of them, default 10). Per column: the largest
#    difference over the seconds all three have (each tool's first GPM
#    interval left out), PASS within 2 points (memory.used and
#    memory.reserved: equal).
# 2. Recording overhead: ROUNDS (default 5) rounds of two recordings of
#    train.py --model gpt --steps STEPS (default 300), with GPM and with
#    KINESCOPE_NVML_GPM=0, their order turning each round; per recording
#    the median step time after the first 10, per mode the median of
#    those; PASS when GPM adds under 1 %.
# The verdicts come from gpm_compare.py, which can be run again on OUTDIR.
# Exits 1 when a check fails.
set -u
OUT=${1:?usage: KCLI=kinescope-cli gpm-check.sh OUTDIR}
KCLI=${KCLI:?set KCLI to the built kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
SAMPLES=${SAMPLES:-10}
ROUNDS=${ROUNDS:-5}
STEPS=${STEPS:-300}
mkdir -p "$OUT"

# 0. the GPM and memory declarations of ks-nvml.c against the real nvml.h
cat > "$OUT/gpm_abi.c" <<'CEOF'
#include <nvml.h>
#include <stddef.h>
_Static_assert (sizeof (nvmlMemory_v2_t) == 40 && nvmlMemory_v2 == (40 | (2u << 24)), "memory v2");
_Static_assert (sizeof (nvmlGpmMetric_t) == 40 && offsetof (nvmlGpmMetricsGet_t, metrics) == 24, "gpm structs");
_Static_assert (NVML_GPM_METRICS_GET_VERSION == 1 && NVML_GPM_SUPPORT_VERSION == 1, "gpm versions");
_Static_assert (NVML_GPM_METRIC_SM_UTIL == 2 && NVML_GPM_METRIC_SM_OCCUPANCY == 3 &&
                NVML_GPM_METRIC_ANY_TENSOR_UTIL == 5 && NVML_GPM_METRIC_DRAM_BW_UTIL == 10 &&
                NVML_GPM_METRIC_FP64_UTIL == 11 && NVML_GPM_METRIC_FP32_UTIL == 12 &&
                NVML_GPM_METRIC_FP16_UTIL == 13 && NVML_GPM_METRIC_PCIE_TX_PER_SEC == 20 &&
                NVML_GPM_METRIC_PCIE_RX_PER_SEC == 21 && NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC == 60 &&
                NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC == 61, "gpm metric ids");
int main (void) { return 0; }
CEOF
if gcc -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$OUT/gpm_abi" "$OUT/gpm_abi.c"; then
  echo "GPM declarations match nvml.h  PASS"
else
  echo "GPM declarations match nvml.h  FAIL"
  abi_fail=1
fi

# 1. the same seconds
$PY "$HERE/train.py" --model gpt --steps 100000 --forever --progress > "$OUT/train.log" 2>&1 &
train=$!
trap 'kill $train 2>/dev/null' EXIT
# Sample only once the model trains at its pace: past step 30 (a cold
# machine takes 20 s and more to import torch and start); a transition
# inside the seconds sampled would compare two tools' different seconds.
for _ in $(seq 1 600); do
  [ "$(grep -c '^step' "$OUT/train.log" 2>/dev/null)" -ge 30 ] && break
  kill -0 $train 2>/dev/null || break
  sleep 0.2
done
if [ "$(grep -c '^step' "$OUT/train.log" 2>/dev/null)" -lt 30 ]; then
  echo "the training load did not reach step 30 (see $OUT/train.log)  FAIL"
  abi_fail=1
fi
"$KCLI" monitor --format csv,noheader,nounits -l 1 -c "$SAMPLES" \
  --query-gpu timestamp,index,sm_active,sm_occupancy,tensor_active,dram_active,fp64_active,memory.used,memory.reserved \
  > "$OUT/monitor.csv" 2> "$OUT/monitor.err" &
m=$!
nvidia-smi dmon -o DT -s u --gpm-metrics 1,2,3,4,5,10,11 -c "$SAMPLES" > "$OUT/dmon.txt" &
d=$!
nvidia-smi --query-gpu=timestamp,index,memory.used,memory.reserved --format=csv,noheader,nounits -l 1 \
  > "$OUT/memory.csv" &
q=$!
wait $m $d
kill $q 2>/dev/null
kill $train 2>/dev/null; wait $train 2>/dev/null
trap - EXIT

# 2. with and without GPM, interleaved
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="gpm nogpm"; else order="nogpm gpm"; fi
  for mode in $order; do
    if [ $mode = nogpm ]; then set -- env KINESCOPE_NVML_GPM=0; else set -- env; fi
    "$@" "$KCLI" record -f -t cuda,nvtx,gpu-metrics -o "$OUT/$mode.kscope" -- \
      $PY "$HERE/train.py" --model gpt --steps "$STEPS" --result "$OUT/$mode-$r.json" \
      > "$OUT/$mode-$r.log" 2>&1 || echo "failed: $mode round $r (see $OUT/$mode-$r.log)"
  done
done

$PY "$HERE/gpm_compare.py" "$OUT" "$ROUNDS" && [ -z "${abi_fail:-}" ]
