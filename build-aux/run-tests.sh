#!/bin/sh
# Installs the build dependencies, builds, and runs the whole test suite
# (UI tests under Xvfb). Ends with a line "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
./build-aux/install-deps.sh
if [ ! -f _build/build.ninja ]; then
  meson setup _build
fi
ninja -C _build
set +e
xvfb-run -a -s "-screen 0 1920x1080x24" \
  meson test -C _build --print-errorlogs --num-processes 2 "$@"
rc=$?
set -e
python3 - <<'PY'
import json, sys
passed = failed = skipped = 0
try:
    with open('_build/meson-logs/testlog.json') as f:
        for line in f:
            r = json.loads(line).get('result')
            if r in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif r == 'SKIP':
                skipped += 1
            else:
                failed += 1
except FileNotFoundError:
    failed = 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
