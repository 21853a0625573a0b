#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small training loop for checking the collector on PyTorch.

    train.py [--steps N] [--workers W] [--profile-steps A:B] [--torch-profiler OUT.json]
             [--result OUT.json] [--model mlp|gpt|cnn|transformer] [--width W] [--batch B]
             [--toggle N] [--seed-settings] [--annotate-steps] [--loader-work N]
             [--emit-nvtx] [--memory-history]

An MLP (or, with --model gpt, a small GPT-style decoder trained on token
sequences with AdamW under bf16 autocast; with --model cnn, a CNN with the
seed_cnn fixture's layers on 64x64 images; with --model transformer, a
launch-bound 4-layer nn.TransformerEncoder, d=256, with AdamW) on
synthetic data served by a
DataLoader with W worker processes; each step is an NVTX range "step N"
with "forward", "backward" and "optimizer" inside (torch.cuda.nvtx). Step
times (CUDA-synchronized wall clock) go to --result. With --torch-profiler,
steps A..B-1 run under torch.profiler (CPU + CUDA activities) and its trace
is exported. With --toggle N, cudaProfilerStop and cudaProfilerStart
alternate every N steps (outside the timed part), so that a recording with
--capture-range=cudaProfilerApi is on and off in turn in one process; the
result then says for each step whether it was inside a capture range.
--seed-settings adds record_shapes, profile_memory and with_stack to
torch.profiler; --annotate-steps wraps each step in record_function as
well, so that both a recording and torch.profiler mark the same steps;
--loader-work N makes each sample cost N pure-Python iterations in
decode_sample(), a loader-bound program. --emit-nvtx runs the steps under
torch.autograd.profiler.emit_nvtx() (torch's NVTX text per operator, for
whichever NVTX client is injected); --memory-history records the CUDA
caching allocator's history with the settings the recorder uses and takes
its snapshot after the last step, as the recorder does at exit."""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def machine_probe():
    """How fast this process's CPU and memory are, before any CUDA work:
    the GPU machine runs each process in a fast or a slow mode (the same
    calls 20 to 30 % apart), and these numbers tell which, apart from
    any profiler. Best of 5, in ms: an interpreter loop, and a random
    gather over 128 MiB (memory latency)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(1)
    table = torch.arange(1 << 24, dtype=torch.int64)
    index = torch.randperm(1 << 24, generator=g)[: 1 << 21]
    cpu, mem = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        sum(i * i for i in range(100000))
        cpu.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        table[index].sum()
        mem.append(time.perf_counter() - t0)
    torch.set_num_threads(threads)
    return {"probe_cpu_ms": min(cpu) * 1e3, "probe_mem_ms": min(mem) * 1e3}


class Synthetic(Dataset):
    def __init__(self, n, dim):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, dim, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def decode_sample(x, work):
    """Pure-Python work per sample (--loader-work), standing in for image
    decoding or tokenization: the loop a DataLoader-bound program spends
    its time in."""
    acc = 0
    for i in range(work):
        acc = (acc * 31 + i) % 1000003
    return x + (acc % 2) * 0.0


class Slow(Dataset):
    def __init__(self, inner, work):
        self.inner = inner
        self.work = work

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        x, y = self.inner[i]
        return decode_sample(x, self.work), y


class Tokens(Dataset):
    def __init__(self, n, seq, vocab):
        g = torch.Generator().manual_seed(0)
        self.t = torch.randint(0, vocab, (n, seq + 1), generator=g)

    def __len__(self):
        return len(self.t)

    def __getitem__(self, i):
        return self.t[i, :-1], self.t[i, 1:]


