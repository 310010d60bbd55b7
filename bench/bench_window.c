/* tensorwindow per output against memcpy of the bytes it brings in:
 *
 * - float32 <1024, 2> audio, size=4096 hop=1024 (every window spans four
 *   inputs and lies in the ring): bytes copied per window (goal: at most
 *   hop items, 8 KiB) and time per window against a memcpy of those 8 KiB
 *   (goal <= 1.2), against identity on the same buffers (the per-buffer
 *   cost of any element, itself above 1.2 memcpys of the hop) and against
 *   identity plus the memcpy (the floor of an element that copies the
 *   hop); the same with 16 times the frames, where the per-buffer cost
 *   weighs less;
 * - float32 <3, 224, 224> frames into batches of 8 (stack=true): time per
 *   batch against a memcpy of the 8 frames (goal: one copy per frame at
 *   memcpy speed), and <8, 3, 224, 224> batches back into frames (size=1
 *   squeeze=true, inside one input: no copy) against identity;
 * - the ring itself (core/ring.h), without GStreamer, for the design note:
 *   appending hop items and handing out a size-item window per output in
 *   the twice-mapped ring, against a linear buffer of the same size that
 *   copies the window in progress back to its start whenever the next
 *   window would cross its end, and against copying every window whole
 *   (what a window without a ring costs).
 *
 * The identity peer runs with signal-handoffs=false: with its default
 * (true) identity emits a signal per buffer and, the buffer not being
 * writable (the benchmark keeps a reference), copies the GstBuffer
 * before it (gst_buffer_copy: a new buffer sharing the memory), 40% of
 * its per-buffer cost, which no element that only passes buffers on
 * pays (docs/perf-notes.md, "Session 8 H6").
 *
 * Each element is driven from a pad of our own into a sink pad that drops
 * what it gets.  Each figure is the median of RUNS runs, ours and the peer
 * interleaved run by run, in CPU time of the thread; ratios are medians of
 * per-round ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>

#include "bench.h"
#include "core/ring.h"
#include <gst/tensor/gsttensor.h>

#define RUNS 11
/* the per-buffer cost of an element that passes buffers on (see above) */
#define IDENTITY "identity signal-handoffs=false"

/* CPU seconds of this thread: on a loaded machine the wall clock of a
 * run of a few milliseconds counts the time other processes ran in it
 * (per-window times scattered by 10x); elements and peers all run on
 * this thread. */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
  GstElement *e;
  GstPad *src, *sink;
  guint64 outputs;
} Rig;

static GstFlowReturn
sink_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  Rig *r = gst_pad_get_element_private (pad);

  r->outputs++;
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  gst_event_unref (event);
  return TRUE;
}

/* element (a launch description, "tensorwindow size=8") between pads of
 * ours, playing, caps sent. */
static Rig *
rig_new (const gchar *desc, const gchar *caps)
{
  Rig *r = g_new0 (Rig, 1);
  GstSegment seg;
  GstPad *p;
  GError *err = NULL;

  r->e = gst_parse_launch (desc, &err);
  if (r->e == NULL) {
    fprintf (stderr, "%s: %s (GST_PLUGIN_PATH=%s)\n", desc,
        err ? err->message : "?", g_getenv ("GST_PLUGIN_PATH"));
    exit (1);
  }
  r->src = gst_pad_new ("src", GST_PAD_SRC);
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  gst_pad_set_chain_function (r->sink, sink_chain);
  gst_pad_set_event_function (r->sink, sink_event);
  gst_pad_set_element_private (r->sink, r);
  p = gst_element_get_static_pad (r->e, "sink");
  gst_pad_link (r->src, p);
  gst_object_unref (p);
  p = gst_element_get_static_pad (r->e, "src");
  gst_pad_link (p, r->sink);
  gst_object_unref (p);
  gst_pad_set_active (r->src, TRUE);
  gst_pad_set_active (r->sink, TRUE);
  gst_element_set_state (r->e, GST_STATE_PLAYING);
  gst_pad_push_event (r->src, gst_event_new_stream_start ("bench"));
  if (!gst_pad_push_event (
          r->src, gst_event_new_caps (gst_caps_from_string (caps)))) {
    fprintf (stderr, "%s refused %s\n", desc, caps);
    exit (1);
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (r->src, gst_event_new_segment (&seg));
  return r;
}

static void
rig_free (Rig *r)
{
  gst_element_set_state (r->e, GST_STATE_NULL);
  gst_pad_set_active (r->src, FALSE);
  gst_pad_set_active (r->sink, FALSE);
  gst_object_unref (r->e);
  gst_object_unref (r->src);
  gst_object_unref (r->sink);
  g_free (r);
}

static guint64
copied (Rig *r)
{
  guint64 v;

  g_object_get (r->e, "bytes-copied", &v, NULL);
  return v;
}

/* Seconds per output over n pushes of buf. */
static double
push_n (Rig *r, GstBuffer *buf, int n)
{
  guint64 out0 = r->outputs;
  double t0 = cpu_now ();

  for (int i = 0; i < n; i++)
    if (gst_pad_push (r->src, gst_buffer_ref (buf)) != GST_FLOW_OK) {
      fprintf (stderr, "push failed\n");
      exit (1);
    }
  return (cpu_now () - t0) / (double) MAX (r->outputs - out0, 1);
}

/* Seconds per memcpy of bytes over n copies, the destination moving
 * through span bytes (a multiple of bytes) as the ring's does. */
static double
memcpy_n (guint8 *dst, gsize span, const guint8 *src, gsize bytes, int n)
{
  gsize k = span / bytes;
  double t0 = cpu_now ();

  for (int i = 0; i < n; i++) {
    memcpy (dst + (i % k) * bytes, src, bytes);
    bench_sink (dst);
  }
  return (cpu_now () - t0) / n;
}

static GstBuffer *
filled (gsize bytes)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, bytes, NULL);

  gst_buffer_memset (b, 0, 1, bytes);
  return b;
}

