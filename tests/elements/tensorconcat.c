/* tensorconcat: np.concatenate of 2, 3 and 5 streams on every axis
 * (negative ones too), inputs of different extents on that axis, dense
 * and strided, against NumPy goldens (tests/data/gen/gen_stack.py);
 * negotiation errors and their messages. */
#include "common/aggpipe.h"

/* _i: the set (aggpipe_sets); every axis of the rank-3 inputs, -3 .. 2. */
GST_START_TEST (test_golden)
{
  aggpipe_golden_axes ("tensorconcat", __i__, -3, 2);
}

GST_END_TEST;

/* Equal inputs joined with themselves: the same as a stack's reshape. */
GST_START_TEST (test_same_inputs)
{
  gchar *ins[] = { "in_uint8_0.npy", "in_uint8_1.npy" };

  /* np.concatenate of two <2,3,4> along 0 is np.stack's <2,2,3,4> bytes;
   * the dims differ, so compare through the stack golden's bytes. */
  AggPipe p;
  Npy a, b;
  GstTnInfo info;
  GstBuffer *out;
  GstMapInfo m;

  aggpipe_new (&p, "tensorconcat axis=0", 2);
  for (guint k = 0; k < 2; k++) {
    npy_load (&a, ins[k]);
    info = aggpipe_npy_info (&a);
    aggpipe_caps (&p, k, &info);
    aggpipe_push (&p, k, aggpipe_npy_buffer (&a, 0, GST_SECOND));
    aggpipe_eos (&p, k);
    npy_clear (&a);
  }
  aggpipe_play (&p);
  out = aggpipe_pull (&p, &info);
  fail_unless (out != NULL);
  fail_unless_equals_int (info.rank, 3);
  fail_unless_equals_int64 (info.dims[0], 4);
  npy_load (&b, "stack_uint8_n2_a0.npy");
  gst_buffer_map (out, &m, GST_MAP_READ);
  fail_unless_equals_uint64 (m.size, b.size);
  fail_unless (memcmp (m.data, b.data, b.size) == 0);
  gst_buffer_unmap (out, &m);
  gst_buffer_unref (out);
  npy_clear (&b);
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

#define CAPS(t, d) "tensor/x-raw,type=" t ",dims=" d

GST_START_TEST (test_negotiation_errors)
{
  {
    const gchar *caps[]
        = { CAPS ("float32", "<2,3>"), CAPS ("float32", "<4,4>") };
    const gchar *words[]
        = { "agg", "sink_0", "sink_1", "<2, 3>", "<4, 4>", "axis=0", NULL };

    aggpipe_expect_error ("tensorconcat axis=0", 2, caps, words);
  }
  {
    const gchar *caps[]
        = { CAPS ("float32", "<2,3>"), CAPS ("float32", "<2,3,1>") };
    const gchar *words[] = { "sink_1", "<2, 3, 1>", "sink_0", NULL };

    aggpipe_expect_error ("tensorconcat axis=-1", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("int8", "<2,3>"), CAPS ("int8", "<2,3>"),
      CAPS ("uint8", "<2,3>") };
    const gchar *words[] = { "sink_2", "uint8", "int8", "one type", NULL };

    aggpipe_expect_error ("tensorconcat", 3, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("int16", "<2,3>"), CAPS ("int16", "<2,3>") };
    const gchar *words[] = { "axis=2", "sink_0", "[-2, 1]", NULL };

    aggpipe_expect_error ("tensorconcat axis=2", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("int16", "<>"), CAPS ("int16", "<>") };
    const gchar *words[] = { "rank 0", "sink_0", "tensorstack", NULL };

    aggpipe_expect_error ("tensorconcat", 2, caps, words);
  }
}

GST_END_TEST;

static Suite *
tensorconcat_suite (void)
{
  Suite *s = suite_create ("tensorconcat");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_golden, 0, G_N_ELEMENTS (aggpipe_sets));
  tcase_add_test (tc, test_same_inputs);
  tcase_add_test (tc, test_negotiation_errors);
  return s;
}

GST_CHECK_MAIN (tensorconcat);
