#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Opening a large PyTorch memory snapshot (docs/performance.md, "GPU memory
# snapshots"): generates one with gen-memsnap.py when it is not there yet,
# then times kinescope-cli info and stats --report memory-snapshot on it
# (CPU time, wall time and peak memory, from /usr/bin/time).
#
#   bench/memsnap-scale.sh [KINESCOPE-CLI] [ENTRIES] [FILE]
#
# Defaults: _build/src/cli/kinescope-cli, 14 500 000 entries (a 1 GB
# pickle), /tmp/kinescope-memsnap-ENTRIES.pickle. Generating takes some
# 4 CPU minutes of Python, written as it goes (a few MB of memory).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-$here/../_build/src/cli/kinescope-cli}
entries=${2:-14500000}
file=${3:-/tmp/kinescope-memsnap-$entries.pickle}
if [ ! -s "$file" ]; then
  python3 "$here/gen-memsnap.py" "$entries" "$file.part"
  mv "$file.part" "$file"
fi
echo "$file: $(stat -c %s "$file") bytes, $entries trace entries"
for cmd in "info" "stats --report memory-snapshot -f json"; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "$cmd: %U s user %S s system %e s wall %M KB peak" "$cli" $cmd "$file" > /dev/null
done
