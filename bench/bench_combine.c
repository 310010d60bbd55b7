/* tensorcombine and core/combine against their peers, in one run:
 *  - add of two float32 tensors at 1M and 16M items, out of place and in
 *    place (into the first operand): the element (two pads of our own
 *    into sink_0 and sink_1), the core plan, a STREAM-style
 *    c[i] = a[i] + b[i] loop compiled here and NumPy's
 *    np.add (a, b, out=c) (a python3 process fed one command per run);
 *  - the broadcast <1080, 1920, 3> + <3> against the same-shape add of
 *    as many items, in bytes moved per second, and against NumPy's.
 * Every figure is a median of RUNS interleaved runs; ratios are ratios of
 * medians.  Arguments pick parts: bench_combine add inplace bcast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>

#include "bench.h"
#include "core/combine.h"
#include "core/cpu.h"
#include <gst/tensor/gsttensor.h>

#define RUNS 15

static const char numpy_script[]
    = "import sys, time\n"
      "import numpy as np\n"
      "keep = {}\n"
      "def arr(key, make):\n"
      "    if key not in keep:\n"
      "        keep[key] = make()\n"
      "    return keep[key]\n"
      "print('ready', np.__version__, flush=True)\n"
      "def ops(n):\n"
      "    return (arr(('a', n), lambda: np.ones(n, np.float32)),\n"
      "            arr(('b', n), lambda: np.ones(n, np.float32)),\n"
      "            arr(('c', n), lambda: np.zeros(n, np.float32)))\n"
      "def add(n):\n"
      "    a, b, c = ops(n)\n"
      "    np.add(a, b, out=c)\n"
      "def addin(n):\n"
      "    a, b, c = ops(n)\n"
      "    np.add(a, b, out=a)\n"
      "def bcast(n):\n"
      "    a, _, c = ops(n)\n"
      "    w = arr('w', lambda: np.ones(3, np.float32))\n"
      "    np.add(a.reshape(-1, 3), w, out=c.reshape(-1, 3))\n"
      "fns = {'add': add, 'addin': addin, 'bcast': bcast}\n"
      "for line in sys.stdin:\n"
      "    cmd, n = line.split()\n"
      "    f, n = fns[cmd], int(n)\n"
      "    f(n)  # warm, as every contender is before it is timed\n"
      "    f(n)\n"
      "    t = time.perf_counter()\n"
      "    f(n)\n"
      "    print(time.perf_counter() - t, flush=True)\n";

/* ---- tensorcombine fed through two pads of our own ---- */

