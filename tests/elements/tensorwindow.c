/* tensorwindow against NumPy (tests/data/gen/gen_window.py writes, per
 * case, the joined stream <case>_in.npy and its windows <case>_out.npy):
 * overlapping, gapped and exact windows, stack and unbatch, every axis,
 * input buffers of varying sizes (windows across three inputs), each case
 * with a reader of the layout meta and without, with a downstream that
 * drops every window at once and one that holds them all; timestamps,
 * durations and offsets; the end of the stream with and without pad-end;
 * a flush; caps changes; bytes-copied against its bound; the data
 * pointers where a window is promised to be the input's memory; property
 * values that cannot be used; accept-caps queries from another thread
 * while the element stops; negotiation both ways; tensors of no item;
 * and the launch lines of the element's documentation. */
#include <string.h>

#include <gst/check/gstharness.h>

#include "common/npyread.h"
#include "common/tncheck.h"

#define MS GST_MSECOND

/* The table of gen_window.py. */
typedef struct {
  const gchar *name;
  gint axis;
  gboolean stack;
  gint size, hop;
  gint chunks[12];
  gboolean pad, squeeze;
} Case;

static const Case cases[] = {
  { "overlap0", 0, FALSE, 7, 3, { 5, 1, 7, 12, 5 }, FALSE, FALSE },
  { "gap0", 0, FALSE, 4, 6, { 5, 1, 7, 12, 5 }, FALSE, FALSE },
  { "exact0", 0, FALSE, 5, 5, { 10, 10, 10 }, FALSE, FALSE },
  { "mixed0", 0, FALSE, 4, 2, { 8, 3, 9, 1, 1, 10 }, FALSE, FALSE },
  { "overlap1", 1, FALSE, 7, 3, { 5, 1, 7, 12, 5 }, FALSE, FALSE },
  { "overlap2", 2, FALSE, 4, 2, { 3, 1, 6, 2, 8 }, FALSE, FALSE },
  { "exact1", 1, FALSE, 4, 4, { 8, 8 }, FALSE, FALSE },
  { "pad0", 0, FALSE, 7, 3, { 5, 1, 7, 12, 5 }, TRUE, FALSE },
  { "pad1", 1, FALSE, 5, 2, { 3, 4, 4 }, TRUE, FALSE },
  { "stack0", 0, TRUE, 4, 3, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, FALSE, FALSE },
  { "stack1", 1, TRUE, 4, 2, { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, FALSE, FALSE },
  { "stack2", 2, TRUE, 3, 3, { 1, 1, 1, 1, 1, 1, 1 }, TRUE, FALSE },
  { "unbatch", 0, FALSE, 1, 1, { 4, 4 }, FALSE, TRUE },
  { "unstack", 1, TRUE, 1, 1, { 1, 1, 1 }, FALSE, TRUE },
};

static guint64
bytes_copied (GstElement *e)
{
  guint64 v;

  g_object_get (e, "bytes-copied", &v, NULL);
  return v;
}

/* A harness around a tensorwindow set up by the properties in props
 * ("size=4 hop=2") before it starts. */
static GstHarness *
window_harness (const gchar *props, gboolean meta)
{
  gchar *desc = g_strdup_printf ("tensorwindow %s", props);
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  if (meta)
    gst_harness_add_propose_allocation_meta (
        h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  return h;
}

static GstElement *
window_of (GstHarness *h)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), "w");

  gst_object_unref (e);
  return e;
}

static gchar *
case_props (const Case *c)
{
  return g_strdup_printf ("name=w axis=%d stack=%d size=%d hop=%d pad-end=%d "
                          "squeeze=%d",
      c->axis, c->stack, c->size, c->hop, c->pad, c->squeeze);
}

static GstCaps *
tensor_caps (tn_dtype t, const gint64 *dims, gint rank, gint fps_n)
{
  GstTnInfo info;

  memset (&info, 0, sizeof info);
  info.dtype = t;
  info.rank = rank;
  memcpy (info.dims, dims, rank * sizeof dims[0]);
  info.fps_n = fps_n;
  info.fps_d = 1;
  return gst_tn_info_to_caps (&info);
}

/* A CAPS event of caps (which it takes) into h. */
static gboolean
push_caps (GstHarness *h, GstCaps *caps)
{
  gboolean ok = gst_harness_push_event (h, gst_event_new_caps (caps));

  gst_caps_unref (caps);
  return ok;
}

/* Items [from, from + n) of the joined stream in along axis (stack: frame
 * from) as a dense buffer, and its caps. */
static GstBuffer *
chunk (const Npy *in, const Case *c, gint64 from, gint64 n, GstCaps **caps)
{
  tn_view v;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless (tn_view_init (&v, in->dtype, in->dims, in->rank, NULL) == 0);
  if (c->stack) {
    fail_unless (tn_view_select (&v, 0, from, NULL) == 0);
  } else {
    fail_unless (tn_view_slice (&v, c->axis, from, from + n, 1, NULL) == 0);
  }
  buf = gst_buffer_new_allocate (
      NULL, MAX (tn_view_count (&v) * in->itemsize, 1), NULL);
  gst_buffer_set_size (buf, tn_view_count (&v) * in->itemsize);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  tn_view_materialize (map.data, in->data, &v);
  gst_buffer_unmap (buf, &map);
  *caps = tensor_caps (in->dtype, v.dims, v.rank, 0);
  return buf;
}

static gboolean
inside (GstBuffer *out, GstBuffer *in)
{
  GstMapInfo a, b;
  gboolean r;

  fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &b, GST_MAP_READ));
  r = a.data >= b.data && a.data + a.size <= b.data + b.size;
  gst_buffer_unmap (out, &a);
  gst_buffer_unmap (in, &b);
  return r;
}

typedef struct {
  const Case *c;
  Npy in, out;
  gboolean meta;
  GPtrArray *inputs; /* the input buffers, for the pointer checks */
  gint64 starts[16], ends[16];
  guint n_windows;
  gsize wbytes;
} Run;

/* Output buf is window j of the case: NumPy's bytes, timestamps and
 * offsets of items of 1 ms, the input's memory where promised. */
