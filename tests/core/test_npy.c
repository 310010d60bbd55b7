/* tn_npy_*: files written by NumPy (tests/data/gen/gen_npy.py), headers written
 * by hand, and every way a header can be wrong; tn_array_load_npy,
 * tn_array_decode_npy and tn_array_save_npy on those files, checked
 * against the formula values, NumPy's bytes and the tests' own reader. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/npy.h"
#include "tests/common/npyread.h"

/* The value gen_npy.py stores at row-major logical index k. */
static const gint64 S[9] = { 0, 5, 1000, 0, 100000007, 0, 0, 0, 300000000007 };
static const guint64 U[9] = { 0, 10, 2000, 0, 150000001, 0, 0, 0,
  G_GUINT64_CONSTANT (700000000000000001) };

typedef struct {
  const char *file;
  tn_dtype dtype;
  size_t itemsize;
  int major;
  bool big_endian, fortran;
  int rank;
  int64_t dims[TN_MAX_RANK];
} npy_case;

/* clang-format off */
static const npy_case cases[] = {
  {"npy_bool.npy", TN_BOOL, 1, 1, false, false, 2, {2, 3}},
  {"npy_int8.npy", TN_INT8, 1, 1, false, false, 2, {2, 3}},
  {"npy_uint8.npy", TN_UINT8, 1, 1, false, false, 2, {2, 3}},
  {"npy_int16.npy", TN_INT16, 2, 1, false, false, 2, {2, 3}},
  {"npy_uint16.npy", TN_UINT16, 2, 1, false, false, 2, {2, 3}},
  {"npy_int32.npy", TN_INT32, 4, 1, false, false, 2, {2, 3}},
  {"npy_uint32.npy", TN_UINT32, 4, 1, false, false, 2, {2, 3}},
  {"npy_int64.npy", TN_INT64, 8, 1, false, false, 2, {2, 3}},
  {"npy_uint64.npy", TN_UINT64, 8, 1, false, false, 2, {2, 3}},
  {"npy_float16.npy", TN_FLOAT16, 2, 1, false, false, 2, {2, 3}},
  {"npy_float32.npy", TN_FLOAT32, 4, 1, false, false, 2, {2, 3}},
  {"npy_float64.npy", TN_FLOAT64, 8, 1, false, false, 2, {2, 3}},
  {"npy_be_int16.npy", TN_INT16, 2, 1, true, false, 2, {2, 3}},
  {"npy_be_uint16.npy", TN_UINT16, 2, 1, true, false, 2, {2, 3}},
  {"npy_be_int32.npy", TN_INT32, 4, 1, true, false, 2, {2, 3}},
  {"npy_be_uint32.npy", TN_UINT32, 4, 1, true, false, 2, {2, 3}},
  {"npy_be_int64.npy", TN_INT64, 8, 1, true, false, 2, {2, 3}},
  {"npy_be_uint64.npy", TN_UINT64, 8, 1, true, false, 2, {2, 3}},
  {"npy_be_float16.npy", TN_FLOAT16, 2, 1, true, false, 2, {2, 3}},
  {"npy_be_float32.npy", TN_FLOAT32, 4, 1, true, false, 2, {2, 3}},
  {"npy_be_float64.npy", TN_FLOAT64, 8, 1, true, false, 2, {2, 3}},
  {"npy_v2_float32.npy", TN_FLOAT32, 4, 2, false, false, 2, {2, 3}},
  {"npy_v2_uint64.npy", TN_UINT64, 8, 2, false, false, 1, {3}},
  {"npy_v3_int16.npy", TN_INT16, 2, 3, false, false, 1, {4}},
  {"npy_fortran_float32.npy", TN_FLOAT32, 4, 1, false, true, 3, {2, 3, 4}},
  {"npy_fortran_int16.npy", TN_INT16, 2, 1, false, true, 2, {3, 5}},
  {"npy_fortran_be_float64.npy", TN_FLOAT64, 8, 1, true, true, 3, {2, 3, 4}},
  {"npy_rank0_float64.npy", TN_FLOAT64, 8, 1, false, false, 0, {0}},
  {"npy_rank0_bool.npy", TN_BOOL, 1, 1, false, false, 0, {0}},
  {"npy_rank1_int64.npy", TN_INT64, 8, 1, false, false, 1, {5}},
  {"npy_empty_float32.npy", TN_FLOAT32, 4, 1, false, false, 1, {0}},
  {"npy_empty_int32.npy", TN_INT32, 4, 1, false, false, 3, {3, 0, 2}},
  {"npy_rank8_uint8.npy", TN_UINT8, 1, 1, false, false, 8,
    {1, 2, 1, 2, 1, 2, 1, 2}},
  {"npy_rank8_fortran_int32.npy", TN_INT32, 4, 1, false, true, 8,
    {2, 1, 2, 1, 2, 1, 2, 1}},
  {"npy_wide_uint8.npy", TN_UINT8, 1, 1, false, false, 2,
    {0, G_GINT64_CONSTANT (9223372036854775807)}},
  {"npy_wide2_int16.npy", TN_INT16, 2, 1, false, false, 3,
    {G_GINT64_CONSTANT (123456789012), 0, 7}},
};
/* clang-format on */

static guint8 *
load (const char *name, gsize *len)
{
  gchar *path = npy_data_path (name), *data = NULL;
  GError *err = NULL;

  if (!g_file_get_contents (path, &data, len, &err))
    g_error ("%s", err->message);
  g_free (path);
  return (guint8 *) data;
}

/* The exact float16 bits of a value with few mantissa bits (the formula
 * values are multiples of 0.5 below 2048). */
static guint16
half_bits (double x)
{
  guint16 sign = x < 0 ? 0x8000 : 0;
  int e;
  double m;

  x = fabs (x);
  if (x == 0)
    return sign;
  m = frexp (x, &e); /* x = m * 2^e, 0.5 <= m < 1 */
  return sign | (guint16) ((e - 1 + 15) << 10) | (guint16) ((m * 2 - 1) * 1024);
}

