/* dtype tags: names, sizes, kinds, and the name parser's errors. */
#include <glib.h>
#include <limits.h>
#include <string.h>

#include "core/dtype.h"

static const struct {
  tn_dtype t;
  const char *name;
  size_t size;
  tn_kind kind;
} table[] = {
  { TN_BOOL, "bool", 1, TN_KIND_BOOL },
  { TN_INT8, "int8", 1, TN_KIND_INT },
  { TN_UINT8, "uint8", 1, TN_KIND_UINT },
  { TN_INT16, "int16", 2, TN_KIND_INT },
  { TN_UINT16, "uint16", 2, TN_KIND_UINT },
  { TN_INT32, "int32", 4, TN_KIND_INT },
  { TN_UINT32, "uint32", 4, TN_KIND_UINT },
  { TN_INT64, "int64", 8, TN_KIND_INT },
  { TN_UINT64, "uint64", 8, TN_KIND_UINT },
  { TN_FLOAT16, "float16", 2, TN_KIND_FLOAT },
  { TN_BFLOAT16, "bfloat16", 2, TN_KIND_FLOAT },
  { TN_FLOAT32, "float32", 4, TN_KIND_FLOAT },
  { TN_FLOAT64, "float64", 8, TN_KIND_FLOAT },
};

static const char all_names[]
    = "bool, int8, uint8, int16, uint16, int32, "
      "uint32, int64, uint64, float16, bfloat16, float32, float64";

static void
test_table (void)
{
  gsize i;

  g_assert_cmpint (G_N_ELEMENTS (table), ==, TN_NDTYPES);
  for (i = 0; i < G_N_ELEMENTS (table); i++) {
    tn_dtype out = TN_NDTYPES;
    tn_err e = { "untouched" };
    g_assert_cmpint (table[i].t, ==, (int) i);
    g_assert_true (tn_dtype_valid (table[i].t));
    g_assert_cmpstr (tn_dtype_name (table[i].t), ==, table[i].name);
    g_assert_cmpuint (tn_dtype_size (table[i].t), ==, table[i].size);
    g_assert_cmpint (tn_dtype_kind (table[i].t), ==, table[i].kind);
    g_assert_cmpint (tn_dtype_from_name (table[i].name, &out, &e), ==, 0);
    g_assert_cmpint (out, ==, table[i].t);
    g_assert_cmpstr (e.msg, ==, "untouched");
    /* out and e may be NULL. */
    g_assert_cmpint (tn_dtype_from_name (table[i].name, NULL, NULL), ==, 0);
  }
}

/* The X-macro list and the enum agree, entry by entry. */
static void
test_xmacro (void)
{
#define CHECK(e, name, ct, kind)                                               \
  g_assert_cmpstr (tn_dtype_name (e), ==, #name);                              \
  g_assert_cmpuint (tn_dtype_size (e), ==, sizeof (ct));                       \
  g_assert_cmpint (tn_dtype_kind (e), ==, kind);                               \
  n++;
  int n = 0;

  TN_FOREACH_DTYPE (CHECK);
  g_assert_cmpint (n, ==, TN_NDTYPES);
#undef CHECK
}

static void
test_invalid_tags (void)
{
  const int bad[] = { -1, TN_NDTYPES, 14, 100, INT_MIN, INT_MAX };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_false (tn_dtype_valid (bad[i]));
    g_assert_null (tn_dtype_name ((tn_dtype) bad[i]));
    g_assert_cmpuint (tn_dtype_size ((tn_dtype) bad[i]), ==, 0);
  }
}

/* A rejected name leaves *out alone and says what came and what would do. */
static void
expect_reject (const char *name, const char *quoted)
{
  tn_dtype out = TN_FLOAT64;
  tn_err e = { "" };
  gchar *want;

  g_assert_cmpint (tn_dtype_from_name (name, &out, &e), ==, -1);
  g_assert_cmpint (out, ==, TN_FLOAT64);
  want = g_strdup_printf ("Unknown dtype %s: expected one of the 13 names "
                          "%s.",
      quoted, all_names);
  g_assert_cmpstr (e.msg, ==, want);
  g_free (want);
  /* A NULL error pointer is fine too. */
  g_assert_cmpint (tn_dtype_from_name (name, NULL, NULL), ==, -1);
}

static void
test_bad_names (void)
{
  tn_err e = { "" };
  gchar *want;

  expect_reject ("float", "\"float\"");
  expect_reject ("", "\"\"");
  expect_reject ("Float32", "\"Float32\"");
  expect_reject ("float32 ", "\"float32 \"");
  expect_reject ("f4", "\"f4\"");
  expect_reject ("uint8\n", "\"uint8\n\"");
  /* Long names are cut at 40 bytes so the list still fits. */
  expect_reject ("abcdefghijabcdefghijabcdefghijabcdefghijXYZ",
      "\"abcdefghijabcdefghijabcdefghijabcdefghij\"...");
  expect_reject ("abcdefghijabcdefghijabcdefghijabcdefghij",
      "\"abcdefghijabcdefghijabcdefghijabcdefghij\"");

  g_assert_cmpint (tn_dtype_from_name (NULL, NULL, &e), ==, -1);
  want = g_strdup_printf ("No dtype name was given; expected one of the 13 "
                          "names %s.",
      all_names);
  g_assert_cmpstr (e.msg, ==, want);
  g_free (want);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dtype/table", test_table);
  g_test_add_func ("/dtype/xmacro", test_xmacro);
  g_test_add_func ("/dtype/invalid-tags", test_invalid_tags);
  g_test_add_func ("/dtype/bad-names", test_bad_names);
  return g_test_run ();
}
