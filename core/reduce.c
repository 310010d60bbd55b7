/* Reductions: how the work is cut (the plan), and the driver that runs
 * the kernels of reduce-kern.h on the worker pool and combines their
 * block partials in block order.  What a reduction computes (names,
 * result dtypes, shapes) and the axis lists are reduce-axes.c's.
 *
 * The plan reads strides where it can.  The kept and the reduced axes
 * are two lists, each in the view's order (extents of 1 dropped,
 * neighbours that are contiguous with each other merged), so a permuted
 * view plans as its memory order does.  Either the reduced items of an
 * output form one contiguous run (one merged reduced axis of stride 1:
 * "rows"; runs of at most 32 items go many per call to the short-row
 * kernels), or the last kept axis is contiguous and every reduced row is
 * a run of outputs ("columns", the sums of rows into a vector of
 * partials).  Columns narrower than COLS_MIN over dense rows (the
 * channels of an image, also as the CHW view of an HWC frame) are
 * "strips": 32 rows at a time read as one wide row.  Anything else is
 * made dense once with the kept axes first, which turns it into rows. */
#include "reduce.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "half.h"
#include "parallel.h"
#include "reduce-fold.h"
#include "reduce-item.h"
#include "reduce-kern.h"

/* Columns narrower than this are cheaper to transpose into rows first. */
#define COLS_MIN 16
/* Items a chunk of work should cover at least, for the pool to pay. */
#define CHUNK_ITEMS 65536

static bool
is_float (tn_dtype t)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT;
}

/* Which kernel family computes op over dtype t (pass 1 of var/std). */
static tn_rk_kind
op_kind (tn_reduce_op op, tn_dtype t)
{
  bool f32sum = t == TN_FLOAT16 || t == TN_BFLOAT16 || t == TN_FLOAT32;

  switch (op) {
  case TN_REDUCE_SUM:
    return f32sum ? TN_RK_FSUM : is_float (t) ? TN_RK_DADD : TN_RK_UADD;
  case TN_REDUCE_MEAN:
  case TN_REDUCE_VAR:
  case TN_REDUCE_STD:
    if (f32sum)
      return TN_RK_FSUM;
    if (is_float (t))
      return TN_RK_DADD;
    return (t == TN_INT64 || t == TN_UINT64) ? TN_RK_QADD : TN_RK_UADD;
  case TN_REDUCE_PROD:
    return is_float (t) ? TN_RK_DMUL : TN_RK_UMUL;
  case TN_REDUCE_MIN:
    return TN_RK_MIN;
  case TN_REDUCE_MAX:
    return TN_RK_MAX;
  case TN_REDUCE_ARGMIN:
    return TN_RK_ARGMIN;
  case TN_REDUCE_ARGMAX:
    return TN_RK_ARGMAX;
  default:
    return TN_RK_DSQ;
  }
}

/* min, max, argmin and argmax read narrow columns as columns. */
static bool
kind_has_strips (tn_rk_kind kind)
{
  return kind != TN_RK_MIN && kind != TN_RK_MAX && kind != TN_RK_ARGMIN
         && kind != TN_RK_ARGMAX;
}

/* Folds partial p into acc (p comes after acc in the reduced order). */
static void
part_combine (tn_rk_kind kind, tn_dtype t, tn_rpart *acc, const tn_rpart *p)
{
  bool uns = tn_dtype_kind (t) == TN_KIND_UINT;

  switch (kind) {
  case TN_RK_DMUL:
    acc->v.d = acc->v.d * p->v.d;
    break;
  case TN_RK_UADD:
    acc->v.u += p->v.u;
    break;
  case TN_RK_UMUL:
    acc->v.u *= p->v.u;
    break;
  case TN_RK_QADD:
    acc->v.q += p->v.q;
    break;
  case TN_RK_MIN:
  case TN_RK_MAX: {
    bool mx = kind == TN_RK_MAX;

    acc->nan |= p->nan;
    if (is_float (t)) {
      double a = acc->v.d, x = p->v.d;

      if (mx ? (x > a || (x == a && !signbit (x)))
             : (x < a || (x == a && signbit (x))))
        acc->v.d = x;
    } else if (uns) {
      if (mx ? p->v.u > acc->v.u : p->v.u < acc->v.u)
        acc->v.u = p->v.u;
    } else if (mx ? p->v.i > acc->v.i : p->v.i < acc->v.i) {
      acc->v.i = p->v.i;
    }
    break;
  }
  case TN_RK_ARGMIN:
  case TN_RK_ARGMAX: {
    bool mx = kind == TN_RK_ARGMAX, better;

    if (acc->nan)
      break;
    if (p->nan)
      better = true;
    else if (is_float (t))
      better = mx ? p->v.d > acc->v.d : p->v.d < acc->v.d;
    else
      better = mx ? p->v.i > acc->v.i : p->v.i < acc->v.i;
    if (better)
      *acc = *p;
    break;
  }
  default: /* the float64 sums */
    acc->v.d = acc->v.d + p->v.d;
    break;
  }
}