/* Checks the item at p against the formula value for index k. */
static void
check_item (tn_dtype t, const guint8 *p, gint64 k, const char *file)
{
  gint64 i = 0;
  guint64 u = 0;
  double f = 0;

  switch (t) {
#define X(E, name, ctype, kind)                                                \
  case E: {                                                                    \
    ctype v;                                                                   \
    memcpy (&v, p, sizeof v);                                                  \
    if ((kind) == TN_KIND_FLOAT && sizeof v > 2)                               \
      f = (double) v;                                                          \
    else if ((kind) == TN_KIND_INT)                                            \
      i = (gint64) v;                                                          \
    else                                                                       \
      u = (guint64) v;                                                         \
    break;                                                                     \
  }
    TN_FOREACH_DTYPE (X)
#undef X
  default:
    g_assert_not_reached ();
  }
  switch (t) {
  case TN_BOOL:
    g_assert_cmpuint (u, ==, k % 3 == 0);
    break;
  case TN_INT8:
  case TN_INT16:
  case TN_INT32:
  case TN_INT64:
    g_assert_cmpint (i, ==, (k - 3) * S[tn_dtype_size (t)]);
    break;
  case TN_UINT8:
  case TN_UINT16:
  case TN_UINT32:
  case TN_UINT64:
    g_assert_cmpuint (u, ==, (guint64) k * U[tn_dtype_size (t)] + 1);
    break;
  case TN_FLOAT16:
    g_assert_cmphex (u, ==, half_bits ((k - 3) * 0.5));
    break;
  default:
    if (f != (k - 3) * 0.5)
      g_error ("%s item %" G_GINT64_FORMAT ": %g, expected %g", file, k, f,
          (k - 3) * 0.5);
  }
}

static void
test_file (gconstpointer data)
{
  const npy_case *c = data;
  gsize len, n;
  guint8 *buf = load (c->file, &len), *items;
  size_t need = 0, hl;
  char hdr[512];
  tn_npy h;
  tn_view v;
  tn_err e = { "" };
  int64_t idx[TN_MAX_RANK] = { 0 }, count = 1, k, at, dense[TN_MAX_RANK];
  int i;

  memset (&h, 0xa5, sizeof h);
  g_assert_cmpint (tn_npy_parse (&h, buf, len, &need, &e), ==, 0);
  g_assert_cmpint (h.major, ==, c->major);
  g_assert_cmpint (h.minor, ==, 0);
  g_assert_cmpint (h.dtype, ==, c->dtype);
  g_assert_cmpint (h.big_endian, ==, c->big_endian);
  g_assert_cmpint (h.fortran, ==, c->fortran);
  g_assert_cmpint (h.rank, ==, c->rank);
  for (i = 0; i < c->rank; i++) {
    g_assert_cmpint (h.dims[i], ==, c->dims[i]);
    count *= c->dims[i];
  }
  /* NumPy aligns every one of these files' data at byte 128. */
  g_assert_cmpuint (h.data_offset, ==, 128);
  g_assert_cmpuint (h.data_size, ==, (size_t) count * c->itemsize);
  g_assert_cmpuint (h.data_offset + h.data_size, ==, len);

  /* tn_npy_header writes what numpy.save wrote, byte for byte. */
  if (c->major == 1 && !c->fortran && !c->big_endian) {
    hl = tn_npy_header (hdr, sizeof hdr, c->dtype, c->dims, c->rank);
    g_assert_cmpuint (hl, ==, h.data_offset);
    g_assert_cmpmem (hdr, hl, buf, h.data_offset);
  }

  /* Values through the view's strides, in row-major logical order. */
  n = h.data_size;
  items = g_malloc (n + 1);
  memcpy (items, buf + h.data_offset, n);
  if (h.big_endian)
    tn_npy_swap (items, c->itemsize, (size_t) count);
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.rank, ==, c->rank);
  g_assert_cmpint (v.offset, ==, 0);
  g_assert_cmpint (tn_view_check (&v, count, &e), ==, 0);
  tn_shape_strides (dense, c->dims, c->rank);
  for (i = 0; i < c->rank && count > 0; i++)
    if (!c->fortran)
      g_assert_cmpint (v.strides[i], ==, dense[i]);
  for (k = 0; k < count; k++) {
    at = v.offset;
    for (i = 0; i < c->rank; i++)
      at += idx[i] * v.strides[i];
    g_assert_cmpint (at, <, count);
    check_item (c->dtype, items + at * c->itemsize, k, c->file);
    for (i = c->rank - 1; i >= 0 && ++idx[i] == c->dims[i]; i--)
      idx[i] = 0;
  }
  g_free (items);
  g_free (buf);
}

/* Column-major strides, worked by hand; zero extents count as one. */
static void
test_view_strides (void)
{
  tn_npy h = { 0 };
  tn_view v;
  tn_err e;

  h.dtype = TN_FLOAT32;
  h.rank = 3;
  h.dims[0] = 2;
  h.dims[1] = 3;
  h.dims[2] = 4;
  h.fortran = true;
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.dtype, ==, TN_FLOAT32);
  g_assert_cmpint (v.strides[0], ==, 1);
  g_assert_cmpint (v.strides[1], ==, 2);
  g_assert_cmpint (v.strides[2], ==, 6);
  g_assert_cmpint (tn_view_check (&v, 24, &e), ==, 0);
  g_assert_cmpint (tn_view_check (&v, 23, &e), ==, -1);
  h.fortran = false;
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.strides[0], ==, 12);
  g_assert_cmpint (v.strides[1], ==, 4);
  g_assert_cmpint (v.strides[2], ==, 1);
  g_assert_true (tn_view_dense (&v));
  h.dims[1] = 0;
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.strides[0], ==, 4);
  g_assert_cmpint (v.strides[1], ==, 4);
  g_assert_cmpint (v.strides[2], ==, 1);
  g_assert_cmpint (tn_view_check (&v, 0, &e), ==, 0);
  h.fortran = true;
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.strides[0], ==, 1);
  g_assert_cmpint (v.strides[1], ==, 2);
  g_assert_cmpint (v.strides[2], ==, 2);
  /* An unparsed hostile header saturates instead of wrapping. */
  h.rank = 4;
  h.dims[0] = h.dims[1] = h.dims[2] = h.dims[3] = G_GINT64_CONSTANT (1) << 40;
  tn_npy_view (&h, &v);
  g_assert_cmpint (v.strides[3], ==, G_MAXINT64);
  g_assert_cmpint (tn_view_check (&v, G_MAXINT64, &e), ==, -1);
}

