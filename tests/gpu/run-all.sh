#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every GPU check of the collector; see README.md.
#
#   tests/gpu/run-all.sh OUTDIR
#
# KCLI: how to run kinescope-cli (default: kinescope-cli from PATH);
# KINESCOPE_INJECT_DIR: where libkinescope-inject.so is, if not installed.
set -u
OUT=${1:-/tmp/kinescope-gpu}
KCLI=${KCLI:-kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
fail=0
step () { echo; echo "=== $*"; }
run () { echo "+ $*"; "$@"; rc=$?; echo "[rc=$rc]"; return $rc; }

step "build selftest"
run nvcc -O2 -o "$OUT/selftest" "$HERE/selftest.cu" -ldl || exit 1

step "selftest, no capture range"
run $KCLI record -f -o "$OUT/self-none.kscope" -- "$OUT/selftest" || fail=1
run $PY "$HERE/check_selftest.py" "$OUT/self-none.kscope" none || fail=1

step "selftest, --capture-range=cudaProfilerApi"
run $KCLI record -f --capture-range=cudaProfilerApi -o "$OUT/self-range.kscope" -- "$OUT/selftest" || fail=1
run $PY "$HERE/check_selftest.py" "$OUT/self-range.kscope" range || fail=1

step "PyTorch: plain, under kinescope-cli record, under torch.profiler (overhead)"
export PYTHONUNBUFFERED=1
S=300
run $PY "$HERE/train.py" --steps $S --result "$OUT/plain.json"
run $KCLI record -f -o "$OUT/train.kscope" -- $PY "$HERE/train.py" --steps $S --result "$OUT/recorded.json" || fail=1
run $PY "$HERE/train.py" --steps $S --profile-steps 20:$S --torch-profiler "$OUT/torch-trace.json" --result "$OUT/torchprof.json"
run $PY "$HERE/check_train.py" "$OUT/train.kscope" "$OUT/torch-trace.json" 20:$S || fail=1
run $PY "$HERE/overhead.py" 20 $S "no profiler=$OUT/plain.json" "kinescope-cli record=$OUT/recorded.json" \
  "torch.profiler (CPU+CUDA)=$OUT/torchprof.json" | tee "$OUT/overhead.txt"

step "PyTorch with --capture-range=nvtx:step 25"
run $KCLI record -f --capture-range="nvtx:step 25" -o "$OUT/nvtx-range.kscope" -- $PY "$HERE/train.py" --steps 40 || fail=1
$PY - "$OUT/train.kscope" "$OUT/nvtx-range.kscope" <<'PYEOF' || fail=1
import sqlite3, sys
full = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
part = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
s = full.execute("SELECT start, end FROM NVTX_EVENTS WHERE text = 'step 25'").fetchone()
want = full.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                    "ON r.correlationId = k.correlationId AND r.globalTid / 16777216 = k.globalPid / 16777216 "
                    "WHERE r.start >= ? AND r.end <= ?", s).fetchone()[0]
got = part.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
steps = [r[0] for r in part.execute("SELECT text FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'step %'")]
print("kernels in step 25 of the full recording", want, "recorded with the range", got, "step ranges", steps)
sys.exit(0 if got == want and steps == ["step 25"] else 1)
PYEOF

step "PyTorch with -t osrt (DataLoader worker processes)"
run $KCLI record -f -t cuda,nvtx,osrt,gpu-metrics -o "$OUT/osrt.kscope" -- $PY "$HERE/train.py" --steps 40 || fail=1
run sqlite3 "$OUT/osrt.kscope" "SELECT pid, name FROM PROCESSES" \
  "SELECT s.value, COUNT(*), SUM(o.end - o.start) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId GROUP BY 1 ORDER BY 3 DESC LIMIT 8" 2>/dev/null \
  || $PY -c "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); print(d.execute('SELECT pid,name FROM PROCESSES').fetchall()); print(d.execute('SELECT s.value, COUNT(*), SUM(o.end-o.start) FROM OSRT_API o JOIN StringIds s ON s.id=o.nameId GROUP BY 1 ORDER BY 3 DESC LIMIT 8').fetchall())" "$OUT/osrt.kscope"

