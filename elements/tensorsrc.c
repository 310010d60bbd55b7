/* GStreamer tensor plugin: a source of generated tensors.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-tensorsrc
 * @title: tensorsrc
 * @see_also: tensordebug, npyenc
 *
 * Emits tensors of zeros, ones, a fill value, an arange, or uniform or
 * normal noise.  The dtype, the dims and the framerate come from the caps
 * downstream accepts (put a capsfilter after the element); whatever is
 * left open is fixated to float32, dims <1> and 30/1.
 *
 * Values are computed in float64 and converted to the dtype with core's
 * cast rules: saturating at the dtype's bounds, floats truncated toward
 * zero when the dtype is an integer, NaN to 0.  So fill with value=300
 * gives 255 in uint8 and value=-1.5 gives -1 in int16.
 *
 * The double properties store any value.  value may be anything (NaN and
 * the infinities are legitimate fills); start and step anything but NaN;
 * low, high and mean must be finite, stddev finite and >= 0.  Another
 * value is an error when the element goes to PAUSED, whatever the pattern
 * (it may change while the element runs), and set while it runs a
 * warning that keeps the value in use.  pattern=uniform is
 * the exception for integer dtypes: it draws every integer of
 * [ceil(low), ceil(high)) with equal chance, as NumPy's integers() does.
 *
 * The content of buffer n is a pure function of the pattern, its
 * parameters, #GstTensorSrc:seed, the dtype, the dims and n: the random
 * patterns use a counter-based generator (Philox4x32-10) keyed by the seed
 * with n as the stream, so the same seed gives the same bits on every run,
 * after any seek, and for any #GstTensorSrc:n-threads (tensors of more than
 * 65536 items are filled by several threads).
 *
 * Buffer n has offset n and, at framerate F = N/D > 0, PTS n*D/N seconds
 * (rounded down to the nanosecond) and a duration that reaches the next
 * PTS.  At framerate 0/1 the tensors are not a timed stream: every buffer
 * has PTS 0 and no duration, and nothing paces them even when live.  A
 * seek in TIME restarts at the first buffer whose PTS is at or after the
 * seek position (at 0/1, at buffer 0); reverse playback is refused.
 *
 * Buffers come from the tensor buffer pool, so the steady state allocates
 * nothing.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 tensorsrc pattern=uniform seed=7 num-buffers=2 \
 *     ! "tensor/x-raw,type=float32,dims=<2,3>" ! tensordebug ! fakesink
 * ]|
 * |[
 * gst-launch-1.0 tensorsrc pattern=arange start=-3 num-buffers=1 \
 *     ! "tensor/x-raw,type=int16,dims=<4>" ! npyenc ! filesink location=a.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/base/gstpushsrc.h>
#include <gst/tensor/gsttensor.h>

#include "core/parallel.h"
#include "core/random.h"
#include "elements.h"
#include "tnelement.h"

GST_DEBUG_CATEGORY_STATIC (gst_tensor_src_debug);
#define GST_CAT_DEFAULT gst_tensor_src_debug

typedef enum {
  GST_TENSOR_SRC_ZEROS,
  GST_TENSOR_SRC_ONES,
  GST_TENSOR_SRC_FILL,
  GST_TENSOR_SRC_ARANGE,
  GST_TENSOR_SRC_UNIFORM,
  GST_TENSOR_SRC_NORMAL,
} GstTensorSrcPattern;

#define GST_TYPE_TENSOR_SRC_PATTERN (gst_tensor_src_pattern_get_type ())

#define GST_TYPE_TENSOR_SRC (gst_tensor_src_get_type ())
G_DECLARE_FINAL_TYPE (GstTensorSrc, gst_tensor_src, GST, TENSOR_SRC, GstPushSrc)

/* Items converted per pass of arange, on the stack. */
#define ARANGE_CHUNK 1024
/* Items a worker fills at a time: below this a tensor is one chunk and
 * stays on the streaming thread. */
#define GEN_GRAIN 65536
/* The replicating copy of a constant stops doubling here so that its
 * source stays in L1 while the rest of the buffer is written. */
#define REPLICATE_MAX 16384

struct _GstTensorSrc {
  GstPushSrc parent;

  /* properties, under the object lock */
  GstTensorSrcPattern pattern;
  gdouble value;
  gdouble start, step;
  gdouble low, high;
  gdouble mean, stddev;
  guint64 seed;
  gint n_threads;

  /* negotiated, under the object lock */
  GstTnInfo info;
  gboolean have_info;
  gsize size;
  gsize n_items;