/* What the reduction writes for each output. */
typedef struct {
  tn_reduce_op op;
  tn_rk_kind kind;
  tn_dtype in, out;
  int64_t n; /* reduced items per output */
  int64_t ddof;
  char *dst;     /* outputs, or NULL when means is set */
  double *means; /* var/std pass 1: the float64 means go here */
  double *raw;   /* tn_reduce_fold: the folded float64 values go here */
} emit_ctx;

static double
part_mean (const emit_ctx *x, const tn_rpart *p)
{
  double n = (double) x->n;

  switch (x->kind) {
  case TN_RK_UADD:
    if (tn_dtype_kind (x->in) == TN_KIND_UINT)
      return (double) p->v.u / n;
    return (double) (int64_t) p->v.u / n;
  case TN_RK_QADD:
    return (double) p->v.q / n;
  default:
    return p->v.d / n;
  }
}

/* v as an item of float dtype t, a NaN as rk_canon's. */
static void
put_f (void *dst, tn_dtype t, double v)
{
  v = rk_canon (v);
  switch (t) {
  case TN_FLOAT16: {
    uint16_t h = tn_f64_to_f16 (v);

    memcpy (dst, &h, 2);
    break;
  }
  case TN_BFLOAT16: {
    uint16_t h = tn_f64_to_bf16 (v);

    memcpy (dst, &h, 2);
    break;
  }
  case TN_FLOAT32: {
    float f = (float) v;

    memcpy (dst, &f, 4);
    break;
  }
  default:
    memcpy (dst, &v, 8);
    break;
  }
}

/* The low bytes of an integer partial, as an item of dtype t. */
static void
put_int (void *dst, tn_dtype t, uint64_t u)
{
  switch (tn_dtype_size (t)) {
  case 1: {
    uint8_t b = t == TN_BOOL ? u != 0 : (uint8_t) u;

    memcpy (dst, &b, 1);
    break;
  }
  case 2: {
    uint16_t h = (uint16_t) u;

    memcpy (dst, &h, 2);
    break;
  }
  case 4: {
    uint32_t w = (uint32_t) u;

    memcpy (dst, &w, 4);
    break;
  }
  default:
    memcpy (dst, &u, 8);
    break;
  }
}

static void
emit (const emit_ctx *x, int64_t o, const tn_rpart *p)
{
  size_t osz = tn_dtype_size (x->out);
  char *d = x->dst + (size_t) o * osz;
  double den, v;

  if (x->means) {
    x->means[o] = part_mean (x, p);
    return;
  }
  if (x->raw) {
    x->raw[o] = (x->kind == TN_RK_MIN || x->kind == TN_RK_MAX) && p->nan
                    ? NAN
                    : rk_canon (p->v.d);
    return;
  }
  switch (x->op) {
  case TN_REDUCE_SUM:
  case TN_REDUCE_PROD:
    if (is_float (x->in))
      put_f (d, x->out, p->v.d);
    else
      put_int (d, x->out, p->v.u);
    break;
  case TN_REDUCE_MEAN:
    put_f (d, x->out, part_mean (x, p));
    break;
  case TN_REDUCE_L2:
    put_f (d, x->out, sqrt (p->v.d));
    break;
  case TN_REDUCE_VAR:
  case TN_REDUCE_STD:
    den = x->n > x->ddof ? (double) (x->n - x->ddof) : 0.0;
    v = p->v.d / den;
    put_f (d, x->out, x->op == TN_REDUCE_STD ? sqrt (v) : v);
    break;
  case TN_REDUCE_MIN:
  case TN_REDUCE_MAX:
    if (is_float (x->in))
      put_f (d, x->out, p->nan ? NAN : p->v.d);
    else
      put_int (d, x->out, p->v.u);
    break;
  default: /* argmin, argmax */
    memcpy (d, &p->idx, 8);
    break;
  }
}

