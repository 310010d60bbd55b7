/* Normalisations along axes (normalize.h): statistics by tensorreduce's
 * folds (or, for float32, the fused paths below), then one or two
 * elementwise passes (normalize-kern.h) that read each item's statistics
 * by its kept indices. */
#include "normalize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "cpu.h"
#include "dsp.h"
#include "normalize-kern.h"
#include "parallel.h"
#include "reduce-fold.h"

static const char *const op_names[TN_NORM_NOPS]
    = { "softmax", "log-softmax", "standardize", "l2", "minmax" };

const char *
tn_norm_op_name (tn_norm_op op)
{
  return (unsigned) op < TN_NORM_NOPS ? op_names[op] : NULL;
}

bool
tn_norm_uses_eps (tn_norm_op op)
{
  return op == TN_NORM_STANDARDIZE || op == TN_NORM_L2;
}

double
tn_norm_default_eps (tn_norm_op op)
{
  return op == TN_NORM_STANDARDIZE ? 1e-5 : op == TN_NORM_L2 ? 1e-12 : 0.0;
}

/* The tables (core/dsp.h). */
void
tn_norm_dsp_fill (tn_norm_dsp *dsp, unsigned flags, int pf)
{
  memset (dsp, 0, sizeof *dsp);
  tn_nk_fill_c (dsp);
#if TN_ARCH_X86
  if ((flags & TN_CPU_AVX2) == TN_CPU_AVX2) {
    tn_nk_fill_avx2 (dsp);
    tn_nk_fill_avx2_red (dsp, pf);
    /* the maps 16 items wide, moments and affine_rep in zmm registers
     * (rmax and rsum stay AVX2's) */
    if (flags & TN_CPU_AVX512) {
      tn_nk_fill_avx512 (dsp);
      tn_nk_fill_avx512_red (dsp, pf);
    }
    dsp->prefetch = pf;
  }
#else
  (void) flags;
  (void) pf;
#endif
}

/* Software prefetch in the passes over a whole tensor (moments and
 * affine_rep) on Intel parts only.  On the Xeon (model 207), from DRAM,
 * the moments of a 24.9 MB image ran 1.3-1.6x and its streamed scaling
 * 1.3-1.5x as fast with it (thread CPU time); on Zen 4 requests of this
 * kind made streaming passes slower (the moments, session 8; ewise's
 * runs, EW_PF_DIST in x86/ewise-avx2.c), and it was not measured there
 * again (docs/perf-notes.md, session 10 H4). */
void
tn_norm_dsp_init (tn_norm_dsp *dsp, unsigned flags)
{
  tn_norm_dsp_fill (dsp, flags, tn_cpu_intel ());
}

TN_DSP_GET (tn_norm_dsp, tn_norm_dsp_get, tn_norm_dsp_init)

/* Items per parallel unit of a pass, and the repeated-parameter row a
 * pass builds when the kept axes are innermost and short (HWC images
 * standardised over H and W: 3 parameters repeat every 3 items). */
#define UNIT_ITEMS 32768
#define REP_MIN 256
/* affine_rep's stream entry from TN_STREAM_BYTES of output (core/cpu.h):
 * the input stays in L3 instead (standardize reads it twice: the
 * moments, then the scaling). */

/* The tensor as the passes walk it: blocks of blk items, each of one
 * kept index q of the prefix axes (those before the block); inside a
 * block the parameters are one pair (period 0) or repeat every period
 * items (the kept axis innermost). */
typedef struct {
  tn_nk_fn fn;
  /* float32 AFFINE with a period dividing TN_NK_REP, or one pair a block
   * of REP_MIN items or more: the kernel with the pairs in registers;
   * stream: its non-temporal entry */
  tn_nk_rep_fn rep;
  bool stream;
  const char *x;
  char *y;
  size_t isz;
  int64_t blk, period, upb, unit;
  int np;                                         /* prefix axes */
  int64_t pdims[TN_MAX_RANK], pkstr[TN_MAX_RANK]; /* kstr 0: reduced */
  const double *pa, *pb;
} pass_ctx;

