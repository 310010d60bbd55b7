/* tn_reduce against its peers, in one run with the runs interleaved:
 * - sum of 16M float32 items, over every axis of <16M> and along axis 0
 *   and axis -1 of <4096, 4096>, against a STREAM-style read loop over
 *   the same 64 MB (AVX2, four accumulators) and against NumPy's a.sum(),
 *   a.sum(axis=0), a.sum(axis=1) on the same data (a /usr/bin/python3
 *   co-process that times one call per request, with time.perf_counter);
 * - argmax along the last axis of <1000, 1000> float32 against NumPy's
 *   a.argmax(axis=-1);
 * - an HWC frame <1080, 1920, 3> float32: the mean along its innermost
 *   axis of 3 (a.mean(axis=2)), and its CHW view (tensorview's
 *   permute:2:0:1, strides <1, 5760, 3>, not materialised) reduced over
 *   axes 1,2 and over axis 0, against the read loop over the same 24.9 MB
 *   and against NumPy on the same transposed view
 *   (v = a.transpose(2, 0, 1); v.mean(axis=(1, 2)), v.mean(axis=0));
 * - the mean along axis 2 and the CHW view's mean over axis 0 also write
 *   a third of what they read (8.3 MB): for the record, beside the read
 *   loop, a read + write loop over the same bytes (three vectors read,
 *   one written, by ordinary and by non-temporal stores), whose time is
 *   what these two would take if they were bound by memory alone;
 * - each of ours on 2 threads against 1.
 * Every figure is the median of RUNS runs; the ratios are speeds, ours
 * over the peer's (>= 1 means ours is faster).  Every timed call, ours
 * and the peers', starts warm (run untimed for BENCH_SETTLE_S just before, as a
 * pipeline's element finds the frame the element before wrote), or with
 * TN_BENCH_CACHE=cold from memory: bench.h's BenchCache.  Our data sits on
 * transparent huge pages (bench_alloc), as NumPy puts its large arrays:
 * with 4 KiB pages a 64 MB stream pays a TLB miss every 4 KiB. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench.h"
#include "core/cpu.h"
#include "core/random.h"
#include "core/reduce.h"

#define RUNS 15
#define N 4096
#define AN 1000
#define FH 1080
#define FW 1920
/* BENCH_SETTLE_S for the NumPy peer's own settle, as its argument. */
#define SETTLE_ARG "0.020"

/* The NumPy peer: reads commands on stdin, answers one line each. */
static const char *const peer_script
    = "import sys, time\n"
      "try:\n"
      "    import numpy as np\n"
      "except ImportError:\n"
      "    print('no-numpy', flush=True); sys.exit(0)\n"
      "print('numpy ' + np.__version__, flush=True)\n"
      "arrs = {}\n"
      "SETTLE = float(sys.argv[1])\n"
      "for line in sys.stdin:\n"
      "    w = line.split()\n"
      "    if w[0] == 'load':\n"
      "        arrs[w[1]] = np.fromfile(w[2], dtype=np.float32).reshape(\n"
      "            [int(d) for d in w[3:]])\n"
      "        print('ok', flush=True); continue\n"
      "    a = arrs[w[1]]\n"
      "    v = a.transpose(2, 0, 1) if a.ndim == 3 else a\n"
      "    f = {'all': lambda: a.sum(), 'ax0': lambda: a.sum(axis=0),\n"
      "         'ax1': lambda: a.sum(axis=1),\n"
      "         'argmax': lambda: a.argmax(axis=-1),\n"
      "         'mean2': lambda: a.mean(axis=2),\n"
      "         'chw12': lambda: v.mean(axis=(1, 2)),\n"
      "         'chw0': lambda: v.mean(axis=0)}[w[0]]\n"
      /* the cache state ours has, and as long a settle (run_case) */
      "    if w[2:] == ['warm']:\n"
      "        t = time.perf_counter()\n"
      "        while True:\n"
      "            f()\n"
      "            if time.perf_counter() - t >= SETTLE: break\n"
      "    t = time.perf_counter(); r = f(); t = time.perf_counter() - t\n"
      "    print('%.9f %r' % (t, float(np.asarray(r).ravel()[0])), "
      "flush=True)\n";

typedef struct {
  pid_t pid;
  FILE *in, *out;
  int ok;
} Peer;

