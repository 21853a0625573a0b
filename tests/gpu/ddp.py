#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A two-rank (or more) DDP job over gloo, for the ranks and
communication views; runs on one GPU (every rank on cuda:0).

    torchrun --nproc_per_node=2 ddp.py OUTDIR [--steps N] [--slow-rank R] [--slow-ms MS]
             [--no-profiler]

Each rank trains the same MLP on its own random batches; DDP all-reduces
the gradients through gloo. Rank R (default 1) sleeps MS ms (default 20)
on the CPU before each forward pass, so the other ranks wait for it in
every all-reduce: R is the straggler. Steps 2..2+N-1 run under
torch.profiler with tensorboard_trace_handler(OUTDIR), one
rank-tagged file per rank, as a DDP user would profile. With
--no-profiler the same steps run bare (for recording with
kinescope-cli record -- torchrun ...), each in an NVTX range "step K"."""

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--slow-rank", type=int, default=1)
    p.add_argument("--slow-ms", type=float, default=20.0)
    p.add_argument("--no-profiler", action="store_true")
    a = p.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(0)
    torch.manual_seed(rank)
    model = DDP(nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda(),
                device_ids=[0])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, 1024, device="cuda")

    def step(k):
        torch.cuda.nvtx.range_push(f"step {k}")
        if rank == a.slow_rank:
            time.sleep(a.slow_ms / 1000)
        opt.zero_grad(set_to_none=True)
        model(x).square().mean().backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    for k in range(2):
        step(k)
    if a.no_profiler:
        for k in range(a.steps):
            step(2 + k)
    else:
        os.makedirs(a.out, exist_ok=True)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                     schedule=schedule(wait=0, warmup=1, active=a.steps),
                     on_trace_ready=tensorboard_trace_handler(a.out, worker_name=f"rank{rank}",
                                                              use_gzip=True)) as prof:
            for k in range(a.steps + 1):
                step(2 + k)
                prof.step()
    dist.barrier()
    dist.destroy_process_group()
    print("rank", rank, "done")


if __name__ == "__main__":
    main()
