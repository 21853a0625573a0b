/* nopnvtx.c: an NVTX client that does nothing, as the floor of what
 * NVTX emission costs a program. An NVTX injection library of its own (not
 * the collector): every push, pop, range and mark handler returns at once,
 * so that a program run under torch.autograd.profiler.emit_nvtx() pays
 * torch's string per operator and the call through NVTX's function table,
 * and nothing a real client adds.
 *
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include -o nopnvtx.so nopnvtx.c
 *   NVTX_INJECTION64_PATH=$PWD/nopnvtx.so PROGRAM
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <stdint.h>

static __thread int depth;

static void nop_mark_ex (const nvtxEventAttributes_t *a) { }
static void nop_mark_a (const char *m) { }
static nvtxRangeId_t nop_start_ex (const nvtxEventAttributes_t *a) { return 1; }
static nvtxRangeId_t nop_start_a (const char *m) { return 1; }
static void nop_end (nvtxRangeId_t id) { }
/* push and pop answer with the depth, as NVTX documents */
static int nop_push_ex (const nvtxEventAttributes_t *a) { return depth++; }
static int nop_push_a (const char *m) { return depth++; }
static int nop_pop (void) { return depth > 0 ? --depth : -1; }
static void nop_domain_mark (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { }
static nvtxRangeId_t nop_domain_start (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { return 1; }
static void nop_domain_end (nvtxDomainHandle_t d, nvtxRangeId_t id) { }
static int nop_domain_push (nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { return depth++; }
static int nop_domain_pop (nvtxDomainHandle_t d) { return depth > 0 ? --depth : -1; }
static nvtxDomainHandle_t nop_domain_create (const char *name) { return (nvtxDomainHandle_t) (uintptr_t) 1; }
static nvtxStringHandle_t nop_register (nvtxDomainHandle_t d, const char *s) { return (nvtxStringHandle_t) (uintptr_t) 1; }

static void
set_slot (NvtxFunctionTable   table,
          unsigned int        size,
          unsigned int        cbid,
          NvtxFunctionPointer fn)
{
  if (cbid < size && table[cbid] != NULL)
    *table[cbid] = fn;
}

#define SLOT(id, fn) set_slot (table, size, id, (NvtxFunctionPointer) (fn))

__attribute__((visibility ("default"))) int InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table);

__attribute__((visibility ("default"))) int
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *callbacks =
    (const NvtxExportTableCallbacks *) get_export_table (NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;

  if (callbacks == NULL || callbacks->GetModuleFunctionTable == NULL)
    return 0;
  if (callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size) && table != NULL)
    {
      SLOT (NVTX_CBID_CORE_MarkEx, nop_mark_ex);
      SLOT (NVTX_CBID_CORE_MarkA, nop_mark_a);
      SLOT (NVTX_CBID_CORE_RangeStartEx, nop_start_ex);
      SLOT (NVTX_CBID_CORE_RangeStartA, nop_start_a);
      SLOT (NVTX_CBID_CORE_RangeEnd, nop_end);
      SLOT (NVTX_CBID_CORE_RangePushEx, nop_push_ex);
      SLOT (NVTX_CBID_CORE_RangePushA, nop_push_a);
      SLOT (NVTX_CBID_CORE_RangePop, nop_pop);
    }
  table = NULL;
  size = 0;
  if (callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE2, &table, &size) && table != NULL)
    {
      SLOT (NVTX_CBID_CORE2_DomainMarkEx, nop_domain_mark);
      SLOT (NVTX_CBID_CORE2_DomainRangeStartEx, nop_domain_start);
      SLOT (NVTX_CBID_CORE2_DomainRangeEnd, nop_domain_end);
      SLOT (NVTX_CBID_CORE2_DomainRangePushEx, nop_domain_push);
      SLOT (NVTX_CBID_CORE2_DomainRangePop, nop_domain_pop);
      SLOT (NVTX_CBID_CORE2_DomainCreateA, nop_domain_create);
      SLOT (NVTX_CBID_CORE2_DomainRegisterStringA, nop_register);
    }
  return 1;
}
