/* npyenc, and npydec ! npyenc round trips, against the golden files written
 * by tests/data/gen/gen_npyelem.py: the .npy files numpy.save wrote are what
 * npyenc must produce byte for byte. */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include <gst/check/gstharness.h>

#include "common/tncheck.h"

static void
load_case (const gchar *name, const gchar *ext, guint8 **data, gsize *len)
{
  gchar *f = g_strdup_printf ("npyelem_%s.%s", name, ext);

  tn_load_data (f, data, len);
  g_free (f);
}

static gsize
npy_data_offset (const guint8 *npy)
{
  if (npy[6] == 1)
    return 10 + (npy[8] | (npy[9] << 8));
  return 12 + (npy[8] | (npy[9] << 8) | (npy[10] << 16) | (npy[11] << 24));
}

static GstHarness *
enc_new (const gchar *type, const gchar *dims, GstBus **bus)
{
  GstElement *e = gst_element_factory_make ("npyenc", NULL);
  GstHarness *h;
  gchar *caps;

  fail_unless (e != NULL);
  *bus = gst_bus_new ();
  gst_element_set_bus (e, *bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  caps = tn_tensor_caps (type, dims);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

static void
enc_free (GstHarness *h, GstBus *bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

static gchar *
pop_error (GstBus *bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  if (msg == NULL)
    return NULL;
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

static void
check_bytes (GstBuffer *buf, const guint8 *want, gsize len)
{
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), len);
  fail_unless (gst_buffer_memcmp (buf, 0, want, len) == 0,
      "bytes differ from the golden file");
}

/* Encodes the .raw bytes of a case and compares with the .npy numpy.save
 * wrote; the data must be the input memory itself, not a copy. */
static void
encode_case (const gchar *name, const gchar *type, const gchar *dims)
{
  guint8 *npy, *raw;
  gsize npy_len, raw_len, off;
  GstBuffer *in, *out;
  GstCaps *caps;
  GstBus *bus;
  GstHarness *h;

  load_case (name, "npy", &npy, &npy_len);
  load_case (name, "raw", &raw, &raw_len);
  off = npy_data_offset (npy);
  h = enc_new (type, dims, &bus);
  in = raw_len ? gst_buffer_new_memdup (raw, raw_len) : gst_buffer_new ();
  GST_BUFFER_PTS (in) = 7 * GST_SECOND;
  GST_BUFFER_DURATION (in) = GST_SECOND;
  GST_BUFFER_OFFSET (in) = 3;
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, npy_len);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 7 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), 3);
  if (raw_len > 0) {
    fail_unless_equals_int (gst_buffer_n_memory (out), 2);
    fail_unless (
        gst_buffer_peek_memory (out, 1) == gst_buffer_peek_memory (in, 0),
        "the data was copied");
    fail_unless_equals_uint64 (gst_buffer_peek_memory (out, 0)->size, off);
  }
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_has_name (
      gst_caps_get_structure (caps, 0), "application/x-npy"));
  gst_caps_unref (caps);
  fail_unless (pop_error (bus) == NULL);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  enc_free (h, bus);
  g_free (npy);
  g_free (raw);
}

