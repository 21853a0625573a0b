# SPDX-License-Identifier: GPL-3.0-or-later
#
# The Python side of a Kinescope recording, loaded by our sitecustomize in
# every Python process the recorder starts (PYTHONPATH stays set, so that
# subprocesses, DataLoader workers and torchrun ranks are recorded too):
#
# - hands over to the sitecustomize Python would have run without us, so
#   that the program sees the same sys.path and the same sitecustomize;
# - has the recorder sample the Python stacks of every thread from outside
#   (KINESCOPE_PYTHON sampling=HZ), or samples them itself where it cannot,
#   and names the threads as threading does;
# - once torch is imported, records its operators (pytorch=autograd-nvtx|
#   autograd-shapes-nvtx): with our RecordFunction observer
#   (kinescope_observer.cpp, built against that torch and cached), or,
#   where it cannot be built, with torch's NVTX emission on the importing
#   thread and on every thread started later, stepping aside while the
#   program runs a profiler of its own;
# - records the CUDA caching allocator's history from CUDA's initialisation
#   and sends it at exit (memory=1);
# - with history=1 (record --cuda-memory-history), records that history with
#   the Python stacks of allocations and frees, and pickles the allocator's
#   snapshot, as torch.cuda.memory._dump_snapshot() writes it, into the
#   recorder's folder (KINESCOPE_MEMORY_HISTORY_DIR) at exit and at an
#   out-of-memory error, before the program can die of it.
#
# Everything reaches the recorder through libkinescope-inject.so
# (KINESCOPE_INJECT_LIBRARY), the copy already in the process. Nothing here
# may raise into the program: failures become recorder diagnostics.

import _thread
import array
import atexit
import ctypes
import hashlib
import importlib.machinery
import importlib.util
import os
import pickle
import sys
import threading
import time
import warnings

MAX_FRAMES = 256
DIAG_INFO = 0
DIAG_WARNING = 1
DIAG_ERROR = 2
# How long the Python side waits for the recorder to start reading its
# stacks before it samples them itself (KsWirePyOutside)
OUTSIDE_WAIT_S = 3.0
OUTSIDE_PENDING = 0
OUTSIDE_READ = 1
OUTSIDE_INSIDE = 2
# Entries the allocator keeps (its history is a ring buffer)
MEMORY_MAX_ENTRIES = 1000000
# A build of the observer takes well under this
STALE_BUILD_LOCK_S = 900

_lib = None
_config = None
_sampler = None


def parse_config(text):
    """KINESCOPE_PYTHON "pytorch=…;memory=0|1;sampling=HZ[;history=0|1]" → (dict, problems)."""
    config = {'pytorch': 'autograd-nvtx', 'memory': True, 'sampling': 1000, 'history': False}
    problems = []
    for item in (text or '').split(';'):
        if not item:
            continue
        key, _, value = item.partition('=')
        if key == 'pytorch' and value in ('autograd-shapes-nvtx', 'autograd-nvtx', 'none'):
            config['pytorch'] = value
        elif key == 'memory' and value in ('0', '1'):
            config['memory'] = value == '1'
        elif key == 'history' and value in ('0', '1'):
            config['history'] = value == '1'
        elif key == 'sampling' and value.isdigit() and int(value) <= 10000:
            config['sampling'] = int(value)
        else:
            problems.append(item)
    return config, problems


def diag(severity, text):
    if _lib is not None:
        try:
            _lib.ks_inject_python_diag(severity, text.encode('utf-8', 'replace'))
        except Exception:
            pass