/* The plan. */

enum { PLAN_ROWS, PLAN_COLS, PLAN_STRIP };

typedef struct {
  int kind;
  const char *base; /* the item at the view's offset */
  size_t isz;
  int64_t M, N; /* outputs, reduced items per output */
  /* kept axes (rows: all of them; columns: all but the innermost) */
  int nk;
  int64_t kdims[TN_MAX_RANK], kstr[TN_MAX_RANK];
  /* reduced axes (columns) */
  int nr;
  int64_t rdims[TN_MAX_RANK], rstr[TN_MAX_RANK];
  int64_t P;     /* columns, strips: outputs per row */
  int64_t rstep; /* strips: items from one reduced row to the next */
} plan;

/* Offset (items) of multi-index number q of an odometer, and the index. */
static int64_t
odo_start (
    int n, const int64_t *dims, const int64_t *str, int64_t q, int64_t *idx)
{
  int64_t off = 0;

  for (int i = n - 1; i >= 0; i--) {
    idx[i] = q % dims[i];
    q /= dims[i];
    off += idx[i] * str[i];
  }
  return off;
}

static int64_t
odo_next (
    int n, const int64_t *dims, const int64_t *str, int64_t *idx, int64_t off)
{
  for (int i = n - 1; i >= 0; i--) {
    if (++idx[i] < dims[i])
      return off + str[i];
    idx[i] = 0;
    off -= (dims[i] - 1) * str[i];
  }
  return off;
}

typedef struct {
  int64_t d, s;
} axis;

/* Appends axis x (extent > 1) to the list a of n axes, merged into the
 * last one when x continues it in memory. */
static int
push_axis (axis *a, int n, axis x)
{
  if (n > 0 && a[n - 1].s == x.s * x.d) {
    a[n - 1].d *= x.d;
    a[n - 1].s = x.s;
    return n;
  }
  a[n] = x;
  return n + 1;
}

/* The first n axes of k as the plan's kept axes (the odometer's). */
static void
set_kept (plan *pl, const axis *k, int n)
{
  for (int i = 0; i < n; i++) {
    pl->kdims[i] = k[i].d;
    pl->kstr[i] = k[i].s;
  }
  pl->nk = n;
}

/* Sets *pl from v (extents all > 0); returns false when the reduced axes
 * need the dense copy first.  strips: the kind has a strip kernel.
 *
 * The kept and the reduced axes are two lists, each in the view's order:
 * the outputs are row-major over the kept axes and the association is
 * defined on the row-major order of the reduced axes, so where the two
 * kinds interleave in the view (a permuted view: CHW over HWC memory)
 * changes neither, and each list merges its own contiguous neighbours. */
static bool
make_plan (
    plan *pl, const tn_view *v, uint32_t mask, const void *base, bool strips)
{
  axis k[TN_MAX_RANK], r[TN_MAX_RANK];
  int nk = 0, nr = 0;

  memset (pl, 0, sizeof *pl);
  pl->isz = tn_dtype_size (v->dtype);
  /* A tensor without items may come with no storage at all (NULL): no
   * arithmetic on a null pointer, even by 0. */
  pl->base = v->offset ? (const char *) base + (size_t) v->offset * pl->isz
                       : (const char *) base;
  pl->M = pl->N = 1;
  for (int i = 0; i < v->rank; i++) {
    bool red = (mask >> i) & 1;
    axis x = { v->dims[i], v->strides[i] };

    if (red)
      pl->N *= v->dims[i];
    else
      pl->M *= v->dims[i];
    if (x.d == 1)
      continue;
    if (red)
      nr = push_axis (r, nr, x);
    else
      nk = push_axis (k, nk, x);
  }

  if (nr == 1 && r[0].s == 1) {
    /* Each output's items are one contiguous run. */
    pl->kind = PLAN_ROWS;
    set_kept (pl, k, nk);
    return true;
  }
  if (nk > 0 && k[nk - 1].s == 1
      && (k[nk - 1].d >= COLS_MIN || nr == 0 || !strips)) {
    pl->kind = PLAN_COLS;
    pl->P = k[nk - 1].d;
    set_kept (pl, k, nk - 1);
    for (int i = 0; i < nr; i++) {
      pl->rdims[pl->nr] = r[i].d;
      pl->rstr[pl->nr++] = r[i].s;
    }
    return true;
  }
  if (strips && nk > 0 && k[nk - 1].s == 1 && nr == 1
      && r[0].s == k[nk - 1].d) {
    /* Narrow columns over dense rows: <..., R, P> with P < COLS_MIN. */
    pl->kind = PLAN_STRIP;
    pl->P = k[nk - 1].d;
    pl->rstep = r[0].s;
    set_kept (pl, k, nk - 1);
    return true;
  }
  if (nr == 0) {
    /* One item per output, read where it is. */
    pl->kind = PLAN_ROWS;
    set_kept (pl, k, nk);
    return true;
  }
  return false;
}

