#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Seeds for fuzz-sqlite-reader: small SQLite traces, 512-byte pages so that
# the fuzzer's mutations land on rows rather than empty space.
#
#   fuzz/make-sqlite-seeds.sh KINESCOPE_CLI OUTDIR
#
# .kscope files converted from the JSON seeds in fuzz/corpus, and an
# export with the Nsight Systems tables and columns the reader maps; then
# a .kscope with what a recording with Python adds (sampled stacks,
# operator NVTX text, allocator events); then the hostile shapes of
# tests/trace/test-hostile-files.c that fit in one file: recordings cut short (complete = 0, with and without an
# end_reason), a .kscope in WAL mode, an export listing 500 GPUs.
set -eu
CLI=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"

for f in kineto.json flows.json async.json begin-end.json x-event.json; do
  "$CLI" convert "$HERE/corpus/$f" "$OUT/${f%.json}.kscope" > /dev/null
done

rm -f "$OUT/nsys.sqlite"
sqlite3 "$OUT/nsys.sqlite" <<'SQL'
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,
  maxWarpsPerSm INTEGER, threadsPerWarp INTEGER, computeMajor INTEGER, computeMinor INTEGER, maxThreadsPerBlock INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,
  contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER,
  blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER,
  localMemoryPerThread INTEGER, localMemoryTotal INTEGER, gridId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,
  contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,
  copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,
  contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER,
  bytes INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,
  syncType INTEGER, eventId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
  globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, nameId INTEGER);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.16.1');
INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cuLaunchKernel'), (3, 'void kernelA<float>(int)'),
  (4, 'kernelA'), (5, 'cudaMemcpyAsync_v3020'), (6, 'Registered range'), (7, 'main'), (8, 'worker'),
  (9, 'pthread_mutex_lock'), (10, 'cudaMemsetAsync_v3020'), (11, 'cudaStreamSynchronize_v3020');
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1600000000000000000, '2020-09-13T12:26:40', NULL);
INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 0, 'Test GPU', 16000000000, 80, 48, 32, 7, 5, 1024);
-- globalPid = pid << 24, globalTid = (pid << 24) | tid
INSERT INTO PROCESSES VALUES (1677721600, 100, 'app'), (3355443200, 200, 'app2');
INSERT INTO ThreadNames VALUES (7, 10, 1677721700), (8, 10, 3355443401);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1100, 0, 1677721700, 1, 1, 0),
  (1200, 1250, 1, 1677721700, 2, 2, 0), (1300, 1350, 0, 1677721700, 3, 5, 0),
  (1360, 1370, 0, 1677721700, 4, 10, 0), (1500, 2000, 0, 1677721700, 5, 11, 0),
  (1000, 1050, 0, 3355443401, 1, 1, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1150, 1400, 0, 1, 7, 1, 1677721600, 3, 4, 40, 10, 2, 1, 128, 1, 1, 1024, 512, 0, 0, 1),
  (1400, 1500, 0, 1, 7, 2, 1677721600, 3, 4, 16, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 2),
  (1100, 1300, 0, 1, 7, 1, 3355443200, 3, 4, 40, 10, 2, 1, 128, 1, 1, 1024, 512, 0, 0, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1500, 1600, 0, 1, 7, 3, 1677721600, 4096, 2, 2, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1600, 1650, 0, 1, 7, 4, 1677721600, 0, 256, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1650, 1990, 0, 1, 7, 5, 1677721600, 3, 4294967295);
INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, 'MyLib', 1677721700, NULL, NULL, 1),
  (900, 3000, 59, 'outer', 1677721700, NULL, NULL, NULL), (950, 1200, 59, NULL, 1677721700, NULL, 6, 1),
  (1000, 2500, 60, 'async', 1677721700, 1677721700, NULL, NULL), (1800, NULL, 34, 'checkpoint', 1677721700, NULL, NULL, NULL);
INSERT INTO OSRT_API VALUES (1700, 1900, 27, 3355443401, 9);
SQL

cp "$OUT/kineto.kscope" "$OUT/cut-short-interrupted.kscope"
sqlite3 "$OUT/cut-short-interrupted.kscope" \
  "UPDATE KS_META SET value = '0' WHERE name = 'complete';
   INSERT OR REPLACE INTO KS_META VALUES ('end_reason', 'interrupted');"
