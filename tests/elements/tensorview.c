/* tensorview against NumPy's views (tests/data/gen_tview.py writes
 * tview_in.npy and, per case, tview_<case>.npy). */
#include <string.h>

#include <gst/check/gstharness.h>

#include "common/tncheck.h"

typedef struct {
  GstTnInfo info;
  guint8 *file; /* the whole .npy */
  const guint8 *data;
  gsize size;
} Npy;

static void
npy_load (Npy *n, const gchar *name)
{
  gchar *path = tn_test_data (name);
  gsize len;
  size_t need = 0;
  tn_npy h;
  tn_err e = { { 0 } };

  fail_unless (g_file_get_contents (path, (gchar **) &n->file, &len, NULL),
      "cannot read %s", path);
  fail_unless (
      tn_npy_parse (&h, n->file, len, &need, &e) == 0, "%s: %s", path, e.msg);
  fail_if (h.fortran || h.big_endian);
  fail_unless (h.data_offset + h.data_size == len);
  memset (&n->info, 0, sizeof n->info);
  n->info.dtype = h.dtype;
  n->info.rank = h.rank;
  memcpy (n->info.dims, h.dims, sizeof h.dims);
  n->info.fps_d = 1;
  n->data = n->file + h.data_offset;
  n->size = h.data_size;
  g_free (path);
}

static void
npy_clear (Npy *n)
{
  g_free (n->file);
}

static GstBuffer *
npy_buffer (const Npy *n)
{
  return gst_buffer_new_memdup (n->data, n->size);
}

/* Bus messages of an element, for its errors. */
static GstBus *
watch (GstElement *e)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (e, bus);
  return bus;
}

/* The text of the next error on bus, or NULL. */
static gchar *
pop_error (GstBus *bus)
{
  GstMessage *msg;
  gchar *text = NULL;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)) != NULL) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    if (text == NULL)
      text = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (msg);
    break;
  }
  return text;
}

static void
unwatch (GstElement *e, GstBus *bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
}

static guint64
bytes_copied (GstElement *e)
{
  guint64 v;

  g_object_get (e, "bytes-copied", &v, NULL);
  return v;
}

/* The dense bytes of buf as caps describe it, whatever its layout. */
static guint8 *
read_tensor (GstBuffer *buf, GstCaps *caps, GstTnInfo *info, gsize *size)
{
  GError *err = NULL;
  GstTnMap m;
  guint8 *out;

  fail_unless (
      gst_tn_info_from_caps (info, caps, &err), "%s", err ? err->message : "?");
  fail_unless (gst_tn_info_size (info, size));
  fail_unless (gst_tn_buffer_map (&m, buf, info, GST_MAP_READ, &err), "%s",
      err ? err->message : "?");
  out = g_malloc (MAX (*size, 1));
  tn_view_materialize (out, m.data, &m.view);
  gst_tn_buffer_unmap (&m);
  return out;
}

/* Whether out's memory lies inside in's. */
static gboolean
shares_memory (GstBuffer *out, GstBuffer *in)
{
  GstMapInfo a, b;
  gboolean inside;

  if (gst_buffer_get_size (out) == 0)
    return TRUE;
  fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &b, GST_MAP_READ));
  inside = a.data >= b.data && a.data + a.size <= b.data + b.size;
  gst_buffer_unmap (out, &a);
  gst_buffer_unmap (in, &b);
  return inside;
}

static const guint8 *
address_of (GstBuffer *b)
{
  GstMapInfo map;
  const guint8 *p;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  p = map.data;
  gst_buffer_unmap (b, &map);
  return p;
}

typedef struct {
  const gchar *name;
  const gchar *ops;
  gboolean dense;    /* the result is a dense run of the input */
  gsize copy_anyway; /* bytes a reshape of a strided view copies */
} Case;

