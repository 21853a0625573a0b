/* ks-analysis-labels.c: the metrics' titles and definitions
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What each metric, step part, gap class and cause is called, in the
 * interface and in JSON, and the launch-latency histogram's buckets. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-analysis-private.h"

/* Labels and definitions */

static const struct {
  const char *title;
  const char *definition;
} metrics[KS_N_METRICS] = {
  [KS_METRIC_BUSY_PCT] = {
    N_("GPU busy"),
    N_("Share of the window during which at least one kernel runs on this GPU: the length of the union of kernel intervals inside the window divided by the window. Concurrent kernels are never added up, so it cannot exceed 100 %. With “Include copies” memcpy and memset count as busy too. This is the TensorBoard profiler's “GPU Utilization” and HTA's busy time.") },
  [KS_METRIC_BUSY_NS] = {
    N_("Busy time"),
    N_("Length of the union of all kernel intervals on this GPU over the whole trace (with memcpy and memset when “Include copies” is on).") },
  [KS_METRIC_WINDOW] = {
    N_("Window"),
    N_("The time the busy share is measured against: the union of the steps when the trace has them, otherwise from the start of the first to the end of the last GPU activity on the device. The steps are the ProfilerStep#N spans of a PyTorch trace, or else the NVTX ranges named like a step (“step 12”, “iteration 12”, “iter_12”, “train_step 12”, “batch 12”). As in the TensorBoard profiler, a step runs from the later of its start on the CPU and the previous step's end to the later of its end on the CPU and the end of the GPU work it launched, so work the GPU runs after the CPU moved on still counts in its step.") },
  [KS_METRIC_KERNEL_TIME] = {
    N_("Kernel time"),
    N_("Sum of the durations of all kernels on this GPU. Concurrent kernels each count, so it can exceed the busy time.") },
  [KS_METRIC_GAP] = {
    N_("Idle gap"),
    N_("An interval inside the window where the GPU runs no kernel, memcpy or memset on any stream, longer than the gap threshold.") },
  [KS_METRIC_GAP_HOST_WAIT] = {
    N_("Host wait"),
    N_("The CPU had not yet started the call that launched the next GPU operation when the GPU went idle: the GPU waited for the host (HTA's rule). Optimise the CPU side, use larger batches or fuse operators.") },
  [KS_METRIC_GAP_KERNEL_WAIT] = {
    N_("Kernel wait"),
    N_("The next operation was already being launched and the gap is shorter than the kernel wait threshold (30 µs unless set in the preferences): the overhead of launching back-to-back kernels (HTA's rule; HTA documents 30 ns but applies 30 µs). CUDA Graphs remove it.") },
  [KS_METRIC_GAP_OTHER] = {
    N_("Other wait"),
    N_("The next operation was already being launched when the GPU went idle, yet it started later: synchronisation between streams or events, or launch delays (HTA's rule).") },
  [KS_METRIC_GAP_CAUSE] = {
    N_("CPU during the gap"),
    N_("What the thread that launched the next GPU operation was doing during the gap (for host waits, until it started that launch): a synchronising CUDA call or a DataLoader __next__ covering at least half of it, else the innermost NVTX range, operator, annotation or Python frame covering at least half of it. A gap that the profiler's own work (Kineto's “overhead” events, such as Activity Buffer Request) covers for at least half its length is profiler overhead, whatever the CPU was doing.") },
  [KS_METRIC_STEP_BREAKDOWN] = {
    N_("Step time breakdown"),
    N_("Each step (ProfilerStep#N, or else an NVTX range named like “step 12” or “iteration 12”) is split into kernel, memcpy, memset, runtime, DataLoader, CPU exec and other time. Each category only claims time not already claimed by one before it, so the parts add up to the step time (the TensorBoard profiler's definition).") },
  [KS_METRIC_STEP_KERNEL] = {
    N_("Kernel"),
    N_("Time in the step during which at least one kernel runs on the GPU.") },
  [KS_METRIC_STEP_MEMCPY] = {
    N_("Memcpy"),
    N_("Time in the step with a memcpy on the GPU and no kernel.") },
  [KS_METRIC_STEP_MEMSET] = {
    N_("Memset"),
    N_("Time in the step with a memset on the GPU and neither kernel nor memcpy.") },
  [KS_METRIC_STEP_RUNTIME] = {
    N_("Runtime"),
    N_("Time in the step spent in CUDA runtime or driver calls (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize…) on the step's process while the GPU ran nothing.") },
  [KS_METRIC_STEP_DATALOADER] = {
    N_("DataLoader"),
    N_("Time in the step spent in enumerate(DataLoader)… calls, not already counted above.") },
  [KS_METRIC_STEP_CPU_EXEC] = {
    N_("CPU exec"),
    N_("Time in the step spent in PyTorch operators, annotations and NVTX ranges on the CPU, not already counted above.") },
  [KS_METRIC_STEP_OTHER] = {
    N_("Other"),
    N_("The rest of the step: none of the above was running.") },
  [KS_METRIC_UTILIZATION] = {
    N_("GPU busy over time"),
    N_("The busy share of each time bucket: the union of kernel intervals inside the bucket divided by its length.") },
  [KS_METRIC_HOST_TOTAL] = {
    N_("Host total"),
    N_("Sum of the wall-clock durations of the operator's calls on the CPU, nested operators included.") },
  [KS_METRIC_HOST_SELF] = {
    N_("Host self"),
    N_("Host total minus the time of the operators nested in it and of the CUDA runtime and driver calls it made (PyTorch's key_averages and the TensorBoard profiler), so a synchronous copy's wait is in cudaMemcpy, not in aten::copy_.") },
  [KS_METRIC_DEVICE_TOTAL] = {
    N_("Device total"),
    N_("GPU time of the kernels, copies and memsets launched by the operator or by the operators nested in it, joined by correlation id.") },
  [KS_METRIC_DEVICE_SELF] = {
    N_("Device self"),
    N_("GPU time of the kernels, copies and memsets the operator launched itself, not through a nested operator.") },
  [KS_METRIC_KERNEL_SHARE] = {
    N_("Share of GPU time"),
    N_("The kernel's total time divided by the total time of all kernels on the analysed GPUs.") },
  [KS_METRIC_COMM] = {
    N_("Communication"),
    N_("The rank's time in collectives within its steps: the union of its NCCL kernels on the GPU, and of the CPU spans of collectives that run on the CPU (gloo).") },
  [KS_METRIC_EXPOSED_COMM] = {
    N_("Exposed comm."),
    N_("The communication time no compute kernel of the same rank covers: what the step waits for because of communication.") },
  [KS_METRIC_OVERLAP] = {
    N_("Overlap"),
    N_("The share of the communication time covered by compute kernels on other streams of the same rank.") },
  [KS_METRIC_RANK_WAIT] = {
    N_("Waited"),
    N_("Collectives are matched across ranks (the Nth call of the same process group); a rank that starts one before the last rank does waits from its start until that arrival. The sum over its collectives.") },
  [KS_METRIC_WAIT_CAUSED] = {
    N_("Waited for"),
    N_("The other ranks' waiting in the collectives where this rank arrived last: the time the job lost to it being late.") },
  [KS_METRIC_BUS_BANDWIDTH] = {
    N_("Bus bandwidth"),
    N_("NCCL's bus bandwidth of the mean call: the message size over the time (algorithm bandwidth), times 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for the others; comparable with the link's speed.") },
  [KS_METRIC_SM_EFFICIENCY] = {
    N_("Est. SM efficiency"),
    N_("The share of the GPU's SMs that had work: each kernel counts min(its blocks / the SM count, 1) for its time in the window, summed and divided by the window, so idle time lowers it. The TensorBoard profiler's estimate, from the launch and the GPU's properties, else from the PyTorch profiler's blocks per SM.") },
  [KS_METRIC_OCCUPANCY] = {
    N_("Est. achieved occupancy"),
    N_("The blocks of the kernel that fit on one SM at once (limited by its registers, shared memory and threads), at most the grid's blocks per SM, times the threads per block over the SM's thread limit; averaged over the calls weighted by duration. The PyTorch profiler's definition, computed from the launch and the GPU's properties. Without them, the value the PyTorch profiler wrote.") },
  [KS_METRIC_LAUNCH_LATENCY] = {
    N_("Launch latency"),
    N_("From the end of the CUDA call that launched a kernel, or from the end of the earlier work on its stream when that ends later, to the kernel's start; 0 when the kernel started before the call returned. Time the stream was still busy with earlier work is queueing, counted apart: the launch latency is the delay the launch itself added.") },
  [KS_METRIC_TENSOR_CORES] = {
    N_("Tensor cores"),
    N_("Kernels that run on tensor cores, and their share of the kernel time: those a CUPTI range profile measured executing tensor-pipe instructions, else those whose names say so, by the TensorBoard profiler's rules (tile names such as 884, 1688 and 16816, HMMA, the xmma GEMMs) and Kinescope's (IMMA, GMMA and WGMMA, CUTLASS tensor-op kernels, TF32, BF16, FP16 and FP8 types, Hopper and Blackwell nvjet and tcgen05 kernels), never a name that says FFMA or SIMT. An operator is eligible when it is one the TensorBoard profiler lists as able to use tensor cores (matrix products and convolutions); its tensor-core share is the part of its GPU time in such kernels.") },
  [KS_METRIC_QUEUE_LENGTH] = {
    N_("Queue length"),
    N_("The GPU operations launched on a stream and not yet finished: one more when the CUDA call that launches an operation starts, one less when the operation ends, so the running one counts too (HTA's queue length takes it off when it starts). The mean is weighted by time from the first launch to the last end. At 1,024 outstanding operations the CUDA driver blocks the launching thread until one finishes.") },
  [KS_METRIC_QUEUE_TIME] = {
    N_("Queueing"),
    N_("From the end of the CUDA call that launched a kernel to the end of the earlier work on its stream, when the stream was still busy as the call returned (at most until the kernel's start). Queueing is not inherently bad: it means the GPU was busy with earlier work, so the CPU ran ahead; launches that never queue may mean an idle GPU.") },
  [KS_METRIC_MEMORY_ALLOCATED] = {
    N_("Allocated"),
    N_("Memory held by live tensors, as reported by the caching allocator.") },
  [KS_METRIC_MEMORY_RESERVED] = {
    N_("Reserved"),
    N_("Memory the caching allocator holds from the device, in use or cached for reuse.") },
  [KS_METRIC_MEMORY_PEAK] = {
    N_("Peak"),
    N_("The highest allocated amount, and the innermost operator running on the allocating thread when it was reached.") },
  [KS_METRIC_ALLOCATION_LIFETIME] = {
    N_("Lifetime"),
    N_("Time from an allocation to the free of the same address on the same device.") },
};

