/* core/view.c: view operations, their error paths, tn_view_check and
 * tn_view_materialize. Chains of operations are checked against NumPy
 * (view_golden.h, from tests/data/gen_views.py); the rest against
 * hand-computed values or a naive per-item reference.  The copies that
 * take the kernels of core/view-kern.c are checked under each CPU mask
 * the CPU allows against NumPy (tests/data/view_*.npy, from
 * tests/data/gen_view_kern.py) and the reference, over storage that ends
 * exactly where the view does; the portable kernels alone against their
 * definition (checkasm holds the others to their bits). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/view-kern.h"
#include "core/view-parse.h"
#include "core/view.h"
#include "tests/common/npyread.h"
#include "view_golden.h"

#define P62 ((int64_t) 1 << 62)

static void
expect_msg (const tn_err *e, const char *want)
{
  g_assert_cmpstr (e->msg, ==, want);
}

static void
expect_dims (const tn_view *v, const int64_t *dims, int rank)
{
  g_assert_cmpint (v->rank, ==, rank);
  for (int i = 0; i < rank; i++)
    g_assert_cmpint (v->dims[i], ==, dims[i]);
}

static void
expect_strides (const tn_view *v, const int64_t *strides)
{
  for (int i = 0; i < v->rank; i++)
    g_assert_cmpint (v->strides[i], ==, strides[i]);
}

static tn_view
make (tn_dtype t, const int64_t *dims, int rank)
{
  tn_view v;
  tn_err e;

  g_assert_cmpint (tn_view_init (&v, t, dims, rank, &e), ==, 0);
  return v;
}

/* A failing operation leaves the view exactly as it was. */
#define EXPECT_FAIL(v, call)                                                   \
  G_STMT_START                                                                 \
  {                                                                            \
    tn_view before_ = *(v);                                                    \
    g_assert_cmpint (call, ==, -1);                                            \
    g_assert_cmpint (memcmp (&before_, (v), sizeof before_), ==, 0);           \
  }                                                                            \
  G_STMT_END

static void
test_init (void)
{
  const int64_t d[] = { 2, 3, 4 }, st[] = { 12, 4, 1 };
  tn_view v;
  tn_err e;

  memset (&v, 0x5a, sizeof v);
  g_assert_cmpint (tn_view_init (&v, TN_FLOAT32, d, 3, &e), ==, 0);
  g_assert_cmpint (v.dtype, ==, TN_FLOAT32);
  expect_dims (&v, d, 3);
  expect_strides (&v, st);
  g_assert_cmpint (v.offset, ==, 0);
  for (int i = 3; i < TN_MAX_RANK; i++) {
    g_assert_cmpint (v.dims[i], ==, 0);
    g_assert_cmpint (v.strides[i], ==, 0);
  }
  g_assert_cmpint (tn_view_init (&v, TN_BOOL, NULL, 0, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 0);
  g_assert_cmpint (tn_view_count (&v), ==, 1);
}

static void
test_init_errors (void)
{
  const int64_t d[] = { 2, 3 }, neg[] = { 2, -4 }, big[] = { P62, 2 };
  tn_view v;
  tn_err e;

  v = make (TN_INT8, d, 2);
  EXPECT_FAIL (&v, tn_view_init (&v, TN_NDTYPES, d, 2, &e));
  expect_msg (&e, "dtype 13 is not one of the 13 dtypes (0 to 12)");
  EXPECT_FAIL (&v, tn_view_init (&v, TN_INT8, d, 9, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
  EXPECT_FAIL (&v, tn_view_init (&v, TN_INT8, d, -1, &e));
  expect_msg (&e, "rank -1 is out of range: a tensor has rank 0 to 8");
  EXPECT_FAIL (&v, tn_view_init (&v, TN_INT8, neg, 2, &e));
  expect_msg (&e, "axis 1 has extent -4; extents must be 0 or more");
  EXPECT_FAIL (&v, tn_view_init (&v, TN_INT8, big, 2, &e));
  expect_msg (&e, "dims <4611686018427387904, 2> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 1");
  EXPECT_FAIL (&v, tn_view_init (&v, TN_INT8, big, 2, NULL));
}

static void
test_count (void)
{
  const int64_t d[] = { 2, 3, 4 }, z[] = { 3, 0, 4 };
  tn_view v;

  v = make (TN_UINT16, d, 3);
  g_assert_cmpint (tn_view_count (&v), ==, 24);
  v = make (TN_UINT16, z, 3);
  g_assert_cmpint (tn_view_count (&v), ==, 0);
  v = make (TN_UINT16, NULL, 0);
  g_assert_cmpint (tn_view_count (&v), ==, 1);
  /* An invalid view counts -1. */
  v = make (TN_UINT16, d, 3);
  v.dims[1] = -3;
  g_assert_cmpint (tn_view_count (&v), ==, -1);
  v.dims[1] = INT64_MAX;
  g_assert_cmpint (tn_view_count (&v), ==, -1);
  v.rank = 9;
  g_assert_cmpint (tn_view_count (&v), ==, -1);
}

static void
test_dense (void)
{
  const int64_t d[] = { 2, 3, 4 }, z[] = { 2, 0, 4 };
  tn_view v;
  tn_err e;

  v = make (TN_FLOAT32, d, 3);
  g_assert_true (tn_view_dense (&v));
  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  g_assert_false (tn_view_dense (&v));
  /* An axis of extent 1 matches any stride. */
  v = make (TN_FLOAT32, d, 3);
  g_assert_cmpint (tn_view_slice (&v, 1, 2, 3, 1, &e), ==, 0);
  g_assert_false (tn_view_dense (&v)); /* <2, 1, 4> strides <12, 4, 1> */
  v = make (TN_FLOAT32, d, 3);
  g_assert_cmpint (tn_view_slice (&v, 0, 1, 2, 1, &e), ==, 0);
  g_assert_true (tn_view_dense (&v)); /* <1, 3, 4> at offset 12 */
  g_assert_cmpint (v.offset, ==, 12);
  v.strides[0] = 999;
  g_assert_true (tn_view_dense (&v));
  v.strides[2] = 2;
  g_assert_false (tn_view_dense (&v));
  /* Step slices and broadcasts are not dense. */
  v = make (TN_FLOAT32, d, 3);
  g_assert_cmpint (tn_view_slice (&v, 2, 0, 4, 2, &e), ==, 0);
  g_assert_false (tn_view_dense (&v));
  v = make (TN_FLOAT32, d, 3);
  g_assert_cmpint (tn_view_expand (&v, 0, &e), ==, 0);
  g_assert_true (tn_view_dense (&v));
  {
    const int64_t to[] = { 5, 2, 3, 4 };

    g_assert_cmpint (tn_view_broadcast (&v, to, 4, &e), ==, 0);
    g_assert_false (tn_view_dense (&v));
  }
  /* No items: dense whatever the strides. */
  v = make (TN_FLOAT32, z, 3);
  v.strides[0] = 7;
  v.strides[2] = 3;
  g_assert_true (tn_view_dense (&v));
  v = make (TN_FLOAT32, NULL, 0);
  g_assert_true (tn_view_dense (&v));
  v = make (TN_FLOAT32, d, 3);
  v.dims[0] = -1;
  g_assert_false (tn_view_dense (&v));
}

static void
test_check (void)
{
  const int64_t d[] = { 2, 3 }, z[] = { 2, 0 };
  tn_view v;
  tn_err e;

  v = make (TN_INT32, d, 2);
  g_assert_cmpint (tn_view_check (&v, 6, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 1000, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 5, &e), ==, -1);
  expect_msg (&e, "view <2, 3> with strides <3, 1> at offset 0 reaches item "
                  "5, but the storage holds 5 items");
  v.offset = 4;
  g_assert_cmpint (tn_view_check (&v, 10, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 9, &e), ==, -1);
  expect_msg (&e, "view <2, 3> with strides <3, 1> at offset 4 reaches item "
                  "9, but the storage holds 9 items");
  /* Transposed: same reach. */
  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 10, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 9, &e), ==, -1);
  expect_msg (&e, "view <3, 2> with strides <1, 3> at offset 4 reaches item "
                  "9, but the storage holds 9 items");
  /* Broadcast: stride 0 reaches nothing further. */
  v = make (TN_INT32, d, 2);
  v.strides[0] = 0;
  g_assert_cmpint (tn_view_check (&v, 3, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 2, &e), ==, -1);
  /* An axis of extent 1 may carry any stride. */
  v.dims[0] = 1;
  v.strides[0] = INT64_MAX;
  g_assert_cmpint (tn_view_check (&v, 3, &e), ==, 0);
  /* Rank 0: one item at offset. */
  v = make (TN_INT32, NULL, 0);
  v.offset = 7;
  g_assert_cmpint (tn_view_check (&v, 8, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 7, &e), ==, -1);
  expect_msg (&e, "view <> with strides <> at offset 7 reaches item 7, but "
                  "the storage holds 7 items");
  /* Empty views only need their offset inside or at the end. */
  v = make (TN_INT32, z, 2);
  g_assert_cmpint (tn_view_check (&v, 0, &e), ==, 0);
  v.offset = 5;
  g_assert_cmpint (tn_view_check (&v, 5, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 4, &e), ==, -1);
  expect_msg (&e, "the empty view <2, 0> starts at item 5, past the end of a "
                  "storage of 4 items");
}

static void
test_check_errors (void)
{
  const int64_t d[] = { 2, 3 }, one[] = { 3 };
  tn_view v;
  tn_err e;

  v = make (TN_INT32, d, 2);
  g_assert_cmpint (tn_view_check (&v, -1, &e), ==, -1);
  expect_msg (&e, "a storage of -1 items is impossible; the size must be 0 "
                  "or more");
  v.offset = -2;
  g_assert_cmpint (tn_view_check (&v, 100, &e), ==, -1);
  expect_msg (&e, "the view starts at item -2; an offset must be 0 or more");
  v.offset = 0;
  v.strides[1] = -1;
  g_assert_cmpint (tn_view_check (&v, 100, &e), ==, -1);
  expect_msg (&e, "axis 1 has stride -1; strides must be 0 or more");
  v = make (TN_INT32, d, 2);
  v.dtype = (tn_dtype) 77;
  g_assert_cmpint (tn_view_check (&v, 100, &e), ==, -1);
  expect_msg (&e, "dtype 77 is not one of the 13 dtypes (0 to 12)");
  v = make (TN_INT32, d, 2);
  v.rank = 12;
  g_assert_cmpint (tn_view_check (&v, 100, &e), ==, -1);
  expect_msg (&e, "rank 12 is out of range: a tensor has rank 0 to 8");
  v = make (TN_INT32, d, 2);
  v.dims[0] = -2;
  g_assert_cmpint (tn_view_check (&v, 100, &e), ==, -1);
  expect_msg (&e, "axis 0 has extent -2; extents must be 0 or more");
  v.dims[0] = P62;
  v.dims[1] = 2;
  g_assert_cmpint (tn_view_check (&v, INT64_MAX, &e), ==, -1);
  expect_msg (&e, "dims <4611686018427387904, 2> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 1");
  /* Hostile strides: (3 - 1) * 2^62 = 2^63 wraps the multiplication... */
  v = make (TN_INT32, one, 1);
  v.strides[0] = P62;
  g_assert_cmpint (tn_view_check (&v, INT64_MAX, &e), ==, -1);
  expect_msg (&e, "view <3> with strides <4611686018427387904> at offset 0 "
                  "reaches past item 2^63: the index overflows at axis 0");
  /* ... one less does not, and is merely out of storage. */
  v.strides[0] = P62 - 1;
  g_assert_cmpint (tn_view_check (&v, INT64_MAX, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 2 * (P62 - 1), &e), ==, -1);
  /* ... and the sum with the offset wraps. */
  v.strides[0] = 1;
  v.offset = INT64_MAX - 1;
  g_assert_cmpint (tn_view_check (&v, INT64_MAX, &e), ==, -1);
  expect_msg (&e, "view <3> with strides <1> at offset 9223372036854775806 "
                  "reaches past item 2^63: the index overflows at axis 0");
  v.offset = INT64_MAX - 3;
  g_assert_cmpint (tn_view_check (&v, INT64_MAX, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, INT64_MAX - 1, &e), ==, -1);
  expect_msg (&e, "view <3> with strides <1> at offset 9223372036854775804 "
                  "reaches item 9223372036854775806, but the storage holds "
                  "9223372036854775806 items");
  g_assert_cmpint (tn_view_check (&v, 0, NULL), ==, -1);
}

static void
test_permute (void)
{
  const int64_t d[] = { 2, 3, 4 };
  const int ax[] = { 2, 0, 1 }, neg[] = { -1, -3, -2 };
  const int64_t wd[] = { 4, 2, 3 }, ws[] = { 1, 12, 4 };
  tn_view v;
  tn_err e;

  v = make (TN_INT64, d, 3);
  g_assert_cmpint (tn_view_permute (&v, ax, 3, &e), ==, 0);
  expect_dims (&v, wd, 3);
  expect_strides (&v, ws);
  v = make (TN_INT64, d, 3);
  g_assert_cmpint (tn_view_permute (&v, neg, 3, &e), ==, 0);
  expect_dims (&v, wd, 3);
  expect_strides (&v, ws);
  v = make (TN_INT64, NULL, 0);
  g_assert_cmpint (tn_view_permute (&v, NULL, 0, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 0);
}

static void
test_permute_errors (void)
{
  const int64_t d[] = { 2, 3, 4 };
  const int two[] = { 0, 1 }, big[] = { 0, 3, 1 }, low[] = { -4, 0, 1 };
  const int twice[] = { 1, -2, 0 };
  tn_view v;
  tn_err e;

  v = make (TN_INT64, d, 3);
  EXPECT_FAIL (&v, tn_view_permute (&v, two, 2, &e));
  expect_msg (&e, "permute needs 3 axes for a tensor of rank 3, got 2");
  EXPECT_FAIL (&v, tn_view_permute (&v, big, 3, &e));
  expect_msg (&e, "axis 3 is out of range for a tensor of rank 3");
  EXPECT_FAIL (&v, tn_view_permute (&v, low, 3, &e));
  expect_msg (&e, "axis -4 is out of range for a tensor of rank 3");
  EXPECT_FAIL (&v, tn_view_permute (&v, twice, 3, &e));
  expect_msg (&e, "permute needs each of the 3 axes once; axis 1 appears "
                  "twice");
  v.rank = 9;
  EXPECT_FAIL (&v, tn_view_permute (&v, twice, 3, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
}

static void
test_transpose (void)
{
  const int64_t d[] = { 2, 3, 4 }, wd[] = { 2, 4, 3 }, ws[] = { 12, 1, 4 };
  const int64_t d1[] = { 5 };
  tn_view v;
  tn_err e;

  v = make (TN_UINT8, d, 3);
  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  expect_dims (&v, wd, 3);
  expect_strides (&v, ws);
  v = make (TN_UINT8, d1, 1);
  EXPECT_FAIL (&v, tn_view_transpose (&v, &e));
  expect_msg (&e, "transpose swaps the last two axes and needs rank 2 or "
                  "more; this tensor has rank 1");
  v.rank = -1;
  EXPECT_FAIL (&v, tn_view_transpose (&v, &e));
  expect_msg (&e, "rank -1 is out of range: a tensor has rank 0 to 8");
}

static void
test_slice (void)
{
  const int64_t d[] = { 4, 10 };
  tn_view v;
  tn_err e;

  /* Python: a[:, -3:] -> 3 items from index 7. */
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 1, -3, INT64_MAX, 1, &e), ==, 0);
  g_assert_cmpint (v.dims[1], ==, 3);
  g_assert_cmpint (v.strides[1], ==, 1);
  g_assert_cmpint (v.offset, ==, 7);
  /* a[1:, ::3] -> rows 1..3, columns 0, 3, 6, 9. */
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, -2, 1, 100, 1, &e), ==, 0);
  g_assert_cmpint (tn_view_slice (&v, -1, INT64_MIN, INT64_MAX, 3, &e), ==, 0);
  g_assert_cmpint (v.dims[0], ==, 3);
  g_assert_cmpint (v.dims[1], ==, 4);
  g_assert_cmpint (v.strides[1], ==, 3);
  g_assert_cmpint (v.offset, ==, 10);
  /* a[:, 2:9:2] -> 2, 4, 6, 8. */
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 1, 2, 9, 2, &e), ==, 0);
  g_assert_cmpint (v.dims[1], ==, 4);
  g_assert_cmpint (v.offset, ==, 2);
  /* Empty: offset unchanged even past the end. */
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 0, 4, 9, 1, &e), ==, 0);
  g_assert_cmpint (v.dims[0], ==, 0);
  g_assert_cmpint (v.offset, ==, 0);
  g_assert_cmpint (tn_view_check (&v, 40, &e), ==, 0);
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 1, 7, 3, 1, &e), ==, 0);
  g_assert_cmpint (v.dims[1], ==, 0);
  g_assert_cmpint (tn_view_slice (&v, 0, 1, 3, 1, &e), ==, 0);
  g_assert_cmpint (v.dims[0], ==, 2);
  g_assert_cmpint (v.offset, ==, 0);
  /* A single item keeps its stride whatever the step. */
  v = make (TN_INT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 0, 2, 4, INT64_MAX, &e), ==, 0);
  g_assert_cmpint (v.dims[0], ==, 1);
  g_assert_cmpint (v.strides[0], ==, 10);
  g_assert_cmpint (v.offset, ==, 20);
}

