/* Views: flat storage plus an interpretation.
 *   item address = offset + sum(index[i] * strides[i])   (in items)
 * Strides are >= 0.  No view operation copies. */
#ifndef TN_VIEW_H
#define TN_VIEW_H

#include "api.h"

#include "shape.h"

typedef struct {
  tn_dtype dtype;
  int rank;
  int64_t dims[TN_MAX_RANK];
  int64_t strides[TN_MAX_RANK];
  int64_t offset;
} tn_view;

/* A dense row-major view of a new tensor (offset 0). */
TN_API int tn_view_init (
    tn_view *v, tn_dtype t, const int64_t *dims, int rank, tn_err *e);
TN_API int64_t tn_view_count (const tn_view *v);
/* Strides are exactly row-major (axes of extent 1 match any stride; a view
 * with no items is dense).  The license to treat memory as a flat slice
 * starting at offset. */
TN_API bool tn_view_dense (const tn_view *v);
/* The largest reachable item index, offset + sum((dims-1)*strides), must
 * be < storage_items; computed with overflow checks.  A view with no
 * items only needs offset <= storage_items. */
TN_API int tn_view_check (const tn_view *v, int64_t storage_items, tn_err *e);

/* In every operation a negative axis counts from the end (-1 is the last).
 * On failure *v is left unchanged. */
TN_API int tn_view_permute (tn_view *v, const int *axes, int naxes, tn_err *e);
TN_API int tn_view_transpose (tn_view *v, tn_err *e); /* swap the last two axes */
/* Python slice semantics: negative start/stop count from the end, out of
 * range values clamp; step >= 1. */
TN_API int tn_view_slice (
    tn_view *v, int axis, int64_t start, int64_t stop, int64_t step, tn_err *e);
/* Picks one index (negative counts from the end) and drops the axis. */
TN_API int tn_view_select (tn_view *v, int axis, int64_t index, tn_err *e);
/* Dense views only (otherwise an error that says a copy is needed first);
 * one extent may be -1 (inferred). */
TN_API int tn_view_reshape (tn_view *v, const int64_t *dims, int rank, tn_err *e);
/* Inserts an axis of extent 1 at axis (0..rank; negative: -1 appends). */
TN_API int tn_view_expand (tn_view *v, int axis, tn_err *e);
/* Removes an axis of extent 1. */
TN_API int tn_view_squeeze (tn_view *v, int axis, tn_err *e);
/* NumPy broadcast_to: stride 0 on new and stretched axes. */
TN_API int tn_view_broadcast (tn_view *v, const int64_t *dims, int rank, tn_err *e);

/* Copies the items of v (over storage base) densely, row-major, into dst.
 * Moves the longest contiguous suffix of axes as memcpy runs and walks the
 * outer axes like an odometer. */
TN_API void tn_view_materialize (void *dst, const void *base, const tn_view *v);
/* The same copy into a destination that is itself strided: item idx of
 * v goes to dst + sum(idx[i] * dst_strides[i]) items (one stride per
 * axis of v, >= 0, no two items on one place).  What tensorstack and
 * tensorconcat write each input with: the input's slab of the output. */
TN_API void tn_view_copy_to (
    void *dst, const int64_t *dst_strides, const void *base, const tn_view *v);

/* Reversing an axis.  Strides stay >= 0 (a negative stride would reach
 * every reader of the layout meta and every kernel's index arithmetic;
 * see docs/design-notes.md), so a reversed axis is never a view: it is
 * carried as a bit in a mask beside a view (bit i: axis i is read from
 * its last item to its first) and made real by one copy.
 *
 * The bits of flip that reverse anything: axes of 2 items or more and a
 * stride other than 0 (0 when v holds no items). */
TN_API uint32_t tn_view_flip_mask (const tn_view *v, uint32_t flip);
/* As tn_view_materialize, the axes of flip reversed: item (i0, i1, ...)
 * of dst is the item of v with index dims[a] - 1 - ia on each reversed
 * axis a.  The source is read forwards: an outer axis reversed moves
 * whole contiguous rows by memcpy; the last axis reversed, small groups
 * (RGB <-> BGR) and mirrored pixels take tight loops. */
TN_API void tn_view_materialize_flip (
    void *dst, const void *base, const tn_view *v, uint32_t flip);

#endif