GST_START_TEST (test_every_dtype)
{
  static const gchar *names[] = { "bool", "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "int64", "uint64", "float16", "float32", "float64" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    encode_case (names[i], names[i], "<2, 3, 4>");
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_rank0_and_empty)
{
  encode_case ("rank0", "float64", "<>");
  encode_case ("empty", "float32", "<0, 3>");
  encode_case ("empty2", "int16", "<2, 0, 5>");
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Several buffers in a row: each is a complete file on its own. */
GST_START_TEST (test_stream)
{
  guint8 *npy[4], *raw;
  gsize npy_len[4], raw_len;
  GstBus *bus;
  GstHarness *h = enc_new ("int32", "<2, 3>", &bus);
  GstBuffer *out[4];
  gint i;

  load_case ("split", "raw", &raw, &raw_len);
  for (i = 0; i < 4; i++) {
    gchar *n = g_strdup_printf ("split_%d", i);

    load_case (n, "npy", &npy[i], &npy_len[i]);
    g_free (n);
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_memdup (raw + 24 * i, 24)),
        GST_FLOW_OK);
  }
  for (i = 0; i < 4; i++) {
    out[i] = gst_harness_pull (h);
    check_bytes (out[i], npy[i], npy_len[i]);
    g_free (npy[i]);
  }
  /* The header is made once per caps, not once per buffer. */
  for (i = 1; i < 4; i++)
    fail_unless (gst_buffer_peek_memory (out[i], 0)
                 == gst_buffer_peek_memory (out[0], 0));
  for (i = 0; i < 4; i++)
    gst_buffer_unref (out[i]);
  enc_free (h, bus);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A column-major view (the Fortran file's data plus the layout meta) is
 * written as the C-order file numpy.save makes of the same values. */
GST_START_TEST (test_strided_input)
{
  static const gint64 strides[] = { 1, 2, 6 };
  guint8 *fnpy, *npy;
  gsize flen, len, off;
  GstBuffer *in, *out;
  GstQuery *q;
  GstCaps *caps;
  GstBus *bus;
  GstHarness *h = enc_new ("float32", "<2, 3, 4>", &bus);

  /* It reads strides, so it says so in the ALLOCATION query. */
  caps = gst_caps_from_string (
      "tensor/x-raw, type=(string)float32, "
      "dims=(int)<2, 3, 4>, dims-order=(string)row-major, "
      "framerate=(fraction)0/1");
  q = gst_query_new_allocation (caps, FALSE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (
      gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL));
  gst_query_unref (q);
  gst_caps_unref (caps);

  load_case ("fortran", "npy", &fnpy, &flen);
  load_case ("float32", "npy", &npy, &len);
  off = npy_data_offset (fnpy);
  in = gst_buffer_new_memdup (fnpy + off, flen - off);
  gst_tn_buffer_add_layout_meta (in, 3, 0, strides);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, len);
  gst_buffer_unref (out);

  /* The same view starting 2 items into a larger block. */
  in = gst_buffer_new_allocate (NULL, flen - off + 8, NULL);
  gst_buffer_memset (in, 0, 0xee, 8);
  gst_buffer_fill (in, 8, fnpy + off, flen - off);
  gst_tn_buffer_add_layout_meta (in, 3, 2, strides);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, len);
  gst_buffer_unref (out);

  fail_unless (pop_error (bus) == NULL);
  enc_free (h, bus);
  g_free (fnpy);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* NumPy has no bfloat16: the file is float32 with the widened values. */
GST_START_TEST (test_bfloat16)
{
  guint8 *npy, *raw;
  gsize npy_len, raw_len, off;
  GstBuffer *out;
  GstBus *bus;
  GstHarness *h = enc_new ("bfloat16", "<2, 5>", &bus);
  gfloat f[10];
  gint i;

  load_case ("bf16", "raw", &raw, &raw_len);
  tn_load_data ("npyelem_bf16_as_f32.npy", &npy, &npy_len);
  fail_unless_equals_uint64 (raw_len, 20);
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_memdup (raw, raw_len)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, npy_len);

  /* And by hand: the bits of a bfloat16 are the top half of the float. */
  off = npy_data_offset (npy);
  gst_buffer_extract (out, off, f, sizeof f);
  for (i = 0; i < 10; i++) {
    guint32 bits;

    memcpy (&bits, &f[i], 4);
    fail_unless_equals_int (bits & 0xffff, 0);
    fail_unless_equals_int (bits >> 16, raw[2 * i] | (raw[2 * i + 1] << 8));
  }
  fail_unless_equals_float (f[0], 1.5);
  fail_unless_equals_float (f[1], -2.0);
  fail_unless_equals_float (f[2], 0.15625);
  fail_unless_equals_float (f[3], 65280.0);
  fail_unless (isinf (f[7]) && f[7] > 0);
  fail_unless (memmem (npy, off, "'<f4'", 5) != NULL);

  gst_buffer_unref (out);
  enc_free (h, bus);
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_size_mismatch)
{
  GstBus *bus;
  GstHarness *h = enc_new ("float32", "<2, 3>", &bus);
  gchar *text;

  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 20, NULL)),
      GST_FLOW_ERROR);
  text = pop_error (bus);
  tn_assert_contains (text, "20 bytes");
  tn_assert_contains (text, "float32 <2, 3>");
  tn_assert_contains (text, "need 24");
  g_free (text);

  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 28, NULL)),
      GST_FLOW_ERROR);
  text = pop_error (bus);
  tn_assert_contains (text, "28 bytes");
  tn_assert_contains (text, "need 24");
  g_free (text);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  enc_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A strided view that reaches past its buffer is refused with numbers,
 * not read out of bounds. */