/* Audio windows of 4 tensors of frames x 2 float32, every tensor. */
static void
audio (int frames, int n)
{
  const gsize in_bytes = (gsize) frames * 2 * 4, win_bytes = 4 * in_bytes;
  gchar *desc
      = g_strdup_printf ("tensorwindow size=%d hop=%d", 4 * frames, frames);
  gchar *caps = g_strdup_printf (
      "tensor/x-raw,type=float32,dims=<%d,2>,framerate=0/1", frames);
  Rig *w = rig_new (desc, caps);
  Rig *id = rig_new (IDENTITY, caps);
  GstBuffer *in = filled (in_bytes);
  /* dst 2 KiB off src in a page (no 4K aliasing, see ring ()); the
   * peers write 4 hops (a window: the element's ring while downstream
   * drops each window in the push, as here) or 5 (a window and a hop:
   * its ring when downstream keeps the last window, and its first ring
   * until session 10) */
  const gsize ring_bytes = 5 * in_bytes;
  /* and 8 hops: the element's first ring until session 9 (two windows),
   * which with <16384,2> no longer fits in L2 with the input */
  guint8 *dbuf = g_malloc (8 * in_bytes + 4096), *dst = dbuf + 2048;
  guint8 *src = g_malloc (in_bytes);
  double tw[RUNS], tid[RUNS], tm[RUNS], tr[RUNS], t8[RUNS], tfl[RUNS];
  guint64 c0, o0;

  memset (src, 1, in_bytes);
  memset (dst, 0, 8 * in_bytes);
  push_n (w, in, 64); /* the first window, the ring made */
  c0 = copied (w);
  o0 = w->outputs;
  for (int i = 0; i < RUNS; i++) {
    tw[i] = push_n (w, in, n);
    tid[i] = push_n (id, in, n);
    tm[i] = memcpy_n (dst, 4 * in_bytes, src, in_bytes, n);
    tr[i] = memcpy_n (dst, ring_bytes, src, in_bytes, n);
    t8[i] = memcpy_n (dst, 8 * in_bytes, src, in_bytes, n);
  }
  printf ("audio float32 <%d,2> size=%d hop=%d (%d windows a run): "
          "%.0f bytes copied per window (hop: %zu, window: %zu)\n",
      frames, 4 * frames, frames, n,
      (double) (copied (w) - c0) / (double) (w->outputs - o0), in_bytes,
      win_bytes);
  printf ("  tensorwindow %.0f ns, identity %.0f ns, memcpy of hop %.0f ns "
          "(into 4 hops) / %.0f ns (into 5 hops) per window\n",
      1e9 * bench_median (g_memdup2 (tw, sizeof tw), RUNS),
      1e9 * bench_median (g_memdup2 (tid, sizeof tid), RUNS),
      1e9 * bench_median (g_memdup2 (tm, sizeof tm), RUNS),
      1e9 * bench_median (g_memdup2 (tr, sizeof tr), RUNS));
  /* The floor of any element that copies the hop: identity's per-buffer
   * cost and the memcpy, summed round by round. */
  for (int i = 0; i < RUNS; i++)
    tfl[i] = tid[i] + tm[i];
  printf ("  ratio time tensorwindow/memcpy %.2f / %.2f (goal <= 1.2); "
          "tensorwindow/identity %.2f; tensorwindow/(identity + memcpy of "
          "the hop) %.2f\n",
      bench_ratio (tw, tm, RUNS), bench_ratio (tw, tr, RUNS),
      bench_ratio (tw, tid, RUNS), bench_ratio (tw, tfl, RUNS));
  /* what the ring's size costs the copy alone */
  printf ("  memcpy of the hop into 8 hops (two windows: the first ring "
          "until session 9) / into 5 hops (a window and a hop: until "
          "session 10) %.2f; into 5 hops / into 4 hops (a window: now) "
          "%.2f\n",
      bench_ratio (t8, tr, RUNS), bench_ratio (tr, tm, RUNS));
  gst_buffer_unref (in);
  g_free (dbuf);
  g_free (src);
  g_free (desc);
  g_free (caps);
  rig_free (w);
  rig_free (id);
}

