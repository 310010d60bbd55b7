/* Shapes: item counts and byte sizes with overflow checks, row-major
 * strides. Dims are outermost first; rank 0..TN_MAX_RANK; extents >= 0. */
#ifndef TN_SHAPE_H
#define TN_SHAPE_H

#include "api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* Checks rank and extents (0 <= extent) and that the product fits in
 * int64; -1 with a message naming the axis otherwise. */
TN_API int tn_shape_count (
    const int64_t *dims, int rank, int64_t *count, tn_err *e);
/* count * itemsize, checked against SIZE_MAX as well. */
TN_API int tn_shape_nbytes (
    tn_dtype t, const int64_t *dims, int rank, size_t *nbytes, tn_err *e);
/* Dense row-major strides, in items. */
TN_API void tn_shape_strides (int64_t *strides, const int64_t *dims, int rank);
/* "<2, 3>" into buf (NUL-terminated, truncated to cap). */
TN_API int tn_shape_format (
    char *buf, size_t cap, const int64_t *dims, int rank);
/* NumPy broadcasting of two shapes into out; -1 with
 * "dims <2, 3> and <2> do not broadcast: axis 1 has 3 against 2 and
 * neither is 1". */
TN_API int tn_shape_broadcast (int64_t *out, int *out_rank, const int64_t *a,
    int ra, const int64_t *b, int rb, tn_err *e);

#endif
