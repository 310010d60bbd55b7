/* The GEMM kernels (core/gemm-pack.h, tn_gemm_dsp), on packed panels as
 * the driver makes them, every row count 1..MR, k steps from 0 to past a
 * k block, beta 0 and 1, a C row stride wider than the tile.
 *
 * What gemm.h promises, and so what is checked:
 * - int8 sums are the same bits on every CPU level: bitwise against the
 *   portable kernels (including sums that wrap past 2^31);
 * - float sums are the same within rounding, not bitwise (AVX2 and
 *   AVX-512 fuse the multiply-add): each output within 2 (k + 1) eps of the sum
 * of the magnitudes of its terms (plus a few of the smallest subnormals); a NaN
 * must stay NaN and an infinity the same infinity (the inputs are kept below
 * overflow, so both orders agree on those);
 * - the skinny kernel of a level gives the bits of g calls of that
 *   level's micro-kernel (the skinny path and the blocked path agree):
 *   bitwise, every type, except which NaN comes out where several NaN
 *   inputs meet (its sign and payload follow the FMA operand order the
 *   compiler picked; a NaN must stay a NaN).
 * Kernels are named by their geometry ("ukr_f32_12x32"): a level with a
 * tile of its own (AVX-512) is held against the portable kernels of that
 * tile (tn_gemm_portable_of), registered first under the same name. */
#include "checkasm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm-pack.h"
#include "core/parallel.h"

static const struct {
  tn_dtype src;
  const char *name;
} kinds[TN_GEMM_NKINDS] = {
  [TN_GEMM_F32] = { TN_FLOAT32, "f32" },
  [TN_GEMM_F64] = { TN_FLOAT64, "f64" },
  [TN_GEMM_I8] = { TN_INT8, "i8" },
};

static const int64_t ksteps[] = { 0, 1, 2, 3, 7, 64, 257 };

/* A random packed item of the compute type: int8 range for int8 (packing
 * widens it to int16); for floats, multiples of 1/4096 in [-4, 4) and,
 * with edges, one in eight a NaN, an infinity, a zero or a subnormal. */
static void
fill_packed (const tn_gemm_geom *g, void *p, size_t n, bool edges)
{
  for (size_t i = 0; i < n; i++) {
    uint32_t r = checkasm_rand ();
    double v = ((int32_t) (r >> 8) % 16384) / 4096.0;
    int e = edges && r % 8 == 0 ? (int) (r >> 3) % 9 : -1;

    if (g->acc == TN_INT32) {
      ((int16_t *) p)[i] = (int16_t) (int8_t) (r >> 8);
      continue;
    }
    if (e >= 0) {
      static const double ev[]
          = { NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0, 0, 0 };

      v = ev[e];
      if (e >= 6) /* smallest and largest subnormal, smallest normal */
        v = g->acc == TN_FLOAT32 ? (e == 6   ? FLT_TRUE_MIN
                                    : e == 7 ? FLT_MIN - FLT_TRUE_MIN
                                             : FLT_MIN)
                                 : (e == 6    ? DBL_TRUE_MIN
                                     : e == 7 ? DBL_MIN - DBL_TRUE_MIN
                                              : DBL_MIN);
    }
    if (g->acc == TN_FLOAT32)
      ((float *) p)[i] = (float) v;
    else
      ((double *) p)[i] = v;
  }
}

static double
item (const tn_gemm_geom *g, const void *p, int64_t i)
{
  switch (g->acc) {
  case TN_FLOAT32:
    return ((const float *) p)[i];
  case TN_FLOAT64:
    return ((const double *) p)[i];
  default:
    return ((const int32_t *) p)[i];
  }
}

/* The float C block (n items from C's start, ldc a row): the outputs of
 * rows [0, mr) x cols [0, ncol) of got against want within the
 * documented rounding of their terms (pa, pb: the panels, strip s of B at
 * pb + s * sstride, as the skinny kernel reads them; c0: C before the
 * call, added when beta), every other item bit for bit. */