/* The driver. */

typedef struct {
  const plan *pl;
  tn_rk_rows_fn rows; /* these three, or for DDEV the dev_ ones */
  tn_rk_cols_fn cols;
  tn_rk_strip_fn strip;
  tn_rk_dev_rows_fn dev_rows;
  tn_rk_dev_cols_fn dev_cols;
  tn_rk_dev_strip_fn dev_strip;
  tn_rk_short_fn shortr;    /* rows of at most 32 items, many per call */
  tn_rk_short32_fn short32; /* the same, float32 sums and means written */
  int stream;               /* short32 may write by non-temporal stores */
  tn_rk_kind kind;
  tn_dtype t;
  int64_t nb;           /* blocks per output */
  int64_t tile, ntiles; /* columns */
  const double *m;      /* DDEV: the mean of every output */
  tn_rpart *parts;      /* nb > 1: rows [M][nb], columns [Q][nb][P] */
  emit_ctx ex;
  atomic_int failed;
} run_ctx;

/* argmin/argmax kernels count their indices from where they start: the
 * n partials at out, found from item (or row) at of the reduced order. */
static void
shift_idx (const run_ctx *r, tn_rpart *out, int64_t n, int64_t at)
{
  if (r->kind == TN_RK_ARGMIN || r->kind == TN_RK_ARGMAX)
    for (int64_t k = 0; k < n; k++)
      out[k].idx += at;
}

/* Units (output o, block j) of a rows plan, row by row. */
static void
rows_chunk_rows (run_ctx *r, int64_t b, int64_t e)
{
  const plan *pl = r->pl;
  int64_t nb = r->nb, o = b / nb, j = b % nb, idx[TN_MAX_RANK];
  int64_t off = odo_start (pl->nk, pl->kdims, pl->kstr, o, idx);

  while (b < e) {
    int64_t jend = nb < j + (e - b) ? nb : j + (e - b);
    int64_t first = j * TN_RK_BLOCK;
    int64_t last = jend * TN_RK_BLOCK < pl->N ? jend * TN_RK_BLOCK : pl->N;
    const char *p = pl->base + (off + first) * (int64_t) pl->isz;
    tn_rpart one, *out = nb > 1 ? r->parts + o * nb + j : &one;

    if (r->dev_rows)
      r->dev_rows (p, last - first, r->m[o], out);
    else
      r->rows (p, last - first, out);
    shift_idx (r, out, jend - j, first);
    if (nb == 1)
      emit (&r->ex, o, &one);
    b += jend - j;
    j = 0;
    o++;
    off = odo_next (pl->nk, pl->kdims, pl->kstr, idx, off);
  }
}

/* Rows of whole blocks, one after the other in memory: every block of a
 * chunk in one kernel call.  Not for argmin/argmax (they count indices
 * from the start of a call) nor for deviations (a mean per row). */
static bool
rows_flat (const run_ctx *r)
{
  const plan *pl = r->pl;

  return r->kind != TN_RK_ARGMIN && r->kind != TN_RK_ARGMAX
         && r->kind != TN_RK_DDEV && pl->N % TN_RK_BLOCK == 0
         && (pl->nk == 0 || (pl->nk == 1 && pl->kstr[0] == pl->N));
}

static void
rows_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  run_ctx *r = vctx;
  const plan *pl = r->pl;

  (void) c;
  if (!rows_flat (r)) {
    rows_chunk_rows (r, b, e);
    return;
  }
  /* Units are blocks in memory order. */
  while (b < e) {
    tn_rpart loc[64];
    int64_t k = r->nb > 1 ? e - b : (e - b < 64 ? e - b : 64);
    const char *p = pl->base + b * TN_RK_BLOCK * (int64_t) pl->isz;

    r->rows (p, k * TN_RK_BLOCK, r->nb > 1 ? r->parts + b : loc);
    if (r->nb == 1)
      for (int64_t o = 0; o < k; o++)
        emit (&r->ex, b + o, &loc[o]);
    b += k;
  }
}

