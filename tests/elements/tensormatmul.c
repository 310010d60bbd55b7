/* tensormatmul: products against NumPy golden data (tests/data/
 * gen_matmul.py) from weights files and from a second stream, pairing by
 * timestamp, EOS on either pad, transposes, strided input, thread counts,
 * and every error message. */
#include <glib/gstdio.h>
#include <gst/check/gstharness.h>
#include <string.h>
#include <unistd.h>

#include "common/npyread.h"
#include "common/tncheck.h"
#include "core/gemm.h"

/* ------------------------------------------------------------ data --- */

typedef struct {
  GstTnInfo info;
  float *v; /* float32 master values, dense */
} Golden;

static Golden
golden (const gchar *name)
{
  Golden g = { 0 };
  Npy f;

  npy_load (&f, name);
  fail_unless_equals_int (f.dtype, TN_FLOAT32);
  g.info.dtype = TN_FLOAT32;
  g.info.rank = f.rank;
  for (int i = 0; i < f.rank; i++)
    g.info.dims[i] = f.dims[i];
  g.info.fps_n = 0;
  g.info.fps_d = 1;
  g.v = g_new (float, f.count + 1);
  memcpy (g.v, f.data, f.size);
  npy_clear (&f);
  return g;
}

static int64_t
count (const GstTnInfo *info)
{
  int64_t n = 1;

  for (int i = 0; i < info->rank; i++)
    n *= info->dims[i];
  return n;
}

static void
store (tn_dtype t, guint8 *p, int64_t i, float v)
{
  switch (t) {
  case TN_FLOAT32:
    ((float *) p)[i] = v;
    break;
  case TN_FLOAT64:
    ((double *) p)[i] = v;
    break;
  case TN_FLOAT16:
    ((guint16 *) p)[i] = tn_f32_to_f16 (v);
    break;
  case TN_BFLOAT16:
    ((guint16 *) p)[i] = tn_f32_to_bf16 (v);
    break;
  case TN_INT8:
    ((gint8 *) p)[i] = (gint8) v;
    break;
  default:
    g_assert_not_reached ();
  }
}

static double
fetch (tn_dtype t, const guint8 *p, int64_t i)
{
  switch (t) {
  case TN_FLOAT32:
    return ((const float *) p)[i];
  case TN_FLOAT64:
    return ((const double *) p)[i];
  case TN_FLOAT16:
    return tn_f16_to_f32 (((const guint16 *) p)[i]);
  case TN_BFLOAT16:
    return tn_bf16_to_f32 (((const guint16 *) p)[i]);
  case TN_INT32:
    return ((const gint32 *) p)[i];
  default:
    g_assert_not_reached ();
  }
  return 0;
}

/* A buffer of g's values (times scale) in dtype t, at pts (in seconds). */
static GstBuffer *
buffer_of (const Golden *g, tn_dtype t, float scale, gint pts)
{
  int64_t n = count (&g->info);
  GstBuffer *b = gst_buffer_new_allocate (NULL, n * tn_dtype_size (t), NULL);
  GstMapInfo m;

  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (int64_t i = 0; i < n; i++)
    store (t, m.data, i, g->v[i] * scale);
  gst_buffer_unmap (b, &m);
  GST_BUFFER_PTS (b) = pts * GST_SECOND;
  GST_BUFFER_DURATION (b) = GST_SECOND;
  return b;
}

static GstCaps *
caps_of (const Golden *g, tn_dtype t)
{
  GstTnInfo info = g->info;

  info.dtype = t;
  info.fps_n = 1;
  info.fps_d = 1;
  return gst_tn_info_to_caps (&info);
}

static tn_dtype
out_type (tn_dtype t)
{
  return t == TN_INT8 ? TN_INT32 : t;
}

/* Pulls one buffer and checks it holds want (times scale), exactly: the
 * golden values are integers, exact in every type. */
static void
pull_check (
    GstHarness *h, const Golden *want, tn_dtype t, float scale, gint pts)
{
  GstBuffer *b = gst_harness_pull (h);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstTnInfo info;
  GstMapInfo m;
  int64_t n = count (&want->info);

  fail_unless (b != NULL);
  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  fail_unless_equals_int (info.dtype, out_type (t));
  fail_unless_equals_int (info.rank, want->info.rank);
  for (int i = 0; i < info.rank; i++)
    fail_unless_equals_int64 (info.dims[i], want->info.dims[i]);
  fail_unless_equals_int (info.fps_n, 1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), pts * GST_SECOND);
  gst_buffer_map (b, &m, GST_MAP_READ);
  fail_unless_equals_uint64 (m.size, n * tn_dtype_size (out_type (t)));
  for (int64_t i = 0; i < n; i++)
    fail_unless (fetch (out_type (t), m.data, i) == want->v[i] * scale,
        "item %" G_GINT64_FORMAT ": %g, expected %g", i,
        fetch (out_type (t), m.data, i), want->v[i] * scale);
  gst_buffer_unmap (b, &m);
  gst_buffer_unref (b);
  gst_caps_unref (caps);
}

/* ------------------------------------------------------- fixtures --- */

typedef struct {
  GstElement *e;
  GstHarness *a, *b; /* b: sink_1's harness in stream mode */
  GstPad *pad_b;
  GstBus *bus;
} Mm;