static void
check_window (Run *r, GstHarness *h, GstBuffer *buf)
{
  const Case *c = r->c;
  guint j = r->n_windows++;
  guint64 start = (guint64) j * c->hop;
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstTnInfo info;
  GstTnMap m;
  GError *err = NULL;
  guint8 *dense;
  gsize size;
  gboolean in_one = FALSE, dense_axis;
  guint i;

  fail_unless (j < r->out.dims[0], "%s: window %u of %" G_GINT64_FORMAT,
      c->name, j, r->out.dims[0]);
  fail_unless (gst_tn_info_from_caps (&info, caps, &err));
  gst_caps_unref (caps);
  fail_unless_equals_int (info.rank, r->out.rank - 1);
  for (i = 0; i < (guint) info.rank; i++)
    fail_unless_equals_int64 (info.dims[i], r->out.dims[i + 1]);
  fail_unless (gst_tn_info_size (&info, &size));
  fail_unless_equals_uint64 (size, r->wbytes);
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, &err), "%s",
      err ? err->message : "?");
  dense = g_malloc (MAX (size, 1));
  tn_view_materialize (dense, m.data, &m.view);
  gst_tn_buffer_unmap (&m);
  fail_unless (memcmp (dense, r->out.data + j * r->wbytes, size) == 0,
      "%s: window %u differs from NumPy's", c->name, j);
  g_free (dense);

  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), start * MS);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), c->size * MS);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), start);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), start + c->size);

  /* Inside one input: that input's memory (dense along axis 0 or for a
   * stack of one, else with the meta for a reader of it). */
  dense_axis = c->axis == 0 || (c->stack && c->size == 1);
  for (i = 0; i < r->inputs->len; i++) {
    if ((gint64) start >= r->starts[i]
        && (gint64) start + c->size <= r->ends[i]) {
      in_one = TRUE;
      if (dense_axis || r->meta)
        fail_unless (inside (buf, g_ptr_array_index (r->inputs, i)),
            "%s: window %u inside input %u is not its memory", c->name, j, i);
    }
  }
  /* Across inputs, along axis 0: one contiguous run of the ring. */
  if (!in_one && dense_axis
      && (gint64) start + c->size <= r->ends[r->inputs->len - 1])
    fail_unless_equals_int (gst_buffer_n_memory (buf), 1);
}

static void
drain_outputs (Run *r, GstHarness *h)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h)) != NULL) {
    check_window (r, h, b);
    gst_buffer_unref (b);
  }
}

/* A case through the element; hold: downstream keeps every window until
 * the stream has ended (the ring must not overwrite them). */
static void
run_case (const Case *c, gboolean meta, gboolean hold)
{
  gchar *props = case_props (c), *f;
  GstHarness *h = window_harness (props, meta);
  GstElement *w = window_of (h);
  GstCaps *prev = NULL;
  Run r = { c };
  gint64 from = 0, stream_bytes, bound;
  guint i;

  r.meta = meta;
  r.inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  f = g_strdup_printf ("%s_in.npy", c->name);
  npy_load (&r.in, f);
  g_free (f);
  f = g_strdup_printf ("%s_out.npy", c->name);
  npy_load (&r.out, f);
  g_free (f);
  r.wbytes = r.out.size / r.out.dims[0];
  stream_bytes = r.in.size;

  for (i = 0; i < G_N_ELEMENTS (c->chunks) && c->chunks[i] > 0; i++) {
    GstCaps *caps;
    GstBuffer *buf = chunk (&r.in, c, from, c->chunks[i], &caps);

    GST_BUFFER_PTS (buf) = from * MS;
    GST_BUFFER_DURATION (buf) = c->chunks[i] * MS;
    r.starts[i] = from;
    r.ends[i] = from + c->chunks[i];
    if (prev == NULL)
      gst_harness_set_src_caps (h, gst_caps_ref (caps));
    else if (!gst_caps_is_equal (prev, caps))
      fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
    gst_caps_replace (&prev, caps);
    gst_caps_unref (caps);
    g_ptr_array_add (r.inputs, gst_buffer_ref (buf));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    if (!hold)
      drain_outputs (&r, h);
    from += c->chunks[i];
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  drain_outputs (&r, h);
  fail_unless_equals_int64 (r.n_windows, r.out.dims[0]);

  /* Every input byte at most once into the ring; a window copied once
   * more for a reader of dense tensors when it is a strided view (an axis
   * other than 0 without the meta); a padded window once; a ring grown
   * because downstream held windows copies the window in progress again
   * (at most once per doubling). */
  if (c->axis == 0 || meta)
    bound = stream_bytes;
  else
    bound = stream_bytes + (gint64) r.n_windows * r.wbytes;
  if (c->pad)
    bound += (gint64) r.n_windows * r.wbytes;
  if (hold)
    bound += 8 * (gint64) r.wbytes;
  fail_unless (bytes_copied (w) <= (guint64) bound,
      "%s (meta %d, hold %d): %" G_GUINT64_FORMAT
      " bytes copied, bound %" G_GINT64_FORMAT,
      c->name, meta, hold, bytes_copied (w), bound);
  if (g_str_has_prefix (c->name, "exact0") || g_str_has_prefix (c->name, "un")
      || (g_str_has_prefix (c->name, "exact1") && meta))
    fail_unless_equals_uint64 (bytes_copied (w), 0);

  gst_caps_replace (&prev, NULL);
  gst_harness_teardown (h);
  g_ptr_array_unref (r.inputs);
  npy_clear (&r.in);
  npy_clear (&r.out);
  g_free (props);
  tn_check_no_outstanding ();
}

GST_START_TEST (test_cases)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    run_case (&cases[i], FALSE, FALSE);
    run_case (&cases[i], TRUE, FALSE);
    run_case (&cases[i], FALSE, TRUE);
    run_case (&cases[i], TRUE, TRUE);
  }
}
GST_END_TEST;

/* Window n of the steady stream below holds inputs n .. n + 3, each
 * filled with its index. */
