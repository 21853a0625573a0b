#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The import's scaling curve in one command:
#
#   KCLI=_build/src/cli/kinescope-cli bench/import-curve.sh OUTDIR [CORES...]
#
# Generates, with bench/ks-gen-trace (GEN, default next to KCLI in the
# build), traces of SIZES MB of JSON (default "503 1260": the 137 MB GPT
# trace repeated, here gpt_3steps repeated), the first also
# as .json.gz and as .kscope; then loads each with `kinescope-cli info`
# under `taskset -c 0-(N-1)` and KINESCOPE_THREADS=N for N in CORES
# (default 1 2 4 8 16, those past the machine's cores left out), REPEAT
# (3) rounds over the core counts, each load after a probe of the host's
# speed (CPU ms of a fixed loop on core 0), and keeps each count's
# fastest load: its wall time, the speedup
# against one core, its peak RSS, and its phases (KINESCOPE_LOAD_PHASES:
# the reading thread's replay, chunks it parsed itself, waiting for a
# worker and for the input, cutting, the rest of the read, finishing).
# Prints the tables and writes them to OUTDIR/curve.md, one file of raw rows per trace (OUTDIR/*.tsv) and the
# machine (OUTDIR/machine.txt). TRACE_DIR (default /tmp) holds the
# traces, which are deleted at the end unless KEEP=1.
#
# The .json.gz is also loaded from 2 cores on with its white space
# dropped by the threads of its chunks (its inflated text cut as it
# lies, the default), by the inflating and by the reading thread
# (KINESCOPE_GZ_COMPACT), best of 2 each, and from 4 cores on its JSON twin with the white space dropped
# by a thread of its own and by the reading thread
# (KINESCOPE_JSON_COMPACT), best of 2 each; and from 8 cores on with the
# reading thread, while it waits, parsing only the chunk it waits for or
# any (KINESCOPE_JSON_HELP), best of 2 each; and from 4 cores on with the
# slices' args stored on a thread of their own or in the replay
# (KINESCOPE_JSON_ARGS), best of 2 each; and from 3 cores on with the
# events' (pid, tid) pairs numbered in the chunks or looked up in the
# replay (KINESCOPE_JSON_THREAD_KEYS), best of 2 each; and from 4 cores
# on with the chunks taking their text from the compacted blocks or the
# reading thread copying the blocks (KINESCOPE_JSON_BLOCKS), best of 2
# each, for the JSON and the .json.gz; and from 3 cores on with the
# complete events' slices gathered by track in the chunks and added in
# bulk, or added one by one in the replay (KINESCOPE_JSON_CHUNK_TRACKS),
# best of 2 each; and from 2 cores on with the plain JSON cut as it lies
# in the file, each chunk compacted by the thread that parses it, or
# compacted first (KINESCOPE_JSON_CUT), best of 2 each.
#
# EXTRAS=0 leaves out those comparisons (the switches stay for them).
#
# First it measures the host's ceiling: the same interpreter loop on each
# of N cores at once against one core's time, what any program's speedup
# on N cores is capped at where the cores slow down together; then the
# import's own: a one-thread load of a CEIL_MB (80) MB trace on each of N
# cores at once, which adds what the cores share (memory bandwidth, the
# last-level cache) to the clock.
#
# About 4 minutes on a 16-core host; BUDGET_S (default 160) stops
# starting new traces once spent, and says so in curve.md.
USAGE="KCLI=kinescope-cli bench/import-curve.sh OUTDIR [CORES...]"
BUDGET_DEFAULT=160
. "$(dirname "$0")/curve-setup.sh"

START=$(date +%s)
FILES=()
for s in $SIZES; do
  f="$TRACE_DIR/import-curve-$s.json"
  [ -s "$f" ] || "$GEN" --input "$FIXTURE" --size-mb "$s" "$f" > /dev/null || exit 2
  FILES+=("$f")
