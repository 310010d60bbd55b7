/* tensorsplit against tee with the same number of branches, in one run
 * with the runs interleaved: the per-buffer cost of pushing one float32
 * <4, 256> tensor into the element, whose src pads each end in a fakesink
 * (sync=false), timed around gst_pad_push on a pad of ours linked to its
 * sink pad.  tensorsplit sections=4 along axis 0 makes 4 sub-range
 * buffers sharing the input memory; tee pushes the same buffer 4 times.
 * The pushes cycle through NBUFS distinct input buffers, as a source's
 * pool hands out: with one buffer pushed again and again, tee's sinks
 * would replace their last buffer by the same one, a no-op that no
 * real stream gives them (session 12 H5 found it).
 * Goal: tensorsplit's cost per buffer at most tee's (ratio >= 1: split
 * is as fast or faster).  For reference: along axis 1 (4 views with the
 * layout meta, read by sinks that advertise it) and for 2 and 8 parts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>
#include <gst/tensor/gsttensor.h>

#include "bench.h"

#define RUNS 15
#define PUSHES 2000
#define NBUFS 4

typedef struct {
  GstElement *pipe, *el;
  GstPad *src;
  gboolean meta;
} Rig;

static GstPadProbeReturn
add_meta (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) == GST_QUERY_ALLOCATION)
    gst_query_add_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return GST_PAD_PROBE_OK;
}

static void
link_sink (Rig *r, GstPad *pad)
{
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *sp = gst_element_get_static_pad (sink, "sink");

  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  if (r->meta)
    gst_pad_add_probe (sp,
        GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH, add_meta,
        NULL, NULL);
  gst_bin_add (GST_BIN (r->pipe), sink);
  gst_element_sync_state_with_parent (sink);
  if (gst_pad_link (pad, sp) != GST_PAD_LINK_OK) {
    fprintf (stderr, "cannot link %s\n", GST_PAD_NAME (pad));
    exit (1);
  }
  gst_object_unref (sp);
}

static void
pad_added (GstElement *e, GstPad *pad, gpointer data)
{
  link_sink (data, pad);
}

/* factory with props ("axis=0 sections=4"), n branches for a tee. */
static void
rig_new (Rig *r, const gchar *factory, const gchar *props, int branches,
    gboolean meta, const gchar *caps)
{
  GstPad *sink;
  GstSegment seg;
  gchar **kv = g_strsplit (props, " ", -1);

  memset (r, 0, sizeof *r);
  r->meta = meta;
  r->pipe = gst_pipeline_new (NULL);
  r->el = gst_element_factory_make (factory, NULL);
  for (int i = 0; kv[i]; i++) {
    gchar **p = g_strsplit (kv[i], "=", 2);

    if (p[0] && p[1])
      gst_util_set_object_arg (G_OBJECT (r->el), p[0], p[1]);
    g_strfreev (p);
  }
  g_strfreev (kv);
  gst_bin_add (GST_BIN (r->pipe), r->el);
  if (branches == 0) /* tensorsplit's sometimes pads */
    g_signal_connect (r->el, "pad-added", G_CALLBACK (pad_added), r);
  for (int b = 0; b < branches; b++) {
    GstPad *tp = gst_element_request_pad_simple (r->el, "src_%u");

    link_sink (r, tp);
    gst_object_unref (tp);
  }
  r->src = gst_pad_new ("bench_src", GST_PAD_SRC);
  sink = gst_element_get_static_pad (r->el, "sink");
  gst_pad_set_active (r->src, TRUE);
  gst_pad_link (r->src, sink);
  gst_object_unref (sink);
  gst_element_set_state (r->pipe, GST_STATE_PLAYING);
  gst_pad_push_event (r->src, gst_event_new_stream_start ("bench"));
  gst_pad_push_event (r->src, gst_event_new_caps (gst_caps_from_string (caps)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (r->src, gst_event_new_segment (&seg));
}

static void
rig_free (Rig *r)
{
  gst_element_set_state (r->pipe, GST_STATE_NULL);
  gst_pad_set_active (r->src, FALSE);
  gst_object_unref (r->src);
  gst_object_unref (r->pipe);
}

/* CPU seconds of this thread: on a loaded machine the wall clock of a
 * run of a few milliseconds counts the time other processes ran in it,
 * which scatters per-buffer times by 10x; everything runs on this thread
 * (sync=false sinks, no queues). */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds per buffer over PUSHES pushes cycling through bufs. */
static double
run (Rig *r, GstBuffer **bufs)
{
  double t = cpu_now ();

  for (int i = 0; i < PUSHES; i++)
    if (gst_pad_push (r->src, gst_buffer_ref (bufs[i % NBUFS]))
        != GST_FLOW_OK) {
      fprintf (stderr, "push failed\n");
      exit (1);
    }
  return (cpu_now () - t) / PUSHES;
}

int
main (int argc, char **argv)
{
  static const struct {
    const gchar *name, *props;
    int parts;
    gboolean meta;
  } cases[] = {
    { "axis 0, 4 parts", "axis=0 sections=4", 4, FALSE },
    { "axis 0, 2 parts", "axis=0 sections=2", 2, FALSE },
    { "axis 1, 8 views", "axis=1 sections=8", 8, TRUE },
    { "axis 1, 4 views", "axis=1 sections=4", 4, TRUE },
  };
  const gchar *caps = "tensor/x-raw,type=float32,dims=<4,256>";
  GstBuffer *bufs[NBUFS];

  gst_init (&argc, &argv);
  for (int b = 0; b < NBUFS; b++) {
    bufs[b] = gst_buffer_new_allocate (NULL, 4 * 256 * 4, NULL);
    gst_buffer_memset (bufs[b], 0, 0, 4 * 256 * 4);
  }
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    double ts[RUNS], tt[RUNS];
    Rig split, tee;

    /* bench_split "axis 1" runs the cases whose name holds the argument
     * (for perf record) */
    if (argc > 1 && strstr (cases[c].name, argv[1]) == NULL)
      continue;

    rig_new (&split, "tensorsplit", cases[c].props, 0, cases[c].meta, caps);
    /* the same probes on the sinks of both: a pad with a probe costs more
     * per buffer, whatever the probe is for */
    rig_new (&tee, "tee", "", cases[c].parts, cases[c].meta, caps);
    run (&split, bufs);
    run (&tee, bufs);
    for (int r = 0; r < RUNS; r++) {
      ts[r] = run (&split, bufs);
      tt[r] = run (&tee, bufs);
    }
    printf ("tensorsplit %s (%s) float32 <4,256>: %.2f us per buffer; tee "
            "with %d branches %.2f us: ratio %.2f (goal >= 1)\n",
        cases[c].name, cases[c].props, bench_median (ts, RUNS) * 1e6,
        cases[c].parts, bench_median (tt, RUNS) * 1e6,
        bench_ratio (tt, ts, RUNS));
    rig_free (&split);
    rig_free (&tee);
  }
  for (int b = 0; b < NBUFS; b++)
    gst_buffer_unref (bufs[b]);
  return 0;
}
