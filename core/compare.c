/* Comparing a tensor with a reference (compare.h): the walk over two
 * views in row-major order, in runs the kernels fold (compare-kern.h),
 * and NumPy's sentence for the result. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare-kern.h"

/* Items per run: small enough that locating the first mismatch or the
 * worst error again inside one run costs nothing next to the pass. */
#define CMP_RUN 4096

void
tn_cmp_tol_init (tn_cmp_tol *t)
{
  t->rtol = 1e-7;
  t->atol = 0.0;
  t->max_ulp = -1;
  t->exact = false;
  t->equal_nan = true;
}

int
tn_compare_check (const tn_view *a, const tn_view *e, tn_err *err)
{
  char da[TN_MAX_RANK * 22 + 8], de[TN_MAX_RANK * 22 + 8];

  if (a->dtype != e->dtype) {
    tn_err_set (err, "dtype %s against %s", tn_dtype_name (a->dtype),
        tn_dtype_name (e->dtype));
    return -1;
  }
  if (a->rank != e->rank
      || memcmp (a->dims, e->dims, sizeof (int64_t) * (size_t) a->rank)) {
    tn_shape_format (da, sizeof da, a->dims, a->rank);
    tn_shape_format (de, sizeof de, e->dims, e->rank);
    tn_err_set (err, "dims %s against %s", da, de);
    return -1;
  }
  return 0;
}

int
tn_compare_bf16_ref (const tn_view *a, const void **e, const tn_view **ev,
    tn_view *nv, void **owned, tn_err *err)
{
  const tn_view *r = *ev;
  int64_t n;
  uint16_t *dst;
  float *f = NULL;
  const float *src;

  *owned = NULL;
  if (a->dtype != TN_BFLOAT16 || r->dtype != TN_FLOAT32 || a->rank != r->rank
      || memcmp (a->dims, r->dims, sizeof a->dims[0] * (size_t) r->rank) != 0)
    return 0;
  n = tn_view_count (r);
  /* a strided reference is read through a dense copy; a loaded file is
   * dense already */
  if (!tn_view_dense (r))
    f = malloc ((size_t) (n ? n : 1) * sizeof (float));
  dst = malloc ((size_t) (n ? n : 1) * sizeof (uint16_t));
  if ((!tn_view_dense (r) && f == NULL) || dst == NULL) {
    tn_err_set (
        err, "no memory for the %lld items of the reference", (long long) n);
    goto fail;
  }
  if (f)
    tn_view_materialize (f, *e, r);
  src = f ? f : (const float *) *e + r->offset;
  for (int64_t i = 0; i < n; i++) {
    uint32_t u;

    memcpy (&u, src + i, sizeof u);
    if (u & 0xffffu) {
      char idx[TN_MAX_RANK * 22 + 8], val[40];

      tn_compare_format_index (idx, sizeof idx, i, r->dims, r->rank);
      tn_compare_format_value (val, sizeof val, src[i], TN_FLOAT32);
      tn_err_set (err,
          "dtype bfloat16 against float32, and the float32 reference is "
          "no bfloat16 tensor widened: its item %s, %s, is no bfloat16 value",
          idx, val);
      goto fail;
    }
    dst[i] = (uint16_t) (u >> 16);
  }
  free (f);
  if (tn_view_init (nv, TN_BFLOAT16, r->dims, r->rank, err) < 0) {
    free (dst);
    return -1;
  }
  *owned = dst;
  *e = dst;
  *ev = nv;
  return 0;

fail:
  free (f);
  free (dst);
  return -1;
}

typedef struct {
  tn_cmp_run_fn run;
  tn_cmp_item_fn item;
  const tn_cmp_tol *t;
  tn_dtype dtype;
  size_t isz;
  tn_cmp_result *r;
  /* the run where the largest abs error was first seen */
  const char *wa, *we;
  int64_t wsa, wse, wflat, wn;
} walk;

