/* The built-in GEMM against OpenBLAS (cblas_sgemm/dgemm, same thread
 * count, pinned per measurement with openblas_set_num_threads), runs
 * interleaved so the shared machine's noise hits both sides alike:
 *   - float32 square 256..2048 at 1 and 2 threads, GFLOP/s, ratio, and
 *     the fraction of the FMA peak measured by a register-only FMA loop;
 *   - float64 and int8 (int8 has no BLAS peer: GOP/s beside float32);
 *   - [1,k] x [k,n] with B packed once (k = n = 4096 and 1024): bytes of
 *     packed weights streamed per second against a STREAM-style read of
 *     as many bytes and against OpenBLAS sgemv.
 *   - levels: float32 and float64 square 256..2048 at 1 and 2 threads
 *     with the kernels of every x86 level the CPU has (AVX-512, and AVX2
 *     by masking it off with tn_cpu_set_mask), interleaved with OpenBLAS
 *     in one run: a ratio per level.
 * Arguments name the parts to run (f32, other, gemv, levels, levels-f64:
 * the float64 half of levels; for levels, sizes such as 2048 and a
 * thread count such as 1t narrow it); none runs all.
 * GST_TENSOR_CPU=ssse3,avx2,f16c runs every part as on an AVX2-only machine. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/cpu.h"
#include "core/gemm.h"
#include "core/parallel.h"

#if TN_HAVE_OPENBLAS
#include <cblas.h>
#define HAVE_BLAS 1
#else
#define HAVE_BLAS 0
#endif

#define RUNS 7

typedef struct {
  tn_dtype t;
  int64_t m, n, k;
  void *a, *b, *c;
  tn_view va, vb;
} gemm_case;

static void
fill (void *p, tn_dtype t, int64_t n)
{
  for (int64_t i = 0; i < n; i++) {
    int v = (int) ((i * 2654435761u) >> 24 & 0xff) - 128;

    if (t == TN_FLOAT32)
      ((float *) p)[i] = v / 128.0f;
    else if (t == TN_FLOAT64)
      ((double *) p)[i] = v / 128.0;
    else
      ((int8_t *) p)[i] = (int8_t) (v / 2);
  }
}

static void
case_init (gemm_case *g, tn_dtype t, int64_t m, int64_t n, int64_t k)
{
  int64_t ad[2] = { m, k }, bd[2] = { k, n };
  size_t is = tn_dtype_size (t), os = t == TN_INT8 ? 4 : is;

  g->t = t;
  g->m = m;
  g->n = n;
  g->k = k;
  g->a = bench_alloc ((size_t) (m * k) * is + 64);
  g->b = bench_alloc ((size_t) (k * n) * is + 64);
  g->c = bench_alloc ((size_t) (m * n) * os + 64);
  fill (g->a, t, m * k);
  fill (g->b, t, k * n);
  tn_view_init (&g->va, t, ad, 2, NULL);
  tn_view_init (&g->vb, t, bd, 2, NULL);
}

static void
case_free (gemm_case *g)
{
  free (g->a);
  free (g->b);
  free (g->c);
}

static double
run_tn (gemm_case *g, int threads, const tn_gemm_b *pb)
{
  tn_matmul_args args = { 0 };
  double t0 = bench_now ();

  args.a = &g->va;
  args.a_base = g->a;
  args.b = &g->vb;
  args.b_base = g->b;
  args.packed_b = pb;
  args.out = g->c;
  args.nthreads = threads;
  if (tn_matmul (&args, NULL) < 0)
    abort ();
  bench_sink (g->c);
  return bench_now () - t0;
}

static double
run_blas (gemm_case *g, int threads)
{
#if HAVE_BLAS
  double t0;

  openblas_set_num_threads (threads);
  t0 = bench_now ();
  if (g->t == TN_FLOAT32)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k,
        1.0f, g->a, g->k, g->b, g->n, 0.0f, g->c, g->n);
  else
    cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k,
        1.0, g->a, g->k, g->b, g->n, 0.0, g->c, g->n);
  bench_sink (g->c);
  return bench_now () - t0;
#else
  (void) g;
  (void) threads;
  return 0;
#endif
}

/* Single-core FMA peak in GFLOP/s: 12 independent chains, as many as the
 * micro-kernel keeps, so latency never limits throughput. */
