/* NumPy-style text of a strided tensor, and its summary statistics.
 *
 * tn_print_array writes what numpy.array2string writes with the default
 * print options (precision 8, floatmode "maxprec", no suppress, sign '-',
 * separator ' ', linewidth 75): nested brackets, items aligned to a common
 * width, long rows wrapped, and past `threshold` items only `edgeitems`
 * at each end of every axis with "..." between.  float16 and float32 print
 * with their own shortest digits, as NumPy does; bfloat16 (which NumPy
 * lacks) prints the same way with its own 8-bit precision.
 *
 * Differences from NumPy: none known.  The shortest digits come from the C
 * library's correctly rounded printf/strtod instead of Dragon4; checked
 * against NumPy 1.24 for every float16 value, every float32/float64 power
 * of two, 50000 random float32/float64 bit patterns, 110000 values next to
 * a short decimal midpoint and 13000 random arrays (shapes, summaries,
 * line widths): no difference.  bfloat16 cannot be compared (hand-checked
 * cases in tests/core/test_print.c).
 * edgeitems must be >= 1 (NumPy's 0 shows whole axes by a slicing quirk). */
#ifndef TN_PRINT_H
#define TN_PRINT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

typedef struct {
  int64_t threshold; /* summarise when the item count exceeds this, >= 0 */
  int64_t edgeitems; /* items kept at each end of a summarised axis, >= 1 */
  int64_t linewidth; /* characters per line before a row wraps, >= 1 */
  /* When not NULL, looked at once per printed item: nonzero stops the
   * call, which returns NULL with a message.  A streaming thread sets it
   * when its pad flushes, so a print of many items cannot hold up a
   * seek or a state change. */
  const atomic_int *cancel;
} tn_print_opts;

/* NumPy's defaults, never cancelled. */
#define TN_PRINT_OPTS_DEFAULT                                                  \
  {                                                                            \
    1000, 3, 75, NULL                                                          \
  }

/* The items of v over storage base as NumPy prints them, in a malloc'd
 * NUL-terminated string the caller frees (length in *len when len is not
 * NULL).  v must already have been checked against its storage
 * (tn_view_check); opts may be NULL for the defaults.  NULL with a message
 * on an invalid view or options, or when memory runs out. */
char *tn_print_array (const void *base, const tn_view *v,
    const tn_print_opts *opts, size_t *len, tn_err *e);

typedef struct {
  tn_dtype dtype;
  int64_t count;     /* items in the view */
  int64_t nan_count; /* NaN items; they are left out of min, max and mean */
  int64_t valid;     /* count - nan_count: the items min/max/mean cover */
  double min, max;   /* as doubles (inexact for 64-bit ints beyond 2^53) */
  double mean;       /* summed in double; NaN when valid is 0 */
  /* The smallest and largest items themselves, in dtype's storage (so
   * 64-bit ints stay exact); meaningless when valid is 0. */
  unsigned char min_item[8], max_item[8];
} tn_stats;

/* One pass over the distinct items of v: an odometer over the outer axes
 * and a tight strided loop over the innermost one, skipping axes of
 * stride 0 (a broadcast repeats the same items) and of extent 1.  So a
 * broadcast of n items to 2^62 costs n reads.  Every distinct item is
 * repeated equally often, so what holds exactly: count is the view's,
 * min and max are those of the distinct items, nan_count is theirs times
 * the repeat factor; the mean is the same quantity, computed as the mean
 * of the distinct items (it may differ in the last bits from a sum over
 * every repeat, which is no more exact).  -1 with a message on an
 * invalid view. */
int tn_stats_compute (
    tn_stats *s, const void *base, const tn_view *v, tn_err *e);
/* The same, looking at *cancel (when not NULL) every 4096 items: nonzero
 * stops it with -1, a message, and s holding only dtype and count (NaN
 * min/max/mean).  Views whose non-zero strides overlap (<N, N> with
 * strides <1, 1>) have up to 2^63 items over little storage: this is
 * what bounds them. */
int tn_stats_compute_cancellable (tn_stats *s, const void *base,
    const tn_view *v, const atomic_int *cancel, tn_err *e);
/* "min=0.0 max=5.0 mean=2.5 nan=0" (items as tn_format_item writes them,
 * the mean as a float64), "min=nan max=nan mean=nan nan=6" when every item
 * is NaN, and "no items" for an empty view.  Returns the length it needed,
 * as snprintf does. */
int tn_stats_format (char *buf, size_t cap, const tn_stats *s);

#endif