/* The same table as gen_tview.py; dense worked out by hand. */
static const Case cases[] = {
  { "permute", "permute:2:0:1", FALSE, 0 },
  { "permute_neg", "permute:-1:0:-2", FALSE, 0 },
  { "transpose", "transpose", FALSE, 0 },
  { "slice0", "slice:0:1:2", TRUE, 0 },
  { "slice1_step", "slice:1:0:3:2", FALSE, 0 },
  { "slice_neg", "slice:-1:-3:-1", FALSE, 0 },
  { "slice_clamp", "slice:2:-100:100:3", FALSE, 0 },
  { "slice_empty", "slice:1:2:1", TRUE, 0 },
  { "select", "select:1:-1", FALSE, 0 },
  { "select0", "select:0:1", TRUE, 0 },
  { "reshape", "reshape:4:-1", TRUE, 0 },
  { "expand", "expand:0", TRUE, 0 },
  { "expand_end", "expand:-1", TRUE, 0 },
  { "squeeze", "expand:1,squeeze:1", TRUE, 0 },
  { "broadcast", "broadcast:2:2:3:4", FALSE, 0 },
  { "broadcast1", "slice:1:1:2,broadcast:2:5:4", FALSE, 0 },
  { "chain_hwc", "permute:2:0:1,slice:1:0:2,select:0:3", FALSE, 0 },
  { "chain_reshape_strided", "transpose,reshape:24", TRUE, 96 },
  { "chain_reshape_dense", "slice:0:1:2,reshape:3:4,transpose", FALSE, 0 },
  { "chain_long", "expand:0,permute:3:1:2:0,squeeze:-1,slice:0:1:4:2,transpose",
      FALSE, 0 },
};

/* One case through one tensorview; downstream reads the layout meta when
 * meta is set. */
static void
run_case (const Case *c, gboolean meta)
{
  GstHarness *h = gst_harness_new ("tensorview");
  gchar *golden_name = g_strdup_printf ("tview_%s.npy", c->name);
  GstBuffer *in, *out;
  GstCaps *caps;
  GstTnInfo info;
  GstTnLayoutMeta *lm;
  guint8 *got;
  gsize size;
  Npy x, want;

  npy_load (&x, "tview_in.npy");
  npy_load (&want, golden_name);
  g_object_set (h->element, "ops", c->ops, NULL);
  if (meta)
    gst_harness_add_propose_allocation_meta (
        h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_set_src_caps (h, gst_tn_info_to_caps (&x.info));
  in = npy_buffer (&x);
  GST_BUFFER_PTS (in) = 5 * GST_SECOND;
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);

  caps = gst_pad_get_current_caps (h->sinkpad);
  got = read_tensor (out, caps, &info, &size);
  fail_unless (gst_tn_info_equal (&info, &want.info) || want.info.rank == 0,
      "%s: dims differ", c->name);
  fail_unless_equals_int (info.rank, want.info.rank);
  for (gint i = 0; i < info.rank; i++)
    fail_unless_equals_int64 (info.dims[i], want.info.dims[i]);
  fail_unless_equals_uint64 (size, want.size);
  fail_unless (memcmp (got, want.data, size) == 0,
      "%s (meta %d): values "
      "differ from NumPy",
      c->name, meta);

  lm = gst_tn_buffer_get_layout_meta (out);
  if (c->dense || meta) {
    /* No copy: a sub-range of the same memory; a meta only if strided. */
    fail_unless (
        c->copy_anyway > 0 || shares_memory (out, in), "%s copied", c->name);
    fail_unless ((lm != NULL) == !c->dense, "%s: meta %p", c->name, lm);
    fail_unless_equals_uint64 (bytes_copied (h->element), c->copy_anyway);
  } else {
    fail_unless (lm == NULL, "%s: meta without a reader", c->name);
    fail_if (shares_memory (out, in), "%s: not materialized", c->name);
    fail_unless_equals_uint64 (
        bytes_copied (h->element), c->copy_anyway + size);
  }
  if (c->dense)
    fail_unless_equals_uint64 (gst_buffer_get_size (out), size);

  g_free (got);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  npy_clear (&x);
  npy_clear (&want);
  g_free (golden_name);
}

GST_START_TEST (test_steps_meta)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    run_case (&cases[i], TRUE);
  tn_check_no_outstanding ();
}

GST_END_TEST;

