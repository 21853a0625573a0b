#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Real runs for the analyses and readers: recordings that start at process
# launch (warm-up first step), traces without steps, record_shapes traces
# with a FLOP reference, memory snapshots, nvidia-smi logs with GPM
# columns and the plain table.  capture-real-runs.sh OUTDIR
# Needs $KCLI (kinescope-cli) and $KINESCOPE_INJECT_DIR as tests/gpu/README.md says.
set -u
out=${1:?usage: capture-real-runs.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
run() { echo "== $*"; "$@" || echo "!! failed ($?): $*"; }

# Recordings from process launch: a DataLoader-bound MLP and the GPT model.
run "$KCLI" record -o "$out/warmup_mlp.kscope" -- \
  python3 "$here/train.py" --steps 35 --loader-work 3000 --loader-in-step
run "$KCLI" record -o "$out/warmup_gpt.kscope" -- \
  python3 "$here/train.py" --model gpt --steps 25

# Traces without steps: a loader-bound loop and a faster twin.
run python3 "$here/nosteps.py" "$out/nosteps_slow.pt.trace.json.gz" --loader-work 3000
run python3 "$here/nosteps.py" "$out/nosteps_fast.pt.trace.json.gz" --loader-work 300

# Shapes and FLOPs.
run python3 "$here/shapes.py" "$out" --dtype fp32
run python3 "$here/shapes.py" "$out" --dtype bf16

# Memory snapshots.
for k in frag oom train; do run python3 "$here/memsnap.py" "$out" $k; done

# nvidia-smi: GPM columns during training, the plain table once and
# repeated, pmon, and memory as nvidia-smi reports it.
python3 "$here/train.py" --model gpt --steps 100000 --forever > "$out/train-load.log" 2>&1 &
train=$!
sleep 10
nvidia-smi dmon --gpm-metrics 1,2,3,4,5,10,11 -c 8 > "$out/nvsmi-dmon-gpm.txt" 2>&1 &
a=$!
nvidia-smi dmon -o DT -s u --gpm-metrics 1,2,3,4,5,10,11 -c 8 > "$out/nvsmi-dmon-gpm-dt.txt" 2>&1 &
b=$!
nvidia-smi pmon -c 6 > "$out/nvsmi-pmon.txt" 2>&1 &
c=$!
timeout 4 nvidia-smi -l 1 > "$out/nvsmi-plain-loop.txt" 2>&1
nvidia-smi --query-gpu=timestamp,memory.used,memory.reserved,memory.total --format=csv > "$out/nvsmi-memory.csv" 2>&1
wait $a $b $c
kill $train; wait $train 2>/dev/null
nvidia-smi > "$out/nvsmi-plain.txt" 2>&1
nvidia-smi -q > "$out/nvsmi-q.txt" 2>&1
ls -la "$out"
