#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A DataLoader-bound loop without steps: N iterations of a small MLP under
torch.profiler (CPU + CUDA, no schedule, no ProfilerStep, no NVTX), the
shape of trace many users export by hand.

    nosteps.py OUT.pt.trace.json.gz [--iters 5] [--loader-work 3000] [--stack]

--loader-work sets the pure-Python cost of each sample (decode_sample), so
two runs with different values make a before/after pair without steps."""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def holdout_decode(x, work):
    acc = 0
    for i in range(work):
        acc += i * i
    return x + (acc % 7) * 0.0


class Data(Dataset):
    def __init__(self, n, dim, work):
        self.n, self.dim, self.work = n, dim, work

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(self.dim, generator=g)
        return holdout_decode(x, self.work), i % 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--loader-work", type=int, default=3000)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--stack", action="store_true")
    args = p.parse_args()
    dev = torch.device("cuda")
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Data(args.batch * (args.iters + 2), 512, args.loader_work),
                        batch_size=args.batch, num_workers=2)
    it = iter(loader)
    # one warm-up iteration outside the profiler, as users usually do
    x, y = next(it)
    loss = nn.functional.cross_entropy(model(x.to(dev)), y.to(dev))
    loss.backward(); opt.step(); opt.zero_grad()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts, with_stack=args.stack) as prof:
        for _ in range(args.iters):
            x, y = next(it)
            loss = nn.functional.cross_entropy(model(x.to(dev)), y.to(dev))
            loss.backward()
            opt.step()
            opt.zero_grad()
            loss.item()
    prof.export_chrome_trace(args.out)


if __name__ == "__main__":
    main()