GST_START_TEST (test_steps_materialized)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    run_case (&cases[i], FALSE);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A slice along axis 0 of a dense tensor: the exact bytes of the input,
 * at the exact address, no meta, nothing copied. */
GST_START_TEST (test_slice0_same_memory)
{
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  GstMapInfo a, b;
  Npy x;

  npy_load (&x, "tview_in.npy");
  g_object_set (h->element, "ops", "slice:0:1:2", NULL);
  gst_harness_set_src_caps (h, gst_tn_info_to_caps (&x.info));
  in = npy_buffer (&x);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_n_memory (out), 1);
  fail_unless (gst_buffer_map (out, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &b, GST_MAP_READ));
  /* Item 12 is the start of index 1 along axis 0 (<2, 3, 4>). */
  fail_unless (a.data == b.data + 12 * 4);
  fail_unless_equals_uint64 (a.size, 48);
  gst_buffer_unmap (in, &b);
  gst_buffer_unmap (out, &a);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  npy_clear (&x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A writable input the view covers whole is passed on itself, its layout
 * meta set or removed: nothing allocated. */
GST_START_TEST (test_in_place)
{
  static const gint64 t_strides[2] = { 1, 2 };
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;
  guint8 *p;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  g_object_set (h->element, "ops", "transpose", NULL);
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<2,3>,"
                                   "dims-order=row-major,framerate=0/1");
  /* Dense in, strided out: the same buffer with the meta. */
  in = gst_buffer_new_allocate (NULL, 6, NULL);
  p = (guint8 *) address_of (in);
  gst_harness_push (h, in);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  lm = gst_tn_buffer_get_layout_meta (out);
  fail_unless (lm != NULL && lm->offset == 0);
  fail_unless_equals_int64 (lm->strides[0], 1);
  fail_unless_equals_int64 (lm->strides[1], 3);
  gst_buffer_unref (out);

  /* Strided in (a transposed <3, 2> storage), transposed back: dense, the
   * same buffer, the meta gone. */
  in = gst_buffer_new_allocate (NULL, 6, NULL);
  gst_tn_buffer_add_layout_meta (in, 2, 0, t_strides);
  p = (guint8 *) address_of (in);
  gst_harness_push (h, in);
  out = gst_harness_pull (h);
  fail_unless (out == in);
  fail_unless (address_of (out) == p);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Two tensorviews in a row: the first emits a view (the second reads the
 * meta), the second composes it with its own steps; the result is NumPy's
 * and still the input's memory when the end reads strides. */
GST_START_TEST (test_chain_of_elements)
{
  static const struct {
    const gchar *launch, *golden;
    gboolean meta;
  } chains[] = {
    { "tensorview name=a ops=permute:2:0:1 ! tensorview name=b "
      "ops=slice:1:0:2,select:0:3",
        "tview_chain_hwc.npy", TRUE },
    { "tensorview name=a ops=permute:2:0:1 ! tensorview name=b "
      "ops=slice:1:0:2,select:0:3",
        "tview_chain_hwc.npy", FALSE },
    { "tensorview name=a ops=slice:0:1:2 ! tensorview name=b "
      "ops=reshape:3:4,transpose",
        "tview_chain_reshape_dense.npy", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (chains); i++) {
    GstHarness *h = gst_harness_new_parse (chains[i].launch);
    GstElement *a = gst_bin_get_by_name (GST_BIN (h->element), "a");
    GstElement *b = gst_bin_get_by_name (GST_BIN (h->element), "b");
    GstBuffer *in, *out;
    GstCaps *caps;
    GstTnInfo info;
    guint8 *got;
    gsize size;
    Npy x, want;

    npy_load (&x, "tview_in.npy");
    npy_load (&want, chains[i].golden);
    if (chains[i].meta)
      gst_harness_add_propose_allocation_meta (
          h, GST_TN_LAYOUT_META_API_TYPE, NULL);
    gst_harness_set_src_caps (h, gst_tn_info_to_caps (&x.info));
    in = npy_buffer (&x);
    gst_harness_push (h, gst_buffer_ref (in));
    out = gst_harness_pull (h);
    caps = gst_pad_get_current_caps (h->sinkpad);
    got = read_tensor (out, caps, &info, &size);
    fail_unless_equals_uint64 (size, want.size);
    fail_unless (memcmp (got, want.data, size) == 0, "chain %u differs", i);
    /* The first never copies: the second reads its views. */
    fail_unless_equals_uint64 (bytes_copied (a), 0);
    if (chains[i].meta) {
      fail_unless (shares_memory (out, in));
      fail_unless_equals_uint64 (bytes_copied (b), 0);
    } else {
      fail_if (shares_memory (out, in));
      fail_unless_equals_uint64 (bytes_copied (b), size);
    }
    g_free (got);
    gst_caps_unref (caps);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_object_unref (a);
    gst_object_unref (b);
    gst_harness_teardown (h);
    npy_clear (&x);
    npy_clear (&want);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* npyenc reads strides: the view is written without a copy in tensorview,
 * and the file is byte for byte what numpy.save writes for the result. */
GST_START_TEST (test_read_by_npyenc)
{
  GstHarness *h
      = gst_harness_new_parse ("tensorview name=v ops=permute:2:0:1 ! npyenc");
  GstElement *v = gst_bin_get_by_name (GST_BIN (h->element), "v");
  GstBuffer *out;
  GstMapInfo map;
  Npy x, want;

  npy_load (&x, "tview_hwc.npy");
  npy_load (&want, "tview_hwc_chw.npy");
  gst_harness_set_src_caps (h, gst_tn_info_to_caps (&x.info));
  gst_harness_push (h, npy_buffer (&x));
  gst_harness_push_event (h, gst_event_new_eos ());
  out = gst_harness_take_all_data_as_buffer (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (
      map.size, (gsize) (want.data - want.file) + want.size);
  fail_unless (
      memcmp (map.data + (want.data - want.file), want.data, want.size) == 0);
  gst_buffer_unmap (out, &map);
  fail_unless_equals_uint64 (bytes_copied (v), 0);
  gst_buffer_unref (out);
  gst_object_unref (v);
  gst_harness_teardown (h);
  npy_clear (&x);
  npy_clear (&want);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* tensorreduce reads strides: the sum over the last axis of a permuted
 * view is NumPy's, and tensorview copied nothing. */
GST_START_TEST (test_read_by_tensorreduce)
{
  GstHarness *h = gst_harness_new_parse (
      "tensorview name=v ops=permute:2:0:1 ! tensorreduce op=sum axes=-1");
  GstElement *v = gst_bin_get_by_name (GST_BIN (h->element), "v");
  GstBuffer *out;
  GstCaps *caps;
  GstTnInfo info;
  guint8 *got;
  gsize size;
  Npy x, want;

  npy_load (&x, "tview_in.npy");
  npy_load (&want, "tview_reduce.npy");
  gst_harness_set_src_caps (h, gst_tn_info_to_caps (&x.info));
  gst_harness_push (h, npy_buffer (&x));
  out = gst_harness_pull (h);
  caps = gst_pad_get_current_caps (h->sinkpad);
  got = read_tensor (out, caps, &info, &size);
  fail_unless_equals_int (info.rank, 2);
  fail_unless_equals_int64 (info.dims[0], 4);
  fail_unless_equals_int64 (info.dims[1], 2);
  fail_unless_equals_uint64 (size, want.size);
  fail_unless (memcmp (got, want.data, size) == 0);
  fail_unless_equals_uint64 (bytes_copied (v), 0);
  g_free (got);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_object_unref (v);
  gst_harness_teardown (h);
  npy_clear (&x);
  npy_clear (&want);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static gchar *printed;

static void
capture_print (const gchar *s)
{
  gchar *t = g_strconcat (printed ? printed : "", s, NULL);

  g_free (printed);
  printed = t;
}

/* tensordebug reads strides when it is the last reader: it prints the
 * strides of the view it was handed, and tensorview copied nothing. */
GST_START_TEST (test_read_by_tensordebug)
{
  GstElement *pipe, *v;
  GstBus *bus;
  GstMessage *msg;
  GPrintFunc old = g_set_print_handler (capture_print);

  pipe = gst_parse_launch ("tensorsrc num-buffers=1 pattern=arange ! "
                           "tensor/x-raw,type=uint8,dims=<5,7,3> ! "
                           "tensorview name=v ops=permute:2:0:1 ! "
                           "tensordebug ! fakesink",
      NULL);
  fail_unless (pipe != NULL);
  v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
               != GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  g_set_print_handler (old);
  /* permute:2:0:1 of <5, 7, 3> has strides <1, 21, 3>; with arange from
   * 0, row [0, 0] of the view is 0, 3, 6, ... */
  tn_assert_contains (printed, "uint8 <3, 5, 7> strides <1, 21, 3>");
  tn_assert_contains (printed, "[[[  0   3   6   9  12  15  18]");
  fail_unless_equals_uint64 (bytes_copied (v), 0);
  gst_object_unref (v);
  gst_object_unref (pipe);
  g_free (printed);
  printed = NULL;
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Caps both ways: dims downstream asks for pick the source's dims through
 * an invertible chain; the output caps carry the logical dims. */
GST_START_TEST (test_caps_both_directions)
{
  GstHarness *h = gst_harness_new ("tensorview");
  GstCaps *caps, *want;

  g_object_set (h->element, "ops", "permute:2:0:1,expand:0", NULL);
  /* Upstream of <1, 3, 480, 640> is <480, 640, 3>. */
  gst_harness_set_sink_caps_str (
      h, "tensor/x-raw,type=uint8,dims=<1,3,480,640>");
  caps = gst_pad_peer_query_caps (h->srcpad, NULL);
  want = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<480,640,3>");
  fail_unless (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  want = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<3,480,640>");
  fail_if (gst_caps_can_intersect (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);

  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<480,640,3>,"
                                   "dims-order=row-major,framerate=30/1");
  gst_harness_push (h, gst_buffer_new_allocate (NULL, 480 * 640 * 3, NULL));
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->sinkpad);
  want = gst_caps_from_string (
      "tensor/x-raw,type=uint8,dims=<1,3,480,640>,dims-order=row-major,"
      "framerate=30/1");
  fail_unless (gst_caps_is_equal (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A capsfilter after the view picks what the source makes. */
GST_START_TEST (test_capsfilter_downstream)
{
  GstElement *pipe = gst_parse_launch (
      "tensorsrc name=s num-buffers=1 ! tensorview ops=transpose ! "
      "tensor/x-raw,type=int16,dims=<4,2> ! fakesink",
      NULL);
  GstElement *s = gst_bin_get_by_name (GST_BIN (pipe), "s");
  GstPad *pad = gst_element_get_static_pad (s, "src");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;
  GstCaps *caps, *want;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  caps = gst_pad_get_current_caps (pad);
  want = gst_caps_from_string ("tensor/x-raw,type=int16,dims=<2,4>");
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (s);
  gst_object_unref (pipe);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ops that do not fit the tensor: caps are refused with the step, the
 * axis and the extents in the message. */
static gchar *
caps_error (const gchar *ops, const gchar *caps)
{
  GstHarness *h = gst_harness_new ("tensorview");
  GstBus *bus = watch (h->element);
  GstSegment seg;
  gchar *text;

  g_object_set (h->element, "ops", ops, NULL);
  fail_unless (gst_harness_push_event (h, gst_event_new_stream_start ("s")));

  {
    GstCaps *c = gst_caps_from_string (caps);

    gst_harness_push_event (h, gst_event_new_caps (c));
    gst_caps_unref (c);
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new ()), GST_FLOW_NOT_NEGOTIATED);
  text = pop_error (bus);
  fail_unless (text != NULL, "no error for %s on %s", ops, caps);
  fail_unless (pop_error (bus) == NULL, "two errors for %s", ops);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_step_errors)
{
  static const struct {
    const gchar *ops, *want;
  } errs[] = {
    { "slice:3:0:1", "step 1 of 1 ('slice:3:0:1'): axis 3 is out of range "
                     "for a tensor of rank 3" },
    { "transpose,select:-4:0", "step 2 of 2 ('select:-4:0'): axis -4 is out "
                               "of range for a tensor of rank 3" },
    { "select:0:2", "index 2 is out of range for axis 0 of extent 2" },
    { "permute:0:1", "permute needs 3 axes for a tensor of rank 3, got 2" },
    { "permute:0:1:1", "axis 1 appears twice" },
    { "slice:0:0:2:0", "slice step must be 1 or more, got 0" },
    { "reshape:5:5", "(24 items) to <5, 5> (25 items)" },
    { "squeeze:1", "axis 1" },
    { "broadcast:2:5:4", "cannot broadcast <2, 3, 4> to <2, 5, 4>: axis 1 "
                         "has 3 against 5" },
    { "select:0:0,select:0:0,transpose",
        "transpose swaps the last two axes and needs rank 2 or more; this "
        "tensor has rank 1" },
  };
  const gchar *caps = "tensor/x-raw,type=float32,dims=<2,3,4>,"
                      "dims-order=row-major,framerate=0/1";

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    gchar *text = caps_error (errs[i].ops, caps);

    tn_assert_contains (text, errs[i].want);
    tn_assert_contains (text, "float32 <2, 3, 4>");
    g_free (text);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ops that do not parse: the element refuses to start and says why;
 * get returns what was set. */
GST_START_TEST (test_parse_errors)
{
  static const struct {
    const gchar *ops, *want;
  } errs[] = {
    { "permut:1:0", "step 1 of 1 ('permut') is not a view step; expected "
                    "one of permute, transpose, slice, select, reshape, "
                    "expand, squeeze, broadcast" },
    { "slice:0:1", "step 1 of 1 ('slice') has 2 arguments; expected "
                   "slice:AXIS:START:STOP[:STEP] (3 to 4 arguments)" },
    { "transpose:1", "('transpose') has 1 argument; expected transpose" },
    { "slice:0:a:2", "step 1 of 1 ('slice'): argument 2 is 'a', not a whole "
                     "number" },
    { "slice:0:1:99999999999999999999",
        "argument 3 is '99999999999999999999', not a whole number that fits "
        "in 64 bits" },
    { "permute:1:0,,transpose", "step 2 of 3 is empty" },
    { "permute:1::0", "step 1 of 1 ('permute') has an empty argument 2" },
    { ":1", "step 1 of 1 is empty (an argument without a step name)" },
    { "permute:0:1:2:3:4:5:6:7:8", "has 9 arguments" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    GstElement *e = gst_element_factory_make ("tensorview", NULL);
    GstBus *bus = watch (e);
    gchar *text, *got;

    g_object_set (e, "ops", errs[i].ops, NULL);
    g_object_get (e, "ops", &got, NULL);
    fail_unless_equals_string (got, errs[i].ops);
    g_free (got);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = pop_error (bus);
    tn_assert_contains (text, errs[i].want);
    tn_assert_contains (text, errs[i].ops);
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    unwatch (e, bus);
    gst_object_unref (e);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A buffer that disagrees with its caps is an error with both sizes. */
GST_START_TEST (test_wrong_size)
{
  GstHarness *h = gst_harness_new ("tensorview");
  GstBus *bus = watch (h->element);
  gchar *text;

  g_object_set (h->element, "ops", "transpose", NULL);
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=float32,dims=<2,3,4>,"
                                   "dims-order=row-major,framerate=0/1");
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_new_allocate (NULL, 20, NULL)),
      GST_FLOW_ERROR);
  text = pop_error (bus);
  tn_assert_contains (
      text, "buffer holds 20 bytes; caps float32 <2, 3, 4> need 96");
  g_free (text);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The empty list passes buffers through untouched; properties read back. */
GST_START_TEST (test_properties_passthrough)
{
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  gchar *ops;
  GParamSpec *ps;

  g_object_get (h->element, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "");
  g_free (ops);
  ps = g_object_class_find_property (
      G_OBJECT_GET_CLASS (h->element), "bytes-copied");
  fail_unless (ps != NULL && !(ps->flags & G_PARAM_WRITABLE));
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);

  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<3>,"
                                   "dims-order=row-major,framerate=0/1");
  in = gst_buffer_new_allocate (NULL, 3, NULL);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The item of buf (caps dims <d0, d1, d2>, uint8) at (i, j, k). */
static guint8
item3 (GstBuffer *buf, GstCaps *caps, gint i, gint j, gint k)
{
  GstTnInfo info;
  GstTnMap m;
  guint8 v;

  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, NULL));
  v = m.data[m.view.offset + i * m.view.strides[0] + j * m.view.strides[1]
             + k * m.view.strides[2]];
  gst_tn_buffer_unmap (&m);
  return v;
}

/* Bytes 0..n-1 hold their own index. */
static GstBuffer *
counting_buffer (gsize n)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, n, NULL);
  GstMapInfo map;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < n; i++)
    map.data[i] = (guint8) i;
  gst_buffer_unmap (b, &map);
  return b;
}

/* A writable strided input keeps its buffer and its GstMeta, changed in
 * place; a second buffer with another layout is not given the first one's
 * (the view is worked out once per layout). */
GST_START_TEST (test_meta_in_place)
{
  /* dims <4, 2, 3> over storage <2, 3, 4> (values i + 4j + 12k read at
   * (i, j, k) of the input), then <3, 2, 4> over storage <2, 4, 3>. */
  static const gint64 s_a[3] = { 1, 12, 4 }, s_b[3] = { 3, 12, 1 };
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm, *before;
  GstCaps *caps;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  g_object_set (h->element, "ops", "transpose", NULL);
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<4,2,3>,"
                                   "dims-order=row-major,framerate=0/1");
  caps = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<4,3,2>,"
                               "dims-order=row-major,framerate=0/1");
  for (gint round = 0; round < 2; round++) {
    in = counting_buffer (24);
    before = gst_tn_buffer_add_layout_meta (in, 3, 0, s_a);
    gst_harness_push (h, in);
    out = gst_harness_pull (h);
    fail_unless (out == in);
    lm = gst_tn_buffer_get_layout_meta (out);
    fail_unless (lm == before);
    fail_unless_equals_int64 (lm->strides[0], 1);
    fail_unless_equals_int64 (lm->strides[1], 4);
    fail_unless_equals_int64 (lm->strides[2], 12);
    for (gint i = 0; i < 4; i++)
      for (gint j = 0; j < 3; j++)
        for (gint k = 0; k < 2; k++)
          fail_unless_equals_int (
              item3 (out, caps, i, j, k), i + 4 * j + 12 * k);
    gst_buffer_unref (out);
  }

  /* Another layout of the same caps: (i, j, k) of the input is byte
   * 3i + 12j + k, so (i, j, k) of the output is 3i + 12k + j. */
  in = counting_buffer (24);
  gst_tn_buffer_add_layout_meta (in, 3, 0, s_b);
  gst_harness_push (h, in);
  out = gst_harness_pull (h);
  lm = gst_tn_buffer_get_layout_meta (out);
  fail_unless (lm != NULL);
  fail_unless_equals_int64 (lm->strides[0], 3);
  fail_unless_equals_int64 (lm->strides[1], 1);
  fail_unless_equals_int64 (lm->strides[2], 12);
  fail_unless_equals_int (item3 (out, caps, 3, 2, 1), 3 * 3 + 12 * 1 + 2);
  gst_buffer_unref (out);

  /* And a dense one again: the meta the view needs is added. */
  in = counting_buffer (24);
  gst_harness_push (h, in);
  out = gst_harness_pull (h);
  lm = gst_tn_buffer_get_layout_meta (out);
  fail_unless (lm != NULL);
  fail_unless_equals_int64 (lm->strides[0], 6);
  fail_unless_equals_int64 (lm->strides[1], 1);
  fail_unless_equals_int64 (lm->strides[2], 3);
  fail_unless_equals_int (item3 (out, caps, 3, 2, 1), 6 * 3 + 2 + 3);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (out);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A shared input is never changed: the output is a new buffer over the
 * same memory (the same address), with the input's timestamps, and the
 * input keeps its own layout meta. */
GST_START_TEST (test_shared_input_untouched)
{
  static const gint64 s_in[3] = { 1, 12, 4 };
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;
  GstCaps *caps;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  g_object_set (h->element, "ops", "transpose", NULL);
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<4,2,3>,"
                                   "dims-order=row-major,framerate=0/1");
  caps = gst_caps_from_string ("tensor/x-raw,type=uint8,dims=<4,3,2>,"
                               "dims-order=row-major,framerate=0/1");
  in = counting_buffer (24);
  gst_tn_buffer_add_layout_meta (in, 3, 0, s_in);
  GST_BUFFER_PTS (in) = 3;
  GST_BUFFER_DURATION (in) = 4;
  for (gint round = 0; round < 2; round++) {
    gst_harness_push (h, gst_buffer_ref (in));
    out = gst_harness_pull (h);
    fail_unless (out != in);
    fail_unless (address_of (out) == address_of (in));
    fail_unless (
        gst_buffer_peek_memory (out, 0) == gst_buffer_peek_memory (in, 0));
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 3);
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 4);
    lm = gst_tn_buffer_get_layout_meta (out);
    fail_unless (lm != NULL);
    fail_unless_equals_int64 (lm->strides[1], 4);
    fail_unless_equals_int64 (lm->strides[2], 12);
    fail_unless_equals_int (item3 (out, caps, 3, 2, 1), 3 + 8 + 12);
    gst_buffer_unref (out);
    lm = gst_tn_buffer_get_layout_meta (in);
    fail_unless_equals_int64 (lm->strides[0], 1);
    fail_unless_equals_int64 (lm->strides[1], 12);
    fail_unless_equals_int64 (lm->strides[2], 4);
  }
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_buffer_unref (in);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Steps that leave a dense tensor as it is pass the input buffer on
 * itself, shared or not, as passthrough would; with a strided input the
 * same steps keep its layout. */
GST_START_TEST (test_unchanged_view)
{
  static const gint64 s_in[2] = { 1, 2 };
  GstHarness *h = gst_harness_new ("tensorview");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  g_object_set (h->element, "ops", "permute:0:1,slice:0:0:3", NULL);
  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<3,2>,"
                                   "dims-order=row-major,framerate=0/1");
  in = counting_buffer (6);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (out == in);
  fail_unless (gst_tn_buffer_get_layout_meta (out) == NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 6);
  gst_buffer_unref (out);
  gst_buffer_unref (in);

  in = counting_buffer (6);
  gst_tn_buffer_add_layout_meta (in, 2, 0, s_in);
  gst_harness_push (h, gst_buffer_ref (in));
  out = gst_harness_pull (h);
  fail_unless (out != in);
  fail_unless (address_of (out) == address_of (in));
  lm = gst_tn_buffer_get_layout_meta (out);
  fail_unless (lm != NULL);
  fail_unless_equals_int64 (lm->strides[0], 1);
  fail_unless_equals_int64 (lm->strides[1], 2);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  fail_unless_equals_uint64 (bytes_copied (h->element), 0);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

static Suite *
tensorview_suite (void)
{
  Suite *s = suite_create ("tensorview");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_steps_meta);
  tcase_add_test (tc, test_steps_materialized);
  tcase_add_test (tc, test_slice0_same_memory);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_meta_in_place);
  tcase_add_test (tc, test_shared_input_untouched);
  tcase_add_test (tc, test_unchanged_view);
  tcase_add_test (tc, test_chain_of_elements);
  tcase_add_test (tc, test_read_by_npyenc);
  tcase_add_test (tc, test_read_by_tensorreduce);
  tcase_add_test (tc, test_read_by_tensordebug);
  tcase_add_test (tc, test_caps_both_directions);
  tcase_add_test (tc, test_capsfilter_downstream);
  tcase_add_test (tc, test_step_errors);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_wrong_size);
  tcase_add_test (tc, test_properties_passthrough);
  return s;
}

GST_CHECK_MAIN (tensorview);
