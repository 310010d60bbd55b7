/* Axis lists of reductions (reduce.h): "0,-1" parsed, formatted, and
 * resolved against a rank into a mask of axes. */
#include "reduce.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
