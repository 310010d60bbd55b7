/* gst-tensor's pipelines beside NNStreamer's (issue 18's table), in one
 * process and one run, and the realistic pipeline (which needs no
 * NNStreamer):
 *  - cast uint8 to float32, 1M and 16M items;
 *  - add 1.0 to float32, 1M and 16M items (ours in place);
 *  - cast, sub 127.5, div 127.5 from RGB frames, 640x480 and 1920x1080;
 *  - HWC to CHW of 640x480x3 uint8, materialised, against a cache-hot
 *    memcpy and (not the yardstick, the bound) a memcpy into two
 *    destinations in turn: behind a sink that keeps its last buffer the
 *    element writes two pool buffers in turn, and the input and both
 *    outputs (2.76 MB) do not fit a 2 MiB L2 where the memcpy's 1.84 MB
 *    do;
 *  - the cost of one buffer of 16 items through one op;
 *  - 1920x1080 RGB -> tensor -> normalise -> CHW -> per-channel mean, on
 *    one thread and with n-threads=2, against a memcpy of its memory
 *    traffic, an identity pipeline and (not the same work: NNStreamer
 *    has no axis reduction) NNStreamer with its stand mode in its place.
 * Every pipeline is parsed by gst_parse_bin_from_description and fed
 * through pads of our own the same input buffer, so no source's cost is
 * in the figures (the pipeline part times videotestsrc apart).  Each
 * figure is a median of ROUNDS interleaved rounds; ratios are medians of
 * the per-round ratios (bench_ratio).  Each case first pushes one buffer
 * through both and compares the output bytes, so the work compared is
 * the same.
 *
 * NNStreamer is found on GST_PLUGIN_PATH or in GST_TENSOR_NNSTREAMER (the
 * directory holding its plugin libnnstreamer.so, as build.sh of
 * ../shared/peers/nnstreamer installs it); without it its rows are
 * skipped.  Arguments pick parts: bench_peers cast add normalise
 * transpose overhead pipeline; bench_peers profile [FRAMES] only pushes
 * frames through the one-thread pipeline (for perf record). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gst/gst.h>

#include "bench.h"
#include "rig.h"
#include <gst/tensor/gsttensor.h>

#define ROUNDS 7

/* ---- a pipeline fed buffer by buffer (rig.h): our sink pad is a
 * consumer that reads no layout meta, as fakesink ---- */

/* A buffer of the tensor allocator (aligned), filled by pattern: uint8
 * i % 251 (every value, no period of a power of two) or float32 zeros. */
static GstBuffer *
new_input (gsize bytes, gboolean u8)
{
  GstAllocator *a = gst_tn_allocator_get ();
  GstBuffer *b = gst_buffer_new_allocate (a, bytes, NULL);
  GstMapInfo m;

  gst_object_unref (a);
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  if (u8)
    for (gsize i = 0; i < m.size; i++)
      m.data[i] = (guint8) (i % 251);
  else
    memset (m.data, 0, m.size);
  gst_buffer_unmap (b, &m);
  return b;
}

/* Seconds per buffer of k pushes.  recycle: push what came out last time
 * (writable, so an in-place element works in place, as it would behind a
 * pool); else push the shared input again. */
static double
rig_time (BenchRig *r, GstBuffer **cur, gboolean recycle, int k)
{
  double t0 = bench_now ();

  for (int i = 0; i < k; i++) {
    bench_rig_push (r, recycle ? *cur : gst_buffer_ref (*cur));
    if (recycle)
      *cur = bench_rig_take (r);
  }
  return (bench_now () - t0) / k;
}

/* Seconds of CPU this process used: on a loaded machine the wall clock
 * counts the time other processes had the core, CPU time does not (for
 * one thread of ours; n-threads=2 adds its worker's time). */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- machine limits, compiled here ---- */

static void __attribute__ ((noinline))
limit_memcpy (void *dst, const void *src, size_t n)
{
  memcpy (dst, src, n);
  bench_sink (dst);
}

/* A STREAM-style in-place add, plain C at the bench's flags. */
static void __attribute__ ((noinline)) limit_add (float *a, size_t n)
{
  for (size_t i = 0; i < n; i++)
    a[i] = a[i] + 1.0f;
  bench_sink (a);
}