  /* streaming: index of the next buffer, under the object lock */
  guint64 n;
};

enum {
  PROP_0,
  PROP_PATTERN,
  PROP_VALUE,
  PROP_START,
  PROP_STEP,
  PROP_LOW,
  PROP_HIGH,
  PROP_MEAN,
  PROP_STDDEV,
  PROP_SEED,
  PROP_N_THREADS,
  PROP_IS_LIVE,
};

#define DEFAULT_PATTERN GST_TENSOR_SRC_ZEROS
#define DEFAULT_VALUE 0.0
#define DEFAULT_START 0.0
#define DEFAULT_STEP 1.0
#define DEFAULT_LOW 0.0
#define DEFAULT_HIGH 1.0
#define DEFAULT_MEAN 0.0
#define DEFAULT_STDDEV 1.0
#define DEFAULT_SEED 0
#define DEFAULT_IS_LIVE FALSE

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE (
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_TN_CAPS_ANY));

static GType
gst_tensor_src_pattern_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_TENSOR_SRC_ZEROS, "Every item 0", "zeros" },
    { GST_TENSOR_SRC_ONES, "Every item 1", "ones" },
    { GST_TENSOR_SRC_FILL, "Every item the value property", "fill" },
    { GST_TENSOR_SRC_ARANGE, "Item i of the flattened tensor is start + i*step",
        "arange" },
    { GST_TENSOR_SRC_UNIFORM, "Uniform in [low, high)", "uniform" },
    { GST_TENSOR_SRC_NORMAL, "Normal with mean and stddev", "normal" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTensorSrcPattern", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

G_DEFINE_TYPE (GstTensorSrc, gst_tensor_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE (
    tensorsrc, "tensorsrc", GST_RANK_NONE, GST_TYPE_TENSOR_SRC);

/* What the double properties can be (tnelement.h): each stores any
 * double, NaN too, and one outside these is an error at start or, set
 * while running, a warning that keeps the old one.  value takes any
 * double: a tensor of NaN or of an infinity is a legitimate fill (NaN
 * casts to 0 in integer dtypes).  start and step take the infinities
 * (float64 arithmetic then gives the items) but not NaN, which would make
 * every item NaN: pattern=fill value=nan is that tensor. */
static const GstTnDoubleRange start_range = { "start", -INFINITY, INFINITY };
static const GstTnDoubleRange step_range = { "step", -INFINITY, INFINITY };
static const GstTnDoubleRange low_range = { "low", -G_MAXDOUBLE, G_MAXDOUBLE };
static const GstTnDoubleRange high_range
    = { "high", -G_MAXDOUBLE, G_MAXDOUBLE };
static const GstTnDoubleRange mean_range
    = { "mean", -G_MAXDOUBLE, G_MAXDOUBLE };
static const GstTnDoubleRange stddev_range = { "stddev", 0, G_MAXDOUBLE };

/* The range of a double property, or NULL (value: any double). */
static const GstTnDoubleRange *
gst_tensor_src_range (guint prop_id)
{
  switch (prop_id) {
  case PROP_START:
    return &start_range;
  case PROP_STEP:
    return &step_range;
  case PROP_LOW:
    return &low_range;
  case PROP_HIGH:
    return &high_range;
  case PROP_MEAN:
    return &mean_range;
  case PROP_STDDEV:
    return &stddev_range;
  default:
    return NULL;
  }
}

static void
gst_tensor_src_set_property (
    GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstTensorSrc *self = GST_TENSOR_SRC (object);
  const GstTnDoubleRange *range = gst_tensor_src_range (prop_id);
  gdouble v;

  if (range
      && !gst_tn_element_double_settable (
          GST_ELEMENT (self), range, g_value_get_double (value)))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_PATTERN:
    self->pattern = g_value_get_enum (value);
    break;
  case PROP_VALUE:
    self->value = g_value_get_double (value);
    break;
  case PROP_START:
    self->start = g_value_get_double (value);
    break;
  case PROP_STEP:
    self->step = g_value_get_double (value);
    break;
  case PROP_LOW:
  case PROP_HIGH:
    /* Stopped, the pair may pass through an empty interval while it is
     * set in either order: start() checks it.  Running, it must stay a
     * non-empty interval at every moment. */
    v = g_value_get_double (value);
    if ((prop_id == PROP_LOW ? v < self->high : v > self->low)
        || !GST_TN_ELEMENT_IS_RUNNING (self)) {
      *(prop_id == PROP_LOW ? &self->low : &self->high) = v;
    } else {
      gchar *text = g_strdup_printf ("%.17g", v);
      gchar *why = g_strdup_printf (prop_id == PROP_LOW
                                        ? "low must be below high=%.17g"
                                        : "high must be above low=%.17g",
          prop_id == PROP_LOW ? self->high : self->low);
      gchar *kept = g_strdup_printf (
          "%.17g", prop_id == PROP_LOW ? self->low : self->high);

      GST_OBJECT_UNLOCK (self);
      gst_tn_element_property_warning (
          GST_ELEMENT (self), pspec->name, text, why, kept);
      g_free (text);
      g_free (why);
      g_free (kept);
      return;
    }
    break;
  case PROP_MEAN:
    self->mean = g_value_get_double (value);
    break;
  case PROP_STDDEV:
    self->stddev = g_value_get_double (value);
    break;
  case PROP_SEED:
    self->seed = g_value_get_uint64 (value);
    break;
  case PROP_N_THREADS:
    GST_OBJECT_UNLOCK (self);
    gst_tn_element_set_n_threads (GST_ELEMENT (self), &self->n_threads, value);
    return;
  case PROP_IS_LIVE:
    GST_OBJECT_UNLOCK (self);
    gst_base_src_set_live (GST_BASE_SRC (self), g_value_get_boolean (value));
    return;
  default:
    GST_OBJECT_UNLOCK (self);
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_tensor_src_get_property (
    GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstTensorSrc *self = GST_TENSOR_SRC (object);

  if (prop_id == PROP_IS_LIVE) {
    g_value_set_boolean (value, gst_base_src_is_live (GST_BASE_SRC (self)));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
  case PROP_PATTERN:
    g_value_set_enum (value, self->pattern);
    break;
  case PROP_VALUE:
    g_value_set_double (value, self->value);
    break;
  case PROP_START:
    g_value_set_double (value, self->start);
    break;
  case PROP_STEP:
    g_value_set_double (value, self->step);
    break;
  case PROP_LOW:
    g_value_set_double (value, self->low);
    break;
  case PROP_HIGH:
    g_value_set_double (value, self->high);
    break;
  case PROP_MEAN:
    g_value_set_double (value, self->mean);
    break;
  case PROP_STDDEV:
    g_value_set_double (value, self->stddev);
    break;
  case PROP_SEED:
    g_value_set_uint64 (value, self->seed);
    break;
  case PROP_N_THREADS:
    g_value_set_int (value, g_atomic_int_get (&self->n_threads));
    break;
  default:
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Why downstream's caps cannot be met, as a sentence naming the field and
 * both values. */
static gchar *
gst_tensor_src_explain (GstCaps *peer, GstCaps *ours)
{
  const GstStructure *tmpl = gst_caps_get_structure (ours, 0);
  const gchar *other = NULL;

  for (guint i = 0; i < gst_caps_get_size (peer); i++) {
    const GstStructure *s = gst_caps_get_structure (peer, i);
    GstCaps *one;
    GError *err = NULL;
    gboolean valid;

    if (!gst_structure_has_name (s, GST_TN_MEDIA_TYPE)) {
      other = other ? other : gst_structure_get_name (s);
      continue;
    }
    one = gst_caps_new_full (gst_structure_copy (s), NULL);
    valid = gst_tn_caps_validate (one, &err);
    gst_caps_unref (one);
    if (!valid) {
      gchar *msg = g_strdup_printf ("Downstream wants tensors tensorsrc "
                                    "cannot make: %s",
          err->message);

      g_error_free (err);
      return msg;
    }
    for (gint f = 0; f < gst_structure_n_fields (tmpl); f++) {
      const gchar *name = gst_structure_nth_field_name (tmpl, f);
      const GValue *mine = gst_structure_get_value (tmpl, name);
      const GValue *theirs = gst_structure_get_value (s, name);

      if (theirs && !gst_value_can_intersect (mine, theirs)) {
        gchar *a = gst_value_serialize (theirs);
        gchar *b = gst_value_serialize (mine);
        gchar *msg = g_strdup_printf ("Downstream wants %s %s, but "
                                      "tensorsrc makes %s %s.",
            name, a, name, b);

        g_free (a);
        g_free (b);
        return msg;
      }
    }
  }
  if (other)
    return g_strdup_printf (
        "Downstream accepts %s, not %s.", other, GST_TN_MEDIA_TYPE);
  return g_strdup ("Downstream accepts no caps at all.");
}

/* Like the base class's negotiation, but an impossible request is an
 * element error that says which field of downstream's caps is at fault. */
static gboolean
gst_tensor_src_negotiate (GstBaseSrc *bsrc)
{
  GstPad *pad = GST_BASE_SRC_PAD (bsrc);
  GstCaps *ours, *peer, *caps;
  gboolean ok;

  ours = gst_pad_query_caps (pad, NULL);
  peer = gst_pad_peer_query_caps (pad, NULL);
  caps = gst_caps_intersect_full (peer, ours, GST_CAPS_INTERSECT_FIRST);
  if (gst_caps_is_empty (caps)) {
    gchar *why = gst_tensor_src_explain (peer, ours);

    GST_ELEMENT_ERROR (bsrc, CORE, NEGOTIATION, ("%s", why),
        ("downstream accepts %" GST_PTR_FORMAT, peer));
    g_free (why);
    gst_caps_unref (caps);
    gst_caps_unref (peer);
    gst_caps_unref (ours);
    return FALSE;
  }
  gst_caps_unref (peer);
  gst_caps_unref (ours);

  caps = gst_tn_caps_fixate (caps);
  GST_DEBUG_OBJECT (bsrc, "fixated to %" GST_PTR_FORMAT, caps);
  /* set_caps validates and posts the error if the fixed caps are bad. */
  ok = gst_base_src_set_caps (bsrc, caps);
  gst_caps_unref (caps);
  return ok;
}

static gboolean
gst_tensor_src_set_caps (GstBaseSrc *bsrc, GstCaps *caps)
{
  GstTensorSrc *self = GST_TENSOR_SRC (bsrc);
  GstTnInfo info;
  GError *err = NULL;
  gsize size;

  if (!gst_tn_info_from_caps (&info, caps, &err)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
        ("caps %" GST_PTR_FORMAT, caps));
    g_error_free (err);
    return FALSE;
  }
  if (!gst_tn_info_size (&info, &size)) {
    gchar *s = gst_tn_info_to_string (&info);

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("A tensor of %s would take more than %" G_GSIZE_FORMAT " bytes.", s,
            (gsize) G_MAXSIZE),
        ("caps %" GST_PTR_FORMAT, caps));
    g_free (s);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  self->info = info;
  self->have_info = TRUE;
  self->size = size;
  self->n_items = size / tn_dtype_size (info.dtype);
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes a buffer", size);
  return TRUE;
}

static gboolean
gst_tensor_src_decide_allocation (GstBaseSrc *bsrc, GstQuery *query)
{
  GstTensorSrc *self = GST_TENSOR_SRC (bsrc);
  GstCaps *caps;
  gsize size;

  gst_query_parse_allocation (query, &caps, NULL);
  GST_OBJECT_LOCK (self);
  size = self->size;
  GST_OBJECT_UNLOCK (self);
  if (size > G_MAXUINT) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Tensors of %" G_GSIZE_FORMAT " bytes do not fit a buffer pool, "
         "which holds at most %u bytes a buffer.",
            size, G_MAXUINT),
        ("allocation query %" GST_PTR_FORMAT, query));
    return FALSE;
  }
  if (!caps || !gst_tn_decide_allocation (query, caps, size)) {
    guint min = 0, max = 0;

    if (gst_query_get_n_allocation_pools (query) > 0)
      gst_query_parse_nth_allocation_pool (query, 0, NULL, NULL, &min, &max);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Could not set up a pool of %" G_GSIZE_FORMAT "-byte tensor buffers "
         "with downstream's minimum of %u and maximum of %u buffers "
         "(0: no maximum).",
            size, min, max),
        ("allocation query %" GST_PTR_FORMAT, query));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_tensor_src_start (GstBaseSrc *bsrc)
{
  GstTensorSrc *self = GST_TENSOR_SRC (bsrc);

  GstElement *el = GST_ELEMENT (self);
  gboolean empty;
  gdouble start, step, low, high, mean, stddev;

  if (!gst_tn_element_check_n_threads (el, g_atomic_int_get (&self->n_threads)))
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->n = 0;
  self->have_info = FALSE;
  start = self->start;
  step = self->step;
  low = self->low;
  high = self->high;
  mean = self->mean;
  stddev = self->stddev;
  empty = self->pattern == GST_TENSOR_SRC_UNIFORM && !(low < high);
  GST_OBJECT_UNLOCK (self);
  /* Whatever the pattern: it may change while the element runs. */
  if (!gst_tn_element_check_double (el, &start_range, start)
      || !gst_tn_element_check_double (el, &step_range, step)
      || !gst_tn_element_check_double (el, &low_range, low)
      || !gst_tn_element_check_double (el, &high_range, high)
      || !gst_tn_element_check_double (el, &mean_range, mean)
      || !gst_tn_element_check_double (el, &stddev_range, stddev))
    return FALSE;
  if (empty) {
    gchar *text = g_strdup_printf ("%.17g", low);
    gchar *why = g_strdup_printf (
        "low must be below high=%.17g: [low, high) is empty", high);

    gst_tn_element_property_error (GST_ELEMENT (self), "low", text, why);
    g_free (text);
    g_free (why);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_tensor_src_is_seekable (GstBaseSrc *bsrc)
{
  return TRUE;
}

/* Refuses reverse playback before the base class acts on the seek: it
 * would flush first, and a seek refused later in do_seek leaves the pad
 * flushed without a segment. */
static gboolean
gst_tensor_src_event (GstBaseSrc *bsrc, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    gdouble rate;

    gst_event_parse_seek (event, &rate, NULL, NULL, NULL, NULL, NULL, NULL);
    if (rate < 0) {
      GST_WARNING_OBJECT (
          bsrc, "Reverse playback (rate %g) is not supported.", rate);
      return FALSE;
    }
  }
  return GST_BASE_SRC_CLASS (gst_tensor_src_parent_class)->event (bsrc, event);
}

static gboolean
gst_tensor_src_do_seek (GstBaseSrc *bsrc, GstSegment *segment)
{
  GstTensorSrc *self = GST_TENSOR_SRC (bsrc);
  guint64 n = 0;

  segment->time = segment->start;
  GST_OBJECT_LOCK (self);
  /* The first buffer whose PTS, rounded down like the PTS itself, is at or
   * after the position. */
  if (self->have_info && self->info.fps_n > 0
      && GST_CLOCK_TIME_IS_VALID (segment->position))
    n = gst_util_uint64_scale_ceil (
        segment->position, self->info.fps_n, self->info.fps_d * GST_SECOND);
  self->n = n;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self,
      "seek to %" GST_TIME_FORMAT ": buffer %" G_GUINT64_FORMAT,
      GST_TIME_ARGS (segment->position), n);
  return TRUE;
}

static void
gst_tensor_src_get_times (
    GstBaseSrc *bsrc, GstBuffer *buf, GstClockTime *start, GstClockTime *end)
{
  /* Only a live source waits for the clock, and only for timed tensors. */
  if (gst_base_src_is_live (bsrc) && GST_BUFFER_DURATION_IS_VALID (buf)) {
    *start = GST_BUFFER_PTS (buf);
    *end = *start + GST_BUFFER_DURATION (buf);
  } else {
    *start = GST_CLOCK_TIME_NONE;
    *end = GST_CLOCK_TIME_NONE;
  }
}

static gboolean
gst_tensor_src_query (GstBaseSrc *bsrc, GstQuery *query)
{
  GstTensorSrc *self = GST_TENSOR_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION) {
    GstFormat format;
    gint num_buffers, fps_n, fps_d;
    gboolean have;

    gst_query_parse_duration (query, &format, NULL);
    GST_OBJECT_LOCK (self);
    num_buffers = bsrc->num_buffers;
    have = self->have_info;
    fps_n = self->info.fps_n;
    fps_d = self->info.fps_d;
    GST_OBJECT_UNLOCK (self);
    if (num_buffers >= 0 && format == GST_FORMAT_DEFAULT) {
      gst_query_set_duration (query, format, num_buffers);
      return TRUE;
    }
    if (num_buffers >= 0 && format == GST_FORMAT_TIME && have && fps_n > 0) {
      gst_query_set_duration (query, format,
          gst_util_uint64_scale (num_buffers, fps_d * GST_SECOND, fps_n));
      return TRUE;
    }
  }
  return GST_BASE_SRC_CLASS (gst_tensor_src_parent_class)->query (bsrc, query);
}

