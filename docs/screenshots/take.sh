#!/bin/sh
# Regenerates the screenshot tour in docs/screenshots/ from the application
# itself: each side page of the window on the demo trace, in the light and
# the dark style, in Chinese (zh_CN) and at 800×600; then, in English and
# in Chinese, an nvidia-smi log, a rank folder of two DDP ranks and the
# Compare view of a before/after pair. It also retakes the README's and
# AppStream screenshots (data/screenshots/).
#
#   docs/screenshots/take.sh [BUILDDIR]      (default: _build)
#
# Needs xvfb-run; the build directory must be configured with the GUI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$top/_build}" && pwd)
trace="$top/data/loader_bound.pt.trace.json.gz"
tool="$build/data/ks-screenshot"

command -v xvfb-run >/dev/null || { echo "take.sh: xvfb-run is needed" >&2; exit 1; }
ninja -C "$build" data/ks-screenshot data/gschemas.compiled po/zh_CN/LC_MESSAGES/kinescope.mo

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

shoot () {
  env GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$build/data" KS_SCREENSHOT_HOME="$home" "$@"
}

run () {
  shoot xvfb-run -a -s "-screen 0 1920x1080x24" "$tool" "$@" "$trace" "$here"
}

# The tour's other traces: TRACE OPTIONS... (a --tour NAME among them).
run_on () {
  file=$1
  shift
  shoot xvfb-run -a -s "-screen 0 1920x1080x24" "$tool" "$@" "$file" "$here"
}

data="$top/tests/data"
others () {
  lang=$1
  run_on "$data/nvsmi_h200_query.csv" --tour "$lang-nvsmi" --pages summary
  run_on "$data/ddp_gloo_2ranks" --tour "$lang-rank-folder" --pages summary,steps,ranks
  run_on "$data/nosteps_slow.pt.trace.json.gz" --tour "$lang-before-after" --pages steps \
    --compare "$data/nosteps_fast.pt.trace.json.gz"
}

run --tour light
run --tour dark --dark
# Chinese needs a font with its characters, else every one is a box
# (build-aux/install-deps.sh installs fonts-wqy-microhei).
if [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  echo "take.sh: no font for Chinese (fc-list :lang=zh is empty); run build-aux/install-deps.sh" >&2
  exit 1
fi
LANGUAGE=zh_CN LC_ALL=C.UTF-8 run --tour zh_CN
run --tour 800x600 --size 800x600
others light
(LANGUAGE=zh_CN LC_ALL=C.UTF-8; export LANGUAGE LC_ALL; others zh_CN)

# The README's and AppStream screenshots.
shoot xvfb-run -a -s "-screen 0 1920x1080x24" "$tool" "$trace" "$top/data/screenshots"
