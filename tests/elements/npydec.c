/* npydec and the .npy typefinder, against the golden files written by
 * tests/data/gen/gen_npyelem.py (npyelem_<case>.npy and, for each, the C-order
 * little-endian bytes the decoder must emit in npyelem_<case>.raw). */
#define _GNU_SOURCE
#include <string.h>

#include <glib/gstdio.h>

#include <gst/base/gsttypefindhelper.h>

#include <gst/check/gstharness.h>

#include "common/tncheck.h"

typedef struct {
  GstHarness *h;
  GstBus *bus;
  GList *errors;
  GList *warnings;
} Dec;

static void
load_case (const gchar *name, guint8 **npy, gsize *npy_len, guint8 **raw,
    gsize *raw_len)
{
  gchar *f = g_strdup_printf ("npyelem_%s.npy", name);

  tn_load_data (f, npy, npy_len);
  g_free (f);
  if (raw) {
    f = g_strdup_printf ("npyelem_%s.raw", name);
    tn_load_data (f, raw, raw_len);
    g_free (f);
  }
}

/* The data offset of a golden file, read from its preamble by hand. */
static gsize
npy_data_offset (const guint8 *npy)
{
  if (npy[6] == 1)
    return 10 + (npy[8] | (npy[9] << 8));
  return 12 + (npy[8] | (npy[9] << 8) | (npy[10] << 16) | (npy[11] << 24));
}

static void
dec_start (Dec *d, gboolean split, gboolean meta, gint fps_n, gint fps_d)
{
  GstElement *e = gst_element_factory_make ("npydec", NULL);

  fail_unless (e != NULL);
  g_object_set (e, "split", split, NULL);
  if (fps_d > 0)
    g_object_set (e, "framerate", fps_n, fps_d, NULL);
  d->bus = gst_bus_new ();
  d->errors = d->warnings = NULL;
  gst_element_set_bus (e, d->bus);
  d->h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (meta)
    gst_harness_add_propose_allocation_meta (
        d->h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_set_src_caps_str (d->h, "application/x-npy");
}

static GstFlowReturn
dec_push (Dec *d, const guint8 *data, gsize len, gsize chunk)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gsize off;

  for (off = 0; off < len && ret == GST_FLOW_OK; off += chunk)
    ret = gst_harness_push (
        d->h, gst_buffer_new_memdup (data + off, MIN (chunk, len - off)));
  return ret;
}

static GstFlowReturn
dec_feed (Dec *d, const guint8 *data, gsize len, gsize chunk)
{
  GstFlowReturn ret = dec_push (d, data, len, chunk);

  fail_unless (gst_harness_push_event (d->h, gst_event_new_eos ()));
  return ret;
}

static void drain (Dec *d);

static void
dec_stop (Dec *d)
{
  gst_harness_teardown (d->h);
  drain (d);
  fail_unless (
      d->errors == NULL, "unchecked error: %s", (gchar *) d->errors->data);
  fail_unless (d->warnings == NULL, "unchecked warning: %s",
      (gchar *) d->warnings->data);
  gst_bus_set_flushing (d->bus, TRUE);
  gst_object_unref (d->bus);
}

/* Moves every error and warning on the bus into d's lists (popping one
 * type with a filter would drop the other). */
static void
drain (Dec *d)
{
  GstMessage *msg;
  GError *err = NULL;

  while ((msg = gst_bus_pop (d->bus)) != NULL) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      d->errors = g_list_append (d->errors, g_strdup (err->message));
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      d->warnings = g_list_append (d->warnings, g_strdup (err->message));
    }
    g_clear_error (&err);
    gst_message_unref (msg);
  }
}

/* The text of the first error or warning not yet looked at, or NULL. */
static gchar *
pop_text (Dec *d, GstMessageType type)
{
  GList **list = type == GST_MESSAGE_ERROR ? &d->errors : &d->warnings;
  gchar *text;

  drain (d);
  if (*list == NULL)
    return NULL;
  text = (*list)->data;
  *list = g_list_delete_link (*list, *list);
  return text;
}

static void
assert_no_message (Dec *d, GstMessageType type)
{
  gchar *text = pop_text (d, type);

  fail_unless (text == NULL, "unexpected message: %s", text);
}

/* Checks the caps fields directly, not through the plugin's parser. */
static void
check_caps (Dec *d, const gchar *type, const gint64 *dims, gint rank,
    gint fps_n, gint fps_d)
{
  GstCaps *caps = gst_pad_get_current_caps (d->h->sinkpad);
  GstStructure *s;
  const GValue *arr;
  gint i, n, d_;

  fail_unless (caps != NULL);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_has_name (s, "tensor/x-raw"));
  fail_unless_equals_string (gst_structure_get_string (s, "type"), type);
  arr = gst_structure_get_value (s, "dims");
  fail_unless (arr != NULL && GST_VALUE_HOLDS_ARRAY (arr));
  fail_unless_equals_int (gst_value_array_get_size (arr), rank);
  for (i = 0; i < rank; i++)
    fail_unless_equals_int (
        g_value_get_int (gst_value_array_get_value (arr, i)), dims[i]);
  fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d_));
  fail_unless_equals_int (n, fps_n);
  fail_unless_equals_int (d_, fps_d);
  gst_caps_unref (caps);
}

static void
check_bytes (GstBuffer *buf, const guint8 *want, gsize len)
{
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), len);
  fail_unless (gst_buffer_memcmp (buf, 0, want, len) == 0);
}

/* Decodes a golden file in chunks of chunk bytes and checks caps and
 * bytes against the .raw twin. */
static void
decode_case (const gchar *name, gsize chunk, const gchar *type,
    const gint64 *dims, gint rank)
{
  guint8 *npy, *raw;
  gsize npy_len, raw_len;
  GstBuffer *buf;
  Dec d;

  load_case (name, &npy, &npy_len, &raw, &raw_len);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, npy_len, chunk), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 1);
  buf = gst_harness_pull (d.h);
  check_caps (&d, type, dims, rank, 0, 1);
  check_bytes (buf, raw, raw_len);
  fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless (!GST_BUFFER_PTS_IS_VALID (buf));
  assert_no_message (&d, GST_MESSAGE_ERROR);
  assert_no_message (&d, GST_MESSAGE_WARNING);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);
  g_free (raw);
}

static const gint64 dims234[] = { 2, 3, 4 };

