#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds the two RecordFunction observers of overhead-parts.sh's floors
against this python3's torch, with the flags _kinescope_python.py's
TorchObserver.build uses for ours:

    observer_floors.py OUTDIR [OBSERVER_SOURCE]

OUTDIR/nop/nop_observer.so        nop_observer.cpp: a global callback with
                                  our configuration that returns at once
OUTDIR/ours/kinescope_observer.so our observer (OBSERVER_SOURCE, default
                                  $KINESCOPE_PYTHON_DIR/kinescope_observer.cpp,
                                  else src/collector/python's), which
                                  train.py --observer starts with
                                  noinject.so in place of the injector

Prints one line per build with its time. Both load with
train.py --observer SO,LIBRARY,FLAGS."""

import os
import sys
import time
import warnings

from torch.utils import cpp_extension

HERE = os.path.dirname(os.path.abspath(__file__))
# TorchObserver.CFLAGS of _kinescope_python.py
CFLAGS = ["-O2", "-DNDEBUG"]


def build(name, source, directory, cflags=CFLAGS):
    os.makedirs(directory, exist_ok=True)
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpp_extension.load(name=name, sources=[source], build_directory=directory,
                           extra_cflags=cflags, extra_ldflags=["-ldl"], with_cuda=False,
                           is_python_module=False, verbose=False)
    path = os.path.join(directory, name + ".so")
    print(f"built {path} from {source} in {time.monotonic() - started:.1f} s", flush=True)
    return path


def main():
    out = sys.argv[1]
    ours = sys.argv[2] if len(sys.argv) > 2 else None
    if ours is None:
        python_dir = os.environ.get("KINESCOPE_PYTHON_DIR")
        candidates = ([os.path.join(python_dir, "kinescope_observer.cpp")] if python_dir else []) + \
            [os.path.join(HERE, "..", "..", "src", "collector", "python", "kinescope_observer.cpp")]
        ours = next((c for c in candidates if os.path.exists(c)), candidates[-1])
    build("nop_observer", os.path.join(HERE, "nop_observer.cpp"), os.path.join(out, "nop"))
    build("kinescope_observer", os.path.abspath(ours), os.path.join(out, "ours"))


if __name__ == "__main__":
    main()
