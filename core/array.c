#include "array.h"

#include <stdlib.h>
#include <string.h>

int
tn_array_init (
    tn_array *a, tn_dtype t, const int64_t *dims, int rank, tn_err *e)
{
  tn_view v;
  size_t n, cap;
  char sh[160];

  memset (a, 0, sizeof *a);
  if (tn_view_init (&v, t, dims, rank, e) < 0
      || tn_shape_nbytes (t, dims, rank, &n, e) < 0)
    return -1;
  /* aligned_alloc takes a multiple of the alignment; an empty array still
   * gets a pointer of its own. */
  cap = (n + TN_ARRAY_ALIGN) & ~(size_t) (TN_ARRAY_ALIGN - 1);
  if (cap < n || (a->data = aligned_alloc (TN_ARRAY_ALIGN, cap)) == NULL) {
    tn_shape_format (sh, sizeof sh, dims, rank);
    tn_err_set (e, "cannot allocate the %zu bytes of a %s array of dims %s", n,
        tn_dtype_name (t), sh);
    return -1;
  }
  memset (a->data, 0, n);
  a->view = v;
  return 0;
}

void
tn_array_clear (tn_array *a)
{
  if (a == NULL)
    return;
  free (a->data);
  memset (a, 0, sizeof *a);
}

size_t
tn_array_nbytes (const tn_array *a)
{
  size_t n;

  if (a->data == NULL
      || tn_shape_nbytes (a->view.dtype, a->view.dims, a->view.rank, &n, NULL)
             < 0)
    return 0;
  return n;
}