__attribute__ ((target ("avx2,fma"))) static double
fma_peak (int dbl)
{
  const long iters = 5000000;
  double best = 0;

  for (int r = 0; r < 3; r++) {
    __m256 x[12], y = _mm256_set1_ps (0.999999f), z = _mm256_set1_ps (1e-7f);
    __m256d xd[12], yd = _mm256_set1_pd (0.999999), zd = _mm256_set1_pd (1e-7);
    double t0 = bench_now (), dt;

    for (int i = 0; i < 12; i++) {
      x[i] = _mm256_set1_ps ((float) i);
      xd[i] = _mm256_set1_pd (i);
    }
    for (long it = 0; it < iters; it++)
      for (int i = 0; i < 12; i++) {
        if (dbl)
          xd[i] = _mm256_fmadd_pd (xd[i], yd, zd);
        else
          x[i] = _mm256_fmadd_ps (x[i], y, z);
      }
    dt = bench_now () - t0;
    bench_sink (x);
    bench_sink (xd);
    for (int i = 0; i < 12; i++)
      __asm__ volatile("" : : "x"(x[i]), "x"(xd[i]));
    if (iters * 12.0 * (dbl ? 8 : 16) / dt / 1e9 > best)
      best = iters * 12.0 * (dbl ? 8 : 16) / dt / 1e9;
  }
  return best;
}

/* The same with 16 zmm chains (2 FMA ports of latency 4 on Intel, one
 * double-pumped on Zen 4); 0 without AVX-512. */
__attribute__ ((target ("avx512f"))) static double
fma_peak512 (int dbl)
{
  const long iters = 5000000;
  double best = 0;

  if (!(tn_cpu_flags () & TN_CPU_AVX512))
    return 0;
  for (int r = 0; r < 3; r++) {
    __m512 x[16], y = _mm512_set1_ps (0.999999f), z = _mm512_set1_ps (1e-7f);
    __m512d xd[16], yd = _mm512_set1_pd (0.999999), zd = _mm512_set1_pd (1e-7);
    double t0 = bench_now (), dt;

    for (int i = 0; i < 16; i++) {
      x[i] = _mm512_set1_ps ((float) i);
      xd[i] = _mm512_set1_pd (i);
    }
    for (long it = 0; it < iters; it++)
      for (int i = 0; i < 16; i++) {
        if (dbl)
          xd[i] = _mm512_fmadd_pd (xd[i], yd, zd);
        else
          x[i] = _mm512_fmadd_ps (x[i], y, z);
      }
    dt = bench_now () - t0;
    for (int i = 0; i < 16; i++)
      __asm__ volatile("" : : "v"(x[i]), "v"(xd[i]));
    if (iters * 16.0 * (dbl ? 16 : 32) / dt / 1e9 > best)
      best = iters * 16.0 * (dbl ? 16 : 32) / dt / 1e9;
  }
  return best;
}

/* CPU time of the calling thread: at 1 thread both contenders run in
 * it, and time spent preempted by the neighbours of a loaded machine
 * drops out of the ratio. */