done
FIRST=${FILES[0]}
# the .json.gz twin and the .kscope of the first size
[ -s "$FIRST.gz" ] || gzip -6 -c "$FIRST" > "$FIRST.gz" || exit 2
KSCOPE=${FIRST%.json}.kscope
[ -s "$KSCOPE" ] || "$KCLI" convert -f "$FIRST" "$KSCOPE" > "$OUT/convert.log" 2>&1 || exit 2
FILES+=("$FIRST.gz" "$KSCOPE")
CEIL_TRACE="$TRACE_DIR/import-curve-ceiling.json"
[ -s "$CEIL_TRACE" ] || "$GEN" --input "$FIXTURE" --size-mb "${CEIL_MB:-80}" "$CEIL_TRACE" > /dev/null || exit 2
export CEIL_TRACE
echo "traces made in $(( $(date +%s) - START )) s"

python3 - "$OUT" "$KCLI" "$REPEAT" "$BUDGET_S" "$START" "$NPROC" "$CORES" "${FILES[@]}" <<'PYEOF'
import os, subprocess, sys, time

out, kcli, repeat, budget, start, nproc = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
cores = [int(c) for c in sys.argv[7].split() if int(c) <= nproc]
files = sys.argv[8:]
# the phases shown, by the names the loader prints
PHASES = [("inflate: inflating", "inflate"),
          ("inflate: waiting for the parse", "infl. wait"),
          ("map: compaction", "compact"),
          ("args: storing", "args"),
          ("read: replaying events into the builder", "replay"),
          ("read: parsing chunks on this thread", "parse here"),
          ("read: waiting for workers", "wait"),
          ("read: waiting for the input", "input wait"),
          ("read: taking the text in, cutting chunks", "cutting"),
          ("read: the rest (input, compaction, handing over)", "rest of read"),
          ("read", "read"),
          ("finish: large tracks", "fin: tracks"),
          ("finish: flows", "fin: flows"),
          ("finish", "finish")]

def load(path, n, extra={}):
    env = dict(os.environ, KINESCOPE_THREADS=str(n), KINESCOPE_LOAD_PHASES="1", **extra)
    cmd = ["taskset", "-c", "0-%d" % (n - 1), kcli, "info", path]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("%s failed on %s: %s" % (" ".join(cmd), path, err[-2000:]))
    phases = {}
    for line in err.splitlines():
        f = line.split("\t")
        if len(f) == 4 and f[0] == "load-phase":
            w, c = phases.get(f[1], (0.0, 0.0))
            phases[f[1]] = (w + float(f[2]), c + float(f[3]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, phases

# EXTRAS=0: the curve and the .json.gz against its twin only, without the
# comparisons of the ways the reader can be switched to
extras = os.environ.get("EXTRAS", "1") != "0"

def probe():
    """The host's speed now: CPU ms of a fixed interpreter loop on core 0.
    A load whose probe is well above the run's least ran in a slow spell
    of the host (a virtual machine's neighbours), not in a slow build."""
    mask = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})
    try:
        best = None
        for _ in range(3):
            t0 = time.process_time()
            x = 0
            for i in range(200000):
                x += i & 7
            t = (time.process_time() - t0) * 1e3
            best = t if best is None else min(best, t)
        return best
    finally:
        os.sched_setaffinity(0, mask)

def spin(core, barrier, out):
    os.sched_setaffinity(0, {core})
    barrier.wait()
    t0 = time.process_time()
    x = 0
    for i in range(8000000):
        x += i & 7
    out.put(time.process_time() - t0)

def ceiling():
    """What N cores give work that shares nothing: the same interpreter
    loop on each of N cores at once, its time against one core's. A
    host whose cores slow down together (a lower clock with more of them
    busy, a virtual machine's cores sharing physical ones) caps any
    program's speedup at this."""
    import multiprocessing as mp
    rows = []
    for n in cores:
        barrier, out = mp.Barrier(n), mp.Queue()
        procs = [mp.Process(target=spin, args=(i, barrier, out)) for i in range(n)]
        for p in procs:
            p.start()
        times = [out.get() for _ in procs]
        for p in procs:
            p.join()
        rows.append((n, sum(times) / n))
    base = rows[0][1]
    md.append("### The host's ceiling: one interpreter loop on each of N cores at once\n")
    md.append("| cores | s a loop | ceiling (N × one core's time ÷ this) |")
    md.append("|---:|---:|---:|")
    for n, t in rows:
        md.append("| %d | %.3f | %.2f× |" % (n, t, n * base / t))
    md.append("")
    print("\n".join(md), flush=True)