static void
mm_new (Mm *m, gboolean stream)
{
  memset (m, 0, sizeof *m);
  m->e = gst_element_factory_make ("tensormatmul", NULL);
  fail_unless (m->e != NULL);
  m->bus = gst_bus_new ();
  gst_element_set_bus (m->e, m->bus);
  if (stream)
    m->pad_b = gst_element_request_pad_simple (m->e, "sink_1");
}

static void
mm_start (Mm *m)
{
  m->a = gst_harness_new_with_element (m->e, "sink_0", "src");
  if (m->pad_b)
    m->b = gst_harness_new_with_element (m->e, "sink_1", NULL);
}

static void
mm_stop (Mm *m)
{
  if (m->b)
    gst_harness_teardown (m->b);
  gst_harness_teardown (m->a);
  /* the harness released sink_1: drop our reference only */
  if (m->pad_b)
    gst_object_unref (m->pad_b);
  gst_bus_set_flushing (m->bus, TRUE);
  gst_object_unref (m->bus);
  gst_object_unref (m->e);
}

/* The first error on the bus, waiting up to wait (ns), or NULL. */
static gchar *
bus_error_wait (Mm *m, GstClockTime wait)
{
  GstMessage *msg
      = gst_bus_timed_pop_filtered (m->bus, wait, GST_MESSAGE_ERROR);
  gchar *text = NULL;
  GError *err;

  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

#define bus_error(m) bus_error_wait ((m), 0)

/* want may hold "@E@" for the element's name. */
static void
expect_error (Mm *m, const gchar *want)
{
  gchar *text = bus_error_wait (m, 20 * GST_SECOND);
  gchar **parts = g_strsplit (want, "@E@", -1);
  gchar *full = g_strjoinv (GST_OBJECT_NAME (m->e), parts);

  fail_unless (text != NULL, "no error, expected: %s", full);
  fail_unless_equals_string (text, full);
  g_free (text);
  g_free (full);
  g_strfreev (parts);
}

static void
set_file (GstElement *e, const gchar *prop, const gchar *name)
{
  gchar *p = tn_test_data (name);

  g_object_set (e, prop, p, NULL);
  g_free (p);
}

static void
push_eos (GstHarness *h)
{
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
}

/* Waits for EOS to come out. */
static void
expect_eos (GstHarness *h)
{
  GstEvent *ev;

  while ((ev = gst_harness_pull_event (h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      return;
  }
  fail ("no EOS");
}

/* EOS goes through with no error on the bus; then the element stops. */
static void
eos_stop (Mm *m)
{
  push_eos (m->a);
  expect_eos (m->a);
  fail_if (bus_error (m));
  mm_stop (m);
}

/* ---------------------------------------------------------- tests --- */

/* A linear layer y = x W + b from weights and bias files, per type. */
GST_START_TEST (test_weights_types)
{
  static const struct {
    tn_dtype t;
    const gchar *w, *bias;
  } cases[] = {
    { TN_FLOAT32, "matmul_lin_w_float32.npy", "matmul_lin_bias_float32.npy" },
    { TN_FLOAT64, "matmul_lin_w_float64.npy", "matmul_lin_bias_float64.npy" },
    { TN_FLOAT16, "matmul_lin_w_float16.npy", "matmul_lin_bias_float16.npy" },
    /* bfloat16 streams take float32 files */
    { TN_BFLOAT16, "matmul_lin_w_float32.npy", "matmul_lin_bias_float32.npy" },
    { TN_INT8, "matmul_lin_w_int8.npy", "matmul_lin_bias_int32.npy" },
  };
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    Mm m;

    mm_new (&m, FALSE);
    set_file (m.e, "weights", cases[i].w);
    set_file (m.e, "bias", cases[i].bias);
    mm_start (&m);
    gst_harness_set_src_caps (m.a, caps_of (&a, cases[i].t));
    for (gint k = 0; k < 3; k++) {
      fail_unless_equals_int (
          gst_harness_push (m.a, buffer_of (&a, cases[i].t, 1, k)),
          GST_FLOW_OK);
      pull_check (m.a, &want, cases[i].t, 1, k);
    }
    eos_stop (&m);
  }
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A golden case of the core set: a, b and the product, and the names of
 * their files (b's is also a weights file). */
typedef struct {
  gchar *fa, *fb, *fo;
  Golden a, b, want;
} GoldenCase;

/* bf16: the bfloat16 product (the exact product rounded once). */
static void
golden_case (GoldenCase *c, const gchar *name, gboolean bf16)
{
  c->fa = g_strdup_printf ("matmul_%s_a.npy", name);
  c->fb = g_strdup_printf ("matmul_%s_b.npy", name);
  c->fo = g_strdup_printf (
      bf16 ? "matmul_%s_out_bf16.npy" : "matmul_%s_out.npy", name);
  c->a = golden (c->fa);
  c->b = golden (c->fb);
  c->want = golden (c->fo);
}

static void
golden_case_clear (GoldenCase *c)
{
  g_free (c->a.v);
  g_free (c->b.v);
  g_free (c->want.v);
  g_free (c->fa);
  g_free (c->fb);
  g_free (c->fo);
}

/* One golden case of the core set through the element: b as weights (its
 * float32 file) or as a stream, with the transposes of the case. */
static void
run_case (const gchar *name, gboolean stream, gboolean ta, gboolean tb,
    gboolean with_bias, tn_dtype t, guint threads)
{
  GoldenCase gc;
  gchar *fbias = g_strdup_printf ("matmul_%s_bias.npy", name);
  const Golden *a = &gc.a, *b = &gc.b, *want = &gc.want;
  Mm m;

  golden_case (&gc, name, t == TN_BFLOAT16);

  mm_new (&m, stream);
  g_object_set (
      m.e, "transpose-a", ta, "transpose-b", tb, "n-threads", threads, NULL);
  if (!stream)
    set_file (m.e, "weights", gc.fb);
  if (with_bias)
    set_file (m.e, "bias", fbias);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (a, t));
  if (stream)
    gst_harness_set_src_caps (m.b, caps_of (b, t));
  fail_unless_equals_int (
      gst_harness_push (m.a, buffer_of (a, t, 1, 0)), GST_FLOW_OK);
  if (stream)
    fail_unless_equals_int (
        gst_harness_push (m.b, buffer_of (b, t, 1, 0)), GST_FLOW_OK);
  pull_check (m.a, want, t, 1, 0);
  fail_if (bus_error (&m));
  mm_stop (&m);
  golden_case_clear (&gc);
  g_free (fbias);
}

/* Shapes: square, tall, wide, k = 1, odd extents past every block size,
 * rank 1 on either side and both, batch broadcasting, transposes, bias. */
GST_START_TEST (test_golden_cases)
{
  static const struct {
    const gchar *name;
    gboolean ta, tb, bias;
  } cases[] = {
    { "square" },
    { "tall" },
    { "wide" },
    { "k1" },
    { "odd" },
    { "mbig" },
    { "nbig" },
    { "vecmat" },
    { "matvec" },
    { "vecvec" },
    { "batch" },
    { "trans", TRUE, TRUE },
    { "transbatch", TRUE, FALSE, TRUE },
    { "bias", FALSE, FALSE, TRUE },
    { "biascol", FALSE, FALSE, TRUE },
    { "biasvec", FALSE, FALSE, TRUE },
  };
  static const tn_dtype types[] = { TN_FLOAT32, TN_BFLOAT16 };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (gsize s = 0; s < 2; s++)
      for (gsize t = 0; t < G_N_ELEMENTS (types); t++) {
        run_case (cases[i].name, s, cases[i].ta, cases[i].tb, cases[i].bias,
            types[t], 1);
      }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Every n-threads value gives the golden product (exactly). */
GST_START_TEST (test_threads)
{
  static const guint threads[] = { 0, 1, 2, 3, 7 };

  for (gsize i = 0; i < G_N_ELEMENTS (threads); i++) {
    run_case ("odd", FALSE, FALSE, FALSE, FALSE, TN_FLOAT32, threads[i]);
    run_case ("nbig", TRUE, FALSE, FALSE, FALSE, TN_FLOAT64, threads[i]);
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Each A pairs with the newest B not later than it; B at 0 and 2 (the
 * second one doubled): A0 x B0, A1 x B0, A2 x 2 B0. */
GST_START_TEST (test_pairing)
{
  Golden a = golden ("matmul_square_a.npy"), b = golden ("matmul_square_b.npy");
  Golden want = golden ("matmul_square_out.npy");
  Mm m;

  mm_new (&m, TRUE);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  gst_harness_set_src_caps (m.b, caps_of (&b, TN_FLOAT32));
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 0));
  gst_harness_push (m.b, buffer_of (&b, TN_FLOAT32, 1, 0));
  pull_check (m.a, &want, TN_FLOAT32, 1, 0);
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 1));
  gst_harness_push (m.b, buffer_of (&b, TN_FLOAT32, 2, 2));
  pull_check (m.a, &want, TN_FLOAT32, 1, 1);
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 2));
  pull_check (m.a, &want, TN_FLOAT32, 2, 2);
  /* B ends first: its last tensor serves the rest of A */
  push_eos (m.b);
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 3, 3));
  pull_check (m.a, &want, TN_FLOAT32, 6, 3);
  eos_stop (&m);
  g_free (a.v);
  g_free (b.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A B earlier than A waits for the next B: B at 0 and 1, A at 1 pairs
 * with B1; a B later than every A is never used; A's EOS ends the
 * output while B still has data. */
GST_START_TEST (test_pairing_earlier_b)
{
  Golden a = golden ("matmul_square_a.npy"), b = golden ("matmul_square_b.npy");
  Golden want = golden ("matmul_square_out.npy");
  Mm m;

  mm_new (&m, TRUE);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  gst_harness_set_src_caps (m.b, caps_of (&b, TN_FLOAT32));
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 1));
  gst_harness_push (m.b, buffer_of (&b, TN_FLOAT32, 1, 0));
  gst_harness_push (m.b, buffer_of (&b, TN_FLOAT32, 3, 1));
  pull_check (m.a, &want, TN_FLOAT32, 3, 1);
  gst_harness_push (m.b, buffer_of (&b, TN_FLOAT32, 5, 9));
  push_eos (m.a);
  expect_eos (m.a);
  fail_unless (gst_harness_try_pull (m.a) == NULL);
  fail_if (bus_error (&m));
  mm_stop (&m);
  g_free (a.v);
  g_free (b.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

GST_START_TEST (test_b_ends_empty)
{
  Golden a = golden ("matmul_square_a.npy"), b = golden ("matmul_square_b.npy");
  Mm m;

  mm_new (&m, TRUE);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  gst_harness_set_src_caps (m.b, caps_of (&b, TN_FLOAT32));
  push_eos (m.b);
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 4));
  expect_error (&m,
      "sink_1 ended before its first tensor: the buffer at "
      "0:00:04.000000000 on sink_0 has no B to be multiplied by.");
  mm_stop (&m);
  g_free (a.v);
  g_free (b.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A strided A (its layout meta says transposed storage) reads in place. */
GST_START_TEST (test_strided_input)
{
  Golden a = golden ("matmul_tall_a.npy"),
         want = golden ("matmul_tall_out.npy");
  GstBuffer *buf;
  GstMapInfo mi;
  gint64 strides[2] = { 1, 67 };
  Mm m;

  mm_new (&m, FALSE);
  set_file (m.e, "weights", "matmul_tall_b.npy");
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  /* storage in column-major order: item (i, k) at i + 67 k */
  buf = gst_buffer_new_allocate (NULL, 67 * 5 * 4, NULL);
  gst_buffer_map (buf, &mi, GST_MAP_WRITE);
  for (int i = 0; i < 67; i++)
    for (int k = 0; k < 5; k++)
      ((float *) mi.data)[i + 67 * k] = a.v[i * 5 + k];
  gst_buffer_unmap (buf, &mi);
  gst_tn_buffer_add_layout_meta (buf, 2, 0, strides);
  GST_BUFFER_PTS (buf) = 0;
  gst_harness_push (m.a, buf);
  pull_check (m.a, &want, TN_FLOAT32, 1, 0);
  fail_if (bus_error (&m));
  mm_stop (&m);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Two streams whose caps change mid-stream, to a larger product and a
 * smaller one, with n-threads changed between buffers and a new B of an
 * unchanged shape: every product is exact.  A plan or scratch kept
 * across buffers that outlived its shape, its B or its thread count
 * would give other values. */
GST_START_TEST (test_stream_shape_changes)
{
  static const struct {
    const gchar *name;
    guint threads;
    float scale; /* of B */
  } steps[] = {
    { "square", 1, 1 },
    { "odd", 2, 1 },
    { "tall", 0, 1 },
    { "square", 3, 2 },
    { "square", 1, 3 },
    { "odd", 1, -1 },
  };
  Mm m;

  mm_new (&m, TRUE);
  mm_start (&m);
  for (gsize i = 0; i < G_N_ELEMENTS (steps); i++) {
    GoldenCase gc;
    const Golden *a = &gc.a, *b = &gc.b, *want = &gc.want;

    golden_case (&gc, steps[i].name, FALSE);

    g_object_set (m.e, "n-threads", steps[i].threads, NULL);
    /* new caps on A, then on B: the product negotiates once both pads
     * hold a buffer, with both new shapes */
    if (i == 0 || strcmp (steps[i].name, steps[i - 1].name) != 0) {
      gst_harness_set_src_caps (m.a, caps_of (a, TN_FLOAT32));
      fail_unless_equals_int (
          gst_harness_push (m.a, buffer_of (a, TN_FLOAT32, 1, i)), GST_FLOW_OK);
      gst_harness_set_src_caps (m.b, caps_of (b, TN_FLOAT32));
    } else {
      fail_unless_equals_int (
          gst_harness_push (m.a, buffer_of (a, TN_FLOAT32, 1, i)), GST_FLOW_OK);
    }
    fail_unless_equals_int (
        gst_harness_push (m.b, buffer_of (b, TN_FLOAT32, steps[i].scale, i)),
        GST_FLOW_OK);
    pull_check (m.a, want, TN_FLOAT32, steps[i].scale, i);
    golden_case_clear (&gc);
  }
  push_eos (m.b);
  eos_stop (&m);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* ------------------------------------------- weights, direct path --- */

/* What left the element's src pad, in order: 'b' a buffer pushed by the
 * thread that pushed its A (the direct path), 't' one pushed by another
 * thread (the aggregator's task); 'c' caps, 's' segment, 'e' our custom
 * event, 'f' flush-stop. */
typedef struct {
  GMutex lock;
  GString *log;
  GThread *pusher;
} Trace;

static GstPadProbeReturn
trace_probe (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Trace *t = data;
  gchar c = 0;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    c = g_thread_self () == t->pusher ? 'b' : 't';
  } else {
    switch (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info))) {
    case GST_EVENT_CAPS:
      c = 'c';
      break;
    case GST_EVENT_SEGMENT:
      c = 's';
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      c = 'e';
      break;
    case GST_EVENT_FLUSH_STOP:
      c = 'f';
      break;
    default:
      break;
    }
  }
  if (c) {
    g_mutex_lock (&t->lock);
    g_string_append_c (t->log, c);
    g_mutex_unlock (&t->lock);
  }
  return GST_PAD_PROBE_OK;
}