static void
peer_start (Peer *p)
{
  int to[2], from[2];
  char line[256];

  memset (p, 0, sizeof *p);
  if (pipe (to) < 0 || pipe (from) < 0)
    return;
  p->pid = fork ();
  if (p->pid == 0) {
    dup2 (to[0], 0);
    dup2 (from[1], 1);
    close (to[1]);
    close (from[0]);
    execl ("/usr/bin/python3", "python3", "-c", peer_script, SETTLE_ARG,
        (char *) NULL);
    _exit (127);
  }
  close (to[0]);
  close (from[1]);
  p->in = fdopen (to[1], "w");
  p->out = fdopen (from[0], "r");
  if (p->pid > 0 && fgets (line, sizeof line, p->out)
      && strncmp (line, "numpy ", 6) == 0) {
    p->ok = 1;
    printf ("# peer: NumPy %s", line + 6);
  } else {
    printf ("# peer: NumPy not available (/usr/bin/python3 -c 'import "
            "numpy' failed); run bench/run.sh, which installs "
            "python3-numpy\n");
  }
}

static double
peer_ask (Peer *p, const char *cmd, double *value)
{
  char line[256];
  double t = 0, v = 0;

  fprintf (p->in, "%s\n", cmd);
  fflush (p->in);
  if (!fgets (line, sizeof line, p->out)
      || sscanf (line, "%lf %lf", &t, &v) < 1) {
    fprintf (stderr, "NumPy peer did not answer '%s'\n", cmd);
    exit (1);
  }
  if (value)
    *value = v;
  return t;
}

static void
peer_load (
    Peer *p, const char *name, const float *x, const int64_t *dims, int rank)
{
  char path[] = "/tmp/bench_reduce_XXXXXX", cmd[256], line[64];
  int fd = mkstemp (path), len;
  size_t n = 1;
  FILE *f;

  for (int i = 0; i < rank; i++)
    n *= (size_t) dims[i];
  f = fd >= 0 ? fdopen (fd, "wb") : NULL;
  if (!f || fwrite (x, sizeof *x, n, f) != n || fclose (f) != 0) {
    fprintf (stderr, "cannot write %s: %s\n", path, strerror (errno));
    exit (1);
  }
  len = snprintf (cmd, sizeof cmd, "load %s %s", name, path);
  for (int i = 0; i < rank; i++)
    len += snprintf (cmd + len, sizeof cmd - len, " %lld", (long long) dims[i]);
  fprintf (p->in, "%s\n", cmd);
  fflush (p->in);
  if (!fgets (line, sizeof line, p->out) || strncmp (line, "ok", 2) != 0) {
    fprintf (stderr, "NumPy peer could not load %s\n", path);
    exit (1);
  }
  unlink (path);
}

static void
peer_stop (Peer *p)
{
  if (p->in)
    fclose (p->in);
  if (p->out)
    fclose (p->out);
  if (p->pid > 0)
    waitpid (p->pid, NULL, 0);
}

/* STREAM-style read: every byte once, into four vector accumulators. */
#if defined(__x86_64__)
static __attribute__ ((target ("avx2"))) float
read_loop_avx2 (const float *p, size_t n)
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
#endif

/* The read + write peer: out[i / 3 ..] = the sum of three vectors of 8,
 * for each 24 items of p (out 32-byte aligned); stream: non-temporal
 * stores. */
#if defined(__x86_64__)
static __attribute__ ((target ("avx2"))) void
read_write_avx2 (const float *p, size_t n, float *out, int stream)
{
  for (size_t i = 0; i + 24 <= n; i += 24) {
    __m256 v = _mm256_add_ps (
        _mm256_add_ps (_mm256_loadu_ps (p + i), _mm256_loadu_ps (p + i + 8)),
        _mm256_loadu_ps (p + i + 16));

    if (stream)
      _mm256_stream_ps (out + i / 3, v);
    else
      _mm256_storeu_ps (out + i / 3, v);
  }
  _mm_sfence ();
}
#endif

static void
read_write_loop (const float *p, size_t n, float *out, int stream)
{
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("avx2")) {
    read_write_avx2 (p, n, out, stream);
    return;
  }
#endif
  (void) stream;
  for (size_t i = 0; i + 3 <= n; i += 3)
    out[i / 3] = p[i] + p[i + 1] + p[i + 2];
}

