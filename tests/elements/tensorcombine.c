/* tensorcombine: every op on every dtype it takes against NumPy goldens
 * (tests/data/gen/gen_combine.py, the core suite's folder) through the
 * element, dense and strided; the broadcasting cases and folds over three
 * pads; negotiation failures and their messages; the output in sink_0's
 * memory when it may be written and from the pool when not (data
 * pointers), never after a tee; n-threads 1, 2 and 4 give the same bits. */
#include "common/aggpipe.h"

#include <math.h>

#include "core/cast.h"

static gpointer
data_of (GstBuffer *b)
{
  GstMapInfo m;
  gpointer p;

  fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
  p = m.data;
  gst_buffer_unmap (b, &m);
  return p;
}

/* One output of agg on buffers a and b (taken): a copy of it, so that the
 * pool's counters are back to zero when the pipeline goes (*data: where
 * the output's items were). */
static GstBuffer *
run2p (const gchar *agg, const GstTnInfo *ia, GstBuffer *a, const GstTnInfo *ib,
    GstBuffer *b, GstTnInfo *out, gpointer *data)
{
  AggPipe p;
  GstBuffer *o, *copy;

  aggpipe_new (&p, agg, 2);
  aggpipe_caps (&p, 0, ia);
  aggpipe_caps (&p, 1, ib);
  aggpipe_push (&p, 0, a);
  aggpipe_push (&p, 1, b);
  aggpipe_eos (&p, 0);
  aggpipe_eos (&p, 1);
  aggpipe_play (&p);
  o = aggpipe_pull (&p, out);
  fail_unless (o != NULL, "%s: no output", agg);
  if (data)
    *data = data_of (o);
  /* In system memory: a deep copy would come from the tensor allocator. */
  {
    GstMapInfo m;

    fail_unless (gst_buffer_map (o, &m, GST_MAP_READ));
    copy = m.size ? gst_buffer_new_memdup (m.data, m.size) : gst_buffer_new ();
    gst_buffer_unmap (o, &m);
  }
  gst_buffer_unref (o);
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
  return copy;
}

static GstBuffer *
run2 (const gchar *agg, const GstTnInfo *ia, GstBuffer *a, const GstTnInfo *ib,
    GstBuffer *b, GstTnInfo *out)
{
  return run2p (agg, ia, a, ib, b, out, NULL);
}

/* got against want: bytes equal, NaN against NaN, or (ulps) within that. */
static void
check_items (GstBuffer *got, const guint8 *want, gint64 n, tn_dtype t,
    gint ulps, const gchar *what)
{
  const gsize es = tn_dtype_size (t);
  GstMapInfo m;

  fail_unless (gst_buffer_map (got, &m, GST_MAP_READ));
  fail_unless_equals_uint64 (m.size, (guint64) n * es);
  for (gint64 i = 0; i < n; i++) {
    const guint8 *g = m.data + i * es, *w = want + i * es;
    gboolean flt = tn_dtype_kind (t) == TN_KIND_FLOAT;
    double gv = tn_get_f64 (g, t), wv = tn_get_f64 (w, t);

    if (memcmp (g, w, es) == 0 || (flt && isnan (gv) && isnan (wv)))
      continue;
    if (flt && ulps && fabs (gv - wv) <= fabs (wv) * ldexp (1.0, -9))
      continue; /* pow: the C library's, on half types too */
    fail ("%s: item %" G_GINT64_FORMAT ": got %.17g, want %.17g", what, i, gv,
        wv);
  }
  gst_buffer_unmap (got, &m);
}

static const gchar *const arith[]
    = { "add", "sub", "mul", "div", "pow", "mod", "min", "max" };
static const gchar *const rel[] = { "eq", "ne", "lt", "le", "gt", "ge" };
static const gchar *const bit[] = { "and", "or", "xor" };

/* _i: the dtype.  Every op on x and y, dense; strided too for one dtype
 * of each kind (the views are read by the same core, whatever the type:
 * this keeps the test at seconds under ASan). */
