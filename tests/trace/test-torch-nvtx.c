/* test-torch-nvtx.c: PyTorch's operator NVTX text
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-torch-nvtx.h"

typedef struct
{
  const char *text;
  const char *name;     /* NULL: not an operator */
  gint64      seq;
  gint64      op_id;
  const char *dims;
  guint       n_inputs;
  const char *args;
  gboolean    truncated;
} Case;

static const Case cases[] = {
  /* what emit_nvtx(record_shapes=True) gives */
  { "aten::addmm, seq = 12, op_id = 40, sizes = [[16], [8, 32], [32, 16], [], []], input_op_ids = [(38,0), (39,0), (0,-1)]",
    "aten::addmm", 12, 40, "[[16],[8,32],[32,16],[],[]]", 3,
    "{\"Sequence number\":12,\"Input Dims\":[[16],[8,32],[32,16],[],[]],\"Record function id\":40}" },
  /* no sequence number, no shapes */
  { "aten::empty, op_id = 7", "aten::empty", -1, 7, NULL, 0, "{\"Record function id\":7}" },
  { "autograd::engine::evaluate_function: AddmmBackward0, seq = 12, op_id = 95",
    "autograd::engine::evaluate_function: AddmmBackward0", 12, 95, NULL, 0,
    "{\"Sequence number\":12,\"Record function id\":95}" },
  /* names with ", " and even the decorations' words in them */
  { "my block, part 2, seq = 3, op_id = 5, sizes = []", "my block, part 2", 3, 5, "[]", 0,
    "{\"Sequence number\":3,\"Input Dims\":[],\"Record function id\":5}" },
  { "label, op_id = x, op_id = 9", "label, op_id = x", -1, 9, NULL, 0, "{\"Record function id\":9}" },
  { "weird, op_id = 4, sizes = [[1]] tail, op_id = 6", "weird, op_id = 4, sizes = [[1]] tail", -1, 6, NULL, 0, NULL },
  { "a, seq = 7 b, op_id = 2", "a, seq = 7 b", -1, 2, NULL, 0, NULL },
  /* nested lists (TensorList inputs) and negative sizes */
  { "aten::cat, seq = 1, op_id = 3, sizes = [[[2, 3], [2, 3]], [-1]]", "aten::cat", 1, 3, "[[[2,3],[2,3]],[-1]]", 0, NULL },
  { "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id = 11",
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", -1, 11, NULL, 0, NULL },
  { "op, op_id = 1, input_op_ids = []", "op", -1, 1, NULL, 0, NULL },
  /* cut at the recorder's 512-byte NVTX limit inside the lists: the
   * operator without what was cut */
  { "x, op_id = 5, sizes = [[1, 2]", "x", -1, 5, NULL, 0, "{\"Record function id\":5}", TRUE },
  { "x, op_id = 5, sizes = [[1, 2], [3", "x", -1, 5, NULL, 0, NULL, TRUE },
  { "x, op_id = 5, sizes = [[1], [-", "x", -1, 5, NULL, 0, NULL, TRUE },
  { "x, seq = 4, op_id = 5, sizes = [[1]], input_op_ids = [(1,2)", "x", 4, 5, "[[1]]", 0, NULL, TRUE },
  { "x, op_id = 5, sizes = [[1]], input_op_ids = [(1,2), (3,", "x", -1, 5, "[[1]]", 0, NULL, TRUE },
  /* not operators */
  { "step 12", NULL }, { "", NULL }, { ", op_id = 5", NULL }, { "x, op_id = ", NULL },
  { "x, op_id = 5 ", NULL }, { "x, op_id = -5", NULL },
  { "x, op_id = 5, sizes = [[1,, 2]]", NULL }, { "x, op_id = 5, sizes = [a]", NULL },
  { "x, op_id = 5, input_op_ids = [(1 2)]", NULL },
  { "x, op_id = 99999999999999999999999", NULL },
  { "x, op_id = 5, sizes = [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]", NULL },
  { "x, seq = 3", NULL },
};

static void
test_torch_nvtx_grammar (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      KsTorchOp op;
      gboolean ok = ks_torch_nvtx_parse (c->text, &op);

      g_test_message ("%s", c->text);
      g_assert_cmpint (ok, ==, c->name != NULL);
      if (!ok)
        continue;
      g_assert_cmpstr (op.name, ==, c->name);
      g_assert_cmpint (op.seq, ==, c->seq);
      g_assert_cmpint (op.op_id, ==, c->op_id);
      g_assert_cmpstr (op.input_dims, ==, c->dims);
      g_assert_cmpuint (op.n_inputs, ==, c->n_inputs);
      g_assert_cmpint (op.truncated, ==, c->truncated);
      if (c->args != NULL)
        {
          g_autofree char *args = ks_torch_op_args (&op);

          g_assert_cmpstr (args, ==, c->args);
        }
      g_assert_cmpint (ks_torch_op_is_backward (&op), ==, g_str_has_prefix (c->name, "autograd::engine::"));
      ks_torch_op_clear (&op);
    }
  g_assert_false (ks_torch_nvtx_parse (NULL, &(KsTorchOp) { 0 }));
}

/* The text the recorder writes for an operator from our observer: torch's
 * getNvtxStr() text, read back by the parser as the same operator. */
static void
test_torch_op_format (void)
{
  /* [16], [8, 32], [32, 16], [], [] */
  static const gint64 addmm[] = { 1, 16, 2, 8, 32, 2, 32, 16, 0, 0 };
  static const struct {
    const char   *name;
    gint64        seq;
    guint64       op_id;
    gboolean      with_sizes;
    const gint64 *words;
    guint         n_inputs;
    guint         n_words;
    gboolean      truncated;
    const char   *text;
    const char   *dims;
  } formats[] = {
    { "aten::addmm", 12, 40, TRUE, addmm, 5, G_N_ELEMENTS (addmm), FALSE,
      "aten::addmm, seq = 12, op_id = 40, sizes = [[16], [8, 32], [32, 16], [], []]", "[[16],[8,32],[32,16],[],[]]" },
    { "aten::empty", -1, 7, FALSE, NULL, 0, 0, FALSE, "aten::empty, op_id = 7", NULL },
    /* shapes asked, no inputs: torch writes no list */
    { "my block, part 2", 3, 5, TRUE, NULL, 0, 0, FALSE, "my block, part 2, seq = 3, op_id = 5", NULL },
    /* inputs beyond what the message holds: an open list, as a cut text */
    { "aten::cat", 0, 9, TRUE, addmm, 2, 5, TRUE, "aten::cat, seq = 0, op_id = 9, sizes = [[16], [8, 32]", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *text = ks_torch_op_format (formats[i].name, formats[i].seq, formats[i].op_id, formats[i].with_sizes,
                                                  formats[i].words, formats[i].n_inputs, formats[i].n_words,
                                                  formats[i].truncated);
      KsTorchOp op;

      g_assert_cmpstr (text, ==, formats[i].text);
      g_assert_true (ks_torch_nvtx_parse (text, &op));
      g_assert_cmpstr (op.name, ==, formats[i].name);
      g_assert_cmpint (op.seq, ==, formats[i].seq);
      g_assert_cmpint (op.op_id, ==, (gint64) formats[i].op_id);
      g_assert_cmpstr (op.input_dims, ==, formats[i].dims);
      g_assert_cmpint (op.truncated, ==, formats[i].truncated);
      ks_torch_op_clear (&op);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torch-nvtx/grammar", test_torch_nvtx_grammar);
  g_test_add_func ("/torch-nvtx/format", test_torch_op_format);
  return g_test_run ();
}
