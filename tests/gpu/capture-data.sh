#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The H200 data the tests keep in tests/data and the corpus-style checks
# read: nvidia-smi logs of a training run, an eager/compile pair, a
# two-rank DDP folder.  capture-data.sh OUTDIR
set -e
out=${1:?usage: capture-data.sh OUTDIR}
here=$(dirname "$0")
mkdir -p "$out"
q=timestamp,index,name,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,power.draw,clocks.sm

python3 "$here/train.py" --model gpt --steps 100000 --forever > "$out/train.log" 2>&1 &
train=$!
sleep 8
nvidia-smi --query-gpu=$q --format=csv -l 1 > "$out/nvsmi-query.csv" &
a=$!
nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -l 1 > "$out/nvsmi-query-noheader-nounits.csv" &
b=$!
nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw --format=csv -l 1 > "$out/nvsmi-query-notime.csv" &
c=$!
nvidia-smi dmon -c 12 > "$out/nvsmi-dmon.txt" &
d=$!
nvidia-smi dmon -o DT -c 12 > "$out/nvsmi-dmon-dt.txt" &
e=$!
nvidia-smi pmon -c 12 > "$out/nvsmi-pmon.txt" &
f=$!
wait $d $e $f
kill $a $b $c
kill $train; wait $train 2>/dev/null || true
nvidia-smi > "$out/nvsmi-plain.txt"