static void
check_steady (GstBuffer *b, guint n, gsize ib)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 64 * ib);
  for (guint q = 0; q < 64 * ib; q++)
    fail_unless_equals_int (map.data[q], (guint8) (n + q / (16 * ib)));
  gst_buffer_unmap (b, &map);
}

/* Steady audio-like windows over a stream many times the ring (12800
 * bytes through a ring of a page).  RELEASED at once: copies are exactly
 * the items windows across buffers need, once each (hop items per
 * window), and the ring is reused.  HELD by downstream until the end:
 * the ring never overwrites a window, and grows instead (copying the
 * window in progress again, once per doubling).  SOME_HELD: every third
 * window held, half of those released in the middle of the stream,
 * newest first: the ring's windows die in any order (tnring.c collects
 * the dead ones between live ones), their view buffers are reused while
 * their neighbours are held, and every window, held or not, has its own
 * bytes when it is read.  IN_CHAIN: two of every three windows die on
 * the streaming thread inside the element's chain (a probe keeps each
 * until the next one replaces it, as a sink's last sample; their ring
 * references go back to the writer without an atomic, tnring.c), some of
 * them after the ring they are in was replaced by a larger one (the
 * third held to the end makes it grow): every window still reads its
 * own bytes, and every ring goes once its last window has (LeakSanitizer
 * in the ASan suite). */
enum { RELEASED, HELD, SOME_HELD, IN_CHAIN };

typedef struct {
  GstBuffer *last;
  guint seen;
  gsize ib;
} InChain;

static GstPadProbeReturn
in_chain_probe (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  InChain *c = data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint n = c->seen++;

  check_steady (b, n, c->ib);
  if (n % 3 == 0)
    return GST_PAD_PROBE_OK;
  /* the last one dies here, in the chain of the next */
  gst_buffer_replace (&c->last, b);
  return GST_PAD_PROBE_DROP;
}

static void
steady (int mode)
{
  GstHarness *h = window_harness ("name=w size=64 hop=16", FALSE);
  gint64 dims[2] = { 16, 2 };
  const gsize ib = 2 * sizeof (gfloat);
  GstBuffer *held[97] = { NULL };
  guint n = 0, i, kept = 0;
  guint64 copied, exact = 100 * 16 * ib;
  GstBuffer *b;
  InChain ic = { NULL, 0, ib };

  if (mode == IN_CHAIN) {
    GstPad *pad = gst_element_get_static_pad (window_of (h), "src");

    gst_pad_add_probe (
        pad, GST_PAD_PROBE_TYPE_BUFFER, in_chain_probe, &ic, NULL);
    gst_object_unref (pad);
  }
  gst_harness_set_src_caps (h, tensor_caps (TN_FLOAT32, dims, 2, 0));
  for (i = 0; i < 100; i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 16 * ib, NULL);

    gst_buffer_memset (in, 0, i, 16 * ib);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)) != NULL) {
      fail_unless (n < 97);
      if (mode == IN_CHAIN) {
        /* the probe let window n through, dropped the two after it */
        while (n % 3 != 0)
          n++;
      }
      check_steady (b, n, ib);
      if (mode == HELD || (mode != RELEASED && n % 3 == 0))
        held[n] = b;
      else
        gst_buffer_unref (b);
      n++;
    }
    for (gint j = (gint) n - 1; mode == SOME_HELD && i == 50 && j >= 0; j--)
      if (held[j] != NULL && j % 6 == 0) {
        check_steady (held[j], (guint) j, ib);
        gst_buffer_unref (held[j]);
        held[j] = NULL;
      }
  }
  if (mode == IN_CHAIN) {
    fail_unless_equals_int (ic.seen, 97);
    check_steady (ic.last, 95, ib);
    gst_buffer_replace (&ic.last, NULL);
    n = 97;
  }
  fail_unless_equals_int (n, 97);
  for (i = 0; i < n; i++)
    if (held[i] != NULL) {
      check_steady (held[i], i, ib);
      kept++;
    }
  fail_unless_equals_int (kept, mode == HELD        ? 97
                                : mode == SOME_HELD ? 25
                                : mode == IN_CHAIN  ? 33
                                                    : 0);
  copied = bytes_copied (window_of (h));
  if (mode != RELEASED) {
    /* rings of 1, 2, 4 pages: the window in progress twice more */
    fail_unless (copied > exact && copied <= exact + 2 * 64 * ib,
        "%" G_GUINT64_FORMAT " bytes copied", copied);
  } else {
    /* the first window's 64 items, then 16 per window: all 100 inputs */
    fail_unless_equals_uint64 (copied, exact);
  }
  /* The windows outlive the element: their rings stay mapped until the
   * last of them goes. */
  gst_harness_teardown (h);
  for (i = 0; i < n; i++)
    if (held[i] != NULL) {
      check_steady (held[i], i, ib);
      gst_buffer_unref (held[i]);
    }
  tn_check_no_outstanding ();
}

GST_START_TEST (test_steady_some_held)
{
  steady (SOME_HELD);
}
GST_END_TEST;

GST_START_TEST (test_steady_released)
{
  steady (RELEASED);
}
GST_END_TEST;

GST_START_TEST (test_steady_held)
{
  steady (HELD);
}
GST_END_TEST;

GST_START_TEST (test_steady_in_chain)
{
  steady (IN_CHAIN);
}
GST_END_TEST;

/* Many windows started and not full at once (size 20, hop 1): a buffer of
 * 100 items starts 100 windows while 19 from the last one are pending, so
 * the pending windows' ring (tensorwindow.h) grows while its head is not
 * at the start of its array; at the end 19 are padded (pad-end).  Every
 * window holds its own items (item i is i % 256) and says where it
 * starts. */
