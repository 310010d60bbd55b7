/* Short soak (issue 12, "Keep the probes"): 10^5 small buffers through a
 * chain of every element, in two chains of one pipeline, with the resident
 * set size sampled from /proc/self/statm after a warm-up and at the end:
 * it may not grow by more than SOAK_RSS_BOUND.
 *
 *   A: tensorsrc ! tensorop ! tensorconvert (tensor -> audio) ! tensorconvert
 *      (audio -> tensor) ! tensorview ! tensordebug ! tensorreduce ! fakesink
 *   B: filesrc ! npydec split=true ! tensorop ! tensorview ! tensordebug
 *      ! tensormatmul ! tensorreduce ! npyenc ! fakesink
 *   C: tensorsrc ! tee, its branches (one through tensornormalize) into
 *      tensorcombine ! tensorwindow ! tensorstack (with tensorconcat's
 *      output of a second tensorsrc's) ! tensorsplit ! two fakesinks
 *
 * B reads a .npy of 10^5 rows this test writes, split into one buffer per
 * row.  SOAK_BUFFERS in the environment changes the count (the 10^6 of the
 * probe that filed issue 12 is SOAK_BUFFERS=1000000).  Only the plain build
 * runs it: AddressSanitizer's quarantine grows the RSS by design. */
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SOAK_RSS_BOUND (2 * 1024 * 1024)

static gint counts[3];
static gint64 warm_rss = -1;
static gint64 warmup;

static gint64
rss_bytes (void)
{
  long size = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f == NULL)
    return -1;
  if (fscanf (f, "%ld %ld", &size, &resident) != 2)
    resident = -1;
  fclose (f);
  return resident < 0 ? -1 : (gint64) resident * sysconf (_SC_PAGESIZE);
}

static GstPadProbeReturn
count_cb (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  gint *c = data;
  gint n = g_atomic_int_add (c, 1) + 1;

  /* the warm-up sample: once every chain is past its first buffers */
  if (c == &counts[0] && n == warmup && g_atomic_int_get (&counts[1]) > 0
      && g_atomic_int_get (&counts[2]) > 0)
    warm_rss = rss_bytes ();
  return GST_PAD_PROBE_OK;
}

static void
write_rows (const gchar *path, gint64 rows)
{
  gchar header[128];
  FILE *f = fopen (path, "wb");
  gint64 i;
  gint n, pad;

  fail_unless (f != NULL);
  n = g_snprintf (header, sizeof header,
      "{'descr': '<f4', 'fortran_order': False, 'shape': (%" G_GINT64_FORMAT
      ", 4), }",
      rows);
  pad = 64 - (10 + n + 1) % 64;
  fwrite ("\x93NUMPY\x01\x00", 1, 8, f);
  fputc ((n + pad + 1) & 0xff, f);
  fputc ((n + pad + 1) >> 8, f);
  fwrite (header, 1, n, f);
  for (i = 0; i < pad; i++)
    fputc (' ', f);
  fputc ('\n', f);
  for (i = 0; i < rows * 4; i++) {
    float v = (float) (i % 1000);
    fwrite (&v, sizeof v, 1, f);
  }
  fclose (f);
}

static void
write_weights (const gchar *path)
{
  /* float32 <4, 3> of ones */
  const gchar *h = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 3), }";
  gint n = strlen (h), pad = 64 - (10 + n + 1) % 64, i;
  FILE *f = fopen (path, "wb");
  float one = 1.0f;

  fail_unless (f != NULL);
  fwrite ("\x93NUMPY\x01\x00", 1, 8, f);
  fputc ((n + pad + 1) & 0xff, f);
  fputc ((n + pad + 1) >> 8, f);
  fwrite (h, 1, n, f);
  for (i = 0; i < pad; i++)
    fputc (' ', f);
  fputc ('\n', f);
  for (i = 0; i < 12; i++)
    fwrite (&one, sizeof one, 1, f);
  fclose (f);
}

