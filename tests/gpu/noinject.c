/* noinject.c: the two entry points of libkinescope-inject.so that our
 * RecordFunction observer calls per operator, returning at once. Our
 * observer (src/collector/python/kinescope_observer.cpp) started with this
 * library instead of the injector still reads the clock at both edges and
 * reads the operator's name, sequence number, handle, forward thread and
 * scope: what it costs without the injector's part (interning, the
 * per-thread stack, the copy into the channel).
 *
 *   gcc -O2 -shared -fPIC -o noinject.so noinject.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <stdint.h>

__attribute__((visibility("default"))) void
ks_inject_torch_op_enter (const char    *name,
                          int64_t        seq,
                          uint64_t       handle,
                          uint64_t       fwd_thread_id,
                          uint32_t       scope,
                          uint64_t       start,
                          uint32_t       n_inputs,
                          const int64_t *words,
                          uint32_t       n_words,
                          uint32_t       flags)
{
}

__attribute__((visibility("default"))) void
ks_inject_torch_op_exit (uint64_t end)
{
}
