# SPDX-License-Identifier: GPL-3.0-or-later
#
# torch.utils.cpp_extension.load() as the recorder calls it to build its
# RecordFunction observer. Without FAKE_TORCH_OBSERVER it fails as load()
# does on a machine without ninja. With it, it "builds" the observer:
# compiles fake_observer.c, which stands in for kinescope_observer.cpp
# (that one needs torch's headers) and makes the calls the real one makes
# for two operators, into build_directory.

import os
import subprocess

from torch._log import log


def load(name, sources, extra_cflags=None, extra_ldflags=None, build_directory=None,
         with_cuda=None, is_python_module=True, verbose=False):
    log('cpp-extension-load', name, ' '.join(os.path.basename(s) for s in sources),
        'exists=%s' % all(os.path.exists(s) for s in sources),
        'is_python_module=%s' % is_python_module, 'with_cuda=%s' % with_cuda,
        'cflags=%s' % ','.join(extra_cflags or []))
    if not os.environ.get('FAKE_TORCH_OBSERVER'):
        raise RuntimeError('Ninja is required to load C++ extensions')
    path = os.path.join(build_directory, name + '.so')
    subprocess.run(['cc', '-shared', '-fPIC', '-o', path,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fake_observer.c'),
                    '-ldl'], check=True)
    return path
