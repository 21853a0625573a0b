#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""One model, eager or torch.compile, under torch.profiler: a before/after
pair for comparing traces, and a trace of Triton kernels.

    capture.py eager|compile OUT.pt.trace.json.gz [--steps N]

A 4-block MLP-mixer-like model (LayerNorm, Linear, GELU, residual) trained
with AdamW on random data; steps 3..3+N-1 run under torch.profiler (CPU +
CUDA, record_shapes) with each step marked by the profiler's schedule
(ProfilerStep#K). Compiled, the element-wise work of each block becomes
Triton kernels where eager runs one aten kernel per operator."""

import argparse
import gzip
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.down(nn.functional.gelu(self.up(self.norm(x))))
        return x + h * 0.5


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=("eager", "compile"))
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--batch", type=int, default=2048)
    a = p.parse_args()

    torch.manual_seed(0)
    model = nn.Sequential(*[Block(a.width) for _ in range(4)]).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.width, device="cuda")
    y = torch.randn(a.batch, a.width, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()

    if a.mode == "compile":
        step = torch.compile(step)
    for _ in range(3):          # warm-up (and compilation) outside the trace
        step()
    torch.cuda.synchronize()

    tmp = tempfile.mkdtemp()
    plain = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=0, warmup=1, active=a.steps),
                 on_trace_ready=lambda prof: prof.export_chrome_trace(plain)) as prof:
        for _ in range(a.steps + 1):
            step()
            prof.step()
    torch.cuda.synchronize()
    with open(plain, "rb") as src, gzip.open(a.out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    print(a.mode, "wrote", a.out)


if __name__ == "__main__":
    main()
