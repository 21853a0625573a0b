# curve-setup.sh: what bench/import-curve.sh and bench/reload-curve.sh
# share, sourced by them after setting USAGE and BUDGET_DEFAULT: the
# command line and the environment (KCLI, GEN, FIXTURE, SIZES, REPEAT,
# BUDGET_S, TRACE_DIR, the cores), the checks, and OUT/machine.txt.
set -u
OUT=${1:?usage: $USAGE}
shift
KCLI=${KCLI:?set KCLI to the built kinescope-cli}
GEN=${GEN:-$(dirname "$KCLI")/../../bench/ks-gen-trace}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURE=${FIXTURE:-$HERE/../tests/data/gpt_3steps.pt.trace.json.gz}
SIZES=${SIZES:-"503 1260"}
REPEAT=${REPEAT:-3}
BUDGET_S=${BUDGET_S:-$BUDGET_DEFAULT}
TRACE_DIR=${TRACE_DIR:-/tmp}
CORES=${*:-"1 2 4 8 16"}
NPROC=$(nproc)
mkdir -p "$OUT"
[ -x "$GEN" ] || { echo "no ks-gen-trace at $GEN: set GEN" >&2; exit 2; }
[ -f "$FIXTURE" ] || { echo "no fixture at $FIXTURE: set FIXTURE" >&2; exit 2; }

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(uname -n), $NPROC cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  # threads per core and sockets: 16 virtual cores on 8 physical ones
  # cannot give 16 cores' speedup to work that fills a core
  echo "topology: $(lscpu 2>/dev/null | grep -E '^(Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|L3 cache|Hypervisor vendor):' | sed 's/  */ /g' | paste -sd ';' -)"
  echo "memory: $(free -g | awk '/Mem:/ {print $2 " GiB"}')"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "kinescope-cli: $KCLI ($(cd "$HERE/.." && git rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "sizes: $SIZES MB of JSON, cores: $CORES, best of $REPEAT"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
