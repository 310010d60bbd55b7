/* plugin/tensorbuffer.c: mapping buffers of any layout, wrapping
 * application memory, and making a buffer dense.  Expected values are
 * hand-computed from arange storage. */
#include <string.h>

#include "common/tncheck.h"

/* Checks and clears *errp. */
static void
check_error (GError **errp, const gchar *part1, const gchar *part2)
{
  GError *err = *errp;
  gsize n;

  fail_unless (err != NULL, "no error was set");
  fail_unless (err->domain == GST_STREAM_ERROR, "error domain %s",
      g_quark_to_string (err->domain));
  fail_unless_equals_int (err->code, GST_STREAM_ERROR_FORMAT);
  n = strlen (err->message);
  fail_unless (n > 0 && err->message[n - 1] == '.',
      "message '%s' is not a sentence", err->message);
  fail_unless (strstr (err->message, part1) != NULL, "message '%s' lacks '%s'",
      err->message, part1);
  if (part2)
    fail_unless (strstr (err->message, part2) != NULL,
        "message '%s' lacks '%s'", err->message, part2);
  g_clear_error (errp);
}

static GstTnInfo
make_info (tn_dtype t, gint rank, const gint64 *dims)
{
  GstTnInfo info;

  memset (&info, 0, sizeof info);
  info.dtype = t;
  info.rank = rank;
  if (rank)
    memcpy (info.dims, dims, sizeof (gint64) * rank);
  info.fps_d = 1;
  return info;
}

/* A tensor-allocator buffer of n float32 items 0, 1, ..., n-1. */
static GstBuffer *
arange_f32 (gsize n)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstBuffer *buf = gst_buffer_new_allocate (alloc, n * sizeof (gfloat), NULL);
  GstMapInfo map;
  gsize i;

  gst_object_unref (alloc);
  fail_unless (buf != NULL);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n; i++)
    ((gfloat *) map.data)[i] = (gfloat) i;
  gst_buffer_unmap (buf, &map);
  return buf;
}

static gfloat
item2 (const GstTnMap *m, gint i, gint j)
{
  const tn_view *v = &m->view;

  return ((const gfloat *)
              m->data)[v->offset + i * v->strides[0] + j * v->strides[1]];
}

static void
check_f32 (GstBuffer *buf, const gfloat *want, gsize n)
{
  GstMapInfo map;
  gsize i;

  fail_unless_equals_uint64 (gst_buffer_get_size (buf), n * sizeof (gfloat));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  for (i = 0; i < n; i++)
    fail_unless (((const gfloat *) map.data)[i] == want[i],
        "item %" G_GSIZE_FORMAT " is %g, expected %g", i,
        ((const gfloat *) map.data)[i], want[i]);
  gst_buffer_unmap (buf, &map);
}

static const gint64 dims23[2] = { 2, 3 };
static const gint64 dims32[2] = { 3, 2 };

GST_START_TEST (test_map_dense)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstBuffer *buf = arange_f32 (6);
  GstTnMap m;
  GError *err = NULL;
  gint i, j;

  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  fail_unless (m.buffer == buf);
  fail_unless (m.data == m.map.data);
  fail_unless_equals_uint64 (m.map.size, 24);
  fail_unless_equals_int (m.view.dtype, TN_FLOAT32);
  fail_unless_equals_int (m.view.rank, 2);
  fail_unless_equals_int64 (m.view.dims[0], 2);
  fail_unless_equals_int64 (m.view.dims[1], 3);
  fail_unless_equals_int64 (m.view.strides[0], 3);
  fail_unless_equals_int64 (m.view.strides[1], 1);
  fail_unless_equals_int64 (m.view.offset, 0);
  for (i = 0; i < 2; i++)
    for (j = 0; j < 3; j++)
      fail_unless (item2 (&m, i, j) == (gfloat) (3 * i + j));
  gst_tn_buffer_unmap (&m);
  fail_unless (m.buffer == NULL);
  /* unmapping twice is harmless */
  gst_tn_buffer_unmap (&m);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_write)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstBuffer *buf = arange_f32 (6);
  static const gfloat want[6] = { 0, 1, 2, 3, 40, 5 };
  GstTnMap m;
  GError *err = NULL;

  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READWRITE, NULL));
  ((gfloat *) m.data)[1 * 3 + 1] = 40;
  gst_tn_buffer_unmap (&m);
  check_f32 (buf, want, 6);

  /* a shared buffer is refused for writing, with the count in words */
  gst_buffer_ref (buf);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_WRITE, &err));
  check_error (&err, "buffer is not writable (it has 2 references)", NULL);
  fail_unless (m.buffer == NULL);
  /* reading it is fine */
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, NULL));
  gst_tn_buffer_unmap (&m);
  gst_buffer_unref (buf);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Memory at an address that is not a multiple of the item size (a
 * tensor that starts at byte 1 of a stream): the map gives an aligned
 * copy with the same values, and a write map puts the writes back. */