def _load_library():
    path = os.environ.get('KINESCOPE_INJECT_LIBRARY')
    if not path:
        return None
    # The same path as CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH and
    # LD_PRELOAD: the dynamic linker returns the copy already loaded.
    # PyDLL: the calls keep the GIL. They are short and never wait for
    # Python; with CDLL every call would hand the GIL to the program and
    # take it back, and a round of samples would cost a GIL switch per
    # thread.
    lib = ctypes.PyDLL(path)
    lib.ks_inject_python_begin.restype = ctypes.c_int
    lib.ks_inject_python_begin.argtypes = []
    lib.ks_inject_python_sampler_thread.restype = None
    lib.ks_inject_python_sampler_thread.argtypes = []
    lib.ks_inject_python_intern.restype = ctypes.c_uint32
    lib.ks_inject_python_intern.argtypes = [ctypes.c_char_p]
    lib.ks_inject_python_sample.restype = ctypes.c_int
    lib.ks_inject_python_sample.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32,
                                            ctypes.c_void_p]
    lib.ks_inject_python_allocator.restype = None
    lib.ks_inject_python_allocator.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int64,
                                               ctypes.c_int64, ctypes.c_int64, ctypes.c_uint32,
                                               ctypes.c_uint32]
    lib.ks_inject_python_diag.restype = None
    lib.ks_inject_python_diag.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    lib.ks_inject_python_flush.restype = None
    lib.ks_inject_python_flush.argtypes = []
    # CDLL: this call waits for the request to reach the recorder, with
    # the GIL released
    lib.outside = ctypes.CDLL(path).ks_inject_python_outside
    lib.outside.restype = ctypes.c_int
    lib.outside.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32]
    lib.ks_inject_python_thread_name.restype = None
    lib.ks_inject_python_thread_name.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    lib.ks_inject_torch_begin.restype = ctypes.c_int
    lib.ks_inject_torch_begin.argtypes = []
    return lib


# --- the sitecustomize chain ------------------------------------------------

def _same_dir(entry, here):
    try:
        return os.path.realpath(entry or os.curdir) == here
    except (TypeError, ValueError, OSError):
        return False


def _chain(here):
    """Runs the sitecustomize Python would have found without us, as module
    sitecustomize, and lets its exceptions through unchanged."""
    for entry in [e for e in sys.path if _same_dir(e, here)]:
        sys.path.remove(entry)
        sys.path_importer_cache.pop(entry, None)
    sys.modules.pop('sitecustomize', None)
    spec = importlib.machinery.PathFinder.find_spec('sitecustomize', sys.path)
    if spec is None:
        # as the import would have said: site.py ignores exactly this
        raise ImportError("No module named 'sitecustomize'", name='sitecustomize')
    module = importlib.util.module_from_spec(spec)
    sys.modules['sitecustomize'] = module
    spec.loader.exec_module(module)


def start(sitecustomize_file):
    global _lib, _config, _sampler

    here = os.path.realpath(os.path.dirname(os.path.abspath(sitecustomize_file)))
    try:
        _lib = _load_library()
        if _lib is not None and _lib.ks_inject_python_begin() != 1:
            _lib = None
    except Exception:
        # not recorded (no library, or not this architecture's): say nothing
        _lib = None

    if _lib is not None:
        try:
            _config, problems = parse_config(os.environ.get('KINESCOPE_PYTHON'))
            for item in problems:
                diag(DIAG_WARNING, 'KINESCOPE_PYTHON: ignored “%s”' % item)
            if _config['sampling'] > 0:
                _sampler = Sampler(_lib, _config['sampling'])
                _sampler.start()
            if _config['pytorch'] != 'none' or _config['history']:
                TorchFinder.install()
            os.register_at_fork(after_in_child=_after_fork_child)
            _wrap_os_exit()
        except Exception as e:
            diag(DIAG_ERROR, 'the Python side could not start: %s: %s' % (type(e).__name__, e))

    _chain(here)


def _after_fork_child():
    global _lib
    try:
        # a new connection, with its own string ids
        if _lib.ks_inject_python_begin() != 1:
            return
        if _sampler is not None:
            _sampler.restart_in_child()
    except Exception as e:
        diag(DIAG_ERROR, 'the Python side could not restart after fork: %s' % e)