GST_START_TEST (test_many_pending)
{
  GstHarness *h = window_harness ("name=w size=20 hop=1 pad-end=true", FALSE);
  const gint64 chunks[] = { 30, 100, 7, 1, 45 };
  gint64 from = 0, total = 0;
  guint64 n = 0;
  GstBuffer *b;

  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    total += chunks[i];
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, chunks[i], NULL);
    GstCaps *caps;
    GstMapInfo map;

    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    for (gint64 q = 0; q < chunks[i]; q++)
      map.data[q] = (guint8) (from + q);
    gst_buffer_unmap (in, &map);
    caps = tensor_caps (TN_INT8, &chunks[i], 1, 0);
    if (i == 0)
      gst_harness_set_src_caps (h, caps);
    else {
      fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
      gst_caps_unref (caps);
    }
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    from += chunks[i];
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h)) != NULL) {
    GstMapInfo map;

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), n);
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 20);
    for (guint64 q = 0; q < 20; q++)
      fail_unless_equals_int (
          map.data[q], n + q < (guint64) total ? (guint8) (n + q) : 0);
    gst_buffer_unmap (b, &map);
    gst_buffer_unref (b);
    n++;
  }
  fail_unless_equals_uint64 (n, (guint64) total);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Without a duration, from the framerate; without timestamps, none, and
 * offsets still count; the output framerate is the item rate / hop. */
GST_START_TEST (test_timestamps_framerate)
{
  GstHarness *h = window_harness ("name=w size=3 hop=2", FALSE);
  gint64 dims[1] = { 4 };
  GstCaps *caps;
  GstStructure *s;
  gint n, d;
  guint i, j = 0;
  GstBuffer *b;

  /* 250 buffers of 4 items a second: an item is 1 ms */
  gst_harness_set_src_caps (h, tensor_caps (TN_INT8, dims, 1, 250));
  for (i = 0; i < 4; i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 4, NULL);

    GST_BUFFER_PTS (in) = 100 * MS + i * 4 * MS;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  while ((b = gst_harness_try_pull (h)) != NULL) {
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), 100 * MS + 2 * j * MS);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (b), 3 * MS);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 2 * j);
    gst_buffer_unref (b);
    j++;
  }
  fail_unless_equals_int (j, 7);
  caps = gst_pad_get_current_caps (h->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d));
  /* 1000 items a second / hop 2 */
  fail_unless_equals_int (n, 500);
  fail_unless_equals_int (d, 1);
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  /* no timestamps, no framerate */
  h = window_harness ("name=w size=3 hop=2", FALSE);
  gst_harness_set_src_caps (h, tensor_caps (TN_INT8, dims, 1, 0));
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_allocate (NULL, 4, NULL)),
        GST_FLOW_OK);
  for (j = 0; (b = gst_harness_try_pull (h)) != NULL; j++) {
    fail_if (GST_BUFFER_PTS_IS_VALID (b));
    fail_if (GST_BUFFER_DURATION_IS_VALID (b));
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 2 * j);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), 2 * j + 3);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (j, 3);
  gst_harness_teardown (h);

  /* stack: 30 tensors a second in batches every 3 -> 10/1 */
  h = window_harness ("name=w stack=true size=4 hop=3", FALSE);
  gst_harness_set_src_caps (h, tensor_caps (TN_INT8, dims, 1, 30));
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  s = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_get_fraction (s, "framerate", &n, &d));
  fail_unless_equals_int (n, 10);
  fail_unless_equals_int (d, 1);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Durations that change from input to input (and an extent that changes
 * under the same duration): each window's PTS and duration are its first
 * item's input's, at that input's duration / extent an item. */
GST_START_TEST (test_timestamps_changing)
{
  GstHarness *h = window_harness ("name=w size=3 hop=2", FALSE);
  /* (extent, duration in us) of each input */
  static const guint64 in[][2] = { { 4, 4000 }, { 4, 8000 }, { 4, 8000 },
    { 4, 2000 }, { 8, 2000 }, { 8, 2000 }, { 4, 2000 }, { 4, 6000 } };
  guint64 b0[G_N_ELEMENTS (in)], pts[G_N_ELEMENTS (in)], items = 0, t = 0;
  guint i, j = 0;
  GstBuffer *b;

  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    gint64 dims[1] = { (gint64) in[i][0] };
    GstBuffer *buf = gst_buffer_new_allocate (NULL, in[i][0], NULL);

    b0[i] = items;
    pts[i] = t;
    if (i == 0 || in[i][0] != in[i - 1][0])
      gst_harness_set_src_caps (h, tensor_caps (TN_INT8, dims, 1, 0));
    GST_BUFFER_PTS (buf) = t * GST_USECOND;
    GST_BUFFER_DURATION (buf) = in[i][1] * GST_USECOND;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    items += in[i][0];
    t += in[i][1];
  }
  for (; (b = gst_harness_try_pull (h)) != NULL; j++) {
    guint64 s = 2 * j;
    guint k = 0;

    while (k + 1 < G_N_ELEMENTS (in) && b0[k + 1] <= s)
      k++;
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), s);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b),
        (pts[k] + (s - b0[k]) * in[k][1] / in[k][0]) * GST_USECOND);
    fail_unless_equals_uint64 (
        GST_BUFFER_DURATION (b), 3 * in[k][1] * GST_USECOND / in[k][0]);
    gst_buffer_unref (b);
  }
  /* 40 items: windows at 0, 2, ..., 36 */
  fail_unless_equals_int (j, 19);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* The end of the stream without pad-end: a warning with the items left. */
