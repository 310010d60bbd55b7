/* plugin/tensormeta.c: the layout meta, its registration, copies and
 * validation. */
#include <string.h>

#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>

#include "common/tncheck.h"

static GstBuffer *
buffer_with_meta (gsize size, gint rank, gint64 offset, const gint64 *strides)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  fail_unless (
      gst_tn_buffer_add_layout_meta (buf, rank, offset, strides) != NULL);
  return buf;
}

static void
check_meta (GstBuffer *buf, gint rank, gint64 offset, const gint64 *strides)
{
  GstTnLayoutMeta *m = gst_tn_buffer_get_layout_meta (buf);
  gint i;

  fail_unless (m != NULL);
  fail_unless_equals_int (m->rank, rank);
  fail_unless_equals_int64 (m->offset, offset);
  for (i = 0; i < rank; i++)
    fail_unless_equals_int64 (m->strides[i], strides[i]);
  for (i = rank; i < TN_MAX_RANK; i++)
    fail_unless_equals_int64 (m->strides[i], 0);
}

static guint
count_layout_metas (GstBuffer *buf)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (
              buf, &state, GST_TN_LAYOUT_META_API_TYPE)))
    n++;
  return n;
}

GST_START_TEST (test_registration)
{
  GType api = GST_TN_LAYOUT_META_API_TYPE;
  const GstMetaInfo *info = GST_TN_LAYOUT_META_INFO;

  fail_unless_equals_string (g_type_name (api), "GstTnLayoutMetaAPI");
  fail_unless (info != NULL);
  fail_unless (info->api == api);
  fail_unless (gst_meta_get_info ("GstTnLayoutMeta") == info);
  fail_unless_equals_uint64 (info->size, sizeof (GstTnLayoutMeta));
  /* "memory" makes GStreamer drop it whenever the memory changes */
  fail_unless (gst_meta_api_type_has_tag (
      api, g_quark_from_string (GST_META_TAG_MEMORY_STR)));
  fail_unless (gst_meta_api_type_has_tag (api, g_quark_from_string ("tensor")));
  /* registering twice gives the same objects */
  fail_unless (gst_tn_layout_meta_api_get_type () == api);
  fail_unless (gst_tn_layout_meta_get_info () == info);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_add_get)
{
  static const gint64 strides[3] = { 1, 3, 0 };
  static const gint64 other[2] = { 5, 7 };
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);
  GstTnLayoutMeta *m, *first;

  fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL);
  m = first = gst_tn_buffer_add_layout_meta (buf, 3, 2, strides);
  fail_unless (m != NULL);
  fail_unless (gst_tn_buffer_get_layout_meta (buf) == m);
  check_meta (buf, 3, 2, strides);

  /* a second add replaces the layout in place rather than stacking a
   * second meta; the strides past the new rank read 0 */
  m = gst_tn_buffer_add_layout_meta (buf, 2, 9, other);
  fail_unless (m == first);
  fail_unless_equals_int (count_layout_metas (buf), 1);
  check_meta (buf, 2, 9, other);

  /* rank 0 needs no strides; only the offset matters */
  m = gst_tn_buffer_add_layout_meta (buf, 0, 4, NULL);
  fail_unless (m != NULL);
  check_meta (buf, 0, 4, NULL);

  fail_unless (gst_buffer_remove_meta (buf, (GstMeta *) m));
  fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_copy_keeps)
{
  static const gint64 strides[2] = { 1, 2 };
  GstBuffer *buf = buffer_with_meta (48, 2, 3, strides), *copy;

  copy = gst_buffer_copy (buf);
  check_meta (copy, 2, 3, strides);
  /* the copy has its own meta */
  fail_unless (gst_tn_buffer_get_layout_meta (copy)
               != gst_tn_buffer_get_layout_meta (buf));
  gst_buffer_unref (copy);

  copy = gst_buffer_copy_deep (buf);
  check_meta (copy, 2, 3, strides);
  gst_buffer_unref (copy);

  /* make_writable copies a shared buffer, meta and all */
  gst_buffer_ref (buf);
  copy = gst_buffer_make_writable (buf);
  fail_unless (copy != buf);
  check_meta (copy, 2, 3, strides);
  gst_buffer_unref (copy);

  /* a region spanning the whole buffer is not a region */
  copy = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 0, 48);
  check_meta (copy, 2, 3, strides);
  gst_buffer_unref (copy);

  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_region_copy_drops)
{
  static const gint64 strides[2] = { 1, 2 };
  GstBuffer *buf = buffer_with_meta (48, 2, 3, strides), *copy;

  copy = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 8, 16);
  fail_unless (gst_tn_buffer_get_layout_meta (copy) == NULL);
  gst_buffer_unref (copy);

  /* from byte 0 but shorter: still a region */
  copy = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 0, 24);
  fail_unless (gst_tn_buffer_get_layout_meta (copy) == NULL);
  gst_buffer_unref (copy);

  /* metas copied without the memory do not describe the new memory */
  copy = gst_buffer_new_allocate (NULL, 48, NULL);
  fail_unless (gst_buffer_copy_into (copy, buf,
      GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META,
      0, -1));
  fail_unless (gst_tn_buffer_get_layout_meta (copy) == NULL);
  gst_buffer_unref (copy);

  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The transform function itself, called the way an element would. */