/* Writes the float64 folds v of outputs o0.. (n of them), as emit does:
 * the sums and means into float32 or float64 in one loop, the rest one
 * by one. */
static void
emit_folds (const emit_ctx *x, int64_t o0, const double *v, int64_t n)
{
  bool plain = !x->means && !x->raw
               && (x->op == TN_REDUCE_SUM || x->op == TN_REDUCE_MEAN)
               && (x->kind == TN_RK_FSUM || x->kind == TN_RK_DADD);
  double den = x->op == TN_REDUCE_MEAN ? (double) x->n : 1.0;

  if (plain && x->out == TN_FLOAT32) {
    float *d = (float *) x->dst + o0;

    for (int64_t i = 0; i < n; i++)
      d[i] = rk_canon_f ((float) (den == 1.0 ? v[i] : v[i] / den));
    return;
  }
  if (plain && x->out == TN_FLOAT64) {
    double *d = (double *) x->dst + o0;

    for (int64_t i = 0; i < n; i++)
      d[i] = rk_canon (den == 1.0 ? v[i] : v[i] / den);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    tn_rpart p;

    memset (&p, 0, sizeof p);
    p.v.d = v[i];
    emit (x, o0 + i, &p);
  }
}

/* Outputs of a rows plan of at most 32 items each: runs along the
 * innermost kept axis, up to SHORT_RUN outputs per kernel call (short32:
 * the whole run, written by the kernel). */
#define SHORT_RUN 512
static void
short_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  run_ctx *r = vctx;
  const plan *pl = r->pl;
  const int64_t inner = pl->nk > 0 ? pl->kdims[pl->nk - 1] : 1;
  const int64_t rs = pl->nk > 0 ? pl->kstr[pl->nk - 1] : 0;
  const double den = r->ex.op == TN_REDUCE_MEAN ? (double) r->ex.n : 1.0;
  int64_t idx[TN_MAX_RANK];
  double v[SHORT_RUN];

  (void) c;
  while (b < e) {
    int64_t off = odo_start (pl->nk, pl->kdims, pl->kstr, b, idx);
    int64_t n = inner - (pl->nk > 0 ? idx[pl->nk - 1] : 0);
    const char *p = pl->base + off * (int64_t) pl->isz;

    n = n < e - b ? n : e - b;
    if (r->short32) {
      r->short32 (p, pl->N, rs, n, den, (float *) r->ex.dst + b, r->stream);
    } else {
      n = n < SHORT_RUN ? n : SHORT_RUN;
      r->shortr (p, pl->N, rs, n, v);
      emit_folds (&r->ex, b, v, n);
    }
    b += n;
  }
  if (r->stream)
    tn_stream_fence ();
}

static void
cols_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  run_ctx *r = vctx;
  const plan *pl = r->pl;
  int64_t roff[TN_RK_BLOCK], ridx[TN_MAX_RANK], kidx[TN_MAX_RANK];
  int64_t have_q = -1, have_j = -1, qoff = 0, nrows = 0;
  tn_rpart *loc = NULL;
  void *scratch;

  (void) c;
  scratch = aligned_alloc (64, (TN_RK_SCRATCH (r->tile) + 63) & ~(size_t) 63);
  if (r->nb == 1)
    loc = malloc (sizeof (tn_rpart) * (size_t) r->tile);
  if (!scratch || (r->nb == 1 && !loc)) {
    atomic_store (&r->failed, 1);
    free (scratch);
    free (loc);
    return;
  }
  for (int64_t u = b; u < e; u++) {
    int64_t tl = u % r->ntiles, j = (u / r->ntiles) % r->nb;
    int64_t q = u / (r->ntiles * r->nb);
    int64_t c0 = tl * r->tile, nc = pl->P - c0 < r->tile ? pl->P - c0 : r->tile;
    tn_rpart *out;

    if (q != have_q) {
      qoff = odo_start (pl->nk, pl->kdims, pl->kstr, q, kidx);
      have_q = q;
    }
    if (j != have_j) {
      int64_t t0 = j * TN_RK_BLOCK, ro;

      nrows = pl->N - t0 < TN_RK_BLOCK ? pl->N - t0 : TN_RK_BLOCK;
      ro = odo_start (pl->nr, pl->rdims, pl->rstr, t0, ridx);
      for (int64_t t = 0; t < nrows; t++) {
        roff[t] = ro;
        ro = odo_next (pl->nr, pl->rdims, pl->rstr, ridx, ro);
      }
      have_j = j;
    }
    out = r->nb > 1 ? r->parts + (q * r->nb + j) * pl->P + c0 : loc;
    if (r->dev_cols)
      r->dev_cols (pl->base + (qoff + c0) * (int64_t) pl->isz, roff, nrows, nc,
          r->m + q * pl->P + c0, out, scratch);
    else
      r->cols (pl->base + (qoff + c0) * (int64_t) pl->isz, roff, nrows, nc, out,
          scratch);
    shift_idx (r, out, nc, j * TN_RK_BLOCK);
    if (r->nb == 1)
      for (int64_t k = 0; k < nc; k++)
        emit (&r->ex, q * pl->P + c0 + k, &loc[k]);
  }
  free (scratch);
  free (loc);
}