GST_START_TEST (test_strided_out_of_bounds)
{
  static const gint64 strides[] = { 1, 2, 6 };
  GstBus *bus;
  GstHarness *h = enc_new ("float32", "<2, 3, 4>", &bus);
  GstBuffer *in = gst_buffer_new_allocate (NULL, 80, NULL);
  gchar *text;

  gst_buffer_memset (in, 0, 0, 80);
  gst_tn_buffer_add_layout_meta (in, 3, 0, strides);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  text = pop_error (bus);
  fail_unless (text != NULL);
  fail_unless (strstr (text, "80") != NULL, "%s", text);
  g_free (text);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  enc_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_bad_caps)
{
  GstElement *e = gst_element_factory_make ("npyenc", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstCaps *caps;
  GstSegment seg;
  gchar *text;

  gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("s")));
  caps = gst_caps_from_string (
      "tensor/x-raw, type=(string)float32, "
      "dims=(int)<2, -3>, dims-order=(string)row-major, "
      "framerate=(fraction)0/1");
  /* A sticky event is stored whatever the peer said: the refusal shows on
   * the next buffer. */
  gst_harness_push_event (h, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 24, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  text = pop_error (bus);
  tn_assert_contains (text, "-3");
  g_free (text);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  enc_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps whose tensor cannot be an npy file: refused at negotiation, with
 * the dims in the message. */
static void
huge_caps_case (const gchar *type, const gchar *dims, const gchar *want)
{
  GstElement *e = gst_element_factory_make ("npyenc", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstCaps *caps;
  GstSegment seg;
  gchar *text, *str = tn_tensor_caps (type, dims);

  gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("s")));
  caps = gst_caps_from_string (str);
  g_free (str);
  gst_harness_push_event (h, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 24, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  text = pop_error (bus);
  tn_assert_contains (text, "2147483647");
  tn_assert_contains (text, want);
  g_free (text);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  enc_free (h, bus);
}

GST_START_TEST (test_huge_caps)
{
  /* Too many bytes to address: the caps parser says so. */
  huge_caps_case ("float64", "<2147483647, 2147483647, 1>", "float64");
  /* Addressable (under 2^64 bytes) but over NumPy's 2^63. */
  huge_caps_case ("int16", "<2147483647, 2147483647, 2>", "2^63");
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_no_caps)
{
  GstElement *e = gst_element_factory_make ("npyenc", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstSegment seg;
  gchar *text;

  gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("s")));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 24, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  text = pop_error (bus);
  tn_assert_contains (text, "buffer of 24 bytes before any caps");
  g_free (text);
  enc_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* enc(dec(file)) == file for files numpy.save wrote; for the others,
 * dec(enc(dec(file))) == dec(file). */
static void
roundtrip_case (const gchar *name, gboolean same_file)
{
  GstHarness *h = gst_harness_new_parse (
      same_file ? "npydec ! npyenc" : "npydec ! npyenc ! npydec");
  guint8 *npy, *raw;
  gsize npy_len, raw_len;
  GstBuffer *out;

  load_case (name, "npy", &npy, &npy_len);
  load_case (name, "raw", &raw, &raw_len);
  gst_harness_set_src_caps_str (h, "application/x-npy");
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_memdup (npy, npy_len)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_pull (h);
  if (same_file)
    check_bytes (out, npy, npy_len);
  else
    check_bytes (out, raw, raw_len);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (npy);
  g_free (raw);
}

GST_START_TEST (test_roundtrip)
{
  static const gchar *same[] = { "bool", "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
    "rank0", "empty", "empty2", "split" };
  static const gchar *other[]
      = { "v2", "v3", "be_int16", "be_float64", "fortran", "fortran_be" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (same); i++)
    roundtrip_case (same[i], TRUE);
  for (i = 0; i < G_N_ELEMENTS (other); i++)
    roundtrip_case (other[i], FALSE);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gboolean
file_equals (const gchar *path, const guint8 *want, gsize len)
{
  gchar *got;
  gsize got_len;
  gboolean eq;

  if (!g_file_get_contents (path, &got, &got_len, NULL))
    return FALSE;
  eq = got_len == len && memcmp (got, want, len) == 0;
  g_free (got);
  return eq;
}

/* Runs a launch line to EOS or error; returns the error text or NULL. */
static gchar *
run_pipeline (const gchar *launch, GstCaps **found)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (launch, &err);
  GstElement *tf;
  GstBus *bus;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (p != NULL, "%s: %s", launch, err ? err->message : "?");
  bus = gst_element_get_bus (p);
  fail_unless_equals_int (
      gst_element_set_state (p, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  msg = gst_bus_timed_pop_filtered (
      bus, 30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s did not finish", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  tf = gst_bin_get_by_name (GST_BIN (p), "tf");
  if (tf && found)
    g_object_get (tf, "caps", found, NULL);
  if (tf)
    gst_object_unref (tf);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

/* filesrc ! typefind ! npydec ! npyenc ! filesink copies the file exactly,
 * and typefind picked application/x-npy on its own. */
GST_START_TEST (test_pipeline_file_copy)
{
  static const gchar *names[] = { "float32", "uint8", "rank0", "empty" };
  gchar *dir = g_dir_make_tmp ("npyenc-XXXXXX", NULL);
  guint i;

  fail_unless (dir != NULL);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *f = g_strdup_printf ("npyelem_%s.npy", names[i]);
    gchar *in = tn_test_data (f);
    gchar *out = g_build_filename (dir, f, NULL);
    gchar *launch = g_strdup_printf (
        "filesrc location=\"%s\" ! typefind "
        "name=tf ! npydec ! npyenc ! filesink location=\"%s\"",
        in, out);
    GstCaps *found = NULL;
    guint8 *npy;
    gsize len;
    gchar *text;

    text = run_pipeline (launch, &found);
    fail_unless (text == NULL, "%s: %s", launch, text);
    fail_unless (found != NULL);
    fail_unless (gst_structure_has_name (
        gst_caps_get_structure (found, 0), "application/x-npy"));
    gst_caps_unref (found);
    tn_load_data (f, &npy, &len);
    fail_unless (file_equals (out, npy, len), "%s differs from %s", out, in);
    g_unlink (out);
    g_free (npy);
    g_free (launch);
    g_free (out);
    g_free (in);
    g_free (f);
  }
  g_rmdir (dir);
  g_free (dir);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* npydec split=true ! npyenc ! multifilesink: one file per sub-tensor,
 * each what numpy.save writes for it. */
GST_START_TEST (test_pipeline_multifile)
{
  gchar *dir = g_dir_make_tmp ("npyenc-XXXXXX", NULL);
  gchar *in = tn_test_data ("npyelem_split.npy");
  gchar *launch
      = g_strdup_printf ("filesrc location=\"%s\" blocksize=5 ! "
                         "npydec split=true framerate=2/1 ! npyenc ! "
                         "multifilesink location=\"%s/out-%%05d.npy\"",
          in, dir);
  gchar *text = run_pipeline (launch, NULL);
  gint i;

  fail_unless (text == NULL, "%s", text);
  for (i = 0; i < 5; i++) {
    gchar *out = g_strdup_printf ("%s/out-%05d.npy", dir, i);

    if (i < 4) {
      gchar *f = g_strdup_printf ("npyelem_split_%d.npy", i);
      guint8 *npy;
      gsize len;

      tn_load_data (f, &npy, &len);
      fail_unless (file_equals (out, npy, len), "%s differs", out);
      g_free (npy);
      g_free (f);
      g_unlink (out);
    } else {
      fail_if (g_file_test (out, G_FILE_TEST_EXISTS), "a fifth file");
    }
    g_free (out);
  }
  g_rmdir (dir);
  g_free (dir);
  g_free (launch);
  g_free (in);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A truncated file through a real pipeline: the error reaches the
 * application with the numbers. */
GST_START_TEST (test_pipeline_truncated)
{
  gchar *dir = g_dir_make_tmp ("npyenc-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "cut.npy", NULL);
  gchar *launch, *text;
  guint8 *npy;
  gsize len;

  tn_load_data ("npyelem_float64.npy", &npy, &len);
  fail_unless (g_file_set_contents (path, (gchar *) npy, len - 16, NULL));
  launch = g_strdup_printf ("filesrc location=\"%s\" ! typefind ! npydec ! "
                            "npyenc ! fakesink",
      path);
  text = run_pipeline (launch, NULL);
  tn_assert_contains (text, "npy data ends after 176 of 192 bytes");
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (launch);
  g_free (path);
  g_free (dir);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A writable input and one in read-only memory both end up in the file
 * as they are: npyenc never writes its input, so neither is copied. */
GST_START_TEST (test_writable_and_readonly)
{
  guint8 *npy, *raw;
  gsize npy_len, raw_len;
  GstBuffer *in, *out;
  GstMemory *mem;
  GstBus *bus;
  GstHarness *h = enc_new ("int16", "<2, 3, 4>", &bus);

  load_case ("int16", "npy", &npy, &npy_len);
  load_case ("int16", "raw", &raw, &raw_len);

  in = gst_buffer_new_memdup (raw, raw_len);
  fail_unless (gst_buffer_is_writable (in));
  mem = gst_buffer_peek_memory (in, 0);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, npy_len);
  fail_unless (gst_buffer_peek_memory (out, 1) == mem, "the data was copied");
  gst_buffer_unref (out);

  in = gst_buffer_new_wrapped_full (
      GST_MEMORY_FLAG_READONLY, raw, raw_len, 0, raw_len, NULL, NULL);
  mem = gst_buffer_peek_memory (in, 0);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, npy, npy_len);
  fail_unless (gst_buffer_peek_memory (out, 1) == mem, "the data was copied");
  gst_buffer_unref (out);
  fail_unless (pop_error (bus) == NULL);
  enc_free (h, bus);
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps fixed by a source from partial caps (dtype and dims given, the
 * rest fixated) make the file NumPy would write for arange(3, int16):
 * the header dict padded with spaces to 128 bytes, then the items. */
GST_START_TEST (test_negotiate_partial)
{
  const gchar *dict
      = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }";
  const guint8 items[] = { 0, 0, 1, 0, 2, 0 };
  GstHarness *h = gst_harness_new ("npyenc");
  guint8 want[128 + 6];
  GstBuffer *out;
  GstCaps *caps;

  memcpy (want, "\x93NUMPY\x01\x00\x76\x00", 10);
  memset (want + 10, ' ', 117);
  memcpy (want + 10, dict, strlen (dict));
  want[127] = '\n';
  memcpy (want + 128, items, 6);

  gst_harness_add_src_parse (h,
      "tensorsrc pattern=arange num-buffers=1 "
      "! capsfilter caps=\"tensor/x-raw,type=int16,dims=<3>\"",
      FALSE);
  gst_harness_play (h);
  fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_bytes (out, want, sizeof want);
  gst_buffer_unref (out);
  caps = gst_pad_get_current_caps (h->srcpad);
  fail_unless (caps != NULL);
  fail_unless_equals_string (
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "type"),
      "int16");
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The one thing npyenc allocates, the widened copy of a bfloat16 tensor,
 * comes back from the allocator's cache: once the stream runs, the same
 * block each time and no new system allocation. */
GST_START_TEST (test_bfloat16_steady_state)
{
  const guint16 bf[4] = { 0x3fc0, 0xc000, 0x0000, 0x7f80 };
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstTnAllocatorStats st;
  GstBus *bus;
  GstHarness *h = enc_new ("bfloat16", "<4>", &bus);
  gpointer first = NULL;
  guint64 misses = 0;
  gint i;

  for (i = 0; i < 20; i++) {
    GstBuffer *out;
    GstMapInfo map;
    gfloat f[4];

    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_memdup (bf, sizeof bf)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless_equals_int (gst_buffer_n_memory (out), 2);
    fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (out, 1)));
    gst_memory_map (gst_buffer_peek_memory (out, 1), &map, GST_MAP_READ);
    fail_unless_equals_uint64 (map.size, 16);
    memcpy (f, map.data, sizeof f);
    if (i == 1)
      first = map.data;
    else if (i > 1)
      fail_unless (map.data == first, "buffer %d has other memory", i);
    gst_memory_unmap (gst_buffer_peek_memory (out, 1), &map);
    fail_unless_equals_float (f[0], 1.5);
    fail_unless_equals_float (f[1], -2.0);
    fail_unless_equals_float (f[2], 0.0);
    fail_unless (isinf (f[3]) && f[3] > 0);
    gst_buffer_unref (out);
    gst_tn_allocator_get_stats (alloc, &st);
    if (i == 1)
      misses = st.misses;
  }
  fail_unless_equals_uint64 (st.misses, misses);
  fail_unless (pop_error (bus) == NULL);
  enc_free (h, bus);
  gst_object_unref (alloc);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Hand-written caps with only type and dims, as most users write them,
 * from appsrc: before, a bare not-negotiated. */
GST_START_TEST (test_minimal_caps)
{
  GstElement *p
      = gst_parse_launch ("appsrc name=src format=time "
                          "caps=\"tensor/x-raw,type=float32,dims=<3,4>\" "
                          "! npyenc ! appsink name=sink sync=false",
          NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstSample *sample = NULL;
  GstFlowReturn ret;
  GstBuffer *in;
  gfloat items[12];
  guint8 *npy;
  gsize len;
  gint i;

  tn_load_data ("npydec_enc_minimal.npy", &npy, &len);
  for (i = 0; i < 12; i++)
    items[i] = i * 0.5f - 2;
  in = gst_buffer_new_memdup (items, sizeof items);
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_signal_emit_by_name (src, "push-buffer", in, &ret);
  gst_buffer_unref (in);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  g_signal_emit_by_name (sink, "pull-sample", &sample);
  fail_unless (sample != NULL, "no file came out");
  check_bytes (gst_sample_get_buffer (sample), npy, len);
  gst_sample_unref (sample);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The example launch lines of the SECTION block in elements/<file>, as a
 * shell would see them: " * " dropped, backslash-newlines joined. */

/* Runs one documented gst-launch-1.0 command in the current directory,
 * through gst_parse_launchv as gst-launch does with its arguments. */
static void
doc_run (const gchar *cmd)
{
  gchar **argv = NULL;
  GError *err = NULL;
  GstElement *p;

  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, &err), "%s: %s", cmd,
      err ? err->message : "?");
  fail_unless_equals_string (argv[0], "gst-launch-1.0");
  p = gst_parse_launchv ((const gchar **) argv + 1, &err);
  fail_unless (p != NULL, "%s: %s", cmd, err ? err->message : "?");
  tn_play_to_eos (p, cmd, 60);
  g_strfreev (argv);
}

static void
assert_file_is (const gchar *path, const gchar *golden)
{
  guint8 *want;
  gsize want_len;

  tn_load_data (golden, &want, &want_len);
  fail_unless (
      file_equals (path, want, want_len), "%s differs from %s", path, golden);
  g_free (want);
}

/* Every example launch line of npyenc's SECTION block, run as printed in
 * a fresh directory, in order; each file is what numpy.save writes for
 * the values the line's prose names. */
GST_START_TEST (test_doc_launch_lines)
{
  gchar **cmds = tn_doc_commands ("npyenc.c");
  gchar *dir = g_dir_make_tmp ("npyenc-doc-XXXXXX", NULL);
  gchar *cwd = g_get_current_dir ();
  gint i;

  fail_unless_equals_int (g_strv_length (cmds), 5);
  fail_unless (g_chdir (dir) == 0);

  doc_run (cmds[0]);
  for (i = 0; i < 3; i++) {
    gchar *f = g_strdup_printf ("out-%05d.npy", i);

    assert_file_is (f, "npydec_doc_a.npy");
    g_free (f);
  }
  fail_if (g_file_test ("out-00003.npy", G_FILE_TEST_EXISTS));

  doc_run (cmds[1]);
  assert_file_is ("bf16.npy", "npydec_doc_enc_bf16.npy");

  doc_run (cmds[2]);
  assert_file_is ("frames.npy", "npydec_doc_frames.npy");
  doc_run (cmds[3]);
  for (i = 0; i < 4; i++) {
    gchar *f = g_strdup_printf ("frame-%05d.npy", i);
    gchar *g = g_strdup_printf ("npydec_doc_frame_%d.npy", i);

    assert_file_is (f, g);
    g_free (g);
    g_free (f);
  }
  fail_if (g_file_test ("frame-00004.npy", G_FILE_TEST_EXISTS));

  /* stack=true: dims <5, 2, 3>, 0..5 five times over */
  doc_run (cmds[4]);
  {
    gchar *path = g_build_filename (dir, "stack.npy", NULL);
    Npy a;

    npy_read (&a, path);
    fail_unless_equals_string (a.descr, "<f4");
    fail_unless_equals_int (a.rank, 3);
    fail_unless_equals_int64 (a.dims[0], 5);
    fail_unless_equals_int64 (a.dims[1], 2);
    fail_unless_equals_int64 (a.dims[2], 3);
    for (i = 0; i < 30; i++)
      fail_unless_equals_float (((const float *) a.data)[i], (float) (i % 6));
    npy_clear (&a);
    g_free (path);
  }

  tn_tmp_dir_leave (dir, cwd);
  g_strfreev (cmds);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A source that sends refused caps again before each buffer it tries
 * gets one error for them, not one per try; the element is named. */
GST_START_TEST (test_refusal_once)
{
  GstElement *e = gst_element_factory_make ("npyenc", "enc7");
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstCaps *caps;
  GstSegment seg;
  gchar *text;
  gint i;

  gst_element_set_bus (e, bus);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("s")));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  for (i = 0; i < 3; i++) {
    gchar *str = tn_tensor_caps ("int16", "<2147483647, 2147483647, 2>");

    caps = gst_caps_from_string (str);
    g_free (str);
    gst_harness_push_event (h, gst_event_new_caps (caps));
    gst_caps_unref (caps);
    gst_harness_push_event (h, gst_event_new_segment (&seg));
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_allocate (NULL, 24, NULL)),
        GST_FLOW_NOT_NEGOTIATED);
  }
  text = pop_error (bus);
  tn_assert_contains (text, "enc7: cannot write an npy header for int16 "
                            "<2147483647, 2147483647, 2>");
  g_free (text);
  text = pop_error (bus);
  fail_unless (text == NULL, "a second error: %s", text);
  enc_free (h, bus);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* stack=true: three files of float32 <2, 3> (tests/data/gen/gen_compare.py,
 * 10 k + arange(6)) become one file, byte for byte what numpy.save of
 * np.stack of them wrote (seq_stack.npy); a sink that cannot seek is an
 * error that says so. */
GST_START_TEST (test_stack)
{
  gchar *dir = g_dir_make_tmp ("npyenc-XXXXXX", NULL);
  gchar *pattern = tn_test_data ("../compare/seq_%05d.npy");
  gchar *out = g_build_filename (dir, "stack.npy", NULL);
  gchar *launch, *text;
  guint8 *npy;
  gsize len;

  fail_unless (dir != NULL);
  launch = g_strdup_printf ("multifilesrc location=\"%s\" stop-index=2 "
                            "caps=application/x-npy ! npydec ! npyenc "
                            "stack=true ! filesink location=\"%s\"",
      pattern, out);
  text = run_pipeline (launch, NULL);
  fail_unless (text == NULL, "%s: %s", launch, text);
  tn_load_data ("../compare/seq_stack.npy", &npy, &len);
  fail_unless (file_equals (out, npy, len), "%s differs from NumPy's", out);
  g_free (npy);
  g_free (launch);

  launch = g_strdup_printf ("multifilesrc location=\"%s\" stop-index=2 "
                            "caps=application/x-npy ! npydec ! npyenc "
                            "name=enc stack=true ! fakesink name=sink",
      pattern);
  text = run_pipeline (launch, NULL);
  tn_assert_contains (text, "enc: stack=true");
  tn_assert_contains (text, "downstream (sink) cannot seek");
  tn_assert_contains (text, "cannot seek");
  g_free (text);
  g_free (launch);

  g_unlink (out);
  g_rmdir (dir);
  g_free (out);
  g_free (pattern);
  g_free (dir);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* stack=true of empty tensors: float32 <0, 5> twice is the header alone,
 * what numpy.save of np.zeros ((2, 0, 5), np.float32) writes (the count
 * kept room for was once too large for a header, and the stack an
 * error about the rank). */
GST_START_TEST (test_stack_empty)
{
  const gchar *dict = "{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (2, 0, 5), }";
  gchar *dir = g_dir_make_tmp ("npyenc-XXXXXX", NULL);
  gchar *out = g_build_filename (dir, "empty.npy", NULL);
  gchar *launch, *text;
  guint8 want[128];

  fail_unless (dir != NULL);
  memcpy (want, "\x93NUMPY\x01\x00\x76\x00", 10);
  memset (want + 10, ' ', sizeof want - 10);
  memcpy (want + 10, dict, strlen (dict));
  want[sizeof want - 1] = '\n';
  launch = g_strdup_printf ("tensorsrc num-buffers=2 "
                            "! tensor/x-raw,type=float32,dims=<0,5> "
                            "! npyenc stack=true ! filesink location=\"%s\"",
      out);
  text = run_pipeline (launch, NULL);
  fail_unless (text == NULL, "%s: %s", launch, text);
  fail_unless (
      file_equals (out, want, sizeof want), "%s differs from NumPy's", out);
  g_free (launch);

  g_unlink (out);
  g_rmdir (dir);
  g_free (out);
  g_free (dir);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
npyenc_suite (void)
{
  Suite *s = suite_create ("npyenc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_dtype);
  tcase_add_test (tc, test_rank0_and_empty);
  tcase_add_test (tc, test_stream);
  tcase_add_test (tc, test_strided_input);
  tcase_add_test (tc, test_bfloat16);
  tcase_add_test (tc, test_size_mismatch);
  tcase_add_test (tc, test_strided_out_of_bounds);
  tcase_add_test (tc, test_bad_caps);
  tcase_add_test (tc, test_huge_caps);
  tcase_add_test (tc, test_no_caps);
  tcase_add_test (tc, test_roundtrip);
  tcase_add_test (tc, test_pipeline_file_copy);
  tcase_add_test (tc, test_pipeline_multifile);
  tcase_add_test (tc, test_pipeline_truncated);
  tcase_add_test (tc, test_writable_and_readonly);
  tcase_add_test (tc, test_negotiate_partial);
  tcase_add_test (tc, test_bfloat16_steady_state);
  tcase_add_test (tc, test_minimal_caps);
  tcase_add_test (tc, test_doc_launch_lines);
  tcase_add_test (tc, test_refusal_once);
  tcase_add_test (tc, test_stack);
  tcase_add_test (tc, test_stack_empty);
  return s;
}

GST_CHECK_MAIN (npyenc);