/* Unit u of the walk: its first item, its items, and the kept index of
 * its block (the statistics of item i of the unit are at q * period +
 * i mod period, or at q for period 0). */
static int64_t
unit_at (const pass_ctx *p, int64_t u, int64_t *off, int64_t *n)
{
  int64_t blk = u / p->upb, j = u % p->upb, rem = blk, q = 0;

  *off = blk * p->blk + j * p->unit;
  *n = p->blk - j * p->unit < p->unit ? p->blk - j * p->unit : p->unit;
  for (int k = p->np - 1; k >= 0; k--) {
    q += (rem % p->pdims[k]) * p->pkstr[k];
    rem /= p->pdims[k];
  }
  return q;
}

static void
pass_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  const pass_ctx *p = vctx;
  double ea[2 * REP_MIN], eb[2 * REP_MIN];

  (void) c;
  for (int64_t u = b; u < e; u++) {
    int64_t off, n, q = unit_at (p, u, &off, &n);
    const char *x = p->x + off * p->isz;
    char *y = p->y + off * p->isz;

    if (p->rep) {
      /* a unit starts at a multiple of the period: phase 0 */
      for (int j = 0; j < TN_NK_REP; j++) {
        const int64_t k = p->period ? q * p->period + j % p->period : q;

        ea[j] = p->pa[k];
        eb[j] = p->pb[k];
      }
      p->rep ((const float *) x, (float *) y, n, ea, eb);
    } else if (p->period == 0) {
      p->fn (x, y, n, p->pa + q, p->pb + q, 0);
    } else if (p->period >= REP_MIN) {
      const double *a = p->pa + q * p->period, *bb = p->pb + q * p->period;

      for (int64_t i = 0; i < n; i += p->period)
        p->fn (x + i * p->isz, y + i * p->isz, p->period, a, bb, 1);
    } else {
      int64_t rep = p->period * ((REP_MIN + p->period - 1) / p->period);

      for (int64_t i = 0; i < rep; i++) {
        ea[i] = p->pa[q * p->period + i % p->period];
        eb[i] = p->pb[q * p->period + i % p->period];
      }
      for (int64_t i = 0; i < n; i += rep)
        p->fn (x + i * p->isz, y + i * p->isz, n - i < rep ? n - i : rep, ea,
            eb, 1);
    }
  }
  if (p->stream)
    tn_stream_fence ();
}

/* The walk of dims under mask: extent-1 axes dropped, neighbours of the
 * same kind merged. */
static void
pass_plan (pass_ctx *p, const int64_t *dims, int rank, uint32_t mask)
{
  int64_t sd[TN_MAX_RANK], step;
  int sr[TN_MAX_RANK], ns = 0, last;

  for (int i = 0; i < rank; i++) {
    int r = (mask >> i) & 1;

    if (dims[i] == 1)
      continue;
    if (ns > 0 && sr[ns - 1] == r) {
      sd[ns - 1] *= dims[i];
    } else {
      sd[ns] = dims[i];
      sr[ns++] = r;
    }
  }
  if (ns == 0) {
    sd[0] = 1;
    sr[ns++] = 1;
  }
  last = ns - 1;
  if (sr[last]) {
    p->blk = sd[last];
    p->period = 0;
    p->np = last;
  } else {
    p->period = sd[last];
    p->blk = sd[last] * (last > 0 ? sd[last - 1] : 1);
    p->np = last > 0 ? last - 1 : 0;
  }
  /* the prefix's kept index of a block counts kept axes only */
  for (int64_t k = p->np - 1, s = 1; k >= 0; k--) {
    p->pdims[k] = sd[k];
    p->pkstr[k] = sr[k] ? 0 : s;
    if (!sr[k])
      s *= sd[k];
  }
  step = p->period ? p->period : 1;
  p->unit = p->blk;
  if (p->unit > UNIT_ITEMS)
    p->unit = (UNIT_ITEMS + step - 1) / step * step;
  p->upb = (p->blk + p->unit - 1) / p->unit;
}