static void
test_slice_errors (void)
{
  const int64_t d[] = { 4, 10 }, one[] = { 10 };
  tn_view v;
  tn_err e;

  v = make (TN_INT16, d, 2);
  EXPECT_FAIL (&v, tn_view_slice (&v, 1, 0, 5, 0, &e));
  expect_msg (&e, "slice step must be 1 or more, got 0");
  EXPECT_FAIL (&v, tn_view_slice (&v, 1, 0, 5, -1, &e));
  expect_msg (&e, "slice step must be 1 or more, got -1");
  EXPECT_FAIL (&v, tn_view_slice (&v, 2, 0, 5, 1, &e));
  expect_msg (&e, "axis 2 is out of range for a tensor of rank 2");
  EXPECT_FAIL (&v, tn_view_slice (&v, -3, 0, 5, 1, &e));
  expect_msg (&e, "axis -3 is out of range for a tensor of rank 2");
  /* Unchecked views whose arithmetic would wrap. */
  v = make (TN_INT16, one, 1);
  v.offset = INT64_MAX - 1;
  EXPECT_FAIL (&v, tn_view_slice (&v, 0, 2, 5, 1, &e));
  expect_msg (&e, "slicing axis 0 from index 2 overflows the offset "
                  "9223372036854775806 with stride 1");
  v = make (TN_INT16, one, 1);
  v.strides[0] = P62;
  EXPECT_FAIL (&v, tn_view_slice (&v, 0, 0, 10, 4, &e));
  expect_msg (&e, "slicing axis 0 with step 4 overflows its stride "
                  "4611686018427387904");
  v = make (TN_INT16, one, 1);
  v.rank = 10;
  EXPECT_FAIL (&v, tn_view_slice (&v, 0, 0, 10, 4, &e));
  expect_msg (&e, "rank 10 is out of range: a tensor has rank 0 to 8");
}

