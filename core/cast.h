/* Casts between every pair of dtypes, defined for every value.
 *
 * float -> int truncates toward zero and saturates at the target's bounds;
 * NaN -> 0.  int -> int keeps the low bits (two's complement wrap, as C's
 * conversion to an unsigned type).  Anything -> bool is (x != 0), NaN gives
 * true.  bool -> anything is 0 or 1.  To float16/bfloat16 rounds once, to
 * nearest even. */
#ifndef TN_CAST_H
#define TN_CAST_H

#include "api.h"

#include <stddef.h>

#include "dtype.h"

/* n contiguous items; src and dst must not overlap unless equal and the
 * item sizes match. */
TN_API void tn_cast (
    void *dst, tn_dtype dt, const void *src, tn_dtype st, size_t n);

/* One item read as double (exact for every dtype but int64/uint64 beyond
 * 2^53), and one item written from double with the cast rules above. */
TN_API double tn_get_f64 (const void *p, tn_dtype t);
TN_API void tn_set_f64 (void *p, tn_dtype t, double v);

/* Formats one item as NumPy prints it (repr-like, shortest round trip for
 * floats: "1.5", "nan", "-inf", "True"); returns the length written. */
TN_API int tn_format_item (char *buf, size_t cap, const void *p, tn_dtype t);

#endif