GST_START_TEST (test_soak)
{
  const gchar *env = g_getenv ("SOAK_BUFFERS");
  gint64 n = env ? g_ascii_strtoll (env, NULL, 10) : 100000;
  gchar *dir = g_dir_make_tmp ("tn-soak-XXXXXX", NULL);
  gchar *rows = g_build_filename (dir, "rows.npy", NULL);
  gchar *w = g_build_filename (dir, "w.npy", NULL);
  gchar *desc;
  GstElement *pipe, *sink;
  GstPad *pad;
  GstMessage *msg;
  GError *err = NULL;
  gint64 end_rss;

  fail_unless (dir != NULL && n >= 1000);
  warmup = n / 10;
  write_rows (rows, n);
  write_weights (w);
  desc = g_strdup_printf (
      "tensorsrc num-buffers=%" G_GINT64_FORMAT " pattern=arange"
      " ! tensor/x-raw,type=float32,dims=<8,4>,framerate=1000/1"
      " ! tensorop ops=mul:2,add:1 ! tensorconvert ! audio/x-raw"
      " ! tensorconvert frames=8 ! tensorview ops=transpose"
      " ! tensordebug output=log ! tensorreduce axes=1 op=mean"
      " ! fakesink name=a "
      "filesrc location=%s ! npydec split=true ! tensorop ops=add:1"
      " ! tensorview ops=expand:0 ! tensordebug output=log"
      " ! tensormatmul weights=%s ! tensorreduce ! npyenc ! fakesink name=b "
      "tensorsrc num-buffers=%" G_GINT64_FORMAT " pattern=uniform"
      " ! tensor/x-raw,type=float32,dims=<2,4>,framerate=1000/1 ! tee name=t"
      " t. ! queue ! cb.sink_0 t. ! queue ! tensornormalize op=softmax"
      " ! cb.sink_1 tensorcombine name=cb op=sub"
      " ! tensorwindow size=4 hop=2 ! st.sink_0"
      " tensorsrc pattern=arange"
      " ! tensor/x-raw,type=float32,dims=<2,4>,framerate=1000/1"
      " ! tensorconcat name=cc axis=0 ! st.sink_1"
      " tensorsrc pattern=zeros"
      " ! tensor/x-raw,type=float32,dims=<2,4>,framerate=1000/1 ! cc."
      " tensorstack name=st axis=0 sync=latest"
      " ! tensorsplit name=sp axis=0 sections=2"
      " sp.src_0 ! queue ! fakesink name=c sp.src_1 ! queue ! fakesink",
      n, rows, w, n);
  /* fatal errors: without them a missing element leaves a half-built
   * pipeline that fails later with an unrelated message */
  pipe = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  fail_unless (
      pipe != NULL, "could not build %s: %s", desc, err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "a");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_cb, &counts[0], NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "b");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_cb, &counts[1], NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "c");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (
      pad, GST_PAD_PROBE_TYPE_BUFFER, count_cb, &counts[2], NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
               != GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 300 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 300 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail ("error from %s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        err->message);
  }
  gst_message_unref (msg);
  end_rss = rss_bytes ();
  fail_unless_equals_int (g_atomic_int_get (&counts[0]), (gint) n);
  fail_unless_equals_int (g_atomic_int_get (&counts[1]), (gint) n);
  /* windows of 4 rows every 2 over 2 rows a buffer: n - 1 of them */
  fail_unless_equals_int (g_atomic_int_get (&counts[2]), (gint) n - 1);
  fail_unless (warm_rss > 0 && end_rss > 0, "no RSS sample");
  g_print ("soak: %" G_GINT64_FORMAT " buffers per chain; RSS %" G_GINT64_FORMAT
           " KiB after %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
           " KiB at the end: %+" G_GINT64_FORMAT " KiB (bound %d KiB)\n",
      n, warm_rss / 1024, warmup, end_rss / 1024,
      (end_rss - warm_rss) / 1024, SOAK_RSS_BOUND / 1024);
  fail_unless (end_rss - warm_rss <= SOAK_RSS_BOUND,
      "RSS grew by %" G_GINT64_FORMAT " bytes over %" G_GINT64_FORMAT
      " buffers after the warm-up (bound %d)",
      end_rss - warm_rss, n - warmup, SOAK_RSS_BOUND);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_unlink (rows);
  g_unlink (w);
  g_rmdir (dir);
  g_free (desc);
  g_free (rows);
  g_free (w);
  g_free (dir);
}
GST_END_TEST;

static Suite *
soak_suite (void)
{
  Suite *s = suite_create ("soak");
  TCase *tc = tcase_create ("soak");

  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_soak);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (soak);