def import_ceiling(path):
    """The import's own ceiling: N independent one-thread loads of one
    trace at once, one a core, each load's CPU time against one alone.
    Sharing no work, they still share the memory bus and the last-level
    cache, so this caps what N threads of one load can gain here."""
    rows = []
    env = dict(os.environ, KINESCOPE_THREADS="1")
    for n in cores:
        best = None
        for _ in range(repeat):
            procs = [subprocess.Popen(["taskset", "-c", str(i), kcli, "info", path], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(n)]
            cpu = []
            for p in procs:
                _, status, ru = os.wait4(p.pid, 0)
                if status != 0:
                    sys.exit("kinescope-cli info failed on %s" % path)
                cpu.append(ru.ru_utime + ru.ru_stime)
            t = sum(cpu) / n
            best = t if best is None else min(best, t)
        rows.append((n, best))
    base = rows[0][1]
    md.append("### The import's ceiling: a one-thread load of %.0f MB on each of N cores at once\n"
              % (os.path.getsize(path) / 1e6))
    md.append("| cores | CPU s a load (best of %d) | ceiling (N × one load's time ÷ this) |" % repeat)
    md.append("|---:|---:|---:|")
    for n, t in rows:
        md.append("| %d | %.3f | %.2f× |" % (n, t, n * base / t))
    md.append("")
    print("\n".join(md[-(len(rows) + 4):]), flush=True)

md = []
skipped = []
best = {}
if cores and cores[0] == 1:
    ceiling()
    import_ceiling(os.environ["CEIL_TRACE"])
for path in files:
    if time.time() - start > budget:
        skipped.append(os.path.basename(path))
        continue
    name = os.path.basename(path)
    mb = os.path.getsize(path) / 1e6
    rows = []
    with open(os.path.join(out, name + ".tsv"), "w") as tsv:
        tsv.write("cores\trun\twall_s\tcpu_s\tpeak_rss_mib\t" + "\t".join(p for p, _ in PHASES) + "\tprobe_ms\n")
        # rounds over the core counts rather than one count's loads in a
        # row: a spell of the host's slowness then hits every count once
        runs = {n: [] for n in cores}
        for k in range(repeat):
            for n in cores:
                pr = probe()
                r = load(path, n) + (pr,)
                runs[n].append(r)
                tsv.write("%d\t%d\t%.3f\t%.3f\t%.1f\t%s\t%.2f\n" % (n, k, r[0], r[1], r[2],
                          "\t".join("%.3f/%.3f" % r[3].get(p, (0, 0)) for p, _ in PHASES), pr))
        for n in cores:
            rows.append((n, min(runs[n], key=lambda r: r[0])))
            best[(path, n)] = rows[-1][1][0]
    base = rows[0][1][0] if rows and rows[0][0] == 1 else None
    first = len(md)
    md.append("### %s (%.0f MB on disk)\n" % (name, mb))
    md.append("| cores | wall s (best of %d) | speedup | CPU s | peak RSS MiB | probe ms | %s |" % (repeat, " | ".join(s for _, s in PHASES)))
    md.append("|---:|---:|---:|---:|---:|---:|" + "---:|" * len(PHASES))
    for n, (wall, cpu, rss, ph, pr) in rows:
        speed = "%.2f×" % (base / wall) if base else "–"
        md.append("| %d | %.3f | %s | %.2f | %.0f | %.1f | %s |" % (n, wall, speed, cpu, rss, pr,
                  " | ".join("%.3f" % ph[p][0] if p in ph else "–" for p, _ in PHASES)))
    probes = [r[4] for n in cores for r in runs[n]]
    md.append("\nProbe before each load: %.1f–%.1f ms (median %.1f)." % (min(probes), max(probes), sorted(probes)[len(probes) // 2]))
    md.append("")
    print("\n".join(md[first:]), flush=True)

# the .json.gz against its JSON twin (files[0] and files[-2])
tail = len(md)
gz, twin = files[-2], files[0]
if any((gz, n) in best for n in cores):
    md.append("### %s against %s\n" % (os.path.basename(gz), os.path.basename(twin)))
    md.append("| cores | .json s | .json.gz s | ratio |")
    md.append("|---:|---:|---:|---:|")
    for n in cores:
        if (gz, n) in best and (twin, n) in best:
            md.append("| %d | %.3f | %.3f | %.2f× |" % (n, best[(twin, n)], best[(gz, n)], best[(gz, n)] / best[(twin, n)]))
    md.append("")
    # where the white space is dropped: by the chunks' threads, the
    # inflated text cut as it lies (the default on several threads), or
    # as before by the inflating or the reading thread; the three ways
    # from 2 cores, best of 2
    many = [n for n in cores if n >= 2]
    if many and extras and time.time() - start < budget + 30:
        ways = ("chunks", "inflate", "read")
        rest = "read: the rest (input, compaction, handing over)"
        wait = "inflate: waiting for the parse"
        md.append("### %s: white space dropped by the chunks' threads, the inflating or the reading thread\n"
                  % os.path.basename(gz))
        md.append("| cores | KINESCOPE_GZ_COMPACT=chunks s | =inflate s | =read s | chunks against the faster old way "
                  "| reading thread's rest of read, chunks / inflate / read | inflating thread's wait, chunks / inflate / read "
                  "| peak RSS MiB, chunks / inflate / read |")
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in many:
            r = {m: min((load(gz, n, {"KINESCOPE_GZ_COMPACT": m}) for _ in range(2)), key=lambda x: x[0])
                 for m in ways}
            md.append("| %d | %.3f | %.3f | %.3f | %.2f× | %s | %s | %s |" % (
                      n, r["chunks"][0], r["inflate"][0], r["read"][0],
                      r["chunks"][0] / min(r["inflate"][0], r["read"][0]),
                      " / ".join("%.3f" % r[m][3].get(rest, (0, 0))[0] for m in ways),
                      " / ".join("%.3f" % r[m][3].get(wait, (0, 0))[0] for m in ways),
                      " / ".join("%.0f" % r[m][2] for m in ways)))
        md.append("")
# the plain JSON compacted first (KINESCOPE_JSON_CUT=compacted), its white
# space dropped by a thread of its own (the default there from 4 threads
# on) or by the reading thread, best of 2
many = [n for n in cores if n >= 4]
if many and extras and (twin, many[0]) in best and time.time() - start < budget + 45:
    md.append("### %s compacted first: white space dropped by a thread of its own or by the reading thread\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_COMPACT=thread s | =read s | ratio | reading thread's rest of read, thread / read |")
    md.append("|---:|---:|---:|---:|---:|")
    for n in many:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_COMPACT": m, "KINESCOPE_JSON_CUT": "compacted"}) for _ in range(2)),
                    key=lambda x: x[0])
             for m in ("thread", "read")}
        rest = "read: the rest (input, compaction, handing over)"
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f |" % (n, r["thread"][0], r["read"][0],
                  r["read"][0] / r["thread"][0], r["thread"][3].get(rest, (0, 0))[0], r["read"][3].get(rest, (0, 0))[0]))
    md.append("")