static double
thread_cpu (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* tn with the kernels of each level (AVX-512 where the CPU has it, AVX2)
 * and OpenBLAS, interleaved round by round: per level GFLOP/s, the ratio
 * of medians to OpenBLAS in the same run, the median of the per-round
 * ratios, and at 1 thread the ratio of median thread CPU times. */
static void
square_levels (tn_dtype t, int64_t s, int threads)
{
  const unsigned masks[2] = { ~0u, ~(unsigned) TN_CPU_AVX512 };
  int nl = tn_cpu_flags () & TN_CPU_AVX512 ? 2 : 1;
  int runs = s >= 2048 ? 5 : s >= 1024 ? 7 : 11;
  double tt[2][11], ct[2][11], tb[11], cb[11], flop = 2.0 * s * s * s, gb;
  unsigned old = tn_cpu_set_mask (~0u);
  gemm_case g;

  case_init (&g, t, s, s, s);
  for (int l = 0; l < nl; l++) {
    tn_cpu_set_mask (masks[l]);
    run_tn (&g, threads, NULL);
  }
  run_blas (&g, threads);
  for (int r = 0; r < runs; r++) {
    for (int l = 0; l < nl; l++) {
      double c0;

      tn_cpu_set_mask (masks[l]);
      c0 = thread_cpu ();
      tt[l][r] = run_tn (&g, threads, NULL);
      ct[l][r] = thread_cpu () - c0;
    }
    {
      double c0 = thread_cpu ();

      tb[r] = run_blas (&g, threads);
      cb[r] = thread_cpu () - c0;
    }
  }
  printf ("%s %4lld^3, %d thread%s:", tn_dtype_name (t), (long long) s, threads,
      threads > 1 ? "s" : " ");
  /* the per-round ratios before bench_median sorts the rounds */
  double rr[2];

  for (int l = 0; l < nl; l++)
    rr[l] = bench_ratio (tb, tt[l], runs);
  for (int l = 0; l < nl; l++) {
    double rc = bench_median (cb, runs) / bench_median (ct[l], runs);
    double gt = flop / bench_median (tt[l], runs) / 1e9;

    printf (" tn %s %6.2f GFLOP/s, ratio %.3f (per round %.3f",
        l == 0 && nl == 2               ? "avx512"
        : tn_cpu_flags () & TN_CPU_AVX2 ? "avx2"
                                        : "portable",
        gt,
        HAVE_BLAS ? bench_median (tb, runs) / bench_median (tt[l], runs) : 0,
        rr[l]);
    if (threads == 1)
      printf (", cpu time %.3f", rc);
    printf (");");
  }
  gb = flop / bench_median (tb, runs) / 1e9;
  printf (" OpenBLAS %6.2f\n", gb);
  tn_cpu_set_mask (old);
  case_free (&g);
}

static void
square (tn_dtype t, int64_t s, int threads, double *peak)
{
  gemm_case g;
  double tt[RUNS], tb[RUNS], flop = 2.0 * s * s * s, gt, gb;
  int runs = s >= 2048 ? 3 : RUNS;

  case_init (&g, t, s, s, s);
  run_tn (&g, threads, NULL);
  if (t != TN_INT8)
    run_blas (&g, threads);
  for (int r = 0; r < runs; r++) {
    tt[r] = run_tn (&g, threads, NULL);
    tb[r] = t != TN_INT8 ? run_blas (&g, threads) : 1;
  }
  /* the peak is re-measured around every case and the best kept: a busy
   * neighbour lowers a single measurement */
  if (t != TN_INT8) {
    double p = fma_peak (t == TN_FLOAT64);

    if (p > *peak)
      *peak = p;
  }
  gt = flop / bench_median (tt, runs) / 1e9;
  gb = flop / bench_median (tb, runs) / 1e9;
  if (t == TN_INT8)
    printf ("int8->int32 %4lld^3, %d thread%s: tn %6.2f GOP/s\n", (long long) s,
        threads, threads > 1 ? "s" : " ", gt);
  else
    printf ("%s %4lld^3, %d thread%s: tn %6.2f GFLOP/s, OpenBLAS %6.2f, "
            "ratio %.3f, %.0f%% of FMA peak (%.1f x %d)\n",
        tn_dtype_name (t), (long long) s, threads, threads > 1 ? "s" : " ", gt,
        gb, HAVE_BLAS ? gt / gb : 0, 100 * gt / (*peak * threads), *peak,
        threads);
  case_free (&g);
}

/* Matrix-vector product with constant weights, against a read of the
 * same number of bytes (8 independent vector sums, the STREAM "sum"). */
__attribute__ ((target ("avx2"))) static double
stream_read (const float *p, size_t n)
{
  __m256 s[8];
  double t0 = bench_now ();

  for (int i = 0; i < 8; i++)
    s[i] = _mm256_setzero_ps ();
  for (size_t i = 0; i + 64 <= n; i += 64)
    for (int j = 0; j < 8; j++)
      s[j] = _mm256_add_ps (s[j], _mm256_load_ps (p + i + 8 * j));
  for (int i = 1; i < 8; i++)
    s[0] = _mm256_add_ps (s[0], s[i]);
  __asm__ volatile("" : : "x"(s[0]));
  return bench_now () - t0;
}

#define GEMV_RUNS 15

/* [1,k] x [k,n] with B packed once, as tensormatmul's weights: the
 * product streams the packed B, so it is measured in bytes of it per
 * second against a read of as many bytes (from DRAM at 4096^2, from L3 at
 * 1024^2) and against OpenBLAS sgemv on the row-major B. */
static void
gemv (int threads, int64_t k, int64_t n)
{
  gemm_case g;
  tn_gemm_b *pb;
  size_t bytes = (size_t) (k * n) * 4;
  float *big = bench_alloc (bytes);
  double tt[GEMV_RUNS], ts[GEMV_RUNS], tbl[GEMV_RUNS];
  int reps = bytes < ((size_t) 32 << 20) ? 16 : 1;

  /* tn_gemm_b_pack puts constant weights of 4 MiB and more on huge pages,
   * and bench_alloc the peers' arrays: the ratios do not measure the TLB */
  case_init (&g, TN_FLOAT32, 1, n, k);
  run_tn (&g, threads, NULL); /* warm the thread-local panels */
  pb = tn_gemm_b_pack (threads, &g.vb, g.b, false, NULL);
  memset (big, 0, bytes);
  for (int r = 0; r < GEMV_RUNS; r++) {
    /* each contender makes reps passes (a pass over an L3-sized B is too
     * short to time alone), the first one untimed */
    run_tn (&g, threads, pb);
    tt[r] = 0;
    for (int i = 0; i < reps; i++)
      tt[r] += run_tn (&g, threads, pb);
    stream_read (big, bytes / 4);
    ts[r] = 0;
    for (int i = 0; i < reps; i++)
      ts[r] += stream_read (big, bytes / 4);
#if HAVE_BLAS
    openblas_set_num_threads (threads);
    tbl[r] = 0;
    for (int i = 0; i <= reps; i++) {
      double t0 = bench_now ();

      cblas_sgemv (
          CblasRowMajor, CblasTrans, k, n, 1.0f, g.b, n, g.a, 1, 0.0f, g.c, 1);
      if (i > 0)
        tbl[r] += bench_now () - t0;
    }
#else
    tbl[r] = 1;
#endif
  }
  printf ("[1,%lld]x[%lld,%lld] float32, weights packed once, %d thread%s: "
          "%.2f GB/s of weights; STREAM-style read %.2f GB/s (1 thread), "
          "ratio %.2f; OpenBLAS sgemv %.2f GB/s, ratio %.2f\n",
      (long long) k, (long long) k, (long long) n, threads,
      threads > 1 ? "s" : "", reps * bytes / bench_median (tt, GEMV_RUNS) / 1e9,
      reps * bytes / bench_median (ts, GEMV_RUNS) / 1e9,
      bench_median (ts, GEMV_RUNS) / bench_median (tt, GEMV_RUNS),
      reps * bytes / bench_median (tbl, GEMV_RUNS) / 1e9,
      bench_median (tbl, GEMV_RUNS) / bench_median (tt, GEMV_RUNS));
  /* bench_median sorted the runs: the fastest, least disturbed, first */
  printf ("  best runs: %.2f GB/s of weights, read %.2f GB/s, ratio %.2f, "
          "sgemv %.2f GB/s, ratio %.2f\n",
      reps * bytes / tt[0] / 1e9, reps * bytes / ts[0] / 1e9, ts[0] / tt[0],
      reps * bytes / tbl[0] / 1e9, tbl[0] / tt[0]);
  tn_gemm_b_free (pb);
  free (big);
  case_free (&g);
}

/* No argument: everything.  Otherwise the parts named: f32 (float32
 * squares), other (float64 and int8), gemv (matrix-vector). */
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

/* levels: numbers among the arguments keep only those sizes, "1t" or
 * "2t" only that thread count (none: every size and count). */
static int
want_levels_case (int argc, char **argv, int64_t size, int threads)
{
  int any_size = 0, any_thr = 0, size_ok = 0, thr_ok = 0;

  for (int i = 1; i < argc; i++) {
    char *end;
    long v = strtol (argv[i], &end, 10);

    if (end == argv[i])
      continue;
    if (strcmp (end, "t") == 0) {
      any_thr = 1;
      thr_ok |= v == threads;
    } else if (*end == 0) {
      any_size = 1;
      size_ok |= v == size;
    }
  }
  return (!any_size || size_ok) && (!any_thr || thr_ok);
}

#if HAVE_BLAS
char *openblas_get_corename (void);

/* Two settings OpenBLAS reads only when the library loads, so set here
 * and the program run again before any measurement:
 * - its kernels by CPU model: a model newer than the library (Debian's
 *   0.3.21 does not know Emerald Rapids, model 207) falls back to
 *   "Prescott", SSE3 kernels at a quarter of the machine's speed, a peer
 *   that low says nothing; then name the newest core type whose
 *   instructions the CPU has;
 * - its threads spin after each call for 2^28 cycles (about 0.1 s) by
 *   default, here in our process: our 2-thread product, timed next, then
 *   shares the second vCPU with a spinning OpenBLAS thread and ran at one
 *   thread's speed (x0.50-0.56 of OpenBLAS at 512-1024, session 11).
 *   OPENBLAS_THREAD_TIMEOUT=4 (its least) makes them sleep as ours do, so
 *   each side's threads wake for its own call. */
static void
blas_pick_env (char **argv)
{
  const char *name = openblas_get_corename ();
  const char *want = NULL;
  int again = 0;

  if (!getenv ("OPENBLAS_CORETYPE") && strcmp (name, "Prescott") == 0) {
    if (__builtin_cpu_supports ("avx512bf16"))
      want = "Cooperlake";
    else if (__builtin_cpu_supports ("avx512f"))
      want = "SkylakeX";
    else if (__builtin_cpu_supports ("avx2"))
      want = "Haswell";
  }
  if (want) {
    fprintf (stderr,
        "OpenBLAS chose %s kernels for this CPU; running again "
        "with OPENBLAS_CORETYPE=%s\n",
        name, want);
    setenv ("OPENBLAS_CORETYPE", want, 1);
    again = 1;
  }
  if (!getenv ("OPENBLAS_THREAD_TIMEOUT")) {
    setenv ("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    again = 1;
  }
  if (!again)
    return;
  execv ("/proc/self/exe", argv);
  perror ("bench_gemm: execv");
}
#endif

int
main (int argc, char **argv)
{
  static const int64_t sizes[] = { 256, 512, 1024, 2048 };
  double peak_s = fma_peak (0), peak_d = fma_peak (1);
  int maxthr = tn_parallel_ncpus () < 2 ? 1 : 2;
  char cpu[48];

#if HAVE_BLAS
  blas_pick_env (argv);
  printf ("OpenBLAS kernels: %s; OPENBLAS_THREAD_TIMEOUT=%s\n",
      openblas_get_corename (), getenv ("OPENBLAS_THREAD_TIMEOUT"));
#endif
  printf ("FMA peak, one core: %.1f GFLOP/s float32, %.1f float64 (ymm); "
          "%.1f, %.1f (zmm); CPU flags in use: %s; kernel: %s\n",
      peak_s, peak_d, fma_peak512 (0), fma_peak512 (1),
      tn_cpu_names (tn_cpu_flags (), cpu, sizeof cpu),
      tn_cpu_flags () & TN_CPU_AVX512 ? "AVX-512"
      : tn_cpu_flags () & TN_CPU_AVX2 ? "AVX2+FMA"
                                      : "portable");
  if (want (argc, argv, "f32"))
    for (int thr = 1; thr <= maxthr; thr++)
      for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        square (TN_FLOAT32, sizes[i], thr, &peak_s);
  if (want (argc, argv, "other"))
    for (int thr = 1; thr <= maxthr; thr++)
      for (size_t i = 1; i < 3; i++) {
        square (TN_FLOAT64, sizes[i], thr, &peak_d);
        square (TN_INT8, sizes[i], thr, &peak_s);
      }
  if (want (argc, argv, "levels") || want (argc, argv, "levels-f64"))
    for (int thr = 1; thr <= maxthr; thr++)
      for (int dbl = !want (argc, argv, "levels"); dbl < 2; dbl++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
          if (want_levels_case (argc, argv, sizes[i], thr))
            square_levels (dbl ? TN_FLOAT64 : TN_FLOAT32, sizes[i], thr);
  if (want (argc, argv, "gemv"))
    for (int thr = 1; thr <= maxthr; thr++) {
      gemv (thr, 4096, 4096);
      gemv (thr, 1024, 1024);
    }
  return 0;
}