def _wrap_os_exit():
    real_exit = os._exit

    # os._exit() skips the exit hooks: multiprocessing's forked workers end
    # that way, and what they sampled last would be lost.
    def _exit(status):
        try:
            if TorchMemory.installed is not None:
                TorchMemory.installed._at_exit()
            if TorchObserver.installed is not None:
                TorchObserver.installed.stop()
            if TorchNvtx.installed is not None:
                TorchNvtx.installed.disable_here()
            if _sampler is not None:
                _sampler.stop()
            _lib.ks_inject_python_flush()
        except BaseException:
            pass
        real_exit(status)

    _exit.__doc__ = real_exit.__doc__
    _exit.__name__ = real_exit.__name__
    _exit.__qualname__ = real_exit.__qualname__
    os._exit = _exit


# --- stack sampling ---------------------------------------------------------

class Sampler:
    """Asks the recorder to read the stacks from outside, which costs the
    program nothing and never waits for its GIL; where the recorder
    cannot, one thread of ours (_thread, so invisible to
    threading.enumerate()) reads sys._current_frames() HZ times a second.
    Either way, threads are named to the recorder as threading names them,
    once when they start and when renamed."""

    names_hooked = False

    def __init__(self, lib, hz):
        self.lib = lib
        self.interval_ns = 1000000000 // hz
        # the recorder's answer (KsWirePyOutside), written from outside
        self.outside = ctypes.c_uint32(OUTSIDE_PENDING)
        self.codes = {}
        self.last = {}
        # idents whose Thread.native_id is stale: the thread that forked,
        # which Python 3.11 leaves with the parent's id
        self.forked = {}
        self.running = False
        self.wake = None
        self.done = None

    def start(self, forked=False):
        self.wake = _thread.allocate_lock()
        self.wake.acquire()
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.running = True
        self._hook_names()
        # In a forked child the thread that forked carries on under a name
        # from the parent; what the process calls it (PyTorch names a
        # DataLoader worker's pt_data_worker) is the kernel's name.
        if not forked:
            _send_name(threading.current_thread(), threading.get_native_id())
        _thread.start_new_thread(self._run, ())
        atexit.register(self.stop)

    @classmethod
    def _hook_names(cls):
        """Thread._set_native_id runs in each new thread as it starts."""
        if cls.names_hooked:
            return
        cls.names_hooked = True
        thread_class = threading.Thread
        real_set_native_id = getattr(thread_class, '_set_native_id', None)
        if real_set_native_id is not None:
            def _set_native_id(thread):
                real_set_native_id(thread)
                _send_name(thread, getattr(thread, '_native_id', None))
            thread_class._set_native_id = _set_native_id
        prop = thread_class.__dict__.get('name')
        if isinstance(prop, property) and prop.fset is not None:
            def set_name(thread, value):
                prop.fset(thread, value)
                _send_name(thread, getattr(thread, '_native_id', None))
            thread_class.name = property(prop.fget, set_name, prop.fdel, prop.__doc__)

    def stop(self):
        if not self.running:
            return
        self.running = False
        try:
            self.wake.release()
        except RuntimeError:
            pass
        self.done.acquire(timeout=2.0)

    def restart_in_child(self):
        # The parent's ids were sent on the parent's connection, and its
        # sampler thread does not exist here.
        self.codes = {}
        self.last = {}
        self.forked = {_thread.get_ident(): threading.get_native_id()}
        self.outside.value = OUTSIDE_PENDING
        self.running = False
        self.start(forked=True)

    def _ids(self, code):
        intern = self.lib.ks_inject_python_intern
        name = getattr(code, 'co_qualname', code.co_name)
        ids = (intern(code.co_filename.encode('utf-8', 'surrogateescape')),
               intern(name.encode('utf-8', 'surrogateescape')))
        self.codes[code] = ids
        return ids

    def _read_from_outside(self):
        """True once the recorder reads our stacks (or we are stopped)."""
        outside = self.outside
        # a measurement switch: the in-process sampler, to compare
        if os.environ.get('KINESCOPE_PYTHON_SAMPLER') == 'inside':
            return False
        # this thread, which waits for the answer, is ours: not sampled
        if not self.lib.outside(ctypes.addressof(outside), sys.hexversion, threading.get_native_id()):
            return False
        deadline = time.monotonic() + OUTSIDE_WAIT_S
        while outside.value == OUTSIDE_PENDING and time.monotonic() < deadline:
            if self.wake.acquire(timeout=0.002):
                self.running = False
                return True
        if outside.value == OUTSIDE_READ:
            return True
        if outside.value == OUTSIDE_PENDING:
            outside.value = OUTSIDE_INSIDE
            diag(DIAG_WARNING, 'the recorder did not start reading the Python stacks within %g s: '
                 'they are sampled in the process, where samples wait for the GIL' % OUTSIDE_WAIT_S)
        return False

    def _run(self):
        try:
            self.lib.ks_inject_python_sampler_thread()
            if not self._read_from_outside():
                self._loop()
        except Exception as e:
            diag(DIAG_ERROR, 'Python sampling stopped: %s: %s' % (type(e).__name__, e))
        finally:
            self.done.release()

    def sample_all(self, now):
        """One round: every thread's stack but the calling one's. A thread
        whose innermost frame is where it was last round (same frame, same
        instruction: nothing under it can have changed) is sent as a
        repeat of its previous stack."""
        codes = self.codes
        forked = self.forked
        last = self.last
        sample = self.lib.ks_inject_python_sample
        active = threading._active
        main_thread = threading.main_thread()
        me = _thread.get_ident()
        seen = {}
        for ident, frame in sys._current_frames().items():
            if ident == me:
                continue
            thread = active.get(ident)
            if thread is None:
                if ident != main_thread.ident:
                    continue    # a _thread thread: its kernel tid is not known
                thread = main_thread
            tid = forked.get(ident) or thread.native_id
            if tid is None:
                continue
            # ids, not the frames: holding a frame would keep its locals
            # (tensors) alive after it returns. (A frame freed and another
            # made at its address, of the same code at the same instruction
            # under a caller at the same address, would pass for it: one
            # stale caller chain until the innermost frame moves.)
            key = (id(frame), frame.f_code, frame.f_lasti, id(frame.f_back))
            if last.get(ident) == key:
                if sample(now, tid, 0, None):
                    seen[ident] = key
                continue
            frames = []
            n = 0
            while frame is not None and n < MAX_FRAMES:
                code = frame.f_code
                ids = codes.get(code)
                if ids is None:
                    ids = self._ids(code)
                frames += (ids[0], ids[1], frame.f_lineno or 0)
                frame = frame.f_back
                n += 1
            buf = array.array('I', frames)
            # not sent (outside a capture range): the next round sends the
            # whole stack, which a repeat could not stand for
            if sample(now, tid, n, buf.buffer_info()[0]):
                seen[ident] = key
        self.last = seen

    def _loop(self):
        monotonic_ns = time.monotonic_ns
        wake = self.wake
        interval = self.interval_ns
        next_ns = monotonic_ns()

        while self.running:
            started = monotonic_ns()
            self.sample_all(started)
            spent = monotonic_ns() - started
            next_ns += interval
            # At most a tenth of the time in rounds, and never a round
            # straight after another: the rounds hold the GIL.
            delay = max(next_ns - monotonic_ns(), 9 * spent, interval // 4)
            next_ns = monotonic_ns() + delay
            if wake.acquire(timeout=delay / 1e9):
                break


def _send_name(thread, native_id):
    if _lib is None or not native_id:
        return
    try:
        _lib.ks_inject_python_thread_name(native_id, thread._name.encode('utf-8', 'surrogateescape'))
    except Exception:
        pass


# --- PyTorch ----------------------------------------------------------------

class TorchFinder:
    """Waits for the top-level torch module to finish importing."""

    installed = None

    @classmethod
    def install(cls):
        cls.installed = cls()
        sys.meta_path.insert(0, cls.installed)

    def __init__(self):
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != 'torch' or self.busy:
            return None
        self.busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, 'find_spec'):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, 'exec_module'):
            return spec
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
            torch_imported(module)

        # on this loader only: torch.__loader__ stays what it was
        spec.loader.exec_module = exec_module
        return spec