const char *
ks_metric_get_title (KsMetric metric)
{
  g_return_val_if_fail (metric < KS_N_METRICS, "");
  return _(metrics[metric].title);
}

const char *
ks_metric_get_definition (KsMetric metric)
{
  g_return_val_if_fail (metric < KS_N_METRICS, "");
  return _(metrics[metric].definition);
}

const char *
ks_step_part_get_title (KsStepPart part)
{
  g_return_val_if_fail (part < KS_N_STEP_PARTS, "");
  return ks_metric_get_title (KS_METRIC_STEP_KERNEL + part);
}

const char *
ks_step_part_to_string (KsStepPart part)
{
  static const char * const names[KS_N_STEP_PARTS] = {
    "kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec", "other"
  };

  g_return_val_if_fail (part < KS_N_STEP_PARTS, "");
  return names[part];
}

const char *
ks_gap_class_get_title (KsGapClass klass)
{
  g_return_val_if_fail (klass < KS_N_GAP_CLASSES, "");
  return ks_metric_get_title (KS_METRIC_GAP_HOST_WAIT + klass);
}

const char *
ks_gap_class_to_string (KsGapClass klass)
{
  static const char * const names[KS_N_GAP_CLASSES] = { "host_wait", "kernel_wait", "other" };

  g_return_val_if_fail (klass < KS_N_GAP_CLASSES, "");
  return names[klass];
}

