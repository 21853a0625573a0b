#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The RecordFunction observer on a real torch, against torch's NVTX
# emission (about 2 minutes; the observer's first build comes on top):
#
#   tests/gpu/observer-check.sh OUTDIR
#
# Needs $KCLI (with KINESCOPE_INJECT_DIR and KINESCOPE_PYTHON_DIR as for any
# run from the build tree) and python3 with CUDA PyTorch, a C++ compiler and
# ninja.
#
# 1. train.py --model transformer --annotate-steps, 30 steps, recorded with
#    the observer (the default) and with KINESCOPE_TORCH_OPERATORS=nvtx,
#    then both again with --pytorch=autograd-shapes-nvtx; observer_compare.py
#    over steps 10..29: calls, sequence numbers, sizes and parent operators
#    per name equal. The recordings' diagnostics say which path each took.
# 2. The fallback: with CXX=/bin/false and an empty cache, the build fails,
#    the recording says why and its operators come from NVTX emission.
# 3. The program's own emit_nvtx(): 5 matrix products before, 5 inside and
#    5 after; the recording has exactly 15 aten::mm, not 20.
#
# Prints PASS/FAIL lines; everything is kept in OUTDIR (summary.txt holds
# the verdicts). Exits 1 when a check fails.
set -u
OUT=${1:?usage: observer-check.sh OUTDIR}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
: > "$OUT/summary.txt"
export PYTHONUNBUFFERED=1
fail=0
say () { echo "$*" | tee -a "$OUT/summary.txt"; }
verdict () { if [ "$1" = 0 ]; then say "PASS $2"; else say "FAIL $2"; fail=1; fi; }
record () { local out=$1; shift; timeout 300 "$@" > "$out.log" 2>&1 || say "(failed: $* — see $out.log)"; }
diags () {
  $PY - "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for severity, text in db.execute("SELECT severity, text FROM KS_DIAGNOSTICS WHERE text LIKE 'PyTorch operators%'"):
    print(f"  {severity}: {text}")
EOF
}

say "=== 1. observer against NVTX emission, transformer, steps 10..29"
for mode in autograd-nvtx autograd-shapes-nvtx; do
  t=$(date +%s)
  record "$OUT/obs-$mode" $KCLI record -f --pytorch=$mode -o "$OUT/obs-$mode.kscope" -- \
    $PY "$HERE/train.py" --model transformer --annotate-steps --steps 30
  say "$mode, observer: recorded in $(( $(date +%s) - t )) s"
  diags "$OUT/obs-$mode.kscope" | tee -a "$OUT/summary.txt"
  record "$OUT/nvtx-$mode" env KINESCOPE_TORCH_OPERATORS=nvtx $KCLI record -f --pytorch=$mode \
    -o "$OUT/nvtx-$mode.kscope" -- $PY "$HERE/train.py" --model transformer --annotate-steps --steps 30
  diags "$OUT/nvtx-$mode.kscope" | tee -a "$OUT/summary.txt"
  $PY "$HERE/observer_compare.py" "$OUT/obs-$mode.kscope" "$OUT/nvtx-$mode.kscope" 10:30 \
    > "$OUT/compare-$mode.txt" 2>&1
  rc=$?
  sed 's/^/  /' "$OUT/compare-$mode.txt" | tee -a "$OUT/summary.txt"
  grep -q "from the RecordFunction observer" <(diags "$OUT/obs-$mode.kscope") || rc=1
  verdict $rc "$mode: the observer's operators equal NVTX emission's (and the observer was used)"
done

cat > "$OUT/mm.py" <<'EOF'
import torch
x = torch.randn(64, 64, device="cuda")
for _ in range(5):
    x = torch.mm(x, x).tanh()
with torch.autograd.profiler.emit_nvtx():
    for _ in range(5):
        x = torch.mm(x, x).tanh()
for _ in range(5):
    x = torch.mm(x, x).tanh()
torch.cuda.synchronize()
EOF
count_mm () {
  $PY - "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 59 "
                 "AND (text = 'aten::mm' OR text LIKE 'aten::mm, %')").fetchone()[0])
EOF
}

say "=== 2. no compiler: NVTX emission, and the recording says why"
rm -rf "$OUT/empty-cache"
record "$OUT/fallback" env XDG_CACHE_HOME="$OUT/empty-cache" CXX=/bin/false \
  $KCLI record -f -o "$OUT/fallback.kscope" -- $PY "$OUT/mm.py"
diags "$OUT/fallback.kscope" | tee -a "$OUT/summary.txt"
n=$(count_mm "$OUT/fallback.kscope")
say "  aten::mm rows: $n (want 15)"
rc=1
grep -q "warning: PyTorch operators come from NVTX emission" <(diags "$OUT/fallback.kscope") && [ "$n" = 15 ] && rc=0
verdict $rc "fallback to NVTX emission with a warning, the 15 aten::mm still recorded once each"

say "=== 3. the program's own emit_nvtx(): each operator once"
record "$OUT/pause" $KCLI record -f -o "$OUT/pause.kscope" -- $PY "$OUT/mm.py"
diags "$OUT/pause.kscope" | tee -a "$OUT/summary.txt"
n=$(count_mm "$OUT/pause.kscope")
say "  aten::mm rows: $n (want 15)"
[ "$n" = 15 ]
verdict $? "15 aten::mm under the observer with the program's emit_nvtx() in the middle"

say "fail=$fail"
exit $fail