typedef struct {
  GstElement *e;
  GstPad *src[2], *sink;
  GMutex lock;
  GCond cond;
  GstBuffer *back; /* what came out of the last push */
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

/* FALSE when there is no tensorcombine (GST_PLUGIN_PATH?). */
static gboolean
rig_start (Rig *r, const char *caps0, const char *caps1)
{
  const char *caps[2] = { caps0, caps1 };
  GstPad *esrc;

  memset (r, 0, sizeof *r);
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  r->e = gst_element_factory_make ("tensorcombine", NULL);
  if (r->e == NULL)
    return FALSE;
  g_object_set (r->e, "n-threads", 1, NULL);
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  g_object_set_data (G_OBJECT (r->sink), "rig", r);
  gst_pad_set_chain_function (r->sink, rig_chain);
  esrc = gst_element_get_static_pad (r->e, "src");
  gst_pad_link (esrc, r->sink);
  gst_object_unref (esrc);
  gst_pad_set_active (r->sink, TRUE);
  for (int k = 0; k < 2; k++) {
    GstPad *esink = gst_element_request_pad_simple (r->e, "sink_%u");

    r->src[k] = gst_pad_new (k ? "src1" : "src0", GST_PAD_SRC);
    gst_pad_link (r->src[k], esink);
    gst_object_unref (esink);
    gst_pad_set_active (r->src[k], TRUE);
  }
  gst_element_set_state (r->e, GST_STATE_PLAYING);
  for (int k = 0; k < 2; k++) {
    GstSegment seg;
    gchar id[16];

    g_snprintf (id, sizeof id, "bench%d", k);
    gst_pad_push_event (r->src[k], gst_event_new_stream_start (id));
    gst_pad_push_event (
        r->src[k], gst_event_new_caps (gst_caps_from_string (caps[k])));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (r->src[k], gst_event_new_segment (&seg));
  }
  return TRUE;
}

/* Pushes a and b (taken; the same timestamp) and waits for the output,
 * which it returns. */
static GstBuffer *
rig_run (Rig *r, GstBuffer *a, GstBuffer *b, GstClockTime pts)
{
  GstBuffer *out;

  GST_BUFFER_PTS (a) = GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (a) = GST_BUFFER_DURATION (b) = GST_SECOND;
  if (gst_pad_push (r->src[0], a) != GST_FLOW_OK
      || gst_pad_push (r->src[1], b) != GST_FLOW_OK) {
    fprintf (stderr, "push failed\n");
    exit (1);
  }
  g_mutex_lock (&r->lock);
  while (r->back == NULL)
    g_cond_wait (&r->cond, &r->lock);
  out = r->back;
  r->back = NULL;
  g_mutex_unlock (&r->lock);
  return out;
}

static void
rig_stop (Rig *r)
{
  gst_element_set_state (r->e, GST_STATE_NULL);
  gst_buffer_replace (&r->back, NULL);
  for (int k = 0; k < 2; k++) {
    gst_pad_set_active (r->src[k], FALSE);
    gst_object_unref (r->src[k]);
  }
  gst_pad_set_active (r->sink, FALSE);
  gst_object_unref (r->sink);
  gst_object_unref (r->e);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
}

static GstBuffer *
new_tensor_buffer (gsize bytes, float v)
{
  GstAllocator *al = gst_tn_allocator_get ();
  GstBuffer *b = gst_buffer_new_allocate (al, bytes, NULL);
  GstMapInfo m;

  gst_object_unref (al);
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (gsize i = 0; i < m.size / 4; i++)
    ((float *) m.data)[i] = v;
  gst_buffer_unmap (b, &m);
  return b;
}

/* ---- core ---- */

static tn_combine *
plan (const int64_t *da, int ra, const int64_t *db, int rb)
{
  tn_view v[2];
  tn_combine *p;
  tn_err e;

  if (tn_view_init (&v[0], TN_FLOAT32, da, ra, &e) < 0
      || tn_view_init (&v[1], TN_FLOAT32, db, rb, &e) < 0
      || tn_combine_compile (TN_COMBINE_ADD, v, &p, &e) < 0) {
    fprintf (stderr, "plan: %s\n", e.msg);
    exit (1);
  }
  return p;
}

/* STREAM's add, plain C at the bench's flags (SSE2) and vectorised: GCC's
 * -O2 cost model leaves a loop with a scalar epilogue alone, which would
 * make the peer a scalar loop. */
#define STREAM_FN                                                              \
  __attribute__ ((                                                             \
      noinline, optimize ("tree-vectorize", "vect-cost-model=dynamic")))
static void STREAM_FN
stream_add (float *restrict c, const float *restrict a, const float *restrict b,
    size_t n)
{
  for (size_t i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

static void STREAM_FN
stream_add_in (float *restrict a, const float *restrict b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    a[i] = a[i] + b[i];
}

static float *
falloc (size_t n, float v)
{
  float *p = bench_alloc (n * sizeof (float));

  for (size_t i = 0; i < n; i++)
    p[i] = v;
  return p;
}

static double
gbs (double bytes, double *t, int n)
{
  return bytes / bench_median (t, n) / 1e9;
}

/* add, out of place or in place: element, core, STREAM, NumPy. */
static void
bench_add (BenchPeer *np, long n, int in_place)
{
  double te[RUNS], tc[RUNS], ts[RUNS], tn[RUNS];
  const double bytes = 12.0 * n;
  float *a = falloc (n, 1), *b = falloc (n, 1), *c = falloc (n, 0);
  float *a2 = falloc (n, 1), *b2 = falloc (n, 1), *c2 = falloc (n, 0);
  const int64_t dims = n;
  tn_combine *p = plan (&dims, 1, &dims, 1);
  GstBuffer *ba = new_tensor_buffer (n * 4, 1),
            *bb = new_tensor_buffer (n * 4, 1);
  GstBuffer *out;
  GstClockTime pts = 0;
  char caps[160];
  double e, co, s, nn;
  Rig r;

  snprintf (caps, sizeof caps,
      "tensor/x-raw,type=float32,dims=<%ld>,dims-order=row-major,"
      "framerate=0/1",
      n);
  const gboolean have_element = rig_start (&r, caps, caps);

  if (!have_element)
    printf ("(no tensorcombine: GST_PLUGIN_PATH?)\n");
  for (int i = 0; i < RUNS; i++) {
    for (int k = 0; k < 3; k++) {
      for (int pass = 0; pass < 3; pass++) {
        double t0;

        if (k == 0) {
          /* Out of place we keep a ref to sink_0's buffer, so it is not
           * writable; in place it is given away and comes back. */
          GstBuffer *ia = in_place ? ba : gst_buffer_ref (ba);

          if (!have_element)
            break;
          t0 = bench_now ();
          out = rig_run (&r, ia, gst_buffer_ref (bb), pts);
          te[i] = bench_now () - t0;
          pts += GST_SECOND;
          if (in_place)
            ba = out;
          else
            gst_buffer_unref (out);
          continue;
        }
        t0 = bench_now ();
        if (k == 1) {
          const void *bases[2] = { a, b };

          tn_combine_run (p, in_place ? a : c, bases, 1);
          bench_sink (in_place ? a : c);
        } else if (in_place) {
          stream_add_in (a2, b2, n);
          bench_sink (a2);
        } else {
          stream_add (c2, a2, b2, n);
          bench_sink (c2);
        }
        (k == 1 ? tc : ts)[i] = bench_now () - t0;
      }
    }
    tn[i] = bench_peer_run (np, in_place ? "addin" : "add", n);
  }
  /* Per-round ratios first: gbs sorts the times. */
  const double r_es = have_element ? bench_ratio (ts, te, RUNS) : 0;
  const double r_en
      = have_element && tn[0] > 0 ? bench_ratio (tn, te, RUNS) : 0;

  e = have_element ? gbs (bytes, te, RUNS) : 0;
  co = gbs (bytes, tc, RUNS);
  s = gbs (bytes, ts, RUNS);
  printf ("add float32 %s, %ldM items (12 bytes moved per item):\n",
      in_place ? "in place" : "out of place", n >> 20);
  printf ("  tensorcombine %.2f GB/s, core %.2f GB/s, STREAM loop %.2f GB/s", e,
      co, s);
  if (tn[0] > 0) {
    nn = gbs (bytes, tn, RUNS);
    printf (
        ", NumPy np.add(a, b, out=%s) %.2f GB/s\n", in_place ? "a" : "c", nn);
    printf ("  tensorcombine/STREAM %.2f (target >= 0.90), "
            "tensorcombine/NumPy %.2f (target >= 1.0); core/STREAM %.2f, "
            "core/NumPy %.2f\n",
        e / s, e / nn, co / s, co / nn);
    printf ("  median of per-round ratios: tensorcombine/STREAM %.2f, "
            "tensorcombine/NumPy %.2f\n",
        r_es, r_en);
  } else {
    printf ("\n  tensorcombine/STREAM %.2f (target >= 0.90), core/STREAM "
            "%.2f; NumPy not available\n",
        e / s, co / s);
  }
  if (have_element)
    rig_stop (&r);
  gst_buffer_unref (ba);
  gst_buffer_unref (bb);
  tn_combine_free (p);
  free (a);
  free (b);
  free (c);
  free (a2);
  free (b2);
  free (c2);
}

/* CPU seconds of this thread: a run's cost without the time slices that
 * other processes took in between (its memory stalls included). */
static double
thread_cpu (void)
{
  struct timespec t;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

/* <1080, 1920, 3> + <3> against <1080, 1920, 3> + <1080, 1920, 3>.
 * Bytes counted: 8 per item for the broadcast (a read, a write; the <3>
 * is 12 bytes in all), 12 for the same-shape add (two reads, a write),
 * so a ratio of 1 in bytes per second is the broadcast taking 2/3 of the
 * same-shape add's time; the time ratio is printed too. */
static void
bench_bcast (BenchPeer *np)
{
  const int64_t dims[3] = { 1080, 1920, 3 }, w3 = 3;
  const long n = 1080L * 1920 * 3;
  double tb[RUNS], tf[RUNS], tn[RUNS], cb[RUNS], cf[RUNS];
  float *a = falloc (n, 1), *b = falloc (n, 1), *c = falloc (n, 0);
  float *w = falloc (3, 1);
  tn_combine *pb = plan (dims, 3, &w3, 1), *pf = plan (dims, 3, dims, 3);
  double gb, gf;

  for (int i = 0; i < RUNS; i++) {
    for (int k = 0; k < 2; k++) {
      for (int pass = 0; pass < 3; pass++) {
        const void *bases[2] = { a, k ? (const void *) b : w };
        double t0 = bench_now (), c0 = thread_cpu ();

        tn_combine_run (k ? pf : pb, c, bases, 1);
        bench_sink (c);
        (k ? tf : tb)[i] = bench_now () - t0;
        (k ? cf : cb)[i] = thread_cpu () - c0;
      }
    }
    tn[i] = bench_peer_run (np, "bcast", n);
  }
  const double r_bf = 8.0 / 12.0 * bench_ratio (tf, tb, RUNS);
  const double r_cpu = 8.0 / 12.0 * bench_ratio (cf, cb, RUNS);
  const double r_time = bench_ratio (tb, tf, RUNS);

  gb = gbs (8.0 * n, tb, RUNS);
  gf = gbs (12.0 * n, tf, RUNS);
  printf ("add float32 <1080, 1920, 3> + <3> (8 bytes moved per item):\n");
  printf ("  core %.2f GB/s, same-shape core add %.2f GB/s (12 bytes per "
          "item): broadcast/same-shape %.2f (target >= 0.90)",
      gb, gf, gb / gf);
  if (tn[0] > 0)
    printf ("; NumPy %.2f GB/s, core/NumPy %.2f\n", gbs (8.0 * n, tn, RUNS),
        gb / gbs (8.0 * n, tn, RUNS));
  else
    printf ("\n");
  printf ("  median of per-round ratios: broadcast/same-shape %.2f; in "
          "thread CPU time %.2f; time broadcast/same-shape %.2f (2/3 is a "
          "ratio of 1 in bytes)\n",
      r_bf, r_cpu, r_time);
  tn_combine_free (pb);
  tn_combine_free (pf);
  free (a);
  free (b);
  free (c);
  free (w);
}

static int
want (int argc, char **argv, const char *part)
{
  if (argc < 2)
    return 1;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], part) == 0)
      return 1;
  return 0;
}

int
main (int argc, char **argv)
{
  BenchPeer np;
  char cpu[64];

  gst_init (NULL, NULL);
  if (bench_peer_start (&np, numpy_script) == 0)
    printf ("NumPy %s (/usr/bin/python3), kernels: %s\n", np.version,
        tn_cpu_names (tn_cpu_flags (), cpu, sizeof cpu));
  else
    printf ("NumPy not available\n");
  for (int in_place = 0; in_place < 2; in_place++) {
    if (!want (argc, argv, in_place ? "inplace" : "add"))
      continue;
    bench_add (&np, 1L << 20, in_place);
    bench_add (&np, 1L << 24, in_place);
  }
  if (want (argc, argv, "bcast"))
    bench_bcast (&np);
  bench_peer_stop (&np);
  return 0;
}
