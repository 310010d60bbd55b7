/* tensorreduce: every op on every dtype over eight axis sets, with and
 * without keepdims, against tests/data/gen/gen_reduce.py's golden files; the
 * output caps; n-threads 0/1/2 bit-identical; strided input; the pool;
 * negotiation with capsfilters on both sides; renegotiation when a
 * property changes; and every error with its message. */
#include <math.h>
#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>

#include "common/npyread.h"
#include "common/tncheck.h"
#include "core/cast.h"
#include "core/reduce.h"

static const gchar *const axes_main[]
    = { "", "0", "-1", "1", "2", "0,2", "1,3", "-1,-2" };

typedef struct {
  GstHarness *h;
  GstElement *e;
  GstBus *bus;
} Red;

/* tensorreduce with properties "name", value, ... (strings, set with
 * gst_util_set_object_arg), input caps (NULL: none yet) and its own bus. */
static void
red_new (Red *r, const gchar *caps, ...)
{
  va_list ap;
  const gchar *name;

  r->e = gst_element_factory_make ("tensorreduce", "reduce");
  fail_unless (r->e != NULL);
  r->bus = gst_bus_new ();
  gst_element_set_bus (r->e, r->bus);
  va_start (ap, caps);
  while ((name = va_arg (ap, const gchar *)) != NULL)
    gst_util_set_object_arg (G_OBJECT (r->e), name, va_arg (ap, const gchar *));
  va_end (ap);
  r->h = gst_harness_new_with_element (r->e, "sink", "src");
  if (caps)
    gst_harness_set_src_caps_str (r->h, caps);
}

static void
red_free (Red *r)
{
  gst_harness_teardown (r->h);
  gst_bus_set_flushing (r->bus, TRUE);
  gst_object_unref (r->bus);
  gst_object_unref (r->e);
}

static gchar *
tensor_caps (const gchar *type, const gchar *dims)
{
  return g_strdup_printf ("tensor/x-raw, type=(string)%s, dims=(int)%s, "
                          "dims-order=(string)row-major, "
                          "framerate=(fraction)0/1",
      type, dims);
}

static void
assert_text (gchar *text, const gchar *want)
{
  fail_unless (text != NULL, "no message (wanted \"%s\")", want);
  fail_unless_equals_string (text, want);
  g_free (text);
}

static gchar *
dims_string (const gint64 *dims, gint rank)
{
  GString *s = g_string_new ("<");

  for (gint i = 0; i < rank; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, '>');
  return g_string_free (s, FALSE);
}

/* Units in the last place between two float items (signed zeros are one
 * point). */
static gint64
ulps (tn_dtype t, const guint8 *a, const guint8 *b)
{
  guint64 ua = 0, ub = 0, sign, mag;
  gint64 oa, ob;
  gsize sz = tn_dtype_size (t);

  memcpy (&ua, a, sz);
  memcpy (&ub, b, sz);
  sign = G_GUINT64_CONSTANT (1) << (8 * sz - 1);
  mag = sign - 1;
  oa = (ua & sign) ? -(gint64) (ua & mag) : (gint64) (ua & mag);
  ob = (ub & sign) ? -(gint64) (ub & mag) : (gint64) (ub & mag);
  return oa > ob ? oa - ob : ob - oa;
}

/* core/reduce.h makes these exact for the golden inputs; the rest are
 * within its float64 bound, or one ulp of a narrower result. */
static gint64
tolerance (tn_reduce_op op, tn_dtype in)
{
  gboolean fin = tn_dtype_kind (in) == TN_KIND_FLOAT;

  if ((op == TN_REDUCE_PROD && !fin)
      || (op == TN_REDUCE_L2
          && (in == TN_FLOAT16 || in == TN_BFLOAT16 || in == TN_FLOAT32))
      || (op != TN_REDUCE_PROD && op != TN_REDUCE_L2 && op != TN_REDUCE_VAR
          && op != TN_REDUCE_STD))
    return 0;
  return tn_reduce_dtype (op, in) == TN_FLOAT64 ? 4096 : 1;
}

static void
compare (const gchar *what, tn_dtype t, const guint8 *got, const guint8 *want,
    gint64 n, gint64 max_ulps)
{
  gsize sz = tn_dtype_size (t);

  for (gint64 i = 0; i < n; i++) {
    const guint8 *g = got + i * sz, *w = want + i * sz;
    gboolean ok;

    if (max_ulps > 0)
      ok = ulps (t, g, w) <= max_ulps;
    else
      ok = memcmp (g, w, sz) == 0;
    fail_unless (ok, "%s: item %" G_GINT64_FORMAT " differs (%s)", what, i,
        tn_dtype_name (t));
  }
}

/* Every op on every dtype and axis set, with and without keepdims: the
 * output caps, and the bytes against the golden files. */