static void
batches (void)
{
  const gsize frame = 3 * 224 * 224 * 4, batch = 8 * frame;
  Rig *w = rig_new ("tensorwindow stack=true size=8",
      "tensor/x-raw,type=float32,dims=<3,224,224>,framerate=0/1");
  Rig *u = rig_new ("tensorwindow size=1 squeeze=true",
      "tensor/x-raw,type=float32,dims=<8,3,224,224>,framerate=0/1");
  Rig *id = rig_new (
      IDENTITY, "tensor/x-raw,type=float32,dims=<8,3,224,224>,framerate=0/1");
  GstBuffer *f = filled (frame), *b = filled (batch);
  guint8 *dbuf = g_malloc (4 * batch + 4096), *dst = dbuf + 2048;
  guint8 *src = g_malloc (batch);

  memset (dst, 0, 4 * batch);
  double tw[RUNS], tm[RUNS], tu[RUNS], tid[RUNS];
  const int n = 64;
  guint64 c0, o0;

  memset (src, 1, batch);
  push_n (w, f, 16);
  c0 = copied (w);
  o0 = w->outputs;
  for (int i = 0; i < RUNS; i++) {
    tw[i] = push_n (w, f, n * 8);
    tm[i] = memcpy_n (dst, 4 * batch, src, batch, n);
    tu[i] = push_n (u, b, n) / 8; /* per frame out */
    tid[i] = push_n (id, b, n) / 8;
  }
  printf (
      "batch float32 <3,224,224> x 8 (stack=true): %.0f bytes copied per "
      "batch (%zu a batch); unbatch <8,3,224,224> size=1: %" G_GUINT64_FORMAT
      " bytes copied\n",
      (double) (copied (w) - c0) / (double) (w->outputs - o0), batch,
      copied (u));
  printf ("  batch %.0f us, memcpy of 8 frames %.0f us; unbatch %.0f ns per "
          "frame, identity %.0f ns per buffer / 8\n",
      1e6 * bench_median (g_memdup2 (tw, sizeof tw), RUNS),
      1e6 * bench_median (g_memdup2 (tm, sizeof tm), RUNS),
      1e9 * bench_median (g_memdup2 (tu, sizeof tu), RUNS),
      1e9 * bench_median (g_memdup2 (tid, sizeof tid), RUNS));
  printf ("  ratio time batch/memcpy %.2f; unbatch/identity %.2f\n",
      bench_ratio (tw, tm, RUNS), bench_ratio (tu, tid, RUNS));
  gst_buffer_unref (f);
  gst_buffer_unref (b);
  g_free (dbuf);
  g_free (src);
  rig_free (w);
  rig_free (u);
  rig_free (id);
}

/* The ring alone, size and hop in bytes, n outputs: seconds per output;
 * *bytes gets bytes copied per output. */
static double
ring_double (
    tn_ring *r, const guint8 *src, gsize size, gsize hop, int n, double *bytes)
{
  guint64 pos = 0, end = 0;
  double t0 = cpu_now ();

  for (int i = 0; i < n; i++) {
    guint64 want = pos + size;

    memcpy (tn_ring_at (r, end), src, want - end);
    end = want;
    bench_sink (tn_ring_at (r, pos)); /* the window: one pointer */
    pos += hop;
  }
  *bytes = (double) end / n;
  return (cpu_now () - t0) / n;
}

/* A linear buffer of cap bytes: a window must not cross its end, so the
 * window in progress moves back to the start (a second copy of it) when
 * the next would.  Live windows would forbid the move: a real element
 * would need a new buffer instead, costing the same copy. */
static double
ring_linear (guint8 *buf, gsize cap, const guint8 *src, gsize size, gsize hop,
    int n, double *bytes)
{
  gsize pos = 0, end = 0;
  double copied = 0, t0 = cpu_now ();

  for (int i = 0; i < n; i++) {
    if (pos + size > cap) {
      memmove (buf, buf + pos, end - pos);
      copied += end - pos;
      end -= pos;
      pos = 0;
    }
    memcpy (buf + end, src, pos + size - end);
    copied += pos + size - end;
    end = pos + size;
    bench_sink (buf + pos);
    pos += hop;
  }
  *bytes = copied / n;
  return (cpu_now () - t0) / n;
}