/* One item of value v, then doubling copies of what is already written. */
static void
fill_constant (guint8 *data, tn_dtype dt, gsize n, gdouble v)
{
  gsize isz = tn_dtype_size (dt), total = n * isz, done = isz;
  gboolean zero = TRUE;

  if (n == 0)
    return;
  tn_set_f64 (data, dt, v);
  for (gsize i = 0; i < isz; i++)
    zero &= data[i] == 0;
  if (zero) {
    memset (data, 0, total);
    return;
  }
  while (done < total) {
    gsize chunk = MIN (MIN (done, (gsize) REPLICATE_MAX), total - done);

    memcpy (data + done, data, chunk);
    done += chunk;
  }
}

static void
fill_arange (guint8 *data, tn_dtype dt, guint64 first, gsize n, gdouble start,
    gdouble step)
{
  gdouble buf[ARANGE_CHUNK];
  gsize isz = tn_dtype_size (dt);

  for (gsize done = 0; done < n;) {
    gsize m = MIN (n - done, (gsize) ARANGE_CHUNK);
    gdouble *v = dt == TN_FLOAT64 ? (gdouble *) data + done : buf;

    for (gsize i = 0; i < m; i++)
      v[i] = start + (gdouble) (first + done + i) * step;
    if (dt != TN_FLOAT64)
      tn_cast (data + done * isz, dt, v, TN_FLOAT64, m);
    done += m;
  }
}

