/* gst_tn_init registers the library's types (the layout meta by name
 * above all) in a process that has loaded no plugin: an application that
 * only links the library finds them, before any element has used them. */
#include <gst/check/gstcheck.h>
#include <gst/tensor/gsttensor.h>

GST_START_TEST (test_init_registers)
{
  /* meson runs this with an empty plugin path: nothing has run yet. */
  fail_unless (g_type_from_name ("GstTnLayoutMetaAPI") == 0);
  fail_unless (gst_meta_get_info ("GstTnLayoutMeta") == NULL);
  fail_unless (g_type_from_name ("GstTnInfo") == 0);
  gst_tn_init ();
  gst_tn_init (); /* idempotent */
  fail_unless (
      g_type_from_name ("GstTnLayoutMetaAPI") == GST_TN_LAYOUT_META_API_TYPE);
  fail_unless (
      gst_meta_get_info ("GstTnLayoutMeta") == GST_TN_LAYOUT_META_INFO);
  fail_unless (g_type_from_name ("GstTnInfo") == GST_TYPE_TN_INFO);
  fail_unless (G_TYPE_IS_BOXED (GST_TYPE_TN_INFO));
  fail_unless (G_TYPE_IS_BOXED (GST_TYPE_TN_ALLOCATOR_STATS));
  fail_unless (g_type_from_name ("GstTnBufferPool") == GST_TYPE_TN_BUFFER_POOL);
}

GST_END_TEST;

/* The boxed copy is a copy: bindings hold their own. */
GST_START_TEST (test_info_boxed_copy)
{
  GstTnInfo info = { TN_UINT8, 3, { 2, 4, 3 }, 30, 1 };
  GstTnInfo *copy = g_boxed_copy (GST_TYPE_TN_INFO, &info);

  fail_unless (copy != &info);
  fail_unless (gst_tn_info_equal (copy, &info));
  g_boxed_free (GST_TYPE_TN_INFO, copy);
}

GST_END_TEST;

static Suite *
init_suite (void)
{
  Suite *s = suite_create ("tensorinit");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_init_registers);
  tcase_add_test (tc, test_info_boxed_copy);
  return s;
}

GST_CHECK_MAIN (init);