GST_START_TEST (test_map_misaligned)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  static const gfloat vals[6] = { 0, 1, 2, 3, 4, 5 };
  static const gfloat want[6] = { 0, 1, 2, 3, 40, 5 };
  guint8 *store = g_malloc (sizeof vals + 1);
  GstBuffer *buf;
  GstTnMap m;
  gfloat got[6];

  memcpy (store + 1, vals, sizeof vals);
  buf = gst_buffer_new_wrapped_full (
      0, store, sizeof vals + 1, 1, sizeof vals, store, g_free);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, NULL));
  fail_unless (m.data != m.map.data);
  fail_unless_equals_int ((guintptr) m.data % sizeof (gfloat), 0);
  fail_unless (memcmp (m.data, vals, sizeof vals) == 0);
  gst_tn_buffer_unmap (&m);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READWRITE, NULL));
  fail_unless_equals_int ((guintptr) m.data % sizeof (gfloat), 0);
  ((gfloat *) m.data)[1 * 3 + 1] = 40;
  gst_tn_buffer_unmap (&m);
  fail_unless (m.aligned == NULL && m.buffer == NULL);
  memcpy (got, store + 1, sizeof got);
  fail_unless (memcmp (got, want, sizeof want) == 0);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_scalar_and_empty)
{
  static const gint64 dims03[2] = { 0, 3 };
  GstTnInfo scalar = make_info (TN_FLOAT32, 0, NULL);
  GstTnInfo empty = make_info (TN_INT16, 2, dims03);
  GstBuffer *buf = arange_f32 (1), *none = gst_buffer_new ();
  GstTnMap m;
  GError *err = NULL;

  fail_unless (gst_tn_buffer_map (&m, buf, &scalar, GST_MAP_READ, NULL));
  fail_unless_equals_int (m.view.rank, 0);
  fail_unless (((const gfloat *) m.data)[m.view.offset] == 0.0f);
  gst_tn_buffer_unmap (&m);

  /* a tensor without items fits a buffer without memory */
  fail_unless (gst_tn_buffer_map (&m, none, &empty, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  fail_unless_equals_uint64 (m.map.size, 0);
  gst_tn_buffer_unmap (&m);

  /* ... but not one with 4 bytes in it */
  fail_if (gst_tn_buffer_map (&m, buf, &empty, GST_MAP_READ, &err));
  check_error (&err, "buffer holds 4 bytes; caps int16 <0, 3> need 0", NULL);
  gst_buffer_unref (none);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_size_mismatch)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstBuffer *buf;
  GstTnMap m;
  GError *err = NULL;

  buf = gst_buffer_new_allocate (NULL, 20, NULL);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (
      &err, "buffer holds 20 bytes; caps float32 <2, 3> need 24", NULL);
  fail_unless (m.buffer == NULL);
  gst_buffer_unref (buf);

  /* one byte short */
  buf = gst_buffer_new_allocate (NULL, 23, NULL);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (
      &err, "buffer holds 23 bytes; caps float32 <2, 3> need 24", NULL);
  gst_buffer_unref (buf);

  /* one byte long is an error too: without a layout meta a buffer is
   * exactly dense, so padding would be read as a shape mismatch later */
  buf = gst_buffer_new_allocate (NULL, 25, NULL);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (&err, "buffer holds 25 bytes; caps float32 <2, 3> need 24",
      "needs a layout meta");
  /* the failed map left the buffer unmapped: a write map still works */
  fail_unless (
      gst_tn_buffer_map (&m, buf, &info, GST_MAP_WRITE, &err) == FALSE);
  g_clear_error (&err);
  {
    GstMapInfo map;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    gst_buffer_unmap (buf, &map);
  }
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* arange(6) as 2x3, read transposed through the meta as 3x2 */
GST_START_TEST (test_map_transposed)
{
  static const gint64 strides[2] = { 1, 3 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims32);
  GstBuffer *buf = arange_f32 (6);
  GstTnMap m;
  GError *err = NULL;
  gint i, j;

  gst_tn_buffer_add_layout_meta (buf, 2, 0, strides);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  fail_unless_equals_int64 (m.view.strides[0], 1);
  fail_unless_equals_int64 (m.view.strides[1], 3);
  fail_unless_equals_int64 (m.view.dims[0], 3);
  fail_unless_equals_int64 (m.view.dims[1], 2);
  for (i = 0; i < 3; i++)
    for (j = 0; j < 2; j++)
      fail_unless (item2 (&m, i, j) == (gfloat) (i + 3 * j));
  gst_tn_buffer_unmap (&m);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_offset)
{
  static const gint64 dense[2] = { 3, 1 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstBuffer *buf = arange_f32 (8);
  GstTnMap m;
  GError *err = NULL;
  gint i, j;

  /* items 2..7 of arange(8): reach 2 + 1*3 + 2*1 = 7, the last item */
  gst_tn_buffer_add_layout_meta (buf, 2, 2, dense);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  fail_unless_equals_int64 (m.view.offset, 2);
  for (i = 0; i < 2; i++)
    for (j = 0; j < 3; j++)
      fail_unless (item2 (&m, i, j) == (gfloat) (2 + 3 * i + j));
  gst_tn_buffer_unmap (&m);

  /* offset 3 reaches item 8 of 8 */
  gst_tn_buffer_add_layout_meta (buf, 2, 3, dense);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (&err, "buffer of 32 bytes does not hold caps float32 <2, 3>",
      "reaches item 8, but the storage holds 8 items");
  fail_unless (m.buffer == NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_meta_errors)
{
  static const gint64 strides[2] = { 1, 3 };
  static const gint64 one[1] = { 1 };
  static const gint64 bcast[2] = { 0, 1 };
  static const gint64 dims43[2] = { 4, 3 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims32);
  GstTnInfo wide = make_info (TN_FLOAT32, 2, dims43);
  GstBuffer *buf = arange_f32 (6);
  GstTnMap m;
  GError *err = NULL;

  /* transposed 3x2 needs reach (3-1)*1 + (2-1)*3 = 5 < 6; with offset 1
   * it reaches item 6, one past the end */
  gst_tn_buffer_add_layout_meta (buf, 2, 1, strides);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (
      &err, "reaches item 6, but the storage holds 6 items", "strides <1, 3>");

  /* a meta whose rank is not the caps' */
  gst_tn_buffer_add_layout_meta (buf, 1, 0, one);
  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (&err,
      "layout meta has rank 1 but caps float32 <3, 2> have "
      "rank 2",
      NULL);

  /* a broadcast (stride 0) reads 3 items as 4 rows */
  gst_tn_buffer_add_layout_meta (buf, 2, 3, bcast);
  fail_unless (gst_tn_buffer_map (&m, buf, &wide, GST_MAP_READ, &err), "%s",
      err ? err->message : "");
  fail_unless (item2 (&m, 3, 2) == 5.0f);
  fail_unless (item2 (&m, 0, 0) == 3.0f);
  gst_tn_buffer_unmap (&m);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_map_huge_caps)
{
  static const gint64 huge[3] = { (gint64) 1 << 40, (gint64) 1 << 40, 2 };
  GstTnInfo info = make_info (TN_UINT8, 3, huge);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16, NULL);
  GstTnMap m;
  GError *err = NULL;

  fail_if (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err));
  check_error (&err,
      "caps uint8 <1099511627776, 1099511627776, 2> do not "
      "describe a tensor that fits in memory",
      "overflows 64 bits");
  fail_if (gst_tn_buffer_dense (buf, &info, NULL, &err) != NULL);
  check_error (&err, "do not describe a tensor that fits in memory", NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gint notified;
static gchar *last_warning;

static void
count_notify (gpointer data)
{
  fail_unless (data == &notified);
  notified++;
}

static void
capture_warning (GstDebugCategory *cat, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *message,
    gpointer user_data)
{
  if (level != GST_LEVEL_WARNING
      || strcmp (gst_debug_category_get_name (cat), "tensorbuffer") != 0)
    return;
  g_free (last_warning);
  last_warning = g_strdup (gst_debug_message_get (message));
}

/* Runs gst_tn_buffer_wrap expecting NULL, no notify, and a warning in the
 * debug log that holds want. */
static void
check_wrap_refused (
    const GstTnInfo *info, gpointer data, gsize size, const gchar *want)
{
  guint n_default;

  gst_debug_set_threshold_for_name ("tensorbuffer", GST_LEVEL_WARNING);
  /* keep the expected warning off stderr */
  n_default = gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture_warning, NULL, NULL);
  g_clear_pointer (&last_warning, g_free);
  notified = 0;
  fail_unless (
      gst_tn_buffer_wrap (info, data, size, &notified, count_notify) == NULL);
  fail_unless_equals_int (notified, 0);
  gst_debug_remove_log_function (capture_warning);
  if (n_default)
    gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_unset_threshold_for_name ("tensorbuffer");
  fail_unless (last_warning != NULL, "no warning was logged");
  fail_unless (strstr (last_warning, want) != NULL, "warning '%s' lacks '%s'",
      last_warning, want);
  g_clear_pointer (&last_warning, g_free);
}

GST_START_TEST (test_wrap)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  static const gint64 dims03[2] = { 0, 3 };
  GstTnInfo empty = make_info (TN_FLOAT32, 2, dims03);
  gfloat *data = g_new (gfloat, 8);
  GstBuffer *buf, *copy;
  GstTnMap m;
  gint i;

  for (i = 0; i < 8; i++)
    data[i] = (gfloat) (10 * i);

  /* too small: NULL, and the notify is not run */
  check_wrap_refused (&info, data, 23,
      "cannot wrap 23 bytes as float32 <2, 3>, which needs 24.");
  {
    static const gint64 huge[2] = { (gint64) 1 << 62, 4 };
    GstTnInfo big = make_info (TN_INT8, 2, huge);

    check_wrap_refused (&big, data, 32,
        "cannot wrap 32 bytes as int8 "
        "<4611686018427387904, 4>: no buffer can hold that tensor.");
  }

  /* larger is fine: the buffer shows the tensor's 24 bytes, no copy */
  buf = gst_tn_buffer_wrap (&info, data, 32, &notified, count_notify);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 24);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, NULL));
  fail_unless (m.data == (guint8 *) data);
  fail_unless (item2 (&m, 1, 2) == 50.0f);
  gst_tn_buffer_unmap (&m);

  /* a copy shares the memory; notify runs once, when the last one goes */
  copy = gst_buffer_copy (buf);
  gst_buffer_unref (buf);
  fail_unless_equals_int (notified, 0);
  gst_buffer_unref (copy);
  fail_unless_equals_int (notified, 1);
  g_free (data);

  /* an empty tensor may wrap no memory at all; notify still runs once */
  notified = 0;
  buf = gst_tn_buffer_wrap (&empty, NULL, 0, &notified, count_notify);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), 0);
  fail_unless (gst_tn_buffer_map (&m, buf, &empty, GST_MAP_READ, NULL));
  gst_tn_buffer_unmap (&m);
  fail_unless_equals_int (notified, 0);
  gst_buffer_unref (buf);
  fail_unless_equals_int (notified, 1);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_dense_same_buffer)
{
  static const gint64 dense[2] = { 3, 1 };
  static const gint64 odd[2] = { 7, 1 }; /* axis 0 has extent 1 */
  static const gint64 dims13[2] = { 1, 3 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstTnInfo row = make_info (TN_FLOAT32, 2, dims13);
  GstBuffer *buf = arange_f32 (6), *out;
  GError *err = NULL;

  out = gst_tn_buffer_dense (buf, &info, NULL, &err);
  fail_unless (out == buf);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buf), 2);
  gst_buffer_unref (out);

  /* a meta that spells out the dense layout changes nothing */
  gst_tn_buffer_add_layout_meta (buf, 2, 0, dense);
  out = gst_tn_buffer_dense (buf, &info, NULL, &err);
  fail_unless (out == buf);
  gst_buffer_unref (out);
  gst_buffer_unref (buf);

  /* nor does an odd stride on an axis of extent 1 */
  buf = arange_f32 (3);
  gst_tn_buffer_add_layout_meta (buf, 2, 0, odd);
  out = gst_tn_buffer_dense (buf, &row, NULL, &err);
  fail_unless (out == buf);
  gst_buffer_unref (out);
  gst_buffer_unref (buf);

  /* without a meta the size must be exact */
  buf = gst_buffer_new_allocate (NULL, 20, NULL);
  fail_unless (gst_tn_buffer_dense (buf, &info, NULL, &err) == NULL);
  check_error (
      &err, "buffer holds 20 bytes; caps float32 <2, 3> need 24", NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstBuffer *
transposed_with_extras (void)
{
  static const gint64 strides[2] = { 1, 3 };
  GstBuffer *buf = arange_f32 (6);
  GstCaps *ref = gst_caps_new_empty_simple ("timestamp/x-test");

  gst_tn_buffer_add_layout_meta (buf, 2, 0, strides);
  GST_BUFFER_PTS (buf) = 11 * GST_SECOND;
  GST_BUFFER_DTS (buf) = 10 * GST_SECOND;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GST_BUFFER_OFFSET (buf) = 4;
  GST_BUFFER_OFFSET_END (buf) = 5;
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  gst_buffer_add_reference_timestamp_meta (buf, ref, 123, 7);
  gst_caps_unref (ref);
  return buf;
}

static void
check_extras (GstBuffer *out)
{
  GstReferenceTimestampMeta *rt;

  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 11 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DTS (out), 10 * GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), GST_SECOND / 30);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), 4);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (out), 5);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT));
  rt = gst_buffer_get_reference_timestamp_meta (out, NULL);
  fail_unless (rt != NULL);
  fail_unless_equals_uint64 (rt->timestamp, 123);
  fail_unless_equals_uint64 (rt->duration, 7);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
}

