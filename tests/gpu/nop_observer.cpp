// SPDX-License-Identifier: GPL-3.0-or-later
//
// nop_observer.cpp: a RecordFunction observer that does nothing, as the
// floor of any recorder built on RecordFunction. Registered as our
// observer (src/collector/python/kinescope_observer.cpp) registers its
// own: one global callback, every scope, sampling probability 1,
// needsIds, no inputs; its start and end callbacks return at once. What a
// program pays with it is torch's: the dispatcher's slow path with a
// callback present, the RecordFunction, the handle, the calls.
//
// Built against the program's own torch by observer_floors.py (the flags
// of _kinescope_python.py's TorchObserver.build); loaded by
// train.py --observer. The entry points have our observer's signatures:
// @library is ignored; @flags bit 0 asks for the inputs (as shapes do),
// bit 1 leaves out needsIds (what the handle costs); pausing takes the
// callback out of RecordFunction, as ours does outside a capture range
// (train.py --toggle pauses it in its off blocks).

#include <ATen/record_function.h>

namespace {

at::CallbackHandle callback = 0;

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction&) {
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) {}

} // namespace

extern "C" __attribute__((visibility("default"))) int
kinescope_observer_start(const char* library, int flags) {
  (void) library;
  if (callback != 0)
    return 1;
  at::RecordFunctionCallback cb(&on_enter, &on_exit);
  cb.needsIds((flags & 2) == 0).needsInputs((flags & 1) != 0);
  callback = at::addGlobalCallback(cb);
  return callback != 0 ? 1 : 0;
}

extern "C" __attribute__((visibility("default"))) void
kinescope_observer_pause(int paused) {
  if (callback == 0)
    return;
  if (paused)
    at::disableCallback(callback);
  else
    at::reenableCallback(callback);
}
