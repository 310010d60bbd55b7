/* tn_compare (tensorcompare's kernel) against its peers, in one run with
 * the runs interleaved: 16M float32 items against a reference of the same
 * size in two cases, an equal reference (a bit-exact golden; rtol 1e-7,
 * atol 0) and one that is 1 ulp off in every item (rtol 1e-6, atol 1e-6:
 * every item takes the whole test), all items passing, so both arrays
 * are read whole, against
 * - a STREAM-style loop that reads both arrays (AVX2, four accumulators):
 *   the memory-bound floor (goal: ours at >= 0.8 of its speed);
 * - numpy.allclose on the same arrays in a /usr/bin/python3 co-process
 *   (goal: ours >= 3x as fast);
 * - our portable kernel (tn_cpu_set_mask (0)), for the ISA entry's gain
 *   (AVX-512 where the CPU has it, else AVX2).
 * A ratio is a speed, ours over the peer's (the median of the per-round
 * ratios).  Both arrays sit on transparent huge pages, as NumPy's do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "bench.h"
#include "core/compare.h"
#include "core/cpu.h"

#define RUNS 11
#define N (16L << 20)

static const char numpy_script[]
    = "import sys, time\n"
      "import numpy as np\n"
      "n = 16 << 20\n"
      "a = (np.arange(n) % 1000).astype(np.float32) * np.float32(0.001)\n"
      "e = a.copy()\n"
      "e1 = np.nextafter(a, np.float32(np.inf))\n"
      "print('ready', np.__version__, flush=True)\n"
      "for line in sys.stdin:\n"
      "    cmd, k = line.split()\n"
      "    r, at, b = (1e-7, 0, e) if cmd == 'equal' else (1e-6, 1e-6, e1)\n"
      "    assert np.allclose(a, b, rtol=r, atol=at)\n"
      "    t = time.perf_counter()\n"
      "    ok = np.allclose(a, b, rtol=r, atol=at)\n"
      "    print(time.perf_counter() - t, flush=True)\n";

#if defined(__x86_64__)
static __attribute__ ((target ("avx2"), noinline)) float
read_both_avx2 (const float *p, const float *q, size_t n)
{
  __m256 a = _mm256_setzero_ps (), b = a, c = a, d = a;
  float o[8], s = 0;
  const size_t m = n - n % 16;

  for (size_t i = 0; i < m; i += 16) {
    a = _mm256_add_ps (a, _mm256_loadu_ps (p + i));
    b = _mm256_add_ps (b, _mm256_loadu_ps (q + i));
    c = _mm256_add_ps (c, _mm256_loadu_ps (p + i + 8));
    d = _mm256_add_ps (d, _mm256_loadu_ps (q + i + 8));
  }
  _mm256_storeu_ps (
      o, _mm256_add_ps (_mm256_add_ps (a, b), _mm256_add_ps (c, d)));
  for (int k = 0; k < 8; k++)
    s += o[k];
  for (size_t i = m; i < n; i++)
    s += p[i] + q[i];
  return s;
}
#endif

static __attribute__ ((noinline)) float
read_both (const float *p, const float *q, size_t n)
{
  float s = 0;

#if defined(__x86_64__)
  if (__builtin_cpu_supports ("avx2"))
    return read_both_avx2 (p, q, n);
#endif
  for (size_t i = 0; i < n; i++)
    s += p[i] + q[i];
  return s;
}

static double
time_compare (const float *a, const float *e, const tn_view *v,
    const tn_cmp_tol *t, unsigned mask)
{
  unsigned old = tn_cpu_set_mask (mask);
  tn_cmp_result r;
  double t0;

  tn_compare (a, v, e, v, t, &r); /* warm, as every contender is */
  t0 = bench_now ();
  tn_compare (a, v, e, v, t, &r);
  t0 = bench_now () - t0;
  tn_cpu_set_mask (old);
  if (r.bad != 0) {
    fprintf (stderr, "%lld items differ: the bench data is wrong\n",
        (long long) r.bad);
    exit (1);
  }
  return t0;
}

static double
time_stream (const float *a, const float *e)
{
  volatile float sink;
  double t0;

  sink = read_both (a, e, N);
  t0 = bench_now ();
  sink = read_both (a, e, N);
  t0 = bench_now () - t0;
  (void) sink;
  return t0;
}

static void
run_case (const char *name, const float *a, const float *e, const tn_cmp_tol *t,
    BenchPeer *peer, int have_np)
{
  const int64_t dims[1] = { N };
  double ours[RUNS], port[RUNS], stream[RUNS], np[RUNS];
  tn_view v;

  tn_view_init (&v, TN_FLOAT32, dims, 1, NULL);
  for (int i = 0; i < RUNS; i++) {
    ours[i] = time_compare (a, e, &v, t, ~0u);
    stream[i] = time_stream (a, e);
    port[i] = time_compare (a, e, &v, t, 0);
    np[i] = have_np ? bench_peer_run (peer, name, N) : -1;
  }
  printf ("%s reference (rtol %g, atol %g):\n", name, t->rtol, t->atol);
  printf ("  tn_compare          %8.2f ms  %6.2f GB/s\n",
      bench_median (ours, RUNS) * 1e3,
      2.0 * N * 4 / bench_median (ours, RUNS) / 1e9);
  printf ("  STREAM read of both %8.2f ms  %6.2f GB/s\n",
      bench_median (stream, RUNS) * 1e3,
      2.0 * N * 4 / bench_median (stream, RUNS) / 1e9);
  printf ("  portable kernel     %8.2f ms\n", bench_median (port, RUNS) * 1e3);
  if (have_np)
    printf ("  numpy.allclose      %8.2f ms\n", bench_median (np, RUNS) * 1e3);
  printf ("compare %s/STREAM speed %.2f (goal >= 0.8)\n", name,
      bench_ratio (stream, ours, RUNS));
  if (have_np)
    printf ("compare %s/NumPy speed %.2f (goal >= 3)\n", name,
        bench_ratio (np, ours, RUNS));
  printf ("compare %s ISA/portable speed %.2f\n", name,
      bench_ratio (port, ours, RUNS));
}

int
main (void)
{
  float *a = bench_alloc (N * sizeof (float));
  float *e = bench_alloc (N * sizeof (float));
  float *e1 = bench_alloc (N * sizeof (float));
  char names[32];
  BenchPeer peer;
  tn_cmp_tol t;
  int have_np;

  for (long i = 0; i < N; i++) {
    a[i] = e[i] = (float) (i % 1000) * 0.001f;
    e1[i] = nextafterf (a[i], INFINITY);
  }
  have_np = bench_peer_start (&peer, numpy_script) == 0;
  printf ("compare: 16M float32 against a reference; kernels: %s\n",
      tn_cpu_names (tn_cpu_flags (), names, sizeof names));
  if (have_np)
    printf ("NumPy %s (/usr/bin/python3)\n", peer.version);
  else
    printf ("NumPy not available: install python3-numpy\n");
  tn_cmp_tol_init (&t);
  run_case ("equal", a, e, &t, &peer, have_np);
  t.rtol = 1e-6;
  t.atol = 1e-6;
  run_case ("ulp-off", a, e1, &t, &peer, have_np);
  bench_peer_stop (&peer);
  free (a);
  free (e);
  free (e1);
  return 0;
}
