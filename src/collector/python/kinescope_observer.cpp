// SPDX-License-Identifier: GPL-3.0-or-later
//
// Kinescope's RecordFunction observer: PyTorch's operators, handed to
// libkinescope-inject.so as numbers. The recorder's Python side
// (_kinescope_python.py) builds this against the program's own torch with
// torch.utils.cpp_extension.load() and calls kinescope_observer_start()
// through ctypes; when it cannot, operators come from torch's NVTX
// emission instead, which formats a string per operator that the recorder
// then parses back. Here nothing is formatted: the name goes as a pointer
// (the injector interns it once), the rest as integers.
//
// Kept small on purpose: it is compiled on the user's machine against
// whichever torch is there, and only uses ATen/record_function.h. Always
// with NDEBUG, as libtorch itself (TorchObserver.CFLAGS): that header's
// debug-only member and check would otherwise make inputs() throw.

#include <ATen/record_function.h>

#include <dlfcn.h>
#include <time.h>

#include <cstdint>
#include <exception>
#include <mutex>

namespace {

// ks-wire.h: KS_WIRE_TORCH_OP_SHAPES, _TRUNCATED, KS_WIRE_TORCH_MAX_WORDS
constexpr uint32_t kShapes = 0x1;
constexpr uint32_t kTruncated = 0x2;
constexpr uint32_t kMaxWords = 64;

using EnterFunc = void (*)(const char* name, int64_t seq, uint64_t handle,
                           uint64_t fwd_thread_id, uint32_t scope, uint64_t start,
                           uint32_t n_inputs, const int64_t* words, uint32_t n_words,
                           uint32_t flags);
using ExitFunc = void (*)(uint64_t end);
using CapturingFunc = int (*)();
using WatchFunc = void (*)(void (*changed)());

EnterFunc enter_func = nullptr;
ExitFunc exit_func = nullptr;
CapturingFunc capturing_func = nullptr;
at::CallbackHandle callback = 0;

// Why the callback is out of torch's RecordFunction; it runs when none is
// set. Changed from any thread, so under the lock, which also keeps the
// callback's state the last one asked for.
std::mutex pause_lock;
bool stopped = false;        // at exit, for good
bool nvtx_paused = false;    // the program runs torch's NVTX emission
bool outside_capture = false;
bool callback_on = true;

void apply_pauses() {
  bool on = !stopped && !nvtx_paused && !outside_capture;
  if (callback == 0 || on == callback_on)
    return;
  if (on)
    at::reenableCallback(callback);
  else
    at::disableCallback(callback);
  callback_on = on;
}

// The injector's capture range opened or closed: outside one, torch runs
// operators as if no observer were there.
void capture_changed() {
  std::lock_guard<std::mutex> guard(pause_lock);
  outside_capture = capturing_func != nullptr && !capturing_func();
  apply_pauses();
}

// The clock of everything else in a recording
uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// The inputs' sizes as torch's inputSizes(fn, /*flatten_list_enabled=*/true)
// lists them: a tensor's sizes, the defined tensors of a list one after
// the other (or one empty entry when it has none), an empty entry for
// anything else. Each entry is its number of dimensions, then its sizes.
struct Shapes {
  int64_t words[kMaxWords];
  uint32_t n_words = 0;
  uint32_t n_inputs = 0;
  bool truncated = false;

  void add(c10::IntArrayRef sizes) {
    if (truncated || n_words + 1 + sizes.size() > kMaxWords) {
      truncated = true;
      return;
    }
    words[n_words++] = int64_t(sizes.size());
    for (int64_t d : sizes)
      words[n_words++] = d;
    n_inputs++;
  }

  void add_input(const c10::IValue& input) {
    if (input.isTensor()) {
      const at::Tensor& t = input.toTensor();
      add(t.defined() ? t.sizes() : c10::IntArrayRef());
    } else if (input.isList()) {
      uint32_t before = n_inputs;
      for (const c10::IValue& item : input.toListRef())
        if (item.isTensor() && item.toTensor().defined())
          add(item.toTensor().sizes());
      if (n_inputs == before && !truncated)
        add(c10::IntArrayRef());
    } else {
      add(c10::IntArrayRef());
    }
  }
};

template <bool with_shapes>
std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction& fn) {
  uint64_t start = now_ns();

  if (with_shapes) {
    Shapes shapes;
    try {
      for (const c10::IValue& input : fn.inputs())
        shapes.add_input(input);
    } catch (const std::exception&) {
      // sizes() refuses tensors without fixed sizes (nested, symbolic)
      shapes.truncated = true;
    }
    enter_func(fn.name(), fn.seqNr(), fn.handle(), fn.forwardThreadId(), uint32_t(fn.scope()), start,
               shapes.n_inputs, shapes.words, shapes.n_words,
               kShapes | (shapes.truncated ? kTruncated : 0));
  } else {
    enter_func(fn.name(), fn.seqNr(), fn.handle(), fn.forwardThreadId(), uint32_t(fn.scope()), start,
               0, nullptr, 0, 0);
  }
  // nothing for the end callback: the injector keeps a stack per thread
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) {
  exit_func(now_ns());
}

} // namespace

// 1 when the observer runs: @library is libkinescope-inject.so, already
// loaded (dlopen() hands back that copy); @shapes asks for input sizes.
extern "C" __attribute__((visibility("default"))) int
kinescope_observer_start(const char* library, int shapes) {
  if (callback != 0)
    return 1;
  void* lib = dlopen(library, RTLD_NOW);
  if (lib == nullptr)
    return 0;
  enter_func = reinterpret_cast<EnterFunc>(dlsym(lib, "ks_inject_torch_op_enter"));
  exit_func = reinterpret_cast<ExitFunc>(dlsym(lib, "ks_inject_torch_op_exit"));
  if (enter_func == nullptr || exit_func == nullptr)
    return 0;

  // Every scope, as torch's NVTX emission; ids for the sequence numbers
  // and handles; the inputs only for their sizes.
  at::RecordFunctionCallback cb(shapes ? &on_enter<true> : &on_enter<false>, &on_exit);
  cb.needsIds(true).needsInputs(shapes != 0);
  callback = at::addGlobalCallback(cb);
  if (callback == 0)
    return 0;

  // an older injector has no capture watch: its operators outside a range
  // are dropped there instead
  capturing_func = reinterpret_cast<CapturingFunc>(dlsym(lib, "ks_inject_torch_capturing"));
  auto watch = reinterpret_cast<WatchFunc>(dlsym(lib, "ks_inject_torch_watch_capture"));
  if (capturing_func != nullptr && watch != nullptr)
    watch(&capture_changed);
  return 1;
}

// At exit: operators that start after this are not recorded (the
// recorder's channel closes). Disabled, not removed: removing a global
// callback must not race with other threads' operators.
extern "C" __attribute__((visibility("default"))) void
kinescope_observer_stop(void) {
  std::lock_guard<std::mutex> guard(pause_lock);
  stopped = true;
  apply_pauses();
}

// While the program runs torch's NVTX emission itself (emit_nvtx), whose
// ranges the recording gets anyway: each operator once, not twice.
extern "C" __attribute__((visibility("default"))) void
kinescope_observer_pause(int paused) {
  std::lock_guard<std::mutex> guard(pause_lock);
  nvtx_paused = paused != 0;
  apply_pauses();
}
