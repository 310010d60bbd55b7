/* tensorstack: np.stack of 2, 3 and 5 streams on every axis (negative
 * ones too), dense and strided inputs, against NumPy goldens
 * (tests/data/gen/gen_stack.py); negotiation errors and their messages,
 * and the error for fewer than two pads. */
#include "common/aggpipe.h"

/* _i: the set (aggpipe_sets); every axis of the rank-4 output, -4 .. 3. */
GST_START_TEST (test_golden)
{
  aggpipe_golden_axes ("tensorstack", __i__, -4, 3);
}

GST_END_TEST;

/* Rank 0 inputs: a new axis of the pads. */
GST_START_TEST (test_rank0)
{
  AggPipe p;
  GstTnInfo info = { TN_INT32, 0, { 0 }, 0, 1 }, out;
  GstBuffer *b;
  GstMapInfo m;

  aggpipe_new (&p, "tensorstack axis=-1", 3);
  for (guint k = 0; k < 3; k++) {
    gint32 v = 10 * (gint32) k - 7;

    aggpipe_caps (&p, k, &info);
    b = gst_buffer_new_memdup (&v, sizeof v);
    GST_BUFFER_PTS (b) = 0;
    aggpipe_push (&p, k, b);
    aggpipe_eos (&p, k);
  }
  aggpipe_play (&p);
  b = aggpipe_pull (&p, &out);
  fail_unless (b != NULL);
  fail_unless_equals_int (out.rank, 1);
  fail_unless_equals_int64 (out.dims[0], 3);
  gst_buffer_map (b, &m, GST_MAP_READ);
  fail_unless_equals_int (((gint32 *) m.data)[0], -7);
  fail_unless_equals_int (((gint32 *) m.data)[1], 3);
  fail_unless_equals_int (((gint32 *) m.data)[2], 13);
  gst_buffer_unmap (b, &m);
  gst_buffer_unref (b);
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

#define CAPS(t, d) "tensor/x-raw,type=" t ",dims=" d

GST_START_TEST (test_negotiation_errors)
{
  {
    const gchar *caps[]
        = { CAPS ("float32", "<2,3>"), CAPS ("float32", "<2,4>") };
    const gchar *words[] = { "agg", "sink_0", "sink_1", "<2, 3>", "<2, 4>",
      "axis=1", "equal dims", NULL };

    aggpipe_expect_error ("tensorstack axis=1", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("float32", "<2,3>"), CAPS ("uint8", "<2,3>"),
      CAPS ("float32", "<2,3>") };
    const gchar *words[]
        = { "sink_1", "uint8", "float32", "sink_0", "one type", NULL };

    aggpipe_expect_error ("tensorstack", 3, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("int16", "<2,3>"), CAPS ("int16", "<2,3>") };
    const gchar *words[]
        = { "axis=3", "sink_0", "int16 <2, 3>", "[-3, 2]", NULL };

    aggpipe_expect_error ("tensorstack axis=3", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("int16", "<2,3>"), CAPS ("int16", "<2,3>") };
    const gchar *words[] = { "axis=-4", "[-3, 2]", NULL };

    aggpipe_expect_error ("tensorstack axis=-4", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("uint8", "<1,1,1,1,1,1,1,1>"),
      CAPS ("uint8", "<1,1,1,1,1,1,1,1>") };
    const gchar *words[] = { "rank 9", "at most 8", NULL };

    aggpipe_expect_error ("tensorstack", 2, caps, words);
  }
}

GST_END_TEST;

/* One linked pad: an error when the element starts that names it. */
GST_START_TEST (test_one_pad)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (
      "tensorsrc num-buffers=1 ! s.sink_0 tensorstack name=s ! fakesink", &err);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  GError *e = NULL;

  fail_unless (pipe != NULL);
  fail_unless_equals_int (
      gst_element_set_state (pipe, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &e, NULL);
  fail_unless (strstr (e->message, "at least 2 linked sink pads") != NULL, "%s",
      e->message);
  fail_unless (strstr (e->message, "sink_0") != NULL, "%s", e->message);
  g_error_free (e);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* The property: its range, and that it cannot change while running. */
GST_START_TEST (test_axis_property)
{
  GstElement *e = gst_element_factory_make ("tensorstack", NULL);
  GParamSpec *ps
      = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "axis");
  gint axis;

  fail_unless (ps != NULL);
  /* any int is stored; start() refuses those of no tensor */
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, G_MININT);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->maximum, G_MAXINT);
  g_object_set (e, "axis", -2, NULL);
  g_object_get (e, "axis", &axis, NULL);
  fail_unless_equals_int (axis, -2);
  fail_unless (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "sync") != NULL);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
tensorstack_suite (void)
{
  Suite *s = suite_create ("tensorstack");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_golden, 0, G_N_ELEMENTS (aggpipe_sets));
  tcase_add_test (tc, test_rank0);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_one_pad);
  tcase_add_test (tc, test_axis_property);
  return s;
}

GST_CHECK_MAIN (tensorstack);