static void
test_select (void)
{
  const int64_t d[] = { 2, 3, 4 }, wd[] = { 2, 4 }, ws[] = { 12, 1 };
  tn_view v;
  tn_err e;

  v = make (TN_FLOAT64, d, 3);
  g_assert_cmpint (tn_view_select (&v, 1, -1, &e), ==, 0);
  expect_dims (&v, wd, 2);
  expect_strides (&v, ws);
  g_assert_cmpint (v.offset, ==, 8);
  g_assert_cmpint (v.dims[2], ==, 0); /* unused axes are cleared */
  g_assert_cmpint (tn_view_select (&v, 0, 1, &e), ==, 0);
  g_assert_cmpint (tn_view_select (&v, -1, 3, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 0);
  g_assert_cmpint (v.offset, ==, 23);
  /* Selecting beside an empty axis keeps the offset: the view holds no
   * items and its storage may hold none. */
  {
    const int64_t z[] = { 3, 0, 4 };

    v = make (TN_FLOAT64, z, 3);
    g_assert_cmpint (tn_view_select (&v, 0, 2, &e), ==, 0);
    g_assert_cmpint (v.offset, ==, 0);
    g_assert_cmpint (tn_view_check (&v, 0, &e), ==, 0);
  }
}

static void
test_select_errors (void)
{
  const int64_t d[] = { 2, 3 }, one[] = { 3 };
  tn_view v;
  tn_err e;

  v = make (TN_FLOAT64, d, 2);
  EXPECT_FAIL (&v, tn_view_select (&v, 1, 3, &e));
  expect_msg (&e, "index 3 is out of range for axis 1 of extent 3");
  EXPECT_FAIL (&v, tn_view_select (&v, -1, -4, &e));
  expect_msg (&e, "index -4 is out of range for axis 1 of extent 3");
  EXPECT_FAIL (&v, tn_view_select (&v, 2, 0, &e));
  expect_msg (&e, "axis 2 is out of range for a tensor of rank 2");
  v = make (TN_FLOAT64, NULL, 0);
  EXPECT_FAIL (&v, tn_view_select (&v, 0, 0, &e));
  expect_msg (&e, "axis 0 is out of range for a tensor of rank 0");
  v = make (TN_FLOAT64, one, 1);
  v.strides[0] = P62;
  EXPECT_FAIL (&v, tn_view_select (&v, 0, 2, &e));
  expect_msg (&e, "selecting index 2 of axis 0 overflows the offset 0 with "
                  "stride 4611686018427387904");
  v.rank = -5;
  EXPECT_FAIL (&v, tn_view_select (&v, 0, 2, &e));
  expect_msg (&e, "rank -5 is out of range: a tensor has rank 0 to 8");
}

static void
test_reshape (void)
{
  const int64_t d[] = { 2, 3, 4 }, to[] = { 4, -1 }, wd[] = { 4, 3 };
  const int64_t ws[] = { 3, 1 }, z[] = { 3, 0 }, zto[] = { 0, 5, -1 };
  const int64_t zw[] = { 0, 5, 1 }, ones[] = { 1, 1 };
  tn_view v;
  tn_err e;

  v = make (TN_INT32, d, 3);
  g_assert_cmpint (tn_view_select (&v, 0, 1, &e), ==, 0); /* offset 12 */
  g_assert_cmpint (tn_view_reshape (&v, to, 2, &e), ==, 0);
  expect_dims (&v, wd, 2);
  expect_strides (&v, ws);
  g_assert_cmpint (v.offset, ==, 12);
  g_assert_cmpint (tn_view_reshape (&v, NULL, 0, &e), ==, -1);
  g_assert_cmpint (tn_view_reshape (&v, to + 1, 1, &e), ==, 0);
  g_assert_cmpint (v.dims[0], ==, 12);
  g_assert_cmpint (v.dims[1], ==, 0);
  g_assert_cmpint (v.offset, ==, 12);
  /* Empty tensors reshape freely once -1 is unambiguous. */
  v = make (TN_INT32, z, 2);
  g_assert_cmpint (tn_view_reshape (&v, zto, 3, &e), ==, -1);
  v = make (TN_INT32, z, 2);
  v.strides[0] = 1234; /* empty views are dense */
  g_assert_cmpint (tn_view_reshape (&v, zw, 3, &e), ==, 0);
  expect_dims (&v, zw, 3);
  /* One item to and from rank 0. */
  v = make (TN_INT32, ones, 2);
  g_assert_cmpint (tn_view_reshape (&v, NULL, 0, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 0);
  g_assert_cmpint (tn_view_reshape (&v, ones, 2, &e), ==, 0);
  expect_dims (&v, ones, 2);
}

static void
test_reshape_errors (void)
{
  const int64_t d[] = { 2, 3 }, to42[] = { 4, 2 }, to4m[] = { 4, -1 };
  const int64_t mm[] = { -1, 3, -1 }, m2[] = { 3, -2 }, z[] = { 3, 0 };
  const int64_t zm[] = { 0, -1 }, big[] = { P62, 4 }, bigm[] = { P62, 4, -1 };
  const int64_t d9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 6 };
  tn_view v;
  tn_err e;

  v = make (TN_INT32, d, 2);
  EXPECT_FAIL (&v, tn_view_reshape (&v, to42, 2, &e));
  expect_msg (&e, "cannot reshape <2, 3> (6 items) to <4, 2> (8 items)");
  EXPECT_FAIL (&v, tn_view_reshape (&v, to4m, 2, &e));
  expect_msg (&e, "cannot reshape <2, 3> (6 items) to <4, -1>: 6 items do "
                  "not split into groups of 4");
  EXPECT_FAIL (&v, tn_view_reshape (&v, mm, 3, &e));
  expect_msg (&e, "cannot reshape to <-1, 3, -1>: only one extent can be -1, "
                  "and axes 0 and 2 both are");
  EXPECT_FAIL (&v, tn_view_reshape (&v, m2, 2, &e));
  expect_msg (&e, "cannot reshape to <3, -2>: axis 1 has extent -2; extents "
                  "must be 0 or more, or -1 for one inferred extent");
  EXPECT_FAIL (&v, tn_view_reshape (&v, d9, 9, &e));
  expect_msg (&e, "cannot reshape to rank 9: a tensor has rank 0 to 8");
  EXPECT_FAIL (&v, tn_view_reshape (&v, d9, -1, &e));
  expect_msg (&e, "cannot reshape to rank -1: a tensor has rank 0 to 8");
  EXPECT_FAIL (&v, tn_view_reshape (&v, big, 2, &e));
  expect_msg (&e, "dims <4611686018427387904, 4> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 1");
  EXPECT_FAIL (&v, tn_view_reshape (&v, bigm, 3, &e));
  expect_msg (&e, "dims <4611686018427387904, 4, 1> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 1");
  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  EXPECT_FAIL (&v, tn_view_reshape (&v, d, 2, &e));
  expect_msg (&e, "reshape needs a dense tensor; this view has strides "
                  "<1, 3>: copy it first");
  v = make (TN_INT32, z, 2);
  EXPECT_FAIL (&v, tn_view_reshape (&v, zm, 2, &e));
  expect_msg (&e, "cannot reshape <3, 0> (0 items) to <0, -1>: the -1 extent "
                  "is ambiguous next to an extent of 0");
  v.dims[0] = -3;
  EXPECT_FAIL (&v, tn_view_reshape (&v, zm, 2, &e));
  expect_msg (&e, "axis 0 has extent -3; extents must be 0 or more");
  v.rank = 9;
  EXPECT_FAIL (&v, tn_view_reshape (&v, zm, 2, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
}

static void
test_expand (void)
{
  const int64_t d[] = { 2, 3 };
  tn_view v;
  tn_err e;

  v = make (TN_UINT32, d, 2);
  g_assert_cmpint (tn_view_expand (&v, 0, &e), ==, 0);
  g_assert_cmpint (tn_view_expand (&v, -1, &e), ==, 0);
  g_assert_cmpint (tn_view_expand (&v, 2, &e), ==, 0);
  g_assert_cmpint (tn_view_expand (&v, -5, &e), ==, 0);
  {
    const int64_t wd[] = { 1, 1, 2, 1, 3, 1 }, ws[] = { 6, 6, 3, 3, 1, 1 };

    expect_dims (&v, wd, 6);
    expect_strides (&v, ws);
  }
  g_assert_true (tn_view_dense (&v));
  /* An unchecked stride whose span overflows: the new axis gets stride 0,
   * as good as any for an extent of 1. */
  {
    const int64_t four[] = { 4 };

    v = make (TN_UINT32, four, 1);
    v.strides[0] = P62;
    g_assert_cmpint (tn_view_expand (&v, 0, &e), ==, 0);
    g_assert_cmpint (v.strides[0], ==, 0);
    g_assert_cmpint (v.strides[1], ==, P62);
  }
  v = make (TN_UINT32, NULL, 0);
  g_assert_cmpint (tn_view_expand (&v, -1, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 1);
  g_assert_cmpint (v.dims[0], ==, 1);
}

static void
test_expand_errors (void)
{
  const int64_t d[] = { 2, 3, 4 }, d8[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
  tn_view v;
  tn_err e;

  v = make (TN_UINT32, d, 3);
  EXPECT_FAIL (&v, tn_view_expand (&v, 4, &e));
  expect_msg (&e, "axis 4 is out of range for inserting into a tensor of "
                  "rank 3 (-4 to 3)");
  EXPECT_FAIL (&v, tn_view_expand (&v, -5, &e));
  expect_msg (&e, "axis -5 is out of range for inserting into a tensor of "
                  "rank 3 (-4 to 3)");
  v = make (TN_UINT32, d8, 8);
  EXPECT_FAIL (&v, tn_view_expand (&v, 0, &e));
  expect_msg (&e, "cannot add an axis to a tensor of rank 8, the largest "
                  "rank");
  v.rank = 100;
  EXPECT_FAIL (&v, tn_view_expand (&v, 0, &e));
  expect_msg (&e, "rank 100 is out of range: a tensor has rank 0 to 8");
}

static void
test_squeeze (void)
{
  const int64_t d[] = { 1, 3, 1 }, wd[] = { 3 };
  tn_view v;
  tn_err e;

  v = make (TN_INT8, d, 3);
  g_assert_cmpint (tn_view_squeeze (&v, -1, &e), ==, 0);
  g_assert_cmpint (tn_view_squeeze (&v, 0, &e), ==, 0);
  expect_dims (&v, wd, 1);
  g_assert_cmpint (v.strides[0], ==, 1);
  EXPECT_FAIL (&v, tn_view_squeeze (&v, 0, &e));
  expect_msg (&e, "cannot squeeze axis 0 of extent 3; only an axis of "
                  "extent 1 can be removed");
  EXPECT_FAIL (&v, tn_view_squeeze (&v, 1, &e));
  expect_msg (&e, "axis 1 is out of range for a tensor of rank 1");
  v.rank = 9;
  EXPECT_FAIL (&v, tn_view_squeeze (&v, 1, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
}

static void
test_broadcast (void)
{
  const int64_t d[] = { 3, 1 }, to[] = { 2, 3, 4 }, ws[] = { 0, 1, 0 };
  const int64_t z[] = { 1 }, tz[] = { 5, 0 };
  tn_view v;
  tn_err e;

  v = make (TN_INT64, d, 2);
  g_assert_cmpint (tn_view_broadcast (&v, to, 3, &e), ==, 0);
  expect_dims (&v, to, 3);
  expect_strides (&v, ws);
  g_assert_cmpint (tn_view_check (&v, 3, &e), ==, 0);
  v = make (TN_INT64, z, 1);
  g_assert_cmpint (tn_view_broadcast (&v, tz, 2, &e), ==, 0);
  expect_dims (&v, tz, 2);
  g_assert_cmpint (tn_view_count (&v), ==, 0);
  v = make (TN_INT64, NULL, 0);
  g_assert_cmpint (tn_view_broadcast (&v, NULL, 0, &e), ==, 0);
  g_assert_cmpint (v.rank, ==, 0);
}

static void
test_broadcast_errors (void)
{
  const int64_t d[] = { 2, 3 }, t43[] = { 4, 3 }, t3[] = { 3 };
  const int64_t neg[] = { 2, -3 }, big[] = { P62, P62, 2, 3 };
  const int64_t z[] = { 0 }, t1[] = { 1 }, d9[9] = { 1 };
  tn_view v;
  tn_err e;

  v = make (TN_INT64, d, 2);
  EXPECT_FAIL (&v, tn_view_broadcast (&v, t43, 2, &e));
  expect_msg (&e, "cannot broadcast <2, 3> to <4, 3>: axis 0 has 2 against "
                  "4");
  EXPECT_FAIL (&v, tn_view_broadcast (&v, t3, 1, &e));
  expect_msg (&e, "cannot broadcast <2, 3> to <3>: the target has rank 1, "
                  "below the tensor's rank 2");
  EXPECT_FAIL (&v, tn_view_broadcast (&v, neg, 2, &e));
  expect_msg (&e, "axis 1 has extent -3; extents must be 0 or more");
  EXPECT_FAIL (&v, tn_view_broadcast (&v, big, 4, &e));
  expect_msg (&e,
      "dims <4611686018427387904, 4611686018427387904, 2, 3> "
      "hold too many items: the product of the extents overflows 64 bits at "
      "axis 1");
  EXPECT_FAIL (&v, tn_view_broadcast (&v, d9, 9, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
  /* NumPy refuses to stretch an empty axis to 1. */
  v = make (TN_INT64, z, 1);
  EXPECT_FAIL (&v, tn_view_broadcast (&v, t1, 1, &e));
  expect_msg (&e, "cannot broadcast <0> to <1>: axis 0 has 0 against 1");
  v.rank = 9;
  EXPECT_FAIL (&v, tn_view_broadcast (&v, t1, 1, &e));
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
}

/* ---- golden chains ---- */

static int
parse_ints (const char *s, int64_t *out, int max)
{
  int n = 0;
  char *end;

  for (;;) {
    long long x;

    while (*s == ' ')
      s++;
    if (!*s)
      return n;
    x = strtoll (s, &end, 10);
    g_assert_true (end != s);
    g_assert_cmpint (n, <, max);
    out[n++] = x;
    s = end;
  }
}

static int
apply_op (tn_view *v, const char *op, tn_err *e)
{
  char name[16];
  int64_t a[TN_MAX_RANK + 2];
  int na, k = 0;

  g_assert_cmpint (sscanf (op, " %15s %n", name, &k), ==, 1);
  na = parse_ints (op + k, a, TN_MAX_RANK + 2);
  if (!strcmp (name, "permute")) {
    int axes[TN_MAX_RANK];

    for (int i = 0; i < na; i++)
      axes[i] = (int) a[i];
    return tn_view_permute (v, axes, na, e);
  }
  if (!strcmp (name, "transpose"))
    return tn_view_transpose (v, e);
  if (!strcmp (name, "slice")) {
    g_assert_cmpint (na, ==, 4);
    return tn_view_slice (v, (int) a[0], a[1], a[2], a[3], e);
  }
  if (!strcmp (name, "select")) {
    g_assert_cmpint (na, ==, 2);
    return tn_view_select (v, (int) a[0], a[1], e);
  }
  if (!strcmp (name, "reshape"))
    return tn_view_reshape (v, a, na, e);
  if (!strcmp (name, "expand")) {
    g_assert_cmpint (na, ==, 1);
    return tn_view_expand (v, (int) a[0], e);
  }
  if (!strcmp (name, "squeeze")) {
    g_assert_cmpint (na, ==, 1);
    return tn_view_squeeze (v, (int) a[0], e);
  }
  if (!strcmp (name, "broadcast"))
    return tn_view_broadcast (v, a, na, e);
  g_error ("unknown op %s", name);
  return -1;
}

/* Applies the chain; returns the index of the op that failed, or -1. */
static int
apply_chain (tn_view *v, const char *ops)
{
  gchar **parts = g_strsplit (ops, ";", -1);
  int failed = -1, i = 0;

  for (gchar **p = parts; *p; p++) {
    tn_view before = *v;
    tn_err e;

    if (!g_strstrip (*p)[0])
      continue;
    if (apply_op (v, *p, &e) < 0) {
      g_assert_cmpint (memcmp (&before, v, sizeof before), ==, 0);
      g_assert_cmpuint (strlen (e.msg), >, 10);
      failed = i;
      break;
    }
    i++;
  }
  g_strfreev (parts);
  return failed;
}

static const tn_dtype by_size[] = { TN_UINT8, TN_UINT16, TN_UINT32, TN_UINT64 };

/* Storage holding arange(n) in the item size of t (wrapping for uint8). */
static void *
arange_storage (tn_dtype t, int64_t n)
{
  size_t isz = tn_dtype_size (t);
  guint8 *p = g_malloc (isz * (n ? n : 1));

  for (int64_t i = 0; i < n; i++) {
    guint64 x = (guint64) i;

    switch (isz) {
    case 1:
      p[i] = (guint8) x;
      break;
    case 2:
      ((guint16 *) p)[i] = (guint16) x;
      break;
    case 4:
      ((guint32 *) p)[i] = (guint32) x;
      break;
    default:
      ((guint64 *) p)[i] = x;
    }
  }
  return p;
}

static guint64
item_at (const void *p, size_t isz, int64_t i)
{
  switch (isz) {
  case 1:
    return ((const guint8 *) p)[i];
  case 2:
    return ((const guint16 *) p)[i];
  case 4:
    return ((const guint32 *) p)[i];
  default:
    return ((const guint64 *) p)[i];
  }
}

static guint64
wrap_to (guint64 x, size_t isz)
{
  return isz == 8 ? x : x & ((G_GUINT64_CONSTANT (1) << (8 * isz)) - 1);
}

#define GUARD 64

/* Materializes v over storage into a buffer with guard bytes on both
 * sides, checks that nothing outside was written, returns the copy. */
static guint8 *
materialize_guarded (const tn_view *v, const void *storage, size_t *nbytes)
{
  size_t isz = tn_dtype_size (v->dtype);
  int64_t n = tn_view_count (v);
  size_t nb = (size_t) n * isz;
  guint8 *buf = g_malloc (nb + 2 * GUARD);

  memset (buf, 0xcd, nb + 2 * GUARD);
  tn_view_materialize (buf + GUARD, storage, v);
  for (size_t i = 0; i < GUARD; i++) {
    g_assert_cmpint (buf[i], ==, 0xcd);
    g_assert_cmpint (buf[GUARD + nb + i], ==, 0xcd);
  }
  *nbytes = nb;
  return buf;
}

static void
test_golden (void)
{
  for (size_t c = 0; c < G_N_ELEMENTS (view_golden); c++) {
    const ViewGolden *g = &view_golden[c];
    int64_t src_count;

    g_test_message ("case %s: %s", g->name, g->ops);
    g_assert_cmpint (
        tn_shape_count (g->src_dims, g->src_rank, &src_count, NULL), ==, 0);
    for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
      tn_view v = make (by_size[s], g->src_dims, g->src_rank);
      size_t isz = tn_dtype_size (by_size[s]), nb;
      void *storage;
      guint8 *out;
      tn_err e;

      g_assert_cmpint (apply_chain (&v, g->ops), ==, g->fail_at);
      if (g->fail_at >= 0)
        continue;
      expect_dims (&v, g->dims, g->rank);
      g_assert_cmpint (tn_view_count (&v), ==, g->count);
      g_assert_cmpint (tn_view_dense (&v), ==, g->dense);
      g_assert_cmpint (tn_view_check (&v, src_count, &e), ==, 0);
      /* The largest index NumPy reads is exactly the view's reach. */
      if (g->count > 0) {
        g_assert_cmpint (tn_view_check (&v, g->reach + 1, &e), ==, 0);
        g_assert_cmpint (tn_view_check (&v, g->reach, &e), ==, -1);
      }
      storage = arange_storage (by_size[s], src_count);
      out = materialize_guarded (&v, storage, &nb);
      g_assert_cmpuint (nb, ==, (size_t) g->count * isz);
      for (int64_t i = 0; i < g->count; i++)
        g_assert_cmpuint (item_at (out + GUARD, isz, i), ==,
            wrap_to ((guint64) g->values[i], isz));
      g_free (out);
      g_free (storage);
    }
  }
}

/* ---- materialize against a naive per-item reference ---- */

/* Row-major unravel with a division per axis: slow, obviously right. */
static void
reference (void *dst, const void *base, const tn_view *v)
{
  size_t isz = tn_dtype_size (v->dtype);
  int64_t n = tn_view_count (v);

  for (int64_t j = 0; j < n; j++) {
    int64_t rest = j, src = v->offset;

    for (int i = v->rank - 1; i >= 0; i--) {
      src += (rest % v->dims[i]) * v->strides[i];
      rest /= v->dims[i];
    }
    memcpy ((char *) dst + j * isz, (const char *) base + src * isz, isz);
  }
}

static void
compare_with_reference (const tn_view *v, const void *storage)
{
  size_t nb;
  guint8 *out = materialize_guarded (v, storage, &nb);
  guint8 *ref = g_malloc (nb ? nb : 1);

  reference (ref, storage, v);
  g_assert_cmpint (memcmp (out + GUARD, ref, nb), ==, 0);
  g_free (ref);
  g_free (out);
}

/* Shapes around the 32-item tile edge, over each item size, through
 * transposes, permutations and step slices; plus broadcasts. */
static void
test_materialize_tiles (void)
{
  static const int64_t shapes[][2] = { { 1, 100 }, { 100, 1 }, { 31, 33 },
    { 32, 32 }, { 64, 65 }, { 97, 70 }, { 130, 5 }, { 3, 300 } };

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    for (size_t k = 0; k < G_N_ELEMENTS (shapes); k++) {
      const int64_t *d = shapes[k];
      int64_t n = d[0] * d[1];
      void *st = arange_storage (by_size[s], n * 4);
      const int64_t d3[] = { 2, d[0], d[1] };
      const int perm[] = { 2, 0, 1 }, perm2[] = { 1, 2, 0 };
      tn_view v;
      tn_err e;

      v = make (by_size[s], d, 2);
      g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
      compare_with_reference (&v, st);
      g_assert_cmpint (tn_view_slice (&v, 0, 1, INT64_MAX, 2, &e), ==, 0);
      compare_with_reference (&v, st);
      g_assert_cmpint (tn_view_slice (&v, 1, 0, INT64_MAX, 3, &e), ==, 0);
      compare_with_reference (&v, st);

      v = make (by_size[s], d3, 3);
      g_assert_cmpint (tn_view_permute (&v, perm, 3, &e), ==, 0);
      compare_with_reference (&v, st);
      v = make (by_size[s], d3, 3);
      g_assert_cmpint (tn_view_permute (&v, perm2, 3, &e), ==, 0);
      compare_with_reference (&v, st);
      v = make (by_size[s], d3, 3);
      g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
      compare_with_reference (&v, st);
      /* Contiguous suffix within a strided outer walk. */
      v = make (by_size[s], d3, 3);
      g_assert_cmpint (tn_view_slice (&v, 2, 1, -1, 1, &e), ==, 0);
      compare_with_reference (&v, st);
      g_assert_cmpint (tn_view_slice (&v, 1, 0, INT64_MAX, 2, &e), ==, 0);
      compare_with_reference (&v, st);
      /* Broadcast along each axis. */
      {
        const int64_t col[] = { d[0], 1 }, row[] = { 1, d[1] };

        v = make (by_size[s], col, 2);
        g_assert_cmpint (tn_view_broadcast (&v, d3, 3, &e), ==, 0);
        compare_with_reference (&v, st);
        v = make (by_size[s], row, 2);
        g_assert_cmpint (tn_view_broadcast (&v, d3, 3, &e), ==, 0);
        compare_with_reference (&v, st);
        g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
        compare_with_reference (&v, st);
      }
      g_free (st);
    }
  }
}

static void
test_materialize_small (void)
{
  const int64_t d[] = { 2, 3 }, z[] = { 3, 0 };
  const guint16 src[] = { 10, 11, 12, 13, 14, 15 };
  const guint16 want_t[] = { 10, 13, 11, 14, 12, 15 };
  guint16 out[8];
  tn_view v;
  tn_err e;

  /* Hand-computed transpose of [[10, 11, 12], [13, 14, 15]]. */
  v = make (TN_FLOAT16, d, 2);
  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  memset (out, 0, sizeof out);
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (memcmp (out, want_t, sizeof want_t), ==, 0);
  g_assert_cmpint (out[6], ==, 0);
  /* An axis of extent 1 may carry any stride; it must not enter any
   * arithmetic (UBSan would flag the overflow). */
  v = make (TN_UINT16, d, 2);
  g_assert_cmpint (tn_view_slice (&v, 0, 1, 2, 1, &e), ==, 0);
  v.strides[0] = INT64_MAX;
  g_assert_cmpint (tn_view_check (&v, 6, &e), ==, 0);
  memset (out, 0, sizeof out);
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (memcmp (out, src + 3, 3 * sizeof src[0]), ==, 0);
  g_assert_cmpint (out[3], ==, 0);
  /* Rank 0 at an offset copies one item. */
  v = make (TN_BFLOAT16, NULL, 0);
  v.offset = 4;
  memset (out, 0, sizeof out);
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (out[0], ==, 14);
  g_assert_cmpint (out[1], ==, 0);
  /* No items: nothing written. */
  v = make (TN_INT16, z, 2);
  memset (out, 0xab, sizeof out);
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (out[0], ==, 0xabab);
  /* An invalid dtype or view writes nothing either. */
  v = make (TN_INT16, d, 2);
  v.dtype = TN_NDTYPES;
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (out[0], ==, 0xabab);
  v.dtype = TN_INT16;
  v.dims[0] = -1;
  tn_view_materialize (out, src, &v);
  g_assert_cmpint (out[0], ==, 0xabab);
  /* A full broadcast of one item: [3] of item 2. */
  {
    const int64_t t3[] = { 3 };

    v = make (TN_UINT16, NULL, 0);
    v.offset = 2;
    g_assert_cmpint (tn_view_broadcast (&v, t3, 1, &e), ==, 0);
    tn_view_materialize (out, src, &v);
    g_assert_cmpint (out[0], ==, 12);
    g_assert_cmpint (out[1], ==, 12);
    g_assert_cmpint (out[2], ==, 12);
    g_assert_cmpint (out[3], ==, 0xabab);
  }
}

/* Rank 8 with every axis of extent 2 and reversed, plus an odd
 * permutation: the odometer carries through all eight axes. */
static void
test_materialize_rank8 (void)
{
  const int64_t d[] = { 2, 3, 2, 2, 3, 2, 2, 2 };
  const int rev[] = { 7, 6, 5, 4, 3, 2, 1, 0 },
            mix[] = { 1, 3, 5, 7, 0, 2, 4, 6 };

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    void *st = arange_storage (by_size[s], 576);
    tn_view v;
    tn_err e;

    v = make (by_size[s], d, 8);
    compare_with_reference (&v, st);
    g_assert_cmpint (tn_view_permute (&v, rev, 8, &e), ==, 0);
    compare_with_reference (&v, st);
    v = make (by_size[s], d, 8);
    g_assert_cmpint (tn_view_permute (&v, mix, 8, &e), ==, 0);
    compare_with_reference (&v, st);
    g_assert_cmpint (tn_view_slice (&v, 0, 1, 3, 1, &e), ==, 0);
    compare_with_reference (&v, st);
    g_free (st);
  }
}

/* Outputs of 4 MiB and more take the streaming-store path when every
 * destination row is 16-byte aligned; check both sides of that, and an
 * axis between the tiled pair whose destination pitch (65 bytes) would
 * misalign the rows if it were not checked. */
static void
test_materialize_large (void)
{
  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    size_t isz = tn_dtype_size (by_size[s]);
    int64_t rows = 2064, cols = ((int64_t) 4 << 20) / isz / rows + 37;
    const int64_t d[] = { rows, cols };
    void *st = arange_storage (by_size[s], rows * cols);
    size_t nb = (size_t) rows * cols * isz;
    guint8 *ref = g_malloc (nb), *out = g_malloc (nb + 16);
    tn_view v;
    tn_err e;

    v = make (by_size[s], d, 2);
    g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
    reference (ref, st, &v);
    compare_with_reference (&v, st);
    /* Misaligned destination: no streaming stores, same bytes. */
    tn_view_materialize (out + 1, st, &v);
    g_assert_cmpint (memcmp (out + 1, ref, nb), ==, 0);
    g_free (out);
    /* A 64-byte aligned one, rows 8256 bytes apart: whole lines, each
     * streamed once, where the CPU has AVX-512 (x86/view-avx512.c);
     * 545 rows and 2064 items a row leave edge blocks both ways. */
    out = g_aligned_alloc (nb, 1, 64);
    tn_view_materialize (out, st, &v);
    g_assert_cmpint (memcmp (out, ref, nb), ==, 0);
    g_aligned_free (out);
    g_free (ref);
    g_free (st);
  }
  {
    /* float32 rows 2056 items (8224 bytes, an odd multiple of 32) apart:
     * every other row starts half a line in, its lines carried across
     * blocks (x86/view-avx512.c), over three bands of rows. */
    const int64_t d[] = { 2056, 545 };
    void *st = arange_storage (TN_FLOAT32, 2056 * 545);
    size_t nb = (size_t) 2056 * 545 * 4;
    guint8 *ref = g_malloc (nb), *out = g_aligned_alloc (nb, 1, 64);
    tn_view v;
    tn_err e;

    v = make (TN_FLOAT32, d, 2);
    g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
    reference (ref, st, &v);
    tn_view_materialize (out, st, &v);
    g_assert_cmpint (memcmp (out, ref, nb), ==, 0);
    g_aligned_free (out);
    g_free (ref);
    g_free (st);
  }
  {
    const int64_t d[] = { 65, 16, 4100 };
    const int perm[] = { 2, 1, 0 };
    void *st = arange_storage (TN_UINT8, 65 * 16 * 4100);
    tn_view v;
    tn_err e;

    v = make (TN_UINT8, d, 3);
    g_assert_cmpint (tn_view_permute (&v, perm, 3, &e), ==, 0);
    compare_with_reference (&v, st);
    g_free (st);
  }
}

/* ---- deinterleave and interleave kernels ---- */

/* The CPU masks of the kernel levels: portable, SSSE3, AVX2. */
static const unsigned vk_impls[]
    = { 0, TN_CPU_SSSE3, TN_CPU_SSSE3 | TN_CPU_AVX2 };

/* Restricts the kernels to mask impl; FALSE when this CPU lacks part of
 * it (the tests then run the levels it has: portable always).  The
 * callers put the mask back with use_all (). */
static gboolean
use_impl (unsigned impl)
{
  tn_cpu_set_mask (impl);
  if (tn_cpu_flags () == impl)
    return TRUE;
  g_test_message ("kernels of CPU mask 0x%x: not on this CPU", impl);
  return FALSE;
}

/* All the CPU has, the default. */
static void
use_all (void)
{
  tn_cpu_set_mask (~0u);
}

/* Bytes that differ within and across items, so a shuffle that moves
 * the wrong byte of an item cannot go unseen. */
static void
fill_bytes (guint8 *p, size_t n, guint32 seed)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (guint8) ((i + seed) * 2654435761u >> 24);
}

/* The last item v reaches plus one: the storage it needs. */
static int64_t
view_extent (const tn_view *v)
{
  int64_t reach = v->offset;

  for (int i = 0; i < v->rank; i++)
    reach += (v->dims[i] - 1) * v->strides[i];
  return reach + 1;
}

/* Materializes v, on every implementation, over storage that ends
 * exactly at its last item, against the reference. */
static void
check_exact (const tn_view *v)
{
  size_t isz = tn_dtype_size (v->dtype);
  size_t nb = (size_t) view_extent (v) * isz;
  guint8 *st = g_malloc (nb);

  fill_bytes (st, nb, (guint32) v->offset);
  for (size_t i = 0; i < G_N_ELEMENTS (vk_impls); i++)
    if (use_impl (vk_impls[i]))
      compare_with_reference (v, st);
  use_all ();
  g_free (st);
}

static const int64_t odd_lengths[] = { 1, 15, 16, 17, 31, 33, 1921 };

/* HWC -> CHW and back, channel subsets, sub-images and step slices, for
 * every item size, 1 to 5 channels and rows of odd lengths. */
static void
test_materialize_channels (void)
{
  const int to_chw[] = { 2, 0, 1 }, to_hwc[] = { 1, 2, 0 };

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    tn_dtype t = by_size[s];

    for (int64_t c = 1; c <= 5; c++) {
      for (size_t l = 0; l < G_N_ELEMENTS (odd_lengths); l++) {
        int64_t n = odd_lengths[l];
        tn_view v;
        tn_err e;

        for (int64_t h = 1; h <= 3; h += 2) {
          const int64_t hwc[] = { h, n, c }, chw[] = { c, h, n };
          const int64_t hwc1[] = { h, n + 1, c }, chw1[] = { c + 1, h, n + 1 };
          const int64_t plane[] = { 1, h, n };

          /* Whole frames: the rows fuse into one run of h * n. */
          v = make (t, hwc, 3);
          g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
          check_exact (&v);
          v = make (t, chw, 3);
          g_assert_cmpint (tn_view_permute (&v, to_hwc, 3, &e), ==, 0);
          check_exact (&v);
          /* One column off each side, so rows of n with a pitch. */
          v = make (t, hwc1, 3);
          g_assert_cmpint (tn_view_slice (&v, 1, 1, INT64_MAX, 1, &e), ==, 0);
          g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
          check_exact (&v);
          v = make (t, hwc1, 3);
          g_assert_cmpint (tn_view_slice (&v, 1, 0, n, 1, &e), ==, 0);
          g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
          check_exact (&v);
          /* Planes 1..c of c + 1, one column off. */
          v = make (t, chw1, 3);
          g_assert_cmpint (tn_view_slice (&v, 0, 1, INT64_MAX, 1, &e), ==, 0);
          g_assert_cmpint (tn_view_slice (&v, 2, 1, INT64_MAX, 1, &e), ==, 0);
          g_assert_cmpint (tn_view_permute (&v, to_hwc, 3, &e), ==, 0);
          check_exact (&v);
          /* One plane broadcast to c channels (stride 0). */
          v = make (t, plane, 3);
          g_assert_cmpint (tn_view_broadcast (&v, chw, 3, &e), ==, 0);
          g_assert_cmpint (tn_view_permute (&v, to_hwc, 3, &e), ==, 0);
          check_exact (&v);
          /* Channel subsets: the first m, the last m, every second. */
          for (int64_t m = 1; m < c; m++) {
            v = make (t, hwc, 3);
            g_assert_cmpint (tn_view_slice (&v, 2, 0, m, 1, &e), ==, 0);
            g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
            check_exact (&v);
            v = make (t, hwc, 3);
            g_assert_cmpint (tn_view_slice (&v, -1, -m, c, 1, &e), ==, 0);
            g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
            check_exact (&v);
          }
          v = make (t, hwc, 3);
          g_assert_cmpint (tn_view_slice (&v, 2, 0, c, 2, &e), ==, 0);
          g_assert_cmpint (tn_view_permute (&v, to_chw, 3, &e), ==, 0);
          check_exact (&v);
        }
        /* Step slices [k::c] of rows of n * c + 2 items: each ends at
         * a different distance from the end of its row. */
        if (c > 1) {
          const int64_t rows[] = { 3, n * c + 2 };

          for (int64_t k = 0; k < c; k++) {
            v = make (t, rows, 2);
            g_assert_cmpint (tn_view_slice (&v, 1, k, INT64_MAX, c, &e), ==, 0);
            check_exact (&v);
            /* A negative start, and the rows transposed. */
            g_assert_cmpint (
                tn_view_slice (&v, 1, -n, INT64_MAX, 1, &e), ==, 0);
            check_exact (&v);
            g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
            check_exact (&v);
          }
        }
      }
    }
  }
}

/* The portable kernels alone, for every item size, c up to past
 * TN_VK_MAX_C, every m <= c and odd lengths: deinterleave reads exactly
 * up to item m - 1 of the last row, interleave exactly the n items of
 * each plane (the source allocations end there), and both write exactly
 * their output.  checkasm holds every other level to their bits. */
static void
test_kernels (void)
{
  use_impl (0);
  {
    for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
      size_t isz = tn_dtype_size (by_size[s]);

      for (int c = 1; c <= TN_VK_MAX_C + 1; c++) {
        for (size_t l = 0; l < G_N_ELEMENTS (odd_lengths); l++) {
          int64_t n = odd_lengths[l];
          size_t row = (size_t) n * isz;
          tn_vk k;

          for (int m = 1; m <= c; m++) {
            size_t sb = ((size_t) (n - 1) * c + m) * isz;
            guint8 *src = g_malloc (sb), *dst = g_malloc (m * row);

            fill_bytes (src, sb, (guint32) (c * 16 + m));
            tn_vk_deint_prepare (&k, isz, c, m);
            k.fn (&k, (char *) dst, (int64_t) row, (const char *) src, n);
            for (int q = 0; q < m; q++)
              for (int64_t j = 0; j < n; j++)
                g_assert_cmpint (memcmp (dst + q * row + j * isz,
                                     src + ((size_t) j * c + q) * isz, isz),
                    ==, 0);
            g_free (src);
            g_free (dst);
          }
          {
            /* Planes a pitch of n + 3 items apart. */
            size_t pitch = row + 3 * isz, sb = (c - 1) * pitch + row;
            guint8 *src = g_malloc (sb), *dst = g_malloc (c * row);

            fill_bytes (src, sb, (guint32) c);
            tn_vk_inter_prepare (&k, isz, c);
            k.fn (&k, (char *) dst, (int64_t) pitch, (const char *) src, n);
            for (int64_t j = 0; j < n; j++)
              for (int q = 0; q < c; q++)
                g_assert_cmpint (memcmp (dst + ((size_t) j * c + q) * isz,
                                     src + q * pitch + j * isz, isz),
                    ==, 0);
            g_free (src);
            g_free (dst);
          }
        }
      }
    }
  }
  use_all ();
}

/* A golden file's items in a block of their own (g_free it), its header
 * in *a (npy_clear it); dense view in *v when v is not NULL. */
static guint8 *
golden (const char *name, Npy *a, tn_view *v)
{
  tn_err e;
  guint8 *data;

  npy_load (a, name);
  data = g_memdup2 (a->data, a->size);
  if (v != NULL)
    g_assert_cmpint (tn_view_init (v, a->dtype, a->dims, a->rank, &e), ==, 0);
  return data;
}

/* The views of tests/data/gen_view_kern.py, against NumPy. */
static void
test_materialize_numpy (void)
{
  static const struct {
    const char *name, *ops;
  } cases[] = {
    { "hwc_u8", "permute 2 0 1" },
    { "rgba_u8", "slice 2 0 3 1; permute 2 0 1" },
    { "chw_u16", "permute 1 2 0" },
    { "hwc2_f64", "permute -1 0 1" },
    { "step2_f32", "slice 1 0 9999 2" },
    { "step3_f32", "slice 1 1 9999 3" },
    { "step2neg_i16", "slice 1 -17 9999 2" },
    { "sub5_u32", "slice 0 2 9999 1; slice 1 1 9999 1; permute 2 0 1" },
  };

  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *fin = g_strdup_printf ("view_%s_in.npy", cases[c].name);
    gchar *fout = g_strdup_printf ("view_%s_out.npy", cases[c].name);
    Npy hin, hout;
    tn_view v;
    guint8 *in = golden (fin, &hin, &v), *want = golden (fout, &hout, NULL);

    g_test_message ("case %s: %s", cases[c].name, cases[c].ops);
    g_assert_cmpint (apply_chain (&v, cases[c].ops), ==, -1);
    expect_dims (&v, hout.dims, hout.rank);
    g_assert_cmpint (
        tn_view_count (&v) * tn_dtype_size (v.dtype), ==, hout.size);
    for (size_t i = 0; i < G_N_ELEMENTS (vk_impls); i++) {
      size_t nb;
      guint8 *out;

      if (!use_impl (vk_impls[i]))
        continue;
      out = materialize_guarded (&v, in, &nb);
      g_assert_cmpint (memcmp (out + GUARD, want, nb), ==, 0);
      g_free (out);
    }
    use_all ();
    g_free (in);
    g_free (want);
    npy_clear (&hin);
    npy_clear (&hout);
    g_free (fin);
    g_free (fout);
  }
}

/* ---- tn_view_init over its own dims (issue 13) ---- */

/* Making a strided view dense in place, as tensorview does after a copy:
 * the dims it reads are the ones it writes. */
static void
test_init_own_dims (void)
{
  const int64_t d[] = { 4, 3, 2 }, st[] = { 6, 2, 1 };
  tn_view v = make (TN_FLOAT32, d, 3);
  tn_err e;

  g_assert_cmpint (tn_view_transpose (&v, &e), ==, 0);
  g_assert_cmpint (tn_view_slice (&v, 0, 1, 4, 1, &e), ==, 0);
  /* now <3, 2, 3> with strides <6, 1, 2> at offset 6 */
  g_assert_cmpint (v.offset, ==, 6);
  g_assert_cmpint (tn_view_init (&v, v.dtype, v.dims, v.rank, &e), ==, 0);
  {
    const int64_t want[] = { 3, 2, 3 }, wst[] = { 6, 3, 1 };

    expect_dims (&v, want, 3);
    expect_strides (&v, wst);
  }
  g_assert_cmpint (v.offset, ==, 0);
  v = make (TN_UINT8, d, 3);
  g_assert_cmpint (tn_view_init (&v, v.dtype, v.dims, v.rank, &e), ==, 0);
  expect_dims (&v, d, 3);
  expect_strides (&v, st);
  /* Its own dims but the first (an axis dropped in place): the source
   * and the destination overlap shifted by one. */
  v = make (TN_FLOAT32, d, 3);
  g_assert_cmpint (tn_view_init (&v, v.dtype, v.dims + 1, 2, &e), ==, 0);
  {
    const int64_t want[] = { 3, 2 }, wst[] = { 2, 1 };

    expect_dims (&v, want, 2);
    expect_strides (&v, wst);
    g_assert_cmpint (v.dims[2], ==, 0);
  }
  /* A failure leaves the view as it was. */
  v = make (TN_FLOAT32, d, 3);
  v.dims[1] = -1;
  g_assert_cmpint (tn_view_init (&v, v.dtype, v.dims, v.rank, &e), ==, -1);
  g_assert_cmpint (v.dims[0], ==, 4);
  g_assert_cmpint (v.dims[1], ==, -1);
  g_assert_cmpint (v.strides[0], ==, 6);
}

/* ---- the step grammar (core/view-parse.c) ---- */

static void
test_parse (void)
{
  static const struct {
    const char *text;
    int n;
    tn_vstep_kind kind0;
    int nargs0;
    unsigned given0;
    int64_t args0[4];
    const char *step_text0;
  } ok[] = {
    { "", 0 },
    { "  \t ", 0 },
    { "flip:-1", 1, TN_VS_FLIP, 1, 1, { -1 }, "flip:-1" },
    { " slice : 1 : : 2 ", 1, TN_VS_SLICE, 3, 5, { 1, 0, 2 }, "slice:1::2" },
    { "slice:1:::2", 1, TN_VS_SLICE, 4, 9, { 1, 0, 0, 2 }, "slice:1:::2" },
    { "slice:0::-1", 1, TN_VS_SLICE, 3, 5, { 0, 0, -1 }, "slice:0::-1" },
    { "slice:0:-1:", 1, TN_VS_SLICE, 3, 3, { 0, -1 }, "slice:0:-1:" },
    { "slice:2:::", 1, TN_VS_SLICE, 4, 1, { 2 }, "slice:2:::" },
    { "slice:0:1:2:3,transpose", 2, TN_VS_SLICE, 4, 15, { 0, 1, 2, 3 },
        "slice:0:1:2:3" },
    { "permute:-1:0:1", 1, TN_VS_PERMUTE, 3, 7, { -1, 0, 1 },
        "permute:-1:0:1" },
    { "reshape", 1, TN_VS_RESHAPE, 0, 0, { 0 }, "reshape" },
    { "reshape:-1:0", 1, TN_VS_RESHAPE, 2, 3, { -1, 0 }, "reshape:-1:0" },
    { "expand:-8", 1, TN_VS_EXPAND, 1, 1, { -8 }, "expand:-8" },
  };
  static const struct {
    const char *text, *want;
  } bad[] = {
    { "flip", "step 1 of 1 ('flip') has 0 arguments; expected flip:AXIS "
              "(1 argument)" },
    { "flip:0:1", "step 1 of 1 ('flip:0:1') has 2 arguments; expected "
                  "flip:AXIS (1 argument)" },
    { "permute", "step 1 of 1 ('permute') has 0 arguments; expected "
                 "permute:AXIS:AXIS... (1 to 8 arguments)" },
    { "transpose,flop:1", "step 2 of 2 ('flop') is not a view step; expected "
                          "one of permute, transpose, slice, select, "
                          "reshape, expand, squeeze, broadcast, flip" },
    { "slice:0:1", "step 1 of 1 ('slice:0:1') has one bound after the axis; "
                   "write slice:0:1: (from 1 to the end), slice:0::1 (up "
                   "to 1) or select:0:1 (one index)" },
    { "slice::3", "step 1 of 1 ('slice::3') has an empty argument 1; a slice "
                  "names its AXIS first: slice:AXIS:START:STOP[:STEP] "
                  "(slice:0::3 is NumPy's a[:3])" },
    { "slice:0:1:2:0", "step 1 of 1 ('slice:0:1:2:0'): slice step must be 1 "
                       "or more, got 0" },
    { "slice:0:::-1", "step 1 of 1 ('slice:0:::-1'): slice step must be 1 or "
                      "more, got -1; flip:AXIS reverses an axis" },
    { "slice:0:1:2:3:4", "step 1 of 1 ('slice:0:1:2:3:4') has 5 arguments; "
                         "expected slice:AXIS:START:STOP[:STEP] (3 to 4 "
                         "arguments)" },
    { "slice:0:x:", "step 1 of 1 ('slice:0:x:'): argument 2 is 'x', not a "
                    "whole number" },
    { "select:0:99999999999999999999",
        "step 1 of 1 ('select:0:99999999999999999999'): argument 2 is "
        "'99999999999999999999', not a whole number that fits in 64 bits" },
    { "permute:1::0", "step 1 of 1 ('permute:1::0') has an empty argument 2" },
    { "permute:0:2", "step 1 of 1 ('permute:0:2'): axis 2 is out of range for "
                     "a permutation of 2 axes (-2 to 1)" },
    { "permute:0:-3:1", "step 1 of 1 ('permute:0:-3:1'): permute needs each "
                        "of the 3 axes once; axis 0 appears twice" },
    { "reshape:-1:2:-1", "step 1 of 1 ('reshape:-1:2:-1'): only one extent "
                         "can be -1, and axes 0 and 2 both are" },
    { "reshape:2:-2", "step 1 of 1 ('reshape:2:-2'): axis 1 has extent -2; "
                      "extents must be 0 or more, or -1 for one inferred "
                      "extent" },
    { "broadcast:3:-1", "step 1 of 1 ('broadcast:3:-1'): axis 1 has extent "
                        "-1; extents must be 0 or more" },
    { "flip:8", "step 1 of 1 ('flip:8'): axis 8 is out of range for any "
                "tensor (rank 8 at most: -8 to 7)" },
    { "transpose,,flip:0", "step 2 of 3 is empty" },
    { ":1", "step 1 of 1 is empty (an argument without a step name)" },
    { "permute:0:1:2:3:4:5:6:7:8", "step 1 of 1 ('permute:0:1:2:3:4:5:6:7:8') "
                                   "has 9 arguments; expected "
                                   "permute:AXIS:AXIS... (1 to 8 arguments)" },
  };
  tn_vsteps s, c;
  tn_err e;

  for (size_t i = 0; i < G_N_ELEMENTS (ok); i++) {
    g_test_message ("'%s'", ok[i].text);
    g_assert_cmpint (tn_vsteps_parse (ok[i].text, &s, &e), ==, 0);
    g_assert_cmpint (s.n, ==, ok[i].n);
    if (ok[i].n > 0) {
      const tn_vstep *st = &s.steps[0];

      g_assert_cmpint (st->kind, ==, ok[i].kind0);
      g_assert_cmpint (st->nargs, ==, ok[i].nargs0);
      g_assert_cmpuint (st->given, ==, ok[i].given0);
      for (int a = 0; a < st->nargs && a < 4; a++)
        if (st->given >> a & 1)
          g_assert_cmpint (st->args[a], ==, ok[i].args0[a]);
      g_assert_cmpstr (st->text, ==, ok[i].step_text0);
    }
    g_assert_cmpint (tn_vsteps_copy (&c, &s, &e), ==, 0);
    g_assert_cmpint (c.n, ==, s.n);
    if (s.n)
      g_assert_cmpint (memcmp (c.steps, s.steps, sizeof *s.steps * s.n), ==, 0);
    tn_vsteps_clear (&c);
    tn_vsteps_clear (&s);
  }
  g_assert_cmpint (tn_vsteps_parse (NULL, &s, &e), ==, 0);
  g_assert_cmpint (s.n, ==, 0);
  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_test_message ("'%s'", bad[i].text);
    g_assert_cmpint (tn_vsteps_parse (bad[i].text, &s, &e), ==, -1);
    expect_msg (&e, bad[i].want);
    g_assert_cmpint (s.n, ==, 0);
    g_assert_null (s.steps);
  }
}

