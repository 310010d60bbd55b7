/* tn_view_materialize against memcpy of the same bytes: transposed
 * 2048x2048 views (cache-tiled path), column slices (memcpy runs and a
 * step of 2: the deinterleave kernel), 640x480 (cache-resident) and
 * 1080p images HWC -> CHW and back (deinterleave and interleave), and the
 * float32 CHW permute of bench_view.  The kernels of core/view-kern.c run once
 * per level (portable, SSSE3, AVX2, AVX-512 VBMI: CPU masks; all the CPU
 * has last).  Both
 * sides copy into a preallocated, warm destination; runs are interleaved so
 * that frequency changes hit both sides alike. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/cpu.h"
#include "core/view.h"

#define N 2048
#define RUNS 21

static void
run_case (
    const char *label, const tn_view *v, const void *src, void *dst, void *ref)
{
  size_t isz = tn_dtype_size (v->dtype);
  size_t bytes = (size_t) tn_view_count (v) * isz;
  double tm[RUNS], tc[RUNS], gm, gc, rr;

  /* Warm both destinations and the source. */
  tn_view_materialize (dst, src, v);
  memcpy (ref, src, bytes);
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now ();

    tn_view_materialize (dst, src, v);
    bench_sink (dst);
    tm[r] = bench_now () - t0;
    t0 = bench_now ();
    memcpy (ref, src, bytes);
    bench_sink (ref);
    tc[r] = bench_now () - t0;
  }
  /* The median of per-round ratios first: steadier than the ratio of
   * medians when other work shares the memory bus. */
  rr = bench_ratio (tm, tc, RUNS);
  gm = bytes / bench_median (tm, RUNS) / 1e9;
  gc = bytes / bench_median (tc, RUNS) / 1e9;
  /* bench_median sorted both: the best runs, which on a shared machine
   * are the ones least disturbed, come first. */
  printf ("materialize %s: %.2f GB/s, memcpy: %.2f GB/s, ratio %.2f, "
          "per round %.2f (best runs: %.2f, %.2f, ratio %.2f)\n",
      label, gm, gc, gc / gm, rr, bytes / tm[0] / 1e9, bytes / tc[0] / 1e9,
      tm[0] / tc[0]);
}

/* The kernel levels, as CPU masks: portable, SSSE3, AVX2, AVX-512 VBMI. */
static const struct {
  unsigned mask;
  const char *name;
} impls[] = {
  { 0, "portable" },
  { TN_CPU_SSSE3, "ssse3" },
  { TN_CPU_SSSE3 | TN_CPU_AVX2, "avx2" },
  { TN_CPU_SSSE3 | TN_CPU_AVX2 | TN_CPU_AVX512 | TN_CPU_AVX512VBMI,
      "avx512vbmi" },
};

/* Runs the case once per kernel level the CPU has, then with all it has
 * (auto) last. */
static void
run_impls (
    const char *label, const tn_view *v, const void *src, void *dst, void *ref)
{
  const char *best = impls[0].name;
  unsigned old = tn_cpu_set_mask (0);
  char l[128];

  for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
    tn_cpu_set_mask (impls[i].mask);
    if (tn_cpu_flags () != impls[i].mask)
      continue;
    best = impls[i].name;
    snprintf (l, sizeof l, "%s [%s]", label, impls[i].name);
    run_case (l, v, src, dst, ref);
  }
  tn_cpu_set_mask (old);
  snprintf (l, sizeof l, "%s [%s, auto]", label, best);
  run_case (l, v, src, dst, ref);
}

static void
die (const tn_err *e)
{
  fprintf (stderr, "%s\n", e->msg);
  exit (1);
}

int
main (void)
{
  const int64_t dims[] = { N, N };
  const int64_t chw[] = { 3, 1080, 1920 };
  const int to_chw[] = { 2, 0, 1 }, to_hwc[] = { 1, 2, 0 };
  size_t max_bytes = (size_t) N * N * 8;
  void *src = bench_alloc (max_bytes);
  void *dst = bench_alloc (max_bytes);
  void *ref = bench_alloc (max_bytes);
  static const struct {
    tn_dtype t;
    const char *name;
  } types[] = { { TN_FLOAT32, "f32" }, { TN_UINT8, "u8" }, { TN_UINT16, "u16" },
    { TN_FLOAT64, "f64" } };
  tn_view v;
  tn_err e;
  char label[96];

  if (!src || !dst || !ref)
    return 1;
  for (size_t i = 0; i < max_bytes; i++)
    ((unsigned char *) src)[i] = (unsigned char) (i * 2654435761u >> 13);
  memset (dst, 0, max_bytes);
  memset (ref, 0, max_bytes);

  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    if (tn_view_init (&v, types[k].t, dims, 2, &e) < 0
        || tn_view_transpose (&v, &e) < 0)
      die (&e);
    snprintf (label, sizeof label, "transpose %dx%d %s", N, N, types[k].name);
    run_case (label, &v, src, dst, ref);
  }

  if (tn_view_init (&v, TN_FLOAT32, dims, 2, &e) < 0
      || tn_view_slice (&v, 1, 0, N / 2, 1, &e) < 0)
    die (&e);
  snprintf (label, sizeof label, "slice [:, 0:%d] of %dx%d f32", N / 2, N, N);
  run_case (label, &v, src, dst, ref);

  if (tn_view_init (&v, TN_FLOAT32, dims, 2, &e) < 0
      || tn_view_slice (&v, 1, 0, N, 2, &e) < 0)
    die (&e);
  snprintf (label, sizeof label, "slice [:, ::2] of %dx%d f32", N, N);
  run_impls (label, &v, src, dst, ref);

  /* 640x480 (both sides stay in L2 and L3: against a cache-hot memcpy;
   * goal at least 0.6 of its speed) and 1080p (memory). */
  for (int z = 0; z < 2; z++) {
    const int64_t hh = z ? 1080 : 480, ww = z ? 1920 : 640;
    const int64_t hwc[] = { hh, ww, 3 }, chw[] = { 3, hh, ww };
    static const struct {
      tn_dtype t;
      const char *name;
    } ct[] = { { TN_UINT8, "u8" }, { TN_FLOAT32, "f32" } };

    for (int k = 0; k < 4; k++) {
      const bool back = k % 2; /* CHW -> HWC */

      if (tn_view_init (&v, ct[k / 2].t, back ? chw : hwc, 3, &e) < 0
          || tn_view_permute (&v, back ? to_hwc : to_chw, 3, &e) < 0)
        die (&e);
      if (back)
        snprintf (label, sizeof label, "CHW -> HWC <3,%d,%d> %s", (int) hh,
            (int) ww, ct[k / 2].name);
      else
        snprintf (label, sizeof label, "HWC -> CHW <%d,%d,3> %s", (int) hh,
            (int) ww, ct[k / 2].name);
      run_impls (label, &v, src, dst, ref);
    }
  }

  /* bench_view's float32 row: <3,1080,1920> -> <1920,3,1080>, tiled. */
  if (tn_view_init (&v, TN_FLOAT32, chw, 3, &e) < 0
      || tn_view_permute (&v, to_chw, 3, &e) < 0)
    die (&e);
  run_case ("permute 2:0:1 <3,1080,1920> f32", &v, src, dst, ref);

  free (src);
  free (dst);
  free (ref);
  return 0;
}
