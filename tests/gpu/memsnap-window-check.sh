#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A memory snapshot with segment_free entries (torch.cuda.empty_cache())
# and a demand out-of-memory error, with the profiler's trace of the same
# run, through the built kinescope-cli (about a minute):
#
#   KCLI=_build/src/cli/kinescope-cli tests/gpu/memsnap-window-check.sh OUTDIR
#
# 1. memsnap_window.py makes OUTDIR/snap.pickle, trace.pt.trace.json.gz
#    and facts.json (torch's counts of segment_free and oom entries).
# 2. kinescope-cli info on the snapshot: its instants are the segment
#    events and the OOM (PASS when at least segment_free + oom of them).
# 3. kinescope-cli stats --report memory-snapshot: one OOM, cause
#    "demand" (the request is larger than any free memory), PASS.
# 4. kinescope-cli render TRACE SNAPSHOT: the two on one time axis (exit
#    0, a PNG), PASS; render of the snapshot alone, for a look.
# Results: OUTDIR/summary.txt (one PASS/FAIL line a check), the PNGs, the
# commands' outputs. Exits 1 when a check fails.
set -u
OUT=${1:?usage: KCLI=kinescope-cli memsnap-window-check.sh OUTDIR}
KCLI=${KCLI:?set KCLI to the built kinescope-cli}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT"
SUM="$OUT/summary.txt"
: > "$SUM"
fail=0
verdict () { echo "$1  $2" | tee -a "$SUM"; [ "$2" = PASS ] || fail=1; }

if ! $PY "$HERE/memsnap_window.py" "$OUT" > "$OUT/memsnap_window.log" 2>&1; then
  verdict "memsnap_window.py ran (see memsnap_window.log)" FAIL
  exit 1
fi
verdict "memsnap_window.py ran: $(tr -d '\n' < "$OUT/facts.json")" PASS

"$KCLI" info --format json "$OUT/snap.pickle" > "$OUT/info.json" 2> "$OUT/info.err"
$PY - "$OUT" <<'PYEOF' >> "$OUT/checks.txt"
import json, sys
out = sys.argv[1]
facts = json.load(open(out + "/facts.json"))
try:
    info = json.load(open(out + "/info.json"))
except Exception as e:
    print("info FAIL could not read info.json:", e); sys.exit()
def find(d, key):
    if isinstance(d, dict):
        for k, v in d.items():
            if k == key: return v
            r = find(v, key)
            if r is not None: return r
    return None
instants = find(info, "instant") or 0
need = facts["segment_free"] + facts["oom"]
print("info", "PASS" if facts["segment_free"] > 0 and instants >= need else "FAIL",
      f"instants {instants}, torch's segment_free {facts['segment_free']} + oom {facts['oom']}")
PYEOF

"$KCLI" stats --report memory-snapshot --format json "$OUT/snap.pickle" > "$OUT/stats.json" 2> "$OUT/stats.err"
$PY - "$OUT" <<'PYEOF' >> "$OUT/checks.txt"
import json, sys
out = sys.argv[1]
try:
    r = json.load(open(out + "/stats.json"))
except Exception as e:
    print("stats FAIL could not read stats.json:", e); sys.exit()
ooms = r.get("ooms", [])
causes = [o.get("cause") for o in ooms]
print("stats", "PASS" if len(ooms) == 1 and causes == ["demand"] else "FAIL", f"ooms {len(ooms)}, causes {causes}")
PYEOF
while read -r what v rest; do verdict "$what: $rest" "$v"; done < "$OUT/checks.txt"

if "$KCLI" render -o "$OUT/with-trace.png" "$OUT/trace.pt.trace.json.gz" "$OUT/snap.pickle" > "$OUT/render.log" 2>&1 \
   && [ -s "$OUT/with-trace.png" ]; then
  verdict "render TRACE SNAPSHOT on one axis (with-trace.png)" PASS
else
  verdict "render TRACE SNAPSHOT on one axis (see render.log)" FAIL
fi
"$KCLI" render -o "$OUT/snapshot.png" "$OUT/snap.pickle" >> "$OUT/render.log" 2>&1
exit $fail
