/* NumPy-style printing and statistics of strided tensors.
 *
 * The float rules follow numpy.core.arrayprint's FloatingFormat in its
 * default mode ("maxprec", precision 8):
 *  - Scientific notation when the finite non-zero magnitudes reach 1e8,
 *    fall below 1e-4, or span a ratio above 1000 (the ratio rounded to
 *    the array's dtype, as NumPy divides in it); positional otherwise.
 *  - Positional: each value's shortest round-trip digits for its dtype,
 *    cut to 8 fractional digits (rounded) with trailing zeros dropped and
 *    the point kept ("1."), but never short of the units digit ("4112.",
 *    not "4110."); then padded to the widest integer part on the left and
 *    the widest fraction on the right.
 *  - Scientific: every value gets the same number P of fraction digits,
 *    the most any value's shortest form (at most 9 digits) needs; a value
 *    needing fewer shows the correctly rounded P digits of its exact
 *    value; exponents are zero-padded to a common width of at least 2.
 *  - nan/inf are right-aligned to the width of the numbers.
 * The digits of each value come from print-digits.c; this file chooses
 * the form, pads the items, and lays out the nested, wrapped and
 * summarised rows. */
#include "print.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "half.h"
#include "parallel.h"
#include "print-digits.h"

/* Whether the caller asked to stop; read relaxed, as it only ever turns
 * from 0 to something else while a call runs. */
static inline int
cancelled (const atomic_int *cancel)
{
  return cancel && atomic_load_explicit (cancel, memory_order_relaxed) != 0;
}

/* ------------------------------------------------------------------ */
/* printf/strtod under the "C" locale: a host application that calls
 * setlocale(LC_ALL, "") must not turn "0.5" into "0,5". */

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
c_locale_init (void)
{
  c_locale = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
}

static locale_t
c_locale_enter (void)
{
  pthread_once (&c_locale_once, c_locale_init);
  return c_locale ? uselocale (c_locale) : (locale_t) 0;
}

static void
c_locale_leave (locale_t old)
{
  if (old)
    uselocale (old);
}

/* ------------------------------------------------------------------ */
/* A growable string. */

typedef struct {
  char *p;
  size_t len, cap;
  int oom;
} sbuf;

