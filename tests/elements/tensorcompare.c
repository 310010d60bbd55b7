/* tensorcompare: every case of tests/data/gen/gen_compare.py (cases.ini)
 * with the fields of its element message checked value by value against
 * NumPy's verdict; on-mismatch modes; every reference form with missing
 * and extra references; the expected pad by order and by PTS; strided
 * input read in place; the ALLOCATION answers; record=true read back;
 * and the property errors. */
#include <math.h>
#include <string.h>

#include <gst/check/gstharness.h>

#include "common/npyread.h"
#include "core/array.h"
#include "core/npy.h"
#include "common/tncheck.h"

typedef struct {
  GstHarness *h;
  GstElement *e;
  GstBus *bus;
} Cmp;

/* tensorcompare with properties "name", value, ... (strings), its own
 * bus, silent and on-mismatch=message unless the list says otherwise. */
static void
cmp_new (Cmp *c, const gchar *name, ...)
{
  va_list ap;

  c->e = gst_element_factory_make ("tensorcompare", "cmp");
  fail_unless (c->e != NULL);
  c->bus = gst_bus_new ();
  gst_element_set_bus (c->e, c->bus);
  g_object_set (c->e, "silent", TRUE, NULL);
  gst_util_set_object_arg (G_OBJECT (c->e), "on-mismatch", "message");
  va_start (ap, name);
  for (; name != NULL; name = va_arg (ap, const gchar *))
    gst_util_set_object_arg (G_OBJECT (c->e), name, va_arg (ap, const gchar *));
  va_end (ap);
}

static void
cmp_start (Cmp *c)
{
  c->h = gst_harness_new_with_element (c->e, "sink", "src");
}

static void
cmp_free (Cmp *c)
{
  gst_harness_teardown (c->h);
  gst_bus_set_flushing (c->bus, TRUE);
  gst_object_unref (c->bus);
  gst_object_unref (c->e);
}

static gchar *
npy_caps (const Npy *a)
{
  GString *d = g_string_new ("<");
  gchar *caps;

  for (gint i = 0; i < a->rank; i++)
    g_string_append_printf (
        d, "%s%" G_GINT64_FORMAT, i ? ", " : "", (gint64) a->dims[i]);
  g_string_append (d, ">");
  caps = tn_tensor_caps (tn_dtype_name (a->dtype), d->str);
  g_string_free (d, TRUE);
  return caps;
}

/* A buffer of the items of tests/data file name, with its caps set on h
 * (once). */
static GstBuffer *
buffer_from (GstHarness *h, const gchar *name, GstClockTime pts)
{
  Npy a;
  GstBuffer *b;
  gchar *caps;

  npy_load (&a, name);
  caps = npy_caps (&a);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  b = gst_buffer_new_memdup (a.data, a.size);
  GST_BUFFER_PTS (b) = pts;
  npy_clear (&a);
  return b;
}

/* Pushes b, checks the very buffer comes out, drops it. */
static void
push_through (GstHarness *h, GstBuffer *b)
{
  GstBuffer *out;

  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (b)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out == b, "tensorcompare must pass its input buffer on");
  gst_buffer_unref (out);
  gst_buffer_unref (b);
}

/* The next element message of that name on bus (unref it). */
static GstMessage *
pop_message (GstBus *bus, const gchar *name)
{
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) != NULL) {
    if (gst_structure_has_name (gst_message_get_structure (m), name))
      return m;
    gst_message_unref (m);
  }
  fail ("no %s message", name);
  return NULL;
}

static const GstStructure *
st (GstMessage *m)
{
  return gst_message_get_structure (m);
}

static gboolean
field_bool (const GstStructure *s, const gchar *f)
{
  gboolean v;

  fail_unless (gst_structure_get_boolean (s, f, &v), "no field %s", f);
  return v;
}

static gint64
field_int64 (const GstStructure *s, const gchar *f)
{
  gint64 v;

  fail_unless (gst_structure_get_int64 (s, f, &v), "no field %s", f);
  return v;
}

static guint64
field_uint64 (const GstStructure *s, const gchar *f)
{
  guint64 v;

  fail_unless (gst_structure_get_uint64 (s, f, &v), "no field %s", f);
  return v;
}

