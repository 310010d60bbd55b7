/* What a reduction computes (reduce.h): its names, result dtypes and
 * shapes; and axis lists, "0,-1" parsed, formatted, and resolved against
 * a rank into a mask of axes. */
#include "reduce.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
is_float (tn_dtype t)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT;
}

static const char *const op_names[TN_REDUCE_NOPS] = { "sum", "mean", "prod",
  "min", "max", "argmin", "argmax", "l2", "var", "std" };

const char *
tn_reduce_op_name (tn_reduce_op op)
{
  return (unsigned) op < TN_REDUCE_NOPS ? op_names[op] : NULL;
}

int
tn_reduce_op_from_name (const char *name, tn_reduce_op *op, tn_err *e)
{
  for (int i = 0; i < TN_REDUCE_NOPS; i++) {
    if (name && strcmp (name, op_names[i]) == 0) {
      *op = (tn_reduce_op) i;
      return 0;
    }
  }
  tn_err_set (e,
      "'%s' is not a reduction; expected one of sum, mean, prod, min, max, "
      "argmin, argmax, l2, var, std.",
      name ? name : "(null)");
  return -1;
}

tn_dtype
tn_reduce_dtype (tn_reduce_op op, tn_dtype t)
{
  switch (op) {
  case TN_REDUCE_SUM:
  case TN_REDUCE_PROD:
    if (t == TN_FLOAT16 || t == TN_BFLOAT16)
      return TN_FLOAT32;
    if (is_float (t))
      return t;
    return tn_dtype_kind (t) == TN_KIND_UINT ? TN_UINT64 : TN_INT64;
  case TN_REDUCE_MEAN:
  case TN_REDUCE_L2:
  case TN_REDUCE_VAR:
  case TN_REDUCE_STD:
    return is_float (t) ? t : TN_FLOAT64;
  case TN_REDUCE_ARGMIN:
  case TN_REDUCE_ARGMAX:
    return TN_INT64;
  default:
    return t;
  }
}

bool
tn_reduce_has_identity (tn_reduce_op op)
{
  return op == TN_REDUCE_SUM || op == TN_REDUCE_PROD || op == TN_REDUCE_L2;
}

int
tn_reduce_shape (tn_reduce_op op, const int64_t *dims, int rank, uint32_t mask,
    bool keepdims, int64_t *out, int *out_rank, tn_err *e)
{
  int r = 0;

  if ((unsigned) op >= TN_REDUCE_NOPS) {
    tn_err_set (e, "reduction %d is not one of the %d reductions.", (int) op,
        TN_REDUCE_NOPS);
    return -1;
  }
  if (rank < 0 || rank > TN_MAX_RANK) {
    tn_err_set (e, "rank %d is outside 0..%d.", rank, TN_MAX_RANK);
    return -1;
  }
  if (rank < 32 && (mask >> rank) != 0) {
    tn_err_set (e, "the axes mask 0x%x names axes beyond rank %d.", mask, rank);
    return -1;
  }
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) {
      tn_err_set (e, "axis %d has extent %lld; extents must be >= 0.", i,
          (long long) dims[i]);
      return -1;
    }
    if ((mask & (1u << i)) && dims[i] == 0 && !tn_reduce_has_identity (op)) {
      char shape[TN_MAX_RANK * 22 + 8];

      tn_shape_format (shape, sizeof shape, dims, rank);
      tn_err_set (e,
          "%s over axis %d of extent 0 has no value: the axis holds no items "
          "(dims %s); only sum, prod and l2 reduce an empty axis.",
          op_names[op], i, shape);
      return -1;
    }
  }
  for (int i = 0; i < rank; i++) {
    if (!(mask & (1u << i)))
      out[r++] = dims[i];
    else if (keepdims)
      out[r++] = 1;
  }
  *out_rank = r;
  return 0;
}

int
tn_axes_parse (tn_axes *a, const char *s, tn_err *e)
{
  tn_axes r = { 0, { 0 } };
  const char *p = s ? s : "";
  int entry = 0;

  while (isspace ((unsigned char) *p))
    p++;
  if (*p == '\0') {
    *a = r;
    return 0;
  }
  for (;;) {
    const char *start;
    char *end;
    long v;

    entry++;
    while (isspace ((unsigned char) *p))
      p++;
    start = p;
    errno = 0;
    v = strtol (p, &end, 10);
    if (end == p || errno != 0) {
      int len = (int) strcspn (start, ",");

      tn_err_set (e,
          "axes '%s' is not a comma-separated list of integers: entry %d is "
          "'%.*s'.",
          s, entry, len, start);
      return -1;
    }
    p = end;
    while (isspace ((unsigned char) *p))
      p++;
    if (*p != ',' && *p != '\0') {
      int len = (int) strcspn (start, ",");

      tn_err_set (e,
          "axes '%s' is not a comma-separated list of integers: entry %d is "
          "'%.*s'.",
          s, entry, len, start);
      return -1;
    }
    if (v < -TN_MAX_RANK || v >= TN_MAX_RANK) {
      tn_err_set (e,
          "axes '%s': entry %d is axis %ld, outside -%d..%d (a tensor has at "
          "most %d axes).",
          s, entry, v, TN_MAX_RANK, TN_MAX_RANK - 1, TN_MAX_RANK);
      return -1;
    }
    if (r.n == TN_MAX_RANK) {
      tn_err_set (e,
          "axes '%s' has more than %d entries; a tensor has at most "
          "%d axes.",
          s, TN_MAX_RANK, TN_MAX_RANK);
      return -1;
    }
    r.axes[r.n++] = (int) v;
    if (*p == '\0')
      break;
    p++; /* the comma */
  }
  *a = r;
  return 0;
}

int
tn_axes_format (char *buf, size_t cap, const tn_axes *a)
{
  size_t len = 0;

  if (cap > 0)
    buf[0] = '\0';
  for (int i = 0; i < a->n; i++) {
    int k = snprintf (len < cap ? buf + len : NULL, len < cap ? cap - len : 0,
        "%s%d", i ? "," : "", a->axes[i]);

    len += (size_t) k;
  }
  return (int) len;
}

int
tn_axes_mask (const tn_axes *a, int rank, uint32_t *mask, tn_err *e)
{
  uint32_t m = 0;
  int given[TN_MAX_RANK];

  if (rank < 0 || rank > TN_MAX_RANK) {
    tn_err_set (e, "rank %d is outside 0..%d.", rank, TN_MAX_RANK);
    return -1;
  }
  if (a->n == 0) {
    *mask = rank ? (uint32_t) ((1u << rank) - 1) : 0;
    return 0;
  }
  for (int i = 0; i < a->n; i++) {
    int ax = a->axes[i], k = ax < 0 ? ax + rank : ax;

    if (k < 0 || k >= rank) {
      if (rank == 0)
        tn_err_set (e,
            "axis %d is out of range for rank 0: a scalar has no axes (leave "
            "axes empty to reduce it).",
            ax);
      else
        tn_err_set (e,
            "axis %d is out of range for rank %d: valid axes are %d..%d.", ax,
            rank, -rank, rank - 1);
      return -1;
    }
    if (m & (1u << k)) {
      tn_err_set (e, "axis %d is given twice for rank %d (as %d and %d).", k,
          rank, given[k], ax);
      return -1;
    }
    m |= 1u << k;
    given[k] = ax;
  }
  *mask = m;
  return 0;
}
