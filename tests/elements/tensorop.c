/* tensorop: values against hand values and tests/data/gen/gen_ewise.py's
 * golden files, in place versus copy (data pointers), the tee case,
 * n-threads 1 versus 2, broadcasting .npy operands, strided input,
 * negotiation both ways and every error with its message. */
#include <glib/gstdio.h>
#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>

#include "common/npyread.h"
#include "common/tncheck.h"

static gchar *
tensor_caps (const gchar *type, const gchar *dims)
{
  return g_strdup_printf (
      "tensor/x-raw, type=(string)%s, dims=(int)%s, "
      "dims-order=(string)row-major, framerate=(fraction)0/1",
      type, dims);
}

typedef struct {
  GstHarness *h;
  GstElement *e;
  GstBus *bus;
} Op;

/* tensorop with ops (NULL: not set) and input caps (type NULL: not set),
 * and its own bus. */
static void
op_new (Op *o, const gchar *ops, const gchar *type, const gchar *dims)
{
  o->e = gst_element_factory_make ("tensorop", "op");
  fail_unless (o->e != NULL);
  o->bus = gst_bus_new ();
  gst_element_set_bus (o->e, o->bus);
  if (ops)
    g_object_set (o->e, "ops", ops, NULL);
  o->h = gst_harness_new_with_element (o->e, "sink", "src");
  if (type) {
    gchar *caps = tensor_caps (type, dims);

    gst_harness_set_src_caps_str (o->h, caps);
    g_free (caps);
  }
}

static void
op_free (Op *o)
{
  gst_harness_teardown (o->h);
  gst_bus_set_flushing (o->bus, TRUE);
  gst_object_unref (o->bus);
  gst_object_unref (o->e);
}

static GstBuffer *
buffer_of (gconstpointer data, gsize size)
{
  return gst_buffer_new_memdup (data, size);
}

static gpointer
data_of (GstBuffer *b)
{
  GstMapInfo map;
  gpointer p;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  p = map.data;
  gst_buffer_unmap (b, &map);
  return p;
}

static void
assert_floats (GstBuffer *b, const gfloat *want, gsize n)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n * sizeof (gfloat));
  for (gsize i = 0; i < n; i++)
    fail_unless (((gfloat *) map.data)[i] == want[i],
        "item %" G_GSIZE_FORMAT " is %g, expected %g", i,
        ((gfloat *) map.data)[i], want[i]);
  gst_buffer_unmap (b, &map);
}

/* The items of a .npy of tests/data, as stored (C order, little-endian). */
static GBytes *
npy_data (const gchar *name, gsize *n)
{
  GBytes *b;
  Npy f;

  npy_load (&f, name);
  fail_unless_equals_int (f.major, 1);
  b = g_bytes_new (f.data, f.size);
  if (n)
    *n = f.size;
  npy_clear (&f);
  return b;
}

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensorop", NULL);
  gchar *ops, *op, *value;
  gint n;

  g_object_get (
      e, "ops", &ops, "op", &op, "value", &value, "n-threads", &n, NULL);
  fail_unless_equals_string (ops, "");
  fail_unless (op == NULL && value == NULL);
  fail_unless_equals_int (n, 0);
  g_free (ops);
  /* n-threads' spec: test_n_threads_everywhere */

  g_object_set (e, "ops", "sub:127.5, div:127.5", NULL);
  g_object_get (e, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "sub:127.5, div:127.5");
  g_free (ops);
  /* ops unset (NULL or ""): the shorthand, in either order, makes it. */
  g_object_set (e, "ops", NULL, "value", "2", "op", "mul", NULL);
  g_object_get (e, "ops", &ops, "op", &op, "value", &value, NULL);
  fail_unless_equals_string (ops, "mul:2");
  fail_unless_equals_string (op, "mul");
  fail_unless_equals_string (value, "2");
  g_free (ops);
  g_free (op);
  g_free (value);
  /* Both ways at once is refused when the element starts (test_conflict);
   * the values stay as set. */
  g_object_set (e, "ops", "relu", NULL);
  g_object_get (e, "ops", &ops, "op", &op, "value", &value, NULL);
  fail_unless_equals_string (ops, "relu");
  fail_unless_equals_string (op, "mul");
  fail_unless_equals_string (value, "2");
  g_free (ops);
  g_free (op);
  g_free (value);
  gst_object_unref (e);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The state change to PAUSED of a tensorop whose settings are those
 * property values fails; the error text, which must name the element, the
 * property and the text (g_free it). */
static gchar *
start_fails (const gchar *prop1, const gchar *val1, const gchar *prop2,
    const gchar *val2)
{
  GstElement *e = gst_element_factory_make ("tensorop", "t");
  GstBus *bus = gst_bus_new ();
  gchar *text, *bad;

  gst_element_set_bus (e, bus);
  g_object_set (e, prop1, val1, NULL);
  if (prop2)
    g_object_set (e, prop2, val2, NULL);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  fail_unless (text != NULL, "%s=%s: no error", prop1, val1);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
  bad = g_strdup_printf ("t: %s=\"%s\" cannot be used: ",
      prop2 && g_strcmp0 (prop1, "ops") != 0 ? prop2 : prop1,
      prop2 && g_strcmp0 (prop1, "ops") != 0 ? val2 : val1);
  tn_assert_contains (text, bad);
  g_free (bad);
  return text;
}

/* A value that cannot be used is stored as set (reading it back gives it)
 * and is an element error when the element starts, never a passthrough:
 * a typo, an unknown cast type, a missing, directory, corrupt or complex
 * .npy operand, too many steps. */
