/* tensordebug: passes buffers on untouched and prints them as NumPy does.
 * The printed text is captured (g_print/g_printerr handlers, a log
 * function) and compared with text worked out by hand. */
#include <math.h>
#include <string.h>

#include <gst/check/gstharness.h>

#include "common/tncheck.h"

static GString *printed;

static void
capture (const gchar *s)
{
  g_string_append (printed, s);
}

static void
capture_start (void)
{
  printed = g_string_new (NULL);
  g_set_print_handler (capture);
}

static gchar *
capture_stop (void)
{
  g_set_print_handler (NULL);
  return g_string_free (printed, FALSE);
}

/* The element named "dbg" (so the header is predictable), with a bus. */
static GstHarness *
debugger_new (const gchar *type, const gchar *dims, GstBus **bus)
{
  GstElement *e = gst_element_factory_make ("tensordebug", "dbg");
  GstHarness *h;

  fail_unless (e != NULL);
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (e, *bus);
  }
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (type) {
    gchar *caps = tn_tensor_caps (type, dims);

    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
  }
  return h;
}

static void
debugger_free (GstHarness *h, GstBus *bus)
{
  gst_harness_teardown (h);
  if (bus) {
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
}

static GstBuffer *
buffer_of (gconstpointer data, gsize size, GstClockTime pts)
{
  GstBuffer *b = gst_buffer_new_memdup (data, size);

  GST_BUFFER_PTS (b) = pts;
  return b;
}

/* Pushes buf and checks the very same buffer, bytes unchanged, comes out. */
static void
push_same (GstHarness *h, GstBuffer *buf)
{
  GstMapInfo before, after;
  GstBuffer *out;
  guint8 *copy;

  gst_buffer_map (buf, &before, GST_MAP_READ);
  copy = g_memdup2 (before.data, before.size);
  gst_buffer_unmap (buf, &before);

  gst_buffer_ref (buf);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_pointer (out, buf);
  gst_buffer_map (out, &after, GST_MAP_READ);
  fail_unless_equals_uint64 (after.size, before.size);
  fail_unless (after.size == 0 || memcmp (after.data, copy, after.size) == 0);
  gst_buffer_unmap (out, &after);
  g_free (copy);
  gst_buffer_unref (out);
  gst_buffer_unref (buf);
}

static gchar *
pop_error (GstBus *bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  fail_unless (msg != NULL, "no error was posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_float32_arange)
{
  const gfloat v[] = { 0, 1, 2, 3, 4, 5 };
  GstHarness *h = debugger_new ("float32", "<2, 3>", NULL);
  gchar *text;

  capture_start ();
  push_same (h, buffer_of (v, sizeof v, GST_SECOND));
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:01.000000000 float32 <2, 3>: "
      "min=0.0 max=5.0 mean=2.5 nan=0\n"
      "[[0. 1. 2.]\n"
      " [3. 4. 5.]]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_int8_arange)
{
  const gint8 v[] = { 0, 1, 2, 3, 4, 5 };
  GstHarness *h = debugger_new ("int8", "<2, 3>", NULL);
  gchar *text;

  capture_start ();
  push_same (h, buffer_of (v, sizeof v, GST_CLOCK_TIME_NONE));
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts none int8 <2, 3>: min=0 max=5 mean=2.5 nan=0\n"
      "[[0 1 2]\n"
      " [3 4 5]]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A 2x3 arange read through a layout meta as its 3x2 transpose: the
 * element prints the transposed values, and says the strides. */
GST_START_TEST (test_strided)
{
  const gfloat v[] = { 0, 1, 2, 3, 4, 5 };
  const gfloat w[] = { -1, -1, 0, 1, 2, 3, 4, 5 };
  const gint64 t[] = { 1, 3 };
  GstHarness *h = debugger_new ("float32", "<3, 2>", NULL);
  GstBuffer *b;
  gchar *text;

  capture_start ();
  b = buffer_of (v, sizeof v, 0);
  fail_unless (gst_tn_buffer_add_layout_meta (b, 2, 0, t) != NULL);
  push_same (h, b);
  /* the same with the tensor 2 items into the buffer */
  b = buffer_of (w, sizeof w, 0);
  fail_unless (gst_tn_buffer_add_layout_meta (b, 2, 2, t) != NULL);
  push_same (h, b);
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 float32 <3, 2> strides <1, 3>: "
      "min=0.0 max=5.0 mean=2.5 nan=0\n"
      "[[0. 3.]\n"
      " [1. 4.]\n"
      " [2. 5.]]\n"
      "dbg: buffer 1 pts 0:00:00.000000000 float32 <3, 2> strides <1, 3> "
      "offset 2: min=0.0 max=5.0 mean=2.5 nan=0\n"
      "[[0. 3.]\n"
      " [1. 4.]\n"
      " [2. 5.]]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* every=2 prints buffers 0, 2 and 4 of 5, and passes all 5. */
GST_START_TEST (test_every)
{
  GstHarness *h = debugger_new ("int16", "<2>", NULL);
  gchar *text;
  gint i;

  g_object_set (h->element, "every", 2, NULL);
  capture_start ();
  for (i = 0; i < 5; i++) {
    gint16 v[2] = { (gint16) i, (gint16) (10 * i) };

    push_same (h, buffer_of (v, sizeof v, i * GST_MSECOND));
  }
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 int16 <2>: "
      "min=0 max=0 mean=0.0 nan=0\n"
      "[0 0]\n"
      "dbg: buffer 2 pts 0:00:00.002000000 int16 <2>: "
      "min=2 max=20 mean=11.0 nan=0\n"
      "[ 2 20]\n"
      "dbg: buffer 4 pts 0:00:00.004000000 int16 <2>: "
      "min=4 max=40 mean=22.0 nan=0\n"
      "[ 4 40]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* NaN is counted and kept out of min, max and mean. */
GST_START_TEST (test_nan)
{
  const gfloat v[] = { 1, NAN, 3, NAN, NAN, 5 };
  GstHarness *h = debugger_new ("float32", "<6>", NULL);
  gchar *text;

  capture_start ();
  push_same (h, buffer_of (v, sizeof v, 0));
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 float32 <6>: "
      "min=1.0 max=5.0 mean=3.0 nan=3\n"
      "[ 1. nan  3. nan nan  5.]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* threshold, edgeitems and linewidth act as NumPy's print options:
 * np.array2string(np.arange(10), threshold=5, edgeitems=2) and
 * np.array2string(np.arange(10), max_line_width=10). */
GST_START_TEST (test_print_options)
{
  gint32 v[10];
  GstHarness *h = debugger_new ("int32", "<10>", NULL);
  gchar *text;
  gint i;

  for (i = 0; i < 10; i++)
    v[i] = i;
  g_object_set (h->element, "threshold", (gint64) 5, "edgeitems", 2, NULL);
  capture_start ();
  push_same (h, buffer_of (v, sizeof v, 0));
  g_object_set (h->element, "threshold", (gint64) 1000, "linewidth", 10, NULL);
  push_same (h, buffer_of (v, sizeof v, 0));
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 int32 <10>: "
      "min=0 max=9 mean=4.5 nan=0\n"
      "[0 1 ... 8 9]\n"
      "dbg: buffer 1 pts 0:00:00.000000000 int32 <10>: "
      "min=0 max=9 mean=4.5 nan=0\n"
      "[0 1 2 3\n 4 5 6 7\n 8 9]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A rank-0 tensor prints bare; an empty one prints "[]" and no stats. */
GST_START_TEST (test_rank0_and_empty)
{
  const gdouble x = -2.5;
  GstHarness *h = debugger_new ("float64", "<>", NULL);
  gchar *text, *caps;

  capture_start ();
  push_same (h, buffer_of (&x, sizeof x, 0));
  caps = tn_tensor_caps ("uint8", "<2, 0>");
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  push_same (h, gst_buffer_new ());
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 float64 <>: "
      "min=-2.5 max=-2.5 mean=-2.5 nan=0\n"
      "-2.5\n"
      "dbg: buffer 1 pts none uint8 <2, 0>: no items\n"
      "[]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GString *errprinted;

static void
capture_err (const gchar *s)
{
  g_string_append (errprinted, s);
}

static GString *logged;

static void
capture_log (GstDebugCategory *cat, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *msg,
    gpointer user_data)
{
  if (strcmp (gst_debug_category_get_name (cat), "tensordebug") != 0)
    return;
  g_string_append_printf (logged, "%s|%s",
      level == GST_LEVEL_INFO ? "INFO" : "other", gst_debug_message_get (msg));
}

/* output=stderr goes through g_printerr, output=log to the log at INFO;
 * neither prints to stdout. */
GST_START_TEST (test_output)
{
  const guint8 v[] = { 1, 0, 1 };
  const gchar *expect = "dbg: buffer %d pts none bool <3>: "
                        "min=False max=True mean=0.6666666666666666 nan=0\n"
                        "[ True False  True]\n";
  GstHarness *h = debugger_new ("bool", "<3>", NULL);
  gchar *text, *want;

  errprinted = g_string_new (NULL);
  logged = g_string_new (NULL);
  g_set_printerr_handler (capture_err);
  gst_debug_add_log_function (capture_log, NULL, NULL);
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("tensordebug", GST_LEVEL_INFO);

  capture_start ();
  g_object_set (h->element, "output", 1, NULL); /* stderr */
  push_same (h, buffer_of (v, sizeof v, GST_CLOCK_TIME_NONE));
  g_object_set (h->element, "output", 2, NULL); /* log */
  push_same (h, buffer_of (v, sizeof v, GST_CLOCK_TIME_NONE));
  text = capture_stop ();

  gst_debug_remove_log_function (capture_log);
  gst_debug_unset_threshold_for_name ("tensordebug");
  g_set_printerr_handler (NULL);

  fail_unless_equals_string (text, "");
  want = g_strdup_printf (expect, 0);
  fail_unless_equals_string (errprinted->str, want);
  g_free (want);
  want = g_strdup_printf ("INFO|%s", expect);
  {
    gchar *w = g_strdup_printf (want, 1);

    fail_unless_equals_string (logged->str, w);
    g_free (w);
  }
  g_free (want);
  g_free (text);
  g_string_free (errprinted, TRUE);
  g_string_free (logged, TRUE);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A buffer of 20 bytes where the caps need 24 is an error with both
 * numbers, even on a buffer every=3 would not print. */
GST_START_TEST (test_wrong_size)
{
  const gfloat v[] = { 0, 1, 2, 3, 4, 5 };
  GstBus *bus;
  GstHarness *h = debugger_new ("float32", "<2, 3>", &bus);
  gchar *msg;

  g_object_set (h->element, "every", 3, NULL);
  capture_start ();
  push_same (h, buffer_of (v, sizeof v, 0));
  fail_unless_equals_int (
      gst_harness_push (h, buffer_of (v, 20, 0)), GST_FLOW_ERROR);
  g_free (capture_stop ());
  msg = pop_error (bus);
  fail_unless (strstr (msg, "Buffer 1 ") != NULL, "%s", msg);
  fail_unless (strstr (msg, "20 bytes") != NULL, "%s", msg);
  fail_unless (strstr (msg, "24") != NULL, "%s", msg);
  fail_unless (strstr (msg, "float32 <2, 3>") != NULL, "%s", msg);
  g_free (msg);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  debugger_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A layout meta that reaches past the buffer is an error too. */
GST_START_TEST (test_meta_out_of_range)
{
  const gfloat v[] = { 0, 1, 2, 3, 4, 5 };
  const gint64 t[] = { 1, 4 };
  GstBus *bus;
  GstHarness *h = debugger_new ("float32", "<3, 2>", &bus);
  GstBuffer *b = buffer_of (v, sizeof v, 0);
  gchar *msg;

  /* reaches item 2 * 1 + 1 * 4 = 6 of 6 */
  gst_tn_buffer_add_layout_meta (b, 2, 0, t);
  capture_start ();
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  msg = capture_stop ();
  fail_unless_equals_string (msg, "");
  g_free (msg);
  msg = pop_error (bus);
  fail_unless (strstr (msg, "Buffer 0 ") != NULL, "%s", msg);
  fail_unless (strstr (msg, "24 bytes") != NULL, "%s", msg);
  fail_unless (strstr (msg, "float32 <3, 2>") != NULL, "%s", msg);
  g_free (msg);
  debugger_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Data before caps: not negotiated, with the byte count. */
GST_START_TEST (test_no_caps)
{
  const gfloat v[] = { 0, 1, 2, 3, 4, 5 };
  GstBus *bus;
  GstHarness *h = debugger_new (NULL, NULL, &bus);
  GstSegment seg;
  gchar *msg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (gst_harness_push (h, buffer_of (v, sizeof v, 0)),
      GST_FLOW_NOT_NEGOTIATED);
  msg = pop_error (bus);
  fail_unless (strstr (msg, "24 bytes") != NULL, "%s", msg);
  fail_unless (strstr (msg, "before any tensor caps") != NULL, "%s", msg);
  g_free (msg);
  debugger_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps the template lets through but that describe no tensor (a negative
 * extent): refused, with the value in the message. */
GST_START_TEST (test_bad_caps)
{
  GstBus *bus;
  GstHarness *h = debugger_new (NULL, NULL, &bus);
  gchar *s = tn_tensor_caps ("float32", "<2, -3>");
  GstCaps *caps = gst_caps_from_string (s);
  GstSegment seg;
  gchar *msg;

  fail_unless (caps != NULL);
  /* a sticky event's push reports the storing, not the refusal: the
   * refusal shows on the bus and in the next buffer's flow return */
  gst_harness_push_event (h, gst_event_new_caps (caps));
  msg = pop_error (bus);
  fail_unless (strstr (msg, "-3") != NULL, "%s", msg);
  fail_unless (strstr (msg, "Cannot read the tensor caps") != NULL, "%s", msg);
  g_free (msg);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_if (gst_harness_push (h, gst_buffer_new_allocate (NULL, 24, NULL))
           == GST_FLOW_OK);
  gst_caps_unref (caps);
  g_free (s);
  debugger_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstQuery *
allocation_query (void)
{
  gchar *s = tn_tensor_caps ("float32", "<2, 3>");
  GstCaps *caps = gst_caps_from_string (s);
  GstQuery *q = gst_query_new_allocation (caps, FALSE);

  gst_caps_unref (caps);
  g_free (s);
  return q;
}

static guint
count_layout_metas (GstQuery *q)
{
  guint i, n = 0;

  for (i = 0; i < gst_query_get_n_allocation_metas (q); i++)
    if (gst_query_parse_nth_allocation_meta (q, i, NULL)
        == GST_TN_LAYOUT_META_API_TYPE)
      n++;
  return n;
}

/* Downstream that reads strides (offers the meta): the meta reaches
 * upstream once.  Downstream that answers without it: tensordebug does
 * not claim it on its behalf, but downstream's answer (its allocation
 * param) does reach upstream: the query went through. */
GST_START_TEST (test_allocation_forwarded)
{
  GstHarness *h = debugger_new ("float32", "<2, 3>", NULL);
  GstQuery *q;

  q = allocation_query ();
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless_equals_int (count_layout_metas (q), 0);
  fail_unless_equals_int (gst_query_get_n_allocation_params (q), 1);
  gst_query_unref (q);

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  q = allocation_query ();
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless_equals_int (count_layout_metas (q), 1);
  gst_query_unref (q);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* fakesink does not answer the query, which means "dense only" (it may
 * dump the bytes): tensordebug passes its buffers on to it, so it must not
 * offer the meta on fakesink's behalf either. */
GST_START_TEST (test_allocation_last_reader)
{
  GstHarness *h = gst_harness_new_parse ("tensordebug ! fakesink");
  gchar *s = tn_tensor_caps ("float32", "<2, 3>");
  GstQuery *q;

  gst_harness_set_src_caps_str (h, s);
  g_free (s);
  q = allocation_query ();
  gst_pad_peer_query (h->srcpad, q);
  fail_unless_equals_int (count_layout_metas (q), 0);
  gst_query_unref (q);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensordebug", NULL);
  const gchar *ints[] = { "every", "edgeitems", "linewidth" };
  gint every, edge, width;
  gint64 thr;
  gint output;
  GParamSpec *ps;

  g_object_get (e, "every", &every, "edgeitems", &edge, "linewidth", &width,
      "threshold", &thr, "output", &output, NULL);
  fail_unless_equals_int (every, 1);
  fail_unless_equals_int (edge, 3);
  fail_unless_equals_int (width, 75);
  fail_unless_equals_int64 (thr, 1000);
  fail_unless_equals_int (output, 0);
  g_object_set (e, "every", 7, "edgeitems", 1, "linewidth", 200, "threshold",
      (gint64) 0, "output", 2, NULL);
  g_object_get (e, "every", &every, "edgeitems", &edge, "linewidth", &width,
      "threshold", &thr, "output", &output, NULL);
  fail_unless_equals_int (every, 7);
  fail_unless_equals_int (edge, 1);
  fail_unless_equals_int (width, 200);
  fail_unless_equals_int64 (thr, 0);
  fail_unless_equals_int (output, 2);
  /* The specs store any value of their type (ints, so that every=-1 is
   * not GStreamer's 4294967295): stopped, 0 and negatives are kept for
   * start to refuse (test_bad_values), not GLib's warning. */
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++) {
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), ints[i]);
    fail_unless (G_IS_PARAM_SPEC_INT (ps), "%s is a %s", ints[i],
        G_PARAM_SPEC_TYPE_NAME (ps));
    fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, G_MININT);
    fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->maximum, G_MAXINT);
  }
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "threshold");
  fail_unless_equals_int64 (G_PARAM_SPEC_INT64 (ps)->minimum, G_MININT64);
  fail_unless_equals_int64 (G_PARAM_SPEC_INT64 (ps)->maximum, G_MAXINT64);
  g_object_set (e, "every", 0, "edgeitems", -1, "linewidth", 0, "threshold",
      (gint64) -1, NULL);
  g_object_get (e, "every", &every, "edgeitems", &edge, "linewidth", &width,
      "threshold", &thr, NULL);
  fail_unless_equals_int (every, 0);
  fail_unless_equals_int (edge, -1);
  fail_unless_equals_int (width, 0);
  fail_unless_equals_int64 (thr, -1);
  /* NNStreamer owns "GstTensorDebug"; ours must not take it */
  fail_unless_equals_string (G_OBJECT_TYPE_NAME (e), "GstTensorDebugger");
  gst_object_unref (e);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A print option it cannot use is an error naming it and the range when
 * the element starts; set while it runs, a warning that keeps the value in
 * use. */
GST_START_TEST (test_bad_values)
{
  const struct {
    const gchar *prop, *value, *words;
  } bad[] = {
    { "every", "0",
        "dbg: every=\"0\" cannot be used: every is 1 (every "
        "buffer) to 2147483647" },
    { "every", "-1", "dbg: every=\"-1\" cannot be used" },
    { "threshold", "-1",
        "dbg: threshold=\"-1\" cannot be used: threshold "
        "is 0 to 9223372036854775807" },
    { "edgeitems", "0",
        "dbg: edgeitems=\"0\" cannot be used: edgeitems is "
        "1 to 2147483647" },
    { "linewidth", "-5",
        "dbg: linewidth=\"-5\" cannot be used: linewidth "
        "is 1 to 2147483647" },
  };
  const gfloat v[] = { 1 };
  GstHarness *h;
  GstBus *bus;
  gchar *text;
  gint every;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    text = tn_start_error ("tensordebug", "dbg", bad[i].prop, bad[i].value);
    tn_assert_contains (text, bad[i].words);
    g_free (text);
  }

  h = debugger_new ("float32", "<1>", &bus);
  g_object_set (h->element, "every", 5, "output", 2, NULL);
  g_object_set (h->element, "every", 0, NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "dbg: every=\"0\" cannot be used: every is 1 "
                            "(every buffer) to 2147483647; keeping "
                            "every=\"5\"");
  g_free (text);
  g_object_get (h->element, "every", &every, NULL);
  fail_unless_equals_int (every, 5);
  gst_buffer_unref (gst_harness_push_and_pull (h, buffer_of (v, sizeof v, 0)));
  debugger_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The index restarts at 0 when the element starts again. */
GST_START_TEST (test_restart)
{
  const gint32 v[] = { 7 };
  GstHarness *h = debugger_new ("int32", "<1>", NULL);
  gchar *text, *caps;

  capture_start ();
  push_same (h, buffer_of (v, sizeof v, 0));
  push_same (h, buffer_of (v, sizeof v, 0));
  gst_element_set_state (h->element, GST_STATE_NULL);
  gst_harness_play (h);
  caps = tn_tensor_caps ("int32", "<1>");
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  push_same (h, buffer_of (v, sizeof v, 0));
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 int32 <1>: "
      "min=7 max=7 mean=7.0 nan=0\n[7]\n"
      "dbg: buffer 1 pts 0:00:00.000000000 int32 <1>: "
      "min=7 max=7 mean=7.0 nan=0\n[7]\n"
      "dbg: buffer 0 pts 0:00:00.000000000 int32 <1>: "
      "min=7 max=7 mean=7.0 nan=0\n[7]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A writable buffer and one whose memory is read-only both pass as
 * themselves: tensordebug neither copies to make a buffer writable nor
 * maps for writing. */
GST_START_TEST (test_writable_and_readonly)
{
  static const gint32 ro[] = { -4, 9 };
  const gint32 v[] = { 1, 2 };
  GstHarness *h = debugger_new ("int32", "<2>", NULL);
  GstBuffer *in, *out;
  GstMapInfo map;
  gpointer data;
  gchar *text;

  capture_start ();
  in = buffer_of (v, sizeof v, 0);
  fail_unless (gst_buffer_is_writable (in));
  gst_buffer_map (in, &map, GST_MAP_READ);
  data = map.data;
  gst_buffer_unmap (in, &map);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_pointer (out, in);
  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless_equals_pointer (map.data, data);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  in = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, (gpointer) ro,
      sizeof ro, 0, sizeof ro, NULL, NULL);
  GST_BUFFER_PTS (in) = 0;
  fail_unless (GST_MEMORY_IS_READONLY (gst_buffer_peek_memory (in, 0)));
  push_same (h, in);
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 int32 <2>: "
      "min=1 max=2 mean=1.5 nan=0\n[1 2]\n"
      "dbg: buffer 1 pts 0:00:00.000000000 int32 <2>: "
      "min=-4 max=9 mean=2.5 nan=0\n[-4  9]\n");
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Partial caps downstream constrain what tensordebug offers upstream: the
 * caps query goes through it. */
GST_START_TEST (test_negotiate_partial)
{
  GstHarness *h = debugger_new (NULL, NULL, NULL);
  gchar *f32 = tn_tensor_caps ("float32", "<2, 3>");
  gchar *i8 = tn_tensor_caps ("int8", "<2, 3>");
  GstCaps *c32 = gst_caps_from_string (f32);
  GstCaps *c8 = gst_caps_from_string (i8);
  GstCaps *q;

  gst_harness_set_sink_caps_str (h, "tensor/x-raw, type=(string)float32");
  q = gst_pad_peer_query_caps (h->srcpad, NULL);
  fail_unless (gst_caps_can_intersect (q, c32), "%" GST_PTR_FORMAT, q);
  fail_if (gst_caps_can_intersect (q, c8), "%" GST_PTR_FORMAT, q);
  gst_caps_unref (q);
  /* accept-caps only checks the templates (GstBaseTransform's default,
   * kept cheap on purpose); the caps query above is what constrains */
  fail_unless (gst_pad_peer_query_accept_caps (h->srcpad, c32));
  gst_caps_unref (c32);
  gst_caps_unref (c8);
  g_free (f32);
  g_free (i8);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A source fixating partial caps (dims only: float32 by default) feeds
 * tensordebug the fixed caps, and the printed text is the arange. */
GST_START_TEST (test_negotiate_partial_pipeline)
{
  GstHarness *h;
  GstBuffer *buf;
  gchar *text;

  capture_start ();
  h = gst_harness_new_parse ("tensorsrc num-buffers=1 pattern=arange step=0.5 "
                             "! capsfilter caps=\"tensor/x-raw,dims=<4>\" "
                             "! tensordebug name=dbg");
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 16);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  text = capture_stop ();
  fail_unless_equals_string (text,
      "dbg: buffer 0 pts 0:00:00.000000000 float32 <4>: "
      "min=0.0 max=1.5 mean=0.75 nan=0\n[0.  0.5 1.  1.5]\n");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* An unnamed element takes the factory's name with a number, as other
 * elements do, though its GType is GstTensorDebugger. */
GST_START_TEST (test_default_name)
{
  GstElement *e = gst_element_factory_make ("tensordebug", NULL);
  gchar *name = gst_object_get_name (GST_OBJECT (e));

  fail_unless (g_str_has_prefix (name, "tensordebug"), "%s", name);
  fail_unless (strlen (name) > strlen ("tensordebug")
                   && strspn (name + strlen ("tensordebug"), "0123456789")
                          == strlen (name + strlen ("tensordebug")),
      "%s", name);
  g_free (name);
  gst_object_unref (e);
}

GST_END_TEST;

/* A broadcast of 2 items to 2.3e18 (stride 0 on the outer axes; 2^63
 * bytes dense, the most caps allow): the statistics read the 2 items once
 * (the walk over every repeat never ended) and count every NaN repeat; the
 * values print summarised, 6 rows of 6, as NumPy prints any such broadcast. */
GST_START_TEST (test_broadcast_huge)
{
  const gfloat v[] = { NAN, 2.5f };
  const gint64 t[] = { 0, 0, 1 };
  GstHarness *h = debugger_new ("float32", "<2147483647, 536870911, 2>", NULL);
  const gchar *header
      = "dbg: buffer 0 pts 0:00:00.000000000 float32 <2147483647, "
        "536870911, 2> strides <0, 0, 1>: min=2.5 max=2.5 mean=2.5 "
        "nan=1152921501922492417\n";
  gint64 t0;
  GstBuffer *b;
  gchar *text, **rows;

  capture_start ();
  b = buffer_of (v, sizeof v, 0);
  fail_unless (gst_tn_buffer_add_layout_meta (b, 3, 0, t) != NULL);
  t0 = g_get_monotonic_time ();
  push_same (h, b);
  fail_unless (g_get_monotonic_time () - t0 < 5 * G_USEC_PER_SEC,
      "took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  text = capture_stop ();
  fail_unless (g_str_has_prefix (text, header), "%s", text);
  fail_unless (g_str_has_prefix (text + strlen (header),
      "[[[nan 2.5]\n  [nan 2.5]\n  [nan 2.5]\n  ...\n"));
  fail_unless (g_str_has_suffix (text, "  [nan 2.5]]]\n"));
  rows = g_strsplit (text, "[nan 2.5]", -1);
  fail_unless_equals_int (g_strv_length (rows) - 1, 36);
  g_strfreev (rows);
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Raised by a probe when a buffer reaches tensordebug's chain function. */
static gint entered;

static GstPadProbeReturn
mark_entered (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  g_atomic_int_set (&entered, 1);
  return GST_PAD_PROBE_OK;
}

static void
wait_entered (void)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!g_atomic_int_get (&entered))
    fail_unless (g_get_monotonic_time () < end, "no buffer reached the chain");
  /* well inside the statistics, which would take years to finish */
  g_usleep (100 * 1000);
}

/* Strides <1, 1, 1> over 3 MiB: 2^60 items, no stride 0 to skip, so
 * only the cancel flag bounds the statistics. */
static GstBuffer *
overlapping_buffer (void)
{
  const gint64 t[] = { 1, 1, 1 };
  const gsize n = 1 << 20;
  GstBuffer *b = gst_buffer_new_allocate (NULL, 3 * n, NULL);

  gst_buffer_memset (b, 0, 0, 3 * n);
  GST_BUFFER_PTS (b) = 0;
  fail_unless (gst_tn_buffer_add_layout_meta (b, 3, 0, t) != NULL);
  return b;
}

static gpointer
push_thread (gpointer data)
{
  GstHarness *h = data;

  return GINT_TO_POINTER (gst_harness_push (h, overlapping_buffer ()));
}

/* A FLUSH_START while tensordebug works through 2^60 items stops it
 * within a second: the push returns FLUSHING and nothing is printed.
 * After FLUSH_STOP the next buffer prints as usual. */
GST_START_TEST (test_flush_cancels)
{
  const gint8 one = 3;
  const gint64 t[] = { 0, 0, 0 };
  GstHarness *h = debugger_new ("int8", "<1048576, 1048576, 1048576>", NULL);
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  GstSegment seg;
  GThread *th;
  GstBuffer *b;
  gint64 t0;
  gchar *text;

  g_atomic_int_set (&entered, 0);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, mark_entered, NULL, NULL);
  gst_object_unref (sink);
  capture_start ();
  th = g_thread_new ("push", push_thread, h);
  wait_entered ();
  t0 = g_get_monotonic_time ();
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless_equals_int (
      GPOINTER_TO_INT (g_thread_join (th)), GST_FLOW_FLUSHING);
  fail_unless (g_get_monotonic_time () - t0 < G_USEC_PER_SEC,
      "stopped after %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  b = buffer_of (&one, 1, 0);
  fail_unless (gst_tn_buffer_add_layout_meta (b, 3, 0, t) != NULL);
  push_same (h, b);
  text = capture_stop ();
  fail_unless (g_str_has_prefix (text,
                   "dbg: buffer 1 pts 0:00:00.000000000 int8 <1048576, "
                   "1048576, 1048576> strides <0, 0, 0>: min=3 max=3 "
                   "mean=3.0 nan=0\n[[[3 3 3 ... 3 3 3]\n"),
      "%s", text);
  fail_if (strstr (text, "buffer 0") != NULL, "%s", text);
  g_free (text);
  debugger_free (h, NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The same 2^60 items in a pipeline: setting it to NULL while tensordebug
 * is inside them returns within a few seconds (it blocked for good). */
GST_START_TEST (test_null_while_busy)
{
  gchar *caps = tn_tensor_caps ("int8", "<1048576, 1048576, 1048576>");
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" ! tensordebug "
                                 "name=dbg output=stderr ! fakesink",
      caps);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src, *dbg;
  GstFlowReturn ret;
  GstBuffer *buf;
  GstPad *sink;
  gint64 t0;

  fail_unless (pipe != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  dbg = gst_bin_get_by_name (GST_BIN (pipe), "dbg");
  sink = gst_element_get_static_pad (dbg, "sink");
  g_atomic_int_set (&entered, 0);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, mark_entered, NULL, NULL);
  gst_object_unref (sink);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  buf = overlapping_buffer ();
  /* the action signal takes a reference of its own */
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  wait_entered ();
  t0 = g_get_monotonic_time ();
  fail_unless_equals_int (
      gst_element_set_state (pipe, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fail_unless (g_get_monotonic_time () - t0 < 3 * G_USEC_PER_SEC,
      "NULL took %" G_GINT64_FORMAT " us", g_get_monotonic_time () - t0);
  gst_object_unref (src);
  gst_object_unref (dbg);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (caps);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
tensordebug_suite (void)
{
  Suite *s = suite_create ("tensordebug");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_default_name);
  tcase_add_test (tc, test_float32_arange);
  tcase_add_test (tc, test_int8_arange);
  tcase_add_test (tc, test_strided);
  tcase_add_test (tc, test_every);
  tcase_add_test (tc, test_nan);
  tcase_add_test (tc, test_print_options);
  tcase_add_test (tc, test_rank0_and_empty);
  tcase_add_test (tc, test_output);
  tcase_add_test (tc, test_wrong_size);
  tcase_add_test (tc, test_meta_out_of_range);
  tcase_add_test (tc, test_no_caps);
  tcase_add_test (tc, test_bad_caps);
  tcase_add_test (tc, test_allocation_forwarded);
  tcase_add_test (tc, test_allocation_last_reader);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_restart);
  tcase_add_test (tc, test_writable_and_readonly);
  tcase_add_test (tc, test_negotiate_partial);
  tcase_add_test (tc, test_negotiate_partial_pipeline);
  tcase_add_test (tc, test_broadcast_huge);
  tcase_add_test (tc, test_flush_cancels);
  tcase_add_test (tc, test_null_while_busy);
  return s;
}

GST_CHECK_MAIN (tensordebug);