static void
pass_run (pass_ctx *p, tn_nk_kind kind, int f64, const void *x, void *y,
    int64_t count, const double *pa, const double *pb, int nthreads)
{
  const tn_norm_dsp *dsp = tn_norm_dsp_get ();
  int64_t units = count / p->blk * p->upb;

  p->fn = dsp->fn[kind][f64];
  p->rep = NULL;
  p->stream = false;
  if (kind == TN_NK_AFFINE && !f64
      && (p->period ? TN_NK_REP % p->period == 0 : p->blk >= REP_MIN)) {
    p->stream = x != y && (uint64_t) count * 4 >= TN_STREAM_BYTES;
    p->rep = dsp->affine_rep[p->stream];
  }
  p->x = x;
  p->y = y;
  p->pa = pa;
  p->pb = pb;
  tn_parallel_run (nthreads, units, 65536 / p->unit + 1, pass_chunk, p);
}

/* The fused float32 paths (docs/design-notes.md): softmax and
 * log-softmax row by row when each row (the reduced axes, innermost) is
 * its own group and fits in cache: the maximum, the exponentials, their
 * sum and the scaling run on the row while it sits in L1, and the tensor
 * is read from memory once.  Rows up to ROW_MAX items; in place,
 * log-softmax keeps the exponentials on the stack, ROW_SCRATCH items.
 * Where the table prefetches (Intel), the next row is requested into L2
 * during the exponentials, ROW_PIECE items at a time: a row of 4000
 * bytes is a page of its own, which the hardware prefetchers do not
 * enter ahead, so without the requests the maximum, the first pass over
 * a row, waited on L3 or DRAM (a third of softmax's time on the Xeon,
 * <1000,1000> float32; 0.8 of the time with them, from DRAM). */
#define ROW_MAX 16384
#define ROW_SCRATCH 4096
#define ROW_PIECE 256

typedef struct {
  const tn_norm_dsp *dsp;
  const float *x;
  float *y;
  int64_t n, rows;
  int log;
} row_ctx;

static void
row_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  const row_ctx *r = vctx;
  const tn_norm_dsp *d = r->dsp;
  const double zero = 0.0;
  float scratch[ROW_SCRATCH];

  (void) c;
  for (int64_t u = b; u < e; u++) {
    const float *x = r->x + u * r->n;
    float *y = r->y + u * r->n;
    float *ex = r->log && x == y ? scratch : y;
    const double m = d->rmax (x, r->n);
    double s, t;

    if (d->prefetch && u + 1 < r->rows) {
      /* the next row's lines into L2, a piece's worth before each piece
       * of this row's exponentials (the same bits: each item alone) */
      const char *nx = (const char *) (x + r->n);

      for (int64_t i = 0; i < r->n; i += ROW_PIECE) {
        const int64_t k = r->n - i < ROW_PIECE ? r->n - i : ROW_PIECE;

        for (int64_t b2 = i * 4; b2 < (i + k) * 4; b2 += 64)
          __builtin_prefetch (nx + b2, 0, 2);
        d->fn[TN_NK_EXP][0](x + i, ex + i, k, &m, &m, 0);
      }
    } else {
      d->fn[TN_NK_EXP][0](x, ex, r->n, &m, &m, 0);
    }
    s = d->rsum (ex, r->n);
    if (r->log) {
      t = log (s);
      d->fn[TN_NK_SHIFT][0](x, y, r->n, &m, &t, 0);
    } else {
      t = 1.0 / s;
      d->fn[TN_NK_AFFINE][0](y, y, r->n, &zero, &t, 0);
    }
  }
}

static bool
row_fits (const pass_ctx *p, const void *x, const void *y, tn_norm_op op)
{
  return p->period == 0 && p->np <= 1 && p->blk <= ROW_MAX
         && (op == TN_NORM_SOFTMAX || x != y || p->blk <= ROW_SCRATCH);
}

