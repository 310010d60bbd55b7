/* tensorsrc: negotiation, content against hand values and statistics,
 * determinism across runs and seeks, timestamps, pooled memory, property
 * checks. */
#include <math.h>
#include <string.h>

#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>

#include "common/tncheck.h"
#include "core/random.h"

/* Proposes a pool of min to max buffers (user_data is min << 16 | max) in
 * every ALLOCATION query.  With min = max the source blocks until the test
 * releases a buffer instead of running ahead: what a real sink with a
 * bounded queue does. */
#define POOL_COUNTS(min, max) GUINT_TO_POINTER ((min) << 16 | (max))

static GstPadProbeReturn
bound_pool_probe (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  guint counts = GPOINTER_TO_UINT (user_data);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION)
    gst_query_add_allocation_pool (q, NULL, 0, counts >> 16, counts & 0xffff);
  return GST_PAD_PROBE_OK;
}

/* "tensorsrc <props> ! capsfilter caps=<caps>" (no capsfilter when caps is
 * NULL), playing; max > 0 bounds the pool. */
static GstHarness *
start (const gchar *props, const gchar *caps, guint max)
{
  gchar *line = caps ? g_strdup_printf (
                    "tensorsrc %s ! capsfilter caps=\"%s\"", props, caps)
                     : g_strdup_printf ("tensorsrc %s", props);
  GstHarness *h = gst_harness_new_parse (line);

  g_free (line);
  if (max > 0)
    gst_pad_add_probe (h->sinkpad,
        GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH,
        bound_pool_probe, POOL_COUNTS (max, max), NULL);
  gst_harness_play (h);
  return h;
}

/* The one source in the harness's bin. */
static GstElement *
harness_src (GstHarness *h)
{
  GstIterator *it = gst_bin_iterate_sources (GST_BIN (h->element));
  GValue v = G_VALUE_INIT;
  GstElement *src;

  fail_unless (gst_iterator_next (it, &v) == GST_ITERATOR_OK);
  src = g_value_dup_object (&v);
  g_value_unset (&v);
  gst_iterator_free (it);
  return src;
}

/* The bytes of buffer index of a fresh run, as a GBytes. */
static GBytes *
run_bytes (const gchar *props, const gchar *caps, guint index)
{
  gchar *p = g_strdup_printf ("num-buffers=%u %s", index + 1, props);
  GstHarness *h = start (p, caps, 0);
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GBytes *bytes;

  for (guint i = 0; i <= index; i++) {
    if (buf)
      gst_buffer_unref (buf);
    buf = gst_harness_pull (h);
    fail_unless (buf != NULL);
  }
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), index);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  bytes = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (p);
  return bytes;
}

static void
check_current_caps (GstHarness *h, const gchar *want)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstCaps *expect = gst_caps_from_string (want);

  fail_unless (caps != NULL);
  if (!gst_caps_is_equal (caps, expect))
    fail ("negotiated %" GST_PTR_FORMAT ", expected %" GST_PTR_FORMAT, caps,
        expect);
  gst_caps_unref (caps);
  gst_caps_unref (expect);
}

GST_START_TEST (test_negotiate_full)
{
  GstHarness *h = start (
      "num-buffers=1", "tensor/x-raw,type=int16,dims=<2,3>,framerate=25/2", 0);
  GstBuffer *buf = gst_harness_pull (h);

  check_current_caps (h, "tensor/x-raw, type=(string)int16, "
                         "dims=(int)<2, 3>, dims-order=(string)row-major, "
                         "framerate=(fraction)25/2");
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 12);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_negotiate_partial)
{
  GstHarness *h = start ("num-buffers=1", "tensor/x-raw,type=uint8", 0);
  GstBuffer *buf = gst_harness_pull (h);

  check_current_caps (h, "tensor/x-raw, type=(string)uint8, dims=(int)<1>, "
                         "dims-order=(string)row-major, "
                         "framerate=(fraction)30/1");
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 1);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);

  /* A framerate range fixates to the rate nearest 30/1. */
  h = start ("num-buffers=1",
      "tensor/x-raw,type=float64,dims=<4>,framerate=[10/1,20/1]", 0);
  buf = gst_harness_pull (h);
  check_current_caps (h, "tensor/x-raw, type=(string)float64, dims=(int)<4>, "
                         "dims-order=(string)row-major, "
                         "framerate=(fraction)20/1");
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 32);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_negotiate_none)
{
  GstHarness *h = start ("num-buffers=1", NULL, 0);
  GstBuffer *buf = gst_harness_pull (h);
  GstMapInfo map;

  check_current_caps (h, "tensor/x-raw, type=(string)float32, dims=(int)<1>, "
                         "dims-order=(string)row-major, "
                         "framerate=(fraction)30/1");
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 4);
  fail_unless_equals_float (((gfloat *) map.data)[0], 0.0f);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Plays tensorsrc ! capsfilter ! fakesink with caps set on the capsfilter
 * after linking (gst_element_link would refuse them), and expects an error
 * from tensorsrc in domain/code whose message holds every word. */