/* arange(6) as 2x3 transposed: rows (0 3) (1 4) (2 5) */
static const gfloat transposed[6] = { 0, 3, 1, 4, 2, 5 };

GST_START_TEST (test_dense_transposed)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims32);
  GstBuffer *buf = transposed_with_extras (), *out;
  GError *err = NULL;
  GstTnMap m;

  out = gst_tn_buffer_dense (buf, &info, NULL, &err);
  fail_unless (out != NULL, "%s", err ? err->message : "");
  fail_unless (out != buf);
  check_f32 (out, transposed, 6);
  check_extras (out);
  /* from the tensor allocator */
  fail_unless (gst_is_tn_memory (gst_buffer_peek_memory (out, 0)));
  /* and it maps as the dense tensor of the caps */
  fail_unless (gst_tn_buffer_map (&m, out, &info, GST_MAP_READ, NULL));
  fail_unless_equals_int64 (m.view.strides[0], 2);
  gst_tn_buffer_unmap (&m);
  /* the source is untouched */
  fail_unless (gst_tn_buffer_get_layout_meta (buf) != NULL);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (buf), 1);
  gst_buffer_unref (out);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static GstBufferPool *
make_pool (guint size, gboolean activate)
{
  GstBufferPool *pool = gst_tn_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string ("tensor/x-raw, type=float32, "
                                        "dims=<3, 2>");

  gst_buffer_pool_config_set_params (config, caps, size, 0, 2);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  if (activate)
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

GST_START_TEST (test_dense_from_pool)
{
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims32);
  GstBuffer *buf = transposed_with_extras (), *out;
  GstBufferPool *pool;
  GError *err = NULL;

  /* exact size */
  pool = make_pool (24, TRUE);
  out = gst_tn_buffer_dense (buf, &info, pool, &err);
  fail_unless (out != NULL, "%s", err ? err->message : "");
  fail_unless (out->pool == pool);
  check_f32 (out, transposed, 6);
  check_extras (out);
  gst_buffer_unref (out);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  /* larger pool buffers are cut to the tensor */
  pool = make_pool (64, TRUE);
  out = gst_tn_buffer_dense (buf, &info, pool, &err);
  fail_unless (out != NULL, "%s", err ? err->message : "");
  check_f32 (out, transposed, 6);
  gst_buffer_unref (out);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  /* too small */
  pool = make_pool (16, TRUE);
  fail_unless (gst_tn_buffer_dense (buf, &info, pool, &err) == NULL);
  check_error (
      &err, "gives buffers of 16 bytes; float32 <3, 2> needs 24", NULL);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);

  /* inactive */
  pool = make_pool (24, FALSE);
  fail_unless (gst_tn_buffer_dense (buf, &info, pool, &err) == NULL);
  check_error (&err, "gave no buffer (flow flushing)", "may not be active");
  gst_object_unref (pool);

  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A dense run at an offset is shared, not copied. */