/* Units (q, block j) of a strip plan. */
static void
strip_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  run_ctx *r = vctx;
  const plan *pl = r->pl;
  int64_t kidx[TN_MAX_RANK], have_q = -1, qoff = 0;
  tn_rpart loc[COLS_MIN];
  void *scratch;

  (void) c;
  scratch = aligned_alloc (
      64, (TN_RK_SCRATCH (TN_RK_LANES * pl->P) + 63) & ~(size_t) 63);
  if (!scratch) {
    atomic_store (&r->failed, 1);
    return;
  }
  for (int64_t u = b; u < e; u++) {
    int64_t q = u / r->nb, j = u % r->nb, t0 = j * TN_RK_BLOCK;
    int64_t nrows = pl->N - t0 < TN_RK_BLOCK ? pl->N - t0 : TN_RK_BLOCK;
    tn_rpart *out = r->nb > 1 ? r->parts + (q * r->nb + j) * pl->P : loc;

    if (q != have_q) {
      qoff = odo_start (pl->nk, pl->kdims, pl->kstr, q, kidx);
      have_q = q;
    }
    if (r->dev_strip)
      r->dev_strip (pl->base + (qoff + t0 * pl->rstep) * (int64_t) pl->isz,
          nrows, pl->P, r->m + q * pl->P, out, scratch);
    else
      r->strip (pl->base + (qoff + t0 * pl->rstep) * (int64_t) pl->isz, nrows,
          pl->P, out, scratch);
    if (r->nb == 1)
      for (int64_t k = 0; k < pl->P; k++)
        emit (&r->ex, q * pl->P + k, &loc[k]);
  }
  free (scratch);
}

static void
combine_chunk (void *vctx, int64_t c, int64_t b, int64_t e)
{
  run_ctx *r = vctx;
  const plan *pl = r->pl;

  (void) c;
  for (int64_t o = b; o < e; o++) {
    const tn_rpart *p;
    int64_t stride;
    tn_rpart acc;

    if (pl->kind == PLAN_ROWS) {
      p = r->parts + o * r->nb;
      stride = 1;
    } else {
      p = r->parts + (o / pl->P) * r->nb * pl->P + o % pl->P;
      stride = pl->P;
    }
    acc = p[0];
    for (int64_t j = 1; j < r->nb; j++)
      part_combine (r->kind, r->t, &acc, p + j * stride);
    emit (&r->ex, o, &acc);
  }
}