GST_START_TEST (test_every_dtype)
{
  static const gchar *names[] = { "bool", "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "int64", "uint64", "float16", "float32", "float64" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    decode_case (names[i], 1 << 20, names[i], dims234, 3);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The generator's formula, checked on the decoded items themselves so the
 * .raw files are not the only witness. */
GST_START_TEST (test_values_formula)
{
  guint8 *npy;
  gsize len;
  GstBuffer *buf;
  GstMapInfo map;
  Dec d;
  gint i;

  load_case ("int16", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, len), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (i = 0; i < 24; i++)
    fail_unless_equals_int (((const gint16 *) map.data)[i], i - 12);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);

  load_case ("float64", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, len), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (i = 0; i < 24; i++)
    fail_unless_equals_float (((const gdouble *) map.data)[i], (i - 12) * 0.25);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);

  load_case ("bool", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, len), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (i = 0; i < 24; i++)
    fail_unless_equals_int (map.data[i], i % 3 == 0);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_chunks)
{
  static const gsize chunks[] = { 1, 3, 7, 64, 4096 };
  static const gint64 dims34[] = { 3, 4 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (chunks); i++) {
    decode_case ("float64", chunks[i], "float64", dims234, 3);
    decode_case ("bool", chunks[i], "bool", dims234, 3);
    decode_case ("be_float32", chunks[i], "float32", dims34, 2);
    decode_case ("fortran", chunks[i], "float32", dims234, 3);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_versions)
{
  static const gint64 dims35[] = { 3, 5 };
  guint8 *npy;
  gsize len;

  load_case ("v2", &npy, &len, NULL, NULL);
  fail_unless_equals_int (npy[6], 2);
  g_free (npy);
  load_case ("v3", &npy, &len, NULL, NULL);
  fail_unless_equals_int (npy[6], 3);
  g_free (npy);

  decode_case ("v2", 1 << 20, "int16", dims35, 2);
  decode_case ("v3", 1 << 20, "float64", dims35, 2);
  decode_case ("v2", 1, "int16", dims35, 2);
  decode_case ("v3", 4096, "float64", dims35, 2);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_big_endian)
{
  static const gint64 dims34[] = { 3, 4 };

  decode_case ("be_int16", 1 << 20, "int16", dims34, 2);
  decode_case ("be_uint32", 1 << 20, "uint32", dims34, 2);
  decode_case ("be_float32", 1 << 20, "float32", dims34, 2);
  decode_case ("be_float64", 1 << 20, "float64", dims34, 2);
  decode_case ("be_int64", 1 << 20, "int64", dims34, 2);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Whole file in one buffer: the output is a window on the input memory. */
GST_START_TEST (test_zero_copy)
{
  guint8 *npy;
  gsize len, off;
  GstBuffer *in, *out;
  GstMapInfo imap, omap;
  Dec d;

  load_case ("float64", &npy, &len, NULL, NULL);
  off = npy_data_offset (npy);
  in = gst_buffer_new_memdup (npy, len);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (
      gst_harness_push (d.h, gst_buffer_ref (in)), GST_FLOW_OK);
  out = gst_harness_pull (d.h);
  gst_buffer_map (in, &imap, GST_MAP_READ);
  gst_buffer_map (out, &omap, GST_MAP_READ);
  fail_unless_equals_uint64 (omap.size, 24 * 8);
  fail_unless (omap.data == imap.data + off);
  gst_buffer_unmap (out, &omap);
  gst_buffer_unmap (in, &imap);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Downstream without the meta gets one dense C-order copy. */
GST_START_TEST (test_fortran_dense)
{
  static const gint64 dims34[] = { 3, 4 };

  decode_case ("fortran", 1 << 20, "float32", dims234, 3);
  decode_case ("fortran_be", 1 << 20, "int32", dims34, 2);
  decode_case ("fortran_be", 1, "int32", dims34, 2);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Checks every item of a strided buffer against the C-order raw bytes. */
static void
check_strided (GstBuffer *buf, const gint64 *dims, gint rank,
    const gint64 *strides, gsize isz, const guint8 *raw)
{
  GstMapInfo map;
  gint64 idx[TN_MAX_RANK] = { 0 };
  gint64 n = 1, c, at;
  gint k;

  for (k = 0; k < rank; k++)
    n *= dims[k];
  gst_buffer_map (buf, &map, GST_MAP_READ);
  for (c = 0; c < n; c++) {
    gint64 rem = c;

    at = 0;
    for (k = rank - 1; k >= 0; k--) {
      idx[k] = rem % dims[k];
      rem /= dims[k];
      at += idx[k] * strides[k];
    }
    fail_unless ((gsize) (at + 1) * isz <= map.size);
    fail_unless (memcmp (map.data + at * isz, raw + c * isz, isz) == 0,
        "item %" G_GINT64_FORMAT " differs", c);
  }
  gst_buffer_unmap (buf, &map);
}

/* Downstream with the meta gets the file's bytes as they are, plus the
 * column-major strides. */
static void
fortran_meta_case (const gchar *name, gsize chunk, const gchar *type,
    const gint64 *dims, gint rank, const gint64 *strides, gsize isz,
    gboolean swapped)
{
  guint8 *npy, *raw;
  gsize npy_len, raw_len, off;
  GstTnLayoutMeta *meta;
  GstBuffer *buf;
  Dec d;
  gint k;

  load_case (name, &npy, &npy_len, &raw, &raw_len);
  off = npy_data_offset (npy);
  dec_start (&d, FALSE, TRUE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, npy_len, chunk), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  check_caps (&d, type, dims, rank, 0, 1);
  meta = gst_tn_buffer_get_layout_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->rank, rank);
  fail_unless_equals_int64 (meta->offset, 0);
  for (k = 0; k < rank; k++)
    fail_unless_equals_int64 (meta->strides[k], strides[k]);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), raw_len);
  if (!swapped)
    fail_unless (gst_buffer_memcmp (buf, 0, npy + off, raw_len) == 0);
  check_strided (buf, dims, rank, strides, isz, raw);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);
  g_free (raw);
}

GST_START_TEST (test_fortran_meta)
{
  static const gint64 strides234[] = { 1, 2, 6 };
  static const gint64 dims34[] = { 3, 4 };
  static const gint64 strides34[] = { 1, 3 };

  fortran_meta_case (
      "fortran", 1 << 20, "float32", dims234, 3, strides234, 4, FALSE);
  fortran_meta_case ("fortran", 1, "float32", dims234, 3, strides234, 4, FALSE);
  fortran_meta_case (
      "fortran_be", 1 << 20, "int32", dims34, 2, strides34, 4, TRUE);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_rank0)
{
  guint8 *npy;
  gsize len;
  GstBuffer *buf;
  gdouble v = 0;
  Dec d;

  load_case ("rank0", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, 5), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  check_caps (&d, "float64", NULL, 0, 0, 1);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 8);
  gst_buffer_extract (buf, 0, &v, 8);
  fail_unless_equals_float (v, 3.5);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_zero_extent)
{
  static const gint64 dims03[] = { 0, 3 };
  static const gint64 dims205[] = { 2, 0, 5 };

  decode_case ("empty", 1 << 20, "float32", dims03, 2);
  decode_case ("empty", 1, "float32", dims03, 2);
  decode_case ("empty2", 1 << 20, "int16", dims205, 3);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Sub-tensor i must start i * step bytes after sub-tensor 0: one memory,
 * shared, not copied. */
static void
split_case (const gchar *name, const gchar *type, gboolean meta, gint fps_n,
    gint fps_d, const gint64 *sub_strides, gsize step)
{
  static const gint64 dims23[] = { 2, 3 };
  guint8 *npy, *raw;
  gsize npy_len, raw_len;
  GstBuffer *bufs[4];
  GstMapInfo m0, mi;
  GstTnLayoutMeta *lm;
  Dec d;
  gint i;

  load_case (name, &npy, &npy_len, &raw, &raw_len);
  dec_start (&d, TRUE, meta, fps_n, fps_d);
  fail_unless_equals_int (dec_feed (&d, npy, npy_len, 1 << 20), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 4);
  check_caps (
      &d, type, dims23, 2, fps_d > 0 ? fps_n : 0, fps_d > 0 ? fps_d : 1);
  for (i = 0; i < 4; i++) {
    bufs[i] = gst_harness_pull (d.h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (bufs[i]), i);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (bufs[i]), i + 1);
    if (fps_d > 0 && fps_n > 0) {
      fail_unless_equals_uint64 (GST_BUFFER_PTS (bufs[i]),
          gst_util_uint64_scale (i, fps_d * GST_SECOND, fps_n));
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (bufs[i]),
          gst_util_uint64_scale (i + 1, fps_d * GST_SECOND, fps_n)
              - gst_util_uint64_scale (i, fps_d * GST_SECOND, fps_n));
    } else {
      fail_unless (!GST_BUFFER_PTS_IS_VALID (bufs[i]));
    }
    lm = gst_tn_buffer_get_layout_meta (bufs[i]);
    if (sub_strides) {
      fail_unless (lm != NULL);
      fail_unless_equals_int (lm->rank, 2);
      fail_unless_equals_int64 (lm->offset, 0);
      fail_unless_equals_int64 (lm->strides[0], sub_strides[0]);
      fail_unless_equals_int64 (lm->strides[1], sub_strides[1]);
      check_strided (bufs[i], dims23, 2, sub_strides, 4, raw + i * 24);
    } else {
      static const gint64 dense[] = { 3, 1 };

      fail_unless (lm == NULL);
      check_bytes (bufs[i], raw + i * 24, 24);
      check_strided (bufs[i], dims23, 2, dense, 4, raw + i * 24);
    }
  }
  gst_buffer_map (bufs[0], &m0, GST_MAP_READ);
  for (i = 1; i < 4; i++) {
    gst_buffer_map (bufs[i], &mi, GST_MAP_READ);
    fail_unless (mi.data == m0.data + i * step,
        "sub-tensor %d is not inside the one data block", i);
    gst_buffer_unmap (bufs[i], &mi);
  }
  gst_buffer_unmap (bufs[0], &m0);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (bufs[i]);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  g_free (npy);
  g_free (raw);
}

GST_START_TEST (test_split)
{
  split_case ("split", "int32", FALSE, 0, 0, NULL, 24);
  split_case ("split", "int32", TRUE, 0, 0, NULL, 24);
  split_case ("split", "int32", FALSE, 10, 1, NULL, 24);
  split_case ("split", "int32", FALSE, 30000, 1001, NULL, 24);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_split_fortran)
{
  static const gint64 strides[] = { 4, 8 };

  /* With the meta: views into the file's column-major data. */
  split_case ("split_fortran", "float32", TRUE, 25, 1, strides, 4);
  /* Without: one dense copy, then contiguous regions of it. */
  split_case ("split_fortran", "float32", FALSE, 0, 0, NULL, 24);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_split_zero_extent)
{
  guint8 *npy;
  gsize len;
  Dec d;

  load_case ("empty", &npy, &len, NULL, NULL);
  dec_start (&d, TRUE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, 1 << 20), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 0);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  g_free (npy);

  /* <2, 0, 5> splits into two empty <0, 5> tensors. */
  load_case ("empty2", &npy, &len, NULL, NULL);
  dec_start (&d, TRUE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, 1 << 20), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 2);
  {
    static const gint64 dims05[] = { 0, 5 };
    GstBuffer *b;

    check_caps (&d, "int16", dims05, 2, 0, 1);
    b = gst_harness_pull (d.h);
    fail_unless_equals_uint64 (gst_buffer_get_size (b), 0);
    gst_buffer_unref (b);
    b = gst_harness_pull (d.h);
    fail_unless_equals_uint64 (gst_buffer_get_size (b), 0);
    gst_buffer_unref (b);
  }
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Feeds data and returns the error text; no buffer may come out. */
static gchar *
decode_error (const guint8 *data, gsize len, gsize chunk, gboolean split)
{
  gchar *text;
  Dec d;

  dec_start (&d, split, FALSE, 0, 0);
  dec_feed (&d, data, len, chunk);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 0);
  text = pop_text (&d, GST_MESSAGE_ERROR);
  fail_unless (text != NULL, "no error for %" G_GSIZE_FORMAT " bytes", len);
  /* One error, not one per chunk or another at EOS. */
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  return text;
}