/* "12.345 ms" or "1.234 us" into b (static buffers of the caller). */
static const char *
fmt_s (char *b, double s)
{
  if (s < 1e-4)
    snprintf (b, 32, "%.3f us", 1e6 * s);
  else
    snprintf (b, 32, "%.3f ms", 1e3 * s);
  return b;
}

/* A read pass: every 64-bit word once, xor-folded (integers vectorise
 * at the bench's flags where a float sum would not). */
static guint64 __attribute__ ((noinline))
limit_read (const guint64 *a, size_t n)
{
  guint64 x = 0;

  for (size_t i = 0; i < n; i++)
    x ^= a[i];
  return x;
}

/* ---- one row of the table ---- */

static char *
tensor_caps (const char *type, const char *dims)
{
  return g_strdup_printf ("tensor/x-raw,type=%s,dims=<%s>,"
                          "dims-order=row-major,framerate=0/1",
      type, dims);
}

static char *
nns_caps_of (const char *type, const char *dims)
{
  return g_strdup_printf ("other/tensors,format=static,num_tensors=1,"
                          "types=%s,dimensions=(string)%s,framerate=0/1",
      type, dims);
}

static char *
video_caps (int w, int h)
{
  return g_strdup_printf (
      "video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1", w, h);
}

enum { LIMIT_NONE, LIMIT_MEMCPY, LIMIT_ADD, LIMIT_IDENTITY };

typedef struct {
  const char *part, *name;
  const char *ours, *nns;
  /* The input: a tensor of type with dims (ours, outermost first) and
   * nns_dims (NNStreamer's spelling, innermost first), or RGB frames of
   * w x h when type is NULL. */
  const char *type, *dims, *nns_dims;
  int w, h;
  gsize in_bytes;
  gboolean recycle, is_float; /* is_float: of the output */
  int limit;
  gsize limit_bytes; /* memcpy: bytes copied; add: items */
  const char *limit_name;
  int k; /* pushes per round */
  /* memcpy limits: also time the memcpy into two destinations in turn */
  gboolean limit_two;
} Case;

static gboolean have_nns;