static void
test_swap (void)
{
  guint8 b[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  guint8 s2[12] = { 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11 };
  guint8 s4[12] = { 4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9 };
  guint8 s8[12] = { 8, 7, 6, 5, 4, 3, 2, 1, 9, 10, 11, 12 };
  guint8 s3[12] = { 3, 2, 1, 6, 5, 4, 7, 8, 9, 10, 11, 12 };
  guint8 c[12];

  memcpy (c, b, 12);
  tn_npy_swap (c, 1, 12);
  g_assert_cmpmem (c, 12, b, 12);
  tn_npy_swap (c, 2, 6);
  g_assert_cmpmem (c, 12, s2, 12);
  memcpy (c, b, 12);
  tn_npy_swap (c, 4, 3);
  g_assert_cmpmem (c, 12, s4, 12);
  memcpy (c, b, 12);
  tn_npy_swap (c, 8, 1); /* only the first item */
  g_assert_cmpmem (c, 12, s8, 12);
  memcpy (c, b, 12);
  tn_npy_swap (c, 3, 2);
  g_assert_cmpmem (c, 12, s3, 12);
  tn_npy_swap (c, 8, 0);
  g_assert_cmpmem (c, 12, s3, 12);
}

/* Parses from a buffer of exactly len bytes, so ASan sees any read past
 * the end. */
static int
parse_exact (tn_npy *h, const void *data, size_t len, size_t *need, tn_err *e)
{
  void *copy = g_malloc (len ? len : 1);
  int r;

  memcpy (copy, data, len);
  r = tn_npy_parse (h, copy, len, need, e);
  g_free (copy);
  return r;
}

/* A file of the given version whose header is dict, a newline, and then
 * data_len zero bytes. */
static GByteArray *
make_file (int major, const char *dict, size_t data_len)
{
  GByteArray *b = g_byte_array_new ();
  size_t hlen = strlen (dict) + 1;
  guint8 pre[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (guint8) major, 0 };
  guint8 zero = 0;

  pre[8] = hlen & 0xff;
  pre[9] = (hlen >> 8) & 0xff;
  pre[10] = (hlen >> 16) & 0xff;
  pre[11] = (hlen >> 24) & 0xff;
  g_byte_array_append (b, pre, major == 1 ? 10 : 12);
  g_byte_array_append (b, (const guint8 *) dict, strlen (dict));
  g_byte_array_append (b, (const guint8 *) "\n", 1);
  while (data_len--)
    g_byte_array_append (b, &zero, 1);
  return b;
}

static int
parse_dict (int major, const char *dict, tn_npy *h, tn_err *e)
{
  GByteArray *b = make_file (major, dict, 0);
  size_t need = 0;
  int r;

  memset (e, 0, sizeof *e);
  r = parse_exact (h, b->data, b->len, &need, e);
  g_byte_array_unref (b);
  return r;
}

/* Whatever ast.literal_eval accepts in NumPy's three keys. */
static void
test_lenient (void)
{
  static const struct {
    int major;
    const char *dict;
    tn_dtype dtype;
    bool be, fortran;
    int rank;
    int64_t d0, d1;
  } ok[] = {
    { 1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
        TN_FLOAT32, false, false, 2, 2, 3 },
    { 1, "{\"descr\":\">i8\",\"fortran_order\":True,\"shape\":(2,3,),}",
        TN_INT64, true, true, 2, 2, 3 },
    { 1,
        "  {\n 'descr' : '|b1' ,\t'fortran_order':False,\r\n 'shape': "
        "( 5 , ) , }  \t\n   ",
        TN_BOOL, false, false, 1, 5, 0 },
    { 1, "{'descr': '?', 'fortran_order': False, 'shape': ()}", TN_BOOL, false,
        false, 0, 0, 0 },
    { 1, "{'descr': '=u2', 'fortran_order': False, 'shape': (7,)}", TN_UINT16,
        false, false, 1, 7, 0 },
    { 1, "{'descr': 'f8', 'fortran_order': False, 'shape': (7,)}", TN_FLOAT64,
        false, false, 1, 7, 0 },
    { 1, "{'descr': '>u1', 'fortran_order': False, 'shape': (7,)}", TN_UINT8,
        false, false, 1, 7, 0 },
    { 1, "{'descr': '>f2', 'fortran_order': False, 'shape': (0, 0)}",
        TN_FLOAT16, true, false, 2, 0, 0 },
    /* Python 2 writers put an L after long integers */
    { 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (3L, 4L)}",
        TN_UINT32, false, false, 2, 3, 4 },
    { 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (3L,)}", TN_INT32,
        false, false, 1, 3, 0 },
    { 3, "{'descr': '<i4', 'fortran_order': False, 'shape': (+3, -0, 00)}",
        TN_INT32, false, false, 3, 3, 0 },
  };
  size_t i;
  tn_npy h;
  tn_err e;

  for (i = 0; i < G_N_ELEMENTS (ok); i++) {
    if (parse_dict (ok[i].major, ok[i].dict, &h, &e) != 0)
      g_error ("%s: %s", ok[i].dict, e.msg);
    g_assert_cmpint (h.major, ==, ok[i].major);
    g_assert_cmpint (h.dtype, ==, ok[i].dtype);
    g_assert_cmpint (h.big_endian, ==, ok[i].be);
    g_assert_cmpint (h.fortran, ==, ok[i].fortran);
    g_assert_cmpint (h.rank, ==, ok[i].rank);
    if (ok[i].rank > 0)
      g_assert_cmpint (h.dims[0], ==, ok[i].d0);
    if (ok[i].rank > 1)
      g_assert_cmpint (h.dims[1], ==, ok[i].d1);
    g_assert_cmpuint (
        h.data_offset, ==, (ok[i].major == 1 ? 11 : 13) + strlen (ok[i].dict));
  }
}

/* Every malformed form, with the exact sentence (offsets are 10 + the
 * position in the dict for format 1.0). */