class Images(Dataset):
    def __init__(self, n, size):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 3, size, size, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def seed_cnn():
    """A CNN with the layers of the seed_cnn fixture (its convolution,
    batch norm, max pool and linear shapes): three 3x3 convolutions with
    batch norm and ReLU, a max pool, global average pooling and a linear
    classifier."""
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(128, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10),
    )


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class Encoder(nn.Module):
    """The launch-bound transformer: token embedding, a 4-layer
    nn.TransformerEncoder (d=256, 4 heads), a vocabulary head."""

    def __init__(self, vocab, d=256, layers=4, heads=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        return self.head(self.encoder(self.tok(idx)))


class GPT(nn.Module):
    def __init__(self, vocab, seq, d, layers, heads):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.Sequential(*(Block(d, heads) for _ in range(layers)))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.blocks(self.tok(idx) + self.pos(pos))
        return self.head(self.ln(x))


def start_observer(so, library, flags):
    """overhead-parts.sh's floors: a RecordFunction observer in this process
    without a recorder (nop_observer.cpp, or ours with noinject.so as its
    library), kept for the whole run; with --toggle, paused in the off
    blocks."""
    import ctypes
    lib = ctypes.CDLL(so)
    lib.kinescope_observer_start.restype = ctypes.c_int
    lib.kinescope_observer_start.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.kinescope_observer_pause.restype = None
    lib.kinescope_observer_pause.argtypes = [ctypes.c_int]
    if lib.kinescope_observer_start(library.encode(), int(flags)) != 1:
        sys.exit(f"train.py: the observer of {so} did not start with {library}")
    start_observer.lib = lib


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--profile-steps", default="20:30")
    p.add_argument("--torch-profiler")
    p.add_argument("--seed-settings", action="store_true",
                   help="torch.profiler with record_shapes, profile_memory and with_stack")
    p.add_argument("--annotate-steps", action="store_true",
                   help="also wrap each step in record_function('step N'), which both torch.profiler and a recording see")
    p.add_argument("--progress", action="store_true", help="print each step's number and time")
    p.add_argument("--loader-in-step", action="store_true",
                   help="the NVTX range of a step also holds the fetch of its batch, as ProfilerStep#N does")
    p.add_argument("--loader-work", type=int, default=0,
                   help="pure-Python iterations per sample in the DataLoader (a loader-bound program)")
    p.add_argument("--result")
    p.add_argument("--forever", action="store_true")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--model", choices=("mlp", "gpt", "cnn", "transformer"), default="mlp")
    p.add_argument("--emit-nvtx", action="store_true",
                   help="run the steps under torch.autograd.profiler.emit_nvtx()")
    p.add_argument("--memory-history", action="store_true",
                   help="record the caching allocator's history as the recorder does "
                        "(with --toggle, only in the on blocks)")
    p.add_argument("--toggle", type=int, default=0)
    p.add_argument("--pin-main", type=int, default=-1,
                   help="run the main thread on this CPU alone once the DataLoader has started")
    p.add_argument("--observer", metavar="SO,LIBRARY,FLAGS",
                   help="start a RecordFunction observer built by observer_floors.py: "
                        "kinescope_observer_start(LIBRARY, FLAGS) of SO, before the model is built")
    args = p.parse_args()
    if args.observer:
        start_observer(*args.observer.split(","))
    a, b = (int(v) for v in args.profile_steps.split(":"))

    probe = machine_probe()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    w = args.width
    if args.model == "cnn":
        # 64x64 RGB images; --width is ignored
        model = seed_cnn().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        data = Images(args.batch * 8, 64)
    elif args.model == "transformer":
        # --width and --batch are ignored: 16 sequences of 64 tokens
        vocab, seq = 1024, 64
        model = Encoder(vocab).to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        data = Tokens(16 * 64, seq, vocab)
        args.batch = 16
    elif args.model == "gpt":
        # --width is the model dimension, --batch the sequences per step
        vocab, seq = 8192, 256
        model = GPT(vocab, seq, w, layers=6, heads=8).to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        data = Tokens(args.batch * 64, seq, vocab)
    else:
        model = nn.Sequential(
            nn.Linear(512, w), nn.ReLU(),
            nn.Linear(w, w), nn.ReLU(),
            nn.Linear(w, w), nn.ReLU(),
            nn.Linear(w, 10),
        ).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        data = Synthetic(args.batch * 64, 512)
    if args.loader_work:
        data = Slow(data, args.loader_work)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(data, batch_size=args.batch, shuffle=False,
                        num_workers=args.workers, pin_memory=True, persistent_workers=args.workers > 0)

    def memory_history(on):
        # src/collector/python/_kinescope_python.py, TorchMemory
        torch.cuda.memory._record_memory_history(enabled="all" if on else None, context=None,
                                                 stacks="python", max_entries=1000000)

    if args.memory_history:
        memory_history(True)
    nvtx = torch.autograd.profiler.emit_nvtx() if args.emit_nvtx else None
    if nvtx is not None:
        nvtx.__enter__()

    prof = None
    times = []
    capturing = []
    on = False
    step = 0
    def batches():
        # With --loader-in-step, "step N" opens before its batch is fetched
        # (and is closed by the step's body).
        def open_step():
            if args.loader_in_step and (step < args.steps or args.forever):
                torch.cuda.nvtx.range_push(f"step {step}")
                return True
            return False

        while True:
            opened = open_step()
            for batch in loader:
                yield batch
                opened = open_step()
            if opened:
                torch.cuda.nvtx.range_pop()

    while step < args.steps or args.forever:
        for x, y in batches():
            if step >= args.steps and not args.forever:
                break
            if step == 0 and args.pin_main >= 0:
                # The calling thread only: workers, the pin-memory thread and
                # CUDA's threads keep the CPUs they started with.
                os.sched_setaffinity(0, {args.pin_main})
            if args.torch_profiler and step == a:
                seed = dict(record_shapes=True, profile_memory=True, with_stack=True) if args.seed_settings else {}
                prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                          torch.profiler.ProfilerActivity.CUDA], **seed)
                prof.__enter__()
            if args.toggle and step % args.toggle == 0:
                torch.cuda.synchronize()
                on = not on
                if on:
                    torch.cuda.profiler.start()
                else:
                    torch.cuda.profiler.stop()
                # an --observer started here goes with the blocks, as ours
                # goes with a recording's capture range
                if getattr(start_observer, "lib", None) is not None:
                    start_observer.lib.kinescope_observer_pause(0 if on else 1)
                # and the allocator's history, with --memory-history
                if args.memory_history:
                    memory_history(on)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if not args.loader_in_step:
                torch.cuda.nvtx.range_push(f"step {step}")
            annotation = torch.profiler.record_function(f"step {step}") if args.annotate_steps else None
            if annotation is not None:
                annotation.__enter__()
            x = x.to(dev, non_blocking=True)
            y = y.to(dev, non_blocking=True)
            torch.cuda.nvtx.range_push("forward")
            if args.model == "gpt":
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    logits = model(x)
                loss = loss_fn(logits.float().view(-1, logits.shape[-1]), y.view(-1))
            elif args.model == "transformer":
                logits = model(x)
                loss = loss_fn(logits.view(-1, logits.shape[-1]), y.view(-1))
            else:
                loss = loss_fn(model(x), y)
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("backward")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("optimizer")
            opt.step()
            torch.cuda.nvtx.range_pop()
            if annotation is not None:
                annotation.__exit__(None, None, None)
            torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
            if args.progress:
                print(f"step {step} {times[-1] * 1e3:.2f} ms", flush=True)
            capturing.append(on)
            if prof is not None and step == b - 1:
                prof.__exit__(None, None, None)
                prof.export_chrome_trace(args.torch_profiler)
                prof = None
            step += 1

    if nvtx is not None:
        nvtx.__exit__(None, None, None)
    if args.memory_history:
        torch.cuda.memory._snapshot()
        torch.cuda.memory._record_memory_history(enabled=None)
    if args.result:
        with open(args.result, "w") as f:
            # the probe again after the steps: a spell of the host's slow
            # mode that began after the first shows here
            end = machine_probe()
            json.dump({"step_times": times, "capturing": capturing, "loss": float(loss.detach()),
                       **probe, "probe_end_cpu_ms": end["probe_cpu_ms"], "probe_end_mem_ms": end["probe_mem_ms"]}, f)
    print(f"done {step} steps, median step {sorted(times[10:])[len(times[10:]) // 2] * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