const char *
ks_gap_cause_get_title (KsGapCause cause)
{
  static const char * const titles[KS_N_GAP_CAUSES] = {
    N_("DataLoader"), N_("Synchronization"), N_("OS runtime call"), N_("NVTX range"),
    N_("Operator"), N_("Python"), N_("Many CPU operations"), N_("Nothing recorded"),
    N_("Unknown"), N_("Profiler overhead"),
  };

  g_return_val_if_fail (cause < KS_N_GAP_CAUSES, "");
  return _(titles[cause]);
}

const char *
ks_gap_cause_to_string (KsGapCause cause)
{
  static const char * const names[KS_N_GAP_CAUSES] = {
    "dataloader", "sync", "osrt", "nvtx", "operator", "python", "cpu_busy",
    "no_cpu_activity", "unknown", "profiler",
  };

  g_return_val_if_fail (cause < KS_N_GAP_CAUSES, "");
  return names[cause];
}

const gint64 *
ks_analysis_latency_bucket_edges (guint *n_edges)
{
  /* 1-2-5 steps from 1 µs to 100 ms */
  static const gint64 edges[KS_LATENCY_N_BUCKETS + 1] = {
    0, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
    1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000,
    200000000, 500000000, 1000000000, G_MAXINT64,
  };

  if (n_edges != NULL)
    *n_edges = G_N_ELEMENTS (edges);
  return edges;
}