static int
sb_reserve (sbuf *b, size_t extra)
{
  size_t need, cap;
  char *p;

  if (b->oom)
    return -1;
  if (extra > SIZE_MAX - b->len - 1) {
    b->oom = 1;
    return -1;
  }
  need = b->len + extra + 1;
  if (need <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 256;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  p = realloc (b->p, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static void
sb_put (sbuf *b, const char *s, size_t n)
{
  if (sb_reserve (b, n) < 0)
    return;
  memcpy (b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void
sb_fill (sbuf *b, char c, size_t n)
{
  if (sb_reserve (b, n) < 0)
    return;
  memset (b->p + b->len, c, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void
sb_rstrip (sbuf *b)
{
  while (b->len > 0 && b->p[b->len - 1] == ' ')
    b->len--;
  if (b->p)
    b->p[b->len] = '\0';
}

/* ------------------------------------------------------------------ */
/* Views. */

static int
check_view (const tn_view *v, int64_t *count, tn_err *e)
{
  int i;

  if (!v) {
    tn_err_set (e, "No view was given to print.");
    return -1;
  }
  if (!tn_dtype_valid ((int) v->dtype)) {
    tn_err_set (e,
        "The view's dtype tag %d is not one of the %d dtypes "
        "(0..%d).",
        (int) v->dtype, TN_NDTYPES, TN_NDTYPES - 1);
    return -1;
  }
  if (tn_shape_count (v->dims, v->rank, count, e) < 0)
    return -1;
  for (i = 0; i < v->rank; i++) {
    if (v->strides[i] < 0) {
      tn_err_set (e,
          "Axis %d of the view has stride %lld; strides must be "
          ">= 0.",
          i, (long long) v->strides[i]);
      return -1;
    }
  }
  if (v->offset < 0) {
    tn_err_set (e, "The view's offset is %lld; it must be >= 0.",
        (long long) v->offset);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Statistics: one strided row at a time, per dtype. */

typedef struct {
  double sum, row; /* row: the current row's sum, added to sum at its end */
  int64_t nan;
  int have;          /* int kinds: min/max hold an item */
  double fmin, fmax; /* float kinds: the extremes as doubles */
  unsigned char min_item[8], max_item[8];
} stats_acc;

typedef void (*stats_row_fn) (
    stats_acc *a, const uint8_t *p, int64_t n, int64_t step);

/* Item value in arithmetic form; a compile-time choice in each kernel.
 * Bools count as 0/1 whatever non-zero byte they hold. */
#define TN_PRINT_NUM(ENUM, x)                                                  \
  ((ENUM) == TN_FLOAT16       ? (double) tn_f16_to_f32 ((uint16_t) (x))        \
      : (ENUM) == TN_BFLOAT16 ? (double) tn_bf16_to_f32 ((uint16_t) (x))       \
      : (ENUM) == TN_BOOL     ? (double) ((x) != 0)                            \
                              : (double) (x))

/* An int or bool item as its own C type (no trip through double, which
 * would round 64-bit values). */
#define TN_PRINT_ITEM(ENUM, ctype, x)                                          \
  ((ENUM) == TN_BOOL ? (ctype) ((x) != 0) : (x))

/* Float kinds compare as doubles and keep the raw item beside; the other
 * kinds compare in their own C type so 64-bit extremes stay exact.  A
 * row comes in blocks (so a caller can cancel between them); its sum runs
 * on across them in a->row and is added to the total once, at the end of
 * the row, which also keeps rounding low. */
#define STATS_ROW(ENUM, name, ctype, kind)                                     \
  static void stats_row_##name (                                               \
      stats_acc *a, const uint8_t *bp, int64_t n, int64_t step)                \
  {                                                                            \
    const ctype *p = (const ctype *) (const void *) bp;                        \
    ctype mnr, mxr;                                                            \
    double sum = a->row;                                                       \
    int64_t i;                                                                 \
    memcpy (&mnr, a->min_item, sizeof mnr);                                    \
    memcpy (&mxr, a->max_item, sizeof mxr);                                    \
    if ((kind) == TN_KIND_FLOAT) {                                             \
      double mn = a->fmin, mx = a->fmax;                                       \
      int64_t nan = 0;                                                         \
      for (i = 0; i < n; i++) {                                                \
        ctype v = p[i * step];                                                 \
        double x = TN_PRINT_NUM (ENUM, v);                                     \
        if (isnan (x)) {                                                       \
          nan++;                                                               \
          continue;                                                            \
        }                                                                      \
        sum += x;                                                              \
        if (x < mn) {                                                          \
          mn = x;                                                              \
          mnr = v;                                                             \
        }                                                                      \
        if (x > mx) {                                                          \
          mx = x;                                                              \
          mxr = v;                                                             \
        }                                                                      \
      }                                                                        \
      a->fmin = mn;                                                            \
      a->fmax = mx;                                                            \
      a->nan += nan;                                                           \
    } else {                                                                   \
      if (!a->have && n > 0) {                                                 \
        mnr = mxr = TN_PRINT_ITEM (ENUM, ctype, *p);                           \
        a->have = 1;                                                           \
      }                                                                        \
      for (i = 0; i < n; i++) {                                                \
        ctype x = TN_PRINT_ITEM (ENUM, ctype, p[i * step]);                    \
        sum += (double) x;                                                     \
        mnr = x < mnr ? x : mnr;                                               \
        mxr = x > mxr ? x : mxr;                                               \
      }                                                                        \
    }                                                                          \
    memcpy (a->min_item, &mnr, sizeof mnr);                                    \
    memcpy (a->max_item, &mxr, sizeof mxr);                                    \
    a->row = sum;                                                              \
  }

TN_FOREACH_DTYPE (STATS_ROW)
#define STATS_ENTRY(ENUM, name, ctype, kind) [ENUM] = stats_row_##name,
static const stats_row_fn stats_rows[TN_NDTYPES]
    = { TN_FOREACH_DTYPE (STATS_ENTRY) };

/* Items a row is cut into between two looks at the cancel flag: a few
 * microseconds of work. */
#define STATS_BLOCK 4096

int
tn_stats_compute_cancellable (tn_stats *s, const void *base, const tn_view *v,
    const atomic_int *cancel, tn_err *e)
{
  stats_acc a;
  int64_t count, idx[TN_MAX_RANK] = { 0 }, off, distinct = 1, done = 0;
  int64_t dims[TN_MAX_RANK], strides[TN_MAX_RANK];
  const uint8_t *b = base;
  stats_row_fn row;
  size_t isz;
  int inner, ax, rank = 0, i, ret = 0;
  tn_fpenv env;

  if (!s) {
    tn_err_set (e, "No statistics record was given to fill.");
    return -1;
  }
  if (check_view (v, &count, e) < 0)
    return -1;
  memset (s, 0, sizeof *s);
  memset (&a, 0, sizeof a);
  s->dtype = v->dtype;
  s->count = count;
  s->mean = NAN;
  if (count == 0)
    return 0;

  /* A stride-0 axis repeats the same items (a broadcast), and an axis of
   * extent 1 adds none: walk the others only.  Every distinct item is
   * then seen count / distinct times in the view, so min and max are the
   * same, the NaN count is that many times the one found, and the mean
   * (sum over valid items / their number, both scaled by that factor) is
   * the same quantity; as computed it is the mean of the distinct items,
   * summed in the same order, so it can differ from summing every
   * repeated item in the last bits, never by more. */
  for (i = 0; i < v->rank; i++) {
    if (v->strides[i] == 0 || v->dims[i] == 1)
      continue;
    dims[rank] = v->dims[i];
    strides[rank] = v->strides[i];
    distinct *= dims[rank]; /* divides count, which did not overflow */
    rank++;
  }

  env = tn_fpenv_enter ();
  if (tn_dtype_kind (v->dtype) == TN_KIND_FLOAT) {
    a.fmin = INFINITY;
    a.fmax = -INFINITY;
    tn_set_f64 (a.min_item, v->dtype, INFINITY);
    tn_set_f64 (a.max_item, v->dtype, -INFINITY);
  }
  row = stats_rows[v->dtype];
  isz = tn_dtype_size (v->dtype);
  off = v->offset;
  if (rank == 0) {
    row (&a, b + off * isz, 1, 0);
    a.sum += a.row;
  } else {
    int64_t n = dims[rank - 1], step = strides[rank - 1];

    inner = rank - 1;
    for (;;) {
      int64_t k;

      a.row = 0;
      for (k = 0; k < n; k += STATS_BLOCK) {
        int64_t m = n - k < STATS_BLOCK ? n - k : STATS_BLOCK;

        if (cancelled (cancel)) {
          tn_err_set (e,
              "Statistics cancelled after %lld of the %lld distinct items "
              "of a view of %lld.",
              (long long) (done + k), (long long) distinct, (long long) count);
          ret = -1;
          goto out;
        }
        row (&a, b + (off + k * step) * (int64_t) isz, m, step);
      }
      a.sum += a.row;
      done += n;
      for (ax = inner - 1; ax >= 0; ax--) {
        off += strides[ax];
        if (++idx[ax] < dims[ax])
          break;
        off -= strides[ax] * dims[ax];
        idx[ax] = 0;
      }
      if (ax < 0)
        break;
    }
  }

  s->nan_count = a.nan * (count / distinct);
  s->valid = count - s->nan_count;
  memcpy (s->min_item, a.min_item, sizeof s->min_item);
  memcpy (s->max_item, a.max_item, sizeof s->max_item);
  if (s->valid > 0) {
    s->min = tn_get_f64 (s->min_item, v->dtype);
    s->max = tn_get_f64 (s->max_item, v->dtype);
    s->mean = a.sum / (double) (distinct - a.nan);
  } else {
    s->min = s->max = NAN;
  }
out:
  tn_fpenv_leave (env);
  if (ret < 0) {
    memset (s, 0, sizeof *s);
    s->dtype = v->dtype;
    s->count = count;
    s->mean = s->min = s->max = NAN;
  }
  return ret;
}

int
tn_stats_compute (tn_stats *s, const void *base, const tn_view *v, tn_err *e)
{
  return tn_stats_compute_cancellable (s, base, v, NULL, e);
}

int
tn_stats_format (char *buf, size_t cap, const tn_stats *s)
{
  char mn[64], mx[64], mean[64];
  locale_t old;
  int n;

  if (!s || !tn_dtype_valid ((int) s->dtype))
    return snprintf (buf, cap, "no statistics");
  if (s->count == 0)
    return snprintf (buf, cap, "no items");
  old = c_locale_enter ();
  if (s->valid == 0) {
    snprintf (mn, sizeof mn, "nan");
    snprintf (mx, sizeof mx, "nan");
    snprintf (mean, sizeof mean, "nan");
  } else {
    tn_format_item (mn, sizeof mn, s->min_item, s->dtype);
    tn_format_item (mx, sizeof mx, s->max_item, s->dtype);
    tn_format_item (mean, sizeof mean, &s->mean, TN_FLOAT64);
  }
  n = snprintf (buf, cap, "min=%s max=%s mean=%s nan=%lld", mn, mx, mean,
      (long long) s->nan_count);
  c_locale_leave (old);
  return n;
}

/* ------------------------------------------------------------------ */
/* The printer. */

typedef struct {
  const uint8_t *base;
  const tn_view *v;
  tn_kind kind;
  size_t isz;
  int64_t shown[TN_MAX_RANK]; /* items printed along each axis */
  int64_t lead[TN_MAX_RANK];  /* of which before the "..." */
  int64_t linewidth;
  const atomic_int *cancel;
  int stopped; /* cancel was seen: every loop unwinds */
  sbuf out;
  /* ints */
  int64_t imin, imax;
  uint64_t umin, umax;
  int have, width;
  /* floats */
  int any_finite, any_nonfinite, any_neginf, any_nonzero;
  double max_abs, min_abs;
  int sci, prec, pad_left, pad_right, exp_size;
  /* The first pass's shortest digits of each finite printed item, in
   * print order, so the second pass need not search again. */
  tn_digits *cache;
  size_t cache_len, cache_next;
} pctx;

#define CACHE_MAX_ITEMS 65536 /* 1.5 MiB; past it, digits are recomputed */

/* Shortest digits of the next finite item in print order. */
static void
item_digits (pctx *c, double ax, int first_pass, tn_digits *s)
{
  if (c->cache && !first_pass && c->cache_next < c->cache_len) {
    *s = c->cache[c->cache_next++];
    return;
  }
  tn_digits_shortest (ax, c->v->dtype, s);
  if (c->cache && first_pass && c->cache_len < CACHE_MAX_ITEMS)
    c->cache[c->cache_len++] = *s;
}

typedef void (*item_fn) (pctx *c, const uint8_t *p);

static inline int64_t
axis_index (const pctx *c, int axis, int64_t k)
{
  return k < c->lead[axis] ? k : c->v->dims[axis] - c->shown[axis] + k;
}

/* Whether to stop: the cancel flag, looked at once per printed item (a
 * fraction of a microsecond next to formatting it). */
static inline int
stop_now (pctx *c)
{
  if (!c->stopped && cancelled (c->cancel))
    c->stopped = 1;
  return c->stopped;
}

/* Calls fn on every item that will be printed, in row-major order. */
static void
walk (pctx *c, int axis, int64_t off, item_fn fn)
{
  int64_t k;

  if (axis == c->v->rank) {
    if (!stop_now (c))
      fn (c, c->base + (size_t) off * c->isz);
    return;
  }
  for (k = 0; k < c->shown[axis] && !c->stopped; k++)
    walk (c, axis + 1, off + axis_index (c, axis, k) * c->v->strides[axis], fn);
}

/* Integer items widened exactly by the int -> int casts (sign- or
 * zero-extension).  Not through double: that rounds beyond 2^53, and
 * UINT64_MAX or INT64_MAX round to 2^64 or 2^63, whose conversion back
 * is undefined behaviour. */
static uint64_t
item_u64 (const pctx *c, const uint8_t *p)
{
  uint64_t x;

  tn_cast (&x, TN_UINT64, p, c->v->dtype, 1);
  return x;
}

static int64_t
item_i64 (const pctx *c, const uint8_t *p)
{
  int64_t x;

  tn_cast (&x, TN_INT64, p, c->v->dtype, 1);
  return x;
}

static void
scan_int (pctx *c, const uint8_t *p)
{
  if (c->kind == TN_KIND_UINT) {
    uint64_t x = item_u64 (c, p);

    if (!c->have || x < c->umin)
      c->umin = x;
    if (!c->have || x > c->umax)
      c->umax = x;
  } else {
    int64_t x = item_i64 (c, p);

    if (!c->have || x < c->imin)
      c->imin = x;
    if (!c->have || x > c->imax)
      c->imax = x;
  }
  c->have = 1;
}

static int
fmt_int (char *w, size_t cap, const pctx *c, const uint8_t *p)
{
  if (c->kind == TN_KIND_UINT) {
    return snprintf (
        w, cap, "%*llu", c->width, (unsigned long long) item_u64 (c, p));
  } else {
    int64_t x = item_i64 (c, p);

    return snprintf (w, cap, "%*lld", c->width, (long long) x);
  }
}

/* The quotient NumPy compares with 1000 is computed in the array's dtype:
 * the double quotient of two such items rounded once more to it. */
static double
ratio_in_dtype (double a, double b, tn_dtype t)
{
  double r = a / b;

  switch (t) {
  case TN_FLOAT32:
    return (double) (float) r;
  case TN_FLOAT16:
    return (double) tn_f16_to_f32 (tn_f64_to_f16 (r));
  case TN_BFLOAT16:
    return (double) tn_bf16_to_f32 (tn_f64_to_bf16 (r));
  default:
    return r;
  }
}

static void
scan_float_range (pctx *c, const uint8_t *p)
{
  double x = tn_get_f64 (p, c->v->dtype), ax = fabs (x);

  if (!isfinite (x)) {
    c->any_nonfinite = 1;
    if (isinf (x) && x < 0)
      c->any_neginf = 1;
    return;
  }
  c->any_finite = 1;
  if (ax == 0)
    return;
  if (!c->any_nonzero || ax > c->max_abs)
    c->max_abs = ax;
  if (!c->any_nonzero || ax < c->min_abs)
    c->min_abs = ax;
  c->any_nonzero = 1;
}

static void
scan_float_width (pctx *c, const uint8_t *p)
{
  double x = tn_get_f64 (p, c->v->dtype);
  tn_digits sd;

  if (!isfinite (x))
    return;
  item_digits (c, fabs (x), 1, &sd);
  if (c->sci) {
    char d[32];
    int e10, n = tn_digits_sci (fabs (x), &sd, d, &e10);
    int il = signbit (x) ? 2 : 1, ed = tn_digits_exp_width (e10);

    if (n - 1 > c->prec)
      c->prec = n - 1;
    if (il > c->pad_left)
      c->pad_left = il;
    if (ed > c->exp_size)
      c->exp_size = ed;
  } else {
    char s[TN_DIGITS_CHARS];
    int il, fl;

    tn_digits_positional (s, x, &sd, &il, &fl);
    if (il > c->pad_left)
      c->pad_left = il;
    if (fl > c->pad_right)
      c->pad_right = fl;
  }
}

static void
float_format_setup (pctx *c)
{
  c->any_finite = c->any_nonfinite = c->any_neginf = c->any_nonzero = 0;
  c->sci = c->prec = c->pad_left = c->pad_right = c->exp_size = 0;
  walk (c, 0, c->v->offset, scan_float_range);
  if (c->any_nonzero)
    c->sci = c->max_abs >= 1e8 || c->min_abs < 1e-4
             || ratio_in_dtype (c->max_abs, c->min_abs, c->v->dtype) > 1000.;
  if (c->any_finite) {
    walk (c, 0, c->v->offset, scan_float_width);
    if (c->sci)
      c->pad_right = c->exp_size + 2 + c->prec;
  }
  if (c->any_nonfinite) {
    int offset = c->pad_right + 1, inflen = 3 + c->any_neginf;

    if (3 - offset > c->pad_left)
      c->pad_left = 3 - offset;
    if (inflen - offset > c->pad_left)
      c->pad_left = inflen - offset;
  }
}

static int
fmt_float (char *w, pctx *c, const uint8_t *p)
{
  double x = tn_get_f64 (p, c->v->dtype);
  int len = 0, i;
  tn_digits sd;

  if (!isfinite (x)) {
    const char *s = isnan (x) ? "nan" : x < 0 ? "-inf" : "inf";
    int sl = (int) strlen (s), width = c->pad_left + c->pad_right + 1;

    for (i = sl; i < width; i++)
      w[len++] = ' ';
    memcpy (w + len, s, (size_t) sl + 1);
    return len + sl;
  }
  item_digits (c, fabs (x), 0, &sd);
  if (c->sci) {
    char d[32];
    double ax = fabs (x);
    int e10 = sd.e, n = sd.n;
    int il = signbit (x) ? 2 : 1;

    memcpy (d, sd.d, sizeof sd.d);
    /* the shortest digits when they are exactly P + 1 long (Dragon4 stops
     * there), else the exact value rounded to P + 1 digits */
    if (n != c->prec + 1)
      n = tn_digits_rounded (ax, c->prec, d, &e10);
    for (i = il; i < c->pad_left; i++)
      w[len++] = ' ';
    if (signbit (x))
      w[len++] = '-';
    w[len++] = d[0];
    w[len++] = '.';
    memcpy (w + len, d + 1, (size_t) n - 1);
    len += n - 1;
    len += sprintf (w + len, "e%c%0*d", e10 < 0 ? '-' : '+', c->exp_size,
        e10 < 0 ? -e10 : e10);
    return len;
  } else {
    char s[TN_DIGITS_CHARS];
    int il, fl;

    tn_digits_positional (s, x, &sd, &il, &fl);
    for (i = il; i < c->pad_left; i++)
      w[len++] = ' ';
    memcpy (w + len, s, strlen (s));
    len += (int) strlen (s);
    for (i = fl; i < c->pad_right; i++)
      w[len++] = ' ';
    w[len] = '\0';
    return len;
  }
}

/* Longest item: a padded positional float is at most 9 + 1 + 8 chars, a
 * scientific one 2 + 1 + 8 + 5, an int64 20. */
#define WORD_CHARS 64

static int
fmt_item (char *w, pctx *c, const uint8_t *p)
{
  switch (c->kind) {
  case TN_KIND_BOOL:
    /* NumPy pads True to the width of False, except in a rank-0 array */
    return snprintf (w, WORD_CHARS, "%s",
        *p ? (c->v->rank > 0 ? " True" : "True") : "False");
  case TN_KIND_FLOAT:
    return fmt_float (w, c, p);
  default:
    return fmt_int (w, WORD_CHARS, c, p);
  }
}

/* NumPy's _extendLine: wrap before a word that would pass the limit,
 * unless the line holds nothing but its indent. */
static void
put_word (pctx *c, const char *w, int wl, int64_t *col, int axis)
{
  int64_t indent = axis + 1, limit = c->linewidth - axis - 1;

  if (*col + wl > limit && *col > indent) {
    sb_rstrip (&c->out);
    sb_fill (&c->out, '\n', 1);
    sb_fill (&c->out, ' ', (size_t) indent);
    *col = indent;
  }
  sb_put (&c->out, w, (size_t) wl);
  *col += wl;
}

static void
emit (pctx *c, int axis, int64_t off)
{
  const tn_view *v = c->v;
  int rank = v->rank;
  int64_t k, n = c->shown[axis];
  int gap = c->lead[axis] < n;

  if (c->stopped)
    return;
  sb_fill (&c->out, '[', 1);
  if (axis == rank - 1) {
    char w[WORD_CHARS];
    int64_t col = axis + 1;

    for (k = 0; k < n && !stop_now (c); k++) {
      int64_t i = axis_index (c, axis, k);

      if (gap && k == c->lead[axis]) {
        put_word (c, "...", 3, &col, axis);
        sb_fill (&c->out, ' ', 1);
        col++;
      }
      put_word (c, w,
          fmt_item (
              w, c, c->base + (size_t) (off + i * v->strides[axis]) * c->isz),
          &col, axis);
      if (k + 1 < n) {
        sb_fill (&c->out, ' ', 1);
        col++;
      }
    }
  } else {
    size_t blank = (size_t) (rank - axis - 1);

    for (k = 0; k < n && !c->stopped; k++) {
      if (k > 0) {
        sb_fill (&c->out, '\n', blank);
        sb_fill (&c->out, ' ', (size_t) axis + 1);
      }
      if (gap && k == c->lead[axis]) {
        sb_put (&c->out, "...", 3);
        sb_fill (&c->out, '\n', blank);
        sb_fill (&c->out, ' ', (size_t) axis + 1);
      }
      emit (c, axis + 1, off + axis_index (c, axis, k) * v->strides[axis]);
    }
  }
  sb_fill (&c->out, ']', 1);
}

char *
tn_print_array (const void *base, const tn_view *v, const tn_print_opts *opts,
    size_t *len, tn_err *e)
{
  static const tn_print_opts defaults = TN_PRINT_OPTS_DEFAULT;
  pctx c;
  int64_t count;
  int i, summarise;
  locale_t old;
  tn_fpenv env;

  if (len)
    *len = 0;
  if (!opts)
    opts = &defaults;
  if (check_view (v, &count, e) < 0)
    return NULL;
  if (!base && count > 0) {
    tn_err_set (e, "The view has %lld items but no storage was given.",
        (long long) count);
    return NULL;
  }
  if (opts->threshold < 0 || opts->edgeitems < 1 || opts->linewidth < 1) {
    tn_err_set (e,
        "Print options threshold=%lld edgeitems=%lld "
        "linewidth=%lld are out of range: threshold must be >= 0, edgeitems "
        "and linewidth >= 1.",
        (long long) opts->threshold, (long long) opts->edgeitems,
        (long long) opts->linewidth);
    return NULL;
  }

  memset (&c, 0, sizeof c);
  c.base = base;
  c.v = v;
  c.kind = tn_dtype_kind (v->dtype);
  c.isz = tn_dtype_size (v->dtype);
  c.linewidth = opts->linewidth;
  c.cancel = opts->cancel;
  summarise = count > opts->threshold;
  for (i = 0; i < v->rank; i++) {
    /* 2 * edgeitems could overflow; compare by halves instead */
    if (summarise && v->dims[i] / 2 >= opts->edgeitems
        && v->dims[i] > 2 * opts->edgeitems) {
      c.shown[i] = 2 * opts->edgeitems;
      c.lead[i] = opts->edgeitems;
    } else {
      c.shown[i] = c.lead[i] = v->dims[i];
    }
  }

  /* The shortest digits and the scientific/positional choice compare
   * floats: they need IEEE subnormals (parallel.h). */
  env = tn_fpenv_enter ();
  old = c_locale_enter ();
  if (count == 0) {
    sb_put (&c.out, "[]", 2);
  } else {
    if (c.kind == TN_KIND_FLOAT) {
      size_t items = 1;

      for (i = 0; i < v->rank && items < CACHE_MAX_ITEMS; i++)
        items *= (size_t) c.shown[i];
      /* without the cache (no memory) the digits are just found twice */
      c.cache = malloc ((items < CACHE_MAX_ITEMS ? items : CACHE_MAX_ITEMS)
                        * sizeof *c.cache);
      float_format_setup (&c);
    } else if (c.kind != TN_KIND_BOOL) {
      char w[WORD_CHARS];

      walk (&c, 0, v->offset, scan_int);
      if (c.kind == TN_KIND_UINT) {
        c.width = snprintf (w, sizeof w, "%llu", (unsigned long long) c.umax);
      } else {
        int a = snprintf (w, sizeof w, "%lld", (long long) c.imin);
        int b = snprintf (w, sizeof w, "%lld", (long long) c.imax);

        c.width = a > b ? a : b;
      }
    }
    if (v->rank == 0) {
      char w[WORD_CHARS];

      sb_put (&c.out, w,
          (size_t) fmt_item (w, &c, c.base + (size_t) v->offset * c.isz));
    } else {
      emit (&c, 0, v->offset);
    }
  }
  c_locale_leave (old);
  tn_fpenv_leave (env);
  free (c.cache);

  if (c.stopped) {
    free (c.out.p);
    tn_err_set (e,
        "Printing cancelled after %zu bytes of the text of a tensor of %lld "
        "items.",
        c.out.len, (long long) count);
    return NULL;
  }
  if (c.out.oom) {
    free (c.out.p);
    tn_err_set (e,
        "Out of memory while printing a tensor of %lld items "
        "(%zu bytes of text written so far).",
        (long long) count, c.out.len);
    return NULL;
  }
  if (len)
    *len = c.out.len;
  return c.out.p;
}
