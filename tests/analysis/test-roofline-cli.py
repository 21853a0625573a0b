#!/usr/bin/env python3
# test-roofline-cli.py: kinescope-cli stats --report roofline against FLOPs
# computed here from the raw traces' shapes, and against PyTorch's
# FlopCounterMode figures recorded beside the H200 traces.
#
# Copyright 2026 The Kinescope authors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-roofline-cli.py KINESCOPE_CLI FIXTURES_DIR  (TAP output)

import gzip
import json
import math
import os
import subprocess
import sys

CLI, DATA = sys.argv[1], sys.argv[2]
results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def run(*args):
    env = dict(os.environ, LC_ALL="C")
    p = subprocess.run([CLI, "stats", *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def ints(text, n):
    v = json.loads(text) if text.startswith("[") else [int(text)]
    return v * n if len(v) == 1 else v


# The leaf operators of these traces, by flop_counter.py's definitions.
def flops_of(name, args):
    dims = args.get("Input Dims", [])
    conc = args.get("Concrete Inputs", [])
    if name == "aten::mm":
        (m, k), (_, n) = dims[0], dims[1]
        return 2 * m * k * n
    if name == "aten::addmm":
        (m, k), (_, n) = dims[1], dims[2]
        return 2 * m * k * n
    if name == "aten::bmm":
        (b, m, k), (_, _, n) = dims[0], dims[1]
        return 2 * b * m * k * n
    if name == "aten::baddbmm":
        (b, m, k), (_, _, n) = dims[1], dims[2]
        return 2 * b * m * k * n
    if name == "aten::cudnn_convolution":
        x, w = dims[0], dims[1]
        sp = len(x) - 2
        pad, stride, dil = ints(conc[2], sp), ints(conc[3], sp), ints(conc[4], sp)
        out = [(x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) // stride[i] + 1 for i in range(sp)]
        return 2 * x[0] * w[0] * w[1] * prod(out) * prod(w[2:])
    if name == "aten::convolution_backward":
        g, x, w = dims[0], dims[1], dims[2]
        mask = json.loads(conc[10].replace("True", "true").replace("False", "false"))
        f = 0
        if mask[0]:   # grad input: a convolution over grad_out's spatial size
            f += 2 * g[0] * w[0] * w[1] * prod(g[2:]) * prod(w[2:])
        if mask[1]:   # grad weight: input channels x output channels x batch
            f += 2 * x[1] * g[1] * g[0] * prod(g[2:]) * prod(w[2:])
        return f
    if "attention" in name and name.endswith(("_forward", "_backward")) and "scaled_dot" not in name:
        bwd = name.endswith("_backward")
        q, k, v = dims[1:4] if bwd else dims[0:3]
        if name.startswith(("aten::_efficient", "aten::_flash")):   # [b, s, h, d]
            b, sq, h, dq = q
            sk, dv = k[1], v[3]
        else:                                                       # [b, h, s, d]
            b, h, sq, dq = q
            sk, dv = k[2], v[3]
        if bwd:
            return 2 * b * h * sq * sk * (3 * dq + 2 * dv)
        return 2 * b * h * sq * sk * (dq + dv)
    return None


def expected(trace_file):
    with gzip.open(os.path.join(DATA, trace_file)) as f:
        events = json.load(f)["traceEvents"]
    per_op = {}
    for e in events:
        if e.get("cat") != "cpu_op":
            continue
        f = flops_of(e["name"], e.get("args", {}))
        if f is not None:
            calls, total = per_op.get(e["name"], (0, 0))
            per_op[e["name"]] = (calls + 1, total + f)
    return per_op


def roofline(trace_file, *extra):
    rc, out, err = run("--report", "roofline", "--format", "json", *extra, os.path.join(DATA, trace_file))
    check(f"{trace_file}: exit 0", rc == 0, err)
    return json.loads(out)


OP_KEYS = ["name", "calls", "flops", "bytes", "device_ns", "tflops", "gbps", "intensity", "peak_pct", "bound"]

for trace_file, reference in (("gpt_3steps.pt.trace.json.gz", None),
                              ("seed_cnn.pt.trace.json.gz", None),
                              ("shapes_fp32.pt.trace.json.gz", "expected/shapes_fp32_flops.json"),
                              ("shapes_bf16.pt.trace.json.gz", "expected/shapes_bf16_flops.json")):
    report = roofline(trace_file)
    want = expected(trace_file)
    got = {o["name"]: o for o in report["operators"]}
    check(f"{trace_file}: top-level members", list(report) == ["peak", "operators", "kernels", "steps"], list(report))
    check(f"{trace_file}: peak", report["peak"]["device"] == "NVIDIA H200" and report["peak"]["gbps"] == 4800
          and report["peak"]["tflops"]["bf16"] == 989.5 and report["peak"]["tflops"]["fp32"] == 67, report["peak"])
    check(f"{trace_file}: operator members", all(list(o) == OP_KEYS for o in report["operators"]))
    check(f"{trace_file}: kernel members", all(list(k) == OP_KEYS for k in report["kernels"]))
    check(f"{trace_file}: step members", all(list(s) == ["name", "flops", "mfu_pct"] for s in report["steps"]))
    check(f"{trace_file}: some formula operators", len(want) >= 3, want)
    for name, (calls, flops) in sorted(want.items()):
        o = got.get(name)
        check(f"{trace_file}: {name} FLOPs", o is not None and o["flops"] == flops and o["calls"] == calls,
              f"want {calls} calls {flops}, got {o}")
    # nothing else has FLOPs: matmul, linear and the composites count once, at their leaf
    extra = [o["name"] for o in report["operators"] if o["flops"] > 0 and o["name"] not in want]
    check(f"{trace_file}: FLOPs only at the leaves", not extra, extra)
    total = sum(f for _, f in want.values())
    check(f"{trace_file}: operator FLOPs sum", sum(o["flops"] for o in report["operators"]) == total)
    # rates from the row's own numbers; the share of peak against one of
    # the table's rates, and the bound from that rate's ridge point
    peaks = report["peak"]["tflops"]
    gbps = report["peak"]["gbps"]
    for o in report["operators"]:
        if o["device_ns"] > 0 and o["flops"] > 0:
            ok = math.isclose(o["tflops"], o["flops"] / o["device_ns"] / 1e3, rel_tol=1e-3, abs_tol=1e-4) \
                and math.isclose(o["intensity"], o["flops"] / o["bytes"], rel_tol=1e-3, abs_tol=1e-4)
            if o["bound"] == "compute":
                peak = o["tflops"] * 100 / o["peak_pct"]
                ok = ok and any(math.isclose(peak, p, rel_tol=2e-3) for p in peaks.values()) \
                    and o["intensity"] >= peak * 1e3 / gbps * 0.999
            else:
                ok = ok and o["bound"] == "memory" and math.isclose(o["peak_pct"], o["gbps"] / gbps * 100, rel_tol=1e-3) \
                    and o["intensity"] < max(peaks.values()) * 1e3 / gbps
            check(f"{trace_file}: {o['name']} rates", ok, o)
    # kernels inherit the FLOPs of the calls that launched them, split by time
    kflops = sum(k["flops"] for k in report["kernels"])
    check(f"{trace_file}: kernel FLOPs add up", abs(kflops - total) <= len(report["kernels"]) * 2,
          f"{kflops} vs {total}")
    if reference is not None:
        with open(os.path.join(DATA, reference)) as f:
            ref = json.load(f)
        steps = report["steps"]
        check(f"{trace_file}: {ref['steps']} steps", len(steps) == ref["steps"], steps)
        for s in steps:
            check(f"{trace_file}: {s['name']} = FlopCounterMode", s["flops"] == ref["flop_counter_total_per_step"],
                  f"{s['flops']} vs {ref['flop_counter_total_per_step']}")
        check(f"{trace_file}: total = FlopCounterMode x steps", total == ref["flop_counter_total_per_step"] * ref["steps"])

# float32 convolutions run on TF32 tensor cores (cuDNN's default), as their
# kernels' names say: they are measured against the TF32 peak
with gzip.open(os.path.join(DATA, "seed_cnn.pt.trace.json.gz")) as f:
    names = [e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
check("seed_cnn: TF32 kernels", any("tf32" in n for n in names))
rc, out, err = run("--report", "roofline", "--format", "csv", os.path.join(DATA, "seed_cnn.pt.trace.json.gz"))
rows = {r[0]: r for r in (line.split(",") for line in out.split("\n\n")[0].splitlines())}
check("seed_cnn: convolutions against TF32", rows["name"][-1] == "dtype" and rows["aten::cudnn_convolution"][-1] == "tf32"
      and rows["aten::convolution_backward"][-1] == "tf32" and rows["aten::cudnn_batch_norm"][-1] == "fp32", rows.get("aten::cudnn_convolution"))

# Inductor's Triton kernels: each tensor argument read or written once
SIZES = {"float": 4, "c10::BFloat16": 2, "c10::Half": 2, "double": 8, "long int": 8, "int": 4, "bool": 1}
with gzip.open(os.path.join(DATA, "mixer_compiled.pt.trace.json.gz")) as f:
    events = json.load(f)["traceEvents"]
triton = {}
for e in events:
    a = e.get("args", {})
    if e.get("cat") == "cpu_op" and a.get("kernel_backend") == "triton":
        b = sum(prod(d) * SIZES[t] for d, t in zip(a["Input Dims"], a["Input type"]) if t in SIZES)
        calls, total = triton.get(e["name"], (0, 0))
        triton[e["name"]] = (calls + 1, total + b)
report = roofline("mixer_compiled.pt.trace.json.gz")
got = {o["name"]: o for o in report["operators"]}
check("mixer_compiled: Triton kernels", len(triton) >= 20, len(triton))
for name, (calls, b) in sorted(triton.items()):
    o = got.get(name)
    check(f"mixer_compiled: {name} bytes", o is not None and o["calls"] == calls and o["bytes"] == b and o["flops"] == 0
          and o["bound"] == "memory", (calls, b, o))

# --model-flops-per-step, --peak-tflops, --peak-gbps
report = roofline("shapes_bf16.pt.trace.json.gz", "--model-flops-per-step", "1e12", "--peak-tflops", "bf16=100,fp32=10",
                  "--peak-gbps", "1000")
check("overrides: peak", report["peak"]["tflops"]["bf16"] == 100 and report["peak"]["tflops"]["fp32"] == 10
      and report["peak"]["gbps"] == 1000, report["peak"])
base = roofline("shapes_bf16.pt.trace.json.gz")
for s, b in zip(report["steps"], base["steps"]):
    # the base: hardware FLOPs against 989.5; here 10^12 against 100 TFLOP/s
    dur_ns = b["flops"] / (b["mfu_pct"] / 100 * 989.5e3)
    check(f"overrides: {s['name']} MFU", s["flops"] == 10**12
          and math.isclose(s["mfu_pct"], 1e12 / dur_ns / 1e3 / 100 * 100, rel_tol=2e-3), (s, b))
rc, out, err = run("--report", "roofline", "--peak-tflops", "bf17=3", os.path.join(DATA, "seed_cnn.pt.trace.json.gz"))
check("bad --peak-tflops: exit 2", rc == 2 and "bf17" in err, err)
rc, out, err = run("--report", "roofline", "--peak-gbps", "-3", os.path.join(DATA, "seed_cnn.pt.trace.json.gz"))
check("bad --peak-gbps: exit 2", rc == 2 and "--peak-gbps" in err and out == "", err)

# the text table: the advice line and the MFU heading
rc, out, err = run("--report", "roofline", os.path.join(DATA, "shapes_fp32.pt.trace.json.gz"))
check("table: advice", "aten::convolution_backward runs at 2 % of the tf32 peak with intensity 126" in out, out[-400:])
check("table: hardware FLOPs", "Hardware FLOPs utilisation per step" in out)

# a trace without shapes says which option records them
rc, out, err = run("--report", "roofline", os.path.join(DATA, "small_mlp_60steps.kscope"))
check("no shapes: message", rc == 0 and "record_shapes=True" in out and "autograd-shapes-nvtx" in out, out[:600])

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok:
        print(f"# {detail}")
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