static void
row_run (const pass_ctx *p, const void *x, void *y, int64_t count,
    tn_norm_op op, int nthreads)
{
  row_ctx r = { tn_norm_dsp_get (), x, y, p->blk, count / p->blk,
    op == TN_NORM_LOG_SOFTMAX };

  tn_parallel_run (nthreads, count / p->blk, 65536 / p->blk + 1, row_chunk, &r);
}

/* Standardize's mean and variance in one read of float32 items, when the
 * parameters repeat with a period that divides 12 (or not at all): every
 * unit of the walk is cut into runs of MOM_RUN items, each folded by the
 * moments kernel about its own first items and turned into (count, mean,
 * sum of squared deviations); those merge by Chan's formulas, within a
 * unit and then unit by unit in the walk's order, so the bits do not
 * depend on the thread count.  Accuracy: a run's sum of squares about an
 * item of its own exceeds its squared deviations about the mean at most
 * (1 + its items) times, so its cancellation costs at most 2^10 times the
 * float64 rounding of a 1024-item sum (a slot's items per run), about
 * 2^-33 relative; the merges add no cancellation. */
#define MOM_RUN 3072

typedef struct {
  const pass_ctx *p;
  tn_nk_mom_fn mom;
  int per;      /* slots per unit: the period, or 1 */
  double *part; /* per unit and slot: count, mean, squared deviations */
} mom_ctx;

static void
mom_merge (double *acc, double nb, double mb, double m2b)
{
  double na = acc[0], n, d;

  if (na == 0.0) {
    acc[0] = nb;
    acc[1] = mb;
    acc[2] = m2b;
    return;
  }
  n = na + nb;
  d = mb - acc[1];
  acc[0] = n;
  acc[1] += d * (nb / n);
  acc[2] += m2b + d * d * (na * nb / n);
}

static void
mom_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  const mom_ctx *m = vctx;
  const int per = m->per;

  (void) c;
  for (int64_t u = b; u < e; u++) {
    int64_t off, n;
    const float *x;
    double *acc = m->part + u * per * 3;

    (void) unit_at (m->p, u, &off, &n);
    x = (const float *) m->p->x + off;
    memset (acc, 0, sizeof (double) * 3 * (size_t) per);
    for (int64_t i = 0; i < n; i += MOM_RUN) {
      const int64_t k = n - i < MOM_RUN ? n - i : MOM_RUN;
      const double nb = (double) (k / per);
      double s[12], q[12];

      m->mom (x + i, k, per, s, q);
      for (int j = 0; j < per; j++) {
        double m2 = q[j] - s[j] * (s[j] / nb);

        mom_merge (acc + 3 * j, nb, (double) x[i + j] + s[j] / nb,
            m2 < 0.0 ? 0.0 : m2);
      }
    }
  }
}

static bool
mom_fits (const pass_ctx *p, int64_t count)
{
  const int64_t per = p->period ? p->period : 1;
  const int64_t units = count / p->blk * p->upb;

  /* the parts at most twice the items' bytes */
  return 12 % per == 0 && units * per * 3 * 8 <= count * 8;
}

/* pa: the means, pb: the sums of squared deviations, per output. */
static int
mom_run (pass_ctx *p, const float *x, int64_t count, double *pa, double *pb,
    int64_t M, int nthreads, tn_err *e)
{
  const int per = p->period ? (int) p->period : 1;
  const int64_t units = count / p->blk * p->upb;
  double *acc;
  mom_ctx m = { p, tn_norm_dsp_get ()->moments, per, NULL };

  m.part = malloc (sizeof (double) * 3 * (size_t) (units * per));
  acc = calloc ((size_t) M * 3, sizeof (double));
  if (!m.part || !acc) {
    free (m.part);
    free (acc);
    tn_err_set (
        e, "out of memory for the moments of %lld units.", (long long) units);
    return -1;
  }
  p->x = (const char *) x;
  tn_parallel_run (nthreads, units, 65536 / p->unit + 1, mom_chunk, &m);
  for (int64_t u = 0; u < units; u++) {
    int64_t off, n, q = unit_at (p, u, &off, &n);
    const double *pu = m.part + u * per * 3;

    for (int j = 0; j < per; j++) {
      double *a = acc + 3 * (q * (p->period ? per : 1) + j);

      mom_merge (a, pu[3 * j], pu[3 * j + 1], pu[3 * j + 2]);
    }
  }
  for (int64_t o = 0; o < M; o++) {
    pa[o] = acc[3 * o + 1];
    pb[o] = acc[3 * o + 2];
  }
  free (m.part);
  free (acc);
  return 0;
}