/* Runs one kernel kind over the plan, emitting through ex. */
static int
run (const plan *pl, tn_rk_kind kind, tn_dtype t, const double *m,
    const emit_ctx *ex, int nthreads, tn_err *e)
{
  const tn_reduce_dsp *dsp = tn_reduce_dsp_get ();
  run_ctx r;
  int64_t units, per;

  memset (&r, 0, sizeof r);
  r.pl = pl;
  r.kind = kind;
  r.t = t;
  r.m = m;
  r.ex = *ex;
  if (kind == TN_RK_DDEV) {
    r.dev_rows = dsp->dev_rows[t];
    r.dev_cols = dsp->dev_cols[t];
    r.dev_strip = dsp->dev_strip[t];
  } else {
    r.rows = dsp->rows[kind][t];
    r.cols = dsp->cols[kind][t];
    r.strip = dsp->strip[kind][t];
  }
  r.nb = (pl->N + TN_RK_BLOCK - 1) / TN_RK_BLOCK;
  atomic_init (&r.failed, 0);
  if (!(r.rows || r.dev_rows) || !(r.cols || r.dev_cols)
      || (pl->kind == PLAN_STRIP && !(r.strip || r.dev_strip))) {
    tn_err_set (e, "no %d kernel for %s.", (int) kind, tn_dtype_name (t));
    return -1;
  }
  if (r.nb > 1) {
    r.parts = malloc (sizeof (tn_rpart) * (size_t) pl->M * (size_t) r.nb);
    if (!r.parts) {
      tn_err_set (e,
          "out of memory for %lld partial results of a reduction of %lld "
          "outputs.",
          (long long) (pl->M * r.nb), (long long) pl->M);
      return -1;
    }
  }

  if (pl->kind == PLAN_ROWS && pl->N <= TN_RK_LANES && kind != TN_RK_DDEV
      && dsp->shortr[kind][t]) {
    r.shortr = dsp->shortr[kind][t];
    /* float32 sums and means straight to dst */
    if (kind == TN_RK_FSUM && !ex->means && !ex->raw && ex->out == TN_FLOAT32
        && (ex->op == TN_REDUCE_SUM || ex->op == TN_REDUCE_MEAN))
      r.short32 = dsp->short32[t];
    /* The outputs are a third (k = 3) or less of what is read: when the
     * two together are far beyond the caches, the reads evict the
     * outputs before anyone reads them, and an ordinary store would
     * read each output line first (session 9: 0.55 of the read loop
     * for read + ordinary write of <1080,1920,3> float32, 0.71-0.75
     * with the writes streamed). */
    r.stream = (uint64_t) pl->M * (uint64_t) (pl->N * pl->isz + 4)
               >= TN_STREAM_BYTES;
    tn_parallel_run (nthreads, pl->M, CHUNK_ITEMS / pl->N + 1, short_chunk, &r);
  } else if (pl->kind == PLAN_ROWS) {
    per = pl->N < TN_RK_BLOCK ? pl->N : TN_RK_BLOCK;
    units = pl->M * r.nb;
    tn_parallel_run (nthreads, units, CHUNK_ITEMS / per + 1, rows_chunk, &r);
  } else if (pl->kind == PLAN_STRIP) {
    per = (pl->N < TN_RK_BLOCK ? pl->N : TN_RK_BLOCK) * pl->P;
    units = pl->M / pl->P * r.nb;
    tn_parallel_run (nthreads, units, CHUNK_ITEMS / per + 1, strip_chunk, &r);
  } else {
    int64_t q = pl->M / pl->P, rows = pl->N < TN_RK_BLOCK ? pl->N : TN_RK_BLOCK;

    r.tile = pl->P < TN_RK_TILE ? pl->P : TN_RK_TILE;
    r.ntiles = (pl->P + r.tile - 1) / r.tile;
    per = rows * r.tile;
    units = q * r.nb * r.ntiles;
    tn_parallel_run (nthreads, units, CHUNK_ITEMS / per + 1, cols_chunk, &r);
  }
  if (atomic_load (&r.failed)) {
    free (r.parts);
    tn_err_set (e,
        "out of memory for the scratch of a reduction over %lld "
        "columns.",
        (long long) r.tile);
    return -1;
  }
  if (r.nb > 1)
    tn_parallel_run (
        nthreads, pl->M, CHUNK_ITEMS / r.nb + 1, combine_chunk, &r);
  free (r.parts);
  return 0;
}

/* The value over no items: 0 for sum and l2, 1 for prod. */
static void
emit_identity (const emit_ctx *ex, int64_t M)
{
  tn_rpart p;

  memset (&p, 0, sizeof p);
  if (ex->kind == TN_RK_DMUL)
    p.v.d = 1.0;
  else if (ex->kind == TN_RK_UMUL)
    p.v.u = 1;
  for (int64_t o = 0; o < M; o++)
    emit (ex, o, &p);
}

/* The plan for kind over v's axes in mask; where no plan reads v in place,
 * a dense copy (*dense, for the caller to free) with the kept axes first
 * and the reduced ones after: each output's items become one contiguous
 * row, in row-major order of the reduced axes. */