/* One buffer through each, from equal inputs: are the bytes the same? */
static void
compare_once (const Case *c, BenchRig *ro, BenchRig *rn)
{
  gboolean u8 = c->type == NULL || strcmp (c->type, "uint8") == 0;
  GstBuffer *a, *b;
  GstMapInfo ma, mb;
  gsize differ = 0;
  double maxd = 0;

  bench_rig_push (ro, new_input (c->in_bytes, u8));
  bench_rig_push (rn, new_input (c->in_bytes, u8));
  a = bench_rig_take (ro);
  b = bench_rig_take (rn);
  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  if (ma.size != mb.size) {
    printf ("  OUTPUTS DIFFER: %zu bytes (ours) and %zu (NNStreamer)\n",
        ma.size, mb.size);
  } else if (c->is_float) {
    const float *x = (const float *) ma.data, *y = (const float *) mb.data;

    for (gsize i = 0; i < ma.size / 4; i++)
      if (memcmp (&x[i], &y[i], 4)) {
        double dd = (double) x[i] - y[i];

        differ++;
        maxd = MAX (maxd, dd < 0 ? -dd : dd);
      }
    if (differ)
      printf ("  OUTPUTS DIFFER: %zu of %zu float32 items, by at most %g\n",
          differ, ma.size / 4, maxd);
    else
      printf ("  outputs: the same %zu bytes\n", ma.size);
  } else {
    for (gsize i = 0; i < ma.size; i++)
      differ += ma.data[i] != mb.data[i];
    if (differ)
      printf ("  OUTPUTS DIFFER: %zu of %zu bytes\n", differ, ma.size);
    else
      printf ("  outputs: the same %zu bytes\n", ma.size);
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
}

static void
run_case (const Case *c)
{
  gboolean u8 = c->type == NULL || strcmp (c->type, "uint8") == 0;
  char *ours_caps
      = c->type ? tensor_caps (c->type, c->dims) : video_caps (c->w, c->h);
  char *nns_caps
      = c->type ? nns_caps_of (c->type, c->nns_dims) : video_caps (c->w, c->h);
  /* CPU and wall seconds per buffer: ours, NNStreamer, the limit, the
   * memcpy into two destinations. */
  double tc[4][ROUNDS], tw[4][ROUNDS];
  char b1[32], b2[32];
  GstBuffer *in = new_input (c->in_bytes, u8), *co, *cn, *ci;
  guint8 *ld = NULL, *ls = NULL, *ld2 = NULL;
  float *la = NULL;
  BenchRig ro, rn, ri;

  printf ("%s:\n  ours: %s\n", c->name, c->ours);
  bench_rig_start (&ro, c->ours, ours_caps, BENCH_RIG_KEEP);
  if (have_nns) {
    printf ("  NNStreamer: %s\n", c->nns);
    bench_rig_start (&rn, c->nns, nns_caps, BENCH_RIG_KEEP);
    compare_once (c, &ro, &rn);
  }
  if (c->limit == LIMIT_MEMCPY) {
    ld = aligned_alloc (64, c->limit_bytes);
    ls = aligned_alloc (64, c->limit_bytes);
    memset (ld, 0, c->limit_bytes);
    memset (ls, 1, c->limit_bytes);
    if (c->limit_two) {
      ld2 = aligned_alloc (64, c->limit_bytes);
      memset (ld2, 2, c->limit_bytes);
    }
  } else if (c->limit == LIMIT_ADD) {
    la = aligned_alloc (64, c->limit_bytes * sizeof (float));
    memset (la, 0, c->limit_bytes * sizeof (float));
  } else if (c->limit == LIMIT_IDENTITY) {
    bench_rig_start (&ri, "identity", ours_caps, BENCH_RIG_KEEP);
  }
  co = c->recycle ? gst_buffer_copy_deep (in) : gst_buffer_ref (in);
  cn = c->recycle ? gst_buffer_copy_deep (in) : gst_buffer_ref (in);
  ci = gst_buffer_ref (in);
  /* Pools filled and pages faulted once; then each contender runs twice
   * untimed right before each timed batch, so that it finds its own
   * bytes in the caches as far as they hold them, whatever the others
   * (and the neighbours) did meanwhile. */
  for (int i = 0; i < ROUNDS; i++) {
    /* The two-destination memcpy before the cache-hot one, so that ours
     * follows the cache-hot memcpy, as it did before that row was added. */
    static const int order[4] = { 0, 1, 3, 2 };

    for (int o = 0; o < 4; o++) {
      int who = order[o];
      double c0 = 0, w0 = 0;

      if ((who == 1 && !have_nns) || (who == 2 && c->limit == LIMIT_NONE)
          || (who == 3 && ld2 == NULL))
        continue;
      for (int pass = 0; pass < 2; pass++) {
        int k = pass ? c->k : 2;

        if (pass) {
          c0 = cpu_now ();
          w0 = bench_now ();
        }
        if (who == 0)
          rig_time (&ro, &co, c->recycle, k);
        else if (who == 1)
          rig_time (&rn, &cn, c->recycle, k);
        else if (c->limit == LIMIT_IDENTITY)
          rig_time (&ri, &ci, FALSE, k);
        else if (who == 3)
          for (int j = 0; j < k; j++)
            limit_memcpy (j & 1 ? ld2 : ld, ls, c->limit_bytes);
        else
          for (int j = 0; j < k; j++) {
            if (la)
              limit_add (la, c->limit_bytes);
            else
              limit_memcpy (ld, ls, c->limit_bytes);
          }
      }
      tc[who][i] = (cpu_now () - c0) / c->k;
      tw[who][i] = (bench_now () - w0) / c->k;
    }
  }
  printf ("  ours %s", fmt_s (b1, bench_median (tc[0], ROUNDS)));
  if (have_nns)
    printf (", NNStreamer %s: ours / NNStreamer %.3f (wall clock %.3f)",
        fmt_s (b2, bench_median (tc[1], ROUNDS)),
        bench_ratio (tc[0], tc[1], ROUNDS), bench_ratio (tw[0], tw[1], ROUNDS));
  else
    printf (" (NNStreamer not found: no ratio)");
  printf ("\n");
  if (c->limit == LIMIT_IDENTITY)
    printf ("  identity %s: ours / identity %.2f (wall clock %.2f)\n",
        fmt_s (b1, bench_median (tc[2], ROUNDS)),
        bench_ratio (tc[0], tc[2], ROUNDS), bench_ratio (tw[0], tw[2], ROUNDS));
  else if (c->limit != LIMIT_NONE)
    printf ("  %s %s: ours at %.0f%% of its speed (wall clock %.0f%%)\n",
        c->limit_name, fmt_s (b1, bench_median (tc[2], ROUNDS)),
        100 * bench_ratio (tc[2], tc[0], ROUNDS),
        100 * bench_ratio (tw[2], tw[0], ROUNDS));
  if (ld2)
    printf ("  memcpy into two destinations in turn (the footprint of ours "
            "behind a sink that keeps its last buffer) %s: ours at %.0f%% "
            "of its speed (wall clock %.0f%%)\n",
        fmt_s (b1, bench_median (tc[3], ROUNDS)),
        100 * bench_ratio (tc[3], tc[0], ROUNDS),
        100 * bench_ratio (tw[3], tw[0], ROUNDS));
  gst_buffer_unref (ci);
  gst_buffer_unref (co);
  gst_buffer_unref (cn);
  gst_buffer_unref (in);
  bench_rig_stop (&ro);
  if (have_nns)
    bench_rig_stop (&rn);
  if (c->limit == LIMIT_IDENTITY)
    bench_rig_stop (&ri);
  free (ld);
  free (ld2);
  free (ls);
  free (la);
  g_free (ours_caps);
  g_free (nns_caps);
}

#define M1 ((gsize) 1 << 20)
#define M16 ((gsize) 16 << 20)
#define CAST_OURS "tensorop ops=cast:float32 n-threads=1"
#define CAST_NNS "tensor_transform mode=typecast option=float32"
#define ADD_OURS "tensorop ops=add:1 n-threads=1"
#define ADD_NNS "tensor_transform mode=arithmetic option=add:1.0"
#define NORM_OURS                                                              \
  "tensorconvert ! tensorop ops=cast:float32,sub:127.5,div:127.5 n-threads=1"
#define NORM_NNS                                                               \
  "tensor_converter ! tensor_transform mode=arithmetic "                       \
  "option=typecast:float32,add:-127.5,div:127.5"
#define OUT_BYTES "memcpy of the output bytes"

/* Issue 18's table.  NNStreamer lists extents innermost first
 * (3:640:480:1 is HWC) and its transpose makes output extent i input
 * extent order[i]: 1:2:0:3 is W, H, C innermost first, CHW (the caps it
 * announces say otherwise; the bytes, compared, are CHW). */
static const Case cases[] = {
  { "cast", "uint8 -> float32 cast, 1M items", CAST_OURS, CAST_NNS, "uint8",
      "1048576", "1048576", 0, 0, M1, FALSE, TRUE, LIMIT_MEMCPY, 4 * M1,
      OUT_BYTES, 20 },
  { "cast", "uint8 -> float32 cast, 16M items", CAST_OURS, CAST_NNS, "uint8",
      "16777216", "16777216", 0, 0, M16, FALSE, TRUE, LIMIT_MEMCPY, 4 * M16,
      OUT_BYTES, 2 },
  { "add", "add 1.0 to float32, 1M items", ADD_OURS, ADD_NNS, "float32",
      "1048576", "1048576", 0, 0, 4 * M1, TRUE, TRUE, LIMIT_ADD, M1,
      "in-place add loop", 20 },
  { "add", "add 1.0 to float32, 16M items", ADD_OURS, ADD_NNS, "float32",
      "16777216", "16777216", 0, 0, 4 * M16, TRUE, TRUE, LIMIT_ADD, M16,
      "in-place add loop", 2 },
  { "normalise", "cast float32, sub 127.5, div 127.5 from RGB 640x480",
      NORM_OURS, NORM_NNS, NULL, NULL, NULL, 640, 480, 640 * 480 * 3, FALSE,
      TRUE, LIMIT_MEMCPY, 640 * 480 * 3 * 4, OUT_BYTES, 20 },
  { "normalise", "cast float32, sub 127.5, div 127.5 from RGB 1920x1080",
      NORM_OURS, NORM_NNS, NULL, NULL, NULL, 1920, 1080, 1920 * 1080 * 3, FALSE,
      TRUE, LIMIT_MEMCPY, 1920 * 1080 * 3 * 4, OUT_BYTES, 4 },
  { "transpose", "HWC -> CHW of 640x480x3 uint8, materialised",
      "tensorview ops=permute:2:0:1",
      "tensor_transform mode=transpose option=1:2:0:3", "uint8", "480,640,3",
      "3:640:480:1", 0, 0, 640 * 480 * 3, FALSE, FALSE, LIMIT_MEMCPY,
      640 * 480 * 3, "cache-hot memcpy of the same bytes", 20, TRUE },
  { "overhead", "per buffer: 16 float32 items, add 1.0", ADD_OURS, ADD_NNS,
      "float32", "16", "16", 0, 0, 64, TRUE, TRUE, LIMIT_IDENTITY, 0, NULL,
      2000 },
};

/* ---- the realistic pipeline ---- */

#define P_W 1920
#define P_H 1080

static const char pipe_fmt[]
    = "tensorconvert ! tensorop ops=cast:float32,sub:127.5,div:127.5 "
      "n-threads=%d ! tensorview ops=permute:2:0:1 ! tensorreduce op=mean "
      "axes=1,2 n-threads=%d";
static const char pipe_nns[]
    = "tensor_converter ! tensor_transform mode=arithmetic "
      "option=typecast:float32,add:-127.5,div:127.5 ! tensor_transform "
      "mode=transpose option=1:2:0:3 ! tensor_transform mode=stand "
      "option=dc-average";

/* Seconds per frame of the launch line itself, videotestsrc and all. */
static double
launch_time (const char *line, int frames)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (line, &err);
  GstBus *bus;
  GstMessage *m;
  double t0;

  if (p == NULL) {
    fprintf (stderr, "%s: %s\n", line, err->message);
    exit (1);
  }
  bus = gst_element_get_bus (p);
  t0 = bench_now ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (
      bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t0 = bench_now () - t0;
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    fprintf (stderr, "%s: error\n", line);
    exit (1);
  }
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return t0 / frames;
}