static void
check_golden (tn_reduce_op op, const gchar *set, gint64 ddof)
{
  for (gint t = 0; t < TN_NDTYPES; t++) {
    tn_dtype dt = (tn_dtype) t, rdt = tn_reduce_dtype (op, dt);
    gchar name[96], *caps, *dims;
    gint64 off = 0;
    Npy in, want;

    if (ddof && dt != TN_FLOAT32 && dt != TN_INT16)
      continue;
    g_snprintf (name, sizeof name, "reduce_in_%s.npy", tn_dtype_name (dt));
    npy_load (&in, name);
    g_snprintf (name, sizeof name, "reduce_%s%s_%s.npy", set,
        tn_reduce_op_name (op), tn_dtype_name (dt));
    npy_load (&want, name);
    dims = dims_string (in.dims, in.rank);
    caps = tensor_caps (tn_dtype_name (dt), dims);
    for (guint k = 0; k < G_N_ELEMENTS (axes_main); k++) {
      gint64 n = 0;

      for (gint keep = 0; keep < 2; keep++) {
        gchar ddof_s[16], *what;
        GstBuffer *out;
        GstCaps *oc;
        GstTnInfo oi;
        GstMapInfo map;
        gint64 odims[TN_MAX_RANK];
        gint orank;
        uint32_t mask;
        tn_axes ax;
        Red r;

        g_snprintf (ddof_s, sizeof ddof_s, "%d", (gint) ddof);
        red_new (&r, caps, "op", tn_reduce_op_name (op), "axes", axes_main[k],
            "keepdims", keep ? "true" : "false", "ddof", ddof_s, "n-threads",
            keep ? "2" : "1", NULL);
        out = gst_harness_push_and_pull (r.h,
            gst_buffer_new_memdup (in.data, in.count * tn_dtype_size (dt)));
        fail_unless (out != NULL);
        /* The output caps: the result type and the reduced dims. */
        oc = gst_pad_get_current_caps (r.h->sinkpad);
        fail_unless (gst_tn_info_from_caps (&oi, oc, NULL));
        gst_caps_unref (oc);
        fail_unless (tn_axes_parse (&ax, axes_main[k], NULL) == 0);
        fail_unless (tn_axes_mask (&ax, in.rank, &mask, NULL) == 0);
        fail_unless (tn_reduce_shape (
                         op, in.dims, in.rank, mask, keep, odims, &orank, NULL)
                     == 0);
        fail_unless_equals_int (oi.dtype, rdt);
        fail_unless_equals_int (oi.rank, orank);
        for (gint i = 0; i < orank; i++)
          fail_unless_equals_int64 (oi.dims[i], odims[i]);
        if (keep)
          fail_unless_equals_int (orank, in.rank);

        fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
        if (!keep)
          n = map.size / tn_dtype_size (rdt);
        fail_unless_equals_uint64 (map.size, n * tn_dtype_size (rdt));
        fail_unless (off + n <= want.count);
        what = g_strdup_printf ("%s of %s axes '%s' keepdims %d",
            tn_reduce_op_name (op), tn_dtype_name (dt), axes_main[k], keep);
        compare (what, rdt, map.data, want.data + off * tn_dtype_size (rdt), n,
            tolerance (op, dt));
        g_free (what);
        gst_buffer_unmap (out, &map);
        gst_buffer_unref (out);
        red_free (&r);
      }
      off += n;
    }
    fail_unless_equals_int64 (off, want.count);
    g_free (caps);
    g_free (dims);
    npy_clear (&in);
    npy_clear (&want);
  }
}

GST_START_TEST (test_golden)
{
  check_golden ((tn_reduce_op) __i__, "", 0);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_golden_ddof)
{
  check_golden (TN_REDUCE_VAR, "ddof1_", 1);
  check_golden (TN_REDUCE_STD, "ddof1_", 1);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("tensorreduce", NULL);
  GParamSpec *ps;
  gchar *axes;
  gint op, ddof;
  gboolean keep;
  gint nt;

  g_object_get (e, "op", &op, "axes", &axes, "keepdims", &keep, "ddof", &ddof,
      "n-threads", &nt, NULL);
  fail_unless_equals_int (op, TN_REDUCE_SUM);
  fail_unless_equals_string (axes, "");
  fail_unless (!keep);
  fail_unless_equals_int (ddof, 0);
  fail_unless_equals_int (nt, 0);
  g_free (axes);

  gst_util_set_object_arg (G_OBJECT (e), "op", "argmax");
  g_object_set (
      e, "axes", "-1, 0", "keepdims", TRUE, "ddof", 3, "n-threads", 0, NULL);
  g_object_get (e, "op", &op, "axes", &axes, "keepdims", &keep, "ddof", &ddof,
      "n-threads", &nt, NULL);
  fail_unless_equals_int (op, TN_REDUCE_ARGMAX);
  fail_unless_equals_string (axes, "-1, 0");
  fail_unless (keep);
  fail_unless_equals_int (ddof, 3);
  fail_unless_equals_int (nt, 0);
  g_free (axes);

  /* Every op by its nick. */
  for (gint i = 0; i < TN_REDUCE_NOPS; i++) {
    gst_util_set_object_arg (G_OBJECT (e), "op", tn_reduce_op_name (i));
    g_object_get (e, "op", &op, NULL);
    fail_unless_equals_int (op, i);
  }

  /* ddof and max-message-items store any int (an int, not a uint, so
   * that -1 is not GStreamer's 4294967295): start refuses what they
   * cannot use (test_bad_values), not GLib's warning. */
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "ddof");
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, G_MININT);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->maximum, G_MAXINT);
  ps = g_object_class_find_property (
      G_OBJECT_GET_CLASS (e), "max-message-items");
  fail_unless (G_IS_PARAM_SPEC_INT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, G_MININT);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->maximum, G_MAXINT);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->default_value, 64);
  g_object_set (e, "ddof", -1, NULL);
  g_object_get (e, "ddof", &ddof, NULL);
  fail_unless_equals_int (ddof, -1);
  /* n-threads' spec: test_n_threads_everywhere (tensorop) */
  gst_object_unref (e);
}

GST_END_TEST;

/* A ddof or max-message-items it cannot use is an error naming it and
 * the range when the element starts; set while it runs, a warning that
 * keeps the value in use. */