/* op over dense float32 or float64 items x into y (y may be x). */
static int
norm_float (void *y, const void *x, const tn_view *v, tn_norm_op op,
    uint32_t mask, double eps, int nthreads, tn_err *e)
{
  const int f64 = v->dtype == TN_FLOAT64;
  const int64_t count = tn_view_count (v);
  int64_t M = 1, n;
  double *pa, *pb;
  void *ex, *tmp = NULL;
  pass_ctx pc;
  tn_view yv;
  int rc = -1;

  for (int i = 0; i < v->rank; i++)
    if (!((mask >> i) & 1))
      M *= v->dims[i];
  pa = malloc (sizeof (double) * (size_t) M);
  pb = malloc (sizeof (double) * (size_t) M);
  if (!pa || !pb) {
    tn_err_set (
        e, "out of memory for the statistics of %lld outputs.", (long long) M);
    goto done;
  }
  memset (&pc, 0, sizeof pc);
  pc.isz = tn_dtype_size (v->dtype);
  pass_plan (&pc, v->dims, v->rank, mask);
  yv = *v;
  yv.offset = 0;
  n = count / M;

  switch (op) {
  case TN_NORM_SOFTMAX:
  case TN_NORM_LOG_SOFTMAX:
    /* log-softmax reads x again after the exponentials: in place, they
     * go to scratch */
    if (!f64 && row_fits (&pc, x, y, op)) {
      row_run (&pc, x, y, count, op, nthreads);
      break;
    }
    ex = y;
    if (op == TN_NORM_LOG_SOFTMAX && y == x) {
      ex = tmp = malloc (pc.isz * (size_t) count);
      if (!tmp) {
        tn_err_set (
            e, "out of memory for %lld exponentials.", (long long) count);
        goto done;
      }
    }
    if (tn_reduce_fold (pa, x, v, TN_RK_MAX, mask, NULL, nthreads, e) < 0)
      goto done;
    pass_run (&pc, TN_NK_EXP, f64, x, ex, count, pa, pa, nthreads);
    if (tn_reduce_fold (pb, ex, &yv, TN_RK_DADD, mask, NULL, nthreads, e) < 0)
      goto done;
    if (op == TN_NORM_SOFTMAX) {
      for (int64_t o = 0; o < M; o++) {
        pa[o] = 0.0;
        pb[o] = f64 ? pb[o] : 1.0 / pb[o];
      }
      pass_run (&pc, TN_NK_AFFINE, f64, y, y, count, pa, pb, nthreads);
    } else {
      for (int64_t o = 0; o < M; o++)
        pb[o] = log (pb[o]);
      pass_run (&pc, TN_NK_SHIFT, f64, x, y, count, pa, pb, nthreads);
    }
    break;
  case TN_NORM_STANDARDIZE:
    if (!f64 && mom_fits (&pc, count)) {
      if (mom_run (&pc, x, count, pa, pb, M, nthreads, e) < 0)
        goto done;
    } else {
      if (tn_reduce_fold (pa, x, v, TN_RK_DADD, mask, NULL, nthreads, e) < 0)
        goto done;
      for (int64_t o = 0; o < M; o++)
        pa[o] /= (double) n;
      if (tn_reduce_fold (pb, x, v, TN_RK_DDEV, mask, pa, nthreads, e) < 0)
        goto done;
    }
    for (int64_t o = 0; o < M; o++) {
      double d = sqrt (pb[o] / (double) n + eps);

      pb[o] = f64 ? d : 1.0 / d;
    }
    pass_run (&pc, TN_NK_AFFINE, f64, x, y, count, pa, pb, nthreads);
    break;
  case TN_NORM_L2:
    if (tn_reduce_fold (pb, x, v, TN_RK_DSQ, mask, NULL, nthreads, e) < 0)
      goto done;
    for (int64_t o = 0; o < M; o++) {
      double d = sqrt (pb[o]);

      d = d > eps || isnan (d) ? d : eps;
      pa[o] = 0.0;
      pb[o] = f64 ? d : 1.0 / d;
    }
    pass_run (&pc, TN_NK_AFFINE, f64, x, y, count, pa, pb, nthreads);
    break;
  default: /* minmax */
    if (tn_reduce_fold (pa, x, v, TN_RK_MIN, mask, NULL, nthreads, e) < 0
        || tn_reduce_fold (pb, x, v, TN_RK_MAX, mask, NULL, nthreads, e) < 0)
      goto done;
    for (int64_t o = 0; o < M; o++) {
      double r = pb[o] - pa[o];

      /* max == min: every item is the minimum, and x - min is 0 (NaN,
       * and so the output, when they are infinite: r is NaN then) */
      if (r == 0.0)
        r = 1.0;
      pb[o] = f64 ? r : 1.0 / r;
    }
    pass_run (&pc, TN_NK_AFFINE, f64, x, y, count, pa, pb, nthreads);
    break;
  }
  rc = 0;

done:
  free (tmp);
  free (pa);
  free (pb);
  return rc;
}