static void
part_pipeline (void)
{
  /* Bytes each stage must move per frame: tensorconvert wraps the frame
   * (0), tensorop reads W*H*3 uint8 and writes W*H*3 float32, tensorview
   * is a view (0), tensorreduce reads the W*H*3 float32 once (its 12
   * bytes out are nothing).  A memcpy of half that many bytes moves
   * them (it reads and writes). */
  const gsize items = (gsize) P_W * P_H * 3;
  const gsize traffic = items + 4 * items + 4 * items;
  const int frames = 20;
  double t1[ROUNDS], t2[ROUNDS], tid[ROUNDS], tm[ROUNDS], tn[ROUNDS];
  double tl[ROUNDS], ts[ROUNDS], c1[ROUNDS], cm[ROUNDS], cp[ROUNDS];
  double cr[ROUNDS], cred[ROUNDS];
  guint64 *rd = aligned_alloc (64, 4 * items);
  volatile guint64 rsink;
  char *caps = video_caps (P_W, P_H), d1[256], d2[256], line[600], src[256],
       alone[300];
  GstBuffer *in = new_input (items, TRUE), *b1, *b2, *ci, *cn, *bp;
  guint8 *md = aligned_alloc (64, traffic / 2),
         *ms = aligned_alloc (64, traffic / 2);
  BenchRig r1, r2, ri, rn, rp;

  memset (md, 0, traffic / 2);
  memset (ms, 1, traffic / 2);
  snprintf (d1, sizeof d1, pipe_fmt, 1, 1);
  snprintf (d2, sizeof d2, pipe_fmt, 2, 2);
  snprintf (src, sizeof src,
      "videotestsrc num-buffers=%d ! video/x-raw,format=RGB,width=%d,"
      "height=%d,framerate=30/1",
      frames, P_W, P_H);
  snprintf (line, sizeof line, "%s ! %s ! fakesink", src, d1);
  snprintf (alone, sizeof alone, "%s ! fakesink", src);
  printf ("realistic pipeline, RGB %dx%d frames pushed by the bench:\n"
          "  %s\n",
      P_W, P_H, d1);
  bench_rig_start (&r1, d1, caps, BENCH_RIG_KEEP);
  bench_rig_start (&r2, d2, caps, BENCH_RIG_KEEP);
  bench_rig_start (&ri, "identity", caps, BENCH_RIG_KEEP);
  /* The stages before tensorreduce, alone: the whole minus this is
   * tensorreduce's cost on the CHW view (its input is the float32 frame). */
  bench_rig_start (&rp,
      "tensorconvert ! tensorop ops=cast:float32,sub:127.5,div:127.5 "
      "n-threads=1",
      caps, BENCH_RIG_KEEP);
  if (have_nns)
    bench_rig_start (&rn, pipe_nns, caps, BENCH_RIG_KEEP);
  memset (rd, 1, 4 * items);
  bp = gst_buffer_ref (in);
  b1 = gst_buffer_ref (in);
  b2 = gst_buffer_ref (in);
  ci = gst_buffer_ref (in);
  cn = gst_buffer_ref (in);
  rig_time (&r1, &b1, FALSE, 2);
  rig_time (&r2, &b2, FALSE, 2);
  for (int i = 0; i < ROUNDS; i++) {
    double t0, c0;

    c0 = cpu_now ();
    t1[i] = rig_time (&r1, &b1, FALSE, 5);
    c1[i] = (cpu_now () - c0) / 5;
    t2[i] = rig_time (&r2, &b2, FALSE, 5);
    tid[i] = rig_time (&ri, &ci, FALSE, 5);
    c0 = cpu_now ();
    t0 = bench_now ();
    for (int j = 0; j < 5; j++)
      limit_memcpy (md, ms, traffic / 2);
    tm[i] = (bench_now () - t0) / 5;
    cm[i] = (cpu_now () - c0) / 5;
    c0 = cpu_now ();
    rig_time (&rp, &bp, FALSE, 5);
    cp[i] = (cpu_now () - c0) / 5;
    cred[i] = c1[i] - cp[i];
    c0 = cpu_now ();
    for (int j = 0; j < 5; j++)
      rsink = limit_read (rd, items / 2);
    cr[i] = (cpu_now () - c0) / 5;
    tn[i] = have_nns ? rig_time (&rn, &cn, FALSE, 1) : 1;
    /* The launch line as written, and its source alone, once a round
     * (the bench's own pushes are the figures above). */
    tl[i] = i < 3 ? launch_time (line, frames) : tl[0];
    ts[i] = i < 3 ? launch_time (alone, frames) : ts[0];
  }
  printf ("  one thread: %.1f fps (%.2f ms/frame); n-threads=2: %.1f fps, "
          "speed-up %.2fx\n",
      1 / bench_median (t1, ROUNDS), 1e3 * bench_median (t1, ROUNDS),
      1 / bench_median (t2, ROUNDS), bench_ratio (t1, t2, ROUNDS));
  printf ("  memory traffic %.1f MB/frame: a memcpy moving it takes %.2f ms;"
          " one thread at %.0f%% of it, n-threads=2 at %.0f%%\n",
      traffic / 1e6, 1e3 * bench_median (tm, ROUNDS),
      100 * bench_ratio (tm, t1, ROUNDS), 100 * bench_ratio (tm, t2, ROUNDS));
  printf ("  in CPU time (what the load does not stretch): one thread "
          "%.2f ms/frame, the memcpy %.2f ms: at %.0f%% of it\n",
      1e3 * bench_median (c1, ROUNDS), 1e3 * bench_median (cm, ROUNDS),
      100 * bench_ratio (cm, c1, ROUNDS));
  printf ("    of which tensorreduce on the CHW view (the whole minus "
          "tensorconvert ! tensorop) %.2f ms;\n    a read pass of its %.1f "
          "MB %.2f ms: tensorreduce at %.0f%% of it\n",
      1e3 * bench_median (cred, ROUNDS), 4e-6 * items,
      1e3 * bench_median (cr, ROUNDS), 100 * bench_ratio (cr, cred, ROUNDS));
  printf ("  identity pipeline (the feeding's own cost) %.4f ms/frame\n",
      1e3 * bench_median (tid, ROUNDS));
  if (have_nns)
    printf ("  NNStreamer, stand mode in place of the reduction (NOT the "
            "same work):\n    %s\n    %.2f fps: ours (one thread) / "
            "NNStreamer %.3f\n",
        pipe_nns, 1 / bench_median (tn, ROUNDS), bench_ratio (t1, tn, ROUNDS));
  else
    printf ("  NNStreamer not found: its row skipped\n");
  printf ("  as launched: %s ! %s ! fakesink\n    %.1f fps with "
          "videotestsrc's own frames; videotestsrc ! fakesink alone %.2f "
          "ms/frame (3 runs of %d frames)\n",
      src, "...", 1 / bench_median (tl, 3), 1e3 * bench_median (ts, 3), frames);
  (void) rsink;
  gst_buffer_unref (bp);
  bench_rig_stop (&rp);
  free (rd);
  gst_buffer_unref (b1);
  gst_buffer_unref (b2);
  gst_buffer_unref (ci);
  gst_buffer_unref (cn);
  gst_buffer_unref (in);
  bench_rig_stop (&r1);
  bench_rig_stop (&r2);
  bench_rig_stop (&ri);
  if (have_nns)
    bench_rig_stop (&rn);
  free (md);
  free (ms);
  g_free (caps);
}