/* One buffer's content, cut into chunks that workers fill.  Every item
 * is a function of its index alone, so the bits do not depend on how many
 * threads run the chunks. */
typedef struct {
  GstTensorSrcPattern pattern;
  tn_dtype dtype;
  gsize itemsize;
  guint8 *data;
  gdouble value, start, step, low, high, mean, stddev;
  guint64 seed, stream;
} GenJob;

static void
gen_chunk (void *ctx, int64_t chunk, int64_t begin, int64_t end)
{
  const GenJob *j = ctx;
  guint8 *p = j->data + (gsize) begin * j->itemsize;
  gsize n = (gsize) (end - begin);

  switch (j->pattern) {
  case GST_TENSOR_SRC_ZEROS:
    memset (p, 0, n * j->itemsize);
    break;
  case GST_TENSOR_SRC_ONES:
    fill_constant (p, j->dtype, n, 1.0);
    break;
  case GST_TENSOR_SRC_FILL:
    fill_constant (p, j->dtype, n, j->value);
    break;
  case GST_TENSOR_SRC_ARANGE:
    fill_arange (p, j->dtype, begin, n, j->start, j->step);
    break;
  case GST_TENSOR_SRC_UNIFORM:
    tn_random_fill_uniform (
        p, j->dtype, begin, n, j->low, j->high, j->seed, j->stream, NULL);
    break;
  case GST_TENSOR_SRC_NORMAL:
    tn_random_fill_normal (
        p, j->dtype, begin, n, j->mean, j->stddev, j->seed, j->stream, NULL);
    break;
  }
}

