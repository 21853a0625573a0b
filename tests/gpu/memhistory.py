#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""record --cuda-memory-history on a real torch (tests/gpu/memhistory-check.sh).

    memhistory.py run OUTDIR normal|oom     the program recorded
    memhistory.py compare OUTDIR            the verdict, on stdout

The program never asks for the history itself: the recorder turns it on.
normal: a few steps of a small MLP, then torch's own figures at the end
(OUTDIR/facts-normal.json) and a normal exit. oom: one 512 MiB segment cut
into 20 and 12 MiB blocks, the 20 MiB ones freed, under a 600 MiB
per-process fraction, then 28 MiB requests until one fails (a fragmentation
OOM); the figures at the error are written and the process kills itself
(SIGKILL: no exit hooks), so only the snapshot taken at the error remains.

compare checks each recording's `stats --report memory-snapshot -f json`
against those figures: memory_stats()' current allocated and reserved
bytes and segment count, and the blocks of torch's own _snapshot()."""

import json
import os
import signal
import sqlite3
import sys


def facts(torch, extra):
    snap = torch.cuda.memory._snapshot()
    segs = snap["segments"]
    stats = torch.cuda.memory_stats()
    d = {
        "memory_stats_allocated_bytes": stats["allocated_bytes.all.current"],
        "memory_stats_reserved_bytes": stats["reserved_bytes.all.current"],
        "memory_stats_segments": stats["segment.all.current"],
        "active_blocks": sum(1 for s in segs for b in s["blocks"] if b["state"] == "active_allocated"),
        "inactive_blocks": sum(1 for s in segs for b in s["blocks"] if b["state"] == "inactive"),
        "largest_free_bytes": max([b["size"] for s in segs for b in s["blocks"] if b["state"] == "inactive"] or [0]),
        "free_bytes": sum(b["size"] for s in segs for b in s["blocks"] if b["state"] == "inactive"),
        "history_enabled_by_recorder": sum(len(t) for t in snap["device_traces"]) > 0,
    }
    d.update(extra)
    return d


_kept = []


def run(out, mode):
    import torch
    import torch.nn as nn

    dev = torch.device("cuda")
    path = os.path.join(out, f"facts-{mode}.json")
    if mode == "normal":
        model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).to(dev)
        opt = torch.optim.AdamW(model.parameters())
        for step in range(4):
            x = torch.randn(512, 1024, device=dev)
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        with open(path, "w") as f:
            json.dump(facts(torch, {}), f, indent=1, sort_keys=True)
        # held to the end: the recorder's snapshot is taken at exit, and
        # must find the allocator as these figures saw it
        _kept.extend([model, opt, x, loss])
        return
    mib = 1 << 20
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(600 * mib / total)
    big = torch.empty(512 * mib, dtype=torch.uint8, device=dev)
    del big
    held = []
    for i in range(16):
        held.append(torch.empty(20 * mib, dtype=torch.uint8, device=dev))
        held.append(torch.empty(12 * mib, dtype=torch.uint8, device=dev))
    keep = held[1::2]
    del held
    more = []
    try:
        for i in range(64):
            more.append(torch.empty(28 * mib, dtype=torch.uint8, device=dev))
    except torch.OutOfMemoryError as e:
        with open(path, "w") as f:
            json.dump(facts(torch, {"request_bytes": 28 * mib, "oom_message": str(e),
                                    "live": len(keep) + len(more)}), f, indent=1, sort_keys=True)
        os.kill(os.getpid(), signal.SIGKILL)
    print("no out-of-memory error under the 600 MiB fraction")


def compare(out):
    failures = 0

    def check(what, got, want):
        nonlocal failures
        ok = got == want
        failures += not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {what}: kinescope {got}, torch {want}")

    for mode in ("normal", "oom"):
        print(f"{mode}:")
        facts_path = os.path.join(out, f"facts-{mode}.json")
        report_path = os.path.join(out, f"report-{mode}.json")
        kscope = os.path.join(out, f"memhistory-{mode}.kscope")
        if not os.path.exists(facts_path) or not os.path.exists(report_path):
            print(f"  FAIL missing {facts_path} or {report_path} (see record-{mode}.log, report-{mode}.err)")
            failures += 1
            continue
        with open(facts_path) as f:
            t = json.load(f)
        try:
            with open(report_path) as f:
                r = json.load(f)
        except ValueError as e:
            print(f"  FAIL {report_path} is not JSON: {e} (see report-{mode}.err)")
            failures += 1
            continue
        db = sqlite3.connect(kscope)
        rows = db.execute("SELECT reason, length(snapshot) FROM KS_CUDA_MEMORY_SNAPSHOTS ORDER BY rowid").fetchall()
        db.close()
        print(f"  snapshots kept: {rows}")
        check("snapshot reasons", sorted(x[0] for x in rows),
              ["exit"] if mode == "normal" else ["out-of-memory"])
        check("history turned on by the recorder (trace entries > 0)", t["history_enabled_by_recorder"], True)
        dev = r["devices"][0]
        check("allocated_bytes", dev["allocated_bytes"], t["memory_stats_allocated_bytes"])
        check("reserved_bytes", dev["reserved_bytes"], t["memory_stats_reserved_bytes"])
        check("segments", dev["segments"], t["memory_stats_segments"])
        for k in ("active_blocks", "inactive_blocks", "largest_free_bytes", "free_bytes"):
            check(k, dev[k], t[k])
        if mode == "oom":
            ooms = r.get("ooms", [])
            check("out-of-memory errors", len(ooms), 1)
            if ooms:
                check("request_bytes", ooms[0]["request_bytes"], t["request_bytes"])
                check("cause", ooms[0]["cause"], "fragmentation")
                check("largest_free_bytes at the error", ooms[0]["largest_free_bytes"], t["largest_free_bytes"])
                check("Python stack of the request names memhistory.py",
                      any("memhistory.py" in fr.get("filename", "") for fr in ooms[0].get("frames", [])), True)
    print("PASS" if failures == 0 else f"FAIL: {failures} checks differ")
    return failures


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(1 if compare(sys.argv[2]) else 0)
