/* libFuzzer entry for the elements: the input bytes are a .npy stream fed
 * through appsrc into
 *
 *   npydec [split=true] ! tensordebug ! tensorop ops=abs,add:1
 *     ! tensorreduce ! fakesink
 *
 * once whole and once split along axis 0.  Beyond "no crash" it checks
 * what issue 12 promises: every run ends (EOS or an error message within
 * FUZZ_PIPELINE_TIMEOUT seconds), an error names the element that posts it,
 * and no GLib critical is raised (criticals abort).  tensordebug's text
 * goes to a print handler that drops it, so the formatter runs on every
 * input; GStreamer's log is off.
 *
 * The plugin is found through GST_PLUGIN_PATH_1_0 (the test environment)
 * or else in the build directory this file was built for (TN_PLUGIN_DIR). */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FUZZ_PIPELINE_TIMEOUT 10

static void
drop_print (const gchar *text)
{
  (void) text;
}

static void
init_once (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  /* a sanitizer-built plugin cannot be loaded by the system's scanner */
  g_setenv ("GST_REGISTRY_FORK", "no", FALSE);
  gst_init (NULL, NULL);
  gst_debug_set_default_threshold (GST_LEVEL_NONE);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
  g_set_print_handler (drop_print);
#ifdef TN_PLUGIN_DIR
  if (gst_registry_lookup_feature (gst_registry_get (), "npydec") == NULL)
    gst_registry_scan_path (gst_registry_get (), TN_PLUGIN_DIR);
#endif
  if (gst_registry_lookup_feature (gst_registry_get (), "npydec") == NULL) {
    fprintf (stderr, "fuzz_pipeline: the gst-tensor plugin is not found\n");
    abort ();
  }
}

static void
run (const uint8_t *data, size_t size, gboolean split)
{
  GError *err = NULL;
  GstElement *pipe, *src;
  GstBuffer *buf;
  GstMessage *msg;
  gchar *desc = g_strdup_printf (
      "appsrc name=src caps=application/x-npy ! npydec split=%s"
      " ! tensordebug ! tensorop ops=abs,add:1 ! tensorreduce ! fakesink",
      split ? "true" : "false");

  pipe = gst_parse_launch (desc, &err);
  if (pipe == NULL || err != NULL) {
    fprintf (stderr, "fuzz_pipeline: %s: %s\n", desc,
        err ? err->message : "no pipeline");
    abort ();
  }
  g_free (desc);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  /* an exact-size copy, so a read past the end is an ASan error */
  if (size > 0) {
    buf = gst_buffer_new_memdup (data, size);
    gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      FUZZ_PIPELINE_TIMEOUT * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg == NULL) {
    fprintf (stderr,
        "fuzz_pipeline: no EOS and no error within %d s (split=%d)\n",
        FUZZ_PIPELINE_TIMEOUT, split);
    abort ();
  }
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;
    const gchar *name = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));

    gst_message_parse_error (msg, &err, &dbg);
    /* a bare flow error from appsrc ("Internal data stream error") means
     * an element refused the data without saying why */
    if (GST_IS_APP_SRC (GST_MESSAGE_SRC (msg))) {
      fprintf (stderr, "fuzz_pipeline: error from %s with no element message: %s (%s)\n",
          name, err->message, dbg ? dbg : "");
      abort ();
    }
    if (err->message == NULL || err->message[0] == '\0') {
      fprintf (stderr, "fuzz_pipeline: empty error message from %s\n", name);
      abort ();
    }
    g_clear_error (&err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  if (gst_element_set_state (pipe, GST_STATE_NULL) != GST_STATE_CHANGE_SUCCESS) {
    fprintf (stderr, "fuzz_pipeline: the pipeline did not stop\n");
    abort ();
  }
  gst_object_unref (pipe);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  init_once ();
  run (data, size, FALSE);
  run (data, size, TRUE);
  return 0;
}