static void
trace_start (Trace *t, Mm *m)
{
  GstPad *src = gst_element_get_static_pad (m->e, "src");

  g_mutex_init (&t->lock);
  t->log = g_string_new (NULL);
  t->pusher = g_thread_self ();
  gst_pad_add_probe (src,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM
          | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      trace_probe, t, NULL);
  gst_object_unref (src);
}

static void
trace_check (Trace *t, const gchar *want)
{
  g_mutex_lock (&t->lock);
  fail_unless_equals_string (t->log->str, want);
  g_mutex_unlock (&t->lock);
}

static void
trace_free (Trace *t)
{
  g_string_free (t->log, TRUE);
  g_mutex_clear (&t->lock);
}

/* The rows [0, rows) of g (a view of the same values). */
static Golden
rows_of (const Golden *g, int64_t rows)
{
  Golden r = *g;

  r.info.dims[0] = rows;
  return r;
}

/* A linear layer on sink_0 alone: matmul_lin's weights and bias. */
static void
lin_new (Mm *m)
{
  mm_new (m, FALSE);
  set_file (m->e, "weights", "matmul_lin_w_float32.npy");
  set_file (m->e, "bias", "matmul_lin_bias_float32.npy");
}

/* Pushes the float32 buffers k0 .. k1 - 1 of a on h and checks that each
 * comes out as want's. */