def torch_imported(torch):
    try:
        if _config['pytorch'] != 'none' and _lib.ks_inject_torch_begin() == 1:
            shapes = _config['pytorch'] == 'autograd-shapes-nvtx'
            if not TorchObserver(torch, shapes).install():
                TorchNvtx(torch, shapes).install()
        if _config['memory'] or _config['history']:
            TorchMemory(torch, _config['memory'], _config['history']).install()
    except Exception as e:
        diag(DIAG_ERROR, 'PyTorch recording could not start: %s: %s' % (type(e).__name__, e))


class TorchObserver:
    """Operators from our RecordFunction observer: a global callback that
    hands each operator to libkinescope-inject.so as numbers, with no
    string formatted and no NVTX range per operator. Built against this
    torch with torch.utils.cpp_extension (a C++ compiler, ninja and
    torch's headers) and cached per torch version, Python ABI and source.
    KINESCOPE_TORCH_OPERATORS=nvtx keeps torch's NVTX emission."""

    installed = None
    NAME = 'kinescope_observer'
    SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kinescope_observer.cpp')
    # NDEBUG as torch's own release build: record_function.h declares a
    # member and a check of it (inputs_valid_) only without NDEBUG, so
    # without it the observer's RecordFunction is not libtorch's and its
    # inputs() checks a byte libtorch never sets, throwing a c10::Error
    # (a backtrace: microseconds) where that byte is not set
    CFLAGS = ['-O2', '-DNDEBUG']

    def __init__(self, torch, record_shapes):
        self.torch = torch
        self.record_shapes = record_shapes
        self.observer = None

    def cache_dir(self):
        with open(self.SOURCE, 'rb') as f:
            # a build with other flags is another build
            source = hashlib.sha256(f.read() + ' '.join(self.CFLAGS).encode()).hexdigest()[:16]
        abi = getattr(self.torch._C, '_GLIBCXX_USE_CXX11_ABI', '')
        key = '%s-%s-abi%s-%s' % (self.torch.__version__, sys.implementation.cache_tag, int(abi is True),
                                  source)
        root = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
        return os.path.join(root, 'kinescope', 'observer', key.replace(os.sep, '_'))

    def build(self, directory):
        """The path of the built library: cached, or built now (the first
        time for this torch, which takes a while)."""
        path = os.path.join(directory, self.NAME + '.so')
        done = os.path.join(directory, 'built')
        if os.path.exists(done) and os.path.exists(path):
            return path, None
        from torch.utils import cpp_extension
        os.makedirs(directory, exist_ok=True)
        # torch waits for its lock file to go away: one left by a build that
        # was killed (a recording stopped meanwhile) would block the
        # program's import for ever
        lock = os.path.join(directory, 'lock')
        try:
            if time.time() - os.stat(lock).st_mtime > STALE_BUILD_LOCK_S:
                os.unlink(lock)
        except OSError:
            pass
        started = time.monotonic()
        # verbose=False prints nothing; its warnings about the compiler
        # are not the program's (sys.stdout stays: the program's other
        # threads may be printing meanwhile)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            cpp_extension.load(name=self.NAME, sources=[self.SOURCE], build_directory=directory,
                               extra_cflags=self.CFLAGS, extra_ldflags=['-ldl'], with_cuda=False,
                               is_python_module=False, verbose=False)
        with open(done, 'w') as f:
            f.write('%s\n' % self.torch.__version__)
        return path, time.monotonic() - started

    def install(self):
        if os.environ.get('KINESCOPE_TORCH_OPERATORS') == 'nvtx':
            diag(DIAG_INFO, 'PyTorch operators from NVTX emission (KINESCOPE_TORCH_OPERATORS=nvtx)')
            return False
        directory = None
        try:
            directory = self.cache_dir()
            path, seconds = self.build(directory)
            self.observer = ctypes.CDLL(path)
            self.observer.kinescope_observer_start.restype = ctypes.c_int
            self.observer.kinescope_observer_start.argtypes = [ctypes.c_char_p, ctypes.c_int]
            self.observer.kinescope_observer_stop.restype = None
            self.observer.kinescope_observer_stop.argtypes = []
            self.observer.kinescope_observer_pause.restype = None
            self.observer.kinescope_observer_pause.argtypes = [ctypes.c_int]
            library = os.environ['KINESCOPE_INJECT_LIBRARY'].encode()
            if self.observer.kinescope_observer_start(library, int(self.record_shapes)) != 1:
                raise RuntimeError('its callback could not be added')
        except (Exception, SystemExit) as e:
            # SystemExit too: a failed build may end in sys.exit()
            text = str(e).strip().split('\n')[0] or type(e).__name__
            diag(DIAG_WARNING, 'PyTorch operators come from NVTX emission, which costs the program more: '
                 'the RecordFunction observer could not be built or loaded (%s): %s'
                 % (directory or 'no cache folder', text))
            return False
        if seconds is not None:
            diag(DIAG_INFO, 'PyTorch operators from the RecordFunction observer, built in %.1f s into %s'
                 % (seconds, directory))
        else:
            diag(DIAG_INFO, 'PyTorch operators from the RecordFunction observer in %s' % directory)
        self._wrap_profilers()
        # after torch's own exit hooks were registered: runs before them
        atexit.register(self.stop)
        TorchObserver.installed = self
        return True

    def stop(self):
        if self.observer is not None:
            self.observer.kinescope_observer_stop()

    def _wrap_profilers(self):
        """The program's own emit_nvtx() sends torch's NVTX ranges, which the
        recording gets anyway: the observer pauses from its __enter__ to its
        __exit__. emit_nvtx itself is wrapped because torch's ProfilerConfig
        does not say its state once built, so a call of _enable_profiler
        cannot tell NVTX from Kineto. torch.profiler (Kineto) and the
        observer run side by side."""
        emit_nvtx = getattr(self.torch.autograd.profiler, 'emit_nvtx', None)
        if emit_nvtx is None or emit_nvtx.__dict__.get('_kinescope_wrapped'):
            return
        local = threading.local()
        observer = self.observer
        real_enter, real_exit = emit_nvtx.__enter__, emit_nvtx.__exit__

        def enter(ctx):
            result = real_enter(ctx)
            if getattr(ctx, 'enabled', True) and not getattr(local, 'paused', False):
                local.paused = True
                observer.kinescope_observer_pause(1)
            return result

        def exit_(ctx, *exc):
            try:
                return real_exit(ctx, *exc)
            finally:
                if getattr(local, 'paused', False):
                    local.paused = False
                    observer.kinescope_observer_pause(0)

        emit_nvtx.__enter__ = TorchNvtx._like(enter, real_enter)
        emit_nvtx.__exit__ = TorchNvtx._like(exit_, real_exit)
        emit_nvtx._kinescope_wrapped = True


