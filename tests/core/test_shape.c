/* core/shape.c: counts, byte sizes, strides, formatting, broadcasting.
 * Expectations are hand-computed; overflow boundaries sit exactly at
 * 2^63 (int64) and 2^64 (size_t). */
#include <glib.h>
#include <string.h>

#include "core/shape.h"

#define P62 ((int64_t) 1 << 62)

static void
expect_msg (const tn_err *e, const char *want)
{
  g_assert_cmpstr (e->msg, ==, want);
}

static void
test_count (void)
{
  tn_err e;
  int64_t n = -7;
  const int64_t d3[] = { 2, 3, 4 }, z[] = { 3, 0, 4 };
  const int64_t big[] = { INT64_MAX, 1 }, one[] = { 1 };

  g_assert_cmpint (tn_shape_count (NULL, 0, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (tn_shape_count (d3, 3, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, 24);
  g_assert_cmpint (tn_shape_count (z, 3, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, 0);
  g_assert_cmpint (tn_shape_count (big, 2, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, INT64_MAX);
  g_assert_cmpint (tn_shape_count (one, 1, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, 1);
  /* count and err may be NULL */
  g_assert_cmpint (tn_shape_count (d3, 3, NULL, NULL), ==, 0);
}

static void
test_count_errors (void)
{
  tn_err e;
  int64_t n = 42;
  const int64_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  const int64_t neg[] = { 2, -1, 3 };
  const int64_t wrap[] = { (int64_t) 1 << 32, (int64_t) 1 << 31 };
  const int64_t edge[] = { (int64_t) 1 << 32, ((int64_t) 1 << 31) - 1 };
  const int64_t hostile[] = { 0, P62, 4 };
  const int64_t max2[] = { INT64_MAX, 2 };

  g_assert_cmpint (tn_shape_count (nine, -1, &n, &e), ==, -1);
  expect_msg (&e, "rank -1 is out of range: a tensor has rank 0 to 8");
  g_assert_cmpint (tn_shape_count (nine, 9, &n, &e), ==, -1);
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
  g_assert_cmpint (tn_shape_count (neg, 3, &n, &e), ==, -1);
  expect_msg (&e, "axis 1 has extent -1; extents must be 0 or more");
  /* 2^32 * 2^31 = 2^63 is one past INT64_MAX; one less fits. */
  g_assert_cmpint (tn_shape_count (wrap, 2, &n, &e), ==, -1);
  expect_msg (&e, "dims <4294967296, 2147483648> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 1");
  g_assert_cmpint (tn_shape_count (edge, 2, &n, &e), ==, 0);
  g_assert_cmpint (n, ==, INT64_MAX - ((int64_t) 1 << 32) + 1);
  n = 42;
  /* A zero extent does not excuse the others (NumPy's rule). */
  g_assert_cmpint (tn_shape_count (hostile, 3, &n, &e), ==, -1);
  expect_msg (&e, "dims <0, 4611686018427387904, 4> hold too many items: the "
                  "product of the extents overflows 64 bits at axis 2");
  g_assert_cmpint (tn_shape_count (max2, 2, &n, &e), ==, -1);
  g_assert_cmpint (n, ==, 42); /* untouched on failure */
  g_assert_cmpint (tn_shape_count (neg, 3, &n, NULL), ==, -1);
}

static void
test_nbytes (void)
{
  tn_err e;
  size_t nb = 1;
  const int64_t d23[] = { 2, 3 }, z[] = { 4, 0 }, five[] = { 5 };
  const int64_t p60[] = { (int64_t) 1 << 60 };
  const int64_t p61m1[] = { ((int64_t) 1 << 61) - 1 };
  const int64_t imax[] = { INT64_MAX };

  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT32, d23, 2, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, 24);
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT64, NULL, 0, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, 8);
  g_assert_cmpint (tn_shape_nbytes (TN_INT16, z, 2, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, 0);
  g_assert_cmpint (tn_shape_nbytes (TN_BOOL, five, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, 5);
  g_assert_cmpint (tn_shape_nbytes (TN_BFLOAT16, five, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, 10);
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT64, p60, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, (size_t) 1 << 63);
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT64, p61m1, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, SIZE_MAX - 7);
  g_assert_cmpint (tn_shape_nbytes (TN_UINT8, imax, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, (size_t) INT64_MAX);
  g_assert_cmpint (tn_shape_nbytes (TN_UINT8, imax, 1, NULL, NULL), ==, 0);
}

static void
test_nbytes_errors (void)
{
  tn_err e;
  size_t nb = 99;
  const int64_t d23[] = { 2, 3 }, neg[] = { -3 };
  const int64_t p61[] = { (int64_t) 1 << 61 };
  const int64_t imax[] = { INT64_MAX };

  g_assert_cmpint (tn_shape_nbytes (TN_NDTYPES, d23, 2, &nb, &e), ==, -1);
  expect_msg (&e, "dtype 13 is not one of the 13 dtypes (0 to 12)");
  g_assert_cmpint (tn_shape_nbytes ((tn_dtype) -1, d23, 2, &nb, &e), ==, -1);
  expect_msg (&e, "dtype -1 is not one of the 13 dtypes (0 to 12)");
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT32, neg, 1, &nb, &e), ==, -1);
  expect_msg (&e, "axis 0 has extent -3; extents must be 0 or more");
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT32, d23, 9, &nb, &e), ==, -1);
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
  /* 2^61 items of 8 bytes are exactly 2^64 bytes. */
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT64, p61, 1, &nb, &e), ==, -1);
  expect_msg (&e,
      "dims <2305843009213693952> of float64 hold "
      "2305843009213693952 items of 8 bytes, more bytes than a size_t can "
      "count");
  /* INT64_MAX items of 2 bytes still fit in 64 bits; of 4 they do not. */
  g_assert_cmpint (tn_shape_nbytes (TN_INT16, imax, 1, &nb, &e), ==, 0);
  g_assert_cmpuint (nb, ==, SIZE_MAX - 1);
  nb = 99;
  g_assert_cmpint (tn_shape_nbytes (TN_FLOAT32, imax, 1, &nb, &e), ==, -1);
  expect_msg (&e,
      "dims <9223372036854775807> of float32 hold "
      "9223372036854775807 items of 4 bytes, more bytes than a size_t can "
      "count");
  g_assert_cmpuint (nb, ==, 99);
}

