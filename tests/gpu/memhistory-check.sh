#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# record --cuda-memory-history on the GPU: a normal run and one that dies of
# a fragmentation out-of-memory error (SIGKILL right after it), each
# compared with torch's own memory_stats() and _snapshot() figures.
#
#   KCLI=.../kinescope-cli memhistory-check.sh OUTDIR
#
# Writes OUTDIR/summary.txt (the verdict, one line per figure), the
# recordings, their reports and torch's figures. About 30 s.
set -u
out=${1:?usage: memhistory-check.sh OUTDIR}
kcli=${KCLI:?set KCLI to kinescope-cli}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for mode in normal oom; do
  "$kcli" record -f -t cuda,nvtx --cuda-memory-history -o "$out/memhistory-$mode.kscope" \
    -- python3 "$here/memhistory.py" run "$out" "$mode" > "$out/record-$mode.log" 2>&1
  echo "record exit status: $? (oom: 137, killed by the program itself)" >> "$out/record-$mode.log"
  "$kcli" stats --report memory-snapshot -f json "$out/memhistory-$mode.kscope" \
    > "$out/report-$mode.json" 2> "$out/report-$mode.err"
  "$kcli" stats --report memory-snapshot "$out/memhistory-$mode.kscope" > "$out/report-$mode.txt" 2>&1
done
python3 "$here/memhistory.py" compare "$out" > "$out/summary.txt" 2>&1
cat "$out/summary.txt"