/* Frames through the one-thread pipeline alone, for perf record
 * (docs/perf-notes.md): bench_peers profile [FRAMES]. */
static void
part_profile (int frames)
{
  char *caps = video_caps (P_W, P_H), d1[256];
  GstBuffer *in = new_input ((gsize) P_W * P_H * 3, TRUE);
  double t;
  BenchRig r;

  snprintf (d1, sizeof d1, pipe_fmt, 1, 1);
  bench_rig_start (&r, d1, caps, BENCH_RIG_KEEP);
  t = rig_time (&r, &in, FALSE, frames);
  printf ("profile: %d frames of %s: %.2f ms/frame\n", frames, d1, 1e3 * t);
  bench_rig_stop (&r);
  gst_buffer_unref (in);
  g_free (caps);
}

/* NNStreamer's plugin needs its libnnstreamer-single.so beside it, one
 * directory up: the dynamic loader reads LD_LIBRARY_PATH at start only,
 * so the bench starts itself again once with it set. */
static void
nns_env (char **argv)
{
  const char *dir = g_getenv ("GST_TENSOR_NNSTREAMER");
  const char *ld = g_getenv ("LD_LIBRARY_PATH");
  char *lib;

  if (dir == NULL || *dir == '\0')
    return;
  lib = g_build_filename (dir, "..", NULL);
  if (ld == NULL || strstr (ld, lib) == NULL) {
    char *v = ld && *ld ? g_strdup_printf ("%s:%s", lib, ld) : g_strdup (lib);

    g_setenv ("LD_LIBRARY_PATH", v, TRUE);
    execv ("/proc/self/exe", argv);
    g_free (v);
  }
  g_free (lib);
}

