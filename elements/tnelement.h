/* Glue every element of the plugin shares; not installed. */
#ifndef GST_TN_ELEMENT_H
#define GST_TN_ELEMENT_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/tensor/tensorinfo.h>

#include "core/reduce.h"

G_BEGIN_DECLS

/* Whether element is in PAUSED or PLAYING, or on its way there: a property
 * value that cannot be used then must not replace the one in use.  The
 * macro is for callers that hold the object lock already. */
#define GST_TN_ELEMENT_IS_RUNNING(e)                                           \
  (GST_STATE (e) >= GST_STATE_PAUSED || GST_STATE_NEXT (e) >= GST_STATE_PAUSED)
gboolean gst_tn_element_is_running (GstElement *element);

/* For a stored property value that cannot be used, from the state change
 * to PAUSED (start): posts GST_RESOURCE_ERROR_SETTINGS with the text
 * "tensorop0: ops=\"mull:2\" cannot be used: WHY" and returns FALSE, so
 * the state change fails and gst-launch-1.0 exits non-zero. */
gboolean gst_tn_element_property_error (GstElement *element,
    const gchar *property, const gchar *text, const gchar *why);

/* Why an int property axis names no axis of any tensor (it is outside
 * [-TN_MAX_RANK, TN_MAX_RANK - 1]), for gst_tn_element_property_error;
 * NULL where it can be one.  The caller frees it.  (Such properties take
 * any int: a GParamSpec range only makes GLib warn and keep the old
 * value.) */
gchar *gst_tn_element_axis_problem (gint axis);

/* For a value set while running that cannot be used: posts a warning that
 * names it and the value kept ("...; keeping ops=\"add:1\""). */
void gst_tn_element_property_warning (GstElement *element,
    const gchar *property, const gchar *text, const gchar *why,
    const gchar *kept);

/* GStreamer's convention for a property that cannot change once the
 * element runs: TRUE (set it) in NULL and READY; otherwise a g_warning
 * naming the element, the property and the refused value, and FALSE. */
gboolean gst_tn_element_property_settable (
    GstElement *element, GParamSpec *pspec, const GValue *value);

/* Makes a sink pad accept caps that intersect what it can take, instead
 * of GStreamer's default subset check: minimal caps such as
 * "tensor/x-raw,type=float32,dims=<3,4>" leave out dims-order and
 * framerate, which then take their defaults (row-major, no framerate),
 * whereas a subset check against a template that lists those fields
 * refuses them with a bare not-negotiated.  GstBaseTransform already
 * intersects; every other sink pad of the plugin calls this. */
void gst_tn_pad_accept_intersect (GstPad *pad);

/* Accept-caps for every sink pad of the plugin: GStreamer's answer, and
 * when it refuses tensor caps for a field gst_tn_caps_validate() can name
 * (a type that is no tensor type, dims-order=column-major, a framerate
 * that is no fraction), an element error that says so, once for the same
 * caps; a plain refusal would stop the source with a bare not-negotiated
 * that names nobody.  The first is GstBaseTransform's accept_caps vfunc;
 * the second handles GST_QUERY_ACCEPT_CAPS on other sink pads (FALSE for
 * any other query, which the caller then answers). */
gboolean gst_tn_transform_accept_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps);
gboolean gst_tn_pad_accept_caps_query (
    GstPad *pad, GstObject *parent, GstQuery *query);

/* The CAPS query half of the same rule: upstream that holds such caps
 * asks with them as the filter and, finding no common caps, stops with a
 * bare not-negotiated before any CAPS event.  gst_tn_element_explain_caps
 * posts the reason for such caps (once for the same caps) and returns
 * TRUE; gst_tn_transform_query is GstBaseTransform's query after that
 * check, for elements that do not answer the query themselves. */
gboolean gst_tn_element_explain_caps (GstElement *element, GstCaps *caps);
/* That check for a query on trans's pads (a CAPS query on the sink pad). */
void gst_tn_transform_explain_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query);
gboolean gst_tn_transform_query (
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query);

/* n-threads, the same in every element: threads of the process-wide
 * worker pool that share one large tensor, 0 for one per core (the
 * default).  Work is split at borders that depend on the tensor's length
 * alone, so every value gives the same bits. */
#define GST_TN_N_THREADS_DEFAULT 0
#define GST_TN_N_THREADS_MAX 64
/* Any int is stored (a pspec range would make gst-launch-1.0 warn and go
 * on with the default). */
GParamSpec *gst_tn_param_spec_n_threads (void);
/* From start: posts the property error for an n outside
 * [0, GST_TN_N_THREADS_MAX] and returns FALSE. */
gboolean gst_tn_element_check_n_threads (GstElement *element, gint n);
/* set_property's part, without the object lock: stores the value in *n
 * (atomically: streaming threads read it per buffer), but while the
 * element runs an unusable one is refused with the property warning and
 * *n kept. */
void gst_tn_element_set_n_threads (
    GstElement *element, gint *n, const GValue *value);

/* The values a numeric property can use.  Its GParamSpec stores any value
 * of its type (int: G_MININT..G_MAXINT; double: -INFINITY..INFINITY with
 * G_PARAM_LAX_VALIDATION, so that NaN reaches set_property): a spec range
 * only makes GLib warn and the element go on with the old value.  Integer
 * properties (int or int64; not uint, whose parser takes "-1" for
 * G_MAXUINT) use min..max, both included; min_means, when not NULL, says
 * what min stands for ("one thread per core").  Double properties use a
 * number (never NaN) from min to max, either of which may be infinite. */