/* Steps that parse but do not fit a tensor: the step, the axis and the
 * numbers. */
static void
test_apply_errors (void)
{
  static const struct {
    const char *text, *want;
  } bad[] = {
    { "flip:3", "step 1 of 1 ('flip:3'): axis 3 is out of range for a tensor "
                "of rank 3" },
    { "transpose,slice:-4::", "step 2 of 2 ('slice:-4::'): axis -4 is out of "
                              "range for a tensor of rank 3" },
    { "flip:0,select:0:2", "step 2 of 2 ('select:0:2'): index 2 is out of "
                           "range for axis 0 of extent 2" },
    { "permute:1:0", "step 1 of 1 ('permute:1:0'): permute needs 3 axes for a "
                     "tensor of rank 3, got 2" },
    { "reshape:5:5", "step 1 of 1 ('reshape:5:5'): cannot reshape <2, 3, 4> "
                     "(24 items) to <5, 5> (25 items)" },
  };
  const int64_t d[] = { 2, 3, 4 };
  tn_vsteps s;
  tn_fview f;
  tn_err e;
  int stop;

  for (size_t i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_cmpint (tn_vsteps_parse (bad[i].text, &s, &e), ==, 0);
    f.v = make (TN_FLOAT32, d, 3);
    f.flip = 0;
    g_assert_cmpint (tn_vsteps_apply (&s, 0, &f, false, &stop, &e), ==, -1);
    expect_msg (&e, bad[i].want);
    tn_vsteps_clear (&s);
  }
}

