#!/bin/sh
# Installs the build dependencies, builds, and runs the whole test suite
# (UI tests under Xvfb) twice: in the normal build, then in a build with
# AddressSanitizer and UndefinedBehaviorSanitizer. Ends with a line
# "N passed, N failed" that counts both runs.
set -eu
cd "$(dirname "$0")/.."
./build-aux/install-deps.sh
[ -f _build/build.ninja ] || meson setup _build
[ -f _build-san/build.ninja ] || meson setup _build-san -Db_sanitize=address,undefined -Db_lundef=false
ninja -C _build
ninja -C _build-san

set +e
xvfb-run -a -s "-screen 0 1920x1080x24" \
  meson test -C _build --print-errorlogs --num-processes 2 "$@"
rc=$?
xvfb-run -a -s "-screen 0 1920x1080x24" \
  meson test -C _build-san --setup sanitize --print-errorlogs --num-processes 2 "$@"
rc_san=$?
set -e
python3 - <<'PY'
passed = failed = skipped = 0
import json
for log in ('_build/meson-logs/testlog.json', '_build-san/meson-logs/testlog-sanitize.json'):
    try:
        with open(log) as f:
            for line in f:
                r = json.loads(line).get('result')
                if r in ('OK', 'EXPECTEDFAIL'):
                    passed += 1
                elif r == 'SKIP':
                    skipped += 1
                else:
                    failed += 1
    except FileNotFoundError:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
[ $rc -eq 0 ] && [ $rc_san -eq 0 ]