static double
ring_whole (guint8 *dst, const guint8 *src, gsize size, int n)
{
  double t0 = cpu_now ();

  for (int i = 0; i < n; i++) {
    memcpy (dst, src, size);
    bench_sink (dst);
  }
  return (cpu_now () - t0) / n;
}

static void
ring (void)
{
  /* a ring of two windows (the element's first ring until session 9,
   * now a window, or a window and a hop when downstream keeps the last
   * one: the figures of the design note are for this one) */
  const gsize size = 4096 * 8, hop = 1024 * 8, cap = 2 * size;
  tn_ring r;
  tn_err e;
  /* dst off src's position in a page by 2 KiB: a destination 4 KiB
   * apart from the source makes every load wait on the stores (4K
   * aliasing) and would slow the peer, not ours, down. */
  guint8 *lin = g_malloc (cap), *src = g_malloc (size);
  guint8 *dbuf = g_malloc (size + 4096), *dst = dbuf + 2048;
  guint8 *sbuf, *span;
  double td[RUNS], tl[RUNS], tw[RUNS], tm[RUNS], ts[RUNS], bd = 0, bl = 0;
  const int n = 20000;

  if (tn_ring_map (&r, cap, &e) != 0) {
    fprintf (stderr, "%s\n", e.msg);
    exit (1);
  }
  /* The hop's memcpy into malloc'd bytes as many as the ring's, at the
   * ring's alignment (a page) from the same source: the ring without its
   * double mapping.  The plain memcpy of the hop writes the same 8 KiB
   * every time (in L1); the ring's hops go round 64 KiB, more than the
   * 32-48 KiB of L1 data cache, so its copy runs at L2's speed whatever
   * the mapping (docs/perf-notes.md, "Session 10 H5"). */
  sbuf = g_malloc (r.size + 4096);
  span = (guint8 *) (((guintptr) sbuf + 4095) & ~(guintptr) 4095);
  memset (span, 0, r.size);
  memset (src, 1, size);
  memset (lin, 0, cap);
  memset (r.base, 0, r.size);
  for (int i = 0; i < RUNS; i++) {
    td[i] = ring_double (&r, src, size, hop, n, &bd);
    tl[i] = ring_linear (lin, r.size, src, size, hop, n, &bl);
    tw[i] = ring_whole (dst, src, size, n);
    tm[i] = ring_whole (dst, src, hop, n);
    ts[i] = memcpy_n (span, r.size, src, hop, n);
  }
  printf ("ring alone, window 32 KiB every 8 KiB, ring %zu bytes: "
          "twice-mapped %.0f ns (%.0f bytes copied per window), linear %.0f "
          "ns (%.0f bytes), whole window copied %.0f ns (%zu bytes)\n",
      r.size, 1e9 * bench_median (g_memdup2 (td, sizeof td), RUNS), bd,
      1e9 * bench_median (g_memdup2 (tl, sizeof tl), RUNS), bl,
      1e9 * bench_median (g_memdup2 (tw, sizeof tw), RUNS), size);
  printf ("  memcpy of the hop %.0f ns; into malloc'd bytes as many as the "
          "ring's %.0f ns\n",
      1e9 * bench_median (g_memdup2 (tm, sizeof tm), RUNS),
      1e9 * bench_median (g_memdup2 (ts, sizeof ts), RUNS));
  printf ("  ratio time twice-mapped/linear %.2f; twice-mapped/whole %.2f; "
          "twice-mapped/memcpy of the hop %.2f (goal <= 1.2)\n",
      bench_ratio (td, tl, RUNS), bench_ratio (td, tw, RUNS),
      bench_ratio (td, tm, RUNS));
  printf ("  ratio time twice-mapped/memcpy of the hop into as many bytes "
          "%.2f (the mapping alone)\n",
      bench_ratio (td, ts, RUNS));
  tn_ring_unmap (&r);
  g_free (sbuf);
  g_free (lin);
  g_free (src);
  g_free (dbuf);
}

int
main (int argc, char **argv)
{
  const gchar *part = argc > 1 ? argv[1] : "";

  gst_init (&argc, &argv);
  printf ("bench_window: medians of %d runs\n", RUNS);
  if (!*part || strstr (part, "audio")) {
    audio (1024, 4000);
    /* 16 times the frames: the per-buffer cost spread over more bytes
     * ("audio-small" leaves it out, for perf record) */
    if (!strstr (part, "small"))
      audio (16384, 400);
  }
  if (!*part || strstr (part, "batch"))
    batches ();
  if (!*part || strstr (part, "ring"))
    ring ();
  return 0;
}
