#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A torch.compile(mode="reduce-overhead") step, so launched as CUDA graphs,
under torch.profiler (CPU + CUDA) for 3 steps after a wait and a warm-up
step: every kernel of a graph shares its cudaGraphLaunch's correlation id.

    graphs.py OUT.pt.trace.json.gz"""

import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule


def main():
    torch.manual_seed(0)
    m = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(8)]).cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    f = torch.compile(lambda x: m(x).square().mean(), mode="reduce-overhead")
    x = torch.randn(256, 1024, device="cuda")
    p = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                schedule=schedule(wait=1, warmup=1, active=3))
    p.start()
    for _ in range(8):
        f(x).backward()
        opt.step()
        opt.zero_grad()
        p.step()
    p.stop()
    p.export_chrome_trace(sys.argv[1])


if __name__ == "__main__":
    main()