/* Folds one run of n items starting at row-major index flat. */
static void
fold_run (walk *w, const char *a, int64_t sa, const char *e, int64_t se,
    int64_t flat, int64_t n)
{
  tn_cmp_result *r = w->r;
  tn_cmp_part p;

  w->run (a, sa, e, se, n, w->t, &p);
  if (p.bad && r->first < 0) {
    for (int64_t i = 0; i < n; i++) {
      tn_cmp_item it;

      w->item (a + (size_t) (i * sa) * w->isz, e + (size_t) (i * se) * w->isz,
          w->t, &it);
      if (it.bad) {
        const char *pa = a + (size_t) (i * sa) * w->isz;
        const char *pe = e + (size_t) (i * se) * w->isz;

        if (w->dtype == TN_INT64 || w->dtype == TN_UINT64) {
          memcpy (&r->first_actual_i, pa, sizeof r->first_actual_i);
          memcpy (&r->first_expected_i, pe, sizeof r->first_expected_i);
        }
        r->first = flat + i;
        r->first_actual = it.actual;
        r->first_expected = it.expected;
        r->first_abs = it.abs;
        r->first_rel = it.rel;
        r->first_ulp = it.ulp;
        break;
      }
    }
  }
  r->bad += p.bad;
  if (p.max_abs > r->max_abs) {
    r->max_abs = p.max_abs;
    w->wa = a;
    w->we = e;
    w->wsa = sa;
    w->wse = se;
    w->wflat = flat;
    w->wn = n;
  }
  if (p.max_rel > r->max_rel)
    r->max_rel = p.max_rel;
  if (p.max_ulp > r->max_ulp)
    r->max_ulp = p.max_ulp;
}

/* One row (the last axis), cut into runs. */
static void
fold_row (walk *w, const char *a, int64_t sa, const char *e, int64_t se,
    int64_t flat, int64_t n)
{
  for (int64_t i = 0; i < n; i += CMP_RUN) {
    int64_t k = n - i < CMP_RUN ? n - i : CMP_RUN;

    fold_run (w, a + (size_t) (i * sa) * w->isz, sa,
        e + (size_t) (i * se) * w->isz, se, flat + i, k);
  }
}

void
tn_compare (const void *a, const tn_view *av, const void *e, const tn_view *ev,
    const tn_cmp_tol *t, tn_cmp_result *r)
{
  const tn_compare_dsp *dsp = tn_compare_dsp_get ();
  const int64_t count = tn_view_count (av);
  const char *pa, *pe;
  walk w;

  memset (r, 0, sizeof *r);
  r->items = count;
  r->first = -1;
  r->worst = -1;
  w.run = dsp->run[av->dtype];
  w.item = dsp->item[av->dtype];
  w.t = t;
  w.dtype = av->dtype;
  w.isz = tn_dtype_size (av->dtype);
  w.r = r;
  w.wa = NULL;
  if (count == 0)
    return;
  pa = (const char *) a + (size_t) av->offset * w.isz;
  pe = (const char *) e + (size_t) ev->offset * w.isz;
  if (av->rank == 0 || (tn_view_dense (av) && tn_view_dense (ev))) {
    fold_row (&w, pa, 1, pe, 1, 0, count);
  } else {
    const int last = av->rank - 1;
    const int64_t n = av->dims[last];
    int64_t idx[TN_MAX_RANK] = { 0 }, oa = 0, oe = 0;

    /* the outer axes like an odometer, one row at a time */
    for (int64_t flat = 0; flat < count; flat += n) {
      fold_row (&w, pa + (size_t) oa * w.isz, av->strides[last],
          pe + (size_t) oe * w.isz, ev->strides[last], flat, n);
      for (int ax = last - 1; ax >= 0; ax--) {
        oa += av->strides[ax];
        oe += ev->strides[ax];
        if (++idx[ax] < av->dims[ax])
          break;
        oa -= av->strides[ax] * av->dims[ax];
        oe -= ev->strides[ax] * ev->dims[ax];
        idx[ax] = 0;
      }
    }
  }
  if (w.wa) {
    for (int64_t i = 0; i < w.wn; i++) {
      tn_cmp_item it;

      w.item (w.wa + (size_t) (i * w.wsa) * w.isz,
          w.we + (size_t) (i * w.wse) * w.isz, t, &it);
      if (it.abs == r->max_abs) {
        r->worst = w.wflat + i;
        break;
      }
    }
  }
}