/* The items f reaches, in row-major order, as int64 storage indices
 * (the storage is arange). */
static int64_t *
fview_items (const tn_fview *f, const int64_t *storage, int64_t *n)
{
  int64_t *out;

  *n = tn_view_count (&f->v);
  out = g_new0 (int64_t, MAX (*n, 1));
  tn_view_materialize_flip (out, storage, &f->v, f->flip);
  return out;
}

static void
index_list (const char *s, int64_t *out, int *n)
{
  gchar **tok = g_strsplit (g_strstrip ((gchar *) s), " ", -1);

  *n = 0;
  for (int i = 0; tok[i]; i++)
    if (*tok[i])
      out[(*n)++] = g_ascii_strtoll (tok[i], NULL, 10);
  g_strfreev (tok);
}

/* Python's a[START:STOP:STEP] over a grid of bounds in range and out of
 * it, omitted bounds among them, against NumPy (tview_slices.txt from
 * tests/data/gen_tview.py): along a vector, along axis 1 of a matrix,
 * and after flip:0 (a reversed axis sliced before the one copy). */
static void
test_slices_numpy (void)
{
  const char *dir = g_getenv ("GST_TENSOR_TESTDATA");
  gchar *path, *text, **lines;
  int64_t storage[64];
  int checked = 0;

  g_assert_nonnull (dir);
  for (int i = 0; i < 64; i++)
    storage[i] = i;
  path = g_build_filename (dir, "../../elements/tview/tview_slices.txt", NULL);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    g_error ("cannot read %s", path);
  lines = g_strsplit (text, "\n", -1);
  for (int l = 0; lines[l]; l++) {
    gchar **part, **b;
    int64_t want[16], want_rev[16], n, got_n;
    int nw, nwr;
    gchar *ops;

    if (lines[l][0] == '#' || lines[l][0] == '\0')
      continue;
    part = g_strsplit (lines[l], "|", 3);
    g_assert_nonnull (part[1]);
    g_assert_nonnull (part[2]);
    b = g_strsplit (g_strstrip (part[0]), " ", 4);
    n = g_ascii_strtoll (b[0], NULL, 10);
    index_list (part[1], want, &nw);
    index_list (part[2], want_rev, &nwr);
    /* "_" is an omitted bound: an empty argument */
    ops = g_strdup_printf ("%s:%s:%s", strcmp (b[1], "_") ? b[1] : "",
        strcmp (b[2], "_") ? b[2] : "", strcmp (b[3], "_") ? b[3] : "");
    for (int variant = 0; variant < 3; variant++) {
      gchar *full = variant == 0   ? g_strdup_printf ("slice:0:%s", ops)
                    : variant == 1 ? g_strdup_printf ("slice:1:%s", ops)
                                   : g_strdup_printf ("flip:0,slice:0:%s", ops);
      int64_t dims[2] = { variant == 1 ? 2 : n, n };
      const int64_t *w = variant == 2 ? want_rev : want;
      int nwant = variant == 2 ? nwr : nw;
      tn_vsteps s;
      tn_fview f;
      tn_err e;
      int stop;
      int64_t *got;

      g_assert_cmpint (tn_vsteps_parse (full, &s, &e), ==, 0);
      f.v = make (TN_INT64, dims, variant == 1 ? 2 : 1);
      f.flip = 0;
      g_assert_cmpint (tn_vsteps_apply (&s, 0, &f, false, &stop, &e), ==, 0);
      g_assert_cmpint (stop, ==, s.n);
      got = fview_items (&f, storage, &got_n);
      if (variant == 1) {
        /* row r of the matrix holds r * n + index */
        g_assert_cmpint (got_n, ==, 2 * nwant);
        for (int r = 0; r < 2; r++)
          for (int i = 0; i < nwant; i++)
            if (got[r * nwant + i] != r * n + w[i])
              g_error ("%s on <2, %lld>: row %d item %d is %lld, NumPy %lld",
                  full, (long long) n, r, i, (long long) got[r * nwant + i],
                  (long long) (r * n + w[i]));
      } else {
        if (got_n != nwant)
          g_error ("%s on <%lld>: %lld items, NumPy %d", full, (long long) n,
              (long long) got_n, nwant);
        for (int i = 0; i < nwant; i++)
          if (got[i] != w[i])
            g_error ("%s on <%lld>: item %d is %lld, NumPy %lld", full,
                (long long) n, i, (long long) got[i], (long long) w[i]);
      }
      checked++;
      g_free (got);
      tn_vsteps_clear (&s);
      g_free (full);
    }
    g_free (ops);
    g_strfreev (b);
    g_strfreev (part);
  }
  /* 4 extents x 9 starts x 9 stops x 5 steps, 3 ways each */
  g_assert_cmpint (checked, ==, 4 * 9 * 9 * 5 * 3);
  g_strfreev (lines);
  g_free (text);
  g_free (path);
}

