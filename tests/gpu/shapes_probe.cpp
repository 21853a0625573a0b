// SPDX-License-Identifier: GPL-3.0-or-later
//
// shapes_probe.cpp: where the time of reading the operators' input sizes
// goes. A RecordFunction observer configured as ours with shapes (every
// scope, needsIds, needsInputs) that walks each operator's inputs as
// kinescope_observer.cpp's Shapes does, timing the walk and counting the
// inputs by kind and the exceptions inputs() and sizes() throw; at exit it
// prints the totals and the operators whose walks took longest. Loaded by
// train.py --observer SO,-,1 (shapes-probe.sh builds and runs it).

#include <ATen/record_function.h>

#include <time.h>

#include <algorithm>
#include <mutex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

at::CallbackHandle callback = 0;

struct Stats {
  uint64_t calls = 0, ns = 0, throws = 0;
};

// autograd's threads run operators beside the main thread
std::mutex lock;
uint64_t ops, walk_ns, inputs, tensors, undefined, lists, items, others, throws, input_throws;
std::unordered_map<std::string, Stats> by_name;
std::vector<std::string> messages;

uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void sizes_of(const at::Tensor& t, uint64_t& n_throws) {
  try {
    volatile size_t d = t.sizes().size();
    (void) d;
  } catch (const std::exception& e) {
    n_throws++;
    if (messages.size() < 5)
      messages.emplace_back(std::string(e.what()).substr(0, 200));
  }
}

std::unique_ptr<at::ObserverContext> on_enter(const at::RecordFunction& fn) {
  std::lock_guard<std::mutex> guard(lock);
  uint64_t start = now_ns();
  uint64_t n_throws = 0;
  c10::ArrayRef<const c10::IValue> args;

  // built without NDEBUG, torch's debug-only check throws here for a
  // range that has no inputs
  try {
    args = fn.inputs();
  } catch (const std::exception& e) {
    input_throws++;
    if (messages.size() < 5)
      messages.emplace_back(std::string(e.what()).substr(0, 200));
  }
  for (const c10::IValue& input : args) {
    inputs++;
    if (input.isTensor()) {
      const at::Tensor& t = input.toTensor();
      if (t.defined()) {
        tensors++;
        sizes_of(t, n_throws);
      } else {
        undefined++;
      }
    } else if (input.isList()) {
      lists++;
      for (const c10::IValue& item : input.toListRef()) {
        items++;
        if (item.isTensor() && item.toTensor().defined())
          sizes_of(item.toTensor(), n_throws);
      }
    } else {
      others++;
    }
  }
  uint64_t ns = now_ns() - start;
  ops++;
  walk_ns += ns;
  throws += n_throws;
  Stats& s = by_name[fn.name()];
  s.calls++;
  s.ns += ns;
  s.throws += n_throws;
  return nullptr;
}

void on_exit(const at::RecordFunction&, at::ObserverContext*) {}

void report() {
  std::lock_guard<std::mutex> guard(lock);
  std::vector<std::pair<std::string, Stats>> rows(by_name.begin(), by_name.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  fprintf(stderr, "shapes-probe: %llu operators, walk %.1f ns an operator; inputs %llu: tensors %llu, "
          "undefined %llu, lists %llu (%llu items), others %llu; sizes() threw %llu times, inputs() %llu\n",
          (unsigned long long) ops, ops ? double(walk_ns) / ops : 0.0, (unsigned long long) inputs,
          (unsigned long long) tensors, (unsigned long long) undefined, (unsigned long long) lists,
          (unsigned long long) items, (unsigned long long) others, (unsigned long long) throws,
          (unsigned long long) input_throws);
  for (size_t i = 0; i < rows.size() && i < 12; i++)
    fprintf(stderr, "shapes-probe: %-48s calls %8llu  ns/call %8.1f  throws %llu\n", rows[i].first.c_str(),
            (unsigned long long) rows[i].second.calls, double(rows[i].second.ns) / rows[i].second.calls,
            (unsigned long long) rows[i].second.throws);
  for (const auto& m : messages)
    fprintf(stderr, "shapes-probe: exception: %s\n", m.c_str());
}

} // namespace

extern "C" __attribute__((visibility("default"))) int
kinescope_observer_start(const char* library, int flags) {
  (void) library;
  (void) flags;
  if (callback != 0)
    return 1;
  at::RecordFunctionCallback cb(&on_enter, &on_exit);
  cb.needsIds(true).needsInputs(true);
  callback = at::addGlobalCallback(cb);
  atexit(report);
  return callback != 0 ? 1 : 0;
}
