/* tensorstack and the GstTnAggregator hand-off, against peers measured
 * in the same run:
 *
 * 1. per buffer, two 16-item streams (float32, 1000 buffers a second of
 *    stream time, non-live):
 *      tensorsrc x2 ! tensorstack ! fakesink
 *      tensorsrc x2 ! tensormatmul (sink_1, <4,4> x <4,4>) ! fakesink
 *    against GStreamer's audiomixer mixing two 16-sample F32 streams
 *    (audiotestsrc samplesperbuffer=16, output-buffer-duration one
 *    input buffer, so one output per input pair):
 *      audiotestsrc x2 ! audiomixer ! fakesink
 *    us per output, time ours / audiomixer (goal: at most 1);
 * 2. tensorstack axis=0 of four uint8 <480,640,3> tensors pushed from
 *    pads of the benchmark, against memcpy of the same 3.7 MB into a
 *    buffer of the same size: speed ours / memcpy (goal: at least 0.8).
 *
 * Medians of RUNS interleaved runs.  Arguments: "buffer" and/or "big";
 * none runs both.  "buffer-only N" runs the tensorstack pipeline of part
 * 1 once with N buffers, untimed, for callgrind.  The plugin comes from
 * GST_PLUGIN_PATH, which bench/run.sh sets to its build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>

#include "bench.h"
#include "rig.h"

#define RUNS 9
#define NBUF 20000

static gchar *
two_tensor_streams (const gchar *element, const gchar *dims, guint n)
{
  return g_strdup_printf (
      "tensorsrc num-buffers=%u ! tensor/x-raw,type=float32,dims=%s,"
      "framerate=1000/1 ! e.sink_0 "
      "tensorsrc num-buffers=%u ! tensor/x-raw,type=float32,dims=%s,"
      "framerate=1000/1 ! e.sink_1 %s name=e ! fakesink",
      n, dims, n, dims, element);
}

static void
bench_per_buffer (void)
{
  gchar *stack = two_tensor_streams ("tensorstack", "<16>", NBUF);
  gchar *mm = two_tensor_streams ("tensormatmul", "<4,4>", NBUF);
  /* 16 samples at 16 kHz: 1 ms, one output buffer per input pair */
  gchar *mix = g_strdup_printf (
      "audiotestsrc num-buffers=%u samplesperbuffer=16 "
      "! audio/x-raw,format=F32LE,channels=1,rate=16000 ! m.sink_0 "
      "audiotestsrc num-buffers=%u samplesperbuffer=16 "
      "! audio/x-raw,format=F32LE,channels=1,rate=16000 ! m.sink_1 "
      "audiomixer name=m output-buffer-duration=1000000 ! fakesink",
      NBUF, NBUF);
  double ts[RUNS], tm[RUNS], ta[RUNS], rs, rm;

  printf ("per-buffer hand-off: two 16-item streams, %u buffers, median of "
          "%d runs\n",
      NBUF, RUNS);
  bench_pipeline_seconds (
      stack); /* warm: the registry, the pool, the page cache */
  bench_pipeline_seconds (mix);
  for (int r = 0; r < RUNS; r++) {
    ts[r] = bench_pipeline_seconds (stack) / NBUF * 1e6;
    tm[r] = bench_pipeline_seconds (mm) / NBUF * 1e6;
    ta[r] = bench_pipeline_seconds (mix) / NBUF * 1e6;
  }
  rs = bench_ratio (ts, ta, RUNS);
  rm = bench_ratio (tm, ta, RUNS);
  printf ("  %-36s %8.2f us/buffer\n", "tensorstack <16> x2",
      bench_median (ts, RUNS));
  printf ("  %-36s %8.2f us/buffer\n", "tensormatmul <4,4> x <4,4> streams",
      bench_median (tm, RUNS));
  printf ("  %-36s %8.2f us/buffer\n", "audiomixer 16 samples x2",
      bench_median (ta, RUNS));
  printf ("  tensorstack/audiomixer time ratio %.3f (median of per-round "
          "ratios %.3f)\n",
      bench_median (ts, RUNS) / bench_median (ta, RUNS), rs);
  printf ("  tensormatmul/audiomixer time ratio %.3f (median of per-round "
          "ratios %.3f)\n",
      bench_median (tm, RUNS) / bench_median (ta, RUNS), rm);
  g_free (stack);
  g_free (mm);
  g_free (mix);
}