class TorchNvtx:
    """torch.autograd.profiler.emit_nvtx without its torch.cuda.synchronize()
    (which would initialise CUDA), on every thread, out of the way of the
    program's own profilers."""

    installed = None
    STARTS = ('_prepare_profiler', '_enable_profiler', '_enable_profiler_legacy')
    STOPS = ('_disable_profiler', '_disable_profiler_legacy')

    def __init__(self, torch, record_shapes):
        autograd = torch.autograd
        profiler = autograd.profiler
        self.enable = autograd._enable_profiler
        self.disable = autograd._disable_profiler
        self.config_class = autograd.ProfilerConfig
        self.state = autograd.ProfilerState.NVTX
        self.experimental = getattr(profiler, '_ExperimentalConfig', None)
        self.record_shapes = record_shapes
        self.modules = [autograd, profiler]
        legacy = getattr(autograd, 'profiler_legacy', None)
        if legacy is not None:
            self.modules.append(legacy)
        self.local = threading.local()
        self.reported = set()

    def config(self):
        # the arguments torch 2.x's emit_nvtx passes
        if self.experimental is not None:
            return self.config_class(self.state, self.record_shapes, False, False, False, False,
                                     self.experimental())
        return self.config_class(self.state, self.record_shapes, False, False, False)

    def enable_here(self):
        try:
            self.enable(self.config(), set())
            self.local.ours = True
        except Exception as e:
            text = 'PyTorch operators are not recorded: %s' % str(e).split('\n')[0]
            if text not in self.reported:
                self.reported.add(text)
                diag(DIAG_WARNING, text)

    def disable_here(self):
        if getattr(self.local, 'ours', False):
            self.local.ours = False
            try:
                self.disable()
            except Exception:
                pass

    def _step_aside(self):
        if getattr(self.local, 'ours', False):
            self.local.ours = False
            self.local.aside = True
            try:
                self.disable()
            except Exception:
                pass

    def _come_back(self):
        if getattr(self.local, 'aside', False):
            self.local.aside = False
            self.enable_here()

    def _wrap_start(self, real):
        def wrapper(*args, **kwargs):
            self._step_aside()
            return real(*args, **kwargs)
        return self._like(wrapper, real)

    def _wrap_stop(self, real):
        def wrapper(*args, **kwargs):
            try:
                return real(*args, **kwargs)
            finally:
                self._come_back()
        return self._like(wrapper, real)

    @staticmethod
    def _like(wrapper, real):
        for attr in ('__name__', '__qualname__', '__doc__'):
            try:
                setattr(wrapper, attr, getattr(real, attr))
            except (AttributeError, TypeError):
                pass
        wrapper.__wrapped__ = real
        return wrapper

    def install(self):
        wrappers = {}
        for module in self.modules:
            for names, wrap in ((self.STARTS, self._wrap_start), (self.STOPS, self._wrap_stop)):
                for name in names:
                    real = module.__dict__.get(name)
                    if real is None:
                        continue
                    if id(real) not in wrappers:
                        wrappers[id(real)] = (real, wrap(real))
                    setattr(module, name, wrappers[id(real)][1])

        real_bootstrap = threading.Thread._bootstrap_inner
        nvtx = self

        def _bootstrap_inner(thread):
            nvtx.enable_here()
            try:
                return real_bootstrap(thread)
            finally:
                nvtx.disable_here()

        threading.Thread._bootstrap_inner = _bootstrap_inner
        self.enable_here()
        # A thread that ends with its callback on makes torch warn ("Leaked
        # callback handle") on the program's stderr.
        atexit.register(self.disable_here)
        TorchNvtx.installed = self


