/* tn_normalize against its peers, in one run with the runs interleaved:
 * - softmax along the last axis of <1000, 1000> float32 against NumPy's
 *   e = np.exp(x - x.max(-1, keepdims=True)); e / e.sum(-1, keepdims=True)
 *   and scipy.special.softmax(x, axis=-1) (a /usr/bin/python3 co-process,
 *   bench.h's BenchPeer, timing the third of three calls per request, as
 *   ours run warm); goal: >= 1.5x both;
 * - standardize over axes 0,1 of <1080, 1920, 3> float32 (an HWC image
 *   per channel) against a STREAM-style read+write pass over the same
 *   bytes (y[i] = s * x[i], vectorised); goal: >= 0.7 of its speed; and
 *   NumPy's (x - x.mean((0,1))) / np.sqrt(x.var((0,1)) + 1e-5) for scale;
 *   and, for the bound of any two-pass kernel (a read for the statistics,
 *   then a read+write pass), a read loop over the image followed by the
 *   STREAM pass, timed as one call (not a peer: what the goal can reach);
 * - each on 1 thread (the ratios) and, for reference, on 2.
 * Every figure is the median of RUNS runs; ratios are speeds, ours over
 * the peer's (>= 1: ours is faster).  Every timed call, ours and the
 * peers', starts warm (run once untimed just before, as a pipeline's
 * element finds the frame the element before wrote), or with
 * TN_BENCH_CACHE=cold from memory: bench.h's BenchCache.  The one-thread cases
 * are also timed in thread CPU time (the peer's by time.thread_time, in runs of
 * their own), steadier than the wall clock on a loaded machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench.h"
#include "core/normalize.h"
#include "core/random.h"

#define RUNS 21

static const char *const peer_script
    = "import sys, time\n"
      "try:\n"
      "    import numpy as np, scipy\n"
      "    from scipy import special\n"
      "except ImportError:\n"
      "    sys.exit(0)\n"
      "print('ready numpy %s scipy %s' % (np.__version__, scipy.__version__),"
      " flush=True)\n"
      "rng = np.random.default_rng(1)\n"
      "x = rng.standard_normal((1000, 1000)).astype(np.float32)\n"
      "img = rng.uniform(0, 255, (1080, 1920, 3)).astype(np.float32)\n"
      "def np_softmax():\n"
      "    e = np.exp(x - x.max(-1, keepdims=True))\n"
      "    return e / e.sum(-1, keepdims=True)\n"
      "def np_std():\n"
      "    return (img - img.mean((0, 1))) / np.sqrt(img.var((0, 1)) + 1e-5)\n"
      "fs = {'np_softmax': np_softmax,\n"
      "      'sp_softmax': lambda: special.softmax(x, axis=-1),\n"
      "      'np_standardize': np_std}\n"
      "ev = None\n"
      "for line in sys.stdin:\n"
      "    w = line.split()\n"
      "    cpu = w[0].endswith('_cpu')\n" /* NAME_cpu: thread CPU time */
      "    f = fs[w[0][:-4] if cpu else w[0]]\n"
      "    clock = time.thread_time if cpu else time.perf_counter\n"
      /* warm: the first calls after a pause are slow; at least two calls
       * and BENCH_SETTLE_S (0.020 s), as ours */
      "    t = time.perf_counter(); f(); f()\n"
      "    while time.perf_counter() - t < 0.020: f()\n"
      "    if 'cold' in w:\n" /* bench.h's bench_evict, in this process */
      "        if ev is None: ev = np.ones(1 << 26, np.float32)\n"
      "        ev.sum()\n"
      "    t = clock(); f(); t = clock() - t\n"
      "    print('%.9f' % t, flush=True)\n";

/* STREAM's scale kernel: every byte read once and written once. */
static void __attribute__ ((noinline))
stream_scale (float *y, const float *x, size_t n, float s)
{
  for (size_t i = 0; i < n; i++)
    y[i] = s * x[i];
}

/* A STREAM-style read, every byte once into four vector accumulators
 * (bench_reduce.c's read loop); the two-pass bound's first pass. */
#if defined(__x86_64__)
static __attribute__ ((target ("avx2"), noipa)) float
read_loop (const float *p, size_t n)
{
  __m256 a = _mm256_setzero_ps (), b = a, c = a, d = a;
  float o[8], s = 0;
  size_t i;

  for (i = 0; i + 32 <= n; i += 32) {
    a = _mm256_add_ps (a, _mm256_loadu_ps (p + i));
    b = _mm256_add_ps (b, _mm256_loadu_ps (p + i + 8));
    c = _mm256_add_ps (c, _mm256_loadu_ps (p + i + 16));
    d = _mm256_add_ps (d, _mm256_loadu_ps (p + i + 24));
  }
  _mm256_storeu_ps (
      o, _mm256_add_ps (_mm256_add_ps (a, b), _mm256_add_ps (c, d)));
  for (int k = 0; k < 8; k++)
    s += o[k];
  for (; i < n; i++)
    s += p[i];
  return s;
}
#else
static float __attribute__ ((noipa)) read_loop (const float *p, size_t n)
{
  float s[8] = { 0 };
  size_t i;

  for (i = 0; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++)
      s[k] += p[i + k];
  for (; i < n; i++)
    s[0] += p[i];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}