/* ---- four <480,640,3> frames through pads of the benchmark ---- */

#define NPADS 4
#define FRAME (480 * 640 * 3)

typedef struct {
  GstElement *e;
  GstPad *src[NPADS], *sink;
  GMutex lock;
  GCond cond;
  GstBuffer *back;
} Rig;

static GstFlowReturn
rig_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  Rig *r = g_object_get_data (G_OBJECT (pad), "rig");

  g_mutex_lock (&r->lock);
  gst_buffer_replace (&r->back, NULL);
  r->back = buf;
  g_cond_signal (&r->cond);
  g_mutex_unlock (&r->lock);
  return GST_FLOW_OK;
}

static void
rig_start (Rig *r)
{
  GstPad *esrc;

  memset (r, 0, sizeof *r);
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  r->e = gst_element_factory_make ("tensorstack", NULL);
  if (!r->e) {
    fprintf (stderr, "no tensorstack (GST_PLUGIN_PATH?)\n");
    exit (1);
  }
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  g_object_set_data (G_OBJECT (r->sink), "rig", r);
  gst_pad_set_chain_function (r->sink, rig_chain);
  esrc = gst_element_get_static_pad (r->e, "src");
  gst_pad_link (esrc, r->sink);
  gst_object_unref (esrc);
  gst_pad_set_active (r->sink, TRUE);
  for (int k = 0; k < NPADS; k++) {
    GstPad *esink = gst_element_request_pad_simple (r->e, "sink_%u");
    gchar name[8];

    g_snprintf (name, sizeof name, "src%d", k);
    r->src[k] = gst_pad_new (name, GST_PAD_SRC);
    gst_pad_link (r->src[k], esink);
    gst_object_unref (esink);
    gst_pad_set_active (r->src[k], TRUE);
  }
  gst_element_set_state (r->e, GST_STATE_PLAYING);
  for (int k = 0; k < NPADS; k++) {
    GstSegment seg;
    gchar id[16];

    g_snprintf (id, sizeof id, "bench%d", k);
    gst_pad_push_event (r->src[k], gst_event_new_stream_start (id));
    gst_pad_push_event (r->src[k],
        gst_event_new_caps (gst_caps_from_string (
            "tensor/x-raw,type=uint8,dims=<480,640,3>,framerate=30/1")));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (r->src[k], gst_event_new_segment (&seg));
  }
}

/* One output from the frames (references), returned dropped. */
static void
rig_run (Rig *r, GstBuffer **frames, guint i)
{
  for (int k = 0; k < NPADS; k++) {
    GstBuffer *b = gst_buffer_copy (frames[k]); /* shares the memory */

    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    if (gst_pad_push (r->src[k], b) != GST_FLOW_OK) {
      fprintf (stderr, "push failed\n");
      exit (1);
    }
  }
  g_mutex_lock (&r->lock);
  while (!r->back)
    g_cond_wait (&r->cond, &r->lock);
  gst_clear_buffer (&r->back);
  g_mutex_unlock (&r->lock);
}

static void
rig_stop (Rig *r)
{
  gst_element_set_state (r->e, GST_STATE_NULL);
  gst_clear_buffer (&r->back);
  for (int k = 0; k < NPADS; k++) {
    gst_pad_set_active (r->src[k], FALSE);
    gst_object_unref (r->src[k]);
  }
  gst_pad_set_active (r->sink, FALSE);
  gst_object_unref (r->sink);
  gst_object_unref (r->e);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
}

/* CPU seconds of every thread of the process: what a round cost in work,
 * without the time slices that other processes took in between. */