class TorchMemory:
    """The CUDA caching allocator's history, from right after CUDA starts:
    sent as allocator events (events), and kept whole as snapshots
    (history)."""

    installed = None

    def __init__(self, torch, events=True, history=False):
        self.torch = torch
        self.events = events
        self.history = history
        self.recording = False
        self.pid = None
        self.oom_file = None

    def install(self):
        if self.history:
            self.folder = os.environ.get('KINESCOPE_MEMORY_HISTORY_DIR')
            if not self.folder:
                diag(DIAG_WARNING, 'PyTorch memory snapshots are not kept: the recorder gave no folder '
                     '(KINESCOPE_MEMORY_HISTORY_DIR)')
                self.history = False
        self.torch.cuda._lazy_call(self._cuda_initialized)
        # after torch's own exit hooks were registered: runs before them
        atexit.register(self._at_exit)
        TorchMemory.installed = self

    def _cuda_initialized(self):
        try:
            # context='all': the stacks of frees too, as memory_viz shows them
            self.torch.cuda.memory._record_memory_history(enabled='all',
                                                          context='all' if self.history else None,
                                                          stacks='python',
                                                          max_entries=MEMORY_MAX_ENTRIES)
            self.recording = True
            self.pid = os.getpid()
        except Exception as e:
            diag(DIAG_WARNING, 'PyTorch allocator events are not recorded: %s' % e)
            return
        if self.history:
            try:
                self.torch._C._cuda_attach_out_of_memory_observer(self._out_of_memory)
            except Exception as e:
                diag(DIAG_WARNING, 'PyTorch memory snapshots will not be kept at an out-of-memory error: '
                     '%s: %s' % (type(e).__name__, e))

    def _out_of_memory(self, device, alloc, device_allocated, device_free):
        # called by the allocator before it raises: the program may die of it
        if not self.recording or self.pid != os.getpid():
            return
        try:
            self.keep(self.torch.cuda.memory._snapshot(), 'out-of-memory')
        except Exception as e:
            diag(DIAG_WARNING, 'PyTorch memory snapshot at the out-of-memory error not kept: %s: %s'
                 % (type(e).__name__, e))

    def keep(self, snapshot, reason):
        """Pickles @snapshot as _dump_snapshot() does, renamed into place once
        whole: PID-REASON-MONO_NS-OFFSET_NS.pickle. Only the latest
        out-of-memory snapshot is kept."""
        pid = os.getpid()
        mono = time.monotonic_ns()
        offset = time.time_ns() - time.monotonic_ns()
        tmp = os.path.join(self.folder, '.%d-%s.tmp' % (pid, reason))
        path = os.path.join(self.folder, '%d-%s-%d-%d.pickle' % (pid, reason, mono, offset))
        with open(tmp, 'wb') as f:
            pickle.dump(snapshot, f)
        os.replace(tmp, path)
        if reason == 'out-of-memory':
            if self.oom_file is not None:
                try:
                    os.unlink(self.oom_file)
                except OSError:
                    pass
            self.oom_file = path

    def _at_exit(self):
        # once, and only in the process that recorded: a forked child
        # (a DataLoader worker) inherits the parent's history
        if not self.recording or self.pid != os.getpid():
            return
        self.recording = False
        try:
            snapshot = self.torch.cuda.memory._snapshot()
        except Exception as e:
            diag(DIAG_WARNING, 'PyTorch allocator events could not be read: %s: %s'
                 % (type(e).__name__, e))
            return
        if self.history:
            try:
                self.keep(snapshot, 'exit')
            except Exception as e:
                diag(DIAG_WARNING, 'PyTorch memory snapshot at exit not kept: %s: %s'
                     % (type(e).__name__, e))
        if self.events:
            try:
                self.send(snapshot)
            except Exception as e:
                diag(DIAG_WARNING, 'PyTorch allocator events could not be read: %s: %s'
                     % (type(e).__name__, e))

    def send(self, snapshot):
        # time_us is CLOCK_REALTIME; ours is CLOCK_MONOTONIC
        offset_ns = time.time_ns() - time.monotonic_ns()
        allocator = _lib.ks_inject_python_allocator
        untimed = 0
        for device, trace in enumerate(snapshot.get('device_traces') or []):
            allocated = 0
            reserved = 0
            if len(trace) >= MEMORY_MAX_ENTRIES:
                diag(DIAG_WARNING, 'device %d: only the last %d allocator events were kept; '
                     'the totals count from the first of them' % (device, len(trace)))
            for entry in trace:
                action = entry.get('action')
                size = int(entry.get('size') or 0)
                if action in ('segment_alloc', 'segment_map'):
                    reserved += size
                    continue
                if action in ('segment_free', 'segment_unmap'):
                    reserved -= size
                    continue
                if action == 'alloc':
                    allocated += size
                    delta = size
                elif action == 'free_requested':
                    allocated -= size
                    delta = -size
                else:
                    continue
                time_us = entry.get('time_us')
                if time_us is None:
                    untimed += 1
                    continue
                allocator(int(time_us) * 1000 - offset_ns, int(entry.get('addr') or 0), delta,
                          allocated, reserved, device, 0)
        if untimed:
            diag(DIAG_WARNING, 'PyTorch allocator events without a time (time_us), left out: %d'
                 % untimed)
