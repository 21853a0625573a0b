#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Operators whose FLOPs are known from their shapes, under torch.profiler
with record_shapes: mm, addmm, bmm, baddbmm, matmul, linear, conv2d
(stride, padding, dilation, groups) forward and backward, scaled-dot-product
attention forward and backward, layer norm, GELU, softmax and reductions,
for 3 steps after one of warm-up.

    shapes.py OUTDIR [--dtype fp32|bf16]

Writes OUTDIR/shapes_DTYPE.pt.trace.json.gz (record_shapes),
OUTDIR/shapes_DTYPE_flops.pt.trace.json.gz (the same with with_flops=True)
and OUTDIR/shapes_DTYPE_flops.json: per operator the FLOPs that
torch.utils.flop_counter.FlopCounterMode counts for one step, and the
step count, as an independent reference."""

import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(64, 128, 3, stride=2, padding=2, dilation=2)
        self.conv3 = nn.Conv2d(128, 128, 3, padding=1, groups=4)
        self.proj = nn.Linear(128, 256)
        self.qkv = nn.Linear(256, 3 * 256)
        self.norm = nn.LayerNorm(256)
        self.out = nn.Linear(256, 10)
        self.w = nn.Parameter(torch.randn(256, 256) * 0.02)
        self.b = nn.Parameter(torch.zeros(256))

    def forward(self, img):
        x = F.relu(self.conv1(img))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))                       # B,128,16,16
        x = x.flatten(2).transpose(1, 2)                # B,256 tokens,128
        x = self.proj(x)                                # B,T,256
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        B, T, C = q.shape
        h = 8
        q = q.view(B, T, h, C // h).transpose(1, 2)
        k = k.view(B, T, h, C // h).transpose(1, 2)
        v = v.view(B, T, h, C // h).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).reshape(B, T, C)
        x = self.norm(x + a)
        flat = x.reshape(B * T, C)
        y = torch.addmm(self.b, flat, self.w)           # aten::addmm
        y = torch.mm(F.gelu(y), self.w)                 # aten::mm
        y = y.view(B, T, C)
        s = torch.bmm(y, y.transpose(1, 2)) / C         # aten::bmm
        s = torch.baddbmm(s, y, y.transpose(1, 2), alpha=0.5)
        s = torch.softmax(s, dim=-1)
        y = torch.matmul(s, y)                          # matmul -> bmm
        return self.out(y.mean(dim=1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("outdir")
    p.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32")
    p.add_argument("--batch", type=int, default=16)
    args = p.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.manual_seed(0)
    dev = torch.device("cuda")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    model = Net().to(dev, dtype)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    img = torch.randn(args.batch, 3, 32, 32, device=dev, dtype=dtype)
    tgt = torch.randint(0, 10, (args.batch,), device=dev)

    def step():
        loss = F.cross_entropy(model(img).float(), tgt)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    torch.cuda.synchronize()
    counter = FlopCounterMode(display=False)
    with counter:
        loss = F.cross_entropy(model(img).float(), tgt)
        loss.backward()
    opt.zero_grad(set_to_none=True)
    per_op = {}
    for op, n in counter.get_flop_counts().get("Global", {}).items():
        per_op[str(op)] = int(n)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    steps = 3
    for suffix, flops in (("", False), ("_flops", True)):
        sched = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
        with torch.profiler.profile(activities=acts, record_shapes=True,
                                    with_flops=flops, schedule=sched) as prof:
            for _ in range(steps + 1):
                step()
                prof.step()
        torch.cuda.synchronize()
        prof.export_chrome_trace(os.path.join(
            args.outdir, f"shapes_{args.dtype}{suffix}.pt.trace.json.gz"))
    with open(os.path.join(args.outdir, f"shapes_{args.dtype}_flops.json"), "w") as f:
        json.dump({"dtype": args.dtype, "batch": args.batch,
                   "device": torch.cuda.get_device_name(),
                   "steps": steps,
                   "flop_counter_per_step": per_op,
                   "flop_counter_total_per_step": int(counter.get_total_flops())},
                  f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