int
tn_normalize (void *dst, const void *base, const tn_view *v, tn_norm_op op,
    uint32_t mask, double eps, int nthreads, tn_err *e)
{
  const tn_dtype t = v->dtype;
  const int64_t count = tn_view_count (v);
  tn_view w = *v;
  const char *x;
  float *wide = NULL;
  tn_fpenv env;
  int rc;

  if ((unsigned) op >= TN_NORM_NOPS) {
    tn_err_set (e,
        "normalisation %d is not one of softmax, log-softmax, "
        "standardize, l2, minmax.",
        (int) op);
    return -1;
  }
  if (t != TN_FLOAT16 && t != TN_BFLOAT16 && t != TN_FLOAT32
      && t != TN_FLOAT64) {
    tn_err_set (e,
        "%s normalises float16, bfloat16, float32 and float64 tensors, not "
        "%s.",
        op_names[op], tn_dtype_name (t));
    return -1;
  }
  if (!tn_view_dense (v)) {
    tn_err_set (
        e, "%s reads dense tensors; copy the view first.", op_names[op]);
    return -1;
  }
  if (v->rank > 0 ? mask >> v->rank != 0 : mask > 1) {
    tn_err_set (e, "axes mask 0x%x names an axis beyond rank %d.",
        (unsigned) mask, v->rank);
    return -1;
  }
  if (count == 0)
    return 0;
  if (v->rank == 0) {
    /* one item: its own group */
    w.rank = 1;
    w.dims[0] = 1;
    w.strides[0] = 1;
    mask = 1;
  }
  x = (const char *) base + (size_t) v->offset * tn_dtype_size (t);
  w.offset = 0;
  env = tn_fpenv_enter ();
  if (t == TN_FLOAT16 || t == TN_BFLOAT16) {
    /* computed in float32, rounded once */
    wide = malloc (sizeof (float) * (size_t) count);
    if (!wide) {
      tn_err_set (e, "out of memory for a float32 copy of %lld items.",
          (long long) count);
      tn_fpenv_leave (env);
      return -1;
    }
    tn_cast (wide, TN_FLOAT32, x, t, (size_t) count);
    w.dtype = TN_FLOAT32;
    rc = norm_float (wide, wide, &w, op, mask, eps, nthreads, e);
    if (rc == 0)
      tn_cast (dst, t, wide, TN_FLOAT32, (size_t) count);
    free (wide);
  } else {
    rc = norm_float (dst, x, &w, op, mask, eps, nthreads, e);
  }
  tn_fpenv_leave (env);
  return rc;
}