GST_START_TEST (test_transform_by_hand)
{
  static const gint64 strides[1] = { 4 };
  GstBuffer *buf = buffer_with_meta (32, 1, 1, strides);
  GstBuffer *dest = gst_buffer_new_allocate (NULL, 32, NULL);
  GstMeta *meta = (GstMeta *) gst_tn_buffer_get_layout_meta (buf);
  GstMetaTransformCopy copy = { FALSE, 0, (gsize) -1 };

  fail_unless (meta->info->transform_func != NULL);

  copy.region = TRUE;
  copy.offset = 4;
  copy.size = 8;
  fail_unless (meta->info->transform_func (
      dest, meta, buf, _gst_meta_transform_copy, &copy));
  fail_unless (gst_tn_buffer_get_layout_meta (dest) == NULL);

  /* a transform other than a copy is not supported */
  fail_if (meta->info->transform_func (
      dest, meta, buf, g_quark_from_string ("gst-video-scale"), NULL));
  fail_unless (gst_tn_buffer_get_layout_meta (dest) == NULL);

  copy.region = FALSE;
  copy.offset = 0;
  copy.size = (gsize) -1;
  fail_unless (meta->info->transform_func (
      dest, meta, buf, _gst_meta_transform_copy, &copy));
  check_meta (dest, 1, 1, strides);

  gst_buffer_unref (dest);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Criticals are captured so their text can be checked. */
static gchar *last_critical;

static gboolean
capture_critical (const gchar *domain, GLogLevelFlags level,
    const gchar *message, gpointer user_data)
{
  g_free (last_critical);
  last_critical = g_strdup (message);
  return TRUE;
}

typedef struct {
  gint rank;
  gint64 offset;
  gint64 strides[TN_MAX_RANK];
  gboolean null_strides;
  const gchar *message;
} BadMeta;

static const BadMeta bad_metas[] = {
  { 9, 0, { 1, 1, 1, 1, 1, 1, 1, 1 }, FALSE,
      "layout meta rank 9 is outside 0..8." },
  { -1, 0, { 0 }, FALSE, "layout meta rank -1 is outside 0..8." },
  { 2, 0, { 0 }, TRUE, "layout meta of rank 2 needs 2 strides, got none." },
  { 2, -3, { 3, 1 }, FALSE, "layout meta offset -3 is negative" },
  { 3, 0, { 6, -2, 1 }, FALSE,
      "layout meta stride 1 is -2; strides count "
      "items and must be >= 0." },
};

GST_START_TEST (test_add_invalid)
{
  const BadMeta *c = &bad_metas[__i__];
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16, NULL);
  GstCheckLogFilter *filter;

  filter = gst_check_add_log_filter (NULL, G_LOG_LEVEL_CRITICAL,
      g_regex_new ("layout meta", 0, 0, NULL), capture_critical, NULL, NULL);
  g_clear_pointer (&last_critical, g_free);
  fail_unless (gst_tn_buffer_add_layout_meta (
                   buf, c->rank, c->offset, c->null_strides ? NULL : c->strides)
               == NULL);
  fail_unless (last_critical != NULL, "no critical for case %d", __i__);
  fail_unless (strstr (last_critical, c->message) != NULL,
      "critical '%s' lacks '%s'", last_critical, c->message);
  fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL);
  gst_check_remove_log_filter (filter);
  g_clear_pointer (&last_critical, g_free);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_add_not_writable)
{
  static const gint64 strides[1] = { 1 };
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16, NULL);

  gst_buffer_ref (buf);
  ASSERT_CRITICAL (
      fail_unless (gst_tn_buffer_add_layout_meta (buf, 1, 0, strides) == NULL));
  gst_buffer_unref (buf);
  fail_unless (gst_tn_buffer_get_layout_meta (buf) == NULL);
  gst_buffer_unref (buf);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A generic element that writes a new buffer: GstBaseTransform's default
 * transform_meta must drop the layout meta (tagged) and keep untagged
 * metas. */