static GstFlowReturn
gst_tensor_src_fill (GstPushSrc *psrc, GstBuffer *buf)
{
  GstTensorSrc *self = GST_TENSOR_SRC (psrc);
  GenJob job;
  GstTnInfo info;
  gsize size, n_items;
  gint n_threads;
  GstMapInfo map;
  guint64 n;
  tn_err e;
  int rc = 0;

  GST_OBJECT_LOCK (self);
  if (!self->have_info) {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No caps were negotiated before the first buffer."), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  info = self->info;
  size = self->size;
  n_items = self->n_items;
  n = self->n++;
  n_threads = self->n_threads;
  job.pattern = self->pattern;
  job.dtype = info.dtype;
  job.itemsize = tn_dtype_size (info.dtype);
  job.value = self->value;
  job.start = self->start;
  job.step = self->step;
  job.low = self->low;
  job.high = self->high;
  job.mean = self->mean;
  job.stddev = self->stddev;
  job.seed = self->seed;
  job.stream = n;
  GST_OBJECT_UNLOCK (self);

  /* The property checks make a failure unreachable; checked anyway (on no
   * items) so that a future parameter cannot turn into garbage. */
  if (job.pattern == GST_TENSOR_SRC_UNIFORM)
    rc = tn_random_fill_uniform (
        NULL, job.dtype, 0, 0, job.low, job.high, 0, 0, &e);
  else if (job.pattern == GST_TENSOR_SRC_NORMAL)
    rc = tn_random_fill_normal (
        NULL, job.dtype, 0, 0, job.mean, job.stddev, 0, 0, &e);
  if (rc != 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", e.msg), (NULL));
    return GST_FLOW_ERROR;
  }

  if (gst_buffer_get_size (buf) < size) {
    gchar *s = gst_tn_info_to_string (&info);

    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("The buffer pool gave a buffer of %" G_GSIZE_FORMAT " bytes; a "
         "tensor of %s needs %" G_GSIZE_FORMAT ".",
            gst_buffer_get_size (buf), s, size),
        (NULL));
    g_free (s);
    return GST_FLOW_ERROR;
  }
  gst_buffer_set_size (buf, size);

  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map a buffer of %" G_GSIZE_FORMAT " bytes for writing.",
            size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  job.data = map.data;
  /* A small tensor is one chunk: fill it here, without asking the pool
   * (which counts the cores on every run).  A tensor of no items has no
   * memory to fill (map.data may be NULL, which memset may not take). */
  if (n_items > 0 && n_items <= GEN_GRAIN)
    gen_chunk (&job, 0, 0, (int64_t) n_items);
  else if (n_items > 0)
    tn_parallel_run (n_threads, (int64_t) n_items, GEN_GRAIN, gen_chunk, &job);
  gst_buffer_unmap (buf, &map);

  GST_BUFFER_OFFSET (buf) = n;
  GST_BUFFER_OFFSET_END (buf) = n + 1;
  if (info.fps_n > 0) {
    GstClockTime scale = info.fps_d * GST_SECOND;
    GstClockTime pts = gst_util_uint64_scale (n, scale, info.fps_n);

    GST_BUFFER_PTS (buf) = pts;
    GST_BUFFER_DURATION (buf)
        = gst_util_uint64_scale (n + 1, scale, info.fps_n) - pts;
  } else {
    GST_BUFFER_PTS (buf) = 0;
    GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
  }
  GST_LOG_OBJECT (self, "buffer %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT, n,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return GST_FLOW_OK;
}

static void
gst_tensor_src_class_init (GstTensorSrcClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);
  const GParamFlags flags
      = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (
      gst_tensor_src_debug, "tensorsrc", 0, "tensor source");

  gobject_class->set_property = gst_tensor_src_set_property;
  gobject_class->get_property = gst_tensor_src_get_property;

  /**
   * GstTensorSrc:pattern:
   *
   * What the tensors hold.  Changes apply from the next buffer.
   */
  g_object_class_install_property (gobject_class, PROP_PATTERN,
      g_param_spec_enum ("pattern", "Pattern",
          "What the tensors hold: zeros, ones, fill (every item is value), "
          "arange (item i of the flattened tensor is start + i*step), "
          "uniform (in [low, high)) or normal (mean, stddev)",
          GST_TYPE_TENSOR_SRC_PATTERN, DEFAULT_PATTERN, flags));

  /**
   * GstTensorSrc:value:
   *
   * The item of pattern=fill, converted with core's cast rules.  Any
   * double: the infinities and NaN too (a tensor of NaN is a legitimate
   * input to test; integer dtypes take NaN as 0).
   */
  g_object_class_install_property (gobject_class, PROP_VALUE,
      g_param_spec_double ("value", "Value",
          "pattern=fill: every item, cast to the dtype (saturating; "
          "integers truncate toward zero: 300 is 255 in uint8, -1.5 is -1 "
          "in int16); infinities and nan allowed",
          -INFINITY, INFINITY, DEFAULT_VALUE, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:start:
   *
   * Item 0 of pattern=arange: any double but NaN (an arange of NaN only;
   * pattern=fill value=nan makes that tensor).  NaN is stored, and is an
   * error when the element starts (a warning that keeps the old value
   * while it runs).
   */
  g_object_class_install_property (gobject_class, PROP_START,
      g_param_spec_double ("start", "Start",
          "pattern=arange: item 0, -inf to inf (not nan); item i is start + "
          "i*step computed in float64, then cast to the dtype (saturating)",
          -INFINITY, INFINITY, DEFAULT_START, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:step:
   *
   * Increment between consecutive items of pattern=arange, in row-major
   * order: any double but NaN, as #GstTensorSrc:start.
   */
  g_object_class_install_property (gobject_class, PROP_STEP,
      g_param_spec_double ("step", "Step",
          "pattern=arange: increment between consecutive items of the "
          "flattened (row-major) tensor, -inf to inf (not nan)",
          -INFINITY, INFINITY, DEFAULT_STEP, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:low:
   *
   * Inclusive lower bound of pattern=uniform: finite.  With
   * pattern=uniform, a low that is not below #GstTensorSrc:high is an
   * error when the element starts (while it runs, a warning that keeps
   * the old value); the two may be set in any order.  Any double is
   * stored: an infinity or NaN is an error when the element starts,
   * whatever the pattern (it may change while the element runs), and set
   * while it runs a warning that keeps the old value.  So are high and
   * mean.
   */
  g_object_class_install_property (gobject_class, PROP_LOW,
      g_param_spec_double ("low", "Low",
          "pattern=uniform: inclusive lower bound, finite and below high. "
          "Integer dtypes draw every integer of [ceil(low), ceil(high)) "
          "equally often",
          -INFINITY, INFINITY, DEFAULT_LOW, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:high:
   *
   * Exclusive upper bound of pattern=uniform, finite and above
   * #GstTensorSrc:low.
   */
  g_object_class_install_property (gobject_class, PROP_HIGH,
      g_param_spec_double ("high", "High",
          "pattern=uniform: exclusive upper bound, finite and above low",
          -INFINITY, INFINITY, DEFAULT_HIGH, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:mean:
   *
   * Mean of pattern=normal: finite.
   */
  g_object_class_install_property (gobject_class, PROP_MEAN,
      g_param_spec_double ("mean", "Mean",
          "pattern=normal: mean, finite; values are computed in float64 and "
          "cast to the dtype (integers truncate toward zero)",
          -INFINITY, INFINITY, DEFAULT_MEAN, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:stddev:
   *
   * Standard deviation of pattern=normal: finite and >= 0 (0: every item
   * is mean).  Any double is stored: a negative one, an infinity or NaN is
   * an error when the element starts, whatever the pattern, and set while
   * it runs a warning that keeps the old value.
   */
  g_object_class_install_property (gobject_class, PROP_STDDEV,
      g_param_spec_double ("stddev", "Standard deviation",
          "pattern=normal: standard deviation, finite and >= 0 (0: every "
          "item is mean)",
          -INFINITY, INFINITY, DEFAULT_STDDEV, flags | G_PARAM_LAX_VALIDATION));

  /**
   * GstTensorSrc:seed:
   *
   * Key of the counter-based generator of the random patterns.
   */
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint64 ("seed", "Seed",
          "uniform and normal: key of the Philox4x32-10 generator; buffer n "
          "is the same bits for the same seed on every run and after any "
          "seek",
          0, G_MAXUINT64, DEFAULT_SEED, flags));

  /**
   * GstTensorSrc:n-threads:
   *
   * Threads that fill a large tensor; the content does not depend on it.
   */
  g_object_class_install_property (
      gobject_class, PROP_N_THREADS, gst_tn_param_spec_n_threads ());

  /**
   * GstTensorSrc:is-live:
   *
   * Produce at the pace of the clock, one buffer per frame duration.
   */
  g_object_class_install_property (gobject_class, PROP_IS_LIVE,
      g_param_spec_boolean ("is-live", "Is live",
          "Produce buffers at the pace of the clock (when the framerate is "
          "not 0/1) instead of as fast as downstream takes them",
          DEFAULT_IS_LIVE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Tensor source",
      "Source/Tensor",
      "Emits tensors of a pattern or of reproducible noise, of the dtype, "
      "dims and framerate downstream caps ask for (float32 <1> at 30/1 when "
      "they leave them open)",
      "gst-tensor developers");

  gst_type_mark_as_plugin_api (GST_TYPE_TENSOR_SRC_PATTERN, 0);

  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_tensor_src_negotiate);
  basesrc_class->set_caps = GST_DEBUG_FUNCPTR (gst_tensor_src_set_caps);
  basesrc_class->decide_allocation
      = GST_DEBUG_FUNCPTR (gst_tensor_src_decide_allocation);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_tensor_src_start);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (gst_tensor_src_is_seekable);
  basesrc_class->event = GST_DEBUG_FUNCPTR (gst_tensor_src_event);
  basesrc_class->do_seek = GST_DEBUG_FUNCPTR (gst_tensor_src_do_seek);
  basesrc_class->get_times = GST_DEBUG_FUNCPTR (gst_tensor_src_get_times);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_tensor_src_query);
  pushsrc_class->fill = GST_DEBUG_FUNCPTR (gst_tensor_src_fill);
}

static void
gst_tensor_src_init (GstTensorSrc *self)
{
  self->pattern = DEFAULT_PATTERN;
  self->value = DEFAULT_VALUE;
  self->start = DEFAULT_START;
  self->step = DEFAULT_STEP;
  self->low = DEFAULT_LOW;
  self->high = DEFAULT_HIGH;
  self->mean = DEFAULT_MEAN;
  self->stddev = DEFAULT_STDDEV;
  self->seed = DEFAULT_SEED;
  self->n_threads = GST_TN_N_THREADS_DEFAULT;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), DEFAULT_IS_LIVE);
}