GST_START_TEST (test_eos_drops_with_message)
{
  GstHarness *h = window_harness ("name=w size=7 hop=3", FALSE);
  GstBus *bus = gst_bus_new ();
  gint64 dims[1] = { 10 };
  gchar *text;
  guint i, n = 0;
  GstBuffer *b;

  gst_element_set_bus (window_of (h), bus);
  gst_harness_set_src_caps (h, tensor_caps (TN_UINT8, dims, 1, 0));
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_allocate (NULL, 10, NULL)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h)) != NULL) {
    gst_buffer_unref (b);
    n++;
  }
  /* starts 0, 3, ..., 21 fit in 30 items; 24 and 27 do not: 6 left */
  fail_unless_equals_int (n, 8);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "w: dropped a partial window");
  tn_assert_contains (text, "6 item(s) left of the 7");
  tn_assert_contains (text, "pad-end=true");
  g_free (text);
  gst_element_set_bus (window_of (h), NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A flush empties the window and counts from 0 again: after it, the
 * windows are those of the case alone. */
GST_START_TEST (test_flush)
{
  const Case *c = &cases[0];
  gchar *props = case_props (c);
  GstHarness *h = window_harness (props, FALSE);
  Run r = { c };
  GstCaps *caps;
  GstBuffer *buf;
  GstSegment seg;
  gint64 from = 0;
  guint i;

  r.inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  npy_load (&r.in, "overlap0_in.npy");
  npy_load (&r.out, "overlap0_out.npy");
  r.wbytes = r.out.size / r.out.dims[0];
  /* 8 items of another stream, then a flushing seek */
  buf = chunk (&r.in, c, 20, 8, &caps);
  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  while ((buf = gst_harness_try_pull (h)) != NULL)
    gst_buffer_unref (buf);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 0; c->chunks[i] > 0; i++) {
    buf = chunk (&r.in, c, from, c->chunks[i], &caps);
    GST_BUFFER_PTS (buf) = from * MS;
    GST_BUFFER_DURATION (buf) = c->chunks[i] * MS;
    r.starts[i] = from;
    r.ends[i] = from + c->chunks[i];
    fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
    gst_caps_unref (caps);
    g_ptr_array_add (r.inputs, gst_buffer_ref (buf));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
    drain_outputs (&r, h);
    from += c->chunks[i];
  }
  fail_unless_equals_int64 (r.n_windows, r.out.dims[0]);
  gst_harness_teardown (h);
  g_ptr_array_unref (r.inputs);
  npy_clear (&r.in);
  npy_clear (&r.out);
  g_free (props);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* A change of another axis is an error naming both dims; a change of the
 * framerate drains the window first (padded with pad-end). */
GST_START_TEST (test_caps_changes)
{
  GstHarness *h = window_harness ("name=w size=4", FALSE);
  GstBus *bus = gst_bus_new ();
  gint64 a[2] = { 5, 3 }, b[2] = { 5, 4 }, f[2] = { 2, 2 };
  GstBuffer *out;
  GstMapInfo map;
  gchar *text;
  guint i;

  gst_element_set_bus (window_of (h), bus);
  gst_harness_set_src_caps (h, tensor_caps (TN_UINT8, a, 2, 0));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 15, NULL)),
      GST_FLOW_OK);
  push_caps (h, tensor_caps (TN_UINT8, b, 2, 0));
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  tn_assert_contains (text, "w: the caps changed from uint8 <5, 3> to uint8 "
                            "<5, 4>");
  tn_assert_contains (text, "every axis but the window axis");
  g_free (text);
  /* the next buffer makes the pad send the refused caps again: no
   * second ERROR for the same refusal */
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 20, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_bus (window_of (h), NULL);
  gst_harness_teardown (h);

  /* stack, pad-end: 3 frames at 10/1, then 20/1: one padded batch */
  h = window_harness ("name=w stack=true size=4 pad-end=true", FALSE);
  gst_element_set_bus (window_of (h), bus);
  gst_harness_set_src_caps (h, tensor_caps (TN_UINT8, f, 2, 10));
  for (i = 0; i < 3; i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 4, NULL);

    gst_buffer_memset (in, 0, i + 1, 4);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless (push_caps (h, tensor_caps (TN_UINT8, f, 2, 20)));
  out = gst_harness_try_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 16);
  for (i = 0; i < 16; i++)
    fail_unless_equals_int (map.data[i], i < 12 ? i / 4 + 1 : 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  /* the new stream starts a new window */
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (
        gst_harness_push (h, gst_buffer_new_allocate (NULL, 4, NULL)),
        GST_FLOW_OK);
  out = gst_harness_try_pull (h);
  fail_unless (out != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), 3);
  gst_buffer_unref (out);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_bus (window_of (h), NULL);
  gst_harness_teardown (h);

  /* without pad-end the partial batch is dropped, with a warning */
  h = window_harness ("name=w stack=true size=4", FALSE);
  gst_element_set_bus (window_of (h), bus);
  gst_harness_set_src_caps (h, tensor_caps (TN_UINT8, f, 2, 10));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 4, NULL)),
      GST_FLOW_OK);
  fail_unless (push_caps (h, tensor_caps (TN_UINT8, f, 2, 20)));
  fail_unless (gst_harness_try_pull (h) == NULL);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  tn_assert_contains (text, "at the output caps change: 1 item(s) left");
  g_free (text);
  gst_element_set_bus (window_of (h), NULL);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* The first ERROR of launch line desc, played. */
static gchar *
launch_error (const gchar *desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "?");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