static void
test_strides (void)
{
  int64_t s[TN_MAX_RANK];
  const int64_t d3[] = { 2, 3, 4 }, z[] = { 2, 0, 3 }, ones[] = { 1, 1 };
  const int64_t r8[] = { 2, 1, 3, 1, 2, 2, 1, 2 };
  const int64_t want8[] = { 24, 24, 8, 8, 4, 2, 2, 1 };

  tn_shape_strides (s, d3, 3);
  g_assert_cmpint (s[0], ==, 12);
  g_assert_cmpint (s[1], ==, 4);
  g_assert_cmpint (s[2], ==, 1);
  /* Zero extents count as 1: the strides of <2, 1, 3>. */
  tn_shape_strides (s, z, 3);
  g_assert_cmpint (s[0], ==, 3);
  g_assert_cmpint (s[1], ==, 3);
  g_assert_cmpint (s[2], ==, 1);
  tn_shape_strides (s, ones, 2);
  g_assert_cmpint (s[0], ==, 1);
  g_assert_cmpint (s[1], ==, 1);
  tn_shape_strides (s, r8, 8);
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (s[i], ==, want8[i]);
  s[0] = -5;
  tn_shape_strides (s, NULL, 0); /* rank 0 writes nothing */
  g_assert_cmpint (s[0], ==, -5);
}

static void
test_format (void)
{
  char buf[64];
  const int64_t d23[] = { 2, 3 }, big[] = { INT64_MAX, -1, 0 };

  g_assert_cmpint (tn_shape_format (buf, sizeof buf, d23, 2), ==, 6);
  g_assert_cmpstr (buf, ==, "<2, 3>");
  g_assert_cmpint (tn_shape_format (buf, sizeof buf, NULL, 0), ==, 2);
  g_assert_cmpstr (buf, ==, "<>");
  g_assert_cmpint (tn_shape_format (buf, sizeof buf, d23, 1), ==, 3);
  g_assert_cmpstr (buf, ==, "<2>");
  g_assert_cmpint (tn_shape_format (buf, sizeof buf, big, 3), ==, 28);
  g_assert_cmpstr (buf, ==, "<9223372036854775807, -1, 0>");
  /* Truncation keeps a NUL and still returns the full length. */
  g_assert_cmpint (tn_shape_format (buf, 4, d23, 2), ==, 6);
  g_assert_cmpstr (buf, ==, "<2,");
  g_assert_cmpint (tn_shape_format (buf, 6, d23, 2), ==, 6);
  g_assert_cmpstr (buf, ==, "<2, 3");
  g_assert_cmpint (tn_shape_format (buf, 7, d23, 2), ==, 6);
  g_assert_cmpstr (buf, ==, "<2, 3>");
  g_assert_cmpint (tn_shape_format (buf, 1, d23, 2), ==, 6);
  g_assert_cmpstr (buf, ==, "");
  buf[0] = 'x';
  g_assert_cmpint (tn_shape_format (buf, 0, d23, 2), ==, 6);
  g_assert_cmpint (buf[0], ==, 'x');
  g_assert_cmpint (tn_shape_format (NULL, 0, d23, 2), ==, 6);
}