GST_START_TEST (test_bad_values)
{
  const struct {
    const gchar *prop, *value, *words;
  } bad[] = {
    { "ddof", "-1",
        "red: ddof=\"-1\" cannot be used: ddof is 0 "
        "(population) to 2147483647" },
    { "max-message-items", "65537",
        "red: max-message-items=\"65537\" "
        "cannot be used: max-message-items is 0 "
        "to 65536" },
    { "max-message-items", "-1",
        "red: max-message-items=\"-1\" cannot be "
        "used" },
  };
  GstElement *e;
  GstHarness *h;
  GstBus *bus;
  gchar *text;
  gint ddof, items;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    text = tn_start_error ("tensorreduce", "red", bad[i].prop, bad[i].value);
    tn_assert_contains (text, bad[i].words);
    g_free (text);
  }

  e = gst_element_factory_make ("tensorreduce", "red");
  bus = tn_bus_watch (e);
  g_object_set (e, "ddof", 1, "max-message-items", 8, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  g_object_set (e, "ddof", -2, NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "red: ddof=\"-2\" cannot be used: ddof is 0 "
                            "(population) to 2147483647; keeping ddof=\"1\"");
  g_free (text);
  g_object_set (e, "max-message-items", 70000, NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "keeping max-message-items=\"8\"");
  g_free (text);
  /* core's message ends in a full stop, which the warning drops */
  g_object_set (e, "axes", "x", NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "red: axes=\"x\" cannot be used: axes 'x' is not "
                            "a comma-separated list of integers: entry 1 is "
                            "'x'; keeping axes=\"\"");
  g_free (text);
  g_object_get (e, "ddof", &ddof, "max-message-items", &items, NULL);
  fail_unless_equals_int (ddof, 1);
  fail_unless_equals_int (items, 8);
  gst_harness_teardown (h);
  tn_bus_unwatch (e, bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* A malformed axes list is stored as set and fails the state change to
 * PAUSED with an error naming the element, the property, the text and
 * why; reducing every axis instead would be a wrong answer that looks
 * right.  Each list of the probe, then a good list again. */
GST_START_TEST (test_bad_axes)
{
  static const struct {
    const gchar *axes, *why;
  } bad[] = {
    { "0,x", "axes '0,x' is not a comma-separated list of integers: entry 2 "
             "is 'x'." },
    { "9", "axes '9': entry 1 is axis 9, outside -8..7 (a tensor has at most "
           "8 axes)." },
    { "one", "entry 1 is 'one'" },
    { "1;0", "'1;0'" },
    { "1x", "'1x'" },
    { "a", "'a'" },
    { "0,,1", "'0,,1'" },
    { "1.0", "'1.0'" },
    { "9999999999999", "9999999999999" },
  };
  GstElement *e = gst_element_factory_make ("tensorreduce", "r");
  GstBus *bus = gst_bus_new ();
  gchar *axes, *text, *want;

  gst_element_set_bus (e, bus);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_object_set (e, "axes", "1", NULL);
    g_object_set (e, "axes", bad[i].axes, NULL);
    g_object_get (e, "axes", &axes, NULL);
    fail_unless_equals_string (axes, bad[i].axes);
    g_free (axes);
    fail_unless (tn_pop_text (bus, GST_MESSAGE_WARNING) == NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    want = g_strdup_printf ("r: axes=\"%s\" cannot be used: ", bad[i].axes);
    tn_assert_contains (text, want);
    tn_assert_contains (text, bad[i].why);
    g_free (want);
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
  }
  g_object_set (e, "axes", NULL, NULL);
  g_object_get (e, "axes", &axes, NULL);
  fail_unless_equals_string (axes, "");
  g_free (axes);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (e, GST_STATE_NULL);
  fail_unless (tn_pop_text (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* While running, a malformed list is a warning that names it and keeps
 * the axes in use: the next buffer is still reduced along them. */
GST_START_TEST (test_bad_axes_while_running)
{
  const gfloat in[6] = { 1, 2, 3, 4, 5, 6 }, rows[2] = { 6, 15 };
  GstHarness *h = gst_harness_new ("tensorreduce");
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;
  GstMapInfo map;
  gchar *text, *caps = tn_tensor_caps ("float32", "<2, 3>");

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "axes", "1", NULL);
  gst_harness_set_src_caps_str (h, caps);
  g_object_set (h->element, "axes", "1x", NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "axes=\"1x\" cannot be used: ");
  tn_assert_contains (text, "keeping axes=\"1\"");
  g_free (text);
  out = gst_harness_push_and_pull (h, gst_buffer_new_memdup (in, sizeof in));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int64 (map.size, sizeof rows);
  fail_unless (memcmp (map.data, rows, sizeof rows) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_free (caps);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Hand-worked values of a 2x3 float32 tensor and its transpose given
 * through the layout meta: the same bits, dense output without the meta,
 * timestamps kept, memory from the tensor pool. */
GST_START_TEST (test_strided_and_pool)
{
  const gfloat st[6] = { 1, 2, 3, 4, 5, 6 };
  const gfloat want[3] = { 5, 7, 9 }; /* sum over axis 0 of <2, 3> */
  const gint64 tstrides[2] = { 1, 3 };
  GstBuffer *b, *out;
  GstMapInfo map;
  GstAllocator *alloc = gst_tn_allocator_get ();
  Red r;

  red_new (&r,
      "tensor/x-raw,type=float32,dims=<2,3>,dims-order=row-major,"
      "framerate=0/1",
      "axes", "0", NULL);
  b = gst_buffer_new_memdup (st, sizeof st);
  GST_BUFFER_PTS (b) = 5 * GST_SECOND;
  GST_BUFFER_DURATION (b) = GST_SECOND;
  out = gst_harness_push_and_pull (r.h, b);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, sizeof want);
  fail_unless (memcmp (map.data, want, sizeof want) == 0);
  fail_unless (gst_is_tn_memory (map.memory));
  gst_buffer_unmap (out, &map);
  fail_unless (out->pool != NULL && GST_IS_TN_BUFFER_POOL (out->pool));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND);
  gst_buffer_unref (out);
  red_free (&r);

  /* Caps <3, 2> over the same storage with strides <1, 3>: the
   * transpose; reducing axis 1 gives the same sums. */
  red_new (&r,
      "tensor/x-raw,type=float32,dims=<3,2>,dims-order=row-major,"
      "framerate=0/1",
      "axes", "1", NULL);
  b = gst_buffer_new_memdup (st, sizeof st);
  gst_tn_buffer_add_layout_meta (b, 2, 0, tstrides);
  out = gst_harness_push_and_pull (r.h, b);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless (memcmp (map.data, want, sizeof want) == 0);
  gst_buffer_unmap (out, &map);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  gst_buffer_unref (out);
  red_free (&r);
  gst_object_unref (alloc);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* tensorreduce reads strides: it offers the layout meta upstream. */
GST_START_TEST (test_propose_allocation)
{
  GstQuery *q;
  GstCaps *caps;
  Red r;

  red_new (&r, NULL, NULL);
  caps = gst_caps_from_string (
      "tensor/x-raw,type=float32,dims=<4>,dims-order=row-major,framerate=0/1");
  gst_harness_set_src_caps (r.h, gst_caps_ref (caps));
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (r.h->srcpad, q));
  fail_unless (
      gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL));
  gst_query_unref (q);
  gst_caps_unref (caps);
  red_free (&r);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Same bits on 1, 2 and all threads, for a tensor that spans many
 * chunks, rows and columns. */
GST_START_TEST (test_threads_bit_identical)
{
  const gint n0 = 1500, n1 = 1100;
  gsize bytes = (gsize) n0 * n1 * sizeof (gfloat);
  gfloat *x = g_malloc (bytes);
  static const gchar *const axes[] = { "", "0", "1" };
  static const gchar *const ops[] = { "sum", "var", "argmax", "l2" };
  gchar *caps = g_strdup_printf ("tensor/x-raw,type=float32,dims=<%d,%d>,"
                                 "dims-order=row-major,framerate=0/1",
      n0, n1);

  for (gsize i = 0; i < (gsize) n0 * n1; i++)
    x[i] = (gfloat) ((i * 2654435761u) % 100003) / 977.0f - 50.0f;
  for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
    for (guint k = 0; k < G_N_ELEMENTS (axes); k++) {
      GstBuffer *ref = NULL;

      for (gint t = 0; t < 3; t++) {
        const gchar *threads[] = { "1", "2", "0" };
        GstBuffer *out;
        Red r;

        red_new (&r, caps, "op", ops[o], "axes", axes[k], "n-threads",
            threads[t], NULL);
        out = gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (x, bytes));
        if (ref == NULL) {
          ref = out;
        } else {
          {
            GstMapInfo m1, m2;

            fail_unless (gst_buffer_map (ref, &m1, GST_MAP_READ));
            fail_unless (gst_buffer_map (out, &m2, GST_MAP_READ));
            fail_unless_equals_uint64 (m1.size, m2.size);
            fail_unless (memcmp (m1.data, m2.data, m1.size) == 0,
                "%s axes '%s': %s threads differ from 1", ops[o], axes[k],
                threads[t]);
            gst_buffer_unmap (ref, &m1);
            gst_buffer_unmap (out, &m2);
          }
          gst_buffer_unref (out);
        }
        red_free (&r);
      }
      gst_buffer_unref (ref);
    }
  }
  g_free (caps);
  g_free (x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_size_mismatch)
{
  const gfloat in[5] = { 0 };
  Red r;

  red_new (&r,
      "tensor/x-raw,type=float32,dims=<2,3>,dims-order=row-major,"
      "framerate=0/1",
      "axes", "1", NULL);
  fail_unless_equals_int (
      gst_harness_push (r.h, gst_buffer_new_memdup (in, sizeof in)),
      GST_FLOW_ERROR);
  assert_text (tn_pop_text (r.bus, GST_MESSAGE_ERROR),
      "The input buffer does not hold the tensor its caps describe: buffer "
      "holds 20 bytes; caps float32 <2, 3> need 24.");
  red_free (&r);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Input caps the reduction refuses: the CAPS event fails and the error
 * names the axis and the rank (or the empty axis). */
static void
expect_caps_error (const gchar *type, const gchar *dims, const gchar *op,
    const gchar *axes, const gchar *want)
{
  gchar *caps = tensor_caps (type, dims);
  Red r;

  red_new (&r, caps, "op", op, "axes", axes, NULL);
  assert_text (tn_pop_text (r.bus, GST_MESSAGE_ERROR), want);
  /* Each push sends the refused CAPS event again: one refusal, one error. */
  for (int i = 0; i < 2; i++)
    fail_unless_equals_int (
        gst_harness_push (r.h, gst_buffer_new_allocate (NULL, 4, NULL)),
        GST_FLOW_NOT_NEGOTIATED);
  fail_unless (tn_pop_text (r.bus, GST_MESSAGE_ERROR) == NULL);
  red_free (&r);
  g_free (caps);
}

GST_START_TEST (test_negotiation_errors)
{
  expect_caps_error ("float32", "<2, 3>", "sum", "2",
      "op=sum axes=\"2\" cannot reduce float32 <2, 3> tensors: axis 2 is out "
      "of range for rank 2: valid axes are -2..1.");
  expect_caps_error ("uint8", "<4>", "mean", "-2",
      "op=mean axes=\"-2\" cannot reduce uint8 <4> tensors: axis -2 is out of "
      "range for rank 1: valid axes are -1..0.");
  expect_caps_error ("int16", "<2, 2, 2>", "max", "1,-2",
      "op=max axes=\"1,-2\" cannot reduce int16 <2, 2, 2> tensors: axis 1 is "
      "given twice for rank 3 (as 1 and -2).");
  expect_caps_error ("float64", "<>", "sum", "0",
      "op=sum axes=\"0\" cannot reduce float64 <> tensors: axis 0 is out of "
      "range for rank 0: a scalar has no axes (leave axes empty to reduce "
      "it).");
  expect_caps_error ("float32", "<3, 0>", "min", "1",
      "op=min axes=\"1\" cannot reduce float32 <3, 0> tensors: min over axis "
      "1 of extent 0 has no value: the axis holds no items (dims <3, 0>); "
      "only sum, prod and l2 reduce an empty axis.");
  expect_caps_error ("int32", "<0, 4>", "argmax", "",
      "op=argmax axes=\"\" cannot reduce int32 <0, 4> tensors: argmax over "
      "axis 0 of extent 0 has no value: the axis holds no items (dims <0, "
      "4>); only sum, prod and l2 reduce an empty axis.");
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Runs a pipeline to the end; returns the first error's text (or NULL)
 * and the name of the element that posted it. */
static gchar *
run_launch (const gchar *desc, gchar **from, GstBuffer **last)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *m;
  gchar *text = NULL;

  fail_unless (
      p != NULL && err == NULL, "%s: %s", desc, err ? err->message : "?");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (
      bus, 20 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (m != NULL, "%s: neither ended nor failed", desc);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e;

    gst_message_parse_error (m, &e, NULL);
    text = g_strdup (e->message);
    if (from)
      *from = g_strdup (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    g_error_free (e);
  }
  gst_message_unref (m);
  if (last) {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
    GstSample *s = NULL;

    g_object_get (sink, "last-sample", &s, NULL);
    *last = s ? gst_buffer_ref (gst_sample_get_buffer (s)) : NULL;
    if (s)
      gst_sample_unref (s);
    gst_object_unref (sink);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

static void
assert_doubles (GstBuffer *b, const gdouble *want, gsize n)
{
  GstMapInfo map;

  fail_unless (b != NULL);
  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n * sizeof (gdouble));
  for (gsize i = 0; i < n; i++)
    fail_unless (((gdouble *) map.data)[i] == want[i],
        "item %" G_GSIZE_FORMAT " is %g, expected %g", i,
        ((gdouble *) map.data)[i], want[i]);
  gst_buffer_unmap (b, &map);
}

/* Capsfilters on both sides: downstream's dims and type pick what
 * upstream sends. */
GST_START_TEST (test_negotiate_both_ways)
{
  GstBuffer *last = NULL;
  gchar *text, *from = NULL;
  /* arange of uint8 <2, 3>: 0 1 2 / 3 4 5; means of the columns. */
  const gdouble col_means[3] = { 1.5, 2.5, 3.5 };

  /* Down: fixed input, the output capsfilter agrees. */
  text = run_launch ("tensorsrc pattern=arange num-buffers=1 "
                     "! tensor/x-raw,type=uint8,dims=<2,3> "
                     "! tensorreduce op=mean axes=0 "
                     "! tensor/x-raw,type=float64,dims=<3> "
                     "! fakesink name=out enable-last-sample=true",
      NULL, &last);
  fail_unless (text == NULL, "%s", text);
  assert_doubles (last, col_means, 3);
  gst_buffer_unref (last);

  /* Up: only downstream's caps are given.  The mean of bool, any integer
   * or float64 is float64; float64 is offered first, and tensorsrc
   * fixates <[1, MAX], 3> to <1, 3>. */
  text = run_launch ("tensorsrc pattern=arange num-buffers=1 "
                     "! tensorreduce op=mean axes=0 keepdims=true "
                     "! tensor/x-raw,type=float64,dims=<1,3> "
                     "! fakesink name=out enable-last-sample=true",
      NULL, &last);
  fail_unless (text == NULL, "%s", text);
  {
    const gdouble want[3] = { 0, 1, 2 };

    assert_doubles (last, want, 3);
  }
  gst_buffer_unref (last);

  /* Up, without keepdims: <3> out for axes=0 means <[1, MAX], 3> in. */
  text = run_launch ("tensorsrc pattern=arange num-buffers=1 "
                     "! tensorreduce op=l2 axes=1 "
                     "! tensor/x-raw,type=float64,dims=<2> "
                     "! fakesink name=out enable-last-sample=true",
      NULL, &last);
  fail_unless (text == NULL, "%s", text);
  {
    /* tensorsrc fixates <2, [1, MAX]> to <2, 1>: items 0 and 1. */
    const gdouble want[2] = { 0, 1 };

    assert_doubles (last, want, 2);
  }
  gst_buffer_unref (last);

  /* Both sides: dims from upstream's capsfilter, the type from
   * downstream's (the documented example).  Rows of 100 normal items:
   * sample standard deviations near 1. */
  text = run_launch ("tensorsrc pattern=normal num-buffers=1 "
                     "! tensor/x-raw,dims=<4,100> "
                     "! tensorreduce op=std axes=-1 ddof=1 "
                     "! tensor/x-raw,type=float16 "
                     "! fakesink name=out enable-last-sample=true",
      NULL, &last);
  fail_unless (text == NULL, "%s", text);
  {
    GstMapInfo map;

    fail_unless (gst_buffer_map (last, &map, GST_MAP_READ));
    fail_unless_equals_uint64 (map.size, 4 * 2);
    for (gint i = 0; i < 4; i++) {
      gdouble v = tn_get_f64 (map.data + 2 * i, TN_FLOAT16);

      fail_unless (v > 0.6 && v < 1.4, "std of row %d is %g", i, v);
    }
    gst_buffer_unmap (last, &map);
  }
  gst_buffer_unref (last);

  /* Refused input reaches the element (no bare "could not link") and
   * the error names the axis and the rank. */
  text = run_launch ("tensorsrc num-buffers=1 "
                     "! tensor/x-raw,type=float32,dims=<2,3> "
                     "! tensorreduce name=r axes=2 ! fakesink",
      &from, NULL);
  fail_unless_equals_string (text,
      "op=sum axes=\"2\" cannot reduce float32 <2, 3> tensors: axis 2 is out "
      "of range for rank 2: valid axes are -2..1.");
  fail_unless_equals_string (from, "r");
  g_free (text);
  g_free (from);
  from = NULL;
  /* An output capsfilter that no input satisfies with these axes: the
   * input is fixated without a hint and the element says why. */
  text = run_launch ("tensorsrc num-buffers=1 "
                     "! tensorreduce name=r axes=3 ! tensor/x-raw,dims=<4> "
                     "! fakesink",
      &from, NULL);
  fail_unless (text != NULL);
  fail_unless (strstr (text, "axis 3 is out of range") != NULL, "%s", text);
  fail_unless_equals_string (from, "r");
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

/* Downstream refuses what the reduction makes: the element says what it
 * makes. */
GST_START_TEST (test_downstream_refuses_output)
{
  GstElement *p = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("tensorsrc", NULL);
  GstElement *cf1 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *red = gst_element_factory_make ("tensorreduce", "r");
  GstElement *cf2 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstCaps *c1 = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<4,5>");
  GstCaps *c2 = gst_caps_from_string ("tensor/x-raw,type=float32");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;
  GError *err;

  g_object_set (src, "num-buffers", 1, NULL);
  g_object_set (cf1, "caps", c1, NULL);
  g_object_set (cf2, "caps", c2, NULL);
  g_object_set (red, "op", TN_REDUCE_MEAN, "axes", "1", NULL);
  gst_bin_add_many (GST_BIN (p), src, cf1, red, cf2, sink, NULL);
  fail_unless (gst_element_link_many (src, cf1, red, NULL));
  link_unchecked (red, cf2);
  link_unchecked (cf2, sink);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, NULL);
  fail_unless_equals_string (err->message,
      "The reduction makes float64 <4> tensors, which downstream does not "
      "accept.");
  fail_unless_equals_string (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "r");
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_caps_unref (c1);
  gst_caps_unref (c2);
  gst_object_unref (bus);
  gst_object_unref (p);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* transform_caps of a tensorreduce with properties "name", value, ...,
 * with a filter (NULL: none). */
static void
expect_transform_filtered (GstPadDirection dir, const gchar *caps,
    const gchar *filter, const gchar *want, ...)
{
  GstElement *e = gst_element_factory_make ("tensorreduce", NULL);
  GstBaseTransform *t = GST_BASE_TRANSFORM (e);
  GstCaps *in = gst_caps_from_string (caps), *w = gst_caps_from_string (want);
  GstCaps *f = filter ? gst_caps_from_string (filter) : NULL;
  GstCaps *got;
  const gchar *name;
  va_list ap;

  va_start (ap, want);
  while ((name = va_arg (ap, const gchar *)) != NULL)
    gst_util_set_object_arg (G_OBJECT (e), name, va_arg (ap, const gchar *));
  va_end (ap);
  got = GST_BASE_TRANSFORM_GET_CLASS (t)->transform_caps (t, dir, in, f);
  if (f)
    gst_caps_unref (f);
  fail_unless (gst_caps_is_strictly_equal (got, w),
      "%s: got %" GST_PTR_FORMAT ", want %" GST_PTR_FORMAT, caps, got, w);
  gst_caps_unref (got);
  gst_caps_unref (in);
  gst_caps_unref (w);
  gst_object_unref (e);
}

#define expect_transform(dir, caps, ...)                                       \
  expect_transform_filtered (dir, caps, NULL, __VA_ARGS__)

/* transform_caps itself, both directions. */
GST_START_TEST (test_transform_caps)
{
  /* Sink to src: the reduced dims (ranges kept) and the result types. */
  expect_transform (GST_PAD_SINK,
      "tensor/x-raw,type={uint8,float16},dims=<4,[1,8],3,5>,"
      "dims-order=row-major,framerate=30/1",
      "tensor/x-raw,type={float16,float64},dims=<[1,8],5>,"
      "dims-order=row-major,framerate=30/1",
      "op", "mean", "axes", "0,2", NULL);
  /* keepdims keeps extent 1 in place. */
  expect_transform (GST_PAD_SINK,
      "tensor/x-raw,type=float32,dims=<7,9>,dims-order=row-major",
      "tensor/x-raw,type=int64,dims=<7,1>,dims-order=row-major", "op", "argmax",
      "axes", "-1", "keepdims", "true", NULL);
  /* Unknown dims: every axis gives a scalar; otherwise no dims. */
  expect_transform (GST_PAD_SINK, "tensor/x-raw,type=int8",
      "tensor/x-raw,type=int64,dims=<>", NULL);
  expect_transform (GST_PAD_SINK, "tensor/x-raw,type=int8",
      "tensor/x-raw,type=int8", "op", "max", "axes", "1", NULL);
  /* Refused input comes last, without dims. */
  expect_transform (GST_PAD_SINK,
      "tensor/x-raw,type=float32,dims=<2,3>; "
      "tensor/x-raw,type=float64,dims=<2,3,4>",
      "tensor/x-raw,type=float64,dims=<2,3>; tensor/x-raw,type=float32", "op",
      "std", "axes", "2", NULL);
  expect_transform (GST_PAD_SINK, "tensor/x-raw,type=uint8,dims=<3,0>",
      "tensor/x-raw,type=uint8", "op", "min", "axes", "1", NULL);

  /* Src to sink: what can make downstream's caps, the type that gives
   * itself leading. */
  expect_transform (GST_PAD_SRC,
      "tensor/x-raw,type=float32,dims=<4,6>,dims-order=row-major,"
      "framerate=0/1",
      "tensor/x-raw,type={float32,float16,bfloat16},"
      "dims=<4,[0,2147483647],6>,dims-order=row-major,framerate=0/1",
      "op", "sum", "axes", "1", NULL);
  /* min needs items on the reduced axis; keepdims needs 1 there. */
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=uint16,dims=<1,6>",
      "tensor/x-raw,type=uint16,dims=<[1,2147483647],6>", "op", "min", "axes",
      "0", "keepdims", "true", NULL);
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=uint16,dims=<2,6>", "EMPTY",
      "op", "min", "axes", "0", "keepdims", "true", NULL);
  /* Every axis without keepdims: a scalar out, any input in; not a
   * scalar: nothing. */
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=int64,dims=<>",
      "tensor/x-raw,type={int64,bool,int8,uint8,int16,uint16,int32,uint32,"
      "uint64,float16,bfloat16,float32,float64}",
      "op", "argmin", NULL);
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=int64,dims=<3>", "EMPTY",
      "op", "argmin", NULL);
  /* Only float32 gives a float32 mean; two reduced axes come back. */
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=float32,dims=<2>",
      "tensor/x-raw,type=float32,dims=<2,[1,2147483647],[1,2147483647]>", "op",
      "mean", "axes", "-1,-2", NULL);
  /* No input type gives int8 from argmax. */
  expect_transform (GST_PAD_SRC, "tensor/x-raw,type=int8,dims=<2>", "EMPTY",
      "op", "argmax", "axes", "0", NULL);
  /* With upstream's offer as the filter. */
  expect_transform_filtered (GST_PAD_SRC, "tensor/x-raw,type=float64,dims=<4>",
      "tensor/x-raw,type={float32,uint8},dims=<4,5>",
      "tensor/x-raw,type=uint8,dims=<4,5>", "op", "mean", "axes", "1", NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The caps query on the sink pad: the base class's answer (downstream's
 * caps first when they would do as input), then any tensor. */
GST_START_TEST (test_sink_caps_query)
{
  GstCaps *caps, *want;
  Red r;

  red_new (&r, NULL, "op", "mean", "axes", "0", NULL);
  gst_harness_set_sink_caps_str (r.h, "tensor/x-raw,type=float64,dims=<3>");
  caps = gst_pad_peer_query_caps (r.h->srcpad, NULL);
  want = gst_caps_from_string (
      "tensor/x-raw,type={float64,bool,int8,uint8,int16,uint16,int32,uint32,"
      "int64,uint64},dims=<[1,2147483647],3>,dims-order=row-major,"
      "framerate=[0/1,2147483647/1]; " GST_TN_CAPS_ANY);
  fail_unless (gst_caps_is_strictly_equal (caps, want), "got %s",
      gst_caps_to_string (caps));
  gst_caps_unref (caps);
  gst_caps_unref (want);
  /* With a filter: its part of each. */
  want = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<4,3>");
  caps = gst_pad_peer_query_caps (r.h->srcpad, want);
  gst_caps_unref (want);
  want = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<4,3>,"
                               "dims-order=row-major,"
                               "framerate=(fraction)[0/1,MAX]");
  fail_unless (gst_caps_is_subset (caps, want), "got %" GST_PTR_FORMAT, caps);
  fail_unless_equals_int (gst_caps_get_size (caps), 1);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  red_free (&r);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A property change while playing renegotiates: new caps, new values. */
GST_START_TEST (test_renegotiate)
{
  const gint32 in[6] = { 1, 2, 3, 4, 5, 6 };
  GstBuffer *out;
  GstMapInfo map;
  GstCaps *caps;
  GstTnInfo info;
  Red r;

  red_new (&r,
      "tensor/x-raw,type=int32,dims=<2,3>,dims-order=row-major,"
      "framerate=0/1",
      "axes", "1", NULL);
  out = gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (in, sizeof in));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int64 (((gint64 *) map.data)[0], 6);
  fail_unless_equals_int64 (((gint64 *) map.data)[1], 15);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  g_object_set (r.e, "op", TN_REDUCE_MEAN, "axes", "0", "keepdims", TRUE, NULL);
  out = gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (in, sizeof in));
  caps = gst_pad_get_current_caps (r.h->sinkpad);
  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  gst_caps_unref (caps);
  fail_unless_equals_int (info.dtype, TN_FLOAT64);
  fail_unless_equals_int (info.rank, 2);
  fail_unless_equals_int64 (info.dims[0], 1);
  fail_unless_equals_int64 (info.dims[1], 3);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 3 * sizeof (gdouble));
  fail_unless (((gdouble *) map.data)[0] == 2.5);
  fail_unless (((gdouble *) map.data)[2] == 4.5);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  red_free (&r);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Empty axes, empty outputs and scalars. */
GST_START_TEST (test_zero_size_and_rank0)
{
  const gfloat scalar = -2.5f;
  GstBuffer *out;
  GstMapInfo map;
  Red r;

  /* sum over an empty axis: zeros; prod: ones (int64 for int8). */
  red_new (&r,
      "tensor/x-raw,type=float32,dims=<3,0>,dims-order=row-major,"
      "framerate=0/1",
      "axes", "1", NULL);
  out = gst_harness_push_and_pull (r.h, gst_buffer_new ());
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 12);
  for (gint i = 0; i < 3; i++)
    fail_unless (((gfloat *) map.data)[i] == 0.0f);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  red_free (&r);
  red_new (&r,
      "tensor/x-raw,type=int8,dims=<0,2>,dims-order=row-major,"
      "framerate=0/1",
      "op", "prod", "axes", "0", NULL);
  out = gst_harness_push_and_pull (r.h, gst_buffer_new ());
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 16);
  fail_unless_equals_int64 (((gint64 *) map.data)[0], 1);
  fail_unless_equals_int64 (((gint64 *) map.data)[1], 1);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  red_free (&r);

  /* An empty output: max over axis 1 of <0, 4> is <0>. */
  red_new (&r,
      "tensor/x-raw,type=float32,dims=<0,4>,dims-order=row-major,"
      "framerate=0/1",
      "op", "max", "axes", "1", NULL);
  out = gst_harness_push_and_pull (r.h, gst_buffer_new ());
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 0);
  gst_buffer_unref (out);
  red_free (&r);

  /* A scalar: every axis of none. */
  red_new (&r,
      "tensor/x-raw,type=float32,dims=<>,dims-order=row-major,"
      "framerate=0/1",
      "op", "l2", NULL);
  out = gst_harness_push_and_pull (
      r.h, gst_buffer_new_memdup (&scalar, sizeof scalar));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 4);
  fail_unless (((gfloat *) map.data)[0] == 2.5f);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  red_free (&r);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* post-messages=true: each result on the bus with its values (up to
 * max-message-items), type, dims and time; the values are NumPy's
 * np.arange(6).reshape(2, 3).sum(axis=1) = [3, 12] and .argmax(axis=1)
 * = [2, 2], worked out by hand. */
