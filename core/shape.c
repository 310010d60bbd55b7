#include "shape.h"

#include <stdio.h>
#include <string.h>

/* The product of the non-zero extents must fit in int64, as NumPy demands:
 * a zero extent must not hide a hostile shape, since row-major strides are
 * products of the extents that follow an axis whatever their count. */
int
tn_shape_count (const int64_t *dims, int rank, int64_t *count, tn_err *e)
{
  int64_t n = 1;
  bool empty = false;

  if (rank < 0 || rank > TN_MAX_RANK) {
    tn_err_set (e, "rank %d is out of range: a tensor has rank 0 to %d", rank,
        TN_MAX_RANK);
    return -1;
  }
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0) {
      tn_err_set (e, "axis %d has extent %lld; extents must be 0 or more", i,
          (long long) dims[i]);
      return -1;
    }
    if (dims[i] == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow (n, dims[i], &n)) {
      char s[160];

      tn_shape_format (s, sizeof s, dims, rank);
      tn_err_set (e,
          "dims %s hold too many items: the product of the extents "
          "overflows 64 bits at axis %d",
          s, i);
      return -1;
    }
  }
  if (count)
    *count = empty ? 0 : n;
  return 0;
}

int
tn_shape_nbytes (
    tn_dtype t, const int64_t *dims, int rank, size_t *nbytes, tn_err *e)
{
  int64_t count;
  size_t size, total;

  if (!tn_dtype_valid (t)) {
    tn_err_set (e, "dtype %d is not one of the %d dtypes (0 to %d)", (int) t,
        (int) TN_NDTYPES, (int) TN_NDTYPES - 1);
    return -1;
  }
  if (tn_shape_count (dims, rank, &count, e) < 0)
    return -1;
  size = tn_dtype_size (t);
  if ((uint64_t) count > SIZE_MAX
      || __builtin_mul_overflow ((size_t) count, size, &total)) {
    char s[160];

    tn_shape_format (s, sizeof s, dims, rank);
    tn_err_set (e,
        "dims %s of %s hold %lld items of %zu bytes, more bytes than "
        "a size_t can count",
        s, tn_dtype_name (t), (long long) count, size);
    return -1;
  }
  if (nbytes)
    *nbytes = total;
  return 0;
}

/* Zero extents count as 1, as in NumPy, so the strides stay those of the
 * non-empty shape; tn_shape_count bounds these products. */
void
tn_shape_strides (int64_t *strides, const int64_t *dims, int rank)
{
  int64_t s = 1;

  for (int i = rank - 1; i >= 0; i--) {
    strides[i] = s;
    if (dims[i] > 1 && __builtin_mul_overflow (s, dims[i], &s))
      s = INT64_MAX;
  }
}

/* Returns the length of the whole text, like snprintf, so a caller can
 * tell that it was truncated. */
int
tn_shape_format (char *buf, size_t cap, const int64_t *dims, int rank)
{
  size_t len = 0;
  char item[32];

  if (cap)
    buf[0] = '\0';
  for (int i = -1; i <= rank; i++) {
    int n;

    if (i < 0)
      n = snprintf (item, sizeof item, "<");
    else if (i == rank)
      n = snprintf (item, sizeof item, ">");
    else
      n = snprintf (
          item, sizeof item, "%s%lld", i ? ", " : "", (long long) dims[i]);
    if (cap && len + 1 < cap) {
      size_t room = cap - 1 - len;
      size_t k = (size_t) n < room ? (size_t) n : room;

      memcpy (buf + len, item, k);
      buf[len + k] = '\0';
    }
    len += (size_t) n;
  }
  return (int) len;
}

int
tn_shape_broadcast (int64_t *out, int *out_rank, const int64_t *a, int ra,
    const int64_t *b, int rb, tn_err *e)
{
  int64_t res[TN_MAX_RANK];
  int r;

  if (tn_shape_count (a, ra, NULL, e) < 0
      || tn_shape_count (b, rb, NULL, e) < 0)
    return -1;
  r = ra > rb ? ra : rb;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - ra), ib = i - (r - rb);
    int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;

    if (x != y && x != 1 && y != 1) {
      char sa[160], sb[160];

      tn_shape_format (sa, sizeof sa, a, ra);
      tn_shape_format (sb, sizeof sb, b, rb);
      tn_err_set (e,
          "dims %s and %s do not broadcast: axis %d has %lld against %lld "
          "and neither is 1",
          sa, sb, i, (long long) x, (long long) y);
      return -1;
    }
    res[i] = x == 1 ? y : x;
  }
  /* Both inputs fit, their combination need not: <2^40, 1> with <2^40>. */
  if (tn_shape_count (res, r, NULL, e) < 0)
    return -1;
  memcpy (out, res, sizeof res[0] * r);
  *out_rank = r;
  return 0;
}
