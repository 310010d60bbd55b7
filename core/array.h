/* tn_array: the one tensor type in core that owns its items. */
#ifndef TN_ARRAY_H
#define TN_ARRAY_H

#include "api.h"

#include "view.h"

/* The items start on a cache line, which any vector load can use. */
#define TN_ARRAY_ALIGN 64

/* Dense row-major items in native byte order, owned by the array.  The
 * view is dense at offset 0, so a kernel that takes a (view, base) pair
 * takes (&a->view, a->data).  A zeroed tn_array is empty (data NULL); an
 * empty array may be cleared again. */
typedef struct {
  tn_view view;
  void *data; /* TN_ARRAY_ALIGN-aligned; at least one byte when set */
} tn_array;

/* An array of dtype t and dims with every item zero.  -1 (a left empty)
 * with a message for an invalid dtype or shape, or when the memory cannot
 * be had. */
TN_API int tn_array_init (
    tn_array *a, tn_dtype t, const int64_t *dims, int rank, tn_err *e);
/* Frees the items; a is empty afterwards. */
TN_API void tn_array_clear (tn_array *a);
/* The bytes of the items, count * item size (0 for an empty array). */
TN_API size_t tn_array_nbytes (const tn_array *a);

#endif