static int
plan_or_copy (plan *pl, const tn_view *v, uint32_t mask, const void *base,
    tn_rk_kind kind, void **dense, tn_err *e)
{
  *dense = NULL;
  if (!make_plan (pl, v, mask, base, kind_has_strips (kind)) && pl->M > 0
      && pl->N > 0) {
    tn_view pv = *v;
    int k = 0;
    size_t nbytes = (size_t) pl->M * (size_t) pl->N * pl->isz;

    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < v->rank; i++)
        if ((int) ((mask >> i) & 1) == pass) {
          pv.dims[k] = v->dims[i];
          pv.strides[k++] = v->strides[i];
        }
    *dense = malloc (nbytes);
    if (!*dense) {
      tn_err_set (
          e, "out of memory for a dense copy of %zu bytes to reduce.", nbytes);
      return -1;
    }
    tn_view_materialize (*dense, base, &pv);
    pl->kind = PLAN_ROWS;
    pl->base = *dense;
    pl->nk = 1;
    pl->kdims[0] = pl->M;
    pl->kstr[0] = pl->N;
  }
  return 0;
}

int
tn_reduce (void *dst, const void *base, const tn_view *v, tn_reduce_op op,
    uint32_t mask, int64_t ddof, int nthreads, tn_err *e)
{
  int64_t odims[TN_MAX_RANK];
  int orank, rc = -1;
  plan pl;
  emit_ctx ex;
  void *dense = NULL;
  double *means = NULL;

  if (!tn_dtype_valid (v->dtype)) {
    tn_err_set (e, "dtype %d is not a tensor dtype.", (int) v->dtype);
    return -1;
  }
  if (tn_reduce_shape (op, v->dims, v->rank, mask, false, odims, &orank, e) < 0)
    return -1;
  if (ddof < 0) {
    tn_err_set (e, "ddof is %lld; it must be >= 0.", (long long) ddof);
    return -1;
  }

  memset (&ex, 0, sizeof ex);
  ex.op = op;
  ex.in = v->dtype;
  ex.out = tn_reduce_dtype (op, v->dtype);
  ex.kind = op_kind (op, v->dtype);
  ex.ddof = ddof;
  ex.dst = dst;

  if (plan_or_copy (&pl, v, mask, base, ex.kind, &dense, e) < 0)
    return -1;
  ex.n = pl.N;
  if (pl.M == 0) {
    rc = 0;
    goto done;
  }
  if (pl.N == 0) {
    emit_identity (&ex, pl.M);
    rc = 0;
    goto done;
  }

  if (op == TN_REDUCE_VAR || op == TN_REDUCE_STD) {
    emit_ctx mx = ex;

    means = malloc (sizeof (double) * (size_t) pl.M);
    if (!means) {
      tn_err_set (e, "out of memory for the %lld means of a %s reduction.",
          (long long) pl.M, tn_reduce_op_name (op));
      goto done;
    }
    mx.means = means;
    if (run (&pl, ex.kind, v->dtype, NULL, &mx, nthreads, e) < 0)
      goto done;
    ex.kind = TN_RK_DDEV;
  }
  rc = run (&pl, ex.kind, v->dtype, means, &ex, nthreads, e);

done:
  free (means);
  free (dense);
  return rc;
}

int
tn_reduce_fold (double *dst, const void *base, const tn_view *v,
    tn_rk_kind kind, uint32_t mask, const double *m, int nthreads, tn_err *e)
{
  plan pl;
  emit_ctx ex;
  void *dense = NULL;
  int rc;

  if (!is_float (v->dtype)
      || !(kind == TN_RK_DADD || kind == TN_RK_DSQ || kind == TN_RK_MIN
           || kind == TN_RK_MAX || kind == TN_RK_DDEV)) {
    tn_err_set (e, "no float64 fold of kind %d over %s.", (int) kind,
        tn_dtype_name (v->dtype));
    return -1;
  }
  memset (&ex, 0, sizeof ex);
  ex.in = ex.out = v->dtype;
  ex.kind = kind;
  ex.raw = dst;
  if (plan_or_copy (&pl, v, mask, base, kind, &dense, e) < 0)
    return -1;
  ex.n = pl.N;
  if (pl.M == 0 || pl.N == 0) {
    /* the identity of a sum; min and max of no items are the caller's */
    for (int64_t o = 0; o < pl.M; o++)
      dst[o] = -0.0;
    free (dense);
    return 0;
  }
  rc = run (&pl, kind, v->dtype, m, &ex, nthreads, e);
  free (dense);
  return rc;
}
