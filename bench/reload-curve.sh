#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The .kscope reload's scaling curve, with the three ways the slices'
# arguments reach the store and the two ways the slices are added, in
# one command:
#
#   KCLI=_build/src/cli/kinescope-cli bench/reload-curve.sh OUTDIR [CORES...]
#
# Generates, with bench/ks-gen-trace (GEN, default next to KCLI in the
# build), traces of SIZES MB of JSON (default "503 1260": gpt_3steps
# repeated) and converts each to a .kscope (the JSON is deleted once
# converted); then loads each .kscope with `kinescope-cli info` under
# `taskset -c 0-(N-1)` and KINESCOPE_THREADS=N for N in CORES (default
# 1 2 4 8 16, those past the machine's cores left out), REPEAT (3) times
# for each way of KINESCOPE_SQLITE_ARGS:
#
#   prepared  the reading threads walk the arguments, the loading
#             thread interns every string (the reload before)
#   local     the reading threads number the strings in each block's
#             dictionary, the loading thread looks each up once a block
#   thread    that, and the arguments stored on a thread of their own
#             while the slice tables are merged (the default from 4
#             threads on)
#
# each with KS_SLICES gathered by track on the reading threads and added
# in runs, each track sized ahead from the tables' indexes
# (KINESCOPE_SQLITE_RUNS=sized, the default); "thread, doubled": the
# default way of the arguments, in runs, the tracks doubled as they fill
# (KINESCOPE_SQLITE_RUNS=runs, the reload before the sizing); and
# "thread, rows": the slices added one by one (KINESCOPE_SQLITE_RUNS=rows,
# the reload before the runs); one thread has no reading threads:
# thread, doubled and rows only. It keeps the
# fastest load: its wall time, the speedup against one core, its peak
# RSS, and the loading thread's phases (KINESCOPE_LOAD_PHASES). At the
# most cores (8 or more), it also loads each file with 5, 8, 10 (the
# default on 12 cores or more) and 12 reading threads
# (KINESCOPE_SQLITE_READERS), best of 2. Prints
# the tables and writes them to OUTDIR/reload.md, the raw rows to
# OUTDIR/*.tsv and the machine to OUTDIR/machine.txt. TRACE_DIR (default
# /tmp) holds the files, deleted at the end unless KEEP=1.
#
# About 3 minutes on a 16-core host; BUDGET_S (default 150) stops
# starting new files once spent, and 30 s past it no more loads start;
# reload.md says what was left out.
USAGE="KCLI=kinescope-cli bench/reload-curve.sh OUTDIR [CORES...]"
BUDGET_DEFAULT=150
. "$(dirname "$0")/curve-setup.sh"

START=$(date +%s)
FILES=()
for s in $SIZES; do
  json="$TRACE_DIR/reload-curve-$s.json"
  kscope="$TRACE_DIR/reload-curve-$s.kscope"
  if [ ! -s "$kscope" ]; then
    "$GEN" --input "$FIXTURE" --size-mb "$s" "$json" > /dev/null || exit 2
    "$KCLI" convert -f "$json" "$kscope" >> "$OUT/convert.log" 2>&1 || { tail "$OUT/convert.log" >&2; exit 2; }
    rm -f "$json"
  fi
  FILES+=("$kscope")
done
echo ".kscope files made in $(( $(date +%s) - START )) s"

python3 - "$OUT" "$KCLI" "$REPEAT" "$BUDGET_S" "$START" "$NPROC" "$CORES" "${FILES[@]}" <<'PYEOF'
import os, subprocess, sys, time

out, kcli, repeat, budget, start, nproc = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
cores = [int(c) for c in sys.argv[7].split() if int(c) <= nproc]
files = sys.argv[8:]
# (label, KINESCOPE_SQLITE_ARGS, KINESCOPE_SQLITE_RUNS)
WAYS = [("prepared", "prepared", "sized"), ("local", "local", "sized"), ("thread", "thread", "sized"),
        ("thread, doubled", "thread", "runs"), ("thread, rows", "thread", "rows")]
ONE = [("thread", "thread", "sized"), ("thread, doubled", "thread", "runs"), ("thread, rows", "thread", "rows")]
# the loading thread's phases shown (CPU s), and the arguments' thread's
SLICES = "read: slices"
READ = "read"
HERE_ = "scan: blocks read on the loading thread"
WAIT = "scan: the loading thread waiting for the reading threads"
ARGS = "args: storing, on their own thread"
ARGS_WAIT = "args: the loading thread waiting for that thread"

def load(path, n, way, extra={}):
    label, args, slices = way
    env = dict(os.environ, KINESCOPE_THREADS=str(n), KINESCOPE_LOAD_PHASES="1", KINESCOPE_SQLITE_ARGS=args,
               KINESCOPE_SQLITE_RUNS=slices, **extra)
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

def cpu(r, name):
    return r[3].get(name, (0.0, 0.0))[1]

def wall(r, name):
    return r[3].get(name, (0.0, 0.0))[0]