static int
check_near (const tn_gemm_geom *g, const void *want, const void *got, size_t n,
    const void *pa, const void *pb, int64_t sstride, const void *c0, int mr,
    int ncol, int64_t ks, int64_t ldc, int beta, bool exact, const char *ctx)
{
  const double eps = g->acc == TN_FLOAT32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const double tiny = g->acc == TN_FLOAT32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
  size_t asz = tn_dtype_size (g->acc);

  for (size_t at = 0; at < n; at++) {
    int64_t i = (int64_t) at / ldc, j = (int64_t) at % ldc;
    int64_t s = j / g->nr, jj = j % g->nr;
    double w = item (g, want, at), x = item (g, got, at), mag = 0;

    if (exact && !(isnan (w) && isnan (x))) {
      if (memcmp ((const char *) want + at * asz, (const char *) got + at * asz,
              asz)
          != 0)
        return checkasm_fail ("%s: row %lld col %lld: %.17g, got %.17g, "
                              "the bits of the micro-kernel expected",
            ctx, (long long) i, (long long) j, w, x);
      continue;
    }
    if (i >= mr || j >= ncol) {
      if (memcmp ((const char *) want + at * asz, (const char *) got + at * asz,
              asz)
          != 0)
        return checkasm_fail ("%s: row %lld col %lld, outside the tile, was "
                              "written: %.17g where %.17g was",
            ctx, (long long) i, (long long) j, x, w);
      continue;
    }
    for (int64_t p = 0; p < ks; p++)
      mag += fabs (item (g, pa, p * g->mr + i)
                   * item (g, pb, s * sstride + p * g->nr + jj));
    if (beta)
      mag += fabs (item (g, c0, at));
    if (isnan (w)   ? isnan (x)
        : isinf (w) ? w == x
                    : fabs (w - x) <= 2 * (ks + 1) * eps * mag + 4 * tiny)
      continue;
    return checkasm_fail ("%s: row %lld col %lld: portable %.17g, got %.17g "
                          "(terms of magnitude %.3g)",
        ctx, (long long) i, (long long) j, w, x, mag);
  }
  return 0;
}

/* One call of ref and fn (both micro-kernels, or both skinny kernels
 * when g > 0) on the same panels, C at an offset into a guarded block.
 * bitwise: compare bits (int8, or a skinny kernel against its own
 * micro-kernel). */