GST_START_TEST (test_dense_offset_shares)
{
  static const gint64 dense[2] = { 3, 1 };
  static const gfloat want[6] = { 2, 3, 4, 5, 6, 7 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims23);
  GstBuffer *buf = arange_f32 (9), *out;
  GstMapInfo a, b;
  GError *err = NULL;

  gst_tn_buffer_add_layout_meta (buf, 2, 2, dense);
  GST_BUFFER_PTS (buf) = 42;
  out = gst_tn_buffer_dense (buf, &info, NULL, &err);
  fail_unless (out != NULL, "%s", err ? err->message : "");
  check_f32 (out, want, 6);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 42);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless (gst_buffer_map (buf, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
  fail_unless (b.data == a.data + 2 * sizeof (gfloat));
  gst_buffer_unmap (out, &b);
  gst_buffer_unmap (buf, &a);
  gst_buffer_unref (out);

  /* the same buffer with one item too few for the offset */
  gst_tn_buffer_add_layout_meta (buf, 2, 4, dense);
  fail_unless (gst_tn_buffer_dense (buf, &info, NULL, &err) == NULL);
  check_error (&err, "buffer of 36 bytes",
      "reaches item 9, but the storage "
      "holds 9 items");
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_dense_errors)
{
  static const gint64 strides[2] = { 1, 3 };
  static const gint64 one[1] = { 1 };
  static const gint64 dims03[2] = { 0, 3 };
  GstTnInfo info = make_info (TN_FLOAT32, 2, dims32);
  GstTnInfo empty = make_info (TN_FLOAT32, 2, dims03);
  GstBuffer *buf = arange_f32 (5), *out;
  GError *err = NULL;

  /* transposed 3x2 reaches item 5 of a 5-item buffer */
  gst_tn_buffer_add_layout_meta (buf, 2, 0, strides);
  fail_unless (gst_tn_buffer_dense (buf, &info, NULL, &err) == NULL);
  check_error (&err, "buffer of 20 bytes does not hold caps float32 <3, 2>",
      "reaches item 5, but the storage holds 5 items");

  gst_tn_buffer_add_layout_meta (buf, 1, 0, one);
  fail_unless (gst_tn_buffer_dense (buf, &info, NULL, &err) == NULL);
  check_error (&err,
      "layout meta has rank 1 but caps float32 <3, 2> have "
      "rank 2",
      NULL);

  /* an empty tensor at an offset becomes an empty buffer */
  gst_tn_buffer_add_layout_meta (buf, 2, 5, strides);
  GST_BUFFER_PTS (buf) = 9;
  out = gst_tn_buffer_dense (buf, &empty, NULL, &err);
  fail_unless (out != NULL, "%s", err ? err->message : "");
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 0);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 9);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  gst_buffer_unref (out);

  /* ... unless its offset lies past the end */
  gst_tn_buffer_add_layout_meta (buf, 2, 6, strides);
  fail_unless (gst_tn_buffer_dense (buf, &empty, NULL, &err) == NULL);
  check_error (
      &err, "starts at item 6, past the end of a storage of 5 items", NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
buffer_suite (void)
{
  Suite *s = suite_create ("tensorbuffer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_map_dense);
  tcase_add_test (tc, test_map_write);
  tcase_add_test (tc, test_map_misaligned);
  tcase_add_test (tc, test_map_scalar_and_empty);
  tcase_add_test (tc, test_map_size_mismatch);
  tcase_add_test (tc, test_map_transposed);
  tcase_add_test (tc, test_map_offset);
  tcase_add_test (tc, test_map_meta_errors);
  tcase_add_test (tc, test_map_huge_caps);
  tcase_add_test (tc, test_wrap);
  tcase_add_test (tc, test_dense_same_buffer);
  tcase_add_test (tc, test_dense_transposed);
  tcase_add_test (tc, test_dense_from_pool);
  tcase_add_test (tc, test_dense_offset_shares);
  tcase_add_test (tc, test_dense_errors);
  return s;
}

GST_CHECK_MAIN (buffer);