static void
expect_error_full (const gchar *caps_str, gpointer pool_counts, GQuark domain,
    gint code, const gchar *const *words)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("tensorsrc", NULL);
  GstElement *cf = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (caps != NULL, "caps '%s' do not parse", caps_str);
  g_object_set (src, "num-buffers", 2, NULL);
  gst_bin_add_many (GST_BIN (pipe), src, cf, sink, NULL);
  fail_unless (gst_element_link_many (src, cf, sink, NULL));
  if (pool_counts) {
    GstPad *pad = gst_element_get_static_pad (sink, "sink");

    gst_pad_add_probe (pad,
        GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH,
        bound_pool_probe, pool_counts, NULL);
    gst_object_unref (pad);
  }
  g_object_set (cf, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no error for caps %s", caps_str);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "caps %s gave EOS, not an error", caps_str);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (src));
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (g_error_matches (err, domain, code), "%s: error %s %d: %s",
      caps_str, g_quark_to_string (err->domain), err->code, err->message);
  for (; *words; words++)
    fail_unless (strstr (err->message, *words) != NULL,
        "message \"%s\" lacks \"%s\"", err->message, *words);
  fail_unless (g_str_has_suffix (err->message, "."),
      "message \"%s\" is not a sentence", err->message);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

static void
expect_negotiation_error (
    const gchar *caps_str, GQuark domain, gint code, const gchar *const *words)
{
  expect_error_full (caps_str, NULL, domain, code, words);
}

#define WORDS(...) ((const gchar *const[]){ __VA_ARGS__, NULL })

GST_START_TEST (test_negotiate_impossible)
{
  expect_negotiation_error ("tensor/x-raw,type=float33", GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, WORDS ("type", "float33", "float32"));
  expect_negotiation_error ("tensor/x-raw,type=int8,framerate=-1/1",
      GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      WORDS ("framerate", "-1/1", "0/1"));
  expect_negotiation_error ("tensor/x-raw,dims-order=col-major", GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, WORDS ("dims-order", "col-major"));
  expect_negotiation_error (
      "EMPTY", GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, WORDS ("no caps"));
  expect_negotiation_error ("video/x-raw,format=RGB", GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, WORDS ("video/x-raw", "tensor/x-raw"));
  expect_negotiation_error ("tensor/x-raw,dims=<3,-1>", GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, WORDS ("dims", "-1"));
  expect_negotiation_error ("tensor/x-raw,dims=<1,1,1,1,1,1,1,1,1>",
      GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, WORDS ("9", "8"));
  /* Bigger than a pool buffer can be: refused before any allocation. */
  expect_negotiation_error ("tensor/x-raw,type=float32,dims=<2000000000>",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      WORDS ("8000000000 bytes", "4294967295"));
  /* Downstream asks for at least 5 buffers but at most 1. */
  expect_error_full ("tensor/x-raw,type=int16,dims=<3>", POOL_COUNTS (5, 1),
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      WORDS ("6-byte", "5", "1"));
  /* Items overflow 64 bits; items fit but bytes overflow. */
  expect_negotiation_error ("tensor/x-raw,type=float64,"
                            "dims=<2147483647,2147483647,2147483647>",
      GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      WORDS ("2147483647", "overflows"));
  expect_negotiation_error ("tensor/x-raw,type=float64,"
                            "dims=<2147483647,2147483647,2>",
      GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      WORDS ("<2147483647, 2147483647, 2>", "float64", "8 bytes"));
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Buffer 0 of "<props>" with caps "tensor/x-raw,type=<type>,dims=<n>". */
static GBytes *
first (const gchar *props, const gchar *type, guint n)
{
  gchar *caps = g_strdup_printf ("tensor/x-raw,type=%s,dims=<%u>", type, n);
  GBytes *b = run_bytes (props, caps, 0);
  tn_dtype dt;

  fail_unless (tn_dtype_from_name (type, &dt, NULL) == 0);
  fail_unless_equals_uint64 (g_bytes_get_size (b), n * tn_dtype_size (dt));
  g_free (caps);
  return b;
}

/* Every item of b equals the bytes of want (itemsize bytes).  Loops over
 * items assert once at the end: each check assertion is a syscall in a
 * forked test. */
static void
check_all (GBytes *b, const void *want, gsize itemsize, const gchar *what)
{
  gsize size, off = 0;
  const guint8 *p = g_bytes_get_data (b, &size);

  while (off < size && memcmp (p + off, want, itemsize) == 0)
    off += itemsize;
  fail_unless (off == size, "%s: item %" G_GSIZE_FORMAT " differs", what,
      off / itemsize);
  g_bytes_unref (b);
}

GST_START_TEST (test_constant)
{
  const gfloat f0 = 0, f1 = 1, fm = -1.5f;
  const gdouble d1 = 1;
  const gint64 l0 = 0;
  const guint16 h0 = 0, h1 = 0x3c00, bf1 = 0x3f80, h01 = 0x2e66;
  const guint16 hinf = 0x7c00;
  const gint16 s_m1 = -1;
  const guint8 u255 = 255, one = 1;
  const gint8 s_m128 = -128;
  const gint32 i7 = 7;
  const guint32 umax = G_MAXUINT32;

  check_all (first ("", "float32", 5), &f0, 4, "zeros float32");
  check_all (first ("pattern=zeros", "int64", 3), &l0, 8, "zeros int64");
  check_all (first ("pattern=zeros", "float16", 7), &h0, 2, "zeros f16");
  check_all (first ("pattern=ones", "float32", 5), &f1, 4, "ones float32");
  check_all (first ("pattern=ones", "float64", 3), &d1, 8, "ones float64");
  check_all (first ("pattern=ones", "float16", 9), &h1, 2, "ones float16");
  check_all (first ("pattern=ones", "bfloat16", 9), &bf1, 2, "ones bf16");
  check_all (first ("pattern=ones", "int8", 9), &one, 1, "ones int8");
  check_all (first ("pattern=ones", "bool", 9), &one, 1, "ones bool");
  /* Core's cast rules: saturate, truncate toward zero, NaN -> 0. */
  check_all (
      first ("pattern=fill value=300", "uint8", 17), &u255, 1, "300 in uint8");
  check_all (first ("pattern=fill value=-1.5", "int16", 17), &s_m1, 2,
      "-1.5 in int16");
  check_all (first ("pattern=fill value=-1.5", "float32", 17), &fm, 4,
      "-1.5 in float32");
  check_all (first ("pattern=fill value=-300", "int8", 17), &s_m128, 1,
      "-300 in int8");
  check_all (first ("pattern=fill value=1e10", "uint32", 17), &umax, 4,
      "1e10 in uint32");
  check_all (
      first ("pattern=fill value=2.5", "bool", 17), &one, 1, "2.5 in bool");
  check_all (first ("pattern=fill value=0.1", "float16", 17), &h01, 2,
      "0.1 in float16");
  check_all (first ("pattern=fill value=70000", "float16", 17), &hinf, 2,
      "70000 in float16");
  /* Big enough for the replicating copy to pass its block size, with an
   * item count that is no power of two. */
  check_all (first ("pattern=fill value=7", "int32", 100003), &i7, 4,
      "7 in int32 <100003>");
  check_all (first ("pattern=fill value=-1", "int16", 12345), &s_m1, 2,
      "-1 in int16 <12345>");
  tn_check_no_outstanding ();
}

GST_END_TEST;

#define CHECK_ITEMS(bytes, ctype, ...)                                         \
  G_STMT_START                                                                 \
  {                                                                            \
    const ctype want_[] = { __VA_ARGS__ };                                     \
    gsize size_;                                                               \
    const ctype *got_ = g_bytes_get_data ((bytes), &size_);                    \
    fail_unless_equals_uint64 (size_, sizeof want_);                           \
    for (guint i_ = 0; i_ < G_N_ELEMENTS (want_); i_++)                        \
      fail_unless (got_[i_] == want_[i_], "item %u: got %g, expected %g", i_,  \
          (double) got_[i_], (double) want_[i_]);                              \
    g_bytes_unref (bytes);                                                     \
  }                                                                            \
  G_STMT_END

GST_START_TEST (test_arange)
{
  GBytes *b;

  b = run_bytes ("pattern=arange start=0 step=0.5",
      "tensor/x-raw,type=float32,dims=<2,3>", 0);
  CHECK_ITEMS (b, gfloat, 0, 0.5, 1, 1.5, 2, 2.5);
  /* int8 saturates at 127 (float -> int never wraps). */
  b = first ("pattern=arange start=120 step=1", "int8", 10);
  CHECK_ITEMS (b, gint8, 120, 121, 122, 123, 124, 125, 126, 127, 127, 127);
  b = first ("pattern=arange start=-2 step=1", "uint8", 5);
  CHECK_ITEMS (b, guint8, 0, 0, 0, 1, 2);
  b = first ("pattern=arange start=-3 step=1", "int16", 4);
  CHECK_ITEMS (b, gint16, -3, -2, -1, 0);
  /* Truncation toward zero: 0, 0.7, 1.4, 2.1, 2.8 and -0.7, -1.4. */
  b = first ("pattern=arange start=0 step=0.7", "uint16", 5);
  CHECK_ITEMS (b, guint16, 0, 0, 1, 2, 2);
  b = first ("pattern=arange start=0 step=-0.7", "int32", 3);
  CHECK_ITEMS (b, gint32, 0, 0, -1);
  b = first ("pattern=arange start=1 step=-0.25", "float64", 6);
  CHECK_ITEMS (b, gdouble, 1, 0.75, 0.5, 0.25, 0, -0.25);
  b = first ("pattern=arange start=0 step=1", "bool", 3);
  CHECK_ITEMS (b, guint8, 0, 1, 1);
  /* Beyond one conversion block of 1024 items. */
  b = first ("pattern=arange start=5 step=2", "int32", 3000);
  {
    const gint32 *v = g_bytes_get_data (b, NULL);

    gint i = 0;

    while (i < 3000 && v[i] == 5 + 2 * i)
      i++;
    fail_unless (i == 3000, "item %d is %d", i, i < 3000 ? v[i] : 0);
    g_bytes_unref (b);
  }
  /* The same content in every buffer. */
  {
    GBytes *b0 = first ("pattern=arange start=1 step=3", "float32", 50);
    GBytes *b3 = run_bytes ("pattern=arange start=1 step=3",
        "tensor/x-raw,type=float32,dims=<50>", 3);

    fail_unless (g_bytes_equal (b0, b3));
    g_bytes_unref (b0);
    g_bytes_unref (b3);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

#define N_STAT (1 << 20)

GST_START_TEST (test_uniform)
{
  const gchar *caps = "tensor/x-raw,type=float32,dims=<1024,1024>";
  GBytes *a = run_bytes ("pattern=uniform low=-2 high=3 seed=11", caps, 0);
  GBytes *b;
  const gfloat *v = g_bytes_get_data (a, NULL);
  gdouble s = 0, q = 0, lo = INFINITY, hi = -INFINITY;
  const gdouble w = 5;

  for (gint i = 0; i < N_STAT; i++) {
    lo = MIN (lo, v[i]);
    hi = MAX (hi, v[i]);
    s += v[i];
  }
  fail_unless (lo >= -2 && hi < 3, "items span [%.9g, %.9g]", lo, hi);
  s /= N_STAT;
  for (gint i = 0; i < N_STAT; i++)
    q += (v[i] - s) * (v[i] - s);
  q /= N_STAT;
  /* 6 sigma of the sample mean and variance of U(-2, 3). */
  fail_unless (fabs (s - 0.5) < 6 * w / sqrt (12.0 * N_STAT), "mean %g", s);
  fail_unless (fabs (q - w * w / 12)
                   < 6 * w * w * sqrt ((1.0 / 80 - 1.0 / 144) / N_STAT),
      "variance %g", q);

  /* Same seed, same bits; another seed or another buffer index, others. */
  b = run_bytes ("pattern=uniform low=-2 high=3 seed=11", caps, 0);
  fail_unless (g_bytes_equal (a, b));
  g_bytes_unref (b);
  b = run_bytes ("pattern=uniform low=-2 high=3 seed=12", caps, 0);
  fail_if (g_bytes_equal (a, b));
  g_bytes_unref (b);
  b = run_bytes ("pattern=uniform low=-2 high=3 seed=11", caps, 1);
  fail_if (g_bytes_equal (a, b));
  g_bytes_unref (b);
  g_bytes_unref (a);

  /* Buffer n is the core generator's stream n, seed as key. */
  {
    gint32 *want = g_new (gint32, 1000);

    a = run_bytes ("pattern=uniform low=-100 high=100 seed=99",
        "tensor/x-raw,type=int32,dims=<10,100>", 2);
    fail_unless (
        tn_random_fill_uniform (want, TN_INT32, 0, 1000, -100, 100, 99, 2, NULL)
        == 0);
    fail_unless (memcmp (g_bytes_get_data (a, NULL), want, 4000) == 0);
    g_free (want);
    g_bytes_unref (a);
  }

  /* uint8 [0, 256): every byte value, mean 127.5. */
  a = run_bytes ("pattern=uniform low=0 high=256 seed=3",
      "tensor/x-raw,type=uint8,dims=<1048576>", 0);
  {
    const guint8 *u = g_bytes_get_data (a, NULL);
    guint seen[256] = { 0 };
    gint k = 0;

    s = 0;
    for (gint i = 0; i < N_STAT; i++) {
      seen[u[i]]++;
      s += u[i];
    }
    s /= N_STAT;
    while (k < 256 && seen[k] > 0)
      k++;
    fail_unless (k == 256, "byte %d never drawn", k);
    fail_unless (fabs (s - 127.5) < 6 * sqrt ((256.0 * 256 - 1) / 12 / N_STAT),
        "mean %g", s);
  }
  g_bytes_unref (a);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_normal)
{
  GBytes *a = run_bytes ("pattern=normal mean=5 stddev=2 seed=4",
      "tensor/x-raw,type=float64,dims=<1048576>", 0);
  const gdouble *v = g_bytes_get_data (a, NULL);
  gdouble s = 0, q = 0, within = 0;
  const gdouble p1 = 0.682689492137086;

  for (gint i = 0; i < N_STAT; i++)
    s += v[i];
  s /= N_STAT;
  for (gint i = 0; i < N_STAT; i++) {
    q += (v[i] - s) * (v[i] - s);
    within += fabs (v[i] - 5) < 2;
  }
  q /= N_STAT;
  within /= N_STAT;
  fail_unless (fabs (s - 5) < 6 * 2 / sqrt (N_STAT), "mean %g", s);
  fail_unless (fabs (q - 4) < 6 * 4 * sqrt (2.0 / N_STAT), "variance %g", q);
  fail_unless (fabs (within - p1) < 6 * sqrt (p1 * (1 - p1) / N_STAT),
      "%g within one sigma", within);
  g_bytes_unref (a);

  /* stddev 0 is the mean, cast: 2.9 truncates to 2 in int8. */
  a = first ("pattern=normal mean=2.9 stddev=0", "int8", 33);
  {
    const gint8 two = 2;

    check_all (a, &two, 1, "normal stddev 0");
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Large tensors are filled in chunks on several threads: the bits are
 * the same for any thread count, and the same as one core call. */
GST_START_TEST (test_threads)
{
  static const gchar *const patterns[]
      = { "pattern=uniform seed=8", "pattern=normal mean=1 stddev=3",
          "pattern=arange start=-7 step=0.25", "pattern=fill value=3.5" };
  const gchar *caps = "tensor/x-raw,type=float32,dims=<3,1000,333>";

  for (guint p = 0; p < G_N_ELEMENTS (patterns); p++) {
    gchar *one = g_strdup_printf ("%s n-threads=1", patterns[p]);
    gchar *two = g_strdup_printf ("%s n-threads=2", patterns[p]);
    gchar *all = g_strdup_printf ("%s n-threads=0", patterns[p]);
    GBytes *a = run_bytes (one, caps, 1);
    GBytes *b = run_bytes (two, caps, 1);
    GBytes *c = run_bytes (all, caps, 1);

    fail_unless (
        g_bytes_equal (a, b), "%s: 1 and 2 threads differ", patterns[p]);
    fail_unless (
        g_bytes_equal (a, c), "%s: 1 and all threads differ", patterns[p]);
    if (p == 0) {
      gfloat *want = g_new (gfloat, 999000);

      tn_random_fill_uniform (want, TN_FLOAT32, 0, 999000, 0, 1, 8, 1, NULL);
      fail_unless (memcmp (g_bytes_get_data (a, NULL), want, 999000 * 4) == 0);
      g_free (want);
    }
    g_bytes_unref (a);
    g_bytes_unref (b);
    g_bytes_unref (c);
    g_free (one);
    g_free (two);
    g_free (all);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstBuffer *
pull_offset (GstHarness *h, guint64 offset)
{
  /* After a flushing seek, buffers pushed before it may still be queued in
   * the harness: skip them (the bounded pool keeps them few). */
  for (gint tries = 0; tries < 8; tries++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless (buf != NULL);
    if (GST_BUFFER_OFFSET (buf) == offset)
      return buf;
    gst_buffer_unref (buf);
  }
  fail ("no buffer with offset %" G_GUINT64_FORMAT " after the seek", offset);
  return NULL;
}

static gboolean
buffer_equals (GstBuffer *buf, GBytes *bytes)
{
  gsize size;
  gconstpointer data = g_bytes_get_data (bytes, &size);

  return gst_buffer_get_size (buf) == size
         && gst_buffer_memcmp (buf, 0, data, size) == 0;
}

static GBytes *
buffer_bytes (GstBuffer *buf)
{
  GstMapInfo map;
  GBytes *b;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  b = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return b;
}

static gboolean
seek (GstHarness *h, gdouble rate, GstClockTime pos)
{
  return gst_harness_push_upstream_event (
      h, gst_event_new_seek (rate, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
             GST_SEEK_TYPE_SET, pos, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE));
}

GST_START_TEST (test_seek)
{
  GstHarness *h = start ("pattern=uniform seed=5",
      "tensor/x-raw,type=float32,dims=<64>,framerate=30/1", 2);
  GBytes *orig[3];
  GstBuffer *buf;
  gfloat want[64];

  for (gint i = 0; i < 3; i++) {
    buf = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    orig[i] = buffer_bytes (buf);
    gst_buffer_unref (buf);
  }
  fail_if (g_bytes_equal (orig[0], orig[1]));

  /* Back to 0: buffers 0, 1, 2 again, bit for bit, same timestamps. */
  fail_unless (seek (h, 1.0, 0));
  buf = pull_offset (h, 0);
  fail_unless (buffer_equals (buf, orig[0]));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 0);
  gst_buffer_unref (buf);
  for (gint i = 1; i < 3; i++) {
    buf = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless (buffer_equals (buf, orig[i]));
    gst_buffer_unref (buf);
  }

  /* To the PTS of buffer 5 exactly, then one nanosecond later (buffer 6
   * is the first at or after it). */
  fail_unless (seek (h, 1.0, 166666666));
  buf = pull_offset (h, 5);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 166666666);
  tn_random_fill_uniform (want, TN_FLOAT32, 0, 64, 0, 1, 5, 5, NULL);
  fail_unless (gst_buffer_memcmp (buf, 0, want, sizeof want) == 0);
  gst_buffer_unref (buf);
  fail_unless (seek (h, 1.0, 166666667));
  buf = pull_offset (h, 6);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 200000000);
  gst_buffer_unref (buf);

  /* Reverse playback is refused. */
  fail_if (seek (h, -1.0, 0));

  for (gint i = 0; i < 3; i++)
    g_bytes_unref (orig[i]);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static void
check_timestamps (const gchar *caps, const GstClockTime *pts,
    const GstClockTime *dur, guint n)
{
  gchar *props = g_strdup_printf ("num-buffers=%u", n);
  GstHarness *h = start (props, caps, 2);

  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), i + 1);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts[i]);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), dur[i]);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  g_free (props);
}

GST_START_TEST (test_timestamps)
{
  /* 30/1: n * 10^9 / 30 rounded down; durations close the gaps. */
  static const GstClockTime pts30[]
      = { 0, 33333333, 66666666, 100000000, 133333333, 166666666 };
  static const GstClockTime dur30[]
      = { 33333333, 33333333, 33333334, 33333333, 33333333, 33333334 };
  /* 25/2 is 80 ms a buffer, exactly. */
  static const GstClockTime pts25[] = { 0, 80000000, 160000000, 240000000 };
  static const GstClockTime dur25[]
      = { 80000000, 80000000, 80000000, 80000000 };
  /* 0/1: not a timed stream. */
  static const GstClockTime pts0[] = { 0, 0, 0 };
  static const GstClockTime dur0[]
      = { GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE };

  check_timestamps ("tensor/x-raw,framerate=30/1", pts30, dur30, 6);
  check_timestamps ("tensor/x-raw,framerate=25/2", pts25, dur25, 4);
  check_timestamps ("tensor/x-raw,framerate=0/1", pts0, dur0, 3);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* With buffers released as they come, the pool recycles: the data
 * pointers repeat and the allocator stops going to the system. */
GST_START_TEST (test_pool_steady_state)
{
  GstHarness *h
      = start ("pattern=uniform", "tensor/x-raw,type=float32,dims=<4096>", 2);
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstTnAllocatorStats st;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint64 misses = 0;

  for (gint i = 0; i < 60; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    GstMapInfo map;

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_uint64 ((guintptr) map.data % GST_TN_ALIGN, 0);
    if (i >= 3)
      g_hash_table_add (seen, map.data);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    gst_tn_allocator_get_stats (alloc, &st);
    if (i == 3)
      misses = st.misses;
  }
  gst_tn_allocator_get_stats (alloc, &st);
  fail_unless_equals_uint64 (st.misses, misses);
  /* The pool's two buffers, over and over. */
  fail_unless (g_hash_table_size (seen) <= 2, "%u distinct buffers",
      g_hash_table_size (seen));
  g_hash_table_unref (seen);
  gst_harness_teardown (h);
  gst_object_unref (alloc);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static void
handoff_cb (GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer data)
{
  GPtrArray *ptrs = data;
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  g_ptr_array_add (ptrs, map.data);
  gst_buffer_unmap (buf, &map);
}

/* A sink that drops each buffer before the next is made: one block for
 * the whole stream. */
GST_START_TEST (test_pool_one_block)
{
  GstElement *pipe
      = gst_parse_launch ("tensorsrc num-buffers=50 pattern=normal ! "
                          "capsfilter caps=\"tensor/x-raw,dims=<1000>\" ! "
                          "fakesink name=sink sync=false signal-handoffs=true "
                          "enable-last-sample=false",
          NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GPtrArray *ptrs = g_ptr_array_new ();
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;

  g_signal_connect (sink, "handoff", G_CALLBACK (handoff_cb), ptrs);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 30 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (ptrs->len, 50);
  for (guint i = 1; i < ptrs->len; i++)
    fail_unless (g_ptr_array_index (ptrs, i) == g_ptr_array_index (ptrs, 0),
        "buffer %u has other memory", i);
  gst_element_set_state (pipe, GST_STATE_NULL);
  g_ptr_array_unref (ptrs);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_num_buffers_eos)
{
  GstHarness *h = start ("num-buffers=3", "tensor/x-raw,framerate=30/1", 0);
  GstElement *src = harness_src (h);
  GstEvent *ev;
  gboolean eos = FALSE;
  gint64 dur = -1;

  for (gint i = 0; i < 3; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless (buf != NULL);
    gst_buffer_unref (buf);
  }
  while (!eos && (ev = gst_harness_pull_event (h))) {
    eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (eos);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);
  fail_unless (gst_element_query_duration (src, GST_FORMAT_TIME, &dur));
  fail_unless_equals_int64 (dur, 100000000);
  fail_unless (gst_element_query_duration (src, GST_FORMAT_DEFAULT, &dur));
  fail_unless_equals_int64 (dur, 3);
  gst_object_unref (src);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Live: buffer n waits for the clock to reach its PTS. */
GST_START_TEST (test_live)
{
  GstHarness *h = gst_harness_new_parse ("tensorsrc is-live=true ! "
                                         "capsfilter caps=\"tensor/x-raw,"
                                         "framerate=25/2\"");
  GstTestClock *clock;
  GstBuffer *buf;

  gst_harness_use_testclock (h);
  gst_pad_add_probe (h->sinkpad,
      GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH,
      bound_pool_probe, POOL_COUNTS (2, 2), NULL);
  gst_harness_play (h);
  clock = gst_harness_get_testclock (h);
  for (guint i = 0; i < 4; i++) {
    /* Nothing comes until the clock reaches the buffer's PTS. */
    fail_unless (gst_harness_try_pull (h) == NULL);
    fail_unless (gst_harness_crank_single_clock_wait (h));
    buf = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * 80000000);
    fail_unless_equals_uint64 (
        gst_clock_get_time (GST_CLOCK (clock)), i * 80000000);
    gst_buffer_unref (buf);
  }
  gst_object_unref (clock);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Rank 0 holds one item; an extent of 0 holds none. */
GST_START_TEST (test_shapes)
{
  GBytes *b = run_bytes (
      "pattern=fill value=7", "tensor/x-raw,type=int16,dims=(int)<>", 0);

  CHECK_ITEMS (b, gint16, 7);
  b = run_bytes ("pattern=uniform", "tensor/x-raw,type=float32,dims=<3,0>", 1);
  fail_unless_equals_uint64 (g_bytes_get_size (b), 0);
  g_bytes_unref (b);
  tn_check_no_outstanding ();
}

GST_END_TEST;

typedef struct {
  const gchar *must[4];
  guint hits;
} LogExpect;

static gboolean
log_filter (const gchar *domain, GLogLevelFlags level, const gchar *message,
    gpointer user_data)
{
  LogExpect *e = user_data;

  for (guint i = 0; i < G_N_ELEMENTS (e->must) && e->must[i]; i++)
    if (!strstr (message, e->must[i]))
      return FALSE; /* not ours: GstCheck fails the test */
  e->hits++;
  return TRUE;
}

/* Sets name=value as a string: stored as given, no warning from GLib. */
static void
expect_stored (GstElement *src, const gchar *name, const gchar *value)
{
  LogExpect e = { { NULL }, 0 };
  GstCheckLogFilter *f
      = gst_check_add_log_filter ("GLib-GObject", G_LOG_LEVEL_WARNING,
          g_regex_new (".*", 0, 0, NULL), log_filter, &e, NULL);
  gdouble want = g_ascii_strtod (value, NULL), got;

  gst_util_set_object_arg (G_OBJECT (src), name, value);
  gst_check_remove_log_filter (f);
  fail_unless_equals_int (e.hits, 0);
  g_object_get (src, name, &got, NULL);
  fail_unless (got == want || (isnan (got) && isnan (want)), "%s is %g, not %s",
      name, got, value);
}

GST_START_TEST (test_properties)
{
  GstElement *src = gst_element_factory_make ("tensorsrc", NULL);
  gdouble low, high, stddev, mean, value, start, step;
  guint64 seed;
  gint pattern, num_buffers;
  gboolean live;

  g_object_get (src, "low", &low, "high", &high, "stddev", &stddev, "mean",
      &mean, "value", &value, "start", &start, "step", &step, "seed", &seed,
      "pattern", &pattern, "num-buffers", &num_buffers, "is-live", &live, NULL);
  fail_unless (low == 0 && high == 1 && stddev == 1 && mean == 0);
  fail_unless (value == 0 && start == 0 && step == 1 && seed == 0);
  fail_unless_equals_int (pattern, 0);
  fail_unless_equals_int (num_buffers, -1);
  fail_if (live);
  g_object_get (src, "n-threads", &num_buffers, NULL);
  fail_unless_equals_int (num_buffers, 0);

  /* Stopped, low and high may be set in either order (start() checks
   * the pair: test_empty_interval). */
  g_object_set (src, "low", 5.0, "high", 10.0, NULL);
  g_object_get (src, "low", &low, "high", &high, NULL);
  fail_unless (low == 5 && high == 10);
  g_object_set (src, "high", 3.0, "low", 2.0, NULL);
  g_object_get (src, "low", &low, "high", &high, NULL);
  fail_unless (low == 2 && high == 3);
  /* Stopped, every double property stores any double, nan too, without
   * GLib's warning: start refuses what one cannot use (test_bad_values),
   * and value=nan is a fill of NaN. */
  expect_stored (src, "stddev", "-1");
  expect_stored (src, "low", "-inf");
  expect_stored (src, "low", "nan");
  expect_stored (src, "high", "nan");
  expect_stored (src, "stddev", "nan");
  expect_stored (src, "mean", "inf");
  expect_stored (src, "start", "nan");
  expect_stored (src, "step", "nan");
  expect_stored (src, "value", "nan");
  g_object_set (src, "low", 2.0, "high", 3.0, "mean", 0.0, "start", 0.0, "step",
      1.0, NULL);

  g_object_set (src, "pattern", 5, "seed", G_MAXUINT64, "stddev", 0.0, "value",
      -INFINITY, "is-live", TRUE, NULL);
  g_object_get (src, "pattern", &pattern, "seed", &seed, "stddev", &stddev,
      "value", &value, "is-live", &live, NULL);
  fail_unless_equals_int (pattern, 5);
  fail_unless_equals_uint64 (seed, G_MAXUINT64);
  fail_unless (stddev == 0 && value == -INFINITY && live);
  gst_util_set_object_arg (G_OBJECT (src), "pattern", "arange");
  g_object_get (src, "pattern", &pattern, NULL);
  fail_unless_equals_int (pattern, 3);
  gst_object_unref (src);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A float32 <8> source of props, one buffer out: prop set to value
 * while it runs must give a warning containing words; returns the value
 * kept (a double property). */
static gdouble
refused_while_running (const gchar *props, const gchar *prop,
    const gchar *value, const gchar *words)
{
  GstHarness *h = start (props, "tensor/x-raw,type=float32,dims=<8>", 1);
  GstElement *src = harness_src (h);
  GstBus *bus = gst_bus_new ();
  gchar *text;
  gdouble kept;

  gst_element_set_bus (src, bus);
  gst_buffer_unref (gst_harness_pull (h));
  gst_util_set_object_arg (G_OBJECT (src), prop, value);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, words);
  g_free (text);
  g_object_get (src, prop, &kept, NULL);
  gst_object_unref (src);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  return kept;
}

/* An empty [low, high) for pattern=uniform stops the pipeline when it
 * starts, naming the element, both bounds and why; while running, a value
 * that would empty it is a warning that keeps the old one. */
GST_START_TEST (test_empty_interval)
{
  GstElement *p = gst_parse_launch ("tensorsrc name=s pattern=uniform low=5 "
                                    "high=3 num-buffers=1 ! fakesink",
      NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstElement *src;
  gchar *text;
  gdouble low;

  fail_unless_equals_int (
      gst_element_set_state (p, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "s: low=\"5\" cannot be used: low must be below "
                            "high=3: [low, high) is empty");
  g_free (text);
  gst_element_set_state (p, GST_STATE_NULL);
  /* the same bounds for another pattern do not matter */
  src = gst_bin_get_by_name (GST_BIN (p), "s");
  gst_util_set_object_arg (G_OBJECT (src), "pattern", "zeros");
  gst_object_unref (src);
  fail_unless (
      gst_element_set_state (p, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);

  low = refused_while_running ("pattern=uniform low=0 high=1", "low", "2",
      "low=\"2\" cannot be used: low must be below high=1; keeping "
      "low=\"0\"");
  fail_unless (low == 0);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A double property value it cannot use is an error naming it and the
 * range when the element starts, whatever the pattern; set while it runs,
 * a warning that keeps the value in use. */
GST_START_TEST (test_bad_values)
{
  const struct {
    const gchar *props, *words;
  } bad[] = {
    { "pattern=uniform low=-inf", "s: low=\"-inf\" cannot be used: low is a "
                                  "number from -1.79769e+308 to "
                                  "1.79769e+308" },
    { "pattern=uniform high=nan", "s: high=\"nan\" cannot be used" },
    { "pattern=normal mean=inf", "s: mean=\"inf\" cannot be used" },
    { "pattern=normal stddev=-1", "s: stddev=\"-1\" cannot be used: stddev "
                                  "is a number from 0 to 1.79769e+308" },
    { "pattern=zeros stddev=nan", "s: stddev=\"nan\" cannot be used" },
    { "pattern=arange start=nan", "s: start=\"nan\" cannot be used: start is "
                                  "a number from -inf to inf" },
    { "pattern=arange step=nan", "s: step=\"nan\" cannot be used" },
  };
  GstBus *bus;
  gchar *text;
  gdouble stddev;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *line = g_strdup_printf (
        "tensorsrc name=s num-buffers=1 %s ! fakesink", bad[i].props);
    GstElement *p = gst_parse_launch (line, NULL);

    fail_unless (p != NULL, "%s", line);
    bus = gst_element_get_bus (p);
    fail_unless_equals_int (
        gst_element_set_state (p, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    tn_assert_contains (text, bad[i].words);
    g_free (text);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (p);
    g_free (line);
  }

  stddev = refused_while_running ("pattern=normal stddev=2", "stddev", "nan",
      "stddev=\"nan\" cannot be used: stddev is a number from 0 to "
      "1.79769e+308; keeping stddev=\"2\"");
  fail_unless (stddev == 2);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A property change applies from the next buffer on. */
GST_START_TEST (test_change_while_playing)
{
  GstHarness *h
      = start ("pattern=fill value=1", "tensor/x-raw,type=int32,dims=<8>", 1);
  GstElement *src = harness_src (h);
  gboolean changed = FALSE;

  for (gint i = 0; i < 20 && !changed; i++) {
    GstBuffer *buf = gst_harness_pull (h);
    gint32 v;

    gst_buffer_extract (buf, 0, &v, 4);
    if (i == 0) {
      fail_unless_equals_int (v, 1);
      g_object_set (src, "value", 2.0, NULL);
    } else {
      fail_unless (v == 1 || v == 2);
      changed = v == 2;
    }
    gst_buffer_unref (buf);
  }
  fail_unless (changed);
  gst_object_unref (src);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
tensorsrc_suite (void)
{
  Suite *s = suite_create ("tensorsrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_negotiate_full);
  tcase_add_test (tc, test_negotiate_partial);
  tcase_add_test (tc, test_negotiate_none);
  tcase_add_test (tc, test_negotiate_impossible);
  tcase_add_test (tc, test_constant);
  tcase_add_test (tc, test_arange);
  tcase_add_test (tc, test_uniform);
  tcase_add_test (tc, test_normal);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_timestamps);
  tcase_add_test (tc, test_pool_steady_state);
  tcase_add_test (tc, test_pool_one_block);
  tcase_add_test (tc, test_num_buffers_eos);
  tcase_add_test (tc, test_live);
  tcase_add_test (tc, test_shapes);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_empty_interval);
  tcase_add_test (tc, test_change_while_playing);
  return s;
}

GST_CHECK_MAIN (tensorsrc);