GST_START_TEST (test_property_errors)
{
  static const struct {
    const gchar *props, *want;
  } bad[] = {
    { "size=0", "w: size=\"0\" cannot be used: a window holds 1 or more" },
    { "size=-3", "w: size=\"-3\" cannot be used" },
    { "size=4 hop=-2", "w: hop=\"-2\" cannot be used" },
    { "size=2 squeeze=true", "w: size=\"2\" cannot be used: squeeze=true" },
    { "axis=2", "w: cannot cut windows of float32 <2, 3>: axis 2 is out of "
                "range for a tensor of rank 2" },
    { "axis=-4 stack=true", "axis -4 is out of range for stacking tensors of "
                            "rank 2 (-3..2)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *desc = g_strdup_printf ("tensorsrc num-buffers=2 "
                                   "! tensor/x-raw,type=float32,dims=<2,3> "
                                   "! tensorwindow name=w %s ! fakesink",
        bad[i].props);
    gchar *text = launch_error (desc);

    tn_assert_contains (text, bad[i].want);
    g_free (text);
    g_free (desc);
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Accept-caps queries are not serialized: they come from any thread, also
 * while the application stops the element, which drops its last refusal.
 * A thread keeps asking about caps the element refuses while this one
 * starts and stops it; a race on the refusal reads freed caps (a critical
 * with MALLOC_PERTURB_, an ASan report in build-asan). */
typedef struct {
  GstPad *pad;
  GstCaps *caps;
  gint stop;
  guint asked, accepted;
} AskLoop;

static gpointer
ask_accept_caps (gpointer data)
{
  AskLoop *a = data;

  while (!g_atomic_int_get (&a->stop)) {
    /* a copy of its own: the element's reference is the last one */
    GstCaps *c = gst_caps_copy (a->caps);

    if (gst_pad_query_accept_caps (a->pad, c))
      a->accepted++;
    gst_caps_unref (c);
    a->asked++;
  }
  return NULL;
}

GST_START_TEST (test_refusal_while_stopping)
{
  GstElement *w = gst_element_factory_make ("tensorwindow", "w");
  AskLoop a = { 0 };
  GThread *t;
  gint64 end = g_get_monotonic_time () + 300 * G_TIME_SPAN_MILLISECOND;
  guint cycles = 0;

  g_object_set (w, "axis", 2, NULL);
  a.pad = gst_element_get_static_pad (w, "sink");
  a.caps = gst_caps_from_string ("tensor/x-raw,type=float32,dims=<2,3>");
  t = g_thread_new ("ask", ask_accept_caps, &a);
  while (g_get_monotonic_time () < end || cycles < 50) {
    fail_unless (gst_element_set_state (w, GST_STATE_PAUSED)
                 == GST_STATE_CHANGE_SUCCESS);
    fail_unless (
        gst_element_set_state (w, GST_STATE_READY) == GST_STATE_CHANGE_SUCCESS);
    cycles++;
  }
  g_atomic_int_set (&a.stop, 1);
  g_thread_join (t);
  /* both sides ran: the queries overlapped the state changes */
  fail_unless (a.asked > 0);
  fail_unless_equals_int (a.accepted, 0);
  gst_element_set_state (w, GST_STATE_NULL);
  gst_caps_unref (a.caps);
  gst_object_unref (a.pad);
  gst_object_unref (w);
}
GST_END_TEST;

/* The dims of the caps at the sink of pipeline desc after it ran. */
static gchar *
sink_caps_after (const gchar *desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sink;
  GstPad *pad;
  GstCaps *caps;
  gchar *s;

  fail_unless (p != NULL, "%s", err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_element_set_state (p, GST_STATE_PAUSED);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND)
               == GST_STATE_CHANGE_SUCCESS);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (caps != NULL);
  s = gst_caps_to_string (caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return s;
}

/* Minimal caps, and capsfilters on either side. */
GST_START_TEST (test_negotiation)
{
  gchar *s;

  s = sink_caps_after (
      "tensorsrc num-buffers=1 ! tensor/x-raw,type=int16,dims=<5,3> "
      "! tensorwindow size=4 hop=2 ! fakesink name=sink");
  tn_assert_contains (s, "dims=(int)< 4, 3 >");
  /* 30 tensors of 5 items a second, a window every 2: 75/1 */
  tn_assert_contains (s, "framerate=(fraction)75/1");
  g_free (s);
  /* downstream asks: upstream fixates what fits (one item a tensor) */
  s = sink_caps_after ("tensorsrc num-buffers=1 ! tensorwindow size=4 "
                       "! tensor/x-raw,type=uint8,dims=<4,2> ! fakesink "
                       "name=sink");
  tn_assert_contains (s, "type=(string)uint8");
  tn_assert_contains (s, "dims=(int)< 4, 2 >");
  g_free (s);
  s = sink_caps_after ("tensorsrc num-buffers=1 ! tensorwindow size=2 "
                       "stack=true axis=1 squeeze=false "
                       "! tensor/x-raw,dims=<3,2,5> ! fakesink name=sink");
  tn_assert_contains (s, "dims=(int)< 3, 2, 5 >");
  g_free (s);
  /* a negative axis counts from the end: the last axis; with stack, a
   * new last axis */
  s = sink_caps_after (
      "tensorsrc num-buffers=1 ! tensor/x-raw,type=int16,dims=<5,3> "
      "! tensorwindow axis=-1 size=2 ! fakesink name=sink");
  tn_assert_contains (s, "dims=(int)< 5, 2 >");
  g_free (s);
  s = sink_caps_after (
      "tensorsrc num-buffers=1 ! tensor/x-raw,type=int16,dims=<5,3> "
      "! tensorwindow stack=true axis=-1 size=4 ! fakesink name=sink");
  tn_assert_contains (s, "dims=(int)< 5, 3, 4 >");
  g_free (s);
  s = sink_caps_after ("tensorsrc num-buffers=1 "
                       "! tensor/x-raw,type=float32,dims=<8,3,4> "
                       "! tensorwindow size=1 squeeze=true ! fakesink "
                       "name=sink");
  tn_assert_contains (s, "dims=(int)< 3, 4 >");
  g_free (s);
  tn_check_no_outstanding ();
}
GST_END_TEST;

typedef struct {
  GPtrArray *bufs;
  GstCaps *caps;
} Collected;

static void
collect_handoff (GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer data)
{
  Collected *c = data;

  if (c->caps == NULL)
    c->caps = gst_pad_get_current_caps (pad);
  g_ptr_array_add (c->bufs, gst_buffer_ref (buf));
}

/* The windows at a fakesink after pipeline desc, whose sink is "sink". */
static void
collect (const gchar *desc, Collected *c)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sink;

  fail_unless (p != NULL, "%s", err ? err->message : "?");
  c->bufs = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  c->caps = NULL;
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (sink, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (collect_handoff), c);
  gst_object_unref (sink);
  tn_play_to_eos (p, desc, 20);
}

/* Item (i, j, k) of window w (int16, dense as caps says). */
static gint
item_at (Collected *c, guint w, gint i, gint j, gint k)
{
  GstTnInfo info;
  GstTnMap m;
  gint v, idx[3] = { i, j, k };
  gint64 off;

  fail_unless (gst_tn_info_from_caps (&info, c->caps, NULL));
  fail_unless (gst_tn_buffer_map (
      &m, g_ptr_array_index (c->bufs, w), &info, GST_MAP_READ, NULL));
  off = m.view.offset;
  for (gint a = 0; a < m.view.rank; a++)
    off += idx[a] * m.view.strides[a];
  v = ((gint16 *) m.data)[off];
  gst_tn_buffer_unmap (&m);
  return v;
}

/* Strided input (tensorview's transpose, a view tensorwindow reads as it
 * is): x = np.arange (12).reshape (3, 4), each input x.T <4, 3>. */
GST_START_TEST (test_strided_input)
{
  Collected c;

  /* along axis 0 every 2, across inputs: window w row r is x.T[(2w + r) %
   * 4] = [(2w + r) % 4, 4 + ..., 8 + ...] */
  collect ("tensorsrc pattern=arange num-buffers=3 "
           "! tensor/x-raw,type=int16,dims=<3,4> ! tensorview ops=transpose "
           "! tensorwindow size=6 hop=2 ! fakesink name=sink",
      &c);
  fail_unless_equals_int (c.bufs->len, 4);
  for (guint w = 0; w < 4; w++)
    for (gint r = 0; r < 6; r++)
      for (gint q = 0; q < 3; q++)
        fail_unless_equals_int (
            item_at (&c, w, r, q, 0), 4 * q + (2 * w + r) % 4);
  g_ptr_array_unref (c.bufs);
  gst_caps_unref (c.caps);

  /* along axis 1 inside one input: windows of x.T[:, s:s + 2] */
  collect ("tensorsrc pattern=arange num-buffers=2 "
           "! tensor/x-raw,type=int16,dims=<3,4> ! tensorview ops=transpose "
           "! tensorwindow axis=1 size=2 hop=1 ! fakesink name=sink",
      &c);
  /* 6 columns joined, windows at 0..4 */
  fail_unless_equals_int (c.bufs->len, 5);
  for (guint w = 0; w < 5; w++)
    for (gint r = 0; r < 4; r++)
      for (gint q = 0; q < 2; q++)
        fail_unless_equals_int (
            item_at (&c, w, r, q, 0), 4 * ((w + q) % 3) + r);
  g_ptr_array_unref (c.bufs);
  gst_caps_unref (c.caps);

  /* batches of the strided frames, stacked on a new axis 1 */
  collect ("tensorsrc pattern=arange num-buffers=4 "
           "! tensor/x-raw,type=int16,dims=<3,4> ! tensorview ops=transpose "
           "! tensorwindow stack=true axis=1 size=2 ! fakesink name=sink",
      &c);
  fail_unless_equals_int (c.bufs->len, 2);
  for (guint w = 0; w < 2; w++)
    for (gint r = 0; r < 4; r++)
      for (gint f = 0; f < 2; f++)
        for (gint q = 0; q < 3; q++)
          fail_unless_equals_int (item_at (&c, w, r, f, q), 4 * q + r);
  g_ptr_array_unref (c.bufs);
  gst_caps_unref (c.caps);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* An allocator whose map is not its memories' data pointer (the element
 * maps those with gst_memory_map) and that counts maps and unmaps. */
typedef struct {
  GstAllocator parent;
} CountAlloc;
typedef struct {
  GstAllocatorClass parent_class;
} CountAllocClass;
typedef struct {
  GstMemory mem;
  guint8 *data;
} CountMem;

static GType count_alloc_get_type (void);
G_DEFINE_TYPE (CountAlloc, count_alloc, GST_TYPE_ALLOCATOR);

static gint count_maps, count_unmaps;

static GstMemory *
count_alloc_alloc (GstAllocator *a, gsize size, GstAllocationParams *params)
{
  CountMem *m = g_new0 (CountMem, 1);

  gst_memory_init (&m->mem, 0, a, NULL, size, 7, 0, size);
  m->data = g_malloc (size);
  return &m->mem;
}

static void
count_alloc_free (GstAllocator *a, GstMemory *mem)
{
  g_free (((CountMem *) mem)->data);
  g_free (mem);
}

static gpointer
count_map (GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
  g_atomic_int_inc (&count_maps);
  return ((CountMem *) mem)->data;
}

static void
count_unmap (GstMemory *mem)
{
  g_atomic_int_inc (&count_unmaps);
}

static void
count_alloc_class_init (CountAllocClass *klass)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = count_alloc_alloc;
  GST_ALLOCATOR_CLASS (klass)->free = count_alloc_free;
}