static gdouble
field_double (const GstStructure *s, const gchar *f)
{
  gdouble v;

  fail_unless (gst_structure_get_double (s, f, &v), "no field %s", f);
  return v;
}

static gchar *
field_index (const GstStructure *s)
{
  const GValue *v = gst_structure_get_value (s, "first-mismatch");
  GString *out = g_string_new (NULL);

  fail_unless (v != NULL && GST_VALUE_HOLDS_ARRAY (v));
  for (guint i = 0; i < gst_value_array_get_size (v); i++)
    g_string_append_printf (out, "%s%d", i ? "," : "",
        g_value_get_int (gst_value_array_get_value (v, i)));
  return g_string_free (out, FALSE);
}

/* A double of the ini file: Python's repr, or inf. */
static gdouble
ini_double (GKeyFile *kf, const gchar *g, const gchar *k)
{
  gchar *s = g_key_file_get_string (kf, g, k, NULL);
  gdouble v;

  fail_unless (s != NULL, "[%s] has no %s", g, k);
  v = g_ascii_strtod (s, NULL);
  g_free (s);
  return v;
}

/* Doubles equal bit for bit; NaN equals NaN. */
#define assert_same_double(got, want, what)                                    \
  fail_unless ((isnan (got) && isnan (want)) || (got) == (want),               \
      "%s: %.17g, NumPy %.17g", (what), (got), (want))

static void
check_case (GKeyFile *kf, const gchar *g)
{
  gchar *a = g_strdup_printf ("cmp_%s_a.npy", g);
  gchar *e = g_strdup_printf ("cmp_%s_e.npy", g);
  gchar *ref = tn_test_data (e);
  gchar *props = g_key_file_get_string (kf, g, "props", NULL);
  gchar **kv = g_strsplit (props ? props : "", " ", -1);
  const GstStructure *s;
  GstMessage *m;
  Cmp c;

  cmp_new (&c, "reference", ref, NULL);
  for (gint i = 0; kv[i]; i++) {
    gchar **p = g_strsplit (kv[i], "=", 2);

    if (p[0] && p[1])
      gst_util_set_object_arg (G_OBJECT (c.e), p[0], p[1]);
    g_strfreev (p);
  }
  cmp_start (&c);
  push_through (c.h, buffer_from (c.h, a, 0));
  m = pop_message (c.bus, "tensorcompare");
  s = st (m);
  fail_unless_equals_uint64 (field_uint64 (s, "index"), 0);
  fail_unless_equals_uint64 (field_uint64 (s, "pts"), 0);
  if (!g_key_file_has_key (kf, g, "passed", NULL)) {
    /* dtype or dims differ: only the sentence */
    const gchar *text = gst_structure_get_string (s, "text");

    fail_if (field_bool (s, "passed"));
    const gchar *want
        = strcmp (g, "dtype") == 0
              ? "buffer 0 (pts 0:00:00.000000000): dtype float32 against "
                "float64 "
                "(actual against expected)"
              : "buffer 0 (pts 0:00:00.000000000): dims <2, 3> against <3, 2> "
                "(actual against expected)";

    fail_unless_equals_string (text, want);
  } else {
    gboolean passed = g_key_file_get_boolean (kf, g, "passed", NULL);

    fail_unless_equals_int (field_bool (s, "passed"), passed);
    fail_unless_equals_int64 (
        field_int64 (s, "items"), g_key_file_get_int64 (kf, g, "items", NULL));
    fail_unless_equals_int64 (field_int64 (s, "mismatches"),
        g_key_file_get_int64 (kf, g, "mismatches", NULL));
    assert_same_double (
        field_double (s, "max-abs"), ini_double (kf, g, "max-abs"), "max-abs");
    assert_same_double (
        field_double (s, "max-rel"), ini_double (kf, g, "max-rel"), "max-rel");
    fail_unless_equals_uint64 (field_uint64 (s, "max-ulp"),
        g_key_file_get_uint64 (kf, g, "max-ulp", NULL));
    if (!passed) {
      /* not "first": fail_unless_equals_string has a local of that name */
      gchar *idx = field_index (s);
      gchar *want = g_key_file_get_string (kf, g, "first", NULL);
      gchar *text = g_key_file_get_string (kf, g, "text", NULL);
      gchar *full
          = g_strconcat ("buffer 0 (pts 0:00:00.000000000): ", text, NULL);

      fail_unless_equals_string (idx, want);
      assert_same_double (
          field_double (s, "actual"), ini_double (kf, g, "actual"), "actual");
      assert_same_double (field_double (s, "expected"),
          ini_double (kf, g, "expected"), "expected");
      fail_unless_equals_string (gst_structure_get_string (s, "text"), full);
      g_free (full);
      g_free (text);
      g_free (want);
      g_free (idx);
    } else {
      fail_if (gst_structure_has_field (s, "text"));
    }
  }
  gst_message_unref (m);
  cmp_free (&c);
  g_strfreev (kv);
  g_free (props);
  g_free (ref);
  g_free (e);
  g_free (a);
}