static void
test_malformed (void)
{
  static const struct {
    int major;
    const char *dict, *msg;
  } bad[] = {
    { 1, "",
        "npy header at byte 11: expected '{' to open the header dict, "
        "found the end of the header" },
    { 1, "['descr']",
        "npy header at byte 10: expected '{' to open the "
        "header dict, found '['" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': None}",
        "npy header at byte 60: expected a shape tuple, found 'None'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}",
        "npy header at byte 60: expected a shape tuple, found '['" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5)}",
        "npy header at byte 62: expected ',' after the only extent of a "
        "one-axis shape, found ')'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (,)}",
        "npy header at byte 61: expected an integer extent, found ','" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,3)}",
        "npy header at byte 63: expected an integer extent, found ','" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
        "npy header at byte 63: expected ',' or ')' in the shape tuple, "
        "found '3'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
        "npy header at byte 61: expected an integer extent, found '2.5'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0x10,)}",
        "npy header at byte 61: expected an integer extent, found '0x10'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (07,)}",
        "npy header at byte 61: expected an integer extent, found '07'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1_000,)}",
        "npy header at byte 61: expected an integer extent, found '1_000'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3",
        "npy header at byte 66: expected ',' or ')' in the shape tuple, "
        "found the end of the header" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,",
        "npy header at byte 64: expected ')' to close the shape tuple, "
        "found the end of the header" },
    { 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (3L,)}",
        "npy header at byte 63: expected an integer extent, found '3L'" },
    { 1, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
        "npy header at byte 44: expected True or False, found '0'" },
    { 1, "{'descr': '<f4', 'fortran_order': false, 'shape': ()}",
        "npy header at byte 44: expected True or False, found 'false'" },
    { 1, "{'descr': '<f4', 'fortran_order': Trueish, 'shape': ()}",
        "npy header at byte 44: expected True or False, found 'Trueish'" },
    { 1, "{'descr': 4, 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: expected a descr string such as '<f4', "
        "found '4'" },
    { 1, "{descr: '<f4', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 11: expected a key string ('descr', "
        "'fortran_order' or 'shape'), found 'descr'" },
    { 1, "{'descr' '<f4', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 19: expected ':' after the key, found "
        "\"'<f4'\"" },
    { 1, "{'descr': '<f4' 'fortran_order': False, 'shape': ()}",
        "npy header at byte 26: expected ',' or '}' after a value, found "
        "\"'fortran_order'\"" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",
        "npy header at byte 64: unexpected key 'x'; expected 'descr', "
        "'fortran_order' or 'shape'" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': (), "
        "'shape': ()}",
        "npy header at byte 64: the key 'shape' appears "
        "twice" },
    { 1, "{'descr': '<f4', 'shape': ()}",
        "npy header at byte 38: the "
        "header dict ends without the 'fortran_order' key" },
    { 1, "{}",
        "npy header at byte 11: the header dict ends without the "
        "'descr' key" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()",
        "npy header at byte 63: expected ',' or '}' after a value, found "
        "the end of the header" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (),",
        "npy header at byte 64: expected '}' to close the header dict, "
        "found the end of the header" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
        "npy header at byte 64: expected only padding after the header "
        "dict, found 'x'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}\x01",
        "npy header at byte 63: expected only padding after the header "
        "dict, found '\\x01'" },
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}}",
        "npy header at byte 63: expected only padding after the header "
        "dict, found '}'" },
    { 1, "{'descr': '<f4",
        "npy header at byte 20: the string that starts here is not "
        "closed" },
    { 1, "{'descr': '<f\n4', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: the string that starts here is not "
        "closed" },
    { 1, "{'descr': '<f\\x34', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 23: escape sequences in strings are not "
        "supported, found a backslash" },
    { 1,
        "{'descr': '<f4aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaa', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: the string that starts here is longer than "
        "64 bytes" },
    /* unsupported dtypes name the descr */
    { 1, "{'descr': '<c8', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<c8' (complex "
        "numbers are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '|O', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '|O' (Python "
        "objects are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '|S5', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '|S5' (byte "
        "strings are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<U3', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<U3' (unicode "
        "strings are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<M8[ns]' "
        "(datetimes are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<m8[s]', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<m8[s]' "
        "(timedeltas are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '|V8', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '|V8' (raw void "
        "records are not supported); expected bool, int8..int64, "
        "uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<f16', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<f16'; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<i3', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<i3'; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<b2', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<b2'; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<f4 ', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<f4 '; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr ''; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64" },
    { 1, "{'descr': '<i99999999999', 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: unsupported dtype descr '<i99999999999'; "
        "expected bool, int8..int64, uint8..uint64, float16, float32 or "
        "float64" },
    { 1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': ()}",
        "npy header at byte 20: descr is a list: structured dtypes are not "
        "supported" },
    /* hostile shapes */
    { 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}",
        "npy header at byte 64: extent -1 of axis 1 is negative" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': "
        "(9223372036854775808,)}",
        "npy header at byte 61: extent "
        "'9223372036854775808' of axis 0 does not fit in 64 bits" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': "
        "(1, 99999999999999999999999999999,)}",
        "npy header at byte 64: "
        "extent '999999999999999999999999...' of axis 1 does not fit in 64 "
        "bits" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': "
        "(2305843009213693952,)}",
        "npy header at byte 60: shape "
        "(2305843009213693952,) of 4-byte items needs more than 2^63 "
        "bytes" },
    { 1,
        "{'shape': (0, 4294967296, 4294967296), 'descr': '|u1', "
        "'fortran_order': False}",
        "npy header at byte 20: shape (0, "
        "4294967296, 4294967296) of 1-byte items needs more than 2^63 "
        "bytes" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': "
        "(1, 2, 3, 4, 5, 6, 7, 8, 9)}",
        "npy header at byte 60: the "
        "shape has 9 dimensions, more than the 8 supported" },
    { 1,
        "{'descr': '<f4', 'fortran_order': False, 'shape': "
        "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,)}",
        "npy header at byte 60: "
        "the shape has 12 dimensions, more than the 8 supported" },
  };
  size_t i;
  tn_npy h;
  tn_err e;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    if (parse_dict (bad[i].major, bad[i].dict, &h, &e) != -1)
      g_error ("accepted: %s", bad[i].dict);
    g_assert_cmpstr (e.msg, ==, bad[i].msg);
  }
}