static void
count_alloc_init (CountAlloc *self)
{
  GstAllocator *a = GST_ALLOCATOR_CAST (self);

  a->mem_type = "CountMem";
  a->mem_map = count_map;
  a->mem_unmap = count_unmap;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* Input i of <8, 3> int16 (item j of the stream is 3j, 3j + 1, 3j + 2)
 * in one of the memories the element reads: 0, system memory whose
 * bytes start 6 into its block (a memory offset); 1, two system
 * memories; 2, a memory of CountAlloc; 3, the tensor allocator's. */
static GstBuffer *
memories_input (guint i, GstAllocator *count)
{
  const gsize bytes = 8 * 3 * sizeof (gint16);
  gint16 items[8 * 3];
  GstBuffer *b;

  for (guint q = 0; q < 8 * 3; q++)
    items[q] = (gint16) (i * 8 * 3 + q);
  switch (i % 4) {
  case 0:
    b = gst_buffer_new_allocate (NULL, bytes + 6, NULL);
    gst_buffer_fill (b, 6, items, bytes);
    gst_buffer_resize (b, 6, bytes);
    fail_unless_equals_int (gst_buffer_peek_memory (b, 0)->offset, 6);
    break;
  case 1:
    b = gst_buffer_new_allocate (NULL, 10, NULL);
    gst_buffer_append (b, gst_buffer_new_allocate (NULL, bytes - 10, NULL));
    gst_buffer_fill (b, 0, items, bytes);
    fail_unless_equals_int (gst_buffer_n_memory (b), 2);
    break;
  default: {
    GstAllocator *a
        = i % 4 == 2 ? gst_object_ref (count) : gst_tn_allocator_get ();

    b = gst_buffer_new_allocate (a, bytes, NULL);
    gst_object_unref (a);
    gst_buffer_fill (b, 0, items, bytes);
    break;
  }
  }
  return b;
}

/* Windows of size 6 every 2 over inputs of 8 items, some inside one input
 * (shares of it), the others across two (the ring), from inputs in
 * every kind of memory the element reads in its own way (its one
 * memory's data pointer, its one memory mapped, the buffer mapped):
 * every window holds its own items, and every map of a memory is
 * unmapped. */
GST_START_TEST (test_input_memories)
{
  GstHarness *h = window_harness ("name=w size=6 hop=2", FALSE);
  GstAllocator *count = g_object_new (count_alloc_get_type (), NULL);
  gint64 dims[2] = { 8, 3 };
  guint n = 0, i;
  GstBuffer *b;

  gst_object_ref_sink (count);
  count_maps = count_unmaps = 0;
  gst_harness_set_src_caps (h, tensor_caps (TN_INT16, dims, 2, 0));
  for (i = 0; i < 24; i++) {
    fail_unless_equals_int (
        gst_harness_push (h, memories_input (i, count)), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)) != NULL) {
      GstMapInfo map;
      const gint16 *v;

      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      fail_unless_equals_int (map.size, 6 * 3 * sizeof (gint16));
      v = (const gint16 *) map.data;
      for (guint q = 0; q < 6 * 3; q++)
        fail_unless (v[q] == (gint16) (2 * n * 3 + q),
            "window %u item %u is %d", n, q, v[q]);
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 2 * n);
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
      n++;
    }
  }
  /* items 0..191: windows at 0, 2, ..., 186 */
  fail_unless_equals_int (n, 94);
  gst_harness_teardown (h);
  fail_unless (count_maps > 0);
  fail_unless_equals_int (count_maps, count_unmaps);
  gst_object_unref (count);
  tn_check_no_outstanding ();
}
GST_END_TEST;