GST_START_TEST (test_post_messages)
{
  static const float x[6] = { 0, 1, 2, 3, 4, 5 };
  gchar *caps = tensor_caps ("float32", "<2, 3>");
  const GstStructure *s;
  const GValue *v;
  GstMessage *m;
  GstBuffer *b;
  Red r;

  red_new (&r, caps, "axes", "1", "post-messages", "true", NULL);
  b = gst_buffer_new_memdup (x, sizeof x);
  GST_BUFFER_PTS (b) = 2 * GST_SECOND;
  GST_BUFFER_DURATION (b) = GST_SECOND;
  gst_buffer_unref (gst_harness_push_and_pull (r.h, b));
  m = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT);
  fail_unless (m != NULL);
  s = gst_message_get_structure (m);
  fail_unless (gst_structure_has_name (s, "tensorreduce"));
  fail_unless_equals_string (gst_structure_get_string (s, "op"), "sum");
  fail_unless_equals_string (gst_structure_get_string (s, "type"), "float32");
  v = gst_structure_get_value (s, "dims");
  fail_unless_equals_int (gst_value_array_get_size (v), 1);
  fail_unless_equals_int (
      g_value_get_int (gst_value_array_get_value (v, 0)), 2);
  v = gst_structure_get_value (s, "values");
  fail_unless (v != NULL);
  fail_unless_equals_int (gst_value_array_get_size (v), 2);
  fail_unless_equals_float (
      g_value_get_double (gst_value_array_get_value (v, 0)), 3.0);
  fail_unless_equals_float (
      g_value_get_double (gst_value_array_get_value (v, 1)), 12.0);
  {
    guint64 ts, dur;
    gint64 items;

    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
    fail_unless (gst_structure_get_int64 (s, "items", &items));
    fail_unless_equals_uint64 (ts, 2 * GST_SECOND);
    fail_unless_equals_uint64 (dur, GST_SECOND);
    fail_unless_equals_int64 (items, 2);
  }
  gst_message_unref (m);

  /* argmax gives int64 values; one item allowed: no values at all */
  g_object_set (r.e, "max-message-items", 1, NULL);
  gst_util_set_object_arg (G_OBJECT (r.e), "op", "argmax");
  gst_buffer_unref (
      gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (x, sizeof x)));
  m = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT);
  fail_unless (m != NULL);
  s = gst_message_get_structure (m);
  fail_unless_equals_string (gst_structure_get_string (s, "type"), "int64");
  fail_if (gst_structure_has_field (s, "values"));
  gst_message_unref (m);
  g_object_set (r.e, "max-message-items", 2, NULL);
  gst_buffer_unref (
      gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (x, sizeof x)));
  m = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT);
  v = gst_structure_get_value (gst_message_get_structure (m), "values");
  fail_unless (v != NULL && gst_value_array_get_size (v) == 2);
  fail_unless_equals_int64 (
      g_value_get_int64 (gst_value_array_get_value (v, 0)), 2);
  fail_unless_equals_int64 (
      g_value_get_int64 (gst_value_array_get_value (v, 1)), 2);
  gst_message_unref (m);

  /* off: nothing posted */
  g_object_set (r.e, "post-messages", FALSE, NULL);
  gst_buffer_unref (
      gst_harness_push_and_pull (r.h, gst_buffer_new_memdup (x, sizeof x)));
  fail_unless (gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT) == NULL);
  red_free (&r);
  g_free (caps);
}

GST_END_TEST;

static Suite *
tensorreduce_suite (void)
{
  Suite *s = suite_create ("tensorreduce");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_golden, 0, TN_REDUCE_NOPS);
  tcase_add_test (tc, test_golden_ddof);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_bad_axes);
  tcase_add_test (tc, test_bad_axes_while_running);
  tcase_add_test (tc, test_strided_and_pool);
  tcase_add_test (tc, test_propose_allocation);
  tcase_add_test (tc, test_threads_bit_identical);
  tcase_add_test (tc, test_size_mismatch);
  tcase_add_test (tc, test_negotiation_errors);
  tcase_add_test (tc, test_negotiate_both_ways);
  tcase_add_test (tc, test_downstream_refuses_output);
  tcase_add_test (tc, test_transform_caps);
  tcase_add_test (tc, test_sink_caps_query);
  tcase_add_test (tc, test_renegotiate);
  tcase_add_test (tc, test_zero_size_and_rank0);
  tcase_add_test (tc, test_post_messages);
  return s;
}

GST_CHECK_MAIN (tensorreduce);