typedef struct {
  const gchar *property;
  gint64 min, max;
  const gchar *min_means;
} GstTnIntRange;

typedef struct {
  const gchar *property;
  gdouble min, max;
} GstTnDoubleRange;

/* From start: for a stored v outside range, posts the property error
 * ("every=\"0\" cannot be used: every is 1 (every buffer) to 2147483647",
 * "atol=\"nan\" cannot be used: atol is a number from 0 to inf") and
 * returns FALSE. */
gboolean gst_tn_element_check_int (
    GstElement *element, const GstTnIntRange *range, gint64 v);
gboolean gst_tn_element_check_double (
    GstElement *element, const GstTnDoubleRange *range, gdouble v);
/* From set_property, without the object lock: whether the caller stores
 * v.  FALSE for a v outside range while the element runs, after the
 * property warning that names the value kept (read back through the
 * property); TRUE otherwise, so that a value set in NULL or READY is
 * stored for start to refuse.  A set that races the state change to
 * PAUSED may store a value start did not see: what reads these values
 * per buffer does not trust them blindly (tn_parallel_run clamps its
 * thread count, tensordebug reads every as at least 1, the core refuses
 * a negative ddof with an error). */
gboolean gst_tn_element_int_settable (
    GstElement *element, const GstTnIntRange *range, gint64 v);
gboolean gst_tn_element_double_settable (
    GstElement *element, const GstTnDoubleRange *range, gdouble v);

/* Whether refusing caps deserves an error message: FALSE when *last, the
 * caps of the previous refusal, equals caps.  A source sends its CAPS
 * event again before every buffer it tries; one refusal is one error.
 * *last keeps a reference; clear it with gst_tn_caps_refusal_clear ()
 * once caps are accepted or the element stops.  Both take one lock:
 * accept-caps queries are not serialized, so a streaming thread can ask
 * while the application's state change stops the element. */
gboolean gst_tn_caps_refusal_is_new (GstCaps **last, GstCaps *caps);
void gst_tn_caps_refusal_clear (GstCaps **last);

/* A GstBaseTransform query function: parent's answer, and for a CAPS
 * query on the sink pad the tensor structures of its template appended
 * last (filtered as the query asks).  Upstream that is free still fixates
 * to what works, which comes first; upstream held to other tensor caps
 * still links, and the element then says in the CAPS event why it refuses
 * them, instead of the source's "downstream accepts no caps". */
gboolean gst_tn_transform_query_any_tensor (GstBaseTransformClass *parent,
    GstBaseTransform *trans, GstPadDirection direction, GstQuery *query);

/* Sets *err to GST_CORE_ERROR_NEGOTIATION with the printf-style message:
 * what an element's negotiation (GstTnAggregatorClass.negotiate) fails
 * with. */
void gst_tn_negotiation_error (GError **err, const gchar *fmt, ...)
    G_GNUC_PRINTF (2, 3);

/* A structure named name that describes the dense tensor of info at
 * data, for element messages: type (string), dims (GstValueArray of int,
 * outermost first), items (gint64) and, when it has at most max_items
 * items, values (GstValueArray in row-major order: gdouble for floats,
 * gint64 for signed and guint64 for unsigned integers, gboolean for
 * bool). */
GstStructure *gst_tn_tensor_structure_new (const gchar *name,
    const GstTnInfo *info, gconstpointer data, guint max_items);
/* Posts that structure for the result of input buffer in, with the
 * fields first_field, ... (as gst_structure_set) and, as level's
 * messages, timestamp (in's PTS), stream-time and running-time (of seg)
 * and duration, all guint64. */
void gst_tn_post_tensor_message (GstElement *element, const gchar *name,
    const GstTnInfo *info, gconstpointer data, guint max_items,
    const GstSegment *seg, GstBuffer *in, const gchar *first_field,
    ...) G_GNUC_NULL_TERMINATED;

/* The axes property of the elements that work along axes ("0,-1", core's
 * tn_axes_parse).  While element runs, a list that does not parse is
 * refused with a warning and the axes in use stay (a silent "every axis"
 * would be a wrong answer); otherwise *text takes it, under the object
 * lock, with *axes when it parses and else *error, why it cannot be used,
 * for the start check to report (gst_tn_element_property_error).  TRUE
 * when *axes changed. */
gboolean gst_tn_element_set_axes (GstElement *element, const gchar *text,
    tn_axes *axes, gchar **axes_text, gchar **axes_error);

/* GstObject names an unnamed object after its GType.  An element whose
 * GType is not its factory's name (GstTensorDebugger for tensordebug,
 * because NNStreamer registers GstTensorDebug) calls this from its
 * constructed vfunc, so that "tensordebugger0" (type_prefix and a number)
 * is named "tensordebug0" (factory and the number), as users expect. */
void gst_tn_element_name_as_factory (
    GstElement *element, const gchar *type_prefix, const gchar *factory);

/* For a GstBaseTransform set_caps: in and out from incaps and outcaps;
 * when either is no tensor caps (the element's transform_caps was wrong),
 * an element error saying why, and FALSE. */
gboolean gst_tn_transform_read_caps (GstBaseTransform *trans, GstCaps *incaps,
    GstCaps *outcaps, GstTnInfo *in, GstTnInfo *out);

G_END_DECLS

#endif