typedef GstBaseTransform TestCopy;
typedef GstBaseTransformClass TestCopyClass;
GType test_copy_get_type (void);
G_DEFINE_TYPE (TestCopy, test_copy, GST_TYPE_BASE_TRANSFORM);

static GstStaticPadTemplate any_src = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate any_sink = GST_STATIC_PAD_TEMPLATE (
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstFlowReturn
test_copy_transform (GstBaseTransform *trans, GstBuffer *in, GstBuffer *out)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (in, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (
      gst_buffer_fill (out, 0, map.data, map.size), map.size);
  gst_buffer_unmap (in, &map);
  return GST_FLOW_OK;
}

static void
test_copy_class_init (TestCopyClass *klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &any_src);
  gst_element_class_add_static_pad_template (element_class, &any_sink);
  gst_element_class_set_static_metadata (element_class, "Test copy", "Filter",
      "Copies its input into a new buffer", "gst-tensor");
  klass->transform = test_copy_transform;
}

static void
test_copy_init (TestCopy *self)
{}

GST_START_TEST (test_base_transform_drops)
{
  static const gint64 strides[2] = { 1, 2 };
  GstElement *copier
      = gst_object_ref_sink (g_object_new (test_copy_get_type (), NULL));
  GstHarness *h = gst_harness_new_with_element (copier, "sink", "src");
  GstBuffer *in = buffer_with_meta (24, 2, 0, strides), *out;
  GstCaps *ref = gst_caps_new_empty_simple ("timestamp/x-test");

  gst_buffer_add_reference_timestamp_meta (in, ref, 5, 1);
  gst_caps_unref (ref);
  gst_harness_set_src_caps_str (h, "tensor/x-raw, type=float32, dims=<3, 2>");
  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless (gst_buffer_get_reference_timestamp_meta (out, NULL) != NULL);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_object_unref (copier);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
meta_suite (void)
{
  Suite *s = suite_create ("tensormeta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registration);
  tcase_add_test (tc, test_add_get);
  tcase_add_test (tc, test_copy_keeps);
  tcase_add_test (tc, test_region_copy_drops);
  tcase_add_test (tc, test_transform_by_hand);
  tcase_add_loop_test (tc, test_add_invalid, 0, G_N_ELEMENTS (bad_metas));
  tcase_add_test (tc, test_add_not_writable);
  tcase_add_test (tc, test_base_transform_drops);
  return s;
}

GST_CHECK_MAIN (meta);
