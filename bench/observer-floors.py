# SPDX-License-Identifier: GPL-3.0-or-later
#
# The layers of the default operator path on any torch, CPU or GPU, in ns
# per operator (docs/performance.md, "The floors of the operator path"):
# a tiny CPU model (six Linear + ReLU of width 8, LayerNorm, softmax,
# AdamW, one thread), whose step is almost all per-operator overhead, run
# one process per mode in interleaved rounds:
#
#   plain      no observer
#   rf-floor   tests/gpu/nop_observer.cpp: torch's RecordFunction with a
#              callback of our configuration that returns at once
#   observer   our observer with tests/gpu/noinject.c for the injector
#   record     kinescope-cli record -t nvtx --python-sampling=false
#              --pytorch-memory=false: the injector and the recorder too
#   record-base  the same with the injector of KINESCOPE_INJECT_DIR_BASE,
#              when set (a build to compare with)
#
#   python3 bench/observer-floors.py [ROUNDS [STEPS]]
#
# Needs KCLI (kinescope-cli), KINESCOPE_INJECT_DIR, KINESCOPE_PYTHON_DIR
# as for a recording from the build tree, gcc, and torch with a C++
# compiler and ninja for torch.utils.cpp_extension (PYTHON, default
# python3). Operators per step are counted from the recording's rows
# inside the steps' record_function ranges. Prints per mode the median
# step time of each process and, from the medians, the ns per operator
# each layer adds over the one below it.

import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FLOORS = os.path.join(HERE, '..', 'tests', 'gpu')


def child(mode, steps, so, library, flags):
    import ctypes
    import time
    import torch
    import torch.nn as nn

    torch.set_num_threads(1)
    if so != '-':
        lib = ctypes.CDLL(so)
        lib.kinescope_observer_start.argtypes = [ctypes.c_char_p, ctypes.c_int]
        if lib.kinescope_observer_start(library.encode(), int(flags)) != 1:
            sys.exit('observer-floors: the observer of %s did not start' % so)
    torch.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(8, 8), nn.ReLU())], nn.LayerNorm(8))
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    x = torch.randn(2, 8)
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        with torch.autograd.profiler.record_function('step %d' % i):
            loss = model(x).softmax(-1).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - t0)
    print('%s %.3f' % (mode, statistics.median(times[steps // 5:]) * 1e6))


def ops_per_step(path):
    db = sqlite3.connect(path)
    strings = dict(db.execute('SELECT id, value FROM StringIds'))
    rows = []
    for text, text_id, start, end in db.execute(
            'SELECT text, textId, start, end FROM NVTX_EVENTS WHERE eventType = 59'):
        text = text if text is not None else strings.get(text_id, '')
        if ', op_id = ' in text:
            rows.append((re.split(r', (?:seq|op_id) = ', text)[0], start, end))
    steps = [(s, e) for n, s, e in rows if re.fullmatch(r'step \d+', n)]
    inside = sum(1 for n, s, e in rows
                 if not re.fullmatch(r'step \d+', n) and any(a <= s and e <= b for a, b in steps))
    return inside / len(steps) if steps else 0.0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--child':
        child(*sys.argv[2:3], int(sys.argv[3]), *sys.argv[4:7])
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    py = os.environ.get('PYTHON', 'python3')
    kcli = os.environ.get('KCLI', 'kinescope-cli')
    tmp = tempfile.mkdtemp(prefix='ks-observer-floors-')
    subprocess.run([py, os.path.join(FLOORS, 'observer_floors.py'), os.path.join(tmp, 'floors')], check=True,
                   stdout=subprocess.DEVNULL)
    noinject = os.path.join(tmp, 'noinject.so')
    subprocess.run(['gcc', '-O2', '-shared', '-fPIC', '-o', noinject, os.path.join(FLOORS, 'noinject.c')], check=True)
    nop = os.path.join(tmp, 'floors', 'nop', 'nop_observer.so')
    ours = os.path.join(tmp, 'floors', 'ours', 'kinescope_observer.so')
    me = os.path.abspath(__file__)
    kscope = os.path.join(tmp, 'run.kscope')
    record = [kcli, 'record', '-f', '-t', 'nvtx', '--python-sampling=false', '--pytorch-memory=false', '-o', kscope, '--']
    modes = [('plain', [py, me, '--child', 'plain', str(steps), '-', '-', '0'], None),
             ('rf-floor', [py, me, '--child', 'rf-floor', str(steps), nop, '-', '0'], None),
             ('observer', [py, me, '--child', 'observer', str(steps), ours, noinject, '0'], None),
             ('record', record + [py, me, '--child', 'record', str(steps), '-', '-', '0'], None)]
    if os.environ.get('KINESCOPE_INJECT_DIR_BASE'):
        modes.append(('record-base', record + [py, me, '--child', 'record-base', str(steps), '-', '-', '0'],
                      os.environ['KINESCOPE_INJECT_DIR_BASE']))
    results = {m[0]: [] for m in modes}
    per_step = None
    for r in range(rounds):
        for name, argv, inject_dir in modes[r % len(modes):] + modes[:r % len(modes)]:
            env = dict(os.environ)
            if inject_dir:
                env['KINESCOPE_INJECT_DIR'] = inject_dir
            out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
            line = next(l for l in out.splitlines() if l.startswith(name + ' '))
            results[name].append(float(line.split()[1]))
            if name == 'record' and per_step is None:
                per_step = ops_per_step(kscope)

    med = {k: statistics.median(v) for k, v in results.items()}
    if not per_step:
        sys.exit('observer-floors: the recording has no operators inside its steps (%s)' % kscope)
    print('operators per step: %.0f (rows inside the steps of a recording)' % per_step)
    for name, _, _ in modes:
        print('%-12s median step %8.1f us   processes: %s' % (name, med[name], ' '.join('%.1f' % x for x in results[name])))
    layers = [('RecordFunction (rf-floor - plain)', 'rf-floor', 'plain'),
              ('our observer (observer - rf-floor)', 'observer', 'rf-floor'),
              ('injector and recorder (record - observer)', 'record', 'observer')]
    if 'record-base' in med:
        layers.append(('the base build\'s injector and recorder (record-base - observer)', 'record-base', 'observer'))
    for label, a, b in layers:
        print('%-66s %7.1f ns per operator' % (label, (med[a] - med[b]) * 1e3 / per_step))


if __name__ == '__main__':
    main()