#endif

/* The two-pass bound: a read of x, then the STREAM pass. */
static void
bound_pass (float *y, const float *x, size_t n)
{
  volatile float s = read_loop (x, n);

  (void) s;
  stream_scale (y, x, n, 0.5f);
}

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void
fill (float *x, int64_t n, int normal)
{
  tn_err e;

  if (normal)
    tn_random_fill_normal (x, TN_FLOAT32, 0, n, 0.0, 1.0, 1, 0, &e);
  else
    tn_random_fill_uniform (x, TN_FLOAT32, 0, n, 0.0, 255.0, 1, 1, &e);
}

/* Wall-clock seconds; *cpu (if not NULL): the calling thread's CPU
 * seconds, the whole call's for nthreads 1 (it runs on that thread). */
static double
time_norm (float *y, const float *x, const tn_view *v, tn_norm_op op,
    uint32_t mask, int nthreads, double *cpu)
{
  tn_err e;
  double c = cpu_now (), t = bench_now ();

  if (tn_normalize (y, x, v, op, mask, tn_norm_default_eps (op), nthreads, &e)
      < 0) {
    fprintf (stderr, "tn_normalize: %s\n", e.msg);
    exit (1);
  }
  t = bench_now () - t;
  if (cpu)
    *cpu = cpu_now () - c;
  bench_sink (y);
  return t;
}

/* The peer's seconds for one call of name, from the cache state c. */
static double
peer_time (BenchPeer *p, int have_peer, const char *name, BenchCache c)
{
  char cmd[64];

  if (!have_peer)
    return 0;
  snprintf (cmd, sizeof cmd, "%s%s", name, c == BENCH_COLD ? " cold" : "");
  return bench_peer_run (p, cmd, 1);
}

