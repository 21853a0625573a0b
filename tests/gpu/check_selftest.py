#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks a recording of selftest.cu.

    check_selftest.py FILE.kscope none|range

'none': recorded without a capture range; 'range': with
--capture-range=cudaProfilerApi (iterations 10..19 only). Prints each
check and exits 1 if any fails."""

import sqlite3
import sys

path, mode = sys.argv[1], sys.argv[2]
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
failures = 0


def q(sql, *args):
    return db.execute(sql, args).fetchall()


def one(sql, *args):
    return q(sql, *args)[0][0]


def check(name, got, want):
    global failures
    ok = got == want
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {got!r}" + ("" if ok else f" (want {want!r})"))


def check_true(name, cond, detail=""):
    global failures
    failures += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name} {detail}")


def tables():
    return {r[0] for r in q("SELECT name FROM sqlite_master WHERE type='table'")}


n = 100 if mode == "none" else 10
t = tables()

check("KS_META complete", one("SELECT value FROM KS_META WHERE name='complete'"), "1")
check("application_id", one("PRAGMA application_id"), 0x4B53434F)
spin = q("SELECT k.start, k.end, k.streamId, k.correlationId, k.globalPid, k.gridX, k.blockX "
         "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE s.value = 'spin'")
check("spin kernels", len(spin), n)
streams = {}
for r in spin:
    streams[r[2]] = streams.get(r[2], 0) + 1
check("kernels per stream", sorted(streams.values()), [n // 2, n // 2])
check("grid/block", sorted({(r[5], r[6]) for r in spin}), [(1, 32)])
durations = sorted(r[1] - r[0] for r in spin)
check_true("kernel durations >= 50 us", durations[0] >= 50000, f"min {durations[0]} ns, max {durations[-1]} ns")
check_true("kernel durations < 2 ms", durations[-1] < 2000000)
for sid in streams:
    ks = sorted((r[0], r[1]) for r in spin if r[2] == sid)
    check_true(f"no overlap on stream {sid}", all(ks[i][1] <= ks[i + 1][0] for i in range(len(ks) - 1)))

copies = q("SELECT bytes, copyKind, srcKind, dstKind, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY")
pinned = [c for c in copies if c[0] == 1 << 20]
check("1 MiB HtoD pinned copies", len(pinned), n)
# Nsight's memory kinds: 0 pageable, 1 pinned, 2 device
check("their kinds (copy, src, dst)", sorted({c[1:4] for c in pinned}), [(1, 1, 2)])
memsets = q("SELECT bytes, streamId FROM CUPTI_ACTIVITY_KIND_MEMSET")
check("memsets of 512 KiB", len([m for m in memsets if m[0] == 512 << 10]), n)
copy_streams = {c[4] for c in pinned}
set_streams = {m[1] for m in memsets}
check_true("copies on one stream, memsets on another", len(copy_streams) == 1 and len(set_streams) == 1
           and copy_streams != set_streams, f"{copy_streams} {set_streams}")
check_true("kernel streams are the copy and memset streams", set(streams) == copy_streams | set_streams)
pageable = sorted((c[1], c[2]) for c in copies if c[0] == 256 << 10)
check("256 KiB pageable copies (HtoD, DtoH)", pageable, [(1, 0), (2, 2)] if mode == "none" else [])

launch = q("SELECT k.correlationId, r.start, r.end, r.globalTid, s.value, k.start "
           "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds ks ON ks.id = k.shortName "
           "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
           "AND r.globalTid / 16777216 = k.globalPid / 16777216 JOIN StringIds s ON s.id = r.nameId "
           "WHERE ks.value = 'spin' AND r.eventClass = 0")
check("every kernel joins one runtime launch", len(launch), n)
check("launch API names", sorted({r[4] for r in launch}), ["cudaLaunchKernel_v7000"])
check_true("kernels start after their launch call starts", all(r[5] >= r[1] for r in launch))
syncs = q("SELECT syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
check("stream synchronizations", len([s for s in syncs if s[0] == 3]), 2 * n)

nvtx = q("SELECT n.start, n.end, n.eventType, COALESCE(n.text, s.value), n.globalTid, n.domainId, n.color "
         "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId")
iters = [r for r in nvtx if r[3] == "iter" and r[2] == 59]
subs = [r for r in nvtx if r[3] == "sub" and r[2] == 59]
alls = [r for r in nvtx if r[3] == "all" and r[2] == 59]
check("iter ranges", len(iters), n)
check("sub ranges (domain selftest)", len(subs), n)
check("all range", len(alls), 1)
domains = {r[3]: r[5] for r in nvtx if r[2] == 75}
check("domains", sorted(domains), ["other", "selftest"])
check_true("sub ranges carry the selftest domain and colour",
           all(r[5] == domains.get("selftest") and r[6] == 0xFF3366CC for r in subs))
check_true("iter ranges nest inside all", all(alls[0][0] <= r[0] and r[1] <= alls[0][1] for r in iters))
check_true("sub ranges nest inside an iter", all(any(i[0] <= s[0] and s[1] <= i[1] for i in iters) for s in subs))
check_true("each kernel's launch lies in an iter range on the same thread",
           all(any(i[4] == r[3] and i[0] <= r[1] and r[2] <= i[1] for i in iters) for r in launch))
startend = [r for r in nvtx if r[2] == 60]
marks = [r for r in nvtx if r[2] == 34]
if mode == "none":
    check("start/end ranges", [(r[3], r[5]) for r in startend], [("copies", domains.get("other"))])
    check("marks", [r[3] for r in marks], ["done"])
else:
    check("start/end ranges outside the range", len(startend), 0)
    check("marks outside the range", len(marks), 0)
    caps = q("SELECT text FROM KS_DIAGNOSTICS WHERE source = 'capture'")
    check("capture range start/stop", sorted(c[0].split()[2] for c in caps), ["started", "stopped"])

check("dropped records", one("SELECT value FROM KS_META WHERE name='dropped_records'"), "0")
if "KS_MEMORY_EVENTS" in t:
    allocs = sorted(r[0] for r in q("SELECT bytes FROM KS_MEMORY_EVENTS WHERE bytes > 0"))
    check_true("cudaMalloc events", (1 << 20) in allocs and (512 << 10) in allocs, str(allocs[:8]))
else:
    check_true("cudaMalloc events", mode == "range", "(KS_MEMORY_EVENTS absent)")
gpus = q("SELECT name, uuid, smCount FROM TARGET_INFO_GPU")
check_true("TARGET_INFO_GPU", len(gpus) >= 1 and gpus[0][2] > 0, str(gpus))
if "KS_COUNTER_SAMPLES" in t:
    check_true("NVML samples", one("SELECT COUNT(*) FROM KS_COUNTER_SAMPLES") > 0,
               str(q("SELECT c.name, COUNT(*), MAX(s.value) FROM KS_COUNTER_SAMPLES s JOIN KS_COUNTERS c ON c.id = s.counterId GROUP BY c.id")))
print(f"{failures} failure(s)")
sys.exit(1 if failures else 0)