GST_START_TEST (test_golden)
{
  const tn_dtype t = (tn_dtype) __i__;
  const gchar *d = tn_dtype_name (t);
  gchar *name;
  Npy x, y, want;
  GstTnInfo info, out;

  name = g_strdup_printf ("combine_x_%s.npy", d);
  npy_load (&x, name);
  g_free (name);
  name = g_strdup_printf ("combine_y_%s.npy", d);
  npy_load (&y, name);
  g_free (name);
  info = aggpipe_npy_info (&x);
  for (guint fam = 0; fam < 3; fam++) {
    const gchar *const *ops = fam == 0 ? arith : fam == 1 ? rel : bit;
    const guint nops = fam == 0 ? 8 : fam == 1 ? 6 : 3;
    const tn_dtype wt = fam == 1 ? TN_BOOL : t;

    name = g_strdup_printf ("combine_%s_%s.npy",
        fam == 0   ? "out"
        : fam == 1 ? "rel"
                   : "bit",
        d);
    if (!npy_try_load (&want, name)) {
      /* No arithmetic on bool, no bitwise ops on floats. */
      fail_unless (
          fam == 0 ? t == TN_BOOL : tn_dtype_kind (t) == TN_KIND_FLOAT);
      g_free (name);
      continue;
    }
    g_free (name);
    for (guint op = 0; op < nops; op++) {
      const gboolean views = t == TN_BOOL || t == TN_UINT8 || t == TN_INT16
                             || t == TN_FLOAT16 || t == TN_FLOAT64;

      for (gint strided = 0; strided < (views ? 2 : 1); strided++) {
        gchar *agg = g_strdup_printf ("tensorcombine op=%s", ops[op]);
        gchar *what = g_strdup_printf (
            "%s on %s%s", agg, d, strided ? " (strided)" : "");
        GstBuffer *o = run2 (agg, &info,
            strided ? aggpipe_npy_strided (&x, 0, GST_SECOND)
                    : aggpipe_npy_buffer (&x, 0, GST_SECOND),
            &info,
            strided ? aggpipe_npy_strided (&y, 0, GST_SECOND)
                    : aggpipe_npy_buffer (&y, 0, GST_SECOND),
            &out);

        fail_unless_equals_int (out.dtype, wt);
        fail_unless_equals_int (out.rank, 1);
        fail_unless_equals_int64 (out.dims[0], x.count);
        check_items (o, want.data + op * x.count * tn_dtype_size (wt), x.count,
            wt, fam == 0 && op == 4, what);
        gst_buffer_unref (o);
        g_free (agg);
        g_free (what);
      }
    }
    npy_clear (&want);
  }
  npy_clear (&x);
  npy_clear (&y);
}

GST_END_TEST;

/* The broadcasting cases of the core's goldens, every one through the
 * element (three pads for where), and two folds over three pads whose
 * sink_0 is smaller than the output. */