static double
process_cpu (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static void
bench_big (void)
{
  enum { ITER = 20 };
  GstBuffer *frames[NPADS];
  guint8 *src = bench_alloc (NPADS * (gsize) FRAME);
  guint8 *dst = bench_alloc (NPADS * (gsize) FRAME);
  double to[RUNS], tc[RUNS], po[RUNS], pc[RUNS], r, rp;
  guint pts = 0;
  Rig rig;

  for (gsize i = 0; i < NPADS * (gsize) FRAME; i++)
    src[i] = (guint8) (i * 7);
  memset (dst, 1, NPADS * (gsize) FRAME);
  for (int k = 0; k < NPADS; k++) {
    frames[k] = gst_buffer_new_allocate (NULL, FRAME, NULL);
    gst_buffer_fill (frames[k], 0, src + k * (gsize) FRAME, FRAME);
  }
  rig_start (&rig);
  for (int w = 0; w < 3; w++) /* warm the pool */
    rig_run (&rig, frames, pts++);
  for (int run = 0; run < RUNS; run++) {
    double t0 = bench_now (), c0 = process_cpu ();

    for (int i = 0; i < ITER; i++)
      rig_run (&rig, frames, pts++);
    to[run] = (bench_now () - t0) / ITER;
    po[run] = (process_cpu () - c0) / ITER;
    t0 = bench_now ();
    c0 = process_cpu ();
    for (int i = 0; i < ITER; i++) {
      for (int k = 0; k < NPADS; k++)
        memcpy (dst + k * (gsize) FRAME, src + k * (gsize) FRAME, FRAME);
      bench_sink (dst);
    }
    tc[run] = (bench_now () - t0) / ITER;
    pc[run] = (process_cpu () - c0) / ITER;
  }
  rig_stop (&rig);
  r = bench_ratio (tc, to, RUNS);
  rp = bench_ratio (pc, po, RUNS);
  printf ("tensorstack axis=0 of four uint8 <480,640,3> (%.1f MB), median "
          "of %d runs of %d\n",
      NPADS * FRAME / 1e6, RUNS, ITER);
  printf ("  %-36s %8.1f us  %6.2f GB/s\n", "tensorstack (pads, one output)",
      bench_median (to, RUNS) * 1e6,
      NPADS * FRAME / bench_median (to, RUNS) / 1e9);
  printf ("  %-36s %8.1f us  %6.2f GB/s\n", "memcpy of the same bytes",
      bench_median (tc, RUNS) * 1e6,
      NPADS * FRAME / bench_median (tc, RUNS) / 1e9);
  printf ("  tensorstack/memcpy speed ratio %.3f (median of per-round ratios "
          "%.3f)\n",
      bench_median (tc, RUNS) / bench_median (to, RUNS), r);
  printf ("  in process CPU time (every thread): tensorstack %.1f us, memcpy "
          "%.1f us, ratio %.3f (per-round %.3f)\n",
      bench_median (po, RUNS) * 1e6, bench_median (pc, RUNS) * 1e6,
      bench_median (pc, RUNS) / bench_median (po, RUNS), rp);
  for (int k = 0; k < NPADS; k++)
    gst_buffer_unref (frames[k]);
  free (src);
  free (dst);
}

int
main (int argc, char **argv)
{
  gboolean buffer = argc < 2, big = argc < 2;

  gst_init (&argc, &argv);
  if (argc == 3 && strcmp (argv[1], "buffer-only") == 0) {
    gchar *d = two_tensor_streams ("tensorstack", "<16>", atoi (argv[2]));

    bench_pipeline_seconds (d);
    g_free (d);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "buffer") == 0)
      buffer = TRUE;
    else if (strcmp (argv[i], "big") == 0)
      big = TRUE;
    else {
      fprintf (stderr, "usage: %s [buffer] [big] | buffer-only N\n", argv[0]);
      return 2;
    }
  }
  if (buffer)
    bench_per_buffer ();
  if (big)
    bench_big ();
  return 0;
}