void
tn_compare_format_index (
    char *buf, size_t cap, int64_t i, const int64_t *dims, int rank)
{
  int64_t idx[TN_MAX_RANK];

  for (int ax = rank - 1; ax >= 0; ax--) {
    idx[ax] = dims[ax] ? i % dims[ax] : 0;
    i = dims[ax] ? i / dims[ax] : 0;
  }
  tn_shape_format (buf, cap, idx, rank);
  /* tn_shape_format writes <a, b>; NumPy indexes read [a, b] */
  if (buf[0] == '<') {
    size_t n = strlen (buf);

    buf[0] = '[';
    if (n > 1 && buf[n - 1] == '>')
      buf[n - 1] = ']';
  }
}

void
tn_compare_format_value (char *buf, size_t cap, double x, tn_dtype dt)
{
  tn_kind k = tn_dtype_kind (dt);

  if (isnan (x)) {
    snprintf (buf, cap, "nan");
    return;
  }
  if (isinf (x)) {
    snprintf (buf, cap, x < 0 ? "-inf" : "inf");
    return;
  }
  if (k != TN_KIND_FLOAT && fabs (x) < 9.007199254740992e15) {
    snprintf (buf, cap, "%.0f", x);
    return;
  }
  /* the fewest digits that read back as the same item of dt */
  for (int p = 1; p <= 17; p++) {
    double y;

    snprintf (buf, cap, "%.*g", p, x);
    y = strtod (buf, NULL);
    if (dt == TN_FLOAT64 || k != TN_KIND_FLOAT ? y == x
                                               : (float) y == (float) x)
      break;
  }
}

void
tn_compare_format_first (
    char *buf, size_t cap, const tn_cmp_result *r, tn_dtype dt, int which)
{
  const int64_t i = which ? r->first_expected_i : r->first_actual_i;

  if (dt == TN_INT64)
    snprintf (buf, cap, "%lld", (long long) i);
  else if (dt == TN_UINT64)
    snprintf (buf, cap, "%llu", (unsigned long long) (uint64_t) i);
  else
    tn_compare_format_value (
        buf, cap, which ? r->first_expected : r->first_actual, dt);
}

void
tn_compare_format (char *buf, size_t cap, const tn_cmp_result *r,
    const tn_view *v, const tn_cmp_tol *t)
{
  char first[TN_MAX_RANK * 22 + 8], worst[TN_MAX_RANK * 22 + 8];
  char va[40], ve[40], ab[40], wa[40], rel[40], bound[96];
  const bool is_float = tn_dtype_kind (v->dtype) == TN_KIND_FLOAT;

  if (is_float && t->max_ulp >= 0)
    snprintf (
        bound, sizeof bound, "beyond max-ulp=%lld", (long long) t->max_ulp);
  else if (!is_float && t->exact)
    snprintf (bound, sizeof bound, "(compared exactly)");
  else
    snprintf (bound, sizeof bound, "beyond rtol=%g, atol=%g", t->rtol, t->atol);
  tn_compare_format_index (first, sizeof first, r->first, v->dims, v->rank);
  tn_compare_format_index (
      worst, sizeof worst, r->worst < 0 ? 0 : r->worst, v->dims, v->rank);
  tn_compare_format_first (va, sizeof va, r, v->dtype, 0);
  tn_compare_format_first (ve, sizeof ve, r, v->dtype, 1);
  tn_compare_format_value (ab, sizeof ab, r->first_abs, v->dtype);
  tn_compare_format_value (wa, sizeof wa, r->max_abs, v->dtype);
  /* three digits, Python's names for nan and inf (inf / inf is nan) */
  if (isnan (r->first_rel))
    snprintf (rel, sizeof rel, "nan");
  else if (isinf (r->first_rel))
    snprintf (rel, sizeof rel, "inf");
  else
    snprintf (rel, sizeof rel, "%.3g", r->first_rel);
  if (is_float && t->max_ulp >= 0)
    snprintf (buf, cap,
        "%lld of %lld items differ %s; first at %s: %s against %s "
        "(abs %s, rel %s, ulp %llu); worst ulp %llu, worst abs %s at %s",
        (long long) r->bad, (long long) r->items, bound, first, va, ve, ab, rel,
        (unsigned long long) r->first_ulp, (unsigned long long) r->max_ulp, wa,
        worst);
  else
    snprintf (buf, cap,
        "%lld of %lld items differ %s; first at %s: %s against %s "
        "(abs %s, rel %s); worst abs %s at %s",
        (long long) r->bad, (long long) r->items, bound, first, va, ve, ab, rel,
        wa, worst);
}