/* Tensors of no item, a zero extent on an axis other than the window's
 * (<3, 0> on axis 0, <3, 0, 2> on axis 2), with and without a reader of
 * the layout meta: windows of no byte with their offsets, and no
 * critical (a window inside an input took a region past its end). */
GST_START_TEST (test_empty_items)
{
  /* hop: items from one window to the next; n: windows of 3 inputs (9
   * items on axis 0 in windows of 2: 4, and a fifth padded; 6 items on
   * axis 2 in windows of 1) */
  static const struct {
    const gchar *props;
    gint64 dims[3];
    gint rank, hop, n;
  } cs[] = {
    { "name=w size=2", { 3, 0 }, 2, 2, 4 },
    { "name=w size=2 pad-end=true", { 3, 0 }, 2, 2, 5 },
    { "name=w axis=2 size=1", { 3, 0, 2 }, 3, 1, 6 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cs); c++) {
    for (gint meta = 0; meta < 2; meta++) {
      GstHarness *h = window_harness (cs[c].props, meta);
      guint n = 0;
      GstBuffer *b;

      gst_harness_set_src_caps (
          h, tensor_caps (TN_FLOAT32, cs[c].dims, cs[c].rank, 30));
      for (guint i = 0; i < 3; i++) {
        b = gst_buffer_new ();
        GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
        GST_BUFFER_DURATION (b) = GST_SECOND / 30;
        fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
      }
      gst_harness_push_event (h, gst_event_new_eos ());
      while ((b = gst_harness_try_pull (h)) != NULL) {
        fail_unless_equals_uint64 (gst_buffer_get_size (b), 0);
        fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), n * cs[c].hop);
        gst_buffer_unref (b);
        n++;
      }
      fail_unless_equals_int (n, cs[c].n);
      gst_harness_teardown (h);
    }
  }
  tn_check_no_outstanding ();
}
GST_END_TEST;

static gchar *printed;

static void
capture_print (const gchar *s)
{
  gchar *old = printed;

  printed = g_strconcat (old ? old : "", s, NULL);
  g_free (old);
}

/* Every launch line of the documentation runs as printed. */
GST_START_TEST (test_doc_launch_lines)
{
  static const gchar *const want[] = {
    "float32 <4096, 2>",
    "uint8 <8, 3, 48, 64>",
    /* np.arange (24).reshape (4, 6), row 3 */
    "int32 <6>: min=18 max=23",
    /* [[0 1 2 0 1 2] [3 4 5 3 4 5]][:, 4:7], padded */
    "[[1 2 0]\n [4 5 0]]",
  };
  gchar **cmds = tn_doc_commands ("tensorwindow.c");
  guint i;

  fail_unless_equals_int (g_strv_length (cmds), G_N_ELEMENTS (want));
  for (i = 0; cmds[i]; i++) {
    gchar **argv = NULL;
    GError *err = NULL;
    GstElement *pipe;
    GPrintFunc old;

    fail_unless (g_shell_parse_argv (cmds[i], NULL, &argv, &err));
    fail_unless_equals_string (argv[0], "gst-launch-1.0");
    pipe = gst_parse_launchv ((const gchar **) argv + 1, &err);
    fail_unless (pipe != NULL && err == NULL, "'%s': %s", cmds[i],
        err ? err->message : "?");
    old = g_set_print_handler (capture_print);
    tn_play_to_eos (pipe, cmds[i], 20);
    g_set_print_handler (old);
    tn_assert_contains (printed, want[i]);
    g_clear_pointer (&printed, g_free);
    g_strfreev (argv);
  }
  g_strfreev (cmds);
  tn_check_no_outstanding ();
}
GST_END_TEST;

static Suite *
tensorwindow_suite (void)
{
  Suite *s = suite_create ("tensorwindow");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_cases);
  tcase_add_test (tc, test_steady_released);
  tcase_add_test (tc, test_steady_held);
  tcase_add_test (tc, test_steady_in_chain);
  tcase_add_test (tc, test_steady_some_held);
  tcase_add_test (tc, test_many_pending);
  tcase_add_test (tc, test_timestamps_framerate);
  tcase_add_test (tc, test_timestamps_changing);
  tcase_add_test (tc, test_eos_drops_with_message);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_caps_changes);
  tcase_add_test (tc, test_property_errors);
  tcase_add_test (tc, test_refusal_while_stopping);
  tcase_add_test (tc, test_negotiation);
  tcase_add_test (tc, test_strided_input);
  tcase_add_test (tc, test_input_memories);
  tcase_add_test (tc, test_empty_items);
  tcase_add_test (tc, test_doc_launch_lines);
  return s;
}

GST_CHECK_MAIN (tensorwindow);