# the plain JSON with the reading thread parsing, while it waits, only the
# chunk it waits for (the default from 8 threads on) or any, best of 2
eight = [n for n in cores if n >= 8]
if eight and extras and (twin, eight[0]) in best and time.time() - start < budget + 60:
    md.append("### %s: the reading thread parses only the chunk it waits for, or any\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_HELP=head s | =any s | ratio | reading thread: replay / parse here, head | any |")
    md.append("|---:|---:|---:|---:|---:|---:|")
    for n in eight:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_HELP": m}) for _ in range(2)), key=lambda x: x[0])
             for m in ("head", "any")}
        rp, here = "read: replaying events into the builder", "read: parsing chunks on this thread"
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.3f / %.3f |" % (n, r["head"][0], r["any"][0],
                  r["any"][0] / r["head"][0], r["head"][3].get(rp, (0, 0))[0], r["head"][3].get(here, (0, 0))[0],
                  r["any"][3].get(rp, (0, 0))[0], r["any"][3].get(here, (0, 0))[0]))
    md.append("")
# the plain JSON with its slices' args stored on a thread of their own
# (the default from 4 threads on) or in the replay, best of 2
if many and extras and (twin, many[0]) in best and time.time() - start < budget + 75:
    md.append("### %s: the slices' args stored on a thread of their own, or in the replay\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_ARGS=thread s | =replay s | ratio | reading thread's replay, thread / replay | args thread storing |")
    md.append("|---:|---:|---:|---:|---:|---:|")
    for n in many:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_ARGS": m}) for _ in range(2)), key=lambda x: x[0])
             for m in ("thread", "replay")}
        rp = "read: replaying events into the builder"
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.3f |" % (n, r["thread"][0], r["replay"][0],
                  r["replay"][0] / r["thread"][0], r["thread"][3].get(rp, (0, 0))[0], r["replay"][3].get(rp, (0, 0))[0],
                  r["thread"][3].get("args: storing", (0, 0))[0]))
    md.append("")