GST_START_TEST (test_broadcast)
{
  gchar *path = npy_data_path ("combine_bcast.txt"), *text, **lines;
  static const gchar *const folds[][2]
      = { { "fold", "sub" }, { "ifold", "min" } };

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (g_strstrip (text), "\n", -1);
  for (guint l = 0; lines[l]; l++) {
    gchar **f = g_strsplit (lines[l], " ", -1);
    guint n = (guint) atoi (f[2]);
    gchar *ins[3], *agg = g_strdup_printf ("tensorcombine op=%s", f[1]);
    gchar *want = g_strdup_printf ("combine_b%s_out.npy", f[0]);
    gboolean empty = FALSE;
    Npy o;

    npy_load (&o, want);
    empty = o.count == 0;
    npy_clear (&o);
    for (guint k = 0; k < n; k++)
      ins[k] = g_strdup_printf ("combine_b%s_%u.npy", f[0], k);
    if (empty) {
      /* An empty tensor: buffers of no bytes, an output of none. */
      Npy f[2];
      GstTnInfo in[2], out;
      GstBuffer *b[2], *ob;

      fail_unless_equals_int (n, 2);
      for (guint k = 0; k < 2; k++) {
        npy_load (&f[k], ins[k]);
        in[k] = aggpipe_npy_info (&f[k]);
        b[k] = f[k].size ? aggpipe_npy_buffer (&f[k], 0, GST_SECOND)
                         : gst_buffer_new ();
        GST_BUFFER_PTS (b[k]) = 0;
        GST_BUFFER_DURATION (b[k]) = GST_SECOND;
      }
      ob = run2 (agg, &in[0], b[0], &in[1], b[1], &out);
      npy_load (&o, want);
      fail_unless_equals_int (out.rank, o.rank);
      for (gint i = 0; i < o.rank; i++)
        fail_unless_equals_int64 (out.dims[i], o.dims[i]);
      fail_unless_equals_uint64 (gst_buffer_get_size (ob), 0);
      gst_buffer_unref (ob);
      npy_clear (&o);
      npy_clear (&f[0]);
      npy_clear (&f[1]);
    } else {
      for (gint strided = 0; strided < 2; strided++)
        aggpipe_golden (agg, n, ins, want, strided);
    }
    for (guint k = 0; k < n; k++)
      g_free (ins[k]);
    g_free (agg);
    g_free (want);
    g_strfreev (f);
  }
  for (guint i = 0; i < G_N_ELEMENTS (folds); i++) {
    gchar *ins[3], *agg = g_strdup_printf ("tensorcombine op=%s", folds[i][1]);
    gchar *want
        = g_strdup_printf ("combine_%s_%s_out.npy", folds[i][0], folds[i][1]);

    for (guint k = 0; k < 3; k++)
      ins[k] = g_strdup_printf ("combine_%s_%u.npy", folds[i][0], k);
    for (gint strided = 0; strided < 2; strided++)
      aggpipe_golden (agg, 3, ins, want, strided);
    for (guint k = 0; k < 3; k++)
      g_free (ins[k]);
    g_free (agg);
    g_free (want);
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
}

GST_END_TEST;

#define CAPS(t, d) "tensor/x-raw,type=" t ",dims=" d

GST_START_TEST (test_negotiation_errors)
{
  {
    const gchar *caps[]
        = { CAPS ("float32", "<480,640,3>"), CAPS ("uint8", "<480,640,3>") };
    const gchar *words[] = { "sink_1 has uint8 <480, 640, 3>",
      "sink_0 has float32 <480, 640, 3>", "op=sub",
      "put tensorop ops=cast:float32 before sink_1", NULL };

    aggpipe_expect_error ("tensorcombine op=sub", 2, caps, words);
  }
  {
    /* The narrower type on sink_0: the cast goes there. */
    const gchar *caps[] = { CAPS ("int16", "<4>"), CAPS ("float64", "<4>") };
    const gchar *words[]
        = { "put tensorop ops=cast:float64 before sink_0", NULL };

    aggpipe_expect_error ("tensorcombine op=add", 2, caps, words);
  }
  {
    const gchar *caps[]
        = { CAPS ("float32", "<480,640,3>"), CAPS ("float32", "<480,640,4>") };
    const gchar *words[] = { "sink_0 float32 <480, 640, 3>",
      "sink_1 float32 <480, 640, 4>",
      "dims <480, 640, 3> and <480, 640, 4> do not broadcast: axis 2 has 3 "
      "against 4",
      NULL };

    aggpipe_expect_error ("tensorcombine op=mul", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("float32", "<3>"), CAPS ("float32", "<3>") };
    const gchar *words[] = { "op=where takes exactly 3 pads",
      "condition, then, else", "2 are linked", NULL };

    aggpipe_expect_error ("tensorcombine op=where", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("float32", "<3>"), CAPS ("float32", "<3>"),
      CAPS ("float32", "<3>") };
    const gchar *words[] = { "op=lt takes exactly 2 pads", NULL };

    aggpipe_expect_error ("tensorcombine op=lt", 3, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("float32", "<3>"), CAPS ("float32", "<3>"),
      CAPS ("float32", "<3>") };
    const gchar *words[]
        = { "the condition of where (sink_0) must be bool, not float32", NULL };

    aggpipe_expect_error ("tensorcombine op=where", 3, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("bool", "<3>"), CAPS ("bool", "<3>") };
    const gchar *words[] = { "add does not take bool operands", NULL };

    aggpipe_expect_error ("tensorcombine", 2, caps, words);
  }
  {
    const gchar *caps[] = { CAPS ("float16", "<3>"), CAPS ("float16", "<3>") };
    const gchar *words[] = { "xor needs bool or integer operands", NULL };

    aggpipe_expect_error ("tensorcombine op=xor", 2, caps, words);
  }
}

GST_END_TEST;

static GstBuffer *
floats (gint n, gfloat start)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, n * sizeof (gfloat), NULL);
  GstMapInfo m;

  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (gint i = 0; i < n; i++)
    ((gfloat *) m.data)[i] = start + (gfloat) i;
  gst_buffer_unmap (b, &m);
  GST_BUFFER_PTS (b) = 0;
  GST_BUFFER_DURATION (b) = GST_SECOND;
  return b;
}