static int
run (const tn_gemm_geom *g, int kind, tn_gemm_ukr uref, tn_gemm_ukr ufn,
    tn_gemm_skr sref, tn_gemm_skr sfn, int nstrips, int mr, int64_t ks,
    int beta, bool edges, bool bitwise)
{
  size_t psz = g->psize, asz = tn_dtype_size (g->acc);
  int64_t astep = g->mr * g->kp, bstep = g->nr * g->kp;
  int64_t sstride = ks * bstep + (nstrips > 1 ? 3 * g->kp : 0);
  int strips = nstrips ? nstrips : 1, ncol = strips * g->nr;
  int64_t ldc = ncol + 5;
  size_t cbytes = ((size_t) (g->mr - 1) * ldc + ncol + 1) * asz;
  void *pa = malloc ((size_t) (ks * astep) * psz + 1);
  void *pb = malloc ((size_t) (strips * sstride) * psz + 1);
  void *c0 = malloc (cbytes);
  char *want = checkasm_alloc (cbytes), *got = checkasm_alloc (cbytes);
  char ctx[160];
  int r;

  fill_packed (g, pa, (size_t) (ks * astep), edges);
  fill_packed (g, pb, (size_t) (strips * sstride), edges);
  /* C: every item gets a value (the gaps too), the same in both */
  if (g->acc == TN_INT32)
    checkasm_fill (c0, TN_INT32, cbytes / asz);
  else
    fill_packed (g, c0, cbytes / asz, edges);
  memcpy (want + asz, c0, cbytes - asz);
  memcpy (got + asz, c0, cbytes - asz);
  if (nstrips) {
    sref (mr, nstrips, ks, pa, pb, sstride, want + asz, ldc, beta);
    sfn (mr, nstrips, ks, pa, pb, sstride, got + asz, ldc, beta);
  } else {
    uref (mr, ks, pa, pb, want + asz, ldc, beta);
    ufn (mr, ks, pa, pb, got + asz, ldc, beta);
  }
  snprintf (ctx, sizeof ctx,
      "%s, mr %d, %d strip(s), %lld k steps, beta %d, ldc %lld%s",
      kinds[kind].name, mr, strips, (long long) ks, beta, (long long) ldc,
      edges ? ", with NaN/inf/0/subnormals" : "");
  /* all of C's block: item 0 before C's start, then C (item 1 + i is
   * row i / ldc, col i % ldc) */
  if (g->acc == TN_INT32)
    r = checkasm_check_bits (want, got, cbytes / asz, asz,
        "%s (item 1 + i is row i / ldc, col i %% ldc)", ctx);
  else
    r = check_near (g, want + asz, got + asz, cbytes / asz - 1, pa, pb, sstride,
            c0, mr, ncol, ks, ldc, beta, bitwise, ctx)
        || (memcmp (want, got, asz) != 0
            && checkasm_fail ("%s: wrote the item before C", ctx))
        || checkasm_check_guards (got, "%s", ctx);
  free (pa);
  free (pb);
  free (c0);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

/* g calls of a micro-kernel, the way the portable skinny kernel makes
 * them: the reference for a level's own skinny kernel. */
static tn_gemm_ukr own_ukr;
static int64_t own_nr;
static size_t own_psz, own_asz;

static void
skr_by_ukr (int mr, int g, int64_t ks, const void *pa, const void *pb,
    int64_t sstride, void *c, int64_t ldc, int beta)
{
  for (int s = 0; s < g; s++)
    own_ukr (mr, ks, pa, (const char *) pb + s * sstride * own_psz,
        (char *) c + s * own_nr * own_asz, ldc, beta);
}

static void
bench_ukr (const tn_gemm_geom *g, tn_gemm_ukr fn)
{
  int64_t ks = g->kc / g->kp;
  void *pa = calloc ((size_t) (ks * g->mr * g->kp), g->psize);
  void *pb = calloc ((size_t) (ks * g->nr * g->kp), g->psize);
  void *c = calloc ((size_t) (g->mr * g->nr), 8);

  checkasm_bench (fn (g->mr, ks, pa, pb, c, g->nr, 1));
  free (pa);
  free (pb);
  free (c);
}

static void
bench_skr (const tn_gemm_geom *g, tn_gemm_skr fn)
{
  int64_t ks = g->kc / g->kp, sstride = ks * g->nr * g->kp;
  void *pa = calloc ((size_t) (ks * g->mr * g->kp), g->psize);
  void *pb = calloc ((size_t) (6 * sstride), g->psize);
  void *c = calloc ((size_t) (6 * g->nr), 8);

  checkasm_bench (fn (1, 6, ks, pa, pb, sstride, c, 6 * g->nr, 1));
  free (pa);
  free (pb);
  free (c);
}

static void
check_kind (const tn_gemm_dsp *d, int kind)
{
  const tn_gemm_kern *kern = &d->k[kind];
  const tn_gemm_geom *g = &kern->g;
  tn_gemm_kern port;
  tn_gemm_ukr uref;
  tn_gemm_skr sref;
  char tag[32];

  snprintf (tag, sizeof tag, "%s_%dx%d", kinds[kind].name, g->mr, g->nr);
  if (tn_gemm_portable_of (g, &port) < 0) {
    checkasm_fail ("%s: no portable kernels of this geometry", tag);
    return;
  }
  /* The portable kernels of the tile first: the reference (under mask 0
   * they are the table's, checked against themselves). */
  if (checkasm_check_func (port.ukr, "ukr_%s", tag))
    bench_ukr (g, port.ukr);
  if (checkasm_check_func (port.skr, "skr_%s", tag))
    bench_skr (g, port.skr);
  if ((uref = checkasm_check_func (kern->ukr, "ukr_%s", tag))) {
    for (size_t k = 0; k < sizeof ksteps / sizeof ksteps[0]; k++)
      for (int mr = 1; mr <= g->mr; mr++)
        for (int beta = 0; beta < 2; beta++)
          for (int edges = 0; edges < 2; edges++)
            if (run (g, kind, uref, kern->ukr, NULL, NULL, 0, mr, ksteps[k],
                    beta, edges, false))
              goto skinny;
    /* int8 sums that wrap: every product -128 * -128 */
    if (g->acc == TN_INT32) {
      int64_t ks = 70000;
      int16_t *pa = malloc (ks * g->mr * g->kp * sizeof *pa);
      int16_t *pb = malloc (ks * g->nr * g->kp * sizeof *pb);
      int32_t want[14 * 32], got[14 * 32];

      for (int64_t i = 0; i < ks * g->mr * g->kp; i++)
        pa[i] = -128;
      for (int64_t i = 0; i < ks * g->nr * g->kp; i++)
        pb[i] = -128;
      uref (g->mr, ks, pa, pb, want, g->nr, 0);
      kern->ukr (g->mr, ks, pa, pb, got, g->nr, 0);
      checkasm_check_bits (want, got, (size_t) (g->mr * g->nr), 4,
          "i8, %lld k steps of -128 * -128 (the sums wrap)", (long long) ks);
      free (pa);
      free (pb);
    }
    bench_ukr (g, kern->ukr);
  }
skinny:
  if ((sref = checkasm_check_func (kern->skr, "skr_%s", tag))) {
    own_ukr = kern->ukr;
    own_nr = g->nr;
    own_psz = g->psize;
    own_asz = tn_dtype_size (g->acc);
    for (size_t k = 0; k < sizeof ksteps / sizeof ksteps[0]; k++)
      for (int mr = 1; mr <= g->mr; mr++)
        for (int ns = 1; ns <= 7; ns++) {
          int beta = ns % 2, edges = (ns / 2) % 2;

          /* against the portable skinny kernel, then against g calls of
           * this level's own micro-kernel */
          if (run (g, kind, NULL, NULL, sref, kern->skr, ns, mr, ksteps[k],
                  beta, edges, false)
              || run (g, kind, NULL, NULL, skr_by_ukr, kern->skr, ns, mr,
                  ksteps[k], beta, edges, true))
            return;
        }
    bench_skr (g, kern->skr);
  }
}

/* The kernels run inside tn_fpenv_enter, as the driver's tasks do (the
 * pool's work () brackets them), so checkasm-ftz checks the same thing:
 * under FTZ a flushed product would differ from a fused one by up to the
 * smallest normal. */
void
checkasm_check_gemm (void)
{
  const tn_gemm_dsp *d = tn_gemm_dsp_get ();
  tn_fpenv env = tn_fpenv_enter ();

  for (int kind = 0; kind < TN_GEMM_NKINDS; kind++)
    check_kind (d, kind);
  tn_fpenv_leave (env);
}