static void
push_pull (GstHarness *h, const Golden *a, const Golden *want, gint k0, gint k1)
{
  for (gint k = k0; k < k1; k++) {
    fail_unless_equals_int (
        gst_harness_push (h, buffer_of (a, TN_FLOAT32, 1, k)), GST_FLOW_OK);
    pull_check (h, want, TN_FLOAT32, 1, k);
  }
}

/* With weights, the buffers after the one that negotiates are multiplied
 * on the pushing thread; a serialized event, a reconfigure from
 * downstream and new caps each go through the aggregator in order, and
 * the direct path resumes after them. */
GST_START_TEST (test_direct_path)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  Golden a2 = rows_of (&a, 2), want2 = rows_of (&want, 2);
  Trace t;
  Mm m;

  lin_new (&m);
  mm_start (&m);
  trace_start (&t, &m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  push_pull (m.a, &a, &want, 0, 3);
  trace_check (&t, "cstbb");
  fail_unless (gst_harness_push_event (
      m.a, gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
               gst_structure_new_empty ("tn-test"))));
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 3));
  pull_check (m.a, &want, TN_FLOAT32, 1, 3);
  trace_check (&t, "cstbbeb");
  /* downstream asks to renegotiate: the task does it, same caps */
  fail_unless (
      gst_harness_push_upstream_event (m.a, gst_event_new_reconfigure ()));
  push_pull (m.a, &a, &want, 4, 6);
  trace_check (&t, "cstbbebtb");
  /* new A dims: new output caps, then direct again */
  gst_harness_set_src_caps (m.a, caps_of (&a2, TN_FLOAT32));
  push_pull (m.a, &a2, &want2, 6, 8);
  trace_check (&t, "cstbbebtbctb");
  eos_stop (&m);
  trace_free (&t);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A flush on the direct path: the new segment goes out before the next
 * product, which is pushed directly again. */