md = ["# .kscope reload: the curve, the three ways of the arguments, slices in runs or one by one\n"]
skipped = []
for path in files:
    if time.time() - start > budget:
        skipped.append(os.path.basename(path))
        continue
    name = os.path.basename(path)
    mb = os.path.getsize(path) / 1e6
    best = {}
    with open(os.path.join(out, name + ".tsv"), "w") as tsv:
        tsv.write("cores\tway\trun\twall_s\tcpu_s\tpeak_rss_mib\tread_cpu_s\tslices_cpu_s\tslices_wall_s"
                  "\tread_here_cpu_s\twait_readers_wall_s\targs_thread_cpu_s\twait_args_wall_s\n")
        for n in cores:
            for way in (WAYS if n > 1 else ONE):
                if time.time() - start > budget + 30:
                    skipped.append("%s on %d cores with %s" % (name, n, way[0]))
                    continue
                runs = []
                for k in range(repeat):
                    r = load(path, n, way)
                    runs.append(r)
                    tsv.write("%d\t%s\t%d\t%.3f\t%.3f\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n" % (
                        n, way[0], k, r[0], r[1], r[2], cpu(r, READ), cpu(r, SLICES), wall(r, SLICES),
                        cpu(r, HERE_), wall(r, WAIT), cpu(r, ARGS), wall(r, ARGS_WAIT)))
                best[(n, way[0])] = min(runs, key=lambda x: x[0])
    one = best.get((1, "thread, rows"))
    if not best:
        continue
    md.append("## %s (%.0f MB)\n" % (name, mb))
    md.append("Best of %d loads by wall time. 'loading thread' columns are CPU seconds of the thread that merges "
              "the slice tables and builds the model (the whole read; the slice tables' merge; blocks it read "
              "itself because no reading thread had started them); 'waits' are its wall seconds waiting for the "
              "reading threads / for the arguments' thread; 'args thread' is the CPU of the thread that stores "
              "the arguments (the 'thread' way only). 'rows' adds the slices one by one "
              "(KINESCOPE_SQLITE_RUNS=rows), the others in runs; 'doubled' lets the tracks double as they fill "
              "(KINESCOPE_SQLITE_RUNS=runs), the others size them ahead; the speedup is against one core, "
              "one by one.\n" % repeat)
    md.append("| cores | KINESCOPE_SQLITE_ARGS | wall s | speedup vs 1 core | process CPU s | loading thread: read / slices / read itself (CPU s) | waits s: readers / args thread | args thread CPU s | peak RSS MiB |")
    md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in cores:
        for label, _, _ in (WAYS if n > 1 else ONE):
            if (n, label) not in best:
                continue
            r = best[(n, label)]
            speed = "%.2f×" % (one[0] / r[0]) if one else "–"
            md.append("| %d | %s | %.3f | %s | %.2f | %.3f / %.3f / %.3f | %.3f / %.3f | %.3f | %.0f |" % (
                n, label if n > 1 else "(one thread) " + label, r[0], speed, r[1], cpu(r, READ), cpu(r, SLICES), cpu(r, HERE_),
                wall(r, WAIT), wall(r, ARGS_WAIT), cpu(r, ARGS), r[2]))
    md.append("")
    md.append("Speedup of 'thread' against 'prepared' at the same cores: " + ", ".join(
        "%d cores %.2f×" % (n, best[(n, "prepared")][0] / best[(n, "thread")][0])
        for n in cores if (n, "prepared") in best and (n, "thread") in best))
    md.append("")
    md.append("Speedup of the slices in runs against one by one ('thread' against 'thread, rows') at the same cores: "
              + ", ".join("%d cores %.2f×, loading thread's slices %.3f → %.3f CPU s" % (
                  n, best[(n, "thread, rows")][0] / best[(n, "thread")][0], cpu(best[(n, "thread, rows")], SLICES),
                  cpu(best[(n, "thread")], SLICES))
                  for n in cores if (n, "thread, rows") in best and (n, "thread") in best))
    md.append("")
    md.append("Tracks sized ahead against doubled ('thread' against 'thread, doubled') at the same cores: "
              + ", ".join("%d cores %.2f×, loading thread's slices %.3f → %.3f CPU s, peak RSS %.0f → %.0f MiB" % (
                  n, best[(n, "thread, doubled")][0] / best[(n, "thread")][0], cpu(best[(n, "thread, doubled")], SLICES),
                  cpu(best[(n, "thread")], SLICES), best[(n, "thread, doubled")][2], best[(n, "thread")][2])
                  for n in cores if (n, "thread, doubled") in best and (n, "thread") in best))
    md.append("")
    # more reading threads than the default five, at the most cores
    top = max(cores)
    readers = [k for k in (5, 8, 10, 12) if k <= top - 2]
    if top >= 8 and time.time() - start < budget + 30:
        md.append("")
        md.append("With KINESCOPE_SQLITE_READERS reading threads at %d cores (default way, best of 2):\n" % top)
        md.append("| reading threads | wall s | process CPU s | loading thread: read / slices (CPU s) | waits s: readers / args thread | peak RSS MiB |")
        md.append("|---:|---:|---:|---:|---:|---:|")
        for k in readers:
            r = min((load(path, top, WAYS[2], {"KINESCOPE_SQLITE_READERS": str(k)}) for _ in range(2)), key=lambda x: x[0])
            md.append("| %d | %.3f | %.2f | %.3f / %.3f | %.3f / %.3f | %.0f |" % (k, r[0], r[1], cpu(r, READ), cpu(r, SLICES),
                      wall(r, WAIT), wall(r, ARGS_WAIT), r[2]))
    md.append("")
    print("\n".join(md[-(len(cores) * 5 + len(readers) + 16):]), flush=True)
if skipped:
    md.append("Not measured, the time budget of %.0f s was spent: %s." % (budget, ", ".join(skipped)))
md.append("Whole run: %.0f s." % (time.time() - start))
with open(os.path.join(out, "reload.md"), "w") as f:
    f.write("\n".join(md) + "\n")
print(md[-1])
PYEOF
rc=$?
[ "${KEEP:-0}" = 1 ] || rm -f "${FILES[@]}"
exit $rc