GST_START_TEST (test_cases)
{
  GKeyFile *kf = g_key_file_new ();
  gchar *path = tn_test_data ("cases.ini");
  gchar **groups;
  gsize n;

  fail_unless (g_key_file_load_from_file (kf, path, 0, NULL), "%s", path);
  groups = g_key_file_get_groups (kf, &n);
  fail_unless (n >= 20, "cases.ini holds %u cases", (guint) n);
  for (gsize i = 0; i < n; i++)
    check_case (kf, groups[i]);
  g_strfreev (groups);
  g_key_file_unref (kf);
  g_free (path);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* on-mismatch=error: the chain fails and the error carries the sentence;
 * warning: the buffer goes on and the warning carries it. */
GST_START_TEST (test_on_mismatch)
{
  const gchar *want = "buffer 0 (pts 0:00:00.000000000): 2 of 20 items "
                      "differ beyond rtol=0.0001, atol=1e-06; first at "
                      "[1, 4]: 1.2857143 against 1.2861 (abs 0.00038576126, "
                      "rel 0.0003); worst abs 0.00049996376 at [2, 3]";
  gchar *ref = tn_test_data ("cmp_tol_e.npy");
  gchar *text;
  Cmp c;

  cmp_new (&c, "reference", ref, "rtol", "1e-4", "atol", "1e-6", "on-mismatch",
      "error", NULL);
  cmp_start (&c);
  fail_unless_equals_int (
      gst_harness_push (c.h, buffer_from (c.h, "cmp_tol_a.npy", 0)),
      GST_FLOW_ERROR);
  /* the failing buffer went on before the error (a sink prerolls) */
  gst_buffer_unref (gst_harness_pull (c.h));
  text = tn_pop_text (c.bus, GST_MESSAGE_ERROR);
  fail_unless_equals_string (text, want);
  g_free (text);
  cmp_free (&c);

  cmp_new (&c, "reference", ref, "rtol", "1e-4", "atol", "1e-6", "on-mismatch",
      "warning", NULL);
  cmp_start (&c);
  push_through (c.h, buffer_from (c.h, "cmp_tol_a.npy", 0));
  text = tn_pop_text (c.bus, GST_MESSAGE_WARNING);
  fail_unless_equals_string (text, want);
  g_free (text);
  fail_unless (gst_bus_pop_filtered (c.bus, GST_MESSAGE_ERROR) == NULL);
  cmp_free (&c);
  g_free (ref);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Pushes buffers seq_00000 .. seq_{n-1} (seq_00000 again past 2), at
 * 100 ms each, then EOS. */
static void
push_seq (Cmp *c, gint n)
{
  for (gint k = 0; k < n; k++) {
    gchar *name = g_strdup_printf ("seq_%05d.npy", k < 3 ? k : 0);

    push_through (c->h, buffer_from (c->h, name, k * 100 * GST_MSECOND));
    g_free (name);
  }
  /* FALSE when EOS found an error (references left over) */
  gst_harness_push_event (c->h, gst_event_new_eos ());
}

/* The buffers' messages: passed or not, in order; then the summary. */
static void
expect_results (Cmp *c, const gchar *passed, guint64 failed)
{
  GstMessage *m;

  for (guint k = 0; passed[k]; k++) {
    m = pop_message (c->bus, "tensorcompare");
    fail_unless_equals_uint64 (field_uint64 (st (m), "index"), k);
    fail_unless_equals_int (field_bool (st (m), "passed"), passed[k] == '1');
    gst_message_unref (m);
  }
  m = pop_message (c->bus, "tensorcompare-summary");
  fail_unless_equals_uint64 (field_uint64 (st (m), "failed"), failed);
  gst_message_unref (m);
}

/* The text of the next failing buffer message. */
static gchar *
next_failure_text (Cmp *c)
{
  GstMessage *m;
  gchar *text;

  do {
    m = pop_message (c->bus, "tensorcompare");
    if (field_bool (st (m), "passed"))
      gst_message_unref (m);
    else
      break;
  } while (TRUE);
  text = g_strdup (gst_structure_get_string (st (m), "text"));
  gst_message_unref (m);
  return text;
}

GST_START_TEST (test_reference_forms)
{
  gchar *pattern = tn_test_data ("seq_%05d.npy");
  gchar *stack = tn_test_data ("seq_stack.npy");
  gchar *single = tn_test_data ("seq_00000.npy");
  gchar *f3 = tn_test_data ("seq_00003.npy");
  gchar *f2 = tn_test_data ("seq_00002.npy");
  gchar *want, *text;
  GstMessage *m;
  Cmp c;

  /* a pattern, one file per buffer */
  cmp_new (&c, "reference", pattern, NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  m = pop_message (c.bus, "tensorcompare");
  fail_unless (field_bool (st (m), "passed"));
  fail_unless_equals_int64 (field_int64 (st (m), "items"), 6);
  gst_message_unref (m);
  m = pop_message (c.bus, "tensorcompare");
  fail_unless_equals_uint64 (field_uint64 (st (m), "pts"), 100 * GST_MSECOND);
  gst_message_unref (m);
  m = pop_message (c.bus, "tensorcompare");
  gst_message_unref (m);
  m = pop_message (c.bus, "tensorcompare-summary");
  fail_unless_equals_uint64 (field_uint64 (st (m), "buffers"), 3);
  fail_unless_equals_uint64 (field_uint64 (st (m), "failed"), 0);
  gst_message_unref (m);
  cmp_free (&c);

  /* one file, axis 0 counting the buffers */
  cmp_new (&c, "reference", stack, NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  expect_results (&c, "111", 0);
  cmp_free (&c);

  /* one file, the reference of every buffer: buffer k holds 10 k more */
  cmp_new (&c, "reference", single, NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  m = pop_message (c.bus, "tensorcompare");
  fail_unless (field_bool (st (m), "passed"));
  gst_message_unref (m);
  m = pop_message (c.bus, "tensorcompare");
  fail_unless_equals_int64 (field_int64 (st (m), "mismatches"), 6);
  assert_same_double (field_double (st (m), "max-abs"), 10.0, "max-abs");
  gst_message_unref (m);
  cmp_free (&c);

  /* more buffers than references */
  cmp_new (&c, "reference", pattern, NULL);
  cmp_start (&c);
  push_seq (&c, 4);
  text = next_failure_text (&c);
  want = g_strdup_printf ("buffer 3 has no reference: %s does not exist", f3);
  fail_unless_equals_string (text, want);
  g_free (want);
  g_free (text);
  cmp_free (&c);

  cmp_new (&c, "reference", stack, NULL);
  cmp_start (&c);
  push_seq (&c, 4);
  text = next_failure_text (&c);
  want = g_strdup_printf (
      "buffer 3 has no reference: %s holds 3 along axis 0", stack);
  fail_unless_equals_string (text, want);
  g_free (want);
  g_free (text);
  cmp_free (&c);

  /* more references than buffers, found at EOS */
  cmp_new (&c, "reference", pattern, NULL);
  cmp_start (&c);
  push_seq (&c, 2);
  text = next_failure_text (&c);
  want = g_strdup_printf (
      "2 buffers came, yet reference %s exists: more references than buffers",
      f2);
  fail_unless_equals_string (text, want);
  g_free (want);
  g_free (text);
  cmp_free (&c);

  cmp_new (&c, "reference", stack, "on-mismatch", "error", NULL);
  cmp_start (&c);
  push_seq (&c, 2);
  text = tn_pop_text (c.bus, GST_MESSAGE_ERROR);
  want = g_strdup_printf (
      "2 buffers came, yet %s holds 3 references along axis 0", stack);
  fail_unless_equals_string (text, want);
  g_free (want);
  g_free (text);
  cmp_free (&c);

  g_free (f2);
  g_free (f3);
  g_free (single);
  g_free (stack);
  g_free (pattern);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The expected pad: references pushed there first (they wait in its
 * queue), then the sink buffers. */
GST_START_TEST (test_expected_pad)
{
  GstHarness *x;
  gchar *text;
  Cmp c;

  /* by order: seq 0, 1, 2 against seq 0, 1, 0 */
  cmp_new (&c, NULL);
  x = gst_harness_new_with_element (c.e, "expected", NULL);
  cmp_start (&c);
  for (gint k = 0; k < 3; k++) {
    gchar *name = g_strdup_printf ("seq_%05d.npy", k == 2 ? 0 : k);

    fail_unless_equals_int (
        gst_harness_push (x, buffer_from (x, name, k * 100 * GST_MSECOND)),
        GST_FLOW_OK);
    g_free (name);
  }
  fail_unless (gst_harness_push_event (x, gst_event_new_eos ()));
  push_seq (&c, 3);
  expect_results (&c, "110", 1);
  gst_harness_teardown (x);
  cmp_free (&c);

  /* the expected stream ends first */
  cmp_new (&c, NULL);
  x = gst_harness_new_with_element (c.e, "expected", NULL);
  cmp_start (&c);
  gst_harness_push (x, buffer_from (x, "seq_00000.npy", 0));
  fail_unless (gst_harness_push_event (x, gst_event_new_eos ()));
  push_seq (&c, 2);
  text = next_failure_text (&c);
  fail_unless_equals_string (
      text, "buffer 1 has no reference: the expected stream has ended");
  g_free (text);
  gst_harness_teardown (x);
  cmp_free (&c);

  /* the expected stream has more */
  cmp_new (&c, NULL);
  x = gst_harness_new_with_element (c.e, "expected", NULL);
  cmp_start (&c);
  gst_harness_push (x, buffer_from (x, "seq_00000.npy", 0));
  gst_harness_push (x, buffer_from (x, "seq_00001.npy", 100 * GST_MSECOND));
  fail_unless (gst_harness_push_event (x, gst_event_new_eos ()));
  push_seq (&c, 1);
  text = next_failure_text (&c);
  fail_unless_equals_string (
      text, "1 buffers came, yet the expected stream has more");
  g_free (text);
  gst_harness_teardown (x);
  cmp_free (&c);

  /* by PTS: expected at 0 and 100 ms, the sink buffer at 100 ms */
  cmp_new (&c, "sync", "timestamp", NULL);
  x = gst_harness_new_with_element (c.e, "expected", NULL);
  cmp_start (&c);
  gst_harness_push (x, buffer_from (x, "seq_00000.npy", 0));
  gst_harness_push (x, buffer_from (x, "seq_00001.npy", 100 * GST_MSECOND));
  fail_unless (gst_harness_push_event (x, gst_event_new_eos ()));
  push_through (c.h, buffer_from (c.h, "seq_00001.npy", 100 * GST_MSECOND));
  text = next_failure_text (&c);
  fail_unless_equals_string (text,
      "the expected buffer of pts 0:00:00.000000000 has no buffer of that "
      "pts to compare with");
  g_free (text);
  {
    GstMessage *m = pop_message (c.bus, "tensorcompare");

    fail_unless (field_bool (st (m), "passed"));
    fail_unless_equals_uint64 (field_uint64 (st (m), "pts"), 100 * GST_MSECOND);
    gst_message_unref (m);
  }
  gst_harness_teardown (x);
  cmp_free (&c);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A float32 <2, 3> view over the transposed storage of seq_00000 (item
 * [i, j] at j * 2 + i) is read in place, passes, and goes on as it came,
 * layout meta and all. */
GST_START_TEST (test_strided)
{
  static const float storage[6] = { 0, 3, 1, 4, 2, 5 };
  static const gint64 strides[2] = { 1, 2 };
  gchar *ref = tn_test_data ("seq_00000.npy");
  gchar *caps = tn_tensor_caps ("float32", "<2, 3>");
  GstBuffer *b;
  GstMessage *m;
  Cmp c;

  cmp_new (&c, "reference", ref, NULL);
  cmp_start (&c);
  gst_harness_set_src_caps_str (c.h, caps);
  b = gst_buffer_new_memdup (storage, sizeof storage);
  fail_unless (gst_tn_buffer_add_layout_meta (b, 2, 0, strides) != NULL);
  push_through (c.h, b);
  m = pop_message (c.bus, "tensorcompare");
  fail_unless (field_bool (st (m), "passed"));
  gst_message_unref (m);

  /* the same storage read densely is another tensor: 4 items differ */
  push_through (c.h, gst_buffer_new_memdup (storage, sizeof storage));
  m = pop_message (c.bus, "tensorcompare");
  fail_unless_equals_int64 (field_int64 (st (m), "mismatches"), 4);
  gst_message_unref (m);
  cmp_free (&c);
  g_free (caps);
  g_free (ref);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gboolean
query_has_layout (GstPad *peer_of)
{
  GstCaps *caps = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<2,3>,"
                                        "dims-order=row-major,"
                                        "framerate=0/1");
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  gboolean has;

  fail_unless (gst_pad_peer_query (peer_of, q));
  has = gst_query_find_allocation_meta (q, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_query_unref (q);
  gst_caps_unref (caps);
  return has;
}

/* sink answers with downstream's answer; expected always reads views. */
GST_START_TEST (test_allocation)
{
  GstHarness *x;
  gchar *ref = tn_test_data ("seq_00000.npy");
  gchar *caps = tn_tensor_caps ("float32", "<2, 3>");
  Cmp c;

  cmp_new (&c, "reference", ref, NULL);
  cmp_start (&c);
  gst_harness_set_src_caps_str (c.h, caps);
  fail_if (query_has_layout (c.h->srcpad),
      "a dense-only sink after tensorcompare: no layout meta");
  gst_harness_add_propose_allocation_meta (
      c.h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  fail_unless (query_has_layout (c.h->srcpad),
      "a sink that reads views: the layout meta");
  cmp_free (&c);

  cmp_new (&c, NULL);
  x = gst_harness_new_with_element (c.e, "expected", NULL);
  cmp_start (&c);
  gst_harness_set_src_caps_str (x, caps);
  fail_unless (query_has_layout (x->srcpad));
  gst_harness_teardown (x);
  cmp_free (&c);
  g_free (caps);
  g_free (ref);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The bytes of file path equal those of tests/data file golden, dims and
 * dtype included. */
static void
assert_same_npy (const gchar *path, const gchar *golden)
{
  Npy a, b;

  npy_read (&a, path);
  npy_load (&b, golden);
  fail_unless_equals_int (a.rank, b.rank);
  fail_unless_equals_int (a.dtype, b.dtype);
  for (gint i = 0; i < a.rank; i++)
    fail_unless_equals_int64 (a.dims[i], b.dims[i]);
  fail_unless_equals_int64 (a.size, b.size);
  fail_unless (memcmp (a.data, b.data, a.size) == 0, "%s differs", path);
  npy_clear (&a);
  npy_clear (&b);
}

/* record=true writes what NumPy wrote; comparing with it then passes. */
GST_START_TEST (test_record)
{
  gchar *cwd = g_get_current_dir ();
  gchar *dir = g_dir_make_tmp ("tensorcompare-XXXXXX", NULL);
  gchar *pattern = g_build_filename (dir, "g-%03d.npy", NULL);
  gchar *stack = g_build_filename (dir, "all.npy", NULL);
  Cmp c;

  fail_unless (dir != NULL);
  cmp_new (&c, "reference", pattern, "record", "true", NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  cmp_free (&c);
  for (gint k = 0; k < 3; k++) {
    gchar *name = g_strdup_printf ("g-%03d.npy", k);
    gchar *path = g_build_filename (dir, name, NULL);
    gchar *golden = g_strdup_printf ("seq_%05d.npy", k);

    assert_same_npy (path, golden);
    g_free (golden);
    g_free (path);
    g_free (name);
  }
  cmp_new (&c, "reference", pattern, NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  expect_results (&c, "111", 0);
  cmp_free (&c);

  cmp_new (&c, "reference", stack, "record", "true", NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  cmp_free (&c);
  assert_same_npy (stack, "seq_stack.npy");
  cmp_new (&c, "reference", stack, NULL);
  cmp_start (&c);
  push_seq (&c, 3);
  expect_results (&c, "111", 0);
  cmp_free (&c);

  g_free (stack);
  g_free (pattern);
  tn_tmp_dir_leave (dir, cwd);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* NumPy has no bfloat16: record=true (npyenc's writer) stores bfloat16 as
 * float32, and comparing the same stream with that recording passes, in
 * bfloat16 (one bfloat16 ulp is one ulp); a float32 reference that holds
 * a value no bfloat16 has is an error that names the item. */
static GstBuffer *
bf16_buffer (GstHarness *h, guint16 last)
{
  const guint16 items[4] = { 0x0000, 0x3f80, 0x4000, last }; /* 0 1 2 .. */

  gst_harness_set_src_caps_str (h,
      "tensor/x-raw,type=bfloat16,dims=<4>,dims-order=row-major,"
      "framerate=0/1");
  return gst_buffer_new_memdup (items, sizeof items);
}

GST_START_TEST (test_record_bfloat16)
{
  gchar *cwd = g_get_current_dir ();
  gchar *dir = g_dir_make_tmp ("tensorcompare-XXXXXX", NULL);
  gchar *stack = g_build_filename (dir, "bf.npy", NULL);
  gchar *odd = g_build_filename (dir, "odd.npy", NULL);
  const float notbf[4] = { 0.0f, 1.0f, 2.0f, 3.01f };
  const int64_t dims[1] = { 4 };
  tn_array a = { 0 };
  tn_err e;
  gchar *text;
  Cmp c;

  fail_unless (dir != NULL);
  cmp_new (&c, "reference", stack, "record", "true", NULL);
  cmp_start (&c);
  push_through (c.h, bf16_buffer (c.h, 0x4040)); /* 3 */
  gst_harness_push_event (c.h, gst_event_new_eos ());
  cmp_free (&c);

  cmp_new (&c, "reference", stack, NULL);
  cmp_start (&c);
  push_through (c.h, bf16_buffer (c.h, 0x4040));
  gst_harness_push_event (c.h, gst_event_new_eos ());
  expect_results (&c, "1", 0);
  cmp_free (&c);

  cmp_new (&c, "reference", stack, "max-ulp", "0", NULL);
  cmp_start (&c);
  push_through (c.h, bf16_buffer (c.h, 0x4041)); /* 3.015625 */
  text = next_failure_text (&c);
  tn_assert_contains (text, "first at [3]: 3.015625 against 3 (abs 0.015625");
  tn_assert_contains (text, "ulp 1)");
  g_free (text);
  cmp_free (&c);

  fail_unless (tn_array_init (&a, TN_FLOAT32, dims, 1, &e) == 0, "%s", e.msg);
  memcpy (a.data, notbf, sizeof notbf);
  fail_unless (tn_array_save_npy (odd, &a, &e) == 0, "%s", e.msg);
  tn_array_clear (&a);
  cmp_new (&c, "reference", odd, NULL);
  cmp_start (&c);
  push_through (c.h, bf16_buffer (c.h, 0x4040));
  text = next_failure_text (&c);
  tn_assert_contains (text, "its item [3], 3.01, is no bfloat16 value");
  g_free (text);
  cmp_free (&c);

  g_free (odd);
  g_free (stack);
  tn_tmp_dir_leave (dir, cwd);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A reference that cannot be used stops the state change to PAUSED with
 * the property, the value and why. */
static void
expect_start_error (const gchar *words[], const gchar *name, ...)
{
  GstElement *e = gst_element_factory_make ("tensorcompare", "cmp");
  GstBus *bus = gst_bus_new ();
  va_list ap;
  gchar *text;

  gst_element_set_bus (e, bus);
  va_start (ap, name);
  for (; name != NULL; name = va_arg (ap, const gchar *))
    gst_util_set_object_arg (G_OBJECT (e), name, va_arg (ap, const gchar *));
  va_end (ap);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  for (gint i = 0; words[i]; i++)
    tn_assert_contains (text, words[i]);
  g_free (text);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_START_TEST (test_property_errors)
{
  const gchar *none[] = { "cmp", "reference", "no reference", NULL };
  const gchar *conv[] = { "cmp", "reference", "g-%s.npy", "integer", NULL };
  const gchar *two[] = { "cmp", "reference", "2", NULL };
  const gchar *missing[] = { "cmp", "reference", "/nonexistent/x.npy", NULL };
  const gchar *both[] = { "cmp", "reference", "expected pad", NULL };
  /* the tolerances store any value; start refuses what they cannot use */
  const gchar *atol[] = { "cmp: atol=\"-1\" cannot be used: atol is a "
                          "number from 0 to inf",
    NULL };
  const gchar *rtol[] = { "cmp: rtol=\"nan\" cannot be used: rtol is a "
                          "number from 0 to inf",
    NULL };
  const gchar *ulp[] = { "cmp: max-ulp=\"-2\" cannot be used: max-ulp is -1 "
                         "(rtol and atol) to 9223372036854775807",
    NULL };
  GstElement *e;
  GstPad *pad;
  Cmp c;

  expect_start_error (atol, "reference", "x.npy", "atol", "-1", NULL);
  expect_start_error (rtol, "reference", "x.npy", "rtol", "nan", NULL);
  expect_start_error (ulp, "reference", "x.npy", "max-ulp", "-2", NULL);
  expect_start_error (none, NULL);
  expect_start_error (conv, "reference", "g-%s.npy", NULL);
  expect_start_error (two, "reference", "g-%d-%d.npy", NULL);
  expect_start_error (missing, "reference", "/nonexistent/x.npy", NULL);

  e = gst_element_factory_make ("tensorcompare", "cmp");
  pad = gst_element_request_pad_simple (e, "expected");
  fail_unless (pad != NULL);
  {
    GstBus *bus = gst_bus_new ();
    gchar *text;

    gst_element_set_bus (e, bus);
    g_object_set (e, "reference", "x.npy", NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = tn_pop_text (bus, GST_MESSAGE_ERROR);
    for (gint i = 0; both[i]; i++)
      tn_assert_contains (text, both[i]);
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_bus_set_flushing (bus, TRUE);
    gst_object_unref (bus);
  }
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (e);

  /* While running, such a value is refused with a warning and the old one
   * kept; atol=inf is usable (NumPy's). */
  cmp_new (&c, "atol", "0.5", "max-ulp", "3", NULL);
  pad = gst_element_request_pad_simple (c.e, "expected");
  cmp_start (&c);
  gst_util_set_object_arg (G_OBJECT (c.e), "atol", "nan");
  {
    gchar *text = tn_pop_text (c.bus, GST_MESSAGE_WARNING);
    gdouble a;
    gint64 u;

    tn_assert_contains (text, "cmp: atol=\"nan\" cannot be used: atol is a "
                              "number from 0 to inf; keeping atol=\"0.5\"");
    g_free (text);
    gst_util_set_object_arg (G_OBJECT (c.e), "max-ulp", "-7");
    text = tn_pop_text (c.bus, GST_MESSAGE_WARNING);
    tn_assert_contains (text, "keeping max-ulp=\"3\"");
    g_free (text);
    g_object_get (c.e, "atol", &a, "max-ulp", &u, NULL);
    fail_unless (a == 0.5);
    fail_unless_equals_int64 (u, 3);
    gst_util_set_object_arg (G_OBJECT (c.e), "atol", "inf");
    fail_unless (tn_pop_text (c.bus, GST_MESSAGE_WARNING) == NULL);
    g_object_get (c.e, "atol", &a, NULL);
    fail_unless (a == INFINITY);
  }
  gst_harness_teardown (c.h);
  gst_element_release_request_pad (c.e, pad);
  gst_object_unref (pad);
  gst_bus_set_flushing (c.bus, TRUE);
  gst_object_unref (c.bus);
  gst_object_unref (c.e);
}

GST_END_TEST;

static Suite *
tensorcompare_suite (void)
{
  Suite *s = suite_create ("tensorcompare");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cases);
  tcase_add_test (tc, test_on_mismatch);
  tcase_add_test (tc, test_reference_forms);
  tcase_add_test (tc, test_expected_pad);
  tcase_add_test (tc, test_strided);
  tcase_add_test (tc, test_allocation);
  tcase_add_test (tc, test_record);
  tcase_add_test (tc, test_record_bfloat16);
  tcase_add_test (tc, test_property_errors);
  return s;
}

GST_CHECK_MAIN (tensorcompare);