/* Item i of o is start + step * i. */
static void
check_ramp (GstBuffer *o, gint n, gfloat start, gfloat step)
{
  GstMapInfo m;

  fail_unless (gst_buffer_map (o, &m, GST_MAP_READ));
  fail_unless_equals_uint64 (m.size, n * sizeof (gfloat));
  for (gint i = 0; i < n; i++)
    fail_unless (((gfloat *) m.data)[i] == start + step * (gfloat) i,
        "item %d: %g", i, ((gfloat *) m.data)[i]);
  gst_buffer_unmap (o, &m);
}

/* sink_0's buffer is the output when nobody else holds it and it has the
 * output's dims; a ref kept here, a broadcast that grows it, a layout
 * meta or a bool result keep it apart. */
GST_START_TEST (test_in_place)
{
  const GstTnInfo v6 = { TN_FLOAT32, 1, { 6 }, 0, 1 };
  const GstTnInfo v23 = { TN_FLOAT32, 2, { 2, 3 }, 0, 1 };
  const GstTnInfo v3 = { TN_FLOAT32, 1, { 3 }, 0, 1 };
  GstTnInfo out;
  GstBuffer *a, *o, *keep;
  gpointer pa;

  gpointer po;

  /* Given away: written in place. */
  a = floats (6, 1);
  pa = data_of (a);
  o = run2p ("tensorcombine", &v6, a, &v6, floats (6, 10), &out, &po);
  fail_unless (po == pa, "not written in place");
  check_ramp (o, 6, 11, 2);
  gst_buffer_unref (o);

  /* A ref kept: from the pool, and ours unchanged. */
  keep = floats (6, 1);
  pa = data_of (keep);
  o = run2p ("tensorcombine", &v6, gst_buffer_ref (keep), &v6, floats (6, 10),
      &out, &po);
  fail_unless (po != pa, "written into a buffer another holds");
  check_ramp (o, 6, 11, 2);
  check_ramp (keep, 6, 1, 1);
  gst_buffer_unref (o);
  gst_buffer_unref (keep);

  /* sink_0 is <3> and the output <2, 3>: from the pool. */
  a = floats (3, 0);
  pa = data_of (a);
  o = run2p ("tensorcombine", &v3, a, &v23, floats (6, 0), &out, &po);
  fail_unless (po != pa);
  fail_unless_equals_int (out.rank, 2);
  gst_buffer_unref (o);

  /* A comparison of floats gives bool: from the pool. */
  a = floats (6, 0);
  pa = data_of (a);
  o = run2p ("tensorcombine op=lt", &v6, a, &v6, floats (6, 1), &out, &po);
  fail_unless (po != pa);
  fail_unless_equals_int (out.dtype, TN_BOOL);
  {
    GstMapInfo m;

    gst_buffer_map (o, &m, GST_MAP_READ);
    fail_unless_equals_uint64 (m.size, 6);
    for (gint i = 0; i < 6; i++)
      fail_unless_equals_int (m.data[i], 1); /* i < i + 1 */
    gst_buffer_unmap (o, &m);
  }
  gst_buffer_unref (o);

  /* A sink_0 whose float32 items start at an odd byte: from the pool
   * (read through an aligned copy), the same items. */
  {
    GstBuffer *raw
        = gst_buffer_new_allocate (NULL, 6 * sizeof (gfloat) + 1, NULL);
    GstMapInfo m;

    fail_unless (gst_buffer_map (raw, &m, GST_MAP_WRITE));
    for (gint i = 0; i < 6; i++) {
      gfloat x = 1.0f + (gfloat) i;

      memcpy (m.data + 1 + i * sizeof x, &x, sizeof x);
    }
    gst_buffer_unmap (raw, &m);
    gst_buffer_resize (raw, 1, 6 * sizeof (gfloat));
    GST_BUFFER_PTS (raw) = 0;
    GST_BUFFER_DURATION (raw) = GST_SECOND;
    pa = data_of (raw);
    fail_unless ((guintptr) pa % sizeof (gfloat) != 0);
    o = run2p ("tensorcombine", &v6, raw, &v6, floats (6, 10), &out, &po);
    fail_unless (po != pa, "a misaligned buffer was written in place");
    check_ramp (o, 6, 11, 2);
    gst_buffer_unref (o);
  }

  /* An empty sink_0 whose zero extent is not the first axis, <2, 0> with
   * a <1>: written in place, no bytes (the plan's walk of such dims is
   * not a dense run; it aborted on the in-place assertion). */
  {
    const GstTnInfo v20 = { TN_FLOAT32, 2, { 2, 0 }, 0, 1 };
    const GstTnInfo v1 = { TN_FLOAT32, 1, { 1 }, 0, 1 };

    o = run2p (
        "tensorcombine", &v20, floats (0, 0), &v1, floats (1, 1), &out, NULL);
    fail_unless_equals_int (out.rank, 2);
    fail_unless_equals_int64 (out.dims[0], 2);
    fail_unless_equals_int64 (out.dims[1], 0);
    fail_unless_equals_uint64 (gst_buffer_get_size (o), 0);
    gst_buffer_unref (o);
  }

  /* A strided sink_0 (a layout meta): from the pool. */
  {
    Npy f = { 0 };
    gfloat items[6] = { 1, 2, 3, 4, 5, 6 };

    f.data = (const guint8 *) items;
    f.size = sizeof items;
    f.itemsize = 4;
    f.dtype = TN_FLOAT32;
    f.rank = 1;
    f.dims[0] = 6;
    f.count = 6;
    o = run2p ("tensorcombine", &v6, aggpipe_npy_strided (&f, 0, GST_SECOND),
        &v6, floats (6, 10), &out, &po);
    check_ramp (o, 6, 11, 2);
    gst_buffer_unref (o);
  }
}