GST_START_TEST (test_bad_property_values)
{
  gchar *dir = g_dir_make_tmp ("tnop-XXXXXX", NULL);
  gchar *bad = g_build_filename (dir, "bad.npy", NULL);
  gchar *cplx = g_build_filename (dir, "c.npy", NULL);
  GstElement *e = gst_element_factory_make ("tensorop", "t");
  const gchar chdr[] = "\x93NUMPY\x01\x00\x76\x00{'descr': '<c8', "
                       "'fortran_order': False, 'shape': (1,), }";
  GString *many = g_string_new ("add:1");
  gchar *text, *ops, *arg;

  g_object_set (e, "ops", "add:1,frobnicate", NULL);
  g_object_get (e, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "add:1,frobnicate");
  g_free (ops);
  gst_object_unref (e);

  text = start_fails ("ops", "mull:2", NULL, NULL);
  tn_assert_contains (text, "step 1 of 1 ('mull') is not a known step");
  g_free (text);
  text = start_fails ("ops", "add", NULL, NULL);
  tn_assert_contains (text, "needs one operand");
  g_free (text);
  text = start_fails ("ops", "cast:float128", NULL, NULL);
  tn_assert_contains (text, "float128");
  g_free (text);
  text = start_fails ("ops", "sub:/no/such/file.npy", NULL, NULL);
  tn_assert_contains (text, "cannot open '/no/such/file.npy'");
  g_free (text);
  arg = g_strdup_printf ("sub:%s", dir);
  text = start_fails ("ops", arg, NULL, NULL);
  tn_assert_contains (text, dir);
  g_free (text);
  g_free (arg);
  fail_unless (g_file_set_contents (bad, "not a numpy file", -1, NULL));
  arg = g_strdup_printf ("sub:%s", bad);
  text = start_fails ("ops", arg, NULL, NULL);
  tn_assert_contains (text, bad);
  g_free (text);
  g_free (arg);
  {
    GString *c = g_string_new_len (chdr, sizeof chdr - 1);

    while (c->len < 127)
      g_string_append_c (c, ' ');
    g_string_append_c (c, '\n');
    g_string_append_len (c, "\0\0\0\0\0\0\0\0", 8);
    fail_unless (g_file_set_contents (cplx, c->str, c->len, NULL));
    g_string_free (c, TRUE);
  }
  arg = g_strdup_printf ("mul:%s", cplx);
  text = start_fails ("ops", arg, NULL, NULL);
  tn_assert_contains (text, "c8");
  g_free (text);
  g_free (arg);
  for (gint i = 0; i < 300; i++)
    g_string_append (many, ",add:1");
  text = start_fails ("ops", many->str, NULL, NULL);
  tn_assert_contains (text, "steps");
  g_free (text);
  text = start_fails ("op", "plus", NULL, NULL);
  tn_assert_contains (text, "'plus' is not a step; the steps are add, sub");
  g_free (text);
  g_string_free (many, TRUE);
  g_unlink (bad);
  g_unlink (cplx);
  g_rmdir (dir);
  g_free (bad);
  g_free (cplx);
  g_free (dir);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gchar *run_launch (const gchar *desc, gchar **from);

/* ops together with op/value: the last one set does not win silently;
 * the element refuses to start, naming both. */
GST_START_TEST (test_conflict)
{
  gchar *text = start_fails ("ops", "add:1", "op", "mul");

  tn_assert_contains (text, "t: ops=\"add:1\" cannot be used: op=\"mul\" "
                            "value=\"\" is set too; set either ops or op "
                            "and value");
  g_free (text);
  text = start_fails ("value", "2", "ops", "add:1");
  tn_assert_contains (text, "value=\"2\" is set too");
  g_free (text);
  text = run_launch ("tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,"
                     "dims=<3> ! tensorop ops=add:1 op=mul value=2 ! fakesink",
      NULL);
  tn_assert_contains (text, "ops=\"add:1\" cannot be used: op=\"mul\"");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* While running, a bad value is refused with a warning on the bus that
 * names it and the chain kept, and the chain in use goes on (so is an
 * n-threads outside 0..64); a shorthand set half (op, then value) waits
 * for the other half without a warning. */
GST_START_TEST (test_bad_value_while_running)
{
  const gfloat in[3] = { 1, 2, 4 }, add1[3] = { 2, 3, 5 },
               mul2[3] = { 2, 4, 8 };
  GstBuffer *out;
  gchar *text, *ops;
  Op o;

  op_new (&o, "add:1", "float32", "<3>");
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, add1, 3);
  gst_buffer_unref (out);
  g_object_set (o.e, "ops", "add:1,frobnicate", NULL);
  text = tn_pop_text (o.bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "op: ops=\"add:1,frobnicate\" cannot be used: "
                            "step 2 of 2 ('frobnicate') is not a known step");
  tn_assert_contains (text, "keeping ops=\"add:1\"");
  g_free (text);
  g_object_get (o.e, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "add:1");
  g_free (ops);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, add1, 3);
  gst_buffer_unref (out);
  /* n-threads (elements/tnelement.c, the same in six elements) */
  g_object_set (o.e, "n-threads", 2, NULL);
  g_object_set (o.e, "n-threads", 65, NULL);
  text = tn_pop_text (o.bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "n-threads=\"65\" cannot be used: n-threads is "
                            "0 (one thread per core) to 64; keeping "
                            "n-threads=\"2\"");
  g_free (text);
  {
    gint n;

    g_object_get (o.e, "n-threads", &n, NULL);
    fail_unless_equals_int (n, 2);
  }
  g_object_set (o.e, "ops", NULL, NULL);
  g_object_set (o.e, "op", "mul", NULL);
  fail_unless (tn_pop_text (o.bus, GST_MESSAGE_WARNING) == NULL);
  g_object_set (o.e, "value", "2", NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, mul2, 3);
  gst_buffer_unref (out);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A writable input is computed in place: same buffer, same memory. */
GST_START_TEST (test_in_place)
{
  const gfloat in[6] = { 0, 1, 2, 3, 4, 5 }, want[6] = { 1, 3, 5, 7, 9, 11 };
  GstBuffer *b, *out;
  gpointer before;
  Op o;

  op_new (&o, "mul:2,add:1", "float32", "<2, 3>");
  b = buffer_of (in, sizeof in);
  before = data_of (b);
  out = gst_harness_push_and_pull (o.h, b);
  fail_unless (out == b);
  fail_unless (data_of (out) == before);
  assert_floats (out, want, 6);
  gst_buffer_unref (out);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A buffer someone else holds is left alone: the output is a new buffer
 * from the tensor pool. */
GST_START_TEST (test_copy_when_shared)
{
  const gfloat in[6] = { 0, 1, 2, 3, 4, 5 }, want[6] = { 1, 3, 5, 7, 9, 11 };
  GstBuffer *b, *out;
  Op o;

  op_new (&o, "mul:2,add:1", "float32", "<2, 3>");
  b = buffer_of (in, sizeof in);
  out = gst_harness_push_and_pull (o.h, gst_buffer_ref (b));
  fail_unless (out != b);
  fail_unless (data_of (out) != data_of (b));
  fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (out, 0)));
  assert_floats (out, want, 6);
  assert_floats (b, in, 6);
  gst_buffer_unref (out);
  gst_buffer_unref (b);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* uint8 -> float32 widens the items: never in place; values from NumPy. */
GST_START_TEST (test_normalise_uint8)
{
  GBytes *in = npy_data ("ewise_norm_in_uint8.npy", NULL);
  GBytes *want = npy_data ("ewise_norm_out_float32.npy", NULL);
  GstBuffer *b, *out;
  GstMapInfo map;
  GstCaps *c;
  gchar *caps;
  Op o;

  op_new (&o, "cast:float32,sub:127.5,div:127.5", "uint8", "<16, 16>");
  /* The harness's sink pad sees tensorop's output caps. */
  c = gst_pad_get_current_caps (o.h->sinkpad);
  caps = gst_caps_to_string (c);
  gst_caps_unref (c);
  tn_assert_contains (caps, "type=(string)float32");
  tn_assert_contains (caps, "dims=(int)< 16, 16 >");
  g_free (caps);
  b = gst_buffer_new_wrapped_bytes (in);
  out = gst_harness_push_and_pull (o.h, b);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless (g_bytes_get_size (want) == map.size);
  fail_unless (memcmp (map.data, g_bytes_get_data (want, NULL), map.size) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  g_bytes_unref (in);
  g_bytes_unref (want);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstBuffer *
pull_sample_buffer (GstElement *sink)
{
  GstSample *s = NULL;
  GstBuffer *b;

  g_signal_emit_by_name (sink, "pull-sample", &s);
  fail_unless (s != NULL);
  b = gst_buffer_ref (gst_sample_get_buffer (s));
  gst_sample_unref (s);
  return b;
}

/* After a tee the other branch must still see the original values. */
GST_START_TEST (test_tee)
{
  const gfloat in[4] = { 1, 2, 3, 4 }, want[4] = { 2, 3, 4, 5 };
  GstElement *p, *src, *a, *b;
  GstBuffer *buf, *ba, *bb;
  GstFlowReturn ret;
  GError *err = NULL;

  p = gst_parse_launch (
      "appsrc name=src caps=\"tensor/x-raw,type=float32,dims=<4>,"
      "dims-order=row-major,framerate=0/1\" ! tee name=t "
      "t. ! queue ! tensorop ops=add:1 ! appsink name=a sync=false "
      "t. ! queue ! appsink name=b sync=false",
      &err);
  fail_unless (p != NULL, "%s", err ? err->message : "?");
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  a = gst_bin_get_by_name (GST_BIN (p), "a");
  b = gst_bin_get_by_name (GST_BIN (p), "b");
  fail_unless (
      gst_element_set_state (p, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  buf = buffer_of (in, sizeof in);
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  gst_buffer_unref (buf); /* now only the two branches hold it */
  g_signal_emit_by_name (src, "end-of-stream", &ret);

  ba = pull_sample_buffer (a);
  bb = pull_sample_buffer (b);
  assert_floats (ba, want, 4);
  assert_floats (bb, in, 4);
  fail_unless (data_of (ba) != data_of (bb));
  gst_buffer_unref (ba);
  gst_buffer_unref (bb);
  fail_unless (
      gst_element_set_state (p, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (src);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (p);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The output of a big chain with n-threads=1 and =2: the same bits, and
 * right in a few places worked out by hand. */
GST_START_TEST (test_threads_bit_identical)
{
  const gsize n = 512 * 512;
  GstBuffer *out[2];
  GstMapInfo m0, m1;
  gfloat *x = g_new (gfloat, n);

  for (gsize i = 0; i < n; i++)
    x[i] = (gfloat) ((gint) (i * 2654435761u % 2001) - 1000) / 8.0f;
  for (int k = 0; k < 2; k++) {
    Op o;

    op_new (&o, NULL, NULL, NULL);
    g_object_set (o.e, "ops", "mul:1.5,sub:0.25,sigmoid,mul:4,round",
        "n-threads", k + 1, NULL);
    gst_harness_set_src_caps_str (o.h,
        "tensor/x-raw,type=float32,dims=<512,512>,dims-order=row-major,"
        "framerate=0/1");
    out[k] = gst_harness_push_and_pull (o.h, buffer_of (x, n * sizeof *x));
    op_free (&o);
  }
  fail_unless (gst_buffer_map (out[0], &m0, GST_MAP_READ));
  fail_unless (gst_buffer_map (out[1], &m1, GST_MAP_READ));
  fail_unless (m0.size == n * sizeof (gfloat) && m1.size == m0.size);
  fail_unless (memcmp (m0.data, m1.data, m0.size) == 0);
  /* x = 0 -> sigmoid(-0.25) * 4 = 1.75... -> 2; x = -1000/8 -> 0. */
  for (gsize i = 0; i < n; i++) {
    gfloat y = ((gfloat *) m0.data)[i];

    if (x[i] == 0.0f)
      fail_unless (y == 2.0f);
    else if (x[i] == -125.0f || x[i] == 125.0f)
      fail_unless (y == (x[i] < 0 ? 0.0f : 4.0f));
    else
      fail_unless (y >= 0.0f && y <= 4.0f);
  }
  gst_buffer_unmap (out[0], &m0);
  gst_buffer_unmap (out[1], &m1);
  gst_buffer_unref (out[0]);
  gst_buffer_unref (out[1]);
  g_free (x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Operands from .npy files: <3> and <480, 1, 1> over <480, 640, 3>. */
GST_START_TEST (test_broadcast_operands)
{
  const gsize n = 480 * 640 * 3;
  gchar *w3 = tn_test_data ("ewise_w3.npy");
  gchar *w480 = tn_test_data ("ewise_w480.npy");
  const gfloat c3[3] = { 0.5f, -2.0f, 100.0f };
  gchar *ops = g_strdup_printf ("cast:float32,sub:%s,mul:%s", w3, w480);
  guint8 *x = g_malloc (n);
  GstBuffer *out;
  GstMapInfo map;
  Op o;

  for (gsize i = 0; i < n; i++)
    x[i] = (guint8) (i * 7 % 251);
  op_new (&o, ops, "uint8", "<480, 640, 3>");
  g_object_set (o.e, "n-threads", 2, NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (x, n));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n * sizeof (gfloat));
  for (gsize i = 0; i < n; i++) {
    gfloat want = ((gfloat) x[i] - c3[i % 3]) * ((gfloat) (i / 1920) * 0.25f);

    if (((gfloat *) map.data)[i] != want)
      fail ("item %" G_GSIZE_FORMAT " is %g, expected %g", i,
          ((gfloat *) map.data)[i], want);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  op_free (&o);
  g_free (x);
  g_free (ops);
  g_free (w3);
  g_free (w480);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A strided input (layout meta) is read as its meta says and comes out
 * dense, without the meta; the input is left alone. */
GST_START_TEST (test_strided_input)
{
  /* Storage of a 2x3 tensor; caps <3, 2> with strides <1, 3> are its
   * transpose. */
  const gfloat st[6] = { 0, 1, 2, 3, 4, 5 };
  const gfloat want_t[6] = { 0, 30, 10, 40, 20, 50 };
  const gfloat pad[8] = { -1, -1, 6, 7, 8, 9, 10, 11 };
  const gfloat want_o[6] = { 60, 70, 80, 90, 100, 110 };
  const gint64 strides[2] = { 1, 3 }, dense[2] = { 3, 1 };
  GstBuffer *b, *out;
  Op o;

  op_new (&o, "mul:10", "float32", "<3, 2>");
  b = buffer_of (st, sizeof st);
  gst_tn_buffer_add_layout_meta (b, 2, 0, strides);
  out = gst_harness_push_and_pull (o.h, gst_buffer_ref (b));
  assert_floats (out, want_t, 6);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  assert_floats (b, st, 6);
  gst_buffer_unref (out);
  gst_buffer_unref (b);
  /* Dense but two items in: writable, yet not computed in place. */
  op_free (&o);
  op_new (&o, "mul:10", "float32", "<2, 3>");
  b = buffer_of (pad, sizeof pad);
  gst_tn_buffer_add_layout_meta (b, 2, 2, dense);
  out = gst_harness_push_and_pull (o.h, b);
  fail_unless (out != b);
  assert_floats (out, want_o, 6);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  gst_buffer_unref (out);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* tensorop does not claim to read strides: of downstream's metas it
 * forwards all but the layout meta. */
GST_START_TEST (test_propose_allocation)
{
  GstQuery *q;
  GstCaps *caps;
  Op o;

  op_new (&o, "add:1", NULL, NULL);
  gst_harness_add_propose_allocation_meta (
      o.h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_add_propose_allocation_meta (
      o.h, GST_PARENT_BUFFER_META_API_TYPE, NULL);
  gst_harness_set_src_caps_str (o.h,
      "tensor/x-raw,type=float32,dims=<4>,dims-order=row-major,framerate=0/1");
  caps = gst_caps_from_string (
      "tensor/x-raw,type=float32,dims=<4>,dims-order=row-major,framerate=0/1");
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (o.h->srcpad, q));
  fail_if (
      gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL));
  fail_unless (gst_query_find_allocation_meta (
      q, GST_PARENT_BUFFER_META_API_TYPE, NULL));
  gst_query_unref (q);
  gst_caps_unref (caps);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_size_mismatch)
{
  const gfloat in[5] = { 0 };
  gchar *text;
  Op o;

  op_new (&o, "add:1", "float32", "<2, 3>");
  fail_unless_equals_int (
      gst_harness_push (o.h, buffer_of (in, sizeof in)), GST_FLOW_ERROR);
  text = tn_pop_text (o.bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text,
      "The input buffer does not hold the tensor its caps "
      "describe: buffer holds 20 bytes; caps float32 <2, "
      "3> need 24");
  g_free (text);
  /* The same for a buffer that is not written in place. */
  op_free (&o);
  op_new (&o, "cast:float64", "float32", "<2, 3>");
  fail_unless_equals_int (
      gst_harness_push (o.h, buffer_of (in, sizeof in)), GST_FLOW_ERROR);
  text = tn_pop_text (o.bus, GST_MESSAGE_ERROR);
  tn_assert_contains (
      text, "buffer holds 20 bytes; caps float32 <2, 3> need 24");
  g_free (text);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps the chain refuses: the CAPS event fails, and the error says why. */
static void
expect_caps_error (const gchar *ops, const gchar *type, const gchar *dims,
    const gchar *const *needles)
{
  gchar *text;
  Op o;

  op_new (&o, ops, type, dims);
  text = tn_pop_text (o.bus, GST_MESSAGE_ERROR);
  for (; *needles; needles++)
    tn_assert_contains (text, *needles);
  g_free (text);
  /* Each push sends the refused CAPS event again: one refusal, one error. */
  fail_unless_equals_int (
      gst_harness_push (o.h, gst_buffer_new_allocate (NULL, 4, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (
      gst_harness_push (o.h, gst_buffer_new_allocate (NULL, 4, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  text = tn_pop_text (o.bus, GST_MESSAGE_ERROR);
  fail_unless (text == NULL, "a second error: %s", text);
  op_free (&o);
}

#define EXPECT_CAPS_ERROR(ops, type, dims, ...)                                \
  do {                                                                         \
    const gchar *const n_[] = { __VA_ARGS__, NULL };                           \
    expect_caps_error (ops, type, dims, n_);                                   \
  } while (0)

GST_START_TEST (test_negotiation_errors)
{
  gchar *bad = tn_test_data ("ewise_bad_dims.npy");
  gchar *frac = tn_test_data ("ewise_bad_frac.npy");
  gchar *ops;

  EXPECT_CAPS_ERROR ("sqrt", "int32", "<4>",
      "ops=\"sqrt\" cannot take int32 <4> tensors",
      "step 1 of 1 (sqrt): sqrt needs a float tensor but the tensor is int32",
      "put a cast:float32 step before it");
  EXPECT_CAPS_ERROR ("mul:2,log", "uint8", "<2, 2>",
      "step 2 of 2 (log): log needs a float tensor");
  EXPECT_CAPS_ERROR ("add:2.5", "int16", "<4>",
      "operand 2.5 is not a whole number, and an int16 tensor takes whole "
      "operands only");
  EXPECT_CAPS_ERROR ("add:256", "uint8", "<4>",
      "operand 256 does not fit uint8, which holds 0 to 255");
  EXPECT_CAPS_ERROR ("add:1", "bool", "<4>",
      "a bool tensor takes cast "
      "steps only");
  ops = g_strdup_printf ("sub:%s", bad);
  EXPECT_CAPS_ERROR (ops, "float32", "<480, 640, 3>",
      "dims <480, 640, 3> and <4> do not broadcast: axis 2 has 3 against 4 "
      "and neither is 1");
  EXPECT_CAPS_ERROR (ops, "float32", "<1>",
      "operand dims <4> would stretch axis 0 of the tensor dims <1> from 1 "
      "to 4");
  g_free (ops);
  ops = g_strdup_printf ("mul:%s", frac);
  EXPECT_CAPS_ERROR (
      ops, "int8", "<3>", "item 2 of the operand (2.5) is not a whole number");
  g_free (ops);
  g_free (bad);
  g_free (frac);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Runs a pipeline to the end; returns the first error's text (or NULL)
 * and the name of the element that posted it. */
static gchar *
run_pipeline (GstElement *p, gchar **from)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;
  gchar *text = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (m != NULL, "the pipeline neither ended nor failed");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err;

    gst_message_parse_error (m, &err, NULL);
    text = g_strdup (err->message);
    if (from)
      *from = g_strdup (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    g_error_free (err);
  }
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  return text;
}

static gchar *
run_launch (const gchar *desc, gchar **from)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  gchar *text;

  fail_unless (
      p != NULL && err == NULL, "%s: %s", desc, err ? err->message : "?");
  text = run_pipeline (p, from);
  gst_object_unref (p);
  return text;
}

/* The gst-launch case: a capsfilter forces a type the chain refuses.
 * Linking succeeds and negotiation fails with the reason. */
GST_START_TEST (test_pipeline_refused_type)
{
  gchar *from = NULL,
        *text = run_launch (
            "tensorsrc num-buffers=1 ! tensor/x-raw,type=int32,dims=<4> "
            "! tensorop name=op ops=sqrt ! fakesink",
            &from);

  tn_assert_contains (
      text, "sqrt needs a float tensor but the tensor is int32");
  tn_assert_contains (text, "cast:float32");
  fail_unless_equals_string (from, "op");
  g_free (text);
  g_free (from);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static void
link_unchecked (GstElement *a, GstElement *b)
{
  GstPad *src = gst_element_get_static_pad (a, "src");
  GstPad *sink = gst_element_get_static_pad (b, "sink");

  fail_unless (gst_pad_link_full (src, sink, GST_PAD_LINK_CHECK_NOTHING)
               == GST_PAD_LINK_OK);
  gst_object_unref (src);
  gst_object_unref (sink);
}

/* Downstream refuses what the chain makes. */
GST_START_TEST (test_downstream_refuses_output)
{
  GstElement *p = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("tensorsrc", NULL);
  GstElement *cf1 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *op = gst_element_factory_make ("tensorop", "op");
  GstElement *cf2 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstCaps *c1 = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<4>");
  GstCaps *c2 = gst_caps_from_string ("tensor/x-raw,type=float32");
  gchar *text, *from = NULL;

  g_object_set (src, "num-buffers", 1, NULL);
  g_object_set (cf1, "caps", c1, NULL);
  g_object_set (cf2, "caps", c2, NULL);
  g_object_set (op, "ops", "cast:int16", NULL);
  gst_bin_add_many (GST_BIN (p), src, cf1, op, cf2, sink, NULL);
  fail_unless (gst_element_link_many (src, cf1, op, NULL));
  /* Linked without the caps check gst-launch would do, so that the
   * failure comes at negotiation. */
  link_unchecked (op, cf2);
  link_unchecked (cf2, sink);
  text = run_pipeline (p, &from);
  tn_assert_contains (text, "The chain makes int16 <4> tensors, which "
                            "downstream does not accept.");
  fail_unless_equals_string (from, "op");
  g_free (text);
  g_free (from);
  gst_caps_unref (c1);
  gst_caps_unref (c2);
  gst_object_unref (p);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* transform_caps works both ways: between two capsfilters the type
 * flows down through the casts and up from the output's. */
GST_START_TEST (test_negotiate_both_ways)
{
  GstCaps *caps, *want;
  GstStructure *s;
  gchar *text;
  Op o;

  /* Down: uint8 in, float64 out. */
  text = run_launch ("tensorsrc num-buffers=2 ! tensor/x-raw,type=uint8,"
                     "dims=<2,2> ! tensorop ops=cast:float64,sqrt "
                     "! tensor/x-raw,type=float64 ! fakesink",
      NULL);
  fail_unless (text == NULL, "%s", text);
  /* Up: downstream wants float16; upstream (free to choose) must send
   * float16 for a chain without casts. */
  text = run_launch ("tensorsrc num-buffers=2 ! tensor/x-raw,dims=<3> "
                     "! tensorop ops=sqrt,mul:2 ! tensor/x-raw,type=float16 "
                     "! fakesink",
      NULL);
  fail_unless (text == NULL, "%s", text);

  /* The query itself: what may come in when float16 must come out. */
  op_new (&o, "sqrt", NULL, NULL);
  gst_harness_set_sink_caps_str (o.h,
      "tensor/x-raw,type=float16,dims=<3>,dims-order=row-major,"
      "framerate=0/1");
  caps = gst_pad_peer_query_caps (o.h->srcpad, NULL);
  fail_unless_equals_int (gst_caps_get_size (caps), 2);
  /* First what works, then what the chain refuses (so that a peer that
   * can only send those gets the reason at negotiation). */
  s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "type"), "float16");
  want = gst_caps_from_string ("tensor/x-raw,type={bool,int8,uint8,int16,"
                               "uint16,int32,uint32,int64,uint64}");
  {
    GstCaps *second = gst_caps_copy_nth (caps, 1);

    fail_unless (gst_caps_is_subset (second, want));
    gst_caps_unref (second);
  }
  gst_caps_unref (caps);
  gst_caps_unref (want);
  op_free (&o);

  /* What may come in for cast:int16 when downstream takes int16: all. */
  op_new (&o, "cast:int16", NULL, NULL);
  gst_harness_set_sink_caps_str (o.h, "tensor/x-raw,type=int16");
  caps = gst_pad_peer_query_caps (o.h->srcpad, NULL);
  want = gst_caps_from_string (GST_TN_CAPS_ANY);
  fail_unless (gst_caps_is_subset (want, caps));
  gst_caps_unref (caps);
  gst_caps_unref (want);
  /* ... and for float32 downstream, which no input gives: the caps
   * themselves, so that negotiation fails at tensorop with the reason
   * (test_downstream_refuses_output). */
  op_free (&o);
  op_new (&o, "cast:int16", NULL, NULL);
  gst_harness_set_sink_caps_str (o.h, "tensor/x-raw,type=float32");
  caps = gst_pad_peer_query_caps (o.h->srcpad, NULL);
  fail_unless_equals_int (gst_caps_get_size (caps), 1);
  fail_unless_equals_string (
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "type"),
      "float32");
  gst_caps_unref (caps);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A chain that changes nothing passes buffers through untouched. */
GST_START_TEST (test_passthrough)
{
  const gint32 in[3] = { -1, 0, 7 };
  GstBuffer *b, *out;
  Op o;

  op_new (&o, "floor,round,cast:int32", "int32", "<3>");
  b = buffer_of (in, sizeof in);
  out = gst_harness_push_and_pull (o.h, gst_buffer_ref (b));
  fail_unless (out == b);
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (o.e)));
  gst_buffer_unref (out);
  gst_buffer_unref (b);
  op_free (&o);
  op_new (&o, NULL, "float32", "<3>");
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (o.e)));
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_zero_size_and_rank0)
{
  const gfloat x = 3.0f, want = 6.5f;
  GstBuffer *out;
  Op o;

  op_new (&o, "mul:2,add:0.5", "float32", "<>");
  out = gst_harness_push_and_pull (o.h, buffer_of (&x, sizeof x));
  assert_floats (out, &want, 1);
  gst_buffer_unref (out);
  op_free (&o);
  /* No items: an empty buffer in, an empty buffer out, also when the
   * items widen. */
  op_new (&o, "cast:float64,sqrt", "float32", "<2, 0, 3>");
  out = gst_harness_push_and_pull (o.h, gst_buffer_new ());
  fail_unless (out != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 0);
  gst_buffer_unref (out);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* op and value: a one-step chain, checked when the element starts. */
GST_START_TEST (test_shorthand)
{
  const gfloat in[4] = { -3, 0.25f, 0.75f, 9 },
               want[4] = { 0, 0.25f, 0.75f, 1 };
  gchar *w3 = tn_test_data ("ewise_w3.npy"), *text;
  const gfloat in3[3] = { 1, 1, 1 }, want3[3] = { 1.5f, -1, 101 };
  GstBuffer *out;
  Op o;

  op_new (&o, NULL, NULL, NULL);
  g_object_set (o.e, "op", "clamp", "value", "0:1", NULL);
  gst_harness_set_src_caps_str (o.h, "tensor/x-raw,type=float32,dims=<4>,"
                                     "dims-order=row-major,framerate=0/1");
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, want, 4);
  gst_buffer_unref (out);
  op_free (&o);

  op_new (&o, NULL, NULL, NULL);
  g_object_set (o.e, "value", w3, "op", "add", NULL);
  gst_harness_set_src_caps_str (o.h, "tensor/x-raw,type=float32,dims=<3>,"
                                     "dims-order=row-major,framerate=0/1");
  out = gst_harness_push_and_pull (o.h, buffer_of (in3, sizeof in3));
  assert_floats (out, want3, 3);
  gst_buffer_unref (out);
  op_free (&o);
  g_free (w3);

  /* Incomplete or contradictory: the element refuses to start. */
  {
    GstElement *e = gst_element_factory_make ("tensorop", "op");
    GstBus *bus = gst_bus_new ();

    gst_element_set_bus (e, bus);
    g_object_set (e, "op", "neg", "value", "2", NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    tn_assert_contains (text,
        "op=neg value=2 does not make a step: step 1 of 1 "
        "(neg:2) takes no argument but has 1.");
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    g_object_set (e, "op", NULL, "value", "2", NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    tn_assert_contains (text, "op: value=\"2\" cannot be used: op is not set");
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    g_object_set (e, "op", "div", "value", NULL, NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    tn_assert_contains (text, "op=div value=(not set) does not make a step: "
                              "step 1 of 1 (div) needs one operand");
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
  /* In a launch line: it links, then fails with the reason. */
  text = run_launch ("tensorsrc num-buffers=1 ! tensor/x-raw,type=float32,"
                     "dims=<3> ! tensorop op=neg value=2 ! fakesink",
      NULL);
  tn_assert_contains (text, "op=neg value=2 does not make a step");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Every dtype through the element against the golden rows of a few
 * steps (the core test runs them all). */
GST_START_TEST (test_golden_rows)
{
  static const gchar *const types[]
      = { "int8", "uint16", "int64", "float16", "bfloat16", "float64" };

  for (guint k = 0; k < G_N_ELEMENTS (types); k++) {
    gchar *name = g_strdup_printf ("ewise_x_%s.npy", types[k]);
    gchar *oname = g_strdup_printf ("ewise_out_%s.npy", types[k]);
    gchar *sname = g_strdup_printf ("ewise_steps_%s.txt", types[k]);
    gchar *spath = tn_test_data (sname), *text, **lines, *dims;
    gsize xsize, osize, row;
    GBytes *x = npy_data (name, &xsize), *o = npy_data (oname, &osize);
    guint nlines;

    fail_unless (g_file_get_contents (spath, &text, NULL, NULL));
    lines = g_strsplit (g_strchomp (text), "\n", -1);
    nlines = g_strv_length (lines);
    fail_unless_equals_uint64 (osize, xsize * nlines);
    row = xsize;
    for (guint li = 0; li < nlines; li++) {
      GstBuffer *out;
      GstMapInfo map;
      Op op;
      gint isz = strstr (types[k], "8")    ? 1
                 : strstr (types[k], "16") ? 2
                 : strstr (types[k], "64") ? 8
                                           : 4;

      /* Lines with .npy operands or approximate results are the core
       * test's. */
      if (strchr (lines[li], '@') || lines[li][0] == '~')
        continue;
      dims = g_strdup_printf ("<%" G_GSIZE_FORMAT ">", xsize / isz);
      op_new (&op, lines[li], types[k], dims);
      out = gst_harness_push_and_pull (
          op.h, buffer_of (g_bytes_get_data (x, NULL), xsize));
      fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
      fail_unless_equals_uint64 (map.size, xsize);
      /* Integers and the exact float steps compare as bits; NaN items
       * are NaN in both (their payloads are the hardware's). */
      for (gsize i = 0; i < xsize; i += isz) {
        const guint8 *g = map.data + i;
        const guint8 *w
            = (const guint8 *) g_bytes_get_data (o, NULL) + li * row + i;

        if (memcmp (g, w, isz) != 0) {
          tn_dtype t;
          double gv, wv;

          fail_unless (tn_dtype_from_name (types[k], &t, NULL) == 0);
          gv = tn_get_f64 (g, t);
          wv = tn_get_f64 (w, t);
          fail_unless (gv != gv && wv != wv,
              "%s on %s: item %" G_GSIZE_FORMAT " is %g, expected %g",
              lines[li], types[k], i / isz, gv, wv);
        }
      }
      gst_buffer_unmap (out, &map);
      gst_buffer_unref (out);
      op_free (&op);
      g_free (dims);
    }
    g_strfreev (lines);
    g_free (text);
    g_free (spath);
    g_free (sname);
    g_free (name);
    g_free (oname);
    g_bytes_unref (x);
    g_bytes_unref (o);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ops set while buffers flow: the next buffer sees the new chain, with
 * the same caps (no set_caps), from and to passthrough, and with a new
 * output type. */
GST_START_TEST (test_change_while_playing)
{
  const gfloat in[3] = { 1, 2, 4 };
  const gfloat add1[3] = { 2, 3, 5 }, mul3[3] = { 3, 6, 12 };
  const gfloat add2[3] = { 3, 4, 6 };
  const gdouble half[3] = { 0.5, 1, 2 };
  GstBuffer *out;
  GstMapInfo map;
  Op o;

  op_new (&o, "add:1", "float32", "<3>");
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, add1, 3);
  gst_buffer_unref (out);
  g_object_set (o.e, "ops", "mul:3", NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, mul3, 3);
  gst_buffer_unref (out);
  g_object_set (o.e, "ops", "", NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, in, 3);
  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (o.e)));
  gst_buffer_unref (out);
  g_object_set (o.e, "ops", "add:2", NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  assert_floats (out, add2, 3);
  gst_buffer_unref (out);
  g_object_set (o.e, "ops", "cast:float64,div:2", NULL);
  out = gst_harness_push_and_pull (o.h, buffer_of (in, sizeof in));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, sizeof half);
  fail_unless (memcmp (map.data, half, sizeof half) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  op_free (&o);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* n-threads means the same in every element of the plugin: an int,
 * changeable while playing, that stores any value (so that one outside
 * 0..64 is the element's error at start, tests/matrix/property.py, not
 * GLib's warning), 0 (one thread per core) by default. */
GST_START_TEST (test_n_threads_everywhere)
{
  GList *feats
      = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "tensor");
  guint seen = 0;

  for (GList *l = feats; l; l = l->next) {
    GstElementFactory *f;
    GstElement *e;
    GParamSpec *ps;

    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    f = GST_ELEMENT_FACTORY (l->data);
    e = gst_element_factory_create (f, NULL);
    fail_unless (e != NULL);
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "n-threads");
    if (ps) {
      GParamSpecInt *u;

      fail_unless (G_IS_PARAM_SPEC_INT (ps), "%s: n-threads is a %s",
          GST_OBJECT_NAME (f), G_PARAM_SPEC_TYPE_NAME (ps));
      u = G_PARAM_SPEC_INT (ps);
      fail_unless_equals_int (u->minimum, G_MININT);
      fail_unless_equals_int (u->maximum, G_MAXINT);
      fail_unless_equals_int (u->default_value, 0);
      fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING);
      seen++;
    }
    gst_object_unref (e);
  }
  gst_plugin_feature_list_free (feats);
  /* tensorsrc, tensorop, tensorreduce, tensormatmul at least */
  fail_unless (seen >= 4, "only %u elements have n-threads", seen);
}

GST_END_TEST;

/* What gst-inspect-1.0 prints of every element of the plugin: a
 * description of one sentence (launch lines live in the SECTION blocks),
 * and property blurbs that say what the property means without repeating
 * the range and default gst-inspect prints beside them. */
GST_START_TEST (test_inspect_text_everywhere)
{
  GList *feats
      = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "tensor");
  GRegex *rd = g_regex_new ("\\b[Dd]efault\\b|\\bRange\\b|2147483647|"
                            "4294967295|9223372036854775807",
      0, 0, NULL);
  guint seen = 0;

  for (GList *l = feats; l; l = l->next) {
    GstElementFactory *f;
    const gchar *desc;
    GstElement *e;
    GParamSpec **ps;
    guint n;

    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    f = GST_ELEMENT_FACTORY (l->data);
    desc = gst_element_factory_get_metadata (
        f, GST_ELEMENT_METADATA_DESCRIPTION);
    fail_unless (strstr (desc, "gst-launch") == NULL, "%s: %s",
        GST_OBJECT_NAME (f), desc);
    fail_unless (strstr (desc, ". ") == NULL, "%s: more than a sentence: %s",
        GST_OBJECT_NAME (f), desc);
    fail_unless (strchr (desc, '!') == NULL && strlen (desc) < 200,
        "%s: not one short sentence: %s", GST_OBJECT_NAME (f), desc);
    e = gst_element_factory_create (f, NULL);
    ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (guint i = 0; i < n; i++) {
      const gchar *blurb = g_param_spec_get_blurb (ps[i]);

      /* GStreamer's own base-class properties are theirs to word */
      if (ps[i]->owner_type != G_OBJECT_TYPE (e))
        continue;
      fail_if (g_regex_match (rd, blurb, 0, NULL), "%s:%s repeats: %s",
          GST_OBJECT_NAME (f), ps[i]->name, blurb);
    }
    g_free (ps);
    gst_object_unref (e);
    seen++;
  }
  g_regex_unref (rd);
  gst_plugin_feature_list_free (feats);
  fail_unless (seen >= 9, "only %u elements", seen);
}

GST_END_TEST;

/* GType names are process-wide: one that another plugin registers too
 * makes the second plugin fail to load.  The names NNStreamer 2.7.0
 * (commit 5b13ea6, the peer of bench/) registers for its elements and
 * memory, and those upstream GStreamer 1.26 registers for its tensors
 * (docs/design-notes.md, "Names"); no element type of ours, base class or
 * property enum may be one of them. */
static const gchar *const foreign_types[] = { "GstAMCSrc", "GstDataRepoSink",
  "GstDataRepoSrc", "GstEdgeSink", "GstEdgeSrc", "GstJoin", "GstJoinPad",
  "GstMqttSink", "GstMqttSrc", "GstTensorAggregator", "GstTensorAllocator",
  "GstTensorConverter", "GstTensorCrop", "GstTensorDebug", "GstTensorDecoder",
  "GstTensorDemux", "GstTensorFilter", "GstTensorIf", "GstTensorMerge",
  "GstTensorMux", "GstTensorQueryClient", "GstTensorQueryServerSink",
  "GstTensorQueryServerSrc", "GstTensorRate", "GstTensorRepoSink",
  "GstTensorRepoSrc", "GstTensorSink", "GstTensorSinkGRPC",
  "GstTensorSparseDec", "GstTensorSparseEnc", "GstTensorSplit",
  "GstTensorSrcGRPC", "GstTensorSrcIIO", "GstTensorSrcTIZENSENSOR",
  "GstTensorTrainer", "GstTensorTransform", "GstTensor", "GstTensorMeta",
  "GstTensorDataType", "GstTensorDimOrder", "GstTensorLayout" };

static void
assert_type_is_ours (GType t, const gchar *factory)
{
  const gchar *name = g_type_name (t);

  for (guint i = 0; i < G_N_ELEMENTS (foreign_types); i++)
    fail_if (g_str_equal (name, foreign_types[i]),
        "%s: the GType %s is NNStreamer's or GStreamer's too", factory, name);
}

GST_START_TEST (test_type_names_are_ours)
{
  GList *feats
      = gst_registry_get_feature_list_by_plugin (gst_registry_get (), "tensor");
  guint seen = 0;

  for (GList *l = feats; l; l = l->next) {
    GstElementFactory *f;
    GstElement *e;
    GParamSpec **ps;
    guint n;

    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    f = GST_ELEMENT_FACTORY (l->data);
    e = gst_element_factory_create (f, NULL);
    for (GType t = G_OBJECT_TYPE (e); t != GST_TYPE_ELEMENT;
         t = g_type_parent (t))
      assert_type_is_ours (t, GST_OBJECT_NAME (f));
    ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (guint i = 0; i < n; i++)
      if (G_TYPE_IS_ENUM (ps[i]->value_type)
          || G_TYPE_IS_FLAGS (ps[i]->value_type))
        assert_type_is_ours (ps[i]->value_type, GST_OBJECT_NAME (f));
    g_free (ps);
    gst_object_unref (e);
    seen++;
  }
  gst_plugin_feature_list_free (feats);
  fail_unless (seen >= 9, "only %u elements", seen);
}

GST_END_TEST;

static Suite *
tensorop_suite (void)
{
  Suite *s = suite_create ("tensorop");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_bad_property_values);
  tcase_add_test (tc, test_conflict);
  tcase_add_test (tc, test_n_threads_everywhere);
  tcase_add_test (tc, test_inspect_text_everywhere);
  tcase_add_test (tc, test_bad_value_while_running);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_copy_when_shared);
  tcase_add_test (tc, test_normalise_uint8);
  tcase_add_test (tc, test_tee);
  tcase_add_test (tc, test_threads_bit_identical);
  tcase_add_test (tc, test_broadcast_operands);
  tcase_add_test (tc, test_strided_input);
  tcase_add_test (tc, test_propose_allocation);
  tcase_add_test (tc, test_size_mismatch);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_pipeline_refused_type);
  tcase_add_test (tc, test_downstream_refuses_output);
  tcase_add_test (tc, test_negotiate_both_ways);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_zero_size_and_rank0);
  tcase_add_test (tc, test_shorthand);
  tcase_add_test (tc, test_golden_rows);
  tcase_add_test (tc, test_change_while_playing);
  tcase_add_test (tc, test_type_names_are_ours);
  return s;
}

GST_CHECK_MAIN (tensorop);