GST_START_TEST (test_truncated_data)
{
  guint8 *npy;
  gsize len, off;
  gchar *text;

  load_case ("float32", &npy, &len, NULL, NULL);
  off = npy_data_offset (npy);
  fail_unless_equals_uint64 (len - off, 96);

  text = decode_error (npy, len - 8, 4096, FALSE);
  tn_assert_contains (text, "npy data ends after 88 of 96 bytes");
  g_free (text);
  text = decode_error (npy, len - 1, 1, FALSE);
  tn_assert_contains (text, "npy data ends after 95 of 96 bytes");
  g_free (text);
  text = decode_error (npy, off, 7, FALSE);
  tn_assert_contains (text, "npy data ends after 0 of 96 bytes");
  g_free (text);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_truncated_header)
{
  guint8 *npy;
  gsize len, off;
  gchar *text, *want;

  load_case ("float32", &npy, &len, NULL, NULL);
  off = npy_data_offset (npy);

  text = decode_error (npy, 20, 1, FALSE);
  want = g_strdup_printf (
      "npy header ends after 20 of %" G_GSIZE_FORMAT " bytes", off);
  tn_assert_contains (text, want);
  g_free (want);
  g_free (text);

  text = decode_error (npy, 4, 4096, FALSE);
  tn_assert_contains (text, "npy header ends after 4 of ");
  g_free (text);

  text = decode_error (npy, 0, 1, FALSE);
  tn_assert_contains (text, "ended before its first byte");
  g_free (text);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Every prefix of a file, fed a byte at a time, is one clean error. */
GST_START_TEST (test_every_truncation)
{
  guint8 *npy;
  gsize len, cut, off;
  gchar *text, *want;

  load_case ("v2", &npy, &len, NULL, NULL);
  off = npy_data_offset (npy);
  for (cut = 0; cut < len; cut++) {
    text = decode_error (npy, cut, cut % 2 ? 1 : 13, FALSE);
    if (cut == 0)
      want = g_strdup ("ended before its first byte");
    else if (cut < off)
      want = g_strdup_printf (
          "npy header ends after %" G_GSIZE_FORMAT " of ", cut);
    else
      want = g_strdup_printf ("npy data ends after %" G_GSIZE_FORMAT
                              " of %" G_GSIZE_FORMAT " bytes",
          cut - off, len - off);
    tn_assert_contains (text, want);
    g_free (want);
    g_free (text);
  }
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_malformed)
{
  guint8 *npy, *bad;
  gsize len;
  gchar *text;
  guint8 *p;

  load_case ("float32", &npy, &len, NULL, NULL);

  /* Wrong magic, seen at its first wrong byte even a byte at a time. */
  bad = g_memdup2 (npy, len);
  bad[5] = 'Z';
  text = decode_error (bad, len, 1, FALSE);
  tn_assert_contains (text, "byte 5");
  tn_assert_contains (text, "NUMPY");
  g_free (text);
  g_free (bad);

  /* Unknown major version. */
  bad = g_memdup2 (npy, len);
  bad[6] = 4;
  text = decode_error (bad, len, 4096, FALSE);
  tn_assert_contains (text, "version 4");
  g_free (text);
  g_free (bad);

  /* A broken dict: the shape tuple loses its closing parenthesis. */
  bad = g_memdup2 (npy, len);
  p = memmem (bad, 128, "4), }", 5);
  fail_unless (p != NULL);
  p[1] = ' ';
  text = decode_error (bad, len, 4096, FALSE);
  tn_assert_contains (text, "npy header at byte");
  g_free (text);
  g_free (bad);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_unsupported_dtype)
{
  guint8 *npy;
  gsize len;
  gchar *text;

  load_case ("complex64", &npy, &len, NULL, NULL);
  text = decode_error (npy, len, 4096, FALSE);
  tn_assert_contains (text, "c8");
  g_free (text);
  text = decode_error (npy, len, 1, FALSE);
  tn_assert_contains (text, "c8");
  g_free (text);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_split_rank0)
{
  guint8 *npy;
  gsize len;
  gchar *text;

  load_case ("rank0", &npy, &len, NULL, NULL);
  text = decode_error (npy, len, 4096, TRUE);
  tn_assert_contains (text, "rank 1 or more");
  tn_assert_contains (text, "rank-0 float64");
  g_free (text);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Bytes after an array are the start of the next one: bytes that are not
 * a header are an error that says where they start, after the tensor
 * that came before them. */
GST_START_TEST (test_trailing)
{
  guint8 *npy, *raw, *more;
  gsize len, raw_len;
  GstBuffer *buf;
  gchar *text;
  Dec d;

  load_case ("int32", &npy, &len, &raw, &raw_len);
  fail_unless_equals_uint64 (len, 224);
  more = g_malloc (len + 5);
  memcpy (more, npy, len);
  memcpy (more + len, "extra", 5);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, more, len + 5, 7), GST_FLOW_ERROR);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 1);
  buf = gst_harness_pull (d.h);
  check_bytes (buf, raw, raw_len);
  gst_buffer_unref (buf);
  text = pop_text (&d, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "expected the magic string");
  tn_assert_contains (text, "array 2 of the stream, from byte 224");
  g_free (text);
  /* One error: none again at EOS. */
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);

  /* A stream that ends inside the next header is a truncated array. */
  memcpy (more + len, "\x93NUMP", 5);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, more, len + 5, 7), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 1);
  text = pop_text (&d, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "npy header ends after 5 of 10 bytes (array 2 "
                            "of the stream, from byte 224)");
  g_free (text);
  dec_stop (&d);
  g_free (more);
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A second stream after a flush decodes from scratch. */
GST_START_TEST (test_flush_restarts)
{
  guint8 *npy, *raw;
  gsize len, raw_len;
  GstBuffer *buf;
  GstSegment seg;
  Dec d;

  load_case ("uint16", &npy, &len, &raw, &raw_len);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_push (&d, npy, 50, 10), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (d.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (d.h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (d.h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (dec_feed (&d, npy, len, 10), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 1);
  buf = gst_harness_pull (d.h);
  check_bytes (buf, raw, raw_len);
  gst_buffer_unref (buf);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A new stream-start is a new file: two files back to back, two tensors. */
GST_START_TEST (test_two_streams)
{
  static const gint64 dims34[] = { 3, 4 };
  guint8 *a, *b, *araw, *braw;
  gsize alen, blen, araw_len, braw_len;
  GstBuffer *buf;
  GstSegment seg;
  Dec d;

  load_case ("float32", &a, &alen, &araw, &araw_len);
  load_case ("be_int16", &b, &blen, &braw, &braw_len);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_push (&d, a, alen, 100), GST_FLOW_OK);
  fail_unless (
      gst_harness_push_event (d.h, gst_event_new_stream_start ("second")));
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (d.h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (dec_feed (&d, b, blen, 100), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 2);
  buf = gst_harness_pull (d.h);
  check_bytes (buf, araw, araw_len);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (d.h);
  check_bytes (buf, braw, braw_len);
  check_caps (&d, "int16", dims34, 2, 0, 1);
  gst_buffer_unref (buf);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  assert_no_message (&d, GST_MESSAGE_WARNING);
  dec_stop (&d);
  g_free (a);
  g_free (b);
  g_free (araw);
  g_free (braw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Downstream that takes no float32 gets a negotiation error naming the
 * caps, and nothing else. */
GST_START_TEST (test_not_negotiated)
{
  guint8 *npy;
  gsize len;
  gchar *text;
  Dec d;

  load_case ("float32", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  gst_harness_set_sink_caps_str (d.h, "tensor/x-raw, type=(string)uint8");
  fail_unless_equals_int (
      dec_feed (&d, npy, len, 4096), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 0);
  text = pop_text (&d, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "float32");
  tn_assert_contains (text, "2, 3, 4");
  tn_assert_contains (text, "it accepts tensor/x-raw, type=(string)uint8");
  g_free (text);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("npydec", NULL);
  gboolean split = TRUE;
  gint n = -1, d = -1;

  g_object_get (e, "split", &split, "framerate", &n, &d, NULL);
  fail_unless (!split);
  fail_unless_equals_int (n, 0);
  fail_unless_equals_int (d, 1);
  g_object_set (e, "framerate", 30000, 1001, "split", TRUE, NULL);
  g_object_get (e, "split", &split, "framerate", &n, &d, NULL);
  fail_unless (split);
  fail_unless_equals_int (n, 30000);
  fail_unless_equals_int (d, 1001);
  gst_object_unref (e);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The framerate property reaches the caps and the single buffer's time. */
GST_START_TEST (test_framerate)
{
  guint8 *npy;
  gsize len;
  GstBuffer *buf;
  Dec d;

  load_case ("int8", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 5, 1);
  fail_unless_equals_int (dec_feed (&d, npy, len, 4096), GST_FLOW_OK);
  buf = gst_harness_pull (d.h);
  check_caps (&d, "int8", dims234, 3, 5, 1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), GST_SECOND / 5);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static void
typefind_case (const guint8 *data, gsize len, gboolean is_npy)
{
  GstTypeFindProbability prob = GST_TYPE_FIND_NONE;
  GstCaps *caps = gst_type_find_helper_for_data (NULL, data, len, &prob);
  gboolean got = caps != NULL
                 && gst_structure_has_name (
                     gst_caps_get_structure (caps, 0), "application/x-npy");

  fail_unless_equals_int (got, is_npy);
  if (is_npy)
    fail_unless_equals_int (prob, GST_TYPE_FIND_MAXIMUM);
  if (caps)
    gst_caps_unref (caps);
}

GST_START_TEST (test_typefind)
{
  static const gchar *names[] = { "float32", "v2", "v3", "rank0", "empty",
    "be_int16", "fortran", "complex64" };
  guint8 *npy, *bad;
  gsize len;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    load_case (names[i], &npy, &len, NULL, NULL);
    typefind_case (npy, len, TRUE);
    g_free (npy);
  }

  load_case ("float32", &npy, &len, NULL, NULL);
  bad = g_memdup2 (npy, len);
  bad[6] = 0;
  typefind_case (bad, len, FALSE);
  bad[6] = 4;
  typefind_case (bad, len, FALSE);
  bad[6] = 1;
  bad[0] = 'N';
  typefind_case (bad, len, FALSE);
  typefind_case (npy, 7, FALSE);
  g_free (bad);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Big-endian data in a buffer nobody else holds is swapped where it lies:
 * the output is the data buffer's own memory.  In a buffer someone else
 * still holds, or in read-only memory, it is swapped in a copy and the
 * input bytes stay as they were. */
static void
big_endian_case (const guint8 *npy, gsize len, const guint8 *raw, gsize raw_len,
    gboolean hold)
{
  gsize off = npy_data_offset (npy);
  GstBuffer *data, *out;
  GstMapInfo map;
  gpointer ptr;
  Dec d;

  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (
      gst_harness_push (d.h, gst_buffer_new_memdup (npy, off)), GST_FLOW_OK);
  data = gst_buffer_new_memdup (npy + off, len - off);
  gst_buffer_map (data, &map, GST_MAP_READ);
  ptr = map.data;
  gst_buffer_unmap (data, &map);
  if (hold)
    gst_buffer_ref (data);
  fail_unless_equals_int (gst_harness_push (d.h, data), GST_FLOW_OK);
  out = gst_harness_pull (d.h);
  check_bytes (out, raw, raw_len);
  gst_buffer_map (out, &map, GST_MAP_READ);
  if (hold)
    fail_unless (map.data != ptr, "a buffer held elsewhere was written");
  else
    fail_unless (map.data == ptr, "the writable input was copied");
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  if (hold) {
    check_bytes (data, npy + off, len - off);
    gst_buffer_unref (data);
  }
  dec_stop (&d);
}

GST_START_TEST (test_big_endian_writable)
{
  guint8 *npy, *raw;
  gsize len, raw_len, off;
  GstBuffer *out;
  Dec d;

  load_case ("be_int16", &npy, &len, &raw, &raw_len);
  off = npy_data_offset (npy);
  big_endian_case (npy, len, raw, raw_len, FALSE);
  big_endian_case (npy, len, raw, raw_len, TRUE);

  /* read-only memory (a file mapped read-only) is never written */
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (
      gst_harness_push (
          d.h, gst_buffer_new_wrapped_full (
                   GST_MEMORY_FLAG_READONLY, npy, len, 0, len, NULL, NULL)),
      GST_FLOW_OK);
  out = gst_harness_pull (d.h);
  check_bytes (out, raw, raw_len);
  gst_buffer_unref (out);
  dec_stop (&d);
  /* item 0 is -6, big-endian */
  fail_unless_equals_int (npy[off], 0xff);
  fail_unless_equals_int (npy[off + 1], 0xfa);
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Downstream caps that fix only the dtype, or every field, take the
 * tensor the header describes. */
GST_START_TEST (test_negotiate_partial_and_full)
{
  static const gchar *sink_caps[] = { "tensor/x-raw, type=(string)float32",
    "tensor/x-raw, dims=(int)<2, 3, 4>",
    "tensor/x-raw, type=(string)float32, dims=(int)<2, 3, 4>, "
    "dims-order=(string)row-major, framerate=(fraction)0/1" };
  guint8 *npy, *raw;
  gsize len, raw_len;
  GstBuffer *buf;
  guint i;
  Dec d;

  load_case ("float32", &npy, &len, &raw, &raw_len);
  for (i = 0; i < G_N_ELEMENTS (sink_caps); i++) {
    dec_start (&d, FALSE, FALSE, 0, 0);
    gst_harness_set_sink_caps_str (d.h, sink_caps[i]);
    fail_unless_equals_int (dec_feed (&d, npy, len, 4096), GST_FLOW_OK);
    buf = gst_harness_pull (d.h);
    check_caps (&d, "float32", dims234, 3, 0, 1);
    check_bytes (buf, raw, raw_len);
    gst_buffer_unref (buf);
    assert_no_message (&d, GST_MESSAGE_ERROR);
    dec_stop (&d);
  }
  g_free (npy);
  g_free (raw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Upstream caps that are not application/x-npy are refused by the sink
 * pad: the data that follows is not negotiated and nothing comes out. */
GST_START_TEST (test_bad_caps)
{
  guint8 *npy;
  gsize len;
  Dec d;

  load_case ("float32", &npy, &len, NULL, NULL);
  dec_start (&d, FALSE, FALSE, 0, 0);
  gst_harness_set_src_caps_str (d.h, "text/x-raw, format=(string)utf8");
  fail_unless_equals_int (
      dec_push (&d, npy, len, len), GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 0);
  dec_stop (&d);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Streams of arrays ------------------------------------------------ */

/* What the probe on npydec's source pad saw, in order: 'c' a CAPS event,
 * 's' a SEGMENT event, 'b' a buffer; with the caps and buffers kept. */
typedef struct {
  GMutex lock;
  GString *order;
  GPtrArray *caps;
  GPtrArray *bufs;
} Rec;

static void
rec_init (Rec *r)
{
  g_mutex_init (&r->lock);
  r->order = g_string_new (NULL);
  r->caps = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_caps_unref);
  r->bufs = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
}

static void
rec_clear (Rec *r)
{
  g_string_free (r->order, TRUE);
  g_ptr_array_unref (r->caps);
  g_ptr_array_unref (r->bufs);
  g_mutex_clear (&r->lock);
}

static GstPadProbeReturn
rec_probe (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  Rec *r = user_data;

  g_mutex_lock (&r->lock);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    g_string_append_c (r->order, 'b');
    g_ptr_array_add (
        r->bufs, gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    GstCaps *caps;

    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      gst_event_parse_caps (ev, &caps);
      g_string_append_c (r->order, 'c');
      g_ptr_array_add (r->caps, gst_caps_ref (caps));
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      g_string_append_c (r->order, 's');
    }
  }
  g_mutex_unlock (&r->lock);
  return GST_PAD_PROBE_OK;
}

static void
rec_attach (Rec *r, GstElement *npydec)
{
  GstPad *src = gst_element_get_static_pad (npydec, "src");

  gst_pad_add_probe (src,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      rec_probe, r, NULL);
  gst_object_unref (src);
}

/* Checks caps fields directly: type and dims. */
static void
assert_caps (GstCaps *caps, const gchar *type, const gint64 *dims, gint rank)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const GValue *arr = gst_structure_get_value (s, "dims");
  gint i;

  fail_unless (gst_structure_has_name (s, "tensor/x-raw"));
  fail_unless_equals_string (gst_structure_get_string (s, "type"), type);
  fail_unless (arr != NULL && GST_VALUE_HOLDS_ARRAY (arr), "no dims in %s",
      gst_structure_to_string (s));
  fail_unless_equals_int (gst_value_array_get_size (arr), rank);
  for (i = 0; i < rank; i++)
    fail_unless_equals_int64 (
        g_value_get_int (gst_value_array_get_value (arr, i)), dims[i]);
}

/* The seven arrays of npydec_stream.npy (tests/data/gen/gen_npydec.py, which
 * asserts the same offsets): dtype, dims, where the data lies in the
 * stream, and whether the decoder must copy it when the whole stream is
 * one buffer at a 16-byte aligned address. */
static const struct {
  const gchar *type;
  gint rank;
  gint64 dims[3];
  gsize itemsize;
  gsize data_at;
  gsize nbytes;
  gboolean copied; /* misaligned, or big-endian in shared memory */
} parts[] = {
  { "int8", 1, { 3 }, 1, 128, 3, FALSE },
  { "float32", 3, { 2, 3, 4 }, 4, 259, 96, TRUE },
  { "int16", 2, { 3, 4 }, 2, 483, 24, TRUE },
  { "float64", 1, { 2 }, 8, 635, 16, TRUE },
  { "int8", 1, { 5 }, 1, 779, 5, FALSE },
  { "uint32", 2, { 2, 2 }, 4, 912, 16, FALSE },
  { "uint32", 2, { 2, 2 }, 4, 1056, 16, FALSE },
};

#define N_PARTS G_N_ELEMENTS (parts)
#define STREAM_LEN 1072
/* One CAPS event per change of dtype or dims: the last two arrays share. */
#define STREAM_ORDER "csbcbcbcbcbcbb"

static guint8 *part_raw[N_PARTS];
static gsize part_raw_len[N_PARTS];

static void
load_parts (void)
{
  guint k;

  for (k = 0; k < N_PARTS; k++) {
    gchar *f = g_strdup_printf ("npydec_part_%u.raw", k);

    tn_load_data (f, &part_raw[k], &part_raw_len[k]);
    fail_unless_equals_uint64 (part_raw_len[k], parts[k].nbytes);
    g_free (f);
  }
}

static void
free_parts (void)
{
  guint k;

  for (k = 0; k < N_PARTS; k++)
    g_clear_pointer (&part_raw[k], g_free);
}

/* Caps and bytes of the seven tensors of the stream, in order. */
static void
assert_stream (Rec *r)
{
  guint k;

  fail_unless_equals_string (r->order->str, STREAM_ORDER);
  fail_unless_equals_int (r->bufs->len, N_PARTS);
  fail_unless_equals_int (r->caps->len, N_PARTS - 1);
  for (k = 0; k < N_PARTS; k++) {
    GstBuffer *b = g_ptr_array_index (r->bufs, k);

    if (k < N_PARTS - 1)
      assert_caps (g_ptr_array_index (r->caps, k), parts[k].type, parts[k].dims,
          parts[k].rank);
    check_bytes (b, part_raw[k], part_raw_len[k]);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), k);
  }
}

/* Pushes the stream cut at the given offsets (ascending, inside the
 * stream) and returns what came out. */
static void
decode_stream_cut (Rec *r, const guint8 *stream, const gsize *cuts, guint n,
    GstBuffer **chunks)
{
  gsize from = 0;
  guint i;
  Dec d;

  dec_start (&d, FALSE, FALSE, 0, 0);
  rec_attach (r, d.h->element);
  for (i = 0; i <= n; i++) {
    gsize to = i < n ? cuts[i] : STREAM_LEN;
    GstBuffer *b = gst_buffer_new_memdup (stream + from, to - from);

    if (chunks)
      chunks[i] = gst_buffer_ref (b);
    fail_unless_equals_int (gst_harness_push (d.h, b), GST_FLOW_OK);
    from = to;
  }
  fail_unless (gst_harness_push_event (d.h, gst_event_new_eos ()));
  assert_no_message (&d, GST_MESSAGE_ERROR);
  assert_no_message (&d, GST_MESSAGE_WARNING);
  dec_stop (&d);
}

static gboolean
points_into (GstBuffer *b, GstBuffer *in, gsize at)
{
  GstMapInfo bm, im;
  gboolean ok;

  gst_buffer_map (b, &bm, GST_MAP_READ);
  gst_buffer_map (in, &im, GST_MAP_READ);
  ok = bm.data == im.data + at;
  gst_buffer_unmap (in, &im);
  gst_buffer_unmap (b, &bm);
  return ok;
}

/* Copied data lies outside the input, aligned for its items, in one block
 * of the tensor allocator. */
static void
assert_copied (GstBuffer *b, GstBuffer *in, gsize itemsize)
{
  GstMapInfo bm, im;

  fail_unless_equals_int (gst_buffer_n_memory (b), 1);
  fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (b, 0)));
  gst_buffer_map (b, &bm, GST_MAP_READ);
  gst_buffer_map (in, &im, GST_MAP_READ);
  fail_unless (bm.data + bm.size <= im.data || bm.data >= im.data + im.size,
      "the copy lies inside the input");
  fail_unless_equals_uint64 ((guintptr) bm.data % itemsize, 0);
  gst_buffer_unmap (in, &im);
  gst_buffer_unmap (b, &bm);
}

static guint64
allocations (void)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstTnAllocatorStats st;

  gst_tn_allocator_get_stats (alloc, &st);
  gst_object_unref (alloc);
  return st.hits + st.misses;
}

/* The concatenation in one buffer: seven tensors, six CAPS events, one
 * segment.  Aligned data is a window on the input; misaligned data (and
 * big-endian data, whose memory the decoder does not own) is copied
 * exactly once, to an aligned address. */
GST_START_TEST (test_stream_one_buffer)
{
  guint8 *stream;
  gsize len;
  GstBuffer *in;
  guint64 before;
  guint k, copies = 0;
  Rec r;

  load_parts ();
  tn_load_data ("npydec_stream.npy", &stream, &len);
  fail_unless_equals_uint64 (len, STREAM_LEN);
  rec_init (&r);
  before = allocations ();
  decode_stream_cut (&r, stream, NULL, 0, &in);
  assert_stream (&r);
  for (k = 0; k < N_PARTS; k++) {
    GstBuffer *b = g_ptr_array_index (r.bufs, k);

    if (parts[k].copied) {
      assert_copied (b, in, parts[k].itemsize);
      copies++;
    } else {
      fail_unless (
          points_into (b, in, parts[k].data_at), "array %u was copied", k);
    }
  }
  fail_unless_equals_int (copies, 3);
  fail_unless_equals_uint64 (allocations () - before, copies);
  gst_buffer_unref (in);
  rec_clear (&r);
  g_free (stream);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Cut where it hurts: inside the first magic (3), the first header (40),
 * the first data (130), at the end of an array (131), inside the second
 * magic (134), the second header (200), the second data (300), the third
 * magic (360); the last chunk holds the end of a header and two whole
 * arrays, whose data stay windows on it. */
GST_START_TEST (test_stream_awkward_cuts)
{
  static const gsize cuts[] = { 3, 40, 130, 131, 134, 200, 300, 360, 800 };
  GstBuffer *chunks[G_N_ELEMENTS (cuts) + 1];
  guint8 *stream;
  gsize len;
  guint i;
  Rec r;

  load_parts ();
  tn_load_data ("npydec_stream.npy", &stream, &len);
  rec_init (&r);
  decode_stream_cut (&r, stream, cuts, G_N_ELEMENTS (cuts), chunks);
  assert_stream (&r);
  /* Arrays 5 and 6 lie in the chunk from byte 800, at offsets 112 and
   * 256 of it: aligned for uint32, so not copied.  Array 1 spans three
   * chunks: one copy. */
  fail_unless (points_into (g_ptr_array_index (r.bufs, 5), chunks[9], 112));
  fail_unless (points_into (g_ptr_array_index (r.bufs, 6), chunks[9], 256));
  assert_copied (g_ptr_array_index (r.bufs, 1), chunks[6], 4);
  for (i = 0; i < G_N_ELEMENTS (chunks); i++)
    gst_buffer_unref (chunks[i]);
  rec_clear (&r);
  g_free (stream);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The stream in two buffers, cut at every byte: always the same seven
 * tensors and six CAPS events. */
GST_START_TEST (test_stream_every_cut)
{
  guint8 *stream;
  gsize len, cut;
  Rec r;

  load_parts ();
  tn_load_data ("npydec_stream.npy", &stream, &len);
  for (cut = 1; cut < STREAM_LEN; cut++) {
    rec_init (&r);
    decode_stream_cut (&r, stream, &cut, 1, NULL);
    assert_stream (&r);
    rec_clear (&r);
  }
  g_free (stream);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* split=true on the stream: each array splits along its axis 0; offsets
 * and timestamps run on across arrays; caps change with the sub-tensor's
 * dtype and dims. */
GST_START_TEST (test_stream_split)
{
  static const gchar *order = "csbbb"  /* int8 <> x3 */
                              "cbb"    /* float32 <3, 4> x2 */
                              "cbbb"   /* int16 <4> x3 */
                              "cbb"    /* float64 <> x2 */
                              "cbbbbb" /* int8 <> x5: after float64 */
                              "cbb"    /* uint32 <2> x2 */
                              "bb";    /* the same again */
  guint8 *stream;
  gsize len;
  guint k, c = 0, n = 0;
  gint64 i;
  Rec r;
  Dec d;

  load_parts ();
  tn_load_data ("npydec_stream.npy", &stream, &len);
  rec_init (&r);
  dec_start (&d, TRUE, FALSE, 10, 1);
  rec_attach (&r, d.h->element);
  fail_unless_equals_int (dec_feed (&d, stream, len, 61), GST_FLOW_OK);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  fail_unless_equals_string (r.order->str, order);
  for (k = 0; k < N_PARTS; k++) {
    gsize sub = parts[k].nbytes / parts[k].dims[0];

    if (k < N_PARTS - 1)
      assert_caps (g_ptr_array_index (r.caps, c++), parts[k].type,
          parts[k].dims + 1, parts[k].rank - 1);
    for (i = 0; i < parts[k].dims[0]; i++, n++) {
      GstBuffer *b = g_ptr_array_index (r.bufs, n);

      check_bytes (b, part_raw[k] + i * sub, sub);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), n);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b), n * GST_SECOND / 10);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), GST_SECOND / 10);
    }
  }
  fail_unless_equals_int (n, 19);
  fail_unless_equals_int (r.bufs->len, 19);
  dec_stop (&d);
  rec_clear (&r);
  g_free (stream);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Runs a launch line to EOS; returns the error text or NULL.  rec, if
 * given, watches the source pad of the pipeline's npydec. */
static gchar *
run_launch (const gchar *launch, Rec *rec)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (launch, &err);
  GstMessage *msg;
  GstBus *bus;
  gchar *text = NULL;

  fail_unless (p != NULL, "%s: %s", launch, err ? err->message : "?");
  if (rec) {
    GstIterator *it
        = gst_bin_iterate_all_by_element_factory_name (GST_BIN (p), "npydec");
    GValue v = G_VALUE_INIT;

    fail_unless_equals_int (gst_iterator_next (it, &v), GST_ITERATOR_OK);
    rec_attach (rec, g_value_get_object (&v));
    g_value_unset (&v);
    gst_iterator_free (it);
  }
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s did not finish", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

/* multifilesrc sends each file as one buffer: three files of three
 * shapes give three tensors, all seven give seven with six CAPS events.
 * Before the stream parser, the first file came out and the rest was
 * dropped with a warning. */
GST_START_TEST (test_multifilesrc)
{
  gchar *pattern = tn_test_data ("npydec_part_%d.npy");
  gchar *launch;
  gchar *text;
  guint k;
  Rec r;

  load_parts ();
  launch = g_strdup_printf (
      "multifilesrc location=\"%s\" stop-index=2 ! npydec ! fakesink", pattern);
  rec_init (&r);
  text = run_launch (launch, &r);
  fail_unless (text == NULL, "%s", text);
  fail_unless_equals_string (r.order->str, "csbcbcb");
  for (k = 0; k < 3; k++) {
    assert_caps (g_ptr_array_index (r.caps, k), parts[k].type, parts[k].dims,
        parts[k].rank);
    check_bytes (g_ptr_array_index (r.bufs, k), part_raw[k], part_raw_len[k]);
  }
  rec_clear (&r);
  g_free (launch);

  launch = g_strdup_printf (
      "multifilesrc location=\"%s\" ! npydec ! fakesink", pattern);
  rec_init (&r);
  text = run_launch (launch, &r);
  fail_unless (text == NULL, "%s", text);
  assert_stream (&r);
  rec_clear (&r);
  g_free (launch);
  g_free (pattern);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The concatenated file through filesrc, read 100 bytes at a time. */
GST_START_TEST (test_filesrc_concatenation)
{
  gchar *path = tn_test_data ("npydec_stream.npy");
  gchar *launch = g_strdup_printf (
      "filesrc location=\"%s\" blocksize=100 ! npydec ! fakesink", path);
  gchar *text;
  Rec r;

  load_parts ();
  rec_init (&r);
  text = run_launch (launch, &r);
  fail_unless (text == NULL, "%s", text);
  assert_stream (&r);
  rec_clear (&r);
  g_free (launch);
  g_free (path);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The stream stops short: the arrays before come out, then one error with
 * the array's number, where it starts, and the bytes expected and come. */
static void
stream_cut_case (gsize cut, guint tensors, const gchar *want)
{
  guint8 *stream;
  gsize len;
  gchar *text;
  guint k;
  Rec r;
  Dec d;

  tn_load_data ("npydec_stream.npy", &stream, &len);
  rec_init (&r);
  dec_start (&d, FALSE, FALSE, 0, 0);
  rec_attach (&r, d.h->element);
  fail_unless_equals_int (dec_feed (&d, stream, cut, 50), GST_FLOW_OK);
  fail_unless_equals_int (r.bufs->len, tensors);
  for (k = 0; k < tensors; k++)
    check_bytes (g_ptr_array_index (r.bufs, k), part_raw[k], part_raw_len[k]);
  text = pop_text (&d, GST_MESSAGE_ERROR);
  if (want) {
    tn_assert_contains (text, want);
    tn_assert_contains (text, "npydec");
  } else {
    fail_unless (text == NULL, "unexpected error: %s", text);
  }
  g_free (text);
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  rec_clear (&r);
  g_free (stream);
}

GST_START_TEST (test_stream_partial_at_eos)
{
  load_parts ();
  /* Two bytes of the second magic. */
  stream_cut_case (133, 1,
      "npy header ends after 2 of 10 bytes (array 2 of the stream, from "
      "byte 131)");
  /* Inside the third header, whose length field says 128 bytes. */
  stream_cut_case (400, 2,
      "npy header ends after 45 of 128 bytes (array 3 of the stream, from "
      "byte 355)");
  /* Inside the third array's data. */
  stream_cut_case (490, 2,
      "npy data ends after 7 of 24 bytes (array 3 of the stream, from byte "
      "355; its data starts at byte 483)");
  /* Right after an array: a clean end. */
  stream_cut_case (507, 3, NULL);
  free_parts ();
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A new stream-start inside an array loses it: say so, then decode the
 * new stream from scratch. */
GST_START_TEST (test_stream_start_inside_array)
{
  guint8 *a, *b, *braw;
  gsize alen, blen, braw_len;
  GstBuffer *buf;
  GstSegment seg;
  gchar *text;
  Dec d;

  load_case ("float32", &a, &alen, NULL, NULL);
  load_case ("be_int16", &b, &blen, &braw, &braw_len);
  dec_start (&d, FALSE, FALSE, 0, 0);
  fail_unless_equals_int (dec_push (&d, a, 150, 100), GST_FLOW_OK);
  fail_unless (
      gst_harness_push_event (d.h, gst_event_new_stream_start ("second")));
  text = pop_text (&d, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "npy data ends after 22 of 96 bytes (array 1 of "
                            "the stream, from byte 0; its data starts at "
                            "byte 128)");
  g_free (text);
  gst_segment_init (&seg, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (d.h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (dec_feed (&d, b, blen, 100), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 1);
  buf = gst_harness_pull (d.h);
  check_bytes (buf, braw, braw_len);
  gst_buffer_unref (buf);
  dec_stop (&d);
  g_free (a);
  g_free (b);
  g_free (braw);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Extents that caps cannot hold ------------------------------------ */

/* Decodes tests/data/npydec_<name>.npy whole and returns the one error;
 * nothing may come out, and no GLib critical (fatal in GstCheck). */
static gchar *
huge_case (const gchar *name, gboolean split)
{
  gchar *f = g_strdup_printf ("npydec_%s.npy", name);
  guint8 *npy;
  gsize len;
  gchar *text;

  tn_load_data (f, &npy, &len);
  fail_unless_equals_uint64 (len, 128);
  text = decode_error (npy, len, len, split);
  g_free (npy);
  g_free (f);
  return text;
}

GST_START_TEST (test_huge_extents)
{
  gchar *text;

  /* (3000000000, 0) holds no items, so its data is all there: before,
   * a critical and caps without dims. */
  text = huge_case ("huge_empty", FALSE);
  tn_assert_contains (text, "npydec");
  tn_assert_contains (text, "axis 0 has extent 3000000000; tensor caps hold "
                            "extents up to 2147483647");
  tn_assert_contains (text, "float32 array of shape (3000000000, 0)");
  g_free (text);

  /* Split, it would be 3e9 empty buffers from 128 bytes: refused. */
  text = huge_case ("huge_empty", TRUE);
  tn_assert_contains (text, "split=true would emit 3000000000 empty tensors");
  tn_assert_contains (text, "at most 65536");
  g_free (text);

  /* An inner axis is in the caps with or without split. */
  text = huge_case ("huge_inner_empty", FALSE);
  tn_assert_contains (text, "axis 1 has extent 3000000000; tensor caps hold "
                            "extents up to 2147483647");
  g_free (text);
  text = huge_case ("huge_inner_empty", TRUE);
  tn_assert_contains (text, "axis 1 has extent 3000000000; tensor caps hold "
                            "extents up to 2147483647");
  tn_assert_contains (text, "with split=true axis 0 is not in the caps");
  g_free (text);

  /* 9 GB promised: refused on the header, not after waiting for data. */
  text = huge_case ("huge_data", FALSE);
  tn_assert_contains (text, "axis 1 has extent 3000000000");
  fail_unless (strstr (text, "ends after") == NULL, "%s", text);
  g_free (text);

  /* Split, axis 0 is no caps extent: (3000000000,) of uint8 is a fine
   * stream of 3e9 scalars, here cut short after its header. */
  text = huge_case ("huge_axis0", TRUE);
  tn_assert_contains (text, "npy data ends after 0 of 3000000000 bytes");
  g_free (text);
  text = huge_case ("huge_axis0", FALSE);
  tn_assert_contains (text, "axis 0 has extent 3000000000");
  g_free (text);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The bound on a split without items is 65536 empty tensors: at the bound
 * they all come out, one past it is refused. */
GST_START_TEST (test_split_empty_bound)
{
  static const gint64 dims0[] = { 0 };
  guint8 *npy;
  gsize len;
  GstBuffer *b;
  gchar *text;
  Dec d;
  gint i;

  tn_load_data ("npydec_empty_65536.npy", &npy, &len);
  dec_start (&d, TRUE, FALSE, 0, 0);
  fail_unless_equals_int (dec_feed (&d, npy, len, len), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_in_queue (d.h), 65536);
  check_caps (&d, "int8", dims0, 1, 0, 1);
  for (i = 0; i < 65536; i++) {
    b = gst_harness_pull (d.h);
    fail_unless_equals_uint64 (gst_buffer_get_size (b), 0);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), i);
    gst_buffer_unref (b);
  }
  assert_no_message (&d, GST_MESSAGE_ERROR);
  dec_stop (&d);
  g_free (npy);

  tn_load_data ("npydec_empty_65537.npy", &npy, &len);
  text = decode_error (npy, len, len, TRUE);
  tn_assert_contains (text, "split=true would emit 65537 empty tensors for "
                            "the int8 array of shape (65537, 0)");
  g_free (text);
  g_free (npy);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- Seeking, properties, documented launch lines --------------------- */

/* The pipeline of npyelem_split.npy (int32 <4, 2, 3>, items -12..11)
 * through npydec split=true framerate=30/1 (or without split), PAUSED,
 * with a recorder on npydec's source pad. */
typedef struct {
  GstElement *p, *dec;
  GstBus *bus;
  Rec r;
} SeekRig;

static void
seek_rig_start (SeekRig *s, gboolean split)
{
  gchar *path = tn_test_data ("npyelem_split.npy");
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! npydec "
                                   "name=d split=%s framerate=30/1 ! fakesink "
                                   "sync=false",
      path, split ? "true" : "false");

  s->p = gst_parse_launch (launch, NULL);
  fail_unless (s->p != NULL);
  s->bus = gst_element_get_bus (s->p);
  s->dec = gst_bin_get_by_name (GST_BIN (s->p), "d");
  rec_init (&s->r);
  rec_attach (&s->r, s->dec);
  fail_unless_equals_int (
      gst_element_set_state (s->p, GST_STATE_PAUSED), GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (
      gst_element_get_state (s->p, NULL, NULL, GST_CLOCK_TIME_NONE),
      GST_STATE_CHANGE_SUCCESS);
  g_free (launch);
  g_free (path);
}

static void
seek_rig_forget (SeekRig *s)
{
  g_mutex_lock (&s->r.lock);
  g_string_truncate (s->r.order, 0);
  g_ptr_array_set_size (s->r.bufs, 0);
  g_mutex_unlock (&s->r.lock);
}

/* Plays to EOS; then the recorder holds what came after the seek. */
static void
seek_rig_play (SeekRig *s)
{
  GstMessage *msg;

  fail_unless_equals_int (
      gst_element_get_state (s->p, NULL, NULL, GST_CLOCK_TIME_NONE),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (s->p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (s->bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
}

static void
seek_rig_stop (SeekRig *s)
{
  gst_element_set_state (s->p, GST_STATE_NULL);
  rec_clear (&s->r);
  gst_object_unref (s->dec);
  gst_object_unref (s->bus);
  gst_object_unref (s->p);
  tn_check_no_outstanding ();
}

/* Buffer k of the recorder is sub-tensor i: offset, PTS i/30 s, the six
 * items 6 i - 12 .. 6 i - 7. */
static void
assert_sub (SeekRig *s, guint k, gint i)
{
  GstBuffer *b = g_ptr_array_index (s->r.bufs, k);
  gint32 want[6];
  GstMapInfo map;

  for (gint j = 0; j < 6; j++)
    want[j] = 6 * i + j - 12;
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), i);
  fail_unless_equals_uint64 (
      GST_BUFFER_PTS (b), gst_util_uint64_scale (i, GST_SECOND, 30));
  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, sizeof want);
  fail_unless (memcmp (map.data, want, sizeof want) == 0);
  gst_buffer_unmap (b, &map);
}

/* split=true: duration and position in buffers and in time; a flushing
 * seek by index and one by time with a stop; what npydec refuses. */
GST_START_TEST (test_seek)
{
  GstQuery *q;
  gint64 v, lo, hi;
  gboolean seekable;
  GstFormat fmt;
  SeekRig s;

  seek_rig_start (&s, TRUE);
  fail_unless (gst_element_query_duration (s.p, GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 4);
  fail_unless (gst_element_query_duration (s.p, GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, gst_util_uint64_scale (4, GST_SECOND, 30));
  q = gst_query_new_seeking (GST_FORMAT_DEFAULT);
  fail_unless (gst_element_query (s.dec, q));
  gst_query_parse_seeking (q, &fmt, &seekable, &lo, &hi);
  fail_unless (seekable);
  fail_unless_equals_int64 (lo, 0);
  fail_unless_equals_int64 (hi, 4);
  gst_query_unref (q);

  /* by index: sub-tensors 2 and 3, the first flagged DISCONT */
  seek_rig_forget (&s);
  fail_unless (gst_element_seek (s.p, 1.0, GST_FORMAT_DEFAULT,
      GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 2, GST_SEEK_TYPE_NONE, -1));
  seek_rig_play (&s);
  fail_unless_equals_string (s.r.order->str, "sbb");
  assert_sub (&s, 0, 2);
  assert_sub (&s, 1, 3);
  fail_unless (GST_BUFFER_FLAG_IS_SET (
      g_ptr_array_index (s.r.bufs, 0), GST_BUFFER_FLAG_DISCONT));
  fail_unless (gst_element_query_position (s.dec, GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 4);

  /* by time, from the PTS of 1 to that of 3: sub-tensors 1 and 2 */
  gst_element_set_state (s.p, GST_STATE_PAUSED);
  seek_rig_forget (&s);
  fail_unless (gst_element_seek (s.p, 1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, gst_util_uint64_scale (1, GST_SECOND, 30),
      GST_SEEK_TYPE_SET, gst_util_uint64_scale (3, GST_SECOND, 30)));
  seek_rig_play (&s);
  fail_unless_equals_string (s.r.order->str, "sbb");
  assert_sub (&s, 0, 1);
  assert_sub (&s, 1, 2);

  /* refused: another format, no flush, another rate */
  fail_if (gst_element_seek (s.dec, 1.0, GST_FORMAT_BYTES, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1));
  fail_if (gst_element_seek (s.dec, 1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_NONE,
      GST_SEEK_TYPE_SET, 1, GST_SEEK_TYPE_NONE, -1));
  fail_if (gst_element_seek (s.dec, 2.0, GST_FORMAT_DEFAULT,
      GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 1, GST_SEEK_TYPE_NONE, -1));
  seek_rig_stop (&s);
}

GST_END_TEST;

/* Without split, as documented: a seek returns FALSE, posts nothing, and
 * the stream goes on to its end, its one buffer once. */
GST_START_TEST (test_seek_refused)
{
  SeekRig s;

  seek_rig_start (&s, FALSE);
  fail_if (gst_element_seek_simple (
      s.p, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SECOND / 15));
  seek_rig_play (&s);
  fail_unless_equals_string (s.r.order->str, "csb");
  seek_rig_stop (&s);
}

GST_END_TEST;

/* split and framerate shape a whole stream: once running, a new value is
 * refused with a warning (GStreamer's convention) and the old one kept. */
GST_START_TEST (test_properties_running)
{
  gboolean split = TRUE;
  gint n = -1, d_ = -1;
  Dec d;

  dec_start (&d, FALSE, FALSE, 0, 0);
  gst_harness_play (d.h);
  ASSERT_WARNING (g_object_set (d.h->element, "split", TRUE, NULL));
  ASSERT_WARNING (g_object_set (d.h->element, "framerate", 5, 1, NULL));
  g_object_get (d.h->element, "split", &split, "framerate", &n, &d_, NULL);
  fail_unless (!split);
  fail_unless_equals_int (n, 0);
  fail_unless_equals_int (d_, 1);
  dec_stop (&d);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The example launch lines of a SECTION block in elements/<file>, as a
 * shell would see them: " * " dropped, backslash-newlines joined. */

/* Runs one documented command in the current directory: gst-launch-1.0
 * through gst_parse_launchv (what gst-launch does with its arguments), or
 * `cat FILES > OUT`. */
static void
doc_run (const gchar *cmd, Rec *rec)
{
  gchar **argv = NULL;
  GError *err = NULL;

  fail_unless (g_shell_parse_argv (cmd, NULL, &argv, &err), "%s: %s", cmd,
      err ? err->message : "?");
  if (strcmp (argv[0], "cat") == 0) {
    GString *all = g_string_new (NULL);
    guint i;

    for (i = 1; argv[i] && strcmp (argv[i], ">") != 0; i++) {
      gchar *c;
      gsize n;

      fail_unless (g_file_get_contents (argv[i], &c, &n, NULL), "%s", cmd);
      g_string_append_len (all, c, n);
      g_free (c);
    }
    fail_unless (argv[i] && argv[i + 1] && !argv[i + 2], "%s", cmd);
    fail_unless (g_file_set_contents (argv[i + 1], all->str, all->len, NULL));
    g_string_free (all, TRUE);
  } else {
    GstElement *p;

    fail_unless_equals_string (argv[0], "gst-launch-1.0");
    p = gst_parse_launchv ((const gchar **) argv + 1, &err);
    fail_unless (p != NULL, "%s: %s", cmd, err ? err->message : "?");
    if (rec) {
      GstIterator *it
          = gst_bin_iterate_all_by_element_factory_name (GST_BIN (p), "npydec");
      GValue v = G_VALUE_INIT;

      fail_unless_equals_int (gst_iterator_next (it, &v), GST_ITERATOR_OK);
      rec_attach (rec, g_value_get_object (&v));
      g_value_unset (&v);
      gst_iterator_free (it);
    }
    tn_play_to_eos (p, cmd, 60);
  }
  g_strfreev (argv);
}

static void
assert_file_is (const gchar *path, const gchar *golden)
{
  guint8 *want;
  gchar *got;
  gsize want_len, got_len;

  tn_load_data (golden, &want, &want_len);
  fail_unless (g_file_get_contents (path, &got, &got_len, NULL), "no %s", path);
  fail_unless_equals_uint64 (got_len, want_len);
  fail_unless (
      memcmp (got, want, want_len) == 0, "%s differs from %s", path, golden);
  g_free (got);
  g_free (want);
}

static void
assert_items_arange (GstBuffer *b, const gchar *type, gsize first, gsize n)
{
  GstMapInfo map;
  gsize i;

  gst_buffer_map (b, &map, GST_MAP_READ);
  for (i = 0; i < n; i++) {
    gdouble got = strcmp (type, "float32") == 0 ? ((const gfloat *) map.data)[i]
                  : strcmp (type, "int16") == 0 ? ((const gint16 *) map.data)[i]
                                                : map.data[i];

    fail_unless (got == (gdouble) (first + i),
        "%s item %" G_GSIZE_FORMAT " is %g, expected %" G_GSIZE_FORMAT, type,
        first + i, got, first + i);
  }
  fail_unless_equals_uint64 (
      map.size, n * (strcmp (type, "float32") == 0 ? 4 : 1 + (*type == 'i')));
  gst_buffer_unmap (b, &map);
}

/* Every example launch line of npydec's SECTION block, run as printed in
 * a fresh directory, in order, each checked against what it says. */
GST_START_TEST (test_doc_launch_lines)
{
  static const gint64 d23[] = { 2, 3 }, d22[] = { 2, 2 }, d3[] = { 3 },
                      d422[] = { 4, 2, 2 };
  gchar **cmds = tn_doc_commands ("npydec.c");
  gchar *dir = g_dir_make_tmp ("npydec-doc-XXXXXX", NULL);
  gchar *cwd = g_get_current_dir ();
  gint i;
  Rec r;

  fail_unless_equals_int (g_strv_length (cmds), 8);
  fail_unless (g_chdir (dir) == 0);

  /* 0: a.npy is what numpy.save writes for arange(6).reshape(2, 3). */
  doc_run (cmds[0], NULL);
  assert_file_is ("a.npy", "npydec_doc_a.npy");
  /* 1: one float32 <2, 3> tensor of 0..5. */
  rec_init (&r);
  doc_run (cmds[1], &r);
  fail_unless_equals_string (r.order->str, "csb");
  assert_caps (g_ptr_array_index (r.caps, 0), "float32", d23, 2);
  assert_items_arange (g_ptr_array_index (r.bufs, 0), "float32", 0, 6);
  rec_clear (&r);

  /* 2, 3: four uint8 <2, 2> frames 30 per second, frame i holding
   * 4i..4i+3. */
  doc_run (cmds[2], NULL);
  assert_file_is ("frames.npy", "npydec_doc_frames.npy");
  rec_init (&r);
  doc_run (cmds[3], &r);
  fail_unless_equals_string (r.order->str, "csbbbb");
  assert_caps (g_ptr_array_index (r.caps, 0), "uint8", d22, 2);
  for (i = 0; i < 4; i++) {
    GstBuffer *b = g_ptr_array_index (r.bufs, i);

    assert_items_arange (b, "uint8", 4 * i, 4);
    fail_unless_equals_uint64 (
        GST_BUFFER_PTS (b), gst_util_uint64_scale (i, GST_SECOND, 30));
  }
  rec_clear (&r);

  /* 4, 5: three files, each arange(3) of int16, and back three tensors
   * with one CAPS event. */
  doc_run (cmds[4], NULL);
  assert_file_is ("out-00000.npy", "npydec_doc_out.npy");
  assert_file_is ("out-00001.npy", "npydec_doc_out.npy");
  assert_file_is ("out-00002.npy", "npydec_doc_out.npy");
  fail_if (g_file_test ("out-00003.npy", G_FILE_TEST_EXISTS));
  rec_init (&r);
  doc_run (cmds[5], &r);
  fail_unless_equals_string (r.order->str, "csbbb");
  assert_caps (g_ptr_array_index (r.caps, 0), "int16", d3, 1);
  for (i = 0; i < 3; i++)
    assert_items_arange (g_ptr_array_index (r.bufs, i), "int16", 0, 3);
  rec_clear (&r);

  /* 6, 7: the three files in one, three tensors of three caps. */
  doc_run (cmds[6], NULL);
  rec_init (&r);
  doc_run (cmds[7], &r);
  fail_unless_equals_string (r.order->str, "csbcbcb");
  assert_caps (g_ptr_array_index (r.caps, 0), "float32", d23, 2);
  assert_caps (g_ptr_array_index (r.caps, 1), "uint8", d422, 3);
  assert_caps (g_ptr_array_index (r.caps, 2), "int16", d3, 1);
  assert_items_arange (g_ptr_array_index (r.bufs, 0), "float32", 0, 6);
  assert_items_arange (g_ptr_array_index (r.bufs, 1), "uint8", 0, 16);
  assert_items_arange (g_ptr_array_index (r.bufs, 2), "int16", 0, 3);
  rec_clear (&r);

  tn_tmp_dir_leave (dir, cwd);
  g_strfreev (cmds);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
npydec_suite (void)
{
  Suite *s = suite_create ("npydec");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_dtype);
  tcase_add_test (tc, test_values_formula);
  tcase_add_test (tc, test_chunks);
  tcase_add_test (tc, test_versions);
  tcase_add_test (tc, test_big_endian);
  tcase_add_test (tc, test_zero_copy);
  tcase_add_test (tc, test_fortran_dense);
  tcase_add_test (tc, test_fortran_meta);
  tcase_add_test (tc, test_rank0);
  tcase_add_test (tc, test_zero_extent);
  tcase_add_test (tc, test_split);
  tcase_add_test (tc, test_split_fortran);
  tcase_add_test (tc, test_split_zero_extent);
  tcase_add_test (tc, test_truncated_data);
  tcase_add_test (tc, test_truncated_header);
  tcase_add_test (tc, test_every_truncation);
  tcase_add_test (tc, test_malformed);
  tcase_add_test (tc, test_unsupported_dtype);
  tcase_add_test (tc, test_split_rank0);
  tcase_add_test (tc, test_trailing);
  tcase_add_test (tc, test_flush_restarts);
  tcase_add_test (tc, test_two_streams);
  tcase_add_test (tc, test_not_negotiated);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_framerate);
  tcase_add_test (tc, test_typefind);
  tcase_add_test (tc, test_big_endian_writable);
  tcase_add_test (tc, test_negotiate_partial_and_full);
  tcase_add_test (tc, test_bad_caps);
  tcase_add_test (tc, test_stream_one_buffer);
  tcase_add_test (tc, test_stream_awkward_cuts);
  tcase_add_test (tc, test_stream_every_cut);
  tcase_add_test (tc, test_stream_split);
  tcase_add_test (tc, test_multifilesrc);
  tcase_add_test (tc, test_filesrc_concatenation);
  tcase_add_test (tc, test_stream_partial_at_eos);
  tcase_add_test (tc, test_stream_start_inside_array);
  tcase_add_test (tc, test_huge_extents);
  tcase_add_test (tc, test_split_empty_bound);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_seek_refused);
  tcase_add_test (tc, test_properties_running);
  tcase_add_test (tc, test_doc_launch_lines);
  return s;
}

GST_CHECK_MAIN (npydec);