/* Bytes that cannot be printed are shown escaped and cut after 24. */
static void
test_unprintable (void)
{
  GString *d = g_string_new ("{'"), *want = g_string_new (NULL);
  GByteArray *b;
  tn_npy h;
  tn_err e;
  size_t need;
  int i;

  for (i = 0; i < 30; i++)
    g_string_append_c (d, 1);
  g_string_append (d, "': 1}");
  g_string_append (want, "npy header at byte 11: unexpected key '");
  for (i = 0; i < 24; i++)
    g_string_append (want, "\\x01");
  g_string_append (want, "...'; expected 'descr', 'fortran_order' or "
                         "'shape'");
  g_assert_cmpint (parse_dict (1, d->str, &h, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, want->str);

  g_string_assign (d, "{'descr' '");
  for (i = 0; i < 30; i++)
    g_string_append_c (d, (char) 0xfe);
  g_string_append (d, "'");
  g_string_assign (want, "npy header at byte 19: expected ':' after the "
                         "key, found \"'");
  for (i = 0; i < 23; i++)
    g_string_append (want, "\\xfe");
  g_string_append (want, "...\"");
  g_assert_cmpint (parse_dict (1, d->str, &h, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, want->str);

  g_assert_cmpint (parse_dict (1,
                       "{'descr': '<\x7f"
                       "4', 'fortran_order': "
                       "False, 'shape': ()}",
                       &h, &e),
      ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 20: unsupported dtype "
      "descr '<\\x7f4'; expected bool, int8..int64, uint8..uint64, "
      "float16, float32 or float64");

  /* a NUL inside a key must not end it early ("descr\0x" is no key) */
  b = make_file (
      1, "{'descrX': '<f4', 'fortran_order': False, 'shape': ()}", 0);
  b->data[10 + 7] = 0;
  g_assert_cmpint (parse_exact (&h, b->data, b->len, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 17: expected a string, "
      "found a NUL byte in it");
  g_byte_array_unref (b);
  g_string_free (d, TRUE);
  g_string_free (want, TRUE);
}

static void
test_magic_version (void)
{
  GByteArray *b = make_file (
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4);
  guint8 *f = b->data;
  tn_npy h;
  tn_err e;
  size_t need, n;

  /* every prefix of the header asks for more, never reading past it */
  for (n = 0; n < 64; n++) {
    need = 0;
    g_assert_cmpint (parse_exact (&h, f, n, &need, &e), ==, 1);
    g_assert_cmpuint (need, ==, n < 10 ? 10 : 64);
  }
  g_assert_cmpint (parse_exact (&h, f, 3, &need, &e), ==, 1);
  g_assert_cmpstr (e.msg, ==,
      "npy header is incomplete: 3 bytes "
      "available, 10 needed for the magic, version and header length");
  g_assert_cmpint (parse_exact (&h, f, 40, &need, &e), ==, 1);
  g_assert_cmpstr (e.msg, ==,
      "npy header is incomplete: 40 bytes "
      "available, the header length at byte 8 says 64 are needed");
  g_assert_cmpint (parse_exact (&h, f, 64, &need, &e), ==, 0);
  g_assert_cmpuint (h.data_offset, ==, 64);
  g_assert_cmpuint (h.data_size, ==, 4);
  g_assert_cmpint (tn_npy_parse (&h, f, 64, NULL, NULL), ==, 0);
  g_assert_cmpint (tn_npy_parse (&h, f, 10, NULL, NULL), ==, 1);
  g_assert_cmpint (tn_npy_parse (&h, NULL, 0, NULL, NULL), ==, 1);

  /* bad magic is caught in the first differing byte, even in a prefix */
  f[0] = 0x94;
  g_assert_cmpint (parse_exact (&h, f, 1, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 0: expected the magic "
      "string \\x93NUMPY, found '\\x94'");
  f[0] = 0x93;
  f[3] = 'P';
  g_assert_cmpint (parse_exact (&h, f, 5, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 3: expected the magic "
      "string \\x93NUMPY, found 'P'");
  f[3] = 'M';
  f[6] = 4;
  g_assert_cmpint (parse_exact (&h, f, 7, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 6: expected format "
      "version 1.0, 2.0 or 3.0, found major version 4");
  f[6] = 0;
  g_assert_cmpint (parse_exact (&h, f, 64, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 6: expected format "
      "version 1.0, 2.0 or 3.0, found major version 0");
  f[6] = 1;
  f[7] = 1;
  g_assert_cmpint (parse_exact (&h, f, 8, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 7: expected format "
      "version 1.0, found 1.1");
  f[7] = 0;

  /* header length past the end of the file, and past any sane size */
  f[8] = 0xff;
  f[9] = 0xff;
  g_assert_cmpint (parse_exact (&h, f, b->len, &need, &e), ==, 1);
  g_assert_cmpuint (need, ==, 65545);
  f[6] = 2;
  g_assert_cmpint (parse_exact (&h, f, 11, &need, &e), ==, 1);
  g_assert_cmpuint (need, ==, 12);
  f[10] = 0xff;
  f[11] = 0xff;
  g_assert_cmpint (parse_exact (&h, f, b->len, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 8: the header length "
      "4294967295 is larger than the 1048576 bytes this reader accepts");
  f[10] = 0x10;
  f[11] = 0;
  f[8] = f[9] = 0;
  g_assert_cmpint (parse_exact (&h, f, b->len, &need, &e), ==, 1);
  g_assert_cmpuint (need, ==, 12 + 0x100000);
  f[10] = 0x10;
  f[8] = 1;
  g_assert_cmpint (parse_exact (&h, f, b->len, &need, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "npy header at byte 8: the header length "
      "1048577 is larger than the 1048576 bytes this reader accepts");
  g_byte_array_unref (b);
}

/* The data may be shorter than the header promises: parse succeeds and
 * tells the caller how much to expect. */
static void
test_short_data (void)
{
  gsize len;
  guint8 *buf = load ("npy_float64.npy", &len);
  tn_npy h;
  tn_err e;
  size_t need;

  g_assert_cmpint (parse_exact (&h, buf, len - 1, &need, &e), ==, 0);
  g_assert_cmpuint (h.data_offset + h.data_size, ==, len);
  g_assert_cmpuint (h.data_offset + h.data_size, >, len - 1);
  g_assert_cmpint (parse_exact (&h, buf, 128, &need, &e), ==, 0);
  g_assert_cmpuint (h.data_size, ==, 48);
  g_free (buf);
}

static void
test_header_writer (void)
{
  static const int64_t dims[][TN_MAX_RANK] = {
    { 0 },
    { 1 },
    { 7, 0 },
    { 3, 4, 5 },
    { 1, 2, 1, 2, 1, 2, 1, 2 },
    { G_GINT64_CONSTANT (9223372036854775807) },
    { G_GINT64_CONSTANT (1) << 31, G_GINT64_CONSTANT (1) << 31 },
  };
  static const int ranks[] = { 0, 1, 2, 3, 8, 1, 2 };
  char buf[512];
  size_t n, m, i;
  tn_npy h;
  tn_err e;
  int t, r, k;

  for (t = 0; t < TN_NDTYPES; t++)
    for (i = 0; i < G_N_ELEMENTS (ranks); i++) {
      n = tn_npy_header (buf, sizeof buf, t, dims[i], ranks[i]);
      /* the data of (2^63 - 1,) would end past 2^63 bytes, and so does
       * (2^31, 2^31) of items wider than one byte */
      if (t == TN_BFLOAT16 || i == 5 || (i == 6 && tn_dtype_size (t) > 1)) {
        g_assert_cmpuint (n, ==, 0);
        continue;
      }
      g_assert_cmpuint (n, >, 0);
      g_assert_cmpuint (n % 64, ==, 0);
      g_assert_cmpint (buf[n - 1], ==, '\n');
      r = tn_npy_parse (&h, buf, n, NULL, &e);
      if (r != 0)
        g_error ("%s", e.msg);
      g_assert_cmpint (h.major, ==, 1);
      g_assert_cmpint (h.dtype, ==, t);
      g_assert_false (h.big_endian);
      g_assert_false (h.fortran);
      g_assert_cmpint (h.rank, ==, ranks[i]);
      for (k = 0; k < ranks[i]; k++)
        g_assert_cmpint (h.dims[k], ==, dims[i][k]);
      g_assert_cmpuint (h.data_offset, ==, n);
      /* too small by one byte writes nothing */
      memset (buf, 0, sizeof buf);
      g_assert_cmpuint (
          tn_npy_header (buf, n - 1, t, dims[i], ranks[i]), ==, 0);
      g_assert_cmpint (buf[0], ==, 0);
      m = tn_npy_header (buf, n, t, dims[i], ranks[i]);
      g_assert_cmpuint (m, ==, n);
    }
  /* what NumPy writes, typed out by hand */
  n = tn_npy_header (buf, sizeof buf, TN_FLOAT32, dims[3], 2);
  g_assert_cmpuint (n, ==, 128);
  g_assert_cmpmem (buf, 10, "\x93NUMPY\x01\x00\x76\x00", 10);
  g_assert_true (g_str_has_prefix (buf + 10,
      "{'descr': '<f4', "
      "'fortran_order': False, 'shape': (3, 4), }                    "
      "                                      "));
  g_assert_cmpint (buf[10 + 60 + 20 + 37 - 1], ==, ' ');
  g_assert_cmpint (buf[127], ==, '\n');
  n = tn_npy_header (buf, sizeof buf, TN_BOOL, NULL, 0);
  g_assert_cmpuint (n, ==, 128);
  g_assert_true (g_str_has_prefix (buf + 10,
      "{'descr': '|b1', "
      "'fortran_order': False, 'shape': (), }          "));

  /* impossible requests */
  g_assert_cmpuint (
      tn_npy_header (buf, sizeof buf, TN_BFLOAT16, dims[3], 3), ==, 0);
  g_assert_cmpuint (
      tn_npy_header (buf, sizeof buf, TN_NDTYPES, dims[3], 3), ==, 0);
  g_assert_cmpuint (
      tn_npy_header (buf, sizeof buf, (tn_dtype) -1, dims[3], 3), ==, 0);
  g_assert_cmpuint (
      tn_npy_header (buf, sizeof buf, TN_UINT8, dims[4], 9), ==, 0);
  g_assert_cmpuint (
      tn_npy_header (buf, sizeof buf, TN_UINT8, dims[4], -1), ==, 0);
  g_assert_cmpuint (tn_npy_header (buf, sizeof buf, TN_UINT8, NULL, 1), ==, 0);
  {
    int64_t neg[2] = { 2, -3 };

    g_assert_cmpuint (tn_npy_header (buf, sizeof buf, TN_UINT8, neg, 2), ==, 0);
  }
  g_assert_cmpuint (tn_npy_header (NULL, 0, TN_UINT8, dims[4], 8), ==, 0);
}

/* ----------------------------------------------- tn_array and files --- */

static int64_t
dims_count (const int64_t *dims, int rank)
{
  int64_t n = 1;
  int i;

  for (i = 0; i < rank; i++)
    n = dims[i] == 0 || n == 0 ? 0 : n * dims[i];
  return n;
}

static void
assert_dims (const tn_view *v, tn_dtype t, const int64_t *dims, int rank)
{
  int i;

  g_assert_cmpint (v->dtype, ==, t);
  g_assert_cmpint (v->rank, ==, rank);
  for (i = 0; i < rank; i++)
    g_assert_cmpint (v->dims[i], ==, dims[i]);
  g_assert_cmpint (v->offset, ==, 0);
  g_assert_true (tn_view_dense (v));
}

/* The loader on each NumPy file: dense, C order, native byte order, the
 * items 64-byte aligned, each the formula's value at its row-major index
 * whatever the file's order and byte order; from memory, the same. */
static void
test_array_load (gconstpointer data)
{
  const npy_case *c = data;
  gchar *path = npy_data_path (c->file);
  int64_t count = dims_count (c->dims, c->rank), k;
  tn_err e = { "" };
  tn_array a, m;
  guint8 *buf;
  gsize len;
  Npy o;

  memset (&a, 0xa5, sizeof a);
  if (tn_array_load_npy (path, &a, &e) != 0)
    g_error ("%s", e.msg);
  assert_dims (&a.view, c->dtype, c->dims, c->rank);
  g_assert_cmpuint ((guintptr) a.data % TN_ARRAY_ALIGN, ==, 0);
  g_assert_cmpuint (tn_array_nbytes (&a), ==, (gsize) count * c->itemsize);
  for (k = 0; k < count; k++)
    check_item (
        c->dtype, (const guint8 *) a.data + k * c->itemsize, k, c->file);

  buf = load (c->file, &len);
  memset (&m, 0xa5, sizeof m);
  g_assert_cmpint (tn_array_decode_npy (buf, len, &m, &e), ==, 0);
  assert_dims (&m.view, c->dtype, c->dims, c->rank);
  g_assert_cmpuint ((guintptr) m.data % TN_ARRAY_ALIGN, ==, 0);
  g_assert_cmpmem (m.data, tn_array_nbytes (&m), a.data, tn_array_nbytes (&a));
  g_free (buf);

  /* The oracle reads the same header; a file already dense and native is
   * the array's bytes as they stand. */
  npy_read (&o, path);
  g_assert_cmpint (o.dtype, ==, c->dtype);
  g_assert_cmpint (o.rank, ==, c->rank);
  g_assert_cmpint (o.fortran, ==, c->fortran);
  g_assert_cmpint (o.big_endian, ==, c->big_endian);
  if (!o.fortran && !o.big_endian)
    g_assert_cmpmem (o.data, o.size, a.data, tn_array_nbytes (&a));
  npy_clear (&o);
  tn_array_clear (&m);
  tn_array_clear (&a);
  g_assert_null (a.data);
  tn_array_clear (&a); /* twice is harmless */
  g_free (path);
}

/* A file name in a new temporary directory; tmp_done removes both. */
static gchar *
tmp_file (const char *name)
{
  gchar *dir = g_dir_make_tmp ("tnnpy-XXXXXX", NULL), *path;

  g_assert_nonnull (dir);
  path = g_build_filename (dir, name, NULL);
  g_free (dir);
  return path;
}

static void
tmp_done (gchar *path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

/* Saved again, each file is NumPy's own save of the array: byte for byte
 * what numpy.save wrote for a little-endian C-order file of format 1.0
 * (the big-endian ones become their little-endian twins), and for the
 * rest a file the oracle reads as C order with the same items. */
static void
test_array_save (gconstpointer data)
{
  const npy_case *c = data;
  gchar *path = npy_data_path (c->file), *out = tmp_file ("a.npy"), *twin;
  guint8 *want, *got;
  gsize want_len, got_len;
  tn_array a, b;
  tn_err e = { "" };
  Npy o;

  g_assert_cmpint (tn_array_load_npy (path, &a, &e), ==, 0);
  if (tn_array_save_npy (out, &a, &e) != 0)
    g_error ("%s", e.msg);
  g_assert_true (g_file_get_contents (out, (gchar **) &got, &got_len, NULL));

  if (c->major == 1 && !c->fortran) {
    twin = c->big_endian ? g_strdup_printf ("npy_%s", c->file + 7)
                         : g_strdup (c->file);
    want = load (twin, &want_len);
    g_assert_cmpmem (got, got_len, want, want_len);
    g_free (want);
    g_free (twin);
  }
  npy_read (&o, out);
  g_assert_cmpint (o.major, ==, 1);
  g_assert_false (o.fortran);
  g_assert_false (o.big_endian);
  g_assert_cmpint (o.dtype, ==, c->dtype);
  g_assert_cmpint (o.rank, ==, c->rank);
  g_assert_cmpmem (
      o.dims, o.rank * sizeof o.dims[0], c->dims, c->rank * sizeof c->dims[0]);
  g_assert_cmpuint (o.offset % 64, ==, 0);
  g_assert_cmpmem (o.data, o.size, a.data, tn_array_nbytes (&a));
  npy_clear (&o);

  /* and loads back as it was */
  g_assert_cmpint (tn_array_load_npy (out, &b, &e), ==, 0);
  assert_dims (&b.view, c->dtype, c->dims, c->rank);
  g_assert_cmpmem (b.data, tn_array_nbytes (&b), a.data, tn_array_nbytes (&a));
  tn_array_clear (&b);

  tn_array_clear (&a);
  g_free (got);
  tmp_done (out);
  g_free (path);
}

/* Every dtype in every kind of shape, saved and loaded back: the oracle
 * reads NumPy's descr for it (bfloat16 as float32, the exact widening:
 * its bits in the top half), the shape and the items; the loader gives
 * back the same items. */
static void
test_array_round_trip (void)
{
  /* what NumPy calls each dtype, written out by hand */
  static const char *const descr[TN_NDTYPES] = { "|b1", "|i1", "|u1", "<i2",
    "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f4", "<f8" };
  static const int64_t dims[][TN_MAX_RANK] = {
    { 0 },
    { 2, 3 },
    { 1, 2, 1, 2, 1, 2, 1, 2 },
    { 3, 0, 2 },
    { 0 },
    { 5, 1, 7 },
  };
  static const int ranks[] = { 0, 2, 8, 3, 1, 3 };
  gchar *out = tmp_file ("r.npy");
  tn_err e = { "" };
  size_t i, j, n, sz;
  int t;

  for (t = 0; t < TN_NDTYPES; t++)
    for (i = 0; i < G_N_ELEMENTS (ranks); i++) {
      tn_dtype back = t == TN_BFLOAT16 ? TN_FLOAT32 : (tn_dtype) t;
      guint8 *p;
      tn_array a, b;
      Npy o;

      g_assert_cmpint (tn_array_init (&a, t, dims[i], ranks[i], &e), ==, 0);
      assert_dims (&a.view, t, dims[i], ranks[i]);
      sz = tn_dtype_size (t);
      n = tn_array_nbytes (&a);
      g_assert_cmpuint (n, ==, dims_count (dims[i], ranks[i]) * sz);
      p = a.data;
      for (j = 0; j < n; j++) {
        g_assert_cmpuint (p[j], ==, 0); /* init zeroes */
        /* bool items are 0 or 1; the rest any bits at all */
        p[j] = t == TN_BOOL ? j % 3 == 1 : (guint8) (j * 37 + 11);
      }
      if (tn_array_save_npy (out, &a, &e) != 0)
        g_error ("%s", e.msg);

      npy_read (&o, out);
      g_assert_cmpstr (o.descr, ==, descr[t]);
      g_assert_false (o.fortran);
      g_assert_cmpint (o.rank, ==, ranks[i]);
      g_assert_cmpmem (o.dims, o.rank * sizeof o.dims[0], dims[i],
          ranks[i] * sizeof dims[i][0]);
      if (t != TN_BFLOAT16) {
        g_assert_cmpmem (o.data, o.size, a.data, n);
      } else {
        g_assert_cmpuint (o.size, ==, n * 2);
        for (j = 0; j < n / 2; j++) {
          guint32 w;
          guint16 h;

          memcpy (&w, o.data + 4 * j, 4);
          memcpy (&h, p + 2 * j, 2);
          g_assert_cmphex (w, ==, (guint32) h << 16);
        }
      }

      g_assert_cmpint (tn_array_load_npy (out, &b, &e), ==, 0);
      assert_dims (&b.view, back, dims[i], ranks[i]);
      g_assert_cmpmem (b.data, tn_array_nbytes (&b), o.data, o.size);
      npy_clear (&o);
      tn_array_clear (&b);
      tn_array_clear (&a);
    }
  tmp_done (out);
}

/* A bfloat16 array of the formula's float values saves as NumPy saved
 * them in float32: bfloat16 holds (k - 3) * 0.5 exactly. */
static void
test_array_save_bf16 (void)
{
  static const int64_t dims[] = { 2, 3 };
  gchar *out = tmp_file ("bf.npy");
  guint8 *want, *got;
  gsize want_len, got_len;
  tn_err e = { "" };
  tn_array a;
  int k;

  g_assert_cmpint (tn_array_init (&a, TN_BFLOAT16, dims, 2, &e), ==, 0);
  for (k = 0; k < 6; k++) {
    float f = (k - 3) * 0.5f;
    guint32 u;

    memcpy (&u, &f, 4);
    ((guint16 *) a.data)[k] = (guint16) (u >> 16);
  }
  g_assert_cmpint (tn_array_save_npy (out, &a, &e), ==, 0);
  g_assert_true (g_file_get_contents (out, (gchar **) &got, &got_len, NULL));
  want = load ("npy_float32.npy", &want_len);
  g_assert_cmpmem (got, got_len, want, want_len);
  g_free (want);
  g_free (got);
  tn_array_clear (&a);
  tmp_done (out);
}

/* bytes (len of them) as a file at path: the loader and the decoder both
 * refuse them, leave the array empty and say why, the loader naming the
 * path first. */
static void
expect_bad (const gchar *path, const void *bytes, gsize len, const gchar *why)
{
  gchar *want = g_strdup_printf ("'%s': %s", path, why);
  tn_array a;
  tn_err e;

  g_assert_true (g_file_set_contents (path, bytes, (gssize) len, NULL));
  memset (&a, 0xa5, sizeof a);
  g_assert_cmpint (tn_array_load_npy (path, &a, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, want);
  g_assert_null (a.data);
  memset (&a, 0xa5, sizeof a);
  g_assert_cmpint (tn_array_decode_npy (bytes, len, &a, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, why);
  g_assert_null (a.data);
  g_unlink (path);
  g_free (want);
}

/* What each failure says, and that it leaves the array empty. */
static void
test_array_errors (void)
{
  static const int64_t d23[] = { 2, 3 }, neg[] = { 2, -1 };
  gchar *dir = g_dir_make_tmp ("tnnpy-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "bad.npy", NULL), *want, *nodir;
  guint8 *buf;
  gsize len;
  tn_err e;
  tn_array a;

  /* a file that is not there: -2, and errno says why */
  memset (&a, 0xa5, sizeof a);
  errno = 0;
  g_assert_cmpint (tn_array_load_npy ("/nonexistent/x.npy", &a, &e), ==, -2);
  g_assert_cmpint (errno, ==, ENOENT);
  g_assert_cmpstr (
      e.msg, ==, "cannot open '/nonexistent/x.npy': No such file or directory");
  g_assert_null (a.data);

  /* data cut short: the count of bytes there and promised */
  buf = load ("npy_float32.npy", &len);
  g_assert_cmpuint (len, ==, 128 + 24);
  expect_bad (path, buf, 128 + 20,
      "the file holds 20 bytes of data but its header promises 24");
  g_free (buf);
  /* a header that promises 4 TiB is refused before anything is made */
  {
    const int64_t huge[] = { G_GINT64_CONSTANT (1) << 40 };
    char hdr[256];
    size_t hl = tn_npy_header (hdr, sizeof hdr, TN_FLOAT32, huge, 1);

    g_assert_cmpuint (hl, ==, 128);
    expect_bad (path, hdr, hl,
        "the file holds 0 bytes of data but its header promises "
        "4398046511104");
  }
  /* the header cut short, or wrong, in the parser's words */
  expect_bad (path, "\x93NUMPY\x01\x00\x76\x00{'d", 14,
      "the file is cut short: npy header is incomplete: 14 bytes "
      "available, the header length at byte 8 says 128 are needed");
  expect_bad (path, "not a numpy file", 16,
      "not a valid .npy file: npy header at byte 0: expected the magic "
      "string \\x93NUMPY, found 'n'");
  expect_bad (path, "", 0,
      "the file is cut short: npy header is incomplete: 0 bytes available, "
      "10 needed for the magic, version and header length");
  g_free (path);

  /* a directory is no file */
  g_assert_cmpint (tn_array_load_npy (dir, &a, &e), ==, -1);
  g_assert_null (a.data);
  g_assert_nonnull (strstr (e.msg, dir));

  /* saving where no file can be, or an empty array */
  g_assert_cmpint (tn_array_init (&a, TN_INT16, d23, 2, &e), ==, 0);
  nodir = g_build_filename (dir, "no", "x.npy", NULL);
  g_assert_cmpint (tn_array_save_npy (nodir, &a, &e), ==, -1);
  want = g_strdup_printf (
      "cannot open '%s' for writing: No such file or directory", nodir);
  g_assert_cmpstr (e.msg, ==, want);
  g_free (want);
  tn_array_clear (&a);
  g_assert_cmpint (tn_array_save_npy (nodir, &a, &e), ==, -1);
  want = g_strdup_printf ("cannot write '%s': the array is empty", nodir);
  g_assert_cmpstr (e.msg, ==, want);
  g_free (want);
  g_free (nodir);

  /* shapes and dtypes that are no array */
  memset (&a, 0xa5, sizeof a);
  g_assert_cmpint (tn_array_init (&a, TN_INT16, neg, 2, &e), ==, -1);
  g_assert_null (a.data);
  g_assert_nonnull (strstr (e.msg, "-1"));
  g_assert_cmpint (tn_array_init (&a, TN_INT16, d23, 9, &e), ==, -1);
  g_assert_null (a.data);
  g_assert_cmpint (tn_array_init (&a, TN_NDTYPES, d23, 2, &e), ==, -1);
  g_assert_null (a.data);
  g_assert_cmpuint (tn_array_nbytes (&a), ==, 0);

  g_rmdir (dir);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  size_t i;

  g_test_init (&argc, &argv, NULL);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *name = g_strdup_printf ("/npy/file/%s", cases[i].file);

    g_test_add_data_func (name, &cases[i], test_file);
    g_free (name);
    name = g_strdup_printf ("/npy/array/load/%s", cases[i].file);
    g_test_add_data_func (name, &cases[i], test_array_load);
    g_free (name);
    name = g_strdup_printf ("/npy/array/save/%s", cases[i].file);
    g_test_add_data_func (name, &cases[i], test_array_save);
    g_free (name);
  }
  g_test_add_func ("/npy/view/strides", test_view_strides);
  g_test_add_func ("/npy/swap", test_swap);
  g_test_add_func ("/npy/parse/lenient", test_lenient);
  g_test_add_func ("/npy/parse/malformed", test_malformed);
  g_test_add_func ("/npy/parse/unprintable", test_unprintable);
  g_test_add_func ("/npy/parse/magic-version", test_magic_version);
  g_test_add_func ("/npy/parse/short-data", test_short_data);
  g_test_add_func ("/npy/header/writer", test_header_writer);
  g_test_add_func ("/npy/array/round-trip", test_array_round_trip);
  g_test_add_func ("/npy/array/save-bfloat16", test_array_save_bf16);
  g_test_add_func ("/npy/array/errors", test_array_errors);
  return g_test_run ();
}