# the plain JSON with its events' (pid, tid) pairs numbered in the chunks
# (the default from 3 threads on) or looked up event by event in the
# replay, best of 2
three = [n for n in cores if n >= 3]
if three and extras and (twin, three[0]) in best and time.time() - start < budget + 90:
    md.append("### %s: threads looked up once per chunk and (pid, tid), or per event in the replay\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_THREAD_KEYS=chunk s | =replay s | ratio | reading thread's replay, chunk / replay | peak RSS MiB, chunk / replay |")
    md.append("|---:|---:|---:|---:|---:|---:|")
    for n in three:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_THREAD_KEYS": m}) for _ in range(2)), key=lambda x: x[0])
             for m in ("chunk", "replay")}
        rp = "read: replaying events into the builder"
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.0f / %.0f |" % (n, r["chunk"][0], r["replay"][0],
                  r["replay"][0] / r["chunk"][0], r["chunk"][3].get(rp, (0, 0))[0], r["replay"][3].get(rp, (0, 0))[0],
                  r["chunk"][2], r["replay"][2]))
    md.append("")
# the chunks' text taken from the compacted blocks (the default) or the
# blocks copied by the reading thread, best of 2, the JSON and the .json.gz
if many and extras and (twin, many[0]) in best and time.time() - start < budget + 105:
    md.append("### chunks' text from the compacted blocks, or the blocks copied by the reading thread (the JSON compacted first)\n")
    md.append("| file | cores | KINESCOPE_JSON_BLOCKS=share s | =copy s | ratio | reading thread's cutting + rest, share / copy (CPU s) | peak RSS MiB, share / copy |")
    md.append("|---|---:|---:|---:|---:|---:|---:|")
    cut, rest = "read: taking the text in, cutting chunks", "read: the rest (input, compaction, handing over)"
    for f in (twin, gz):
        for n in many:
            r = {m: min((load(f, n, {"KINESCOPE_JSON_BLOCKS": m, "KINESCOPE_JSON_CUT": "compacted"}) for _ in range(2)),
                        key=lambda x: x[0])
                 for m in ("share", "copy")}
            c = {m: r[m][3].get(cut, (0, 0))[1] + r[m][3].get(rest, (0, 0))[1] for m in r}
            md.append("| %s | %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.0f / %.0f |" % (os.path.basename(f), n,
                      r["share"][0], r["copy"][0], r["copy"][0] / r["share"][0], c["share"], c["copy"],
                      r["share"][2], r["copy"][2]))
    md.append("")