/* Item by item: the output index, each reversed axis read from its end. */
static void
flip_reference (
    guint8 *dst, const guint8 *base, const tn_view *v, uint32_t flip)
{
  size_t isz = tn_dtype_size (v->dtype);
  int64_t n = tn_view_count (v), idx[TN_MAX_RANK] = { 0 };

  for (int64_t k = 0; k < n; k++) {
    int64_t off = v->offset;

    for (int a = 0; a < v->rank; a++)
      off += ((flip >> a & 1) ? v->dims[a] - 1 - idx[a] : idx[a])
             * v->strides[a];
    memcpy (dst + k * isz, base + off * isz, isz);
    for (int a = v->rank - 1; a >= 0; a--) {
      if (++idx[a] < v->dims[a])
        break;
      idx[a] = 0;
    }
  }
}

/* v with the axes of flip reversed, over storage that ends exactly at its
 * last item, on every kernel implementation, against the reference. */
static void
check_flip (const tn_view *v, uint32_t flip)
{
  size_t isz = tn_dtype_size (v->dtype);
  size_t nb = (size_t) view_extent (v) * isz;
  size_t out = (size_t) tn_view_count (v) * isz;
  guint8 *st = g_malloc (nb), *want = g_malloc (out + 1),
         *got = g_malloc (out + 1);

  fill_bytes (st, nb, (guint32) (v->offset + flip));
  flip_reference (want, st, v, flip);
  for (size_t i = 0; i < G_N_ELEMENTS (vk_impls); i++) {
    if (!use_impl (vk_impls[i]))
      continue;
    memset (got, 0xa5, out + 1);
    tn_view_materialize_flip (got, st, v, flip);
    if (memcmp (got, want, out) != 0) {
      char sd[160], ss[160];

      tn_shape_format (sd, sizeof sd, v->dims, v->rank);
      tn_shape_format (ss, sizeof ss, v->strides, v->rank);
      g_error ("flip mask 0x%x of %zu-byte items %s strides %s offset %lld "
               "differs from the reference",
          flip, isz, sd, ss, (long long) v->offset);
    }
    /* nothing written past the end */
    g_assert_cmpuint (got[out], ==, 0xa5);
  }
  use_all ();
  g_free (st);
  g_free (want);
  g_free (got);
}

