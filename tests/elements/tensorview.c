/* tensorview against NumPy's views (tests/data/gen/gen_tview.py writes
 * tview_in.npy and, per case, tview_<case>.npy): every step kind, each
 * with a reader of the layout meta and with readers of dense tensors only
 * (filesink, multifilesink, appsink, fakesink dump=true, behind identity,
 * queue or tensordebug); the ops grammar refused when the element starts;
 * steps that do not fit refused at negotiation; and the launch lines of
 * the element's documentation, run as printed. */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstharness.h>

#include "common/npyread.h"
#include "common/tncheck.h"

/* A golden file's dtype and dims. */
static GstTnInfo
npy_info (const Npy *n)
{
  GstTnInfo info;

  memset (&info, 0, sizeof info);
  info.dtype = n->dtype;
  info.rank = n->rank;
  memcpy (info.dims, n->dims, sizeof n->dims);
  info.fps_d = 1;
  return info;
}

static GstCaps *
npy_caps (const Npy *n)
{
  GstTnInfo info = npy_info (n);

  return gst_tn_info_to_caps (&info);
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

/* The item of buf (caps dims <d0, d1>, uint8) at (i, j). */
static guint8
item2 (GstBuffer *buf, GstCaps *caps, gint i, gint j)
{
  GstTnInfo info;
  GstTnMap m;
  guint8 v;

  fail_unless (gst_tn_info_from_caps (&info, caps, NULL));
  fail_unless (gst_tn_buffer_map (&m, buf, &info, GST_MAP_READ, NULL));
  v = m.data[m.view.offset + i * m.view.strides[0] + j * m.view.strides[1]];
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

/* What a case's result is. */
typedef enum {
  OUT_DENSE, /* a dense run of the input: shared, never copied */
  OUT_VIEW,  /* strided: the meta for a reader of it, else one copy */
  OUT_COPY,  /* a reversed axis: always one copy, never a meta */
} OutKind;

typedef struct {
  const gchar *name;
  const gchar *ops;
  OutKind kind;      /* worked out by hand */
  gsize copy_anyway; /* bytes a reshape of a strided view copies */
} Case;

/* The same table as gen_tview.py. */
static const Case cases[] = {
  { "permute", "permute:2:0:1", OUT_VIEW, 0 },
  { "permute_neg", "permute:-1:0:-2", OUT_VIEW, 0 },
  { "transpose", "transpose", OUT_VIEW, 0 },
  { "slice0", "slice:0:1:2", OUT_DENSE, 0 },
  { "slice1_step", "slice:1:0:3:2", OUT_VIEW, 0 },
  { "slice_neg", "slice:-1:-3:-1", OUT_VIEW, 0 },
  { "slice_clamp", "slice:2:-100:100:3", OUT_VIEW, 0 },
  { "slice_empty", "slice:1:2:1", OUT_DENSE, 0 },
  { "select", "select:1:-1", OUT_VIEW, 0 },
  { "select0", "select:0:1", OUT_DENSE, 0 },
  { "reshape", "reshape:4:-1", OUT_DENSE, 0 },
  { "expand", "expand:0", OUT_DENSE, 0 },
  { "expand_end", "expand:-1", OUT_DENSE, 0 },
  { "squeeze", "expand:1,squeeze:1", OUT_DENSE, 0 },
  { "broadcast", "broadcast:2:2:3:4", OUT_VIEW, 0 },
  { "broadcast1", "slice:1:1:2,broadcast:2:5:4", OUT_VIEW, 0 },
  { "chain_hwc", "permute:2:0:1,slice:1:0:2,select:0:3", OUT_VIEW, 0 },
  { "chain_reshape_strided", "transpose,reshape:24", OUT_DENSE, 96 },
  { "chain_reshape_dense", "slice:0:1:2,reshape:3:4,transpose", OUT_VIEW, 0 },
  { "chain_long", "expand:0,permute:3:1:2:0,squeeze:-1,slice:0:1:4:2,transpose",
      OUT_VIEW, 0 },
  { "slice_no_start", "slice:1::2", OUT_VIEW, 0 },
  { "slice_no_stop", "slice:2:1:", OUT_VIEW, 0 },
  { "slice_only_step", "slice:2:::2", OUT_VIEW, 0 },
  { "slice_all_but_last", "slice:0::-1", OUT_DENSE, 0 },
  { "slice_neg_start_step", "slice:2:-3::2", OUT_VIEW, 0 },
  { "slice_out_of_range", "slice:1:-99:99:", OUT_DENSE, 0 },
  { "flip0", "flip:0", OUT_COPY, 0 },
  { "flip_mid", "flip:1", OUT_COPY, 0 },
  { "flip_last", "flip:-1", OUT_COPY, 0 },
  { "flip_all", "flip:0,flip:1,flip:2", OUT_COPY, 0 },
  /* reversed twice: nothing reversed, the input as it is */
  { "flip_twice", "flip:1,flip:-2", OUT_DENSE, 0 },
  { "flip_slice", "flip:2,slice:2:1::2", OUT_COPY, 0 },
  { "flip_slice_neg", "flip:1,slice:1:-2:", OUT_COPY, 0 },
  /* the reversed axis selected away: a plain view */
  { "flip_select", "flip:1,select:1:0", OUT_VIEW, 0 },
  { "flip_permute", "flip:-1,permute:2:0:1", OUT_COPY, 0 },
  { "permute_flip", "permute:2:0:1,flip:0", OUT_COPY, 0 },
  { "flip_transpose", "flip:2,transpose", OUT_COPY, 0 },
  { "flip_expand_squeeze", "flip:0,expand:1,squeeze:1,flip:2", OUT_COPY, 0 },
  /* a reshape needs the reversed view copied first */
  { "flip_reshape", "flip:2,reshape:6:4,flip:0", OUT_COPY, 96 },
  { "flip_broadcast", "slice:1:1:2,flip:2,broadcast:2:5:4", OUT_COPY, 0 },
};

/* A tensorview with ops set before it runs (the harness starts its
 * element at once, and ops cannot change in PLAYING). */
static GstHarness *
view_harness (const gchar *ops)
{
  GstElement *e = gst_element_factory_make ("tensorview", "view");
  GstHarness *h;

  fail_unless (e != NULL);
  g_object_set (e, "ops", ops, NULL);
  /* the harness takes a reference of its own */
  gst_object_ref_sink (e);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  return h;
}

/* One case through one tensorview; downstream reads the layout meta when
 * meta is set. */
static void
run_case (const Case *c, gboolean meta)
{
  GstHarness *h = view_harness (c->ops);
  gchar *golden_name = g_strdup_printf ("tview_%s.npy", c->name);
  GstBuffer *in, *out;
  GstCaps *caps;
  GstTnInfo info, want_info;
  GstTnLayoutMeta *lm;
  guint8 *got;
  gsize size;
  Npy x, want;

  npy_load (&x, "tview_in.npy");
  npy_load (&want, golden_name);
  if (meta)
    gst_harness_add_propose_allocation_meta (
        h, GST_TN_LAYOUT_META_API_TYPE, NULL);
  gst_harness_set_src_caps (h, npy_caps (&x));
  in = npy_buffer (&x);
  GST_BUFFER_PTS (in) = 5 * GST_SECOND;
  fail_unless_equals_int (
      gst_harness_push (h, gst_buffer_ref (in)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND);

  caps = gst_pad_get_current_caps (h->sinkpad);
  got = read_tensor (out, caps, &info, &size);
  want_info = npy_info (&want);
  fail_unless (gst_tn_info_equal (&info, &want_info) || want_info.rank == 0,
      "%s: dims differ", c->name);
  fail_unless_equals_int (info.rank, want_info.rank);
  for (gint i = 0; i < info.rank; i++)
    fail_unless_equals_int64 (info.dims[i], want_info.dims[i]);
  fail_unless_equals_uint64 (size, want.size);
  fail_unless (memcmp (got, want.data, size) == 0,
      "%s (meta %d): values "
      "differ from NumPy",
      c->name, meta);

  lm = gst_tn_buffer_get_layout_meta (out);
  if (c->kind == OUT_COPY) {
    /* One copy whoever reads: a dense tensor of its own. */
    fail_unless (lm == NULL, "%s: meta on a copy", c->name);
    fail_if (shares_memory (out, in), "%s: not copied", c->name);
    fail_unless_equals_uint64 (
        bytes_copied (h->element), c->copy_anyway + size);
  } else if (c->kind == OUT_DENSE || meta) {
    /* No copy: a sub-range of the same memory; a meta only if strided. */
    fail_unless (
        c->copy_anyway > 0 || shares_memory (out, in), "%s copied", c->name);
    fail_unless (
        (lm != NULL) == (c->kind == OUT_VIEW), "%s: meta %p", c->name, lm);
    fail_unless_equals_uint64 (bytes_copied (h->element), c->copy_anyway);
  } else {
    fail_unless (lm == NULL, "%s: meta without a reader", c->name);
    fail_if (shares_memory (out, in), "%s: not materialized", c->name);
    fail_unless_equals_uint64 (
        bytes_copied (h->element), c->copy_anyway + size);
  }
  if (c->kind != OUT_VIEW)
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
  GstHarness *h = view_harness ("slice:0:1:2");
  GstBuffer *in, *out;
  GstMapInfo a, b;
  Npy x;

  npy_load (&x, "tview_in.npy");
  gst_harness_set_src_caps (h, npy_caps (&x));
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
  GstHarness *h = view_harness ("transpose");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;
  guint8 *p;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
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
    gst_harness_set_src_caps (h, npy_caps (&x));
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
  gst_harness_set_src_caps (h, npy_caps (&x));
  gst_harness_push (h, npy_buffer (&x));
  gst_harness_push_event (h, gst_event_new_eos ());
  out = gst_harness_take_all_data_as_buffer (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, want.offset + want.size);
  fail_unless (memcmp (map.data + want.offset, want.data, want.size) == 0);
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
  gst_harness_set_src_caps (h, npy_caps (&x));
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

/* tensordebug reads strides but passes buffers on: it gets a view only
 * when what follows it reads views too (npyenc), and prints its strides;
 * before fakesink, which reads dense tensors only, tensorview copies and
 * tensordebug prints the dense copy. */
GST_START_TEST (test_read_by_tensordebug)
{
  static const struct {
    const gchar *tail, *header;
    guint64 copied;
  } runs[] = {
    { "npyenc ! fakesink", "uint8 <3, 5, 7> strides <1, 21, 3>:", 0 },
    { "fakesink", "uint8 <3, 5, 7>: min=0", 105 },
  };
  GPrintFunc old = g_set_print_handler (capture_print);

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++) {
    gchar *launch = g_strdup_printf ("tensorsrc num-buffers=1 pattern=arange ! "
                                     "tensor/x-raw,type=uint8,dims=<5,7,3> ! "
                                     "tensorview name=v ops=permute:2:0:1 ! "
                                     "tensordebug ! %s",
        runs[i].tail);
    GstElement *pipe = gst_parse_launch (launch, NULL), *v;
    GstBus *bus;
    GstMessage *msg;

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
    /* permute:2:0:1 of <5, 7, 3> has strides <1, 21, 3>; with arange from
     * 0, row [0, 0] of the view is 0, 3, 6, ... */
    tn_assert_contains (printed, runs[i].header);
    tn_assert_contains (printed, "[[[  0   3   6   9  12  15  18]");
    fail_unless_equals_uint64 (bytes_copied (v), runs[i].copied);
    gst_object_unref (v);
    gst_object_unref (pipe);
    g_free (launch);
    g_free (printed);
    printed = NULL;
  }
  g_set_print_handler (old);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- readers of dense tensors only: the bytes they get ---- */

typedef enum {
  SINK_FILE,
  SINK_MULTIFILE,
  SINK_APP,
  SINK_DUMP,
} SinkKind;

static const gchar *const sink_names[]
    = { "filesink", "multifilesink", "appsink", "fakesink dump=true" };

/* Elements that pass buffers on between tensorview and the sink: each
 * must answer the ALLOCATION query with what is downstream of it. */
static const gchar *const betweens[] = {
  "",
  "identity ! ",
  "queue ! ",
  "tensordebug output=log ! ",
};

/* The bytes of a fakesink dump (gst_util_dump_mem: "OFFSET (ADDR): " and
 * 16 slots of "xx " or blanks per line). */
static guint8 *
parse_dump (const gchar *text, gsize *len)
{
  GByteArray *out = g_byte_array_new ();
  gchar **lines = g_strsplit (text ? text : "", "\n", -1);

  for (gint l = 0; lines[l]; l++) {
    const gchar *p = strstr (lines[l], "): ");

    if (p == NULL)
      continue;
    p += 3;
    for (gint j = 0; j < 16 && g_ascii_isxdigit (p[3 * j]); j++) {
      guint8 b = (guint8) (g_ascii_xdigit_value (p[3 * j]) * 16
                           + g_ascii_xdigit_value (p[3 * j + 1]));

      g_byte_array_append (out, &b, 1);
    }
  }
  g_strfreev (lines);
  *len = out->len;
  return g_byte_array_free (out, FALSE);
}

/* Not inlined: GCC 12 at -O3 then takes the pointers into the bytes for
 * pointers to the local data (a false -Wdangling-pointer). */
static G_GNUC_NO_INLINE gchar *
file_bytes (const gchar *path, gsize *len)
{
  gchar *data;

  fail_unless (
      g_file_get_contents (path, &data, len, NULL), "no file %s", path);
  return data;
}

/* appsrc ! tensorview ops=OPS ! BETWEEN SINK with one buffer of caps: the
 * bytes the sink got, and tensorview's bytes-copied. */
static guint8 *
sink_bytes (const gchar *ops, GstCaps *caps, GstBuffer *in,
    const gchar *between, SinkKind sink, gsize *len, guint64 *copied)
{
  gchar *dir = g_dir_make_tmp ("tview-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "f.bin", NULL);
  gchar *multi = g_build_filename (dir, "m-%05d.bin", NULL);
  gchar *first = g_build_filename (dir, "m-00000.bin", NULL);
  gchar *where = sink == SINK_FILE ? g_strdup_printf (" location=%s", file)
                 : sink == SINK_MULTIFILE
                     ? g_strdup_printf (" location=%s", multi)
                     : g_strdup ("");
  gchar *launch = g_strdup_printf ("appsrc name=src ! tensorview name=v "
                                   "ops=\"%s\" ! %s%s name=sink%s",
      ops, between, sink_names[sink], where);
  GstElement *pipe = gst_parse_launch (launch, NULL), *src, *snk, *v;
  GPrintFunc old = NULL;
  GstFlowReturn ret;
  GstBus *bus;
  GstMessage *msg;
  guint8 *data = NULL;

  fail_unless (pipe != NULL, "'%s' does not link", launch);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  snk = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  g_object_set (src, "caps", caps, NULL);
  if (sink == SINK_DUMP)
    old = g_set_print_handler (capture_print);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
               != GST_STATE_CHANGE_FAILURE);
  g_signal_emit_by_name (src, "push-buffer", in, &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  if (sink == SINK_APP) {
    GstSample *sample = NULL;
    GstMapInfo map;

    g_signal_emit_by_name (snk, "pull-sample", &sample);
    fail_unless (sample != NULL, "%s: appsink got nothing", launch);
    fail_unless (
        gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ));
    data = g_memdup2 (map.data, map.size);
    *len = map.size;
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    gst_sample_unref (sample);
  }
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%s did not end", launch);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  *copied = bytes_copied (v);
  if (sink == SINK_DUMP) {
    g_set_print_handler (old);
    data = parse_dump (printed, len);
    g_clear_pointer (&printed, g_free);
  } else if (sink == SINK_FILE) {
    data = (guint8 *) file_bytes (file, len);
  } else if (sink == SINK_MULTIFILE) {
    data = (guint8 *) file_bytes (first, len);
  }
  g_remove (file);
  g_remove (first);
  g_rmdir (dir);
  gst_object_unref (src);
  gst_object_unref (snk);
  gst_object_unref (v);
  gst_object_unref (pipe);
  g_free (launch);
  g_free (where);
  g_free (first);
  g_free (multi);
  g_free (file);
  g_free (dir);
  return data;
}

static const Case *
find_case (const gchar *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].name, name) == 0)
      return &cases[i];
  fail ("no case %s", name);
  return NULL;
}

/* Each step kind, chains, flips and Python slices through readers of
 * dense tensors only, with and without elements that pass buffers on in
 * between: the sink gets NumPy's dense bytes (issue 11: a view that
 * reached filesink wrote the untransposed bytes). */
GST_START_TEST (test_dense_sinks)
{
  static const gchar *const names[] = {
    "permute",
    "transpose",
    "slice1_step",
    "select",
    "chain_reshape_strided",
    "expand",
    "squeeze",
    "broadcast1",
    "chain_long",
    "slice_no_start",
    "flip_last",
    "flip_permute",
    "flip_select",
  };
  Npy x;
  GstCaps *caps;

  npy_load (&x, "tview_in.npy");
  caps = npy_caps (&x);
  for (guint c = 0; c < G_N_ELEMENTS (names); c++) {
    const Case *cs = find_case (names[c]);
    gchar *golden = g_strdup_printf ("tview_%s.npy", cs->name);
    Npy want;

    npy_load (&want, golden);
    for (guint b = 0; b < G_N_ELEMENTS (betweens); b++)
      for (gint k = 0; k <= SINK_DUMP; k++) {
        GstBuffer *in = npy_buffer (&x);
        guint64 copied;
        gsize len;
        guint8 *got
            = sink_bytes (cs->ops, caps, in, betweens[b], k, &len, &copied);

        fail_unless_equals_uint64 (len, want.size);
        fail_unless (memcmp (got, want.data, len) == 0,
            "%s before %s%s: not NumPy's bytes", cs->ops, betweens[b],
            sink_names[k]);
        /* one copy at most, of the output (and a reshape's) */
        fail_unless_equals_uint64 (
            copied, (cs->kind == OUT_DENSE ? 0 : want.size) + cs->copy_anyway);
        g_free (got);
        gst_buffer_unref (in);
      }
    npy_clear (&want);
    g_free (golden);
  }
  gst_caps_unref (caps);
  npy_clear (&x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A strided buffer (tview_in's values over storage laid out as its
 * permute:2:0:1) with its own layout meta, from appsrc: passed on by the
 * empty list or by steps that keep it strided, it must still reach a
 * reader of dense tensors dense. */
static GstBuffer *
strided_input (void)
{
  static const gint64 strides[3] = { 3, 1, 6 };
  GstBuffer *b;
  Npy p;

  /* tview_permute is x.transpose (2, 0, 1) stored densely: x[i, j, k] is
   * item 6k + 3i + j */
  npy_load (&p, "tview_permute.npy");
  b = npy_buffer (&p);
  gst_tn_buffer_add_layout_meta (b, 3, 0, strides);
  npy_clear (&p);
  return b;
}

GST_START_TEST (test_dense_sinks_strided_input)
{
  static const struct {
    const gchar *ops, *golden;
  } runs[] = {
    { "", "tview_in.npy" },
    { "expand:0", "tview_expand.npy" },
    { "slice:0:1:2", "tview_slice0.npy" },
    { "reshape:4:-1", "tview_reshape.npy" },
    { "flip:0", "tview_flip0.npy" },
  };
  Npy x;
  GstCaps *caps;

  npy_load (&x, "tview_in.npy");
  caps = npy_caps (&x);
  for (guint r = 0; r < G_N_ELEMENTS (runs); r++) {
    Npy want;

    npy_load (&want, runs[r].golden);
    for (guint b = 0; b < G_N_ELEMENTS (betweens); b++)
      for (gint k = 0; k <= SINK_DUMP; k++) {
        GstBuffer *in = strided_input ();
        guint64 copied;
        gsize len;
        guint8 *got
            = sink_bytes (runs[r].ops, caps, in, betweens[b], k, &len, &copied);

        fail_unless_equals_uint64 (len, want.size);
        fail_unless (memcmp (got, want.data, len) == 0,
            "'%s' of a strided input before %s%s: not NumPy's bytes",
            runs[r].ops, betweens[b], sink_names[k]);
        fail_unless_equals_uint64 (copied, want.size);
        g_free (got);
        gst_buffer_unref (in);
      }
    npy_clear (&want);
  }
  gst_caps_unref (caps);
  npy_clear (&x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* The other side: npyenc reads the layout meta, so behind any of the
 * passing elements every view reaches it without a copy (a flip is still
 * its one copy), and its file holds NumPy's array. */
GST_START_TEST (test_meta_reader_zero_copy)
{
  Npy x;
  GstCaps *caps;

  npy_load (&x, "tview_in.npy");
  caps = npy_caps (&x);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *golden = g_strdup_printf ("tview_%s.npy", cases[c].name);
    Npy want;

    npy_load (&want, golden);
    for (guint b = 0; b < G_N_ELEMENTS (betweens); b++) {
      gchar *between = g_strdup_printf ("%snpyenc ! ", betweens[b]);
      GstBuffer *in = npy_buffer (&x);
      guint64 copied;
      gsize len;
      guint8 *got = sink_bytes (
          cases[c].ops, caps, in, between, SINK_APP, &len, &copied);
      Npy g;

      npy_parse (&g, got, len, "npyenc's output");
      fail_unless_equals_uint64 (g.size, want.size);
      fail_unless (memcmp (g.data, want.data, want.size) == 0,
          "%s before %snpyenc: not NumPy's array", cases[c].ops, betweens[b]);
      fail_unless_equals_uint64 (copied,
          (cases[c].kind == OUT_COPY ? want.size : 0) + cases[c].copy_anyway);
      npy_clear (&g);
      g_free (between);
      gst_buffer_unref (in);
    }
    npy_clear (&want);
    g_free (golden);
  }
  /* and a strided input passed on as it is: no copy either */
  {
    Npy want;
    GstBuffer *in = strided_input ();
    guint64 copied;
    gsize len;
    guint8 *got
        = sink_bytes ("", caps, in, "npyenc ! ", SINK_APP, &len, &copied);
    Npy g;

    npy_load (&want, "tview_in.npy");
    npy_parse (&g, got, len, "npyenc's output");
    fail_unless_equals_uint64 (g.size, want.size);
    fail_unless (memcmp (g.data, want.data, want.size) == 0);
    fail_unless_equals_uint64 (copied, 0);
    npy_clear (&g);
    gst_buffer_unref (in);
    npy_clear (&want);
  }
  gst_caps_unref (caps);
  npy_clear (&x);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ---- documentation ---- */

/* The launch lines of the SECTION block of elements/tensorview.c, as a
 * shell would split them. */
static GPtrArray *
doc_launch_lines (void)
{
  gchar *path = g_build_filename (
            g_getenv ("GST_TENSOR_SRCDIR"), "elements", "tensorview.c", NULL),
        *src;
  const gchar *p, *end;
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  gsize len;

  src = file_bytes (path, &len);
  p = strstr (src, "SECTION:element-tensorview");
  fail_unless (p != NULL);
  end = strstr (p, "*/");
  while ((p = strstr (p, "|[")) != NULL && p < end) {
    const gchar *q = strstr (p, "]|");
    gchar *block = g_strndup (p + 2, q - p - 2);
    gchar **rows = g_strsplit (block, "\n", -1);
    GString *line = g_string_new (NULL);

    for (gint i = 0; rows[i]; i++) {
      const gchar *r = g_strstrip (rows[i]);

      if (*r == '*')
        r++;
      if (*r == ' ')
        r++;
      if (*r)
        g_string_append_printf (line, "%s\n", r);
    }
    g_ptr_array_add (lines, g_string_free (line, FALSE));
    g_strfreev (rows);
    g_free (block);
    p = q + 2;
  }
  g_free (src);
  g_free (path);
  return lines;
}

/* Every launch line of the documentation runs as printed (split as a
 * shell would, then given to gst_parse_launchv as gst-launch-1.0 does)
 * and prints the values it promises. */
GST_START_TEST (test_doc_launch_lines)
{
  static const struct {
    const gchar *header, *values;
  } want[] = {
    /* videotestsrc's red is (255, 0, 0): the R plane full, G and B 0 */
    { "uint8 <3, 2, 4>: ", "[[[255 255 255 255]\n  [255 255 255 255]]\n\n"
                           " [[  0   0   0   0]\n  [  0   0   0   0]]\n\n"
                           " [[  0   0   0   0]\n  [  0   0   0   0]]]" },
    /* as BGR: (0, 0, 255) at every pixel */
    { "uint8 <2, 4, 3>: ", "[[[  0   0 255]\n  [  0   0 255]\n"
                           "  [  0   0 255]\n  [  0   0 255]]\n\n"
                           " [[  0   0 255]\n  [  0   0 255]\n"
                           "  [  0   0 255]\n  [  0   0 255]]]" },
    /* np.arange (24).reshape (4, 6)[1::2, :-1] */
    { "int32 <2, 5>: ", "[[ 6  7  8  9 10]\n [18 19 20 21 22]]" },
    /* np.arange (12).reshape (3, 4)[::-1, ::2] */
    { "uint8 <3, 2>: ", "[[ 8 10]\n [ 4  6]\n [ 0  2]]" },
  };
  GPtrArray *lines = doc_launch_lines ();

  fail_unless_equals_int (lines->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < lines->len; i++) {
    gchar **argv = NULL;
    GError *err = NULL;
    GstElement *pipe;
    GstBus *bus;
    GstMessage *msg;
    GPrintFunc old;

    fail_unless (
        g_shell_parse_argv (g_ptr_array_index (lines, i), NULL, &argv, &err),
        "%s", err ? err->message : "?");
    fail_unless_equals_string (argv[0], "gst-launch-1.0");
    pipe = gst_parse_launchv ((const gchar **) argv + 1, &err);
    fail_unless (pipe != NULL && err == NULL, "'%s': %s",
        (gchar *) g_ptr_array_index (lines, i), err ? err->message : "?");
    old = g_set_print_handler (capture_print);
    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
                 != GST_STATE_CHANGE_FAILURE);
    bus = gst_element_get_bus (pipe);
    msg = gst_bus_timed_pop_filtered (
        bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "'%s' did not end", (gchar *) g_ptr_array_index (lines, i));
    gst_message_unref (msg);
    gst_object_unref (bus);
    gst_element_set_state (pipe, GST_STATE_NULL);
    g_set_print_handler (old);
    tn_assert_contains (printed, want[i].header);
    tn_assert_contains (printed, want[i].values);
    g_clear_pointer (&printed, g_free);
    gst_object_unref (pipe);
    g_strfreev (argv);
  }
  g_ptr_array_unref (lines);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* gst-inspect's text: a one-sentence description (the launch lines live
 * in the SECTION block), blurbs without the range and default that
 * gst-inspect prints itself. */
GST_START_TEST (test_inspect_text)
{
  GstElementFactory *f = gst_element_factory_find ("tensorview");
  GstElement *e = gst_element_factory_create (f, NULL);
  const gchar *desc
      = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_DESCRIPTION);
  GParamSpec **props;
  guint n;

  fail_unless (strstr (desc, "gst-launch") == NULL, "%s", desc);
  fail_unless (strchr (desc, '.') == NULL, "more than a sentence: %s", desc);
  props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  for (guint i = 0; i < n; i++) {
    const gchar *blurb = g_param_spec_get_blurb (props[i]);

    if (props[i]->owner_type != G_OBJECT_TYPE (e))
      continue;
    fail_unless (
        strstr (blurb, "efault") == NULL, "%s: %s", props[i]->name, blurb);
    fail_unless (
        strstr (blurb, "2^64") == NULL && strstr (blurb, " to ") == NULL,
        "%s: %s", props[i]->name, blurb);
  }
  g_free (props);
  gst_object_unref (e);
  gst_object_unref (f);
}

GST_END_TEST;

/* Caps both ways: dims downstream asks for pick the source's dims through
 * an invertible chain; the output caps carry the logical dims. */
GST_START_TEST (test_caps_both_directions)
{
  GstHarness *h = view_harness ("permute:2:0:1,expand:0");
  GstCaps *caps, *want;

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
  GstHarness *h = view_harness (ops);
  GstBus *bus = watch (h->element);
  GstSegment seg;
  gchar *text;

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
    { "flip:3", "step 1 of 1 ('flip:3'): axis 3 is out of range for a tensor "
                "of rank 3" },
    { "flip:0,select:0:2", "step 2 of 2 ('select:0:2'): index 2 is out of "
                           "range for axis 0 of extent 2" },
    { "permute:1:0", "step 1 of 1 ('permute:1:0'): permute needs 3 axes for "
                     "a tensor of rank 3, got 2" },
    { "reshape:5:5", "step 1 of 1 ('reshape:5:5'): cannot reshape <2, 3, 4> "
                     "(24 items) to <5, 5> (25 items)" },
    { "squeeze:1", "step 1 of 1 ('squeeze:1'): cannot squeeze axis 1 of "
                   "extent 3; only an axis of extent 1 can be removed" },
    { "broadcast:2:5:4", "step 1 of 1 ('broadcast:2:5:4'): cannot broadcast "
                         "<2, 3, 4> to <2, 5, 4>: axis 1 has 3 against 5" },
    { "select:0:0,select:0:0,transpose",
        "step 3 of 3 ('transpose'): transpose swaps the last two axes and "
        "needs rank 2 or more; this tensor has rank 1" },
  };
  const gchar *caps = "tensor/x-raw,type=float32,dims=<2,3,4>,"
                      "dims-order=row-major,framerate=0/1";

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    gchar *text = caps_error (errs[i].ops, caps);
    gchar *want = g_strdup_printf ("view: ops=\"%s\" cannot view float32 "
                                   "<2, 3, 4>: %s.",
        errs[i].ops, errs[i].want);

    fail_unless_equals_string (text, want);
    g_free (want);
    g_free (text);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A slice past the end is Python's empty result: it runs, and a warning
 * says which step emptied the tensor. */
GST_START_TEST (test_empty_slice_warns)
{
  GstHarness *h = view_harness ("slice:0:5:9");
  GstBus *bus = watch (h->element);
  GstBuffer *out;
  gchar *text;

  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<3,4>,"
                                   "dims-order=row-major,framerate=0/1");
  gst_harness_push (h, counting_buffer (12));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (gst_buffer_get_size (out), 0);
  gst_buffer_unref (out);
  text = tn_pop_text (bus, GST_MESSAGE_WARNING);
  fail_unless_equals_string (text,
      "view: ops=\"slice:0:5:9\" leaves no items of uint8 <3, 4>: after step "
      "1 of 1 ('slice:0:5:9') the tensor is empty, and the output is uint8 "
      "<0, 4>.");
  g_free (text);
  fail_unless (pop_error (bus) == NULL);
  unwatch (h->element, bus);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* ops that cannot be used: the element refuses to start with the element,
 * the property, the text and the reason; get returns what was set. */
GST_START_TEST (test_parse_errors)
{
  static const struct {
    const gchar *ops, *want;
  } errs[] = {
    { "permut:1:0", "step 1 of 1 ('permut') is not a view step; expected "
                    "one of permute, transpose, slice, select, reshape, "
                    "expand, squeeze, broadcast, flip" },
    /* the three of issue 11 that were "could not link" */
    { "permute", "step 1 of 1 ('permute') has 0 arguments; expected "
                 "permute:AXIS:AXIS... (1 to 8 arguments)" },
    { "flip:0:1", "step 1 of 1 ('flip:0:1') has 2 arguments; expected "
                  "flip:AXIS (1 argument)" },
    { "slice:1:::2:5", "step 1 of 1 ('slice:1:::2:5') has 5 arguments; "
                       "expected slice:AXIS:START:STOP[:STEP] (3 to 4 "
                       "arguments)" },
    { "slice:0:1", "step 1 of 1 ('slice:0:1') has one bound after the axis; "
                   "write slice:0:1: (from 1 to the end), slice:0::1 (up to "
                   "1) or select:0:1 (one index)" },
    { "transpose:1", "step 1 of 1 ('transpose:1') has 1 argument; expected "
                     "transpose (0 arguments)" },
    { "slice:0:a:2", "step 1 of 1 ('slice:0:a:2'): argument 2 is 'a', not a "
                     "whole number" },
    { "slice:0:1:99999999999999999999",
        "step 1 of 1 ('slice:0:1:99999999999999999999'): argument 3 is "
        "'99999999999999999999', not a whole number that fits in 64 bits" },
    { "slice:0:0:2:0", "step 1 of 1 ('slice:0:0:2:0'): slice step must be 1 "
                       "or more, got 0" },
    { "permute:0:1:1", "step 1 of 1 ('permute:0:1:1'): permute needs each of "
                       "the 3 axes once; axis 1 appears twice" },
    { "permute:1:0,,transpose", "step 2 of 3 is empty" },
    { "permute:1::0", "step 1 of 1 ('permute:1::0') has an empty argument 2" },
    { ":1", "step 1 of 1 is empty (an argument without a step name)" },
    { "expand:99", "step 1 of 1 ('expand:99'): axis 99 is out of range for "
                   "any tensor (rank 8 at most: -8 to 7)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (errs); i++) {
    GstElement *e = gst_element_factory_make ("tensorview", "v");
    GstBus *bus = watch (e);
    gchar *text, *got, *want;

    g_object_set (e, "ops", errs[i].ops, NULL);
    g_object_get (e, "ops", &got, NULL);
    fail_unless_equals_string (got, errs[i].ops);
    g_free (got);
    /* nothing is posted before the element starts */
    fail_unless (pop_error (bus) == NULL);
    fail_unless_equals_int (
        gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    text = pop_error (bus);
    want = g_strdup_printf (
        "v: ops=\"%s\" cannot be used: %s.", errs[i].ops, errs[i].want);
    fail_unless_equals_string (text, want);
    g_free (want);
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    /* a good value replaces it and the element starts */
    g_object_set (e, "ops", "flip:0", NULL);
    fail_unless (gst_element_set_state (e, GST_STATE_PAUSED)
                 != GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (e, GST_STATE_NULL);
    unwatch (e, bus);
    gst_object_unref (e);
  }
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* Runs launch to the end; the text of its error, or NULL after EOS. */
static gchar *
run_launch (const gchar *launch)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (pipe != NULL && err == NULL, "'%s' does not link: %s", launch,
      err ? err->message : "?");
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, 10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "'%s' neither ended nor failed", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    text = g_strdup (e->message);
    g_error_free (e);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return text;
}

/* In a launch line a list that cannot be used links, and the pipeline
 * fails with the reason, not with "could not link ... can't handle caps";
 * a step that does not fit the caps fails negotiation, named. */
GST_START_TEST (test_launch_errors)
{
  gchar *text;

  text = run_launch ("tensorsrc num-buffers=1 ! "
                     "tensor/x-raw,type=float32,dims=<2,3,4> ! "
                     "tensorview name=v ops=permute ! fakesink");
  fail_unless_equals_string (text,
      "v: ops=\"permute\" cannot be used: step 1 of 1 ('permute') has 0 "
      "arguments; expected permute:AXIS:AXIS... (1 to 8 arguments).");
  g_free (text);
  text = run_launch ("tensorsrc num-buffers=1 ! "
                     "tensor/x-raw,type=float32,dims=<2,3,4> ! "
                     "tensorview name=v ops=slice:5::2 ! fakesink");
  fail_unless_equals_string (text,
      "v: ops=\"slice:5::2\" cannot view float32 <2, 3, 4>: step 1 of 1 "
      "('slice:5::2'): axis 5 is out of range for a tensor of rank 3.");
  g_free (text);
  /* what issue 11 tried now runs */
  fail_unless (run_launch ("tensorsrc num-buffers=1 ! "
                           "tensor/x-raw,type=float32,dims=<2,3,4> ! "
                           "tensorview ops=flip:0 ! tensorview "
                           "ops=slice:1:::2 ! fakesink")
               == NULL);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* GStreamer's convention: ops cannot change while the element runs; a
 * warning names the element and the value, and the old value stays. */
GST_START_TEST (test_set_while_running)
{
  GstHarness *h = view_harness ("transpose");
  GstBuffer *out;
  gchar *ops;

  gst_harness_set_src_caps_str (h, "tensor/x-raw,type=uint8,dims=<3,2>,"
                                   "dims-order=row-major,framerate=0/1");
  ASSERT_WARNING (g_object_set (h->element, "ops", "flip:0", NULL));
  g_object_get (h->element, "ops", &ops, NULL);
  fail_unless_equals_string (ops, "transpose");
  g_free (ops);
  gst_harness_push (h, counting_buffer (6));
  out = gst_harness_pull (h);
  {
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);

    /* still the transpose: <2, 3>, item (0, 1) is input (1, 0) = 2 */
    fail_unless_equals_int (item2 (out, caps, 0, 1), 2);
    gst_caps_unref (caps);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  tn_check_no_outstanding ();
}

GST_END_TEST;

/* A buffer that disagrees with its caps is an error with both sizes. */
GST_START_TEST (test_wrong_size)
{
  GstHarness *h = view_harness ("transpose");
  GstBus *bus = watch (h->element);
  gchar *text;

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

/* A writable strided input keeps its buffer and its GstMeta, changed in
 * place; a second buffer with another layout is not given the first one's
 * (the view is worked out once per layout). */
GST_START_TEST (test_meta_in_place)
{
  /* dims <4, 2, 3> over storage <2, 3, 4> (values i + 4j + 12k read at
   * (i, j, k) of the input), then <3, 2, 4> over storage <2, 4, 3>. */
  static const gint64 s_a[3] = { 1, 12, 4 }, s_b[3] = { 3, 12, 1 };
  GstHarness *h = view_harness ("transpose");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm, *before;
  GstCaps *caps;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
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
  GstHarness *h = view_harness ("transpose");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;
  GstCaps *caps;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
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
  GstHarness *h = view_harness ("permute:0:1,slice:0:0:3");
  GstBuffer *in, *out;
  GstTnLayoutMeta *lm;

  gst_harness_add_propose_allocation_meta (
      h, GST_TN_LAYOUT_META_API_TYPE, NULL);
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
  tcase_add_test (tc, test_empty_slice_warns);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_launch_errors);
  tcase_add_test (tc, test_set_while_running);
  tcase_add_test (tc, test_dense_sinks);
  tcase_add_test (tc, test_dense_sinks_strided_input);
  tcase_add_test (tc, test_meta_reader_zero_copy);
  tcase_add_test (tc, test_doc_launch_lines);
  tcase_add_test (tc, test_inspect_text);
  tcase_add_test (tc, test_wrong_size);
  tcase_add_test (tc, test_properties_passthrough);
  return s;
}

GST_CHECK_MAIN (tensorview);