static void
expect_broadcast (const int64_t *a, int ra, const int64_t *b, int rb,
    const int64_t *want, int rw)
{
  int64_t out[TN_MAX_RANK];
  int r = -1;
  tn_err e;

  g_assert_cmpint (tn_shape_broadcast (out, &r, a, ra, b, rb, &e), ==, 0);
  g_assert_cmpint (r, ==, rw);
  for (int i = 0; i < rw; i++)
    g_assert_cmpint (out[i], ==, want[i]);
  /* The rule is symmetric. */
  g_assert_cmpint (tn_shape_broadcast (out, &r, b, rb, a, ra, &e), ==, 0);
  g_assert_cmpint (r, ==, rw);
  for (int i = 0; i < rw; i++)
    g_assert_cmpint (out[i], ==, want[i]);
}

static void
test_broadcast (void)
{
  const int64_t a23[] = { 2, 3 }, b3[] = { 3 }, a415[] = { 4, 1, 5 };
  const int64_t b31[] = { 3, 1 }, w435[] = { 4, 3, 5 };
  const int64_t a10[] = { 1, 0 }, b51[] = { 5, 1 }, w50[] = { 5, 0 };
  const int64_t one[] = { 1 };
  int64_t out[TN_MAX_RANK] = { 9, 9 };
  int r;
  tn_err e;

  expect_broadcast (a23, 2, b3, 1, a23, 2);
  expect_broadcast (a415, 3, b31, 2, w435, 3);
  expect_broadcast (NULL, 0, NULL, 0, NULL, 0);
  expect_broadcast (NULL, 0, a23, 2, a23, 2);
  expect_broadcast (a10, 2, b51, 2, w50, 2);
  expect_broadcast (one, 1, a23, 2, a23, 2);
  /* out may alias an input. */
  memcpy (out, a415, sizeof a415);
  g_assert_cmpint (tn_shape_broadcast (out, &r, out, 3, b31, 2, &e), ==, 0);
  g_assert_cmpint (r, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (out[i], ==, w435[i]);
}

static void
test_broadcast_errors (void)
{
  const int64_t a23[] = { 2, 3 }, b2[] = { 2 }, a423[] = { 4, 2, 3 };
  const int64_t b53[] = { 5, 3 }, z[] = { 0 }, two[] = { 2 };
  const int64_t p40a[] = { (int64_t) 1 << 40, 1 },
                p40b[] = { (int64_t) 1 << 40 };
  const int64_t neg[] = { -2 };
  int64_t out[TN_MAX_RANK] = { 7, 7, 7 };
  int r = 7;
  tn_err e;

  g_assert_cmpint (tn_shape_broadcast (out, &r, a23, 2, b2, 1, &e), ==, -1);
  expect_msg (&e, "dims <2, 3> and <2> do not broadcast: axis 1 has 3 "
                  "against 2 and neither is 1");
  g_assert_cmpint (tn_shape_broadcast (out, &r, a423, 3, b53, 2, &e), ==, -1);
  expect_msg (&e, "dims <4, 2, 3> and <5, 3> do not broadcast: axis 1 has 2 "
                  "against 5 and neither is 1");
  g_assert_cmpint (tn_shape_broadcast (out, &r, z, 1, two, 1, &e), ==, -1);
  expect_msg (&e, "dims <0> and <2> do not broadcast: axis 0 has 0 against "
                  "2 and neither is 1");
  /* Each input fits in int64, their broadcast does not. */
  g_assert_cmpint (tn_shape_broadcast (out, &r, p40a, 2, p40b, 1, &e), ==, -1);
  expect_msg (&e, "dims <1099511627776, 1099511627776> hold too many items: "
                  "the product of the extents overflows 64 bits at axis 1");
  g_assert_cmpint (tn_shape_broadcast (out, &r, neg, 1, two, 1, &e), ==, -1);
  expect_msg (&e, "axis 0 has extent -2; extents must be 0 or more");
  g_assert_cmpint (tn_shape_broadcast (out, &r, two, 1, neg, 1, &e), ==, -1);
  expect_msg (&e, "axis 0 has extent -2; extents must be 0 or more");
  g_assert_cmpint (tn_shape_broadcast (out, &r, two, 9, two, 1, &e), ==, -1);
  expect_msg (&e, "rank 9 is out of range: a tensor has rank 0 to 8");
  g_assert_cmpint (tn_shape_broadcast (out, &r, two, 1, two, -2, &e), ==, -1);
  expect_msg (&e, "rank -2 is out of range: a tensor has rank 0 to 8");
  g_assert_cmpint (r, ==, 7);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (out[i], ==, 7);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shape/count", test_count);
  g_test_add_func ("/shape/count-errors", test_count_errors);
  g_test_add_func ("/shape/nbytes", test_nbytes);
  g_test_add_func ("/shape/nbytes-errors", test_nbytes_errors);
  g_test_add_func ("/shape/strides", test_strides);
  g_test_add_func ("/shape/format", test_format);
  g_test_add_func ("/shape/broadcast", test_broadcast);
  g_test_add_func ("/shape/broadcast-errors", test_broadcast_errors);
  return g_test_run ();
}