/* Each copy path of tn_view_materialize_flip (whole rows, mirrored
 * blocks, reversed groups with and without SSE2, reversed runs, slabs of
 * a strided view, item by item), every item size, lengths around the
 * vector widths, dense and strided sources, every mask of rank 3. */
static void
test_flip_materialize (void)
{
  static const int64_t shapes[][3] = {
    { 1, 1, 3 },
    { 2, 5, 3 },
    { 7, 40, 3 },
    { 3, 17, 4 },
    { 2, 33, 2 },
    { 5, 3, 1 },
    { 1, 100, 3 },
    { 4, 1, 129 },
    { 3, 6, 16 },
    { 2, 2, 31 },
  };
  const int to_chw[] = { 2, 0, 1 };
  GRand *rnd = g_rand_new_with_seed (11);

  for (size_t s = 0; s < G_N_ELEMENTS (by_size); s++) {
    for (size_t k = 0; k < G_N_ELEMENTS (shapes); k++) {
      for (uint32_t m = 0; m < 8; m++) {
        tn_view v = make (by_size[s], shapes[k], 3), w;
        tn_err e;

        check_flip (&v, m);
        /* strided: CHW of it, a step slice of it, a broadcast column */
        w = v;
        g_assert_cmpint (tn_view_permute (&w, to_chw, 3, &e), ==, 0);
        check_flip (&w, m);
        w = v;
        g_assert_cmpint (tn_view_slice (&w, 1, 1, 9999, 2, &e), ==, 0);
        check_flip (&w, m);
        w = v;
        g_assert_cmpint (tn_view_slice (&w, 2, 0, 1, 1, &e), ==, 0);
        {
          const int64_t bd[] = { shapes[k][0], shapes[k][1], 5 };

          g_assert_cmpint (tn_view_broadcast (&w, bd, 3, &e), ==, 0);
        }
        check_flip (&w, m);
      }
    }
    /* random rank-4 views over larger storage */
    for (int r = 0; r < 40; r++) {
      int64_t d[4];
      tn_view v;
      int perm[4] = { 0, 1, 2, 3 };
      tn_err e;

      for (int a = 0; a < 4; a++)
        d[a] = g_rand_int_range (rnd, 1, 9);
      v = make (by_size[s], d, 4);
      for (int a = 3; a > 0; a--) {
        int b = g_rand_int_range (rnd, 0, a + 1), t = perm[a];

        perm[a] = perm[b];
        perm[b] = t;
      }
      g_assert_cmpint (tn_view_permute (&v, perm, 4, &e), ==, 0);
      if (g_rand_boolean (rnd))
        g_assert_cmpint (tn_view_slice (&v, g_rand_int_range (rnd, 0, 4),
                             g_rand_int_range (rnd, 0, 3), 9999,
                             g_rand_int_range (rnd, 1, 4), &e),
            ==, 0);
      check_flip (&v, (uint32_t) g_rand_int_range (rnd, 0, 16));
    }
  }
  /* a mask on axes that reverse nothing is the plain copy */
  {
    const int64_t d[] = { 1, 4 };
    tn_view v = make (TN_UINT8, d, 2);

    g_assert_cmpuint (tn_view_flip_mask (&v, 1), ==, 0);
    g_assert_cmpuint (tn_view_flip_mask (&v, 2), ==, 2);
    v.dims[1] = 0;
    g_assert_cmpuint (tn_view_flip_mask (&v, 2), ==, 0);
  }
  g_rand_free (rnd);
}

