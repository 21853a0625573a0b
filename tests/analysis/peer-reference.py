#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The expected numbers of test-analysis-fixtures.c, computed from a
PyTorch profiler JSON trace with plain Python and the TensorBoard
plugin's and HTA's definitions, independently of Kinescope's code.

    peer-reference.py TRACE.json.gz [--host-steps]

Times are parsed as decimals (µs × 1000, rounded half up to ns)."""

import decimal
import gzip
import json
import sys
from bisect import bisect_right

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
RUNTIME_CATS = ("cuda_runtime", "cuda_driver")
KERNEL_WAIT_NS = 30000
GAP_THRESHOLD_NS = 10000


def ns(v):
    return int((decimal.Decimal(v) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def union(ranges):
    out = []
    for s, e in sorted(r for r in ranges if r[1] > r[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def measure(u, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in u)


def measure_set(u, v):
    return sum(measure(u, s, e) for s, e in v)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=decimal.Decimal)
    events = data["traceEvents"] if isinstance(data, dict) else data
    xs = []
    for ev in events:
        if ev.get("ph") != "X":
            continue
        s = ns(ev["ts"])
        xs.append(dict(ev, s=s, e=s + ns(ev.get("dur", 0))))
    return xs


def main():
    path = sys.argv[1]
    host_steps = "--host-steps" in sys.argv
    xs = load(path)
    gpu = [x for x in xs if x.get("cat") in GPU_CATS]
    by_corr = {}
    for g in gpu:
        by_corr.setdefault(g["args"].get("correlation"), []).append(g)
    runtime = [x for x in xs if x.get("cat") in RUNTIME_CATS]
    steps = sorted([x for x in xs if x.get("cat") == "user_annotation" and x["name"].startswith("ProfilerStep#")], key=lambda x: (x["s"], -x["e"]))
    pid = steps[0]["pid"]

    # The plugin's step spans: from the later of the host start and the
    # previous step's end to the later of the host end and the end of the
    # GPU work launched inside the step.
    spans = []
    prev = None
    starts = [st["s"] for st in steps]
    dev_end = [None] * len(steps)
    for r in runtime:
        if r["pid"] != pid:
            continue
        i = bisect_right(starts, r["s"]) - 1
        if i < 0 or r["s"] >= steps[i]["e"]:
            continue
        for g in by_corr.get(r.get("args", {}).get("correlation"), []):
            dev_end[i] = g["e"] if dev_end[i] is None else max(dev_end[i], g["e"])
    for i, st in enumerate(steps):
        if host_steps:
            spans.append((st["s"], st["e"]))
            continue
        s = st["s"] if prev is None else max(prev, st["s"])
        e = st["e"] if dev_end[i] is None else max(st["e"], dev_end[i])
        e = max(e, s)
        spans.append((s, e))
        prev = e

    kernels = union((g["s"], g["e"]) for g in gpu if g["cat"] == "kernel")
    activity = union((g["s"], g["e"]) for g in gpu)
    window = union(spans)
    window_ns = sum(e - s for s, e in window)
    print("steps", [(e - s) for s, e in spans])
    print("window_ns", window_ns)
    print("busy_in_window_ns", measure_set(kernels, window))
    print("kernel_time_in_window_ns", sum(measure(window, g["s"], g["e"]) for g in gpu if g["cat"] == "kernel"))

    # Gaps: the complement of GPU activity inside the window, over the threshold
    gaps = []
    for ws, we in window:
        cur = ws
        for s, e in activity:
            if e <= ws or s >= we:
                continue
            if s - cur > GAP_THRESHOLD_NS:
                gaps.append((cur, s))
            cur = max(cur, e)
        if we - cur > GAP_THRESHOLD_NS:
            gaps.append((cur, we))
    print("gaps", len(gaps), sum(e - s for s, e in gaps), max((e - s for s, e in gaps), default=0))

    # HTA's classes: the launch of the next GPU operation
    launch_start = {}
    for r in runtime:
        c = r.get("args", {}).get("correlation")
        if c is not None:
            launch_start[c] = r["s"]
    gpu_sorted = sorted(gpu, key=lambda g: g["s"])
    gstarts = [g["s"] for g in gpu_sorted]
    classes = {"host_wait": 0, "kernel_wait": 0, "other": 0}
    for s, e in gaps:
        i = bisect_right(gstarts, e - 1)
        nxt = gpu_sorted[i] if i < len(gpu_sorted) else None
        ls = launch_start.get(nxt["args"].get("correlation")) if nxt else None
        if ls is None:
            classes["other"] += e - s
        elif ls > s:
            classes["host_wait"] += e - s
        elif e - s < KERNEL_WAIT_NS:
            classes["kernel_wait"] += e - s
        else:
            classes["other"] += e - s
    print("gap_classes", classes)

    # Gaps under Kineto's own overhead (cat "overhead", e.g. "Activity
    # Buffer Request"): covered for at least half their length
    overhead = union((x["s"], x["e"]) for x in xs if x.get("cat") == "overhead")
    under = [(s, e) for s, e in gaps if 2 * measure(overhead, s, e) >= e - s]
    print("overhead_in_window_ns", measure_set(overhead, window),
          "gaps_under_overhead", len(under), sum(e - s for s, e in under))

    # Step 0's breakdown by cumulative unions (the plugin's order)
    cpu_threads = [x for x in xs if x["pid"] == pid]
    parts = [
        union((g["s"], g["e"]) for g in gpu if g["cat"] == "kernel"),
        union((g["s"], g["e"]) for g in gpu if g["cat"] == "gpu_memcpy"),
        union((g["s"], g["e"]) for g in gpu if g["cat"] == "gpu_memset"),
        union((x["s"], x["e"]) for x in cpu_threads if x.get("cat") in RUNTIME_CATS),
        union((x["s"], x["e"]) for x in cpu_threads
              if x.get("cat") in ("cpu_op", "user_annotation") and x["name"].startswith("enumerate(DataLoader)")),
        union((x["s"], x["e"]) for x in cpu_threads
              if x.get("cat") in ("cpu_op", "user_annotation") and not x["name"].startswith("ProfilerStep#")),
    ]
    s0, e0 = spans[0]
    cum, prev_m, out = [], 0, []
    for p in parts:
        cum = union(cum + p)
        m = measure(cum, s0, e0)
        out.append(m - prev_m)
        prev_m = m
    out.append((e0 - s0) - prev_m)
    print("step0", out)

    # Launch latency and queueing: when the stream was still busy with
    # earlier work as the launch call returned, the wait until that work
    # ends is queueing; the rest, to the kernel's start, launch latency.
    api_end = {}
    for r in runtime:
        c = r.get("args", {}).get("correlation")
        if c is not None:
            api_end[c] = r["e"]
    streams = {}
    for g in gpu:
        streams.setdefault((g["args"].get("device"), g["args"].get("stream")), []).append(g)
    lats, queues = [], []
    for evs in streams.values():
        evs.sort(key=lambda g: (g["s"], -g["e"]))
        busy = None
        for g in evs:
            before = busy
            busy = g["e"] if busy is None else max(busy, g["e"])
            if g["cat"] != "kernel" or g["args"].get("correlation") not in api_end:
                continue
            ae = api_end[g["args"]["correlation"]]
            q = min(before, g["s"]) - ae if before is not None and before > ae and g["s"] > ae else 0
            lats.append(max(g["s"] - max(ae, before if before is not None else ae), 0))
            queues.append(q)
    for label, v in (("latency", lats), ("queue", queues)):
        v = sorted(v)
        n = len(v)
        print(label, "count", n, "p50", v[(n - 1) * 50 // 100], "p90", v[(n - 1) * 90 // 100],
              "p99", v[(n - 1) * 99 // 100],
              "max", v[-1], "sum", sum(v))

    # Tensor cores: the TensorBoard plugin's kernel name fragments (PyProf's
    # list), Kinescope's for the names it misses (Hopper's nvjet and WGMMA,
    # Blackwell's tcgen05, tensor types) less the FMA kernels, and the
    # plugin's list of operators that can use them
    plugin = ("h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
              "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
              "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv",
              "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm", "c1688")
    frags = tuple(f.lower() for f in plugin) + (
        "884", "1688", "imma", "gmma", "tensorop", "tensor16x", "tensor8x", "tensor4x",
        "tf32", "bf16", "f16f16", "fp16", "e4m3", "e5m2", "nvjet", "tcgen05")
    fma = ("ffma", "simt")
    eligible = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm",
                "aten::matmul", "aten::linear", "aten::conv1d", "aten::conv2d", "aten::conv3d",
                "aten::convolution", "aten::_convolution", "aten::cudnn_convolution",
                "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"}
    is_tc = lambda g: (g["cat"] == "kernel" and any(f in g["name"].lower() for f in frags)
                       and not any(f in g["name"].lower() for f in fma))
    ks = [g for g in gpu if g["cat"] == "kernel"]
    tcs = [g for g in ks if is_tc(g)]
    ops_by_thread = {}
    for x in xs:
        if x.get("cat") == "cpu_op" and x["name"] in eligible:
            ops_by_thread.setdefault((x["pid"], x["tid"]), []).append((x["s"], x["e"]))
    el_ns = el_tc = 0
    for r in runtime:
        c = r.get("args", {}).get("correlation")
        if c not in by_corr:
            continue
        if not any(s <= r["s"] and r["e"] <= e for s, e in ops_by_thread.get((r["pid"], r["tid"]), [])):
            continue
        for g in by_corr[c]:
            el_ns += g["e"] - g["s"]
            el_tc += g["e"] - g["s"] if is_tc(g) else 0
    print("tensor_cores", len(tcs), "of", len(ks), sum(g["e"] - g["s"] for g in tcs),
          "eligible", el_ns, el_tc)

    # HTA's queue length per stream: +1 at the launch call's start, -1 at
    # the operation's end (ends first at equal times)
    launch_s = {}
    for r in runtime:
        c = r.get("args", {}).get("correlation")
        if c is not None:
            launch_s[c] = r["s"]
    for key, evs in sorted(streams.items(), key=lambda kv: str(kv[0])):
        ev = []
        for g in evs:
            c = g["args"].get("correlation")
            if c in launch_s:
                ev.append((launch_s[c], 1))
                ev.append((max(g["e"], launch_s[c]), -1))
        if not ev:
            continue
        ev.sort(key=lambda e: (e[0], e[1]))
        length, now, weighted, mx, mx_ts, at_limit = 0, ev[0][0], 0, 0, ev[0][0], 0
        for ts, d in ev:
            weighted += length * (ts - now)
            if length >= 1024:
                at_limit += ts - now
            now = ts
            length += d
            if length > mx:
                mx, mx_ts = length, ts
        span = ev[-1][0] - ev[0][0]
        print("queue_stream", key, "ops", len(ev) // 2, "mean %.6f" % (weighted / span), "max", mx,
              "max_after_start", mx_ts - ev[0][0], "span", span, "at_limit", at_limit)

    # HTA's temporal breakdown over the span of the GPU work
    all_u = union((g["s"], g["e"]) for g in gpu)
    comp = union((g["s"], g["e"]) for g in gpu if g["cat"] == "kernel" and "nccl" not in g["name"])
    span = max(g["e"] for g in gpu) - min(g["s"] for g in gpu)
    c_ns = sum(e - s for s, e in comp)
    nc_ns = sum(e - s for s, e in all_u) - c_ns
    print("temporal span", span, "compute", c_ns, "non_compute", nc_ns, "idle", span - c_ns - nc_ns)

    # Kernel sequences: every run of 4 consecutive kernels on a stream
    seqs = {}
    for key, evs in streams.items():
        kern = [g for g in sorted(evs, key=lambda g: (g["s"], -g["e"])) if g["cat"] == "kernel"]
        for i in range(len(kern) - 3):
            run = kern[i:i + 4]
            names = tuple(g["name"] for g in run)
            c = seqs.setdefault(names, [0, 0, run[0]["s"], run])
            c[0] += 1
            c[1] += sum(g["e"] - g["s"] for g in run)
    top = sorted(seqs.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[1][2]))[:3]
    launch_of = {}
    for r in runtime:
        c = r.get("args", {}).get("correlation")
        if c is not None:
            launch_of[c] = r
    cpu_ops = [x for x in xs if x.get("cat") == "cpu_op"]

    def innermost_op(g):
        r = launch_of.get(g["args"].get("correlation"))
        if r is None:
            return "-"
        around = [o for o in cpu_ops if o["tid"] == r["tid"] and o["pid"] == r["pid"] and o["s"] <= r["s"] and r["e"] <= o["e"]]
        return min(around, key=lambda o: o["e"] - o["s"])["name"] if around else "-"
    for names, (count, total, first, run) in top:
        ops = []
        for g in run:
            o = innermost_op(g)
            if not ops or ops[-1] != o:
                ops.append(o)
        print("sequence", count, total, " → ".join(ops), names[0][:40])

    # Kernels by name and launching operator, and by name and launch
    by_op, by_launch = {}, {}
    for g in ks:
        d = g["e"] - g["s"]
        k1 = (g["name"], innermost_op(g))
        a = g["args"]
        k2 = (g["name"], tuple(a.get("grid", [])), tuple(a.get("block", [])), a.get("registers per thread"),
              a.get("shared memory"))
        for table, k in ((by_op, k1), (by_launch, k2)):
            c = table.setdefault(k, [0, 0])
            c[0] += 1
            c[1] += d
    for label, table in (("by_operator", by_op), ("by_launch", by_launch)):
        top = sorted(table.items(), key=lambda kv: -kv[1][1])[:3]
        print("kernel_groups", label, len(table), [(v[0], v[1]) for k, v in top],
              [k[1] for k, v in top] if label == "by_operator" else [k[1:] for k, v in top])

    # The TensorBoard plugin's memory table: per operator, the allocations
    # it made itself (innermost cpu_op on the allocating thread) and with
    # the operators nested in it (once per name); reserved minus allocated
    with_open = gzip.open if path.endswith(".gz") else open
    with with_open(path, "rt") as f:
        raw = json.load(f, parse_float=decimal.Decimal)
    mem = [e for e in raw["traceEvents"] if e.get("name") == "[memory]"]
    ops_of = {}
    for x in cpu_ops:
        ops_of.setdefault((x["pid"], x["tid"]), []).append(x)
    table = {}
    unused = {}
    for e in mem:
        a = e["args"]
        ts = ns(e["ts"])
        dev = a.get("Device Id", -1) if a.get("Device Type", 0) == 1 else -1
        if "Total Reserved" in a and "Total Allocated" in a:
            u = a["Total Reserved"] - a["Total Allocated"]
            if u > unused.get(dev, (-1, 0))[0]:
                unused[dev] = (u, ts)
        if a["Bytes"] <= 0:
            continue
        around = sorted((o for o in ops_of.get((e["pid"], e["tid"]), []) if o["s"] <= ts < o["e"]),
                        key=lambda o: o["e"] - o["s"])
        seen = set()
        for i, o in enumerate(around):
            if o["name"] in seen:
                continue
            seen.add(o["name"])
            row = table.setdefault(o["name"], [0, 0, 0, 0])
            row[0] += 1
            row[1] += a["Bytes"]
            if i == 0:
                row[2] += 1
                row[3] += a["Bytes"]
    top = sorted(table.items(), key=lambda kv: (-kv[1][1], -kv[1][3], kv[0]))[:4]
    print("operator_memory", len(table), [(k, v) for k, v in top])
    print("peak_unused", {d: u for d, (u, t) in unused.items()})

    # Outermost operators by their Python call stack (with_stack)
    py_by_thread = {}
    for x in xs:
        if x.get("cat") == "python_function":
            py_by_thread.setdefault((x["pid"], x["tid"]), []).append(x)
    stacks = {}
    for key, ops in ops_of.items():
        for o in ops:
            if any(p is not o and p["s"] <= o["s"] and o["e"] <= p["e"] and (p["e"] - p["s"]) > (o["e"] - o["s"])
                   for p in ops):
                continue
            frames = sorted((f for f in py_by_thread.get(key, []) if f["s"] <= o["s"] and o["e"] <= f["e"]),
                            key=lambda f: f["e"] - f["s"])
            if not frames:
                continue
            k = (o["name"], tuple(f["name"] for f in frames[:32]))
            row = stacks.setdefault(k, [0, 0])
            row[0] += 1
            row[1] += o["e"] - o["s"]
    top = sorted(stacks.items(), key=lambda kv: -kv[1][1])[:3]
    print("operator_stacks", len(stacks), [(k[0], len(k[1]), v) for k, v in top])

    # Host self time as PyTorch's key_averages: an operator's duration
    # minus its children, operators and CUDA runtime/driver calls alike.
    threads = {}
    for x in xs:
        if x.get("cat") in ("cpu_op",) + RUNTIME_CATS:
            threads.setdefault((x["pid"], x["tid"]), []).append(x)
    self_ns, total_ns = {}, {}
    for evs in threads.values():
        evs.sort(key=lambda x: (x["s"], -x["e"]))
        stack = []
        for x in evs:
            while stack and stack[-1]["e"] <= x["s"]:
                stack.pop()
            x["self"] = x["e"] - x["s"]
            if stack:
                stack[-1]["self"] -= x["e"] - x["s"]
            stack.append(x)
        for x in evs:
            if x["cat"] == "cpu_op":
                self_ns[x["name"]] = self_ns.get(x["name"], 0) + x["self"]
                total_ns[x["name"]] = total_ns.get(x["name"], 0) + x["e"] - x["s"]
    for name in sys.argv[2:]:
        if not name.startswith("--"):
            print("host", name, "total", total_ns.get(name), "self", self_ns.get(name))


if __name__ == "__main__":
    main()