GST_END_TEST;

/* After a tee both branches hold the buffer: sink_0 = sink_1 = x gives
 * x + x from the pool, and the other branch still sees x. */
GST_START_TEST (test_tee)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (
      "appsrc name=src format=time caps=\"tensor/x-raw,type=float32,dims=<6>\" "
      "! tee name=t "
      "t. ! queue ! c.sink_0 t. ! queue ! c.sink_1 "
      "t. ! queue ! appsink name=side sync=false "
      "tensorcombine name=c ! appsink name=out sync=false",
      &err);
  GstElement *src, *side, *outsink;
  GstSample *s1 = NULL, *s2 = NULL;
  GstBuffer *x = floats (6, 1), *o;
  GstFlowReturn ret;
  GstMapInfo m;
  gpointer px = data_of (x);

  fail_unless (pipe != NULL, "%s", err ? err->message : "");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  side = gst_bin_get_by_name (GST_BIN (pipe), "side");
  outsink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  g_signal_emit_by_name (src, "push-buffer", x, &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  gst_buffer_unref (x);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  g_signal_emit_by_name (outsink, "try-pull-sample", 5 * GST_SECOND, &s1);
  g_signal_emit_by_name (side, "try-pull-sample", 5 * GST_SECOND, &s2);
  fail_unless (s1 != NULL && s2 != NULL);
  o = gst_sample_get_buffer (s1);
  fail_unless (data_of (o) != px, "the tee's buffer was written");
  check_ramp (o, 6, 2, 2);
  gst_buffer_map (gst_sample_get_buffer (s2), &m, GST_MAP_READ);
  for (gint i = 0; i < 6; i++)
    fail_unless (((gfloat *) m.data)[i] == 1.0f + (gfloat) i);
  gst_buffer_unmap (gst_sample_get_buffer (s2), &m);
  gst_sample_unref (s1);
  gst_sample_unref (s2);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (side);
  gst_object_unref (outsink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* The element keeps each step's plan while the views stay: caps that
 * change mid-stream (sink_1 <3> -> <2,1>, then every pad <4>) and a
 * strided buffer under unchanged caps must each be planned again.  op=sub
 * over three pads, (s0 - s1) - s2, against the sums worked out here. */
GST_START_TEST (test_caps_change)
{
  enum { NBUF = 6 };
  const GstTnInfo v23 = { TN_FLOAT32, 2, { 2, 3 }, 0, 1 };
  const GstTnInfo v3 = { TN_FLOAT32, 1, { 3 }, 0, 1 };
  const GstTnInfo v21 = { TN_FLOAT32, 2, { 2, 1 }, 0, 1 };
  const GstTnInfo v4 = { TN_FLOAT32, 1, { 4 }, 0, 1 };
  gfloat s2items[6];
  AggPipe p;

  aggpipe_new (&p, "tensorcombine op=sub", 3);
  for (guint j = 0; j < NBUF; j++) {
    const gboolean last = j == NBUF - 1;
    const GstTnInfo *i0 = last ? &v4 : &v23, *i2 = i0;
    const GstTnInfo *i1 = last ? &v4 : j >= 2 ? &v21 : &v3;
    GstBuffer *b[3];

    b[0] = floats ((gint) i0->dims[0] * (i0->rank > 1 ? 3 : 1), 100.0f * j);
    b[1] = floats (i1->rank > 1 ? 2 : (gint) i1->dims[0], 10.0f * j);
    if (j == 4) {
      /* The same caps, read through a layout meta. */
      Npy f = { 0 };

      for (gint i = 0; i < 6; i++)
        s2items[i] = (gfloat) j + 0.5f * (gfloat) i;
      f.data = (const guint8 *) s2items;
      f.size = sizeof s2items;
      f.itemsize = 4;
      f.dtype = TN_FLOAT32;
      f.rank = 2;
      f.dims[0] = 2;
      f.dims[1] = 3;
      f.count = 6;
      b[2] = aggpipe_npy_strided (&f, 0, GST_SECOND);
    } else {
      GstMapInfo m;

      b[2] = floats (last ? 4 : 6, 0);
      gst_buffer_map (b[2], &m, GST_MAP_WRITE);
      for (gint i = 0; i < (last ? 4 : 6); i++)
        ((gfloat *) m.data)[i] = (gfloat) j + 0.5f * (gfloat) i;
      gst_buffer_unmap (b[2], &m);
    }
    for (guint k = 0; k < 3; k++) {
      GST_BUFFER_PTS (b[k]) = j * GST_SECOND;
      GST_BUFFER_DURATION (b[k]) = GST_SECOND;
      aggpipe_push_with_caps (&p, k, k == 0 ? i0 : k == 1 ? i1 : i2, b[k]);
    }
  }
  for (guint k = 0; k < 3; k++)
    aggpipe_eos (&p, k);
  aggpipe_play (&p);
  for (guint j = 0; j < NBUF; j++) {
    const gboolean last = j == NBUF - 1;
    const gint n = last ? 4 : 6;
    GstTnInfo info;
    GstBuffer *o = aggpipe_pull (&p, &info);
    GstMapInfo m;

    fail_unless (o != NULL, "output %u", j);
    fail_unless_equals_int (info.rank, last ? 1 : 2);
    fail_unless_equals_int64 (info.dims[0], last ? 4 : 2);
    fail_unless (gst_buffer_map (o, &m, GST_MAP_READ));
    fail_unless_equals_uint64 (m.size, n * sizeof (gfloat));
    for (gint i = 0; i < n; i++) {
      /* sink_1: <3> repeats along the rows, <2,1> along the columns. */
      const gint i1 = last ? i : j >= 2 ? i / 3 : i % 3;
      const gfloat want = (100.0f * j + (gfloat) i) - (10.0f * j + (gfloat) i1)
                          - ((gfloat) j + 0.5f * (gfloat) i);

      fail_unless (((gfloat *) m.data)[i] == want,
          "output %u item %d: %g, not %g", j, i, ((gfloat *) m.data)[i], want);
    }
    gst_buffer_unmap (o, &m);
    gst_buffer_unref (o);
  }
  fail_unless (aggpipe_wait (&p) == NULL);
  aggpipe_free (&p);
}

GST_END_TEST;

/* <400, 1000> - <1000> float32, tiled, and the same with a strided
 * sink_1, on 1, 2 and 4 threads: the same bytes, and a - b item by item. */
GST_START_TEST (test_threads)
{
  enum { R = 400, C = 1000 };
  const GstTnInfo ia = { TN_FLOAT32, 2, { R, C }, 0, 1 };
  const GstTnInfo ib = { TN_FLOAT32, 1, { C }, 0, 1 };
  static const guint threads[3] = { 1, 2, 4 };
  GstBuffer *first = NULL;

  for (guint t = 0; t < 3; t++) {
    gchar *agg
        = g_strdup_printf ("tensorcombine op=sub n-threads=%u", threads[t]);
    GstBuffer *a = gst_buffer_new_allocate (NULL, R * C * 4, NULL);
    GstBuffer *b = floats (C, -0.25f), *o;
    GstTnInfo out;
    GstMapInfo m;

    gst_buffer_map (a, &m, GST_MAP_WRITE);
    for (gint i = 0; i < R * C; i++)
      ((gfloat *) m.data)[i] = (gfloat) (i % 977) * 0.3f;
    gst_buffer_unmap (a, &m);
    GST_BUFFER_PTS (a) = 0;
    GST_BUFFER_DURATION (a) = GST_SECOND;
    o = run2 (agg, &ia, a, &ib, b, &out);
    gst_buffer_map (o, &m, GST_MAP_READ);
    for (gint i = 0; i < R * C; i++) {
      gfloat w = (gfloat) (i % 977) * 0.3f - (-0.25f + (gfloat) (i % C));

      fail_unless (((gfloat *) m.data)[i] == w, "item %d", i);
    }
    gst_buffer_unmap (o, &m);
    if (first) {
      GstMapInfo m1, m2;

      gst_buffer_map (first, &m1, GST_MAP_READ);
      gst_buffer_map (o, &m2, GST_MAP_READ);
      fail_unless (memcmp (m1.data, m2.data, m1.size) == 0);
      gst_buffer_unmap (first, &m1);
      gst_buffer_unmap (o, &m2);
      gst_buffer_unref (o);
    } else {
      first = o;
    }
    g_free (agg);
  }
  gst_buffer_unref (first);
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensorcombine", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "op");
  GEnumClass *ec;
  guint n_threads;

  fail_unless (ps != NULL && G_IS_PARAM_SPEC_ENUM (ps));
  ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  fail_unless_equals_int (ec->n_values, 18);
  fail_unless (g_enum_get_value_by_nick (ec, "where") != NULL);
  fail_unless (g_enum_get_value_by_nick (ec, "mull") == NULL);
  gst_util_set_object_arg (G_OBJECT (e), "op", "ge");
  fail_unless_equals_int (
      g_enum_get_value (ec, G_PARAM_SPEC_ENUM (ps)->default_value)->value, 0);
  g_object_get (e, "n-threads", &n_threads, NULL);
  fail_unless_equals_int (n_threads, 0);
  fail_unless (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "sync") != NULL);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
tensorcombine_suite (void)
{
  Suite *s = suite_create ("tensorcombine");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_golden, 0, TN_NDTYPES);
  tcase_add_test (tc, test_broadcast);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_tee);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_properties);
  return s;
}

GST_CHECK_MAIN (tensorcombine);