GST_START_TEST (test_direct_flush)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  GstSegment seg;
  Trace t;
  Mm m;

  lin_new (&m);
  mm_start (&m);
  trace_start (&t, &m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  push_pull (m.a, &a, &want, 0, 2);
  fail_unless (gst_harness_push_event (m.a, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (m.a, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (m.a, gst_event_new_segment (&seg)));
  push_pull (m.a, &a, &want, 5, 7);
  trace_check (&t, "cstbfsbb");
  eos_stop (&m);
  trace_free (&t);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A short buffer on the direct path: the error comes back to the pusher
 * as a flow error, with the same message. */
GST_START_TEST (test_direct_short_buffer)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  Mm m;

  lin_new (&m);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  push_pull (m.a, &a, &want, 0, 2);
  fail_unless_equals_int (
      gst_harness_push (m.a, gst_buffer_new_allocate (NULL, 20, NULL)),
      GST_FLOW_ERROR);
  expect_error (&m, "The buffer on sink_0 does not hold its tensor: buffer "
                    "holds 20 bytes; caps float32 <4, 6> need 96.");
  mm_stop (&m);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

static void
count_consumed (GstPad *pad, GstBuffer *buf, gint *n)
{
  g_atomic_int_inc (n);
}

/* emit-signals on sink_0 keeps every A on the aggregator's path, so
 * buffer-consumed fires once per buffer. */
GST_START_TEST (test_direct_signals)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  GstPad *pad;
  gint consumed = 0;
  Trace t;
  Mm m;

  lin_new (&m);
  pad = gst_element_get_static_pad (m.e, "sink_0");
  g_object_set (pad, "emit-signals", TRUE, NULL);
  g_signal_connect (
      pad, "buffer-consumed", G_CALLBACK (count_consumed), &consumed);
  gst_object_unref (pad);
  mm_start (&m);
  trace_start (&t, &m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  push_pull (m.a, &a, &want, 0, 4);
  trace_check (&t, "cstttt");
  push_eos (m.a);
  expect_eos (m.a);
  /* The aggregator drops A, and signals it, after pushing the product:
   * only EOS makes sure the last signal has come. */
  fail_unless_equals_int (g_atomic_int_get (&consumed), 4);
  fail_if (bus_error (&m));
  mm_stop (&m);
  trace_free (&t);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A GAP event on either pad is no tensor: nothing is multiplied for it,
 * and the stream goes on. */
GST_START_TEST (test_gap)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  Mm m;

  lin_new (&m);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 0));
  pull_check (m.a, &want, TN_FLOAT32, 1, 0);
  fail_unless (
      gst_harness_push_event (m.a, gst_event_new_gap (GST_SECOND, GST_SECOND)));
  gst_harness_push (m.a, buffer_of (&a, TN_FLOAT32, 1, 2));
  pull_check (m.a, &want, TN_FLOAT32, 1, 2);
  eos_stop (&m);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* ------------------------------------------------------- errors --- */

/* Writes a float32 (or t) .npy of dims, values 1, to a temporary file. */
static gchar *
tmp_npy (tn_dtype t, const int64_t *dims, int rank, gsize cut)
{
  gchar *path, hdr[256];
  int fd = g_file_open_tmp ("tnmatmul-XXXXXX.npy", &path, NULL);
  size_t hl = tn_npy_header (hdr, sizeof hdr, t, dims, rank);
  int64_t n = 1;
  GString *s = g_string_new_len (hdr, hl);

  for (int i = 0; i < rank; i++)
    n *= dims[i];
  for (int64_t i = 0; i < n * (int64_t) tn_dtype_size (t); i++)
    g_string_append_c (s, 0);
  fail_unless (g_file_set_contents (path, s->str, s->len - cut, NULL));
  g_string_free (s, TRUE);
  close (fd);
  return path;
}

/* Negotiation fails with msg (@W@ in it: the weights file) for A of dims
 * ad (float32) and weights wd (float32 unless wt) or, in stream mode, B
 * of dims wd. */
static void
expect_negotiation_error (const int64_t *ad, int ar, const int64_t *wd, int wr,
    tn_dtype wt, gboolean stream, const gchar *bias, const gchar *msg)
{
  GstTnInfo ia = { TN_FLOAT32, ar }, ib = { wt, wr };
  gchar *wpath = NULL;
  GstBuffer *buf;
  Mm m;

  memcpy (ia.dims, ad, ar * sizeof *ad);
  memcpy (ib.dims, wd, wr * sizeof *wd);
  ia.fps_d = ib.fps_d = 1;
  mm_new (&m, stream);
  if (!stream) {
    wpath = tmp_npy (wt, wd, wr, 0);
    g_object_set (m.e, "weights", wpath, NULL);
  }
  if (bias)
    g_object_set (m.e, "bias", bias, NULL);
  mm_start (&m);
  gst_harness_set_src_caps (m.a, gst_tn_info_to_caps (&ia));
  buf = gst_buffer_new_allocate (NULL, count (&ia) * 4, NULL);
  gst_harness_push (m.a, buf);
  if (stream) {
    gst_harness_set_src_caps (m.b, gst_tn_info_to_caps (&ib));
    gst_harness_push (m.b,
        gst_buffer_new_allocate (NULL, count (&ib) * tn_dtype_size (wt), NULL));
  }
  if (wpath && strstr (msg, "@W@")) {
    gchar **parts = g_strsplit (msg, "@W@", -1);
    gchar *full = g_strjoinv (wpath, parts);

    expect_error (&m, full);
    g_free (full);
    g_strfreev (parts);
  } else {
    expect_error (&m, msg);
  }
  fail_unless (gst_harness_try_pull (m.a) == NULL);
  mm_stop (&m);
  if (wpath) {
    g_unlink (wpath);
    g_free (wpath);
  }
}

GST_START_TEST (test_negotiation_errors)
{
  const int64_t d23[] = { 2, 3 }, d42[] = { 4, 2 }, d34[] = { 3, 4 };
  const int64_t d243[] = { 2, 4, 3 }, d532[] = { 5, 3, 2 }, d5[] = { 5 };
  gchar *bias5 = tmp_npy (TN_FLOAT32, d5, 1, 0);
  gchar *bias64 = tmp_npy (TN_FLOAT64, d5, 1, 0);
  gchar *msg;

  for (int stream = 0; stream < 2; stream++) {
    /* with weights, the message names the property and its file (@W@) */
    const gchar *w = stream ? ""
                            : "@E@: weights=\"@W@\" does not fit the "
                              "stream: ";

    msg = g_strconcat (w,
        "matmul needs the inner extents to agree: [2,3] times [4,2], 3 "
        "against 4",
        NULL);
    expect_negotiation_error (d23, 2, d42, 2, TN_FLOAT32, stream, NULL, msg);
    g_free (msg);
    msg = g_strconcat (w,
        "matmul needs the batch axes to broadcast: [2,4,3] times [5,3,2], "
        "batch axis 0 has 2 against 5 and neither is 1",
        NULL);
    expect_negotiation_error (d243, 3, d532, 3, TN_FLOAT32, stream, NULL, msg);
    g_free (msg);
    msg = g_strconcat (w,
        "matmul needs both operands of one type: float32 times float64", NULL);
    expect_negotiation_error (d23, 2, d34, 2, TN_FLOAT64, stream, NULL, msg);
    g_free (msg);
    msg = g_strdup_printf ("@E@: bias=\"%s\" does not fit the product: "
                           "dims <5> and <2, 4> do not broadcast: axis 1 has "
                           "5 against 4 and neither is 1",
        bias5);
    expect_negotiation_error (d23, 2, d34, 2, TN_FLOAT32, stream, bias5, msg);
    g_free (msg);
  }
  msg = g_strdup_printf ("@E@: bias=\"%s\" does not fit the product: the "
                         "bias is float64 but the product <2, 4> is float32: "
                         "they need one type",
      bias64);
  expect_negotiation_error (d23, 2, d34, 2, TN_FLOAT32, FALSE, bias64, msg);
  g_free (msg);
  g_unlink (bias5);
  g_unlink (bias64);
  g_free (bias5);
  g_free (bias64);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Errors when the element starts: B from both places or from none, files
 * missing, malformed or cut short. */
static void
expect_start_error (
    gboolean stream, const gchar *weights, const gchar *bias, const gchar *msg)
{
  Mm m;

  mm_new (&m, stream);
  g_object_set (m.e, "weights", weights, "bias", bias, NULL);
  fail_unless_equals_int (
      gst_element_set_state (m.e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  expect_error (&m, msg);
  gst_element_set_state (m.e, GST_STATE_NULL);
  if (m.pad_b) {
    gst_element_release_request_pad (m.e, m.pad_b);
    gst_object_unref (m.pad_b);
  }
  gst_bus_set_flushing (m.bus, TRUE);
  gst_object_unref (m.bus);
  gst_object_unref (m.e);
}

GST_START_TEST (test_start_errors)
{
  const int64_t d34[] = { 3, 4 };
  gchar *w = tmp_npy (TN_FLOAT32, d34, 2, 0);
  gchar *cut = tmp_npy (TN_FLOAT32, d34, 2, 8);
  gchar *bad, *msg;
  int fd = g_file_open_tmp ("tnmatmul-XXXXXX.npy", &bad, NULL);

  close (fd);
  fail_unless (g_file_set_contents (bad, "\x93NUMPY\x01\x00garbage", 16, NULL));
  expect_start_error (TRUE, w, NULL,
      (msg = g_strdup_printf (
           "tensormatmul takes B from weights='%s' or "
           "from the pad sink_1, not both: unset weights or release "
           "sink_1.",
           w)));
  g_free (msg);
  expect_start_error (FALSE, NULL, NULL,
      "tensormatmul has no B: set weights to a .npy file or request and "
      "link the pad sink_1.");
  expect_start_error (FALSE, "/nonexistent/w.npy", NULL,
      "@E@: weights=\"/nonexistent/w.npy\" cannot be used: Failed to "
      "open file “/nonexistent/w.npy”: No such file or directory");
  expect_start_error (FALSE, cut, NULL,
      (msg = g_strdup_printf ("@E@: weights=\"%s\" cannot be used: the "
                              "file holds 40 bytes of data but its header "
                              "promises 48",
           cut)));
  g_free (msg);
  {
    /* no items, but an extent no caps can hold */
    const int64_t huge[] = { 0, 3000000000 };
    gchar *hw = tmp_npy (TN_FLOAT32, huge, 2, 0);

    msg = g_strdup_printf ("@E@: weights=\"%s\" cannot be used: axis 1 has "
                           "extent 3000000000; tensor caps hold extents up to "
                           "2147483647",
        hw);
    expect_start_error (FALSE, hw, NULL, msg);
    g_free (msg);
    g_unlink (hw);
    g_free (hw);
  }
  {
    tn_npy h;
    tn_err e;
    gsize need;
    gchar *want;

    fail_unless_equals_int (
        tn_npy_parse (&h, "\x93NUMPY\x01\x00garbage", 16, &need, &e), 1);
    want = g_strdup_printf (
        "@E@: bias=\"%s\" cannot be used: the file is cut short: %s", bad,
        e.msg);
    expect_start_error (FALSE, w, bad, want);
    g_free (want);
  }
  g_unlink (w);
  g_unlink (cut);
  g_unlink (bad);
  g_free (w);
  g_free (cut);
  g_free (bad);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A buffer smaller than its caps say is an error, not a crash. */
GST_START_TEST (test_short_buffer)
{
  Golden a = golden ("matmul_lin_a.npy");
  Mm m;

  mm_new (&m, FALSE);
  set_file (m.e, "weights", "matmul_lin_w_float32.npy");
  mm_start (&m);
  gst_harness_set_src_caps (m.a, caps_of (&a, TN_FLOAT32));
  fail_unless_equals_int (
      gst_harness_push (m.a, gst_buffer_new_allocate (NULL, 20, NULL)),
      GST_FLOW_OK);
  expect_error (&m, "The buffer on sink_0 does not hold its tensor: buffer "
                    "holds 20 bytes; caps float32 <4, 6> need 96.");
  mm_stop (&m);
  g_free (a.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensormatmul", NULL);
  gchar *w, *b;
  gboolean ta, tb;
  gint n;
  GstPad *p1, *p2;
  GstPadTemplate *templ;

  g_object_get (e, "weights", &w, "bias", &b, "transpose-a", &ta, "transpose-b",
      &tb, "n-threads", &n, NULL);
  fail_unless (w == NULL && b == NULL && !ta && !tb && n == 0);
  g_object_set (
      e, "weights", "x.npy", "transpose-b", TRUE, "n-threads", 3, NULL);
  g_object_get (e, "weights", &w, "transpose-b", &tb, "n-threads", &n, NULL);
  fail_unless_equals_string (w, "x.npy");
  fail_unless (tb && n == 3);
  g_free (w);
  /* sink_0 always exists; sink_1 only once */
  fail_unless (gst_element_get_static_pad (e, "sink_1") == NULL);
  p1 = gst_element_get_static_pad (e, "sink_0");
  fail_unless (p1 != NULL);
  gst_object_unref (p1);
  p1 = gst_element_request_pad_simple (e, "sink_1");
  fail_unless (p1 != NULL);
  fail_unless_equals_string (GST_PAD_NAME (p1), "sink_1");
  templ = gst_pad_get_pad_template (p1);
  p2 = gst_element_request_pad (e, templ, NULL, NULL);
  gst_object_unref (templ);
  fail_unless (p2 == NULL);
  gst_element_release_request_pad (e, p1);
  gst_object_unref (p1);
  gst_object_unref (e);
}
GST_END_TEST;

/* Hand-written caps name type and dims only (no dims-order, no
 * framerate): both inputs accept them, with the defaults row-major and no
 * framerate, and the product is the golden one. */
GST_START_TEST (test_minimal_caps)
{
  Golden a = golden ("matmul_lin_a.npy"), want = golden ("matmul_lin_out.npy");
  gchar *dims = g_strdup_printf ("<%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ">",
      a.info.dims[0], a.info.dims[1]);
  gchar *caps = g_strdup_printf ("tensor/x-raw,type=float32,dims=%s", dims);
  GstHarness *h;
  Mm m;

  lin_new (&m);
  h = gst_harness_new_with_element (m.e, "sink_0", "src");
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (
      gst_harness_push (h, buffer_of (&a, TN_FLOAT32, 1, 0)), GST_FLOW_OK);
  {
    GstBuffer *b = gst_harness_pull (h);
    GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
    GstTnInfo info;
    GstMapInfo map;

    fail_unless (gst_tn_info_from_caps (&info, oc, NULL));
    fail_unless (gst_tn_info_equal (&info, &want.info)); /* no framerate */
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless_equals_int64 (map.size, count (&want.info) * 4);
    fail_unless (memcmp (map.data, want.v, map.size) == 0);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    gst_caps_unref (oc);
  }
  gst_harness_teardown (h);
  gst_bus_set_flushing (m.bus, TRUE);
  gst_object_unref (m.bus);
  gst_object_unref (m.e);
  g_free (caps);
  g_free (dims);
  g_free (a.v);
  g_free (want.v);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* An output no buffer pool can hold (40000 x 40000 float32, 6.4 GB) is an
 * element error that gives the size, not a warning and a pipeline that
 * waits forever. */
GST_START_TEST (test_output_too_large)
{
  gchar *dir = g_dir_make_tmp ("tnmm-XXXXXX", NULL);
  gchar *w = g_build_filename (dir, "w.npy", NULL), *desc, *text;
  /* float32 <1, 40000> of zeros */
  const int64_t wd[] = { 1, 40000 };
  GstElement *p;
  GstMessage *msg;
  GstBus *bus;
  tn_array zeros;
  tn_err e;

  fail_unless (tn_array_init (&zeros, TN_FLOAT32, wd, 2, &e) == 0, "%s", e.msg);
  fail_unless (tn_array_save_npy (w, &zeros, &e) == 0, "%s", e.msg);
  tn_array_clear (&zeros);
  desc = g_strdup_printf ("tensorsrc num-buffers=1 ! "
                          "tensor/x-raw,type=float32,dims=<40000,1> ! "
                          "tensormatmul weights=%s ! fakesink",
      w);
  p = gst_parse_launch (desc, NULL);
  fail_unless (p != NULL);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 20 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "no error and no EOS within 20 s: a stall");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  /* the message, once more, from a second run on a fresh bus */
  gst_element_set_state (p, GST_STATE_PLAYING);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  while (text == NULL) {
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      text = g_strdup (err->message);
      g_error_free (err);
    }
    gst_message_unref (msg);
  }
  tn_assert_contains (text, "6400000000 bytes");
  gst_element_set_state (p, GST_STATE_NULL);
  g_free (text);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_unlink (w);
  g_rmdir (dir);
  g_free (desc);
  g_free (w);
  g_free (dir);
}
GST_END_TEST;

static Suite *
tensormatmul_suite (void)
{
  Suite *s = suite_create ("tensormatmul");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_weights_types);
  tcase_add_test (tc, test_golden_cases);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_pairing);
  tcase_add_test (tc, test_pairing_earlier_b);
  tcase_add_test (tc, test_stream_shape_changes);
  tcase_add_test (tc, test_b_ends_empty);
  tcase_add_test (tc, test_strided_input);
  tcase_add_test (tc, test_direct_path);
  tcase_add_test (tc, test_direct_flush);
  tcase_add_test (tc, test_direct_short_buffer);
  tcase_add_test (tc, test_direct_signals);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_start_errors);
  tcase_add_test (tc, test_short_buffer);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_minimal_caps);
  tcase_add_test (tc, test_output_too_large);
  return s;
}

GST_CHECK_MAIN (tensormatmul);