# the plain JSON with its complete events' slices gathered by track in
# the chunks and added in bulk (the default wherever the pairs are
# numbered) or added one by one in the replay, best of 2
if three and extras and (twin, three[0]) in best and time.time() - start < budget + 105:
    md.append("### %s: slices gathered by track in the chunks, or added one by one in the replay\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_CHUNK_TRACKS=chunk s | =replay s | ratio | reading thread's replay, chunk / replay | its CPU s, chunk / replay | peak RSS MiB, chunk / replay |")
    md.append("|---:|---:|---:|---:|---:|---:|---:|")
    for n in three:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_CHUNK_TRACKS": m}) for _ in range(2)), key=lambda x: x[0])
             for m in ("chunk", "replay")}
        rp = "read: replaying events into the builder"
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.3f / %.3f | %.0f / %.0f |" % (n, r["chunk"][0], r["replay"][0],
                  r["replay"][0] / r["chunk"][0], r["chunk"][3].get(rp, (0, 0))[0], r["replay"][3].get(rp, (0, 0))[0],
                  r["chunk"][3].get(rp, (0, 0))[1], r["replay"][3].get(rp, (0, 0))[1], r["chunk"][2], r["replay"][2]))
    md.append("")
# the plain JSON cut as it lies in the file, each chunk compacted by the
# thread that parses it (the default), or compacted first and cut after
# (by the reading thread, or from 4 threads on by a thread of its own),
# best of 2
two = [n for n in cores if n >= 2]
if two and extras and (twin, two[0]) in best and time.time() - start < budget + 120:
    md.append("### %s: cut as it lies and compacted by the chunks' threads, or compacted first\n" % os.path.basename(twin))
    md.append("| cores | KINESCOPE_JSON_CUT=raw s | =compacted s | ratio | reading thread: cutting + rest + input wait, raw / compacted (wall s) | compacting thread CPU s (compacted) | process CPU s, raw / compacted | peak RSS MiB, raw / compacted |")
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    cut, rest, wait = ("read: taking the text in, cutting chunks", "read: the rest (input, compaction, handing over)",
                       "read: waiting for the input")
    for n in two:
        r = {m: min((load(twin, n, {"KINESCOPE_JSON_CUT": m}) for _ in range(2)), key=lambda x: x[0])
             for m in ("raw", "compacted")}
        serial = {m: sum(r[m][3].get(k, (0, 0))[0] for k in (cut, rest, wait)) for m in r}
        md.append("| %d | %.3f | %.3f | %.2f× | %.3f / %.3f | %.3f | %.2f / %.2f | %.0f / %.0f |" % (n, r["raw"][0],
                  r["compacted"][0], r["compacted"][0] / r["raw"][0], serial["raw"], serial["compacted"],
                  r["compacted"][3].get("map: compaction", (0, 0))[1], r["raw"][1], r["compacted"][1],
                  r["raw"][2], r["compacted"][2]))
    md.append("")
md.append("Phases are wall seconds of the best load, from KINESCOPE_LOAD_PHASES: 'inflate' and 'infl. wait' "
          "are the .json.gz inflating thread's (inflating; waiting for the parse to give a block back: near "
          "0 when inflating sets the pace); 'compact' is the compacting thread's of a plain file (from 4 "
          "threads on, with KINESCOPE_JSON_CUT=compacted); 'args' is the args thread's, storing the slices' args the replay handed over "
          "(from 4 threads on); 'replay', 'parse here', 'wait' (for a worker or the args thread), 'input wait' "
          "(for the compacting or inflating thread's next block), 'cutting' (taking a block into the open "
          "text and cutting chunks off it; for a plain file cut as it lies, finding the cuts in the file) and 'rest of read' are the reading thread's share of 'read' (the parallel reader only; none on one thread); 'fin: tracks' "
          "and 'fin: flows' are parts of 'finish'.")
if skipped:
    md.append("Not measured, the time budget of %.0f s was spent: %s." % (budget, ", ".join(skipped)))
md.append("Whole run: %.0f s." % (time.time() - start))
with open(os.path.join(out, "curve.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md[tail:]))
PYEOF
rc=$?
[ "${KEEP:-0}" = 1 ] || rm -f "${FILES[@]}" "$CEIL_TRACE"
exit $rc