/* Flips of an HWC image, and BGR planes for a network, against NumPy
 * (tests/data/gen_tview.py). */
static void
test_flip_numpy (void)
{
  static const struct {
    const char *ops, *golden;
  } cases[] = {
    { "flip:-1", "../../elements/tview/tview_hwc_bgr.npy" },
    { "flip:1", "../../elements/tview/tview_hwc_mirror.npy" },
    { "flip:0", "../../elements/tview/tview_hwc_updown.npy" },
    { "flip:2,permute:2:0:1", "../../elements/tview/tview_hwc_bgr_chw.npy" },
    { "permute:2:0:1,flip:0", "../../elements/tview/tview_hwc_bgr_chw.npy" },
  };
  Npy hin;
  tn_view vin;
  guint8 *in = golden ("../../elements/tview/tview_hwc.npy", &hin, &vin);

  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++) {
    Npy hout;
    guint8 *want = golden (cases[c].golden, &hout, NULL), *got;
    tn_vsteps s;
    tn_fview f;
    tn_err e;
    int stop;

    g_assert_cmpint (tn_vsteps_parse (cases[c].ops, &s, &e), ==, 0);
    f.v = vin;
    f.flip = 0;
    g_assert_cmpint (tn_vsteps_apply (&s, 0, &f, false, &stop, &e), ==, 0);
    g_assert_cmpuint (f.flip, !=, 0);
    expect_dims (&f.v, hout.dims, hout.rank);
    got = g_malloc (hout.size);
    tn_view_materialize_flip (got, in, &f.v, f.flip);
    g_assert_cmpint (memcmp (got, want, hout.size), ==, 0);
    g_free (got);
    g_free (want);
    npy_clear (&hout);
    tn_vsteps_clear (&s);
  }
  g_free (in);
  npy_clear (&hin);
}

/* The input dims a list gives the output dims from, for caps asked from
 * downstream. */
static void
test_invert (void)
{
  tn_vsteps s;
  tn_err e;
  int64_t d[TN_MAX_RANK] = { 1, 3, 480, 640 };
  int rank = 4;

  g_assert_cmpint (
      tn_vsteps_parse ("permute:2:0:1,flip:0,expand:0", &s, &e), ==, 0);
  g_assert_true (tn_vsteps_invert (&s, d, &rank));
  g_assert_cmpint (rank, ==, 3);
  g_assert_cmpint (d[0], ==, 480);
  g_assert_cmpint (d[1], ==, 640);
  g_assert_cmpint (d[2], ==, 3);
  tn_vsteps_clear (&s);
  g_assert_cmpint (tn_vsteps_parse ("slice:0:1:", &s, &e), ==, 0);
  g_assert_false (tn_vsteps_invert (&s, d, &rank));
  tn_vsteps_clear (&s);
  /* flip:3 cannot have made a rank-3 tensor */
  rank = 3;
  g_assert_cmpint (tn_vsteps_parse ("flip:3", &s, &e), ==, 0);
  g_assert_false (tn_vsteps_invert (&s, d, &rank));
  tn_vsteps_clear (&s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/view/init", test_init);
  g_test_add_func ("/view/init-errors", test_init_errors);
  g_test_add_func ("/view/count", test_count);
  g_test_add_func ("/view/dense", test_dense);
  g_test_add_func ("/view/check", test_check);
  g_test_add_func ("/view/check-errors", test_check_errors);
  g_test_add_func ("/view/permute", test_permute);
  g_test_add_func ("/view/permute-errors", test_permute_errors);
  g_test_add_func ("/view/transpose", test_transpose);
  g_test_add_func ("/view/slice", test_slice);
  g_test_add_func ("/view/slice-errors", test_slice_errors);
  g_test_add_func ("/view/select", test_select);
  g_test_add_func ("/view/select-errors", test_select_errors);
  g_test_add_func ("/view/reshape", test_reshape);
  g_test_add_func ("/view/reshape-errors", test_reshape_errors);
  g_test_add_func ("/view/expand", test_expand);
  g_test_add_func ("/view/expand-errors", test_expand_errors);
  g_test_add_func ("/view/squeeze", test_squeeze);
  g_test_add_func ("/view/broadcast", test_broadcast);
  g_test_add_func ("/view/broadcast-errors", test_broadcast_errors);
  g_test_add_func ("/view/golden", test_golden);
  g_test_add_func ("/view/materialize/small", test_materialize_small);
  g_test_add_func ("/view/materialize/tiles", test_materialize_tiles);
  g_test_add_func ("/view/materialize/rank8", test_materialize_rank8);
  g_test_add_func ("/view/materialize/large", test_materialize_large);
  g_test_add_func ("/view/materialize/channels", test_materialize_channels);
  g_test_add_func ("/view/materialize/numpy", test_materialize_numpy);
  g_test_add_func ("/view/kernels", test_kernels);
  g_test_add_func ("/view/init-own-dims", test_init_own_dims);
  g_test_add_func ("/view/steps/parse", test_parse);
  g_test_add_func ("/view/steps/apply-errors", test_apply_errors);
  g_test_add_func ("/view/steps/slices-numpy", test_slices_numpy);
  g_test_add_func ("/view/steps/invert", test_invert);
  g_test_add_func ("/view/flip/materialize", test_flip_materialize);
  g_test_add_func ("/view/flip/numpy", test_flip_numpy);
  return g_test_run ();
}