step "torchrun: the rank process is injected"
run $KCLI record -f -o "$OUT/torchrun.kscope" -- $PY -m torch.distributed.run --nproc-per-node=1 "$HERE/train.py" --steps 20 --workers 0 || fail=1
$PY - "$OUT/torchrun.kscope" <<'PYEOF' || fail=1
import sqlite3, sys
d = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
procs = d.execute("SELECT pid, name FROM PROCESSES").fetchall()
kpids = d.execute("SELECT DISTINCT globalPid / 16777216 FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
print("processes", procs, "processes with kernels", kpids)
sys.exit(0 if len(procs) >= 2 and len(kpids) == 1 else 1)
PYEOF

step "torch.compile: Triton kernels through the driver API"
run $KCLI record -f -o "$OUT/compile.kscope" -- $PY "$HERE/compile_check.py" run || fail=1
run $PY "$HERE/compile_check.py" check "$OUT/compile.kscope" || fail=1

step "torch.profiler inside a recorded program (second CUPTI client)"
run $KCLI record -f -o "$OUT/conflict.kscope" -- $PY "$HERE/train.py" --steps 40 --profile-steps 20:30 --torch-profiler "$OUT/conflict-torch.json" 2>&1 | tail -20
$PY -c "import sqlite3,sys,json; d=sqlite3.connect(sys.argv[1]); print(d.execute(\"SELECT severity, text FROM KS_DIAGNOSTICS WHERE source='cupti'\").fetchall()); print('kernels', d.execute('SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchone()); t=json.load(open(sys.argv[2]))['traceEvents']; print('torch.profiler kernels', sum(1 for e in t if e.get('cat')=='kernel'))" "$OUT/conflict.kscope" "$OUT/conflict-torch.json"

step "SIGKILL of the program mid-run"
$KCLI record -f -o "$OUT/killed.kscope" -- $PY "$HERE/train.py" --forever > "$OUT/killed.log" 2>&1 &
rec=$!
sleep 20
child=$(pgrep -P $rec | head -1)
echo "recorder $rec, program $child"
kill -KILL "$child"
wait $rec; echo "[recorder rc=$?]"
tail -12 "$OUT/killed.log"
$PY - "$OUT/killed.kscope" <<'PYEOF' || fail=1
import sqlite3, sys
d = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
ok = d.execute("PRAGMA integrity_check").fetchone()[0]
meta = dict(d.execute("SELECT name, value FROM KS_META").fetchall())
k = d.execute("SELECT COUNT(*), MAX(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
print("integrity", ok, "complete", meta.get("complete"), "end_reason", meta.get("end_reason"), "kernels", k[0], "last kernel end (s)", k[1] / 1e9)
sys.exit(0 if ok == "ok" and meta.get("complete") == "0" and k[0] > 0 else 1)
PYEOF

step "NVML ABI against the real nvml.h"
cat > "$OUT/nvml_abi.c" <<'CEOF'
#include <nvml.h>
#include <stddef.h>
_Static_assert (sizeof (nvmlUtilization_t) == 8, "util");
_Static_assert (sizeof (nvmlMemory_t) == 24, "memory");
_Static_assert (sizeof (nvmlPciInfo_t) == 68, "pci");
_Static_assert (offsetof (nvmlPciInfo_t, busId) == 36, "busId");
_Static_assert (NVML_TEMPERATURE_GPU == 0 && NVML_CLOCK_SM == 1, "enums");
int main (void) { return 0; }
CEOF
run gcc -I/usr/local/cuda/include -o "$OUT/nvml_abi" "$OUT/nvml_abi.c" || fail=1

step "result"
echo "fail=$fail"
exit $fail
