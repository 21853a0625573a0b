#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small training loop for checking the collector on PyTorch.

    train.py [--steps N] [--workers W] [--profile-steps A:B] [--torch-profiler OUT.json]
             [--result OUT.json]

An MLP on synthetic data served by a DataLoader with W worker processes;
each step is an NVTX range "step N" with "forward", "backward" and
"optimizer" inside (torch.cuda.nvtx). Step times (CUDA-synchronized wall
clock) go to --result. With --torch-profiler, steps A..B-1 run under
torch.profiler (CPU + CUDA activities) and its trace is exported."""

import argparse
import json
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __init__(self, n, dim):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, dim, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--profile-steps", default="20:30")
    p.add_argument("--torch-profiler")
    p.add_argument("--result")
    p.add_argument("--forever", action="store_true")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    args = p.parse_args()
    a, b = (int(v) for v in args.profile_steps.split(":"))

    torch.manual_seed(0)
    dev = torch.device("cuda")
    w = args.width
    model = nn.Sequential(
        nn.Linear(512, w), nn.ReLU(),
        nn.Linear(w, w), nn.ReLU(),
        nn.Linear(w, w), nn.ReLU(),
        nn.Linear(w, 10),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(Synthetic(args.batch * 64, 512), batch_size=args.batch, shuffle=False,
                        num_workers=args.workers, pin_memory=True, persistent_workers=args.workers > 0)

    prof = None
    times = []
    step = 0
    while step < args.steps or args.forever:
        for x, y in loader:
            if step >= args.steps and not args.forever:
                break
            if args.torch_profiler and step == a:
                prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                          torch.profiler.ProfilerActivity.CUDA])
                prof.__enter__()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch.cuda.nvtx.range_push(f"step {step}")
            x = x.to(dev, non_blocking=True)
            y = y.to(dev, non_blocking=True)
            torch.cuda.nvtx.range_push("forward")
            loss = loss_fn(model(x), y)
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("backward")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("optimizer")
            opt.step()
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            if prof is not None and step == b - 1:
                prof.__exit__(None, None, None)
                prof.export_chrome_trace(args.torch_profiler)
                prof = None
            step += 1

    if args.result:
        with open(args.result, "w") as f:
            json.dump({"step_times": times, "loss": float(loss.detach())}, f)
    print(f"done {step} steps, median step {sorted(times[10:])[len(times[10:]) // 2] * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