int
main (void)
{
  const int64_t sd[2] = { 1000, 1000 }, id[3] = { 1080, 1920, 3 };
  const int64_t sn = sd[0] * sd[1], in = id[0] * id[1] * id[2];
  float *sx = bench_alloc (sn * 4), *sy = bench_alloc (sn * 4);
  float *ix = bench_alloc (in * 4), *iy = bench_alloc (in * 4);
  double ours1[RUNS], ours2[RUNS], np_[RUNS], sp[RUNS], st1[RUNS], st2[RUNS],
      stream[RUNS], npst[RUNS], bound[RUNS];
  double c_ours[RUNS], c_np[RUNS], c_sp[RUNS], c_st[RUNS], c_stream[RUNS];
  BenchPeer peer;
  int have_peer;
  const BenchCache cache = bench_cache ();
  const char *state = cache == BENCH_COLD ? "cold" : "warm";
  tn_view sv, iv;

  fill (sx, sn, 1);
  fill (ix, in, 0);
  tn_view_init (&sv, TN_FLOAT32, sd, 2, NULL);
  tn_view_init (&iv, TN_FLOAT32, id, 3, NULL);
  have_peer = bench_peer_start (&peer, peer_script) == 0;
  if (have_peer)
    printf ("# peer: %s\n", peer.version);
  else
    printf ("# peer: NumPy/SciPy not available (/usr/bin/python3 with "
            "python3-numpy and python3-scipy; bench/run.sh installs them)\n");
  printf ("# cache state of every timed call, ours and the peers': %s\n",
      bench_cache_name (cache));

  /* warm-up: pages, the worker pool, the peer's arrays */
  time_norm (sy, sx, &sv, TN_NORM_SOFTMAX, 2, 1, NULL);
  time_norm (iy, ix, &iv, TN_NORM_STANDARDIZE, 3, 2, NULL);
  stream_scale (iy, ix, in, 1.0f);
  /* Every timed call, ours and the peers', starts from one cache state
   * (bench.h's bench_prepare; the peer warms or evicts in its process).
   * Timed once each in a row, ours read the image from memory after the
   * NumPy formula's temporaries and the STREAM pass found it in cache. */
  for (int r = 0; r < RUNS; r++) {
    BENCH_WARM (cache, time_norm (sy, sx, &sv, TN_NORM_SOFTMAX, 2, 1, NULL));
    ours1[r] = time_norm (sy, sx, &sv, TN_NORM_SOFTMAX, 2, 1, &c_ours[r]);
    BENCH_WARM (cache, time_norm (sy, sx, &sv, TN_NORM_SOFTMAX, 2, 2, NULL));
    ours2[r] = time_norm (sy, sx, &sv, TN_NORM_SOFTMAX, 2, 2, NULL);
    np_[r] = peer_time (&peer, have_peer, "np_softmax", cache);
    sp[r] = peer_time (&peer, have_peer, "sp_softmax", cache);
    c_np[r] = peer_time (&peer, have_peer, "np_softmax_cpu", cache);
    c_sp[r] = peer_time (&peer, have_peer, "sp_softmax_cpu", cache);
    BENCH_WARM (
        cache, time_norm (iy, ix, &iv, TN_NORM_STANDARDIZE, 3, 1, NULL));
    st1[r] = time_norm (iy, ix, &iv, TN_NORM_STANDARDIZE, 3, 1, &c_st[r]);
    BENCH_WARM (
        cache, time_norm (iy, ix, &iv, TN_NORM_STANDARDIZE, 3, 2, NULL));
    st2[r] = time_norm (iy, ix, &iv, TN_NORM_STANDARDIZE, 3, 2, NULL);
    BENCH_WARM (cache, stream_scale (iy, ix, in, 0.5f));
    c_stream[r] = cpu_now ();
    stream[r] = bench_now ();
    stream_scale (iy, ix, in, 0.5f);
    stream[r] = bench_now () - stream[r];
    c_stream[r] = cpu_now () - c_stream[r];
    bench_sink (iy);
    BENCH_WARM (cache, bound_pass (iy, ix, in));
    bound[r] = bench_now ();
    bound_pass (iy, ix, in);
    bound[r] = bench_now () - bound[r];
    bench_sink (iy);
    npst[r] = peer_time (&peer, have_peer, "np_standardize", cache);
  }
  /* the per-round ratios first: bench_median sorts its array, which
   * would pair one round's time with another's */
  const double r_np = bench_ratio (np_, ours1, RUNS);
  const double r_sp = bench_ratio (sp, ours1, RUNS);
  const double rc_np = bench_ratio (c_np, c_ours, RUNS);
  const double rc_sp = bench_ratio (c_sp, c_ours, RUNS);
  const double r_st1 = bench_ratio (stream, st1, RUNS);
  const double r_st2 = bench_ratio (stream, st2, RUNS);
  const double rc_st = bench_ratio (c_stream, c_st, RUNS);
  const double r_bound = bench_ratio (stream, bound, RUNS);
  const double r_stb = bench_ratio (bound, st1, RUNS);
  const double r_npst = bench_ratio (npst, st1, RUNS);

  printf ("softmax <1000,1000> float32 axis -1, %s: ours %.3f ms (2 threads "
          "%.3f ms)\n",
      state, bench_median (ours1, RUNS) * 1e3,
      bench_median (ours2, RUNS) * 1e3);
  if (have_peer) {
    printf ("  NumPy exp/max/sum formula %.3f ms: ratio %.2f (goal >= 1.5)\n",
        bench_median (np_, RUNS) * 1e3, r_np);
    printf ("  scipy.special.softmax     %.3f ms: ratio %.2f (goal >= 1.5)\n",
        bench_median (sp, RUNS) * 1e3, r_sp);
    printf ("  thread CPU time: ours %.3f ms, NumPy %.3f ms, scipy %.3f ms: "
            "ratios %.2f, %.2f\n",
        bench_median (c_ours, RUNS) * 1e3, bench_median (c_np, RUNS) * 1e3,
        bench_median (c_sp, RUNS) * 1e3, rc_np, rc_sp);
  }
  printf ("standardize <1080,1920,3> float32 axes 0,1, %s: ours %.3f ms (2 "
          "threads %.3f ms)\n",
      state, bench_median (st1, RUNS) * 1e3, bench_median (st2, RUNS) * 1e3);
  printf ("  STREAM scale pass (%.1f MB read + written) %.3f ms: ratio %.2f "
          "(goal >= 0.7; 2 threads %.2f)\n",
      in * 4 / 1e6, bench_median (stream, RUNS) * 1e3, r_st1, r_st2);
  printf ("  thread CPU time: ours %.3f ms, STREAM %.3f ms: ratio %.2f\n",
      bench_median (c_st, RUNS) * 1e3, bench_median (c_stream, RUNS) * 1e3,
      rc_st);
  printf ("  two-pass bound, read loop + STREAM %.3f ms: STREAM / it %.2f "
          "(the most a two-pass kernel reaches), ours / it %.2f\n",
      bench_median (bound, RUNS) * 1e3, r_bound, r_stb);
  if (have_peer)
    printf ("  NumPy (x - mean) / sqrt (var + eps)      %.3f ms: ratio %.2f\n",
        bench_median (npst, RUNS) * 1e3, r_npst);
  bench_peer_stop (&peer);
  free (sx);
  free (sy);
  free (ix);
  free (iy);
  return 0;
}