static gboolean
want (int argc, char **argv, const char *part)
{
  if (argc < 2)
    return TRUE;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], part) == 0)
      return TRUE;
  return FALSE;
}

int
main (int argc, char **argv)
{
  const char *dir;
  GstElementFactory *f, *g;

  nns_env (argv);
  gst_init (&argc, &argv);
  dir = g_getenv ("GST_TENSOR_NNSTREAMER");
  if (dir && *dir)
    gst_registry_scan_path (gst_registry_get (), dir);
  f = gst_element_factory_find ("tensor_transform");
  g = gst_element_factory_find ("tensor_converter");
  have_nns = f != NULL && g != NULL;
  if (have_nns) {
    GstPlugin *p = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (f));

    printf ("# NNStreamer %s from %s\n", gst_plugin_get_version (p),
        gst_plugin_get_filename (p));
    gst_object_unref (p);
  } else {
    printf ("# NNStreamer not found (set GST_TENSOR_NNSTREAMER to the "
            "directory of its libnnstreamer.so): its rows are skipped\n");
  }
  g_clear_object (&f);
  g_clear_object (&g);
  if (argc >= 2 && strcmp (argv[1], "profile") == 0) {
    part_profile (argc > 2 ? atoi (argv[2]) : 300);
    gst_deinit ();
    return 0;
  }
  printf ("# medians of %d interleaved rounds; ours on one thread; the "
          "table's times are\n# CPU time of the process (steadier on a "
          "loaded machine), ratios also by the wall clock\n",
      ROUNDS);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    if (want (argc, argv, cases[i].part))
      run_case (&cases[i]);
  if (want (argc, argv, "pipeline"))
    part_pipeline ();
  gst_deinit (); /* where GST_TRACERS=leaks reports */
  return 0;
}