cp "$OUT/kineto.kscope" "$OUT/cut-short-no-reason.kscope"
sqlite3 "$OUT/cut-short-no-reason.kscope" \
  "UPDATE KS_META SET value = '0' WHERE name = 'complete'; DELETE FROM KS_META WHERE name = 'end_reason';"
cp "$OUT/kineto.kscope" "$OUT/wal-mode.kscope"
# What a recording with Python adds: sampled stacks (one frame deeper
# than the other, a frame whose line is NULL as in Nsight's exports),
# PyTorch's operator NVTX text forward and backward, and caching-allocator
# events without a thread next to a CUDA-level row.
cp "$OUT/kineto.kscope" "$OUT/python-samples.kscope"
sqlite3 "$OUT/python-samples.kscope" <<'SQL'
CREATE TABLE IF NOT EXISTS COMPOSITE_EVENTS (id INTEGER PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER,
  threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL,
  module INTEGER NOT NULL, kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER,
  originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER NOT NULL, lineNumber INTEGER,
  PRIMARY KEY (id, stackDepth));
CREATE TABLE IF NOT EXISTS NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO StringIds (id, value) VALUES (900001, 'decode_batch'), (900002, '/data/pkg/loader.py'),
  (900003, 'main'), (900004, 'train.py');
INSERT INTO COMPOSITE_EVENTS (id, start, globalTid, cpuCycles)
  SELECT 1, 100, globalTid, 0 FROM KS_THREADS LIMIT 1;
INSERT INTO COMPOSITE_EVENTS (id, start, globalTid, cpuCycles)
  SELECT 2, 1100, globalTid, 0 FROM KS_THREADS LIMIT 1;
INSERT INTO COMPOSITE_EVENTS (id, start, globalTid, cpuCycles)
  SELECT 3, 2100, globalTid, 0 FROM KS_THREADS LIMIT 1;
INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, stackDepth, lineNumber) VALUES
  (1, 900001, 900002, 0, 57), (1, 900003, 900004, 1, 10), (2, 900003, 900004, 0, 10),
  (3, 900001, 900002, 0, NULL), (3, 900003, 900004, 1, 10);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
  SELECT 50, 900, 59, 'aten::addmm, seq = 3, op_id = 7, sizes = [[4], [2, 3], [3, 4]], input_op_ids = [(5,0), (0,-1)]', globalTid
  FROM KS_THREADS LIMIT 1;
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
  SELECT 60, 800, 59, 'my block, part 2, op_id = 8', globalTid FROM KS_THREADS LIMIT 1;
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
  SELECT 1000, 1900, 59, 'autograd::engine::evaluate_function: AddmmBackward0, seq = 3, op_id = 9', globalTid
  FROM KS_THREADS ORDER BY globalTid DESC LIMIT 1;
INSERT INTO KS_MEMORY_EVENTS (timestamp, globalTid, deviceId, address, bytes, totalAllocated, totalReserved)
  SELECT 70, globalPid, 0, 4096, 2097152, 2097152, NULL FROM KS_THREADS LIMIT 1;
INSERT INTO KS_MEMORY_EVENTS (timestamp, globalTid, deviceId, address, bytes, totalAllocated, totalReserved)
  SELECT 80, globalPid, 0, 4096, 512, 512, 2097152 FROM KS_THREADS LIMIT 1;
INSERT INTO KS_MEMORY_EVENTS (timestamp, globalTid, deviceId, address, bytes, totalAllocated, totalReserved)
  SELECT 1500, globalPid, 0, 4096, -512, 0, 2097152 FROM KS_THREADS LIMIT 1;
SQL
cp "$OUT/nsys.sqlite" "$OUT/many-gpus.sqlite"
sqlite3 "$OUT/many-gpus.sqlite" \
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
   INSERT INTO TARGET_INFO_GPU SELECT 281474976710656, i, 'GPU ' || i, i * 1000, i % 200, 64, 32, 9, 0, 1024 FROM n;"

for f in "$OUT"/*.kscope "$OUT"/*.sqlite; do
  sqlite3 "$f" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" > /dev/null
done
# Header bytes 18 and 19 say 2: the reader must not look for a -wal.
sqlite3 "$OUT/wal-mode.kscope" "PRAGMA journal_mode=WAL;" > /dev/null
ls -l "$OUT"
