/* tn_view_copy_to: a view copied into a strided destination (the slab of
 * one input in the output of tensorstack and tensorconcat), checked item
 * by item against a naive unravel, with every byte the destination does
 * not own left as it was. */
#include <glib.h>
#include <string.h>

#include "core/view.h"

static const tn_dtype by_size[] = { TN_UINT8, TN_UINT16, TN_UINT32, TN_UINT64 };

/* Item j of v (row-major order) lives at src items, goes to dst items. */
static void
unravel (const tn_view *v, const int64_t *dstride, int64_t j, int64_t *src,
    int64_t *dst)
{
  *src = v->offset;
  *dst = 0;
  for (int i = v->rank - 1; i >= 0; i--) {
    *src += (j % v->dims[i]) * v->strides[i];
    *dst += (j % v->dims[i]) * dstride[i];
    j /= v->dims[i];
  }
}

/* Copies v into a destination of dst_n items, starting at item doff,
 * at dstride, and checks every byte of the destination. */
static void
check (const tn_view *v, const int64_t *dstride, int64_t doff, int64_t dst_n)
{
  size_t isz = tn_dtype_size (v->dtype);
  int64_t n = tn_view_count (v), reach = v->offset;

  guint8 *storage, *dst, *want;

  for (int i = 0; i < v->rank; i++)
    reach += (v->dims[i] - 1) * v->strides[i];
  storage = g_malloc ((reach + 1) * isz);
  for (int64_t b = 0; b < (reach + 1) * (int64_t) isz; b++)
    storage[b] = (guint8) (b * 7 + b / 251);
  dst = g_malloc (dst_n * isz);
  want = g_malloc (dst_n * isz);
  memset (dst, 0xcd, dst_n * isz);
  memset (want, 0xcd, dst_n * isz);
  for (int64_t j = 0; j < n; j++) {
    int64_t s, d;

    unravel (v, dstride, j, &s, &d);
    d += doff;
    g_assert_cmpint (d, <, dst_n);
    memcpy (want + d * isz, storage + s * isz, isz);
  }
  tn_view_copy_to (dst + doff * isz, dstride, storage, v);
  g_assert_cmpint (memcmp (dst, want, dst_n * isz), ==, 0);
  g_free (storage);
  g_free (dst);
  g_free (want);
}

/* The slab of input i of k stacked along axis: destination strides of
 * the output <dims[..axis], k, dims[axis..]> without axis. */
static int64_t
stack_strides (
    const tn_view *v, int axis, int k, int i, int64_t *dstride, int64_t *offset)
{
  int64_t out[TN_MAX_RANK + 1], st = 1;
  int r = v->rank + 1;

  for (int a = 0, b = 0; a < r; a++)
    out[a] = a == axis ? k : v->dims[b++];
  for (int a = r - 1; a >= 0; a--) {
    int64_t e = out[a];

    if (a == axis)
      *offset = i * st;
    else
      dstride[a < axis ? a : a - 1] = st;
    st *= e;
  }
  return st; /* items of the output */
}

static void
test_stack_slabs (void)
{
  static const int64_t shapes[][3]
      = { { 4, 5, 3 }, { 1, 7, 1 }, { 33, 2, 9 }, { 2, 64, 3 } };

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++)
    for (size_t c = 0; c < G_N_ELEMENTS (shapes); c++)
      for (int axis = 0; axis <= 3; axis++)
        for (int k = 2; k <= 5; k += 3) {
          tn_view v;
          tn_err e;
          int64_t dstride[3], offset = 0, n;

          g_assert_cmpint (
              tn_view_init (&v, by_size[s], shapes[c], 3, &e), ==, 0);
          for (int view = 0; view < 3; view++) {
            tn_view w = v;

            if (view == 1) /* a transposed input */
              g_assert_cmpint (tn_view_transpose (&w, &e), ==, 0);
            if (view == 2) /* every other item of the last axis */
              g_assert_cmpint (
                  tn_view_slice (&w, -1, 0, w.dims[2], 2, &e), ==, 0);
            for (int i = 0; i < k; i += k - 1) {
              n = stack_strides (&w, axis, k, i, dstride, &offset);
              check (&w, dstride, offset, n);
            }
          }
        }
}

/* Concatenation slabs: the destination is a longer axis; plus a
 * destination laid out in another axis order (a permuted output). */
static void
test_concat_and_permuted (void)
{
  static const int64_t dims[3] = { 3, 4, 5 };

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++)
    for (int axis = 0; axis < 3; axis++)
      for (int view = 0; view < 2; view++) {
        tn_view v;
        tn_err e;
        int64_t out[3], dstride[3], st = 1;

        g_assert_cmpint (tn_view_init (&v, by_size[s], dims, 3, &e), ==, 0);
        if (view) /* a transposed input */
          g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
        memcpy (out, v.dims, sizeof out);
        out[axis] += 6; /* another input of 6 along axis comes first */
        for (int a = 2; a >= 0; a--) {
          dstride[a] = st;
          st *= out[a];
        }
        check (&v, dstride, 6 * dstride[axis], st);
      }
  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    tn_view v;
    tn_err e;
    /* <3,4,5> written as the <5,3,4> tensor's transpose (2,0,1) */
    const int64_t permuted[3] = { 4, 1, 12 };

    g_assert_cmpint (tn_view_init (&v, by_size[s], dims, 3, &e), ==, 0);
    check (&v, permuted, 0, 60);
    /* a broadcast source: stride 0 */
    v.strides[1] = 0;
    check (&v, permuted, 0, 60);
  }
}

/* A dense destination gives tn_view_materialize's bytes. */
static void
test_dense_is_materialize (void)
{
  const int64_t dims[4] = { 2, 3, 4, 5 };
  tn_view v;
  tn_err e;
  guint8 st[120 * 8], a[120 * 8], b[120 * 8];
  const int perm[4] = { 3, 1, 0, 2 };

  for (size_t i = 0; i < sizeof st; i++)
    st[i] = (guint8) (i * 13);
  g_assert_cmpint (tn_view_init (&v, TN_UINT16, dims, 4, &e), ==, 0);
  g_assert_cmpint (tn_view_permute (&v, perm, 4, &e), ==, 0);
  memset (a, 0, sizeof a);
  memset (b, 1, sizeof b);
  tn_view_materialize (a, st, &v);
  {
    /* v's dims are now <5,3,2,4>: its dense strides */
    const int64_t ds[4] = { 24, 8, 4, 1 };

    tn_view_copy_to (b, ds, st, &v);
  }
  g_assert_cmpint (memcmp (a, b, 120 * 2), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view/copy-to/stack-slabs", test_stack_slabs);
  g_test_add_func ("/view/copy-to/concat-permuted", test_concat_and_permuted);
  g_test_add_func ("/view/copy-to/dense", test_dense_is_materialize);
  return g_test_run ();
}