static float
read_loop (const float *p, size_t n)
{
#if defined(__x86_64__)
  if (__builtin_cpu_supports ("avx2"))
    return read_loop_avx2 (p, n);
#endif
  float a[8] = { 0 };
  size_t i;

  for (i = 0; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++)
      a[k] += p[i + k];
  for (; i < n; i++)
    a[0] += p[i];
  return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

static double
time_reduce (void *dst, const float *x, const tn_view *v, tn_reduce_op op,
    uint32_t mask, int nthreads)
{
  double t0 = bench_now ();
  tn_err e;

  if (tn_reduce (dst, x, v, op, mask, 0, nthreads, &e) < 0) {
    fprintf (stderr, "%s\n", e.msg);
    exit (1);
  }
  bench_sink (dst);
  return bench_now () - t0;
}

typedef struct {
  const char *label, *peer_cmd;
  const float *x;
  tn_view v;
  tn_reduce_op op;
  uint32_t mask;
  int with_read; /* 2: and the read + write peers */
} Case;

static void
run_case (const Case *c, Peer *p, void *dst)
{
  double t1[RUNS], t2[RUNS], tr[RUNS], tp[RUNS], tw[RUNS], ts[RUNS];
  size_t bytes = (size_t) tn_view_count (&c->v) * sizeof (float);
  double m1, m2, mr = 0, mp = 0, pv = 0;
  volatile float rs;
  const BenchCache cache = bench_cache ();
  char pcmd[64];

  snprintf (pcmd, sizeof pcmd, "%s%s", c->peer_cmd,
      cache == BENCH_WARM ? " warm" : "");

  /* Warm every side once. */
  time_reduce (dst, c->x, &c->v, c->op, c->mask, 1);
  time_reduce (dst, c->x, &c->v, c->op, c->mask, 2);
  rs = read_loop (c->x, bytes / sizeof (float));
  if (p->ok)
    peer_ask (p, pcmd, &pv);
  /* Each timed call starts from the same cache state (bench.h's
   * bench_prepare): run right after one another on the same data, the
   * second side found the frame in cache and the first read it from
   * memory after the NumPy peer's and the 2-thread pass's traffic. */
  for (int r = 0; r < RUNS; r++) {
    double t0;

    BENCH_WARM (cache, time_reduce (dst, c->x, &c->v, c->op, c->mask, 1));
    t1[r] = time_reduce (dst, c->x, &c->v, c->op, c->mask, 1);
    if (c->with_read) {
      BENCH_WARM (cache, rs = read_loop (c->x, bytes / sizeof (float)));
      t0 = bench_now ();
      rs = read_loop (c->x, bytes / sizeof (float));
      tr[r] = bench_now () - t0;
    }
    if (c->with_read == 2) {
      BENCH_WARM (
          cache, read_write_loop (c->x, bytes / sizeof (float), dst, 0));
      t0 = bench_now ();
      read_write_loop (c->x, bytes / sizeof (float), dst, 0);
      tw[r] = bench_now () - t0;
      BENCH_WARM (
          cache, read_write_loop (c->x, bytes / sizeof (float), dst, 1));
      t0 = bench_now ();
      read_write_loop (c->x, bytes / sizeof (float), dst, 1);
      ts[r] = bench_now () - t0;
    }
    if (p->ok) {
      bench_prepare (cache); /* the peer warms itself (pcmd) */
      tp[r] = peer_ask (p, pcmd, NULL);
    }
    BENCH_WARM (cache, time_reduce (dst, c->x, &c->v, c->op, c->mask, 2));
    t2[r] = time_reduce (dst, c->x, &c->v, c->op, c->mask, 2);
  }
  (void) rs;
  m1 = bench_median (t1, RUNS);
  m2 = bench_median (t2, RUNS);
  printf ("%s, %s: %.2f GB/s (%.3f ms)", c->label,
      cache == BENCH_COLD ? "cold" : "warm", bytes / m1 / 1e9, m1 * 1e3);
  if (c->with_read) {
    mr = bench_median (tr, RUNS);
    printf ("; read loop %.2f GB/s, ratio %.2f", bytes / mr / 1e9, mr / m1);
  }
  if (c->with_read == 2) {
    double mw = bench_median (tw, RUNS), ms = bench_median (ts, RUNS);

    printf ("; read + write loop %.3f ms (/ read %.2f), streamed %.3f ms (/ "
            "read %.2f)",
        mw * 1e3, mr / mw, ms * 1e3, mr / ms);
  }
  if (p->ok) {
    mp = bench_median (tp, RUNS);
    printf ("; NumPy %.2f GB/s (%.3f ms), ratio %.2f", bytes / mp / 1e9,
        mp * 1e3, mp / m1);
  }
  printf ("; 2 threads %.2f GB/s, x%.2f\n", bytes / m2 / 1e9, m1 / m2);
}

int
main (void)
{
  const int64_t flat[1] = { (int64_t) N * N }, sq[2] = { N, N },
                am[2] = { AN, AN }, hwc[3] = { FH, FW, 3 };
  const int perm[3] = { 2, 0, 1 };
  float *x = bench_alloc ((size_t) N * N * sizeof (float));
  float *y = bench_alloc ((size_t) AN * AN * sizeof (float));
  float *z = bench_alloc ((size_t) FH * FW * 3 * sizeof (float));
  void *dst = bench_alloc ((size_t) FH * FW * 8);
  Peer peer;
  tn_err e;
  tn_view chw;
  Case cases[7];
  char names[32];

  if (!x || !y || !dst)
    return 1;
  tn_random_uniform_f32 (x, (size_t) N * N, 2024, 0, 0);
  tn_random_uniform_f32 (y, (size_t) AN * AN, 2025, 0, 0);
  tn_random_uniform_f32 (z, (size_t) FH * FW * 3, 2026, 0, 0);
  printf ("# kernels: %s; %d runs each, medians; ratios are speeds, ours "
          "over the peer's\n# cache state of every timed call, ours and "
          "the peers': %s\n",
      tn_cpu_names (tn_cpu_flags (), names, sizeof names), RUNS,
      bench_cache_name (bench_cache ()));
  peer_start (&peer);
  if (peer.ok) {
    peer_load (&peer, "flat", x, flat, 1);
    peer_load (&peer, "sq", x, sq, 2);
    peer_load (&peer, "am", y, am, 2);
    peer_load (&peer, "hwc", z, hwc, 3);
  }

  memset (cases, 0, sizeof cases);
  cases[0] = (Case){ "sum of <16777216> float32", "all flat", x, { 0 },
    TN_REDUCE_SUM, 1, 1 };
  cases[1] = (Case){ "sum axis 0 of <4096, 4096> float32", "ax0 sq", x, { 0 },
    TN_REDUCE_SUM, 1, 1 };
  cases[2] = (Case){ "sum axis -1 of <4096, 4096> float32", "ax1 sq", x, { 0 },
    TN_REDUCE_SUM, 2, 1 };
  cases[3] = (Case){ "argmax axis -1 of <1000, 1000> float32", "argmax am", y,
    { 0 }, TN_REDUCE_ARGMAX, 2, 0 };
  if (tn_view_init (&cases[0].v, TN_FLOAT32, flat, 1, &e) < 0
      || tn_view_init (&cases[1].v, TN_FLOAT32, sq, 2, &e) < 0
      || tn_view_init (&cases[2].v, TN_FLOAT32, sq, 2, &e) < 0
      || tn_view_init (&cases[3].v, TN_FLOAT32, am, 2, &e) < 0
      || tn_view_init (&cases[4].v, TN_FLOAT32, hwc, 3, &e) < 0
      || tn_view_init (&chw, TN_FLOAT32, hwc, 3, &e) < 0
      || tn_view_permute (&chw, perm, 3, &e) < 0) {
    fprintf (stderr, "%s\n", e.msg);
    return 1;
  }
  cases[4].label = "mean axis 2 of <1080, 1920, 3> float32";
  cases[4].peer_cmd = "mean2 hwc";
  cases[4].x = z;
  cases[4].op = TN_REDUCE_MEAN;
  cases[4].mask = 4;
  cases[4].with_read = 2;
  cases[5] = (Case){ "mean axes 1,2 of the CHW view of <1080, 1920, 3> float32",
    "chw12 hwc", z, chw, TN_REDUCE_MEAN, 6, 1 };
  cases[6] = (Case){ "mean axis 0 of the CHW view of <1080, 1920, 3> float32",
    "chw0 hwc", z, chw, TN_REDUCE_MEAN, 1, 2 };
  for (int k = 0; k < 7; k++)
    run_case (&cases[k], &peer, dst);

  /* The result agrees with NumPy's (different association: a few ulps). */
  if (peer.ok) {
    double np_sum;
    float ours;

    peer_ask (&peer, "all flat", &np_sum);
    tn_reduce (&ours, x, &cases[0].v, TN_REDUCE_SUM, 1, 0, 1, &e);
    printf ("# check: sum %.9g, NumPy's %.9g\n", ours, np_sum);
  }
  peer_stop (&peer);
  free (x);
  free (y);
  free (z);
  free (dst);
  return 0;
}
