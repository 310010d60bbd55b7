/* tensorconvert and NNStreamer: its caps other/tensor and
 * other/tensors,format=static read as tensor/x-raw and written from it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rule, from NNStreamer 2.7.0 (commit 5b13ea6: tensor_typedef.h,
 * nnstreamer_plugin_api_util_impl.c, nnstreamer_plugin_api_impl.c) and
 * docs/caps.md "NNStreamer caps": a dimension string lists the extents
 * innermost first, "3:640:480:1", where tensor/x-raw lists them outermost
 * first, <1, 480, 640, 3>.  NNStreamer writes as many extents as the
 * tensor's rank (tensor_converter gives video and octet streams 4, audio
 * 2; its rank limit is 16), never pads them to its limit in the caps it
 * fixes, and counts trailing extents of 1 as absent when it compares
 * tensors.  Caps strings do not: "3:640:480" and "3:640:480:1" do not
 * intersect.  So each tensor is offered in every spelling of the same
 * bytes, its own first: extents of 1 dropped from the outside down to its
 * last extent above 1, or added up to rank 4, NNStreamer's rank before
 * 2.3 and what its converters write.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "tensorconvert.h"
#include "tnelement.h"

#define GST_CAT_DEFAULT gst_tensor_convert_debug

#define NNS_RANK_LIMIT 16  /* NNS_TENSOR_RANK_LIMIT */
#define NNS_RANK_PREV 4    /* NNS_TENSOR_RANK_LIMIT_PREV */
#define NNS_SIZE_LIMIT 256 /* NNS_TENSOR_SIZE_LIMIT: tensors per buffer */

/* NNStreamer's types (GST_TENSOR_TYPE_ALL); each is ours by that name. */
static const gchar *const nns_types[] = { "int8", "uint8", "int16", "uint16",
  "int32", "uint32", "int64", "uint64", "float16", "float32", "float64" };
#define NNS_TYPE_LIST                                                          \
  "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, "        \
  "float32 or float64"

gboolean
gst_tensor_convert_is_nns (const GstStructure *s)
{
  return gst_structure_has_name (s, GST_TENSOR_CONVERT_NNS_TENSOR)
         || gst_structure_has_name (s, GST_TENSOR_CONVERT_NNS_TENSORS);
}

static gboolean G_GNUC_PRINTF (2, 3)
    nns_error (GError **err, const gchar *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  if (err != NULL)
    *err = g_error_new_valist (
        GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, fmt, ap);
  va_end (ap);
  return FALSE;
}

static gboolean
nns_type (const gchar *name, tn_dtype *dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (nns_types); i++)
    if (g_str_equal (name, nns_types[i]))
      return tn_dtype_from_name (name, dtype, NULL) == 0;
  return FALSE;
}

/* One dimension string, innermost first, into dims, outermost first. */
static gboolean
parse_dims (const gchar *str, gint64 *dims, gint *rank, GError **err)
{
  gchar **parts = g_strsplit (str, ":", -1);
  guint n = g_strv_length (parts);
  guint64 ext[NNS_RANK_LIMIT];
  gboolean ok = n >= 1 && n <= NNS_RANK_LIMIT;

  for (guint i = 0; ok && i < n; i++) {
    gchar *p = g_strstrip (parts[i]), *end;

    ext[i] = g_ascii_strtoull (p, &end, 10);
    ok = g_ascii_isdigit (*p) && *end == '\0' && ext[i] >= 1
         && ext[i] <= G_MAXINT;
  }
  g_strfreev (parts);
  if (!ok)
    return nns_error (err,
        "dimension \"%s\" is not an NNStreamer dimension: expected 1 to %d "
        "extents from 1 to %d, innermost first, separated by ':' "
        "(3:640:480:1 is <1, 480, 640, 3>)",
        str, NNS_RANK_LIMIT, G_MAXINT);
  /* Outer extents of 1 past our rank limit hold no bytes. */
  while (n > TN_MAX_RANK && ext[n - 1] == 1)
    n--;
  if (n > TN_MAX_RANK)
    return nns_error (err,
        "dimension \"%s\" has %u axes inside its outermost extent above 1; "
        "tensor/x-raw holds at most %d",
        str, n, TN_MAX_RANK);
  for (guint i = 0; i < n; i++)
    dims[n - 1 - i] = (gint64) ext[i];
  *rank = (gint) n;
  return TRUE;
}

gboolean
gst_tensor_convert_nns_info (const GstStructure *s, gint index, GstTnInfo *info,
    guint *count, GError **err)
{
  gboolean single = gst_structure_has_name (s, GST_TENSOR_CONVERT_NNS_TENSOR);
  const gchar *fdims = single ? "dimension" : "dimensions";
  const gchar *ftypes = single ? "type" : "types";
  const gchar *dims = gst_structure_get_string (s, fdims);
  const gchar *types = gst_structure_get_string (s, ftypes);
  gchar **dv = NULL, **tv = NULL;
  gint n = 1, pick;
  gboolean ok = FALSE;

  memset (info, 0, sizeof *info);
  if (!single) {
    const gchar *format = gst_structure_get_string (s, "format");

    if (format == NULL || !g_str_equal (format, "static"))
      return nns_error (err,
          "other/tensors format=%s cannot be read as tensor/x-raw: flexible "
          "and sparse tensors carry their type and dimensions in each "
          "buffer, not in the caps; expected format=static",
          format ? format : "(none)");
    if (!gst_structure_get_int (s, "num_tensors", &n) || n < 1
        || n > NNS_SIZE_LIMIT)
      return nns_error (err,
          "other/tensors needs num_tensors from 1 to %d; the caps have %s",
          NNS_SIZE_LIMIT,
          gst_structure_has_field (s, "num_tensors") ? "another value"
                                                     : "none");
  }
  if (dims == NULL || types == NULL)
    return nns_error (err,
        "%s needs the fields %s and %s as strings, fixed; the caps have %s",
        gst_structure_get_name (s), fdims, ftypes,
        dims == NULL ? fdims : ftypes);
  dv = g_strsplit_set (dims, ",.", -1);
  tv = g_strsplit_set (types, ",.", -1);
  pick = index < 0 ? 0 : index;
  if (g_strv_length (dv) != (guint) n || g_strv_length (tv) != (guint) n)
    nns_error (err,
        "other/tensors num_tensors=%d has dimensions \"%s\" (%u) and types "
        "\"%s\" (%u): expected one of each per tensor",
        n, dims, g_strv_length (dv), types, g_strv_length (tv));
  else if (index < 0 && n > 1)
    nns_error (err,
        "other/tensors carries %d tensors (dimensions \"%s\", types \"%s\"); "
        "set tensor-index to 0 to %d to take one",
        n, dims, types, n - 1);
  else if (index >= n)
    nns_error (err,
        "tensor-index %d is out of range: other/tensors carries %d tensors "
        "(dimensions \"%s\", types \"%s\"), 0 to %d",
        index, n, dims, types, n - 1);
  else if (n > GST_TENSOR_CONVERT_NNS_MEMORY_MAX
           && pick >= GST_TENSOR_CONVERT_NNS_MEMORY_MAX - 1)
    nns_error (err,
        "tensor-index %d: of %d tensors, NNStreamer packs those from %d on "
        "into one memory with a header, which tensorconvert does not read; "
        "expected 0 to %d",
        index, n, GST_TENSOR_CONVERT_NNS_MEMORY_MAX - 1,
        GST_TENSOR_CONVERT_NNS_MEMORY_MAX - 2);
  else if (!nns_type (g_strstrip (tv[pick]), &info->dtype))
    nns_error (err, "type '%s' is not an NNStreamer type; expected %s",
        tv[pick], NNS_TYPE_LIST);
  else
    ok = parse_dims (dv[pick], info->dims, &info->rank, err);
  g_strfreev (dv);
  g_strfreev (tv);
  if (!ok)
    return FALSE;
  if (!gst_structure_get_fraction (s, "framerate", &info->fps_n, &info->fps_d)
      || info->fps_d <= 0) {
    info->fps_n = 0;
    info->fps_d = 1;
  }
  *count = (guint) n;
  return TRUE;
}

gboolean
gst_tensor_convert_nns_check (const GstTnInfo *info, GError **err)
{
  tn_dtype d;
  gchar *desc;
  gboolean ok = nns_type (tn_dtype_name (info->dtype), &d);

  for (gint i = 0; ok && i < info->rank; i++)
    ok = info->dims[i] > 0;
  if (ok)
    return TRUE;
  desc = gst_tn_info_to_string (info);
  nns_error (err,
      "A tensor %s has no NNStreamer caps: other/tensors needs type %s and "
      "every extent 1 or more (an extent of 0 ends its dimension string)",
      desc, NNS_TYPE_LIST);
  g_free (desc);
  return FALSE;
}

/* The first axis from the outside whose extent is above 1, counted from
 * the inside: the smallest rank that holds the same bytes (1 at least). */
static gint
core_rank (const gint64 *dims, gint rank)
{
  gint skip = 0;

  while (skip < rank - 1 && dims[skip] == 1)
    skip++;
  return MAX (rank - skip, 1);
}

/* dims (rank of them, outermost first) at rank r: extents of 1 dropped
 * from or added on the outside. */
static void
respell (const gint64 *dims, gint rank, gint r, gint64 *out)
{
  for (gint i = 0; i < r; i++) {
    gint k = rank - r + i;

    out[i] = k >= 0 ? dims[k] : 1;
  }
}

/* Ranks to offer a tensor of rank at, its own first, up to limit. */
static gint
spellings (const gint64 *dims, gint rank, gint limit, gint *ranks)
{
  gint n = 0, lo = core_rank (dims, rank), hi = MAX (rank, NNS_RANK_PREV);

  ranks[n++] = MAX (rank, 1);
  for (gint r = lo; r <= MIN (hi, limit); r++)
    if (r != ranks[0])
      ranks[n++] = r;
  return n;
}

static void
copy_field (GstStructure *to, const GstStructure *from, const gchar *field)
{
  const GValue *v = gst_structure_get_value (from, field);

  if (v != NULL)
    gst_structure_set_value (to, field, v);
}

GstCaps *
gst_tensor_convert_caps_from_nns (const GstStructure *s, gint index)
{
  GstCaps *out = gst_caps_new_empty ();
  GstStructure *t = gst_structure_new_empty (GST_TN_MEDIA_TYPE);
  const GValue *format = gst_structure_get_value (s, "format");
  gint ranks[TN_MAX_RANK + NNS_RANK_PREV], n;
  GstTnInfo info;
  guint count;

  copy_field (t, s, "framerate");
  /* Open caps (a template, a query): any tensor of the static kind. */
  if (!gst_structure_has_name (s, GST_TENSOR_CONVERT_NNS_TENSOR)
      && (format == NULL || !G_VALUE_HOLDS_STRING (format)
          || !gst_structure_get_string (s, "dimensions")
          || !gst_structure_get_string (s, "types")
          || !gst_structure_has_field_typed (s, "num_tensors", G_TYPE_INT))) {
    GValue st = G_VALUE_INIT;

    g_value_init (&st, G_TYPE_STRING);
    g_value_set_static_string (&st, "static");
    if (format == NULL || gst_value_can_intersect (format, &st))
      gst_caps_append_structure (out, t);
    else
      gst_structure_free (t);
    g_value_unset (&st);
    return out;
  }
  if (gst_structure_has_name (s, GST_TENSOR_CONVERT_NNS_TENSOR)
      && (!gst_structure_get_string (s, "dimension")
          || !gst_structure_get_string (s, "type"))) {
    gst_caps_append_structure (out, t);
    return out;
  }
  /* Fixed and unusable: accept_caps says why. */
  if (!gst_tensor_convert_nns_info (s, index, &info, &count, NULL)) {
    gst_structure_free (t);
    return out;
  }
  gst_structure_set (
      t, "type", G_TYPE_STRING, tn_dtype_name (info.dtype), NULL);
  n = spellings (info.dims, info.rank, TN_MAX_RANK, ranks);
  for (gint i = 0; i < n; i++) {
    GstStructure *one = gst_structure_copy (t);
    gint64 dims[TN_MAX_RANK];

    respell (info.dims, info.rank, ranks[i], dims);
    gst_tn_structure_set_dims (one, dims, ranks[i]);
    gst_caps_append_structure (out, one);
  }
  gst_structure_free (t);
  return out;
}

/* The dimension string of dims (rank of them, outermost first). */
static gchar *
dims_string (const gint64 *dims, gint rank)
{
  GString *s = g_string_new (NULL);

  for (gint i = rank - 1; i >= 0; i--)
    g_string_append_printf (
        s, "%" G_GINT64_FORMAT "%s", dims[i], i > 0 ? ":" : "");
  return g_string_free (s, FALSE);
}

GstCaps *
gst_tensor_convert_caps_to_nns (const GstStructure *s, gint index)
{
  GstCaps *out = gst_caps_new_empty ();
  GstStructure *many = gst_structure_new (
      GST_TENSOR_CONVERT_NNS_TENSORS, "format", G_TYPE_STRING, "static", NULL);
  GstStructure *one = gst_structure_new_empty (GST_TENSOR_CONVERT_NNS_TENSOR);
  const gchar *type = gst_structure_get_string (s, "type");
  gint ranks[NNS_RANK_LIMIT], n;
  GstTnInfo info = { 0 };
  tn_dtype dtype;

  copy_field (many, s, "framerate");
  copy_field (one, s, "framerate");
  if (index > 0) {
    /* Upstream carries more tensors than the one taken: of their types
     * and dimensions the caps here know nothing. */
    GValue range = G_VALUE_INIT;

    g_value_init (&range, GST_TYPE_INT_RANGE);
    gst_value_set_int_range (&range, index + 1, NNS_SIZE_LIMIT);
    gst_structure_set_value (many, "num_tensors", &range);
    g_value_unset (&range);
    gst_caps_append_structure (out, many);
    gst_structure_free (one);
    return out;
  }
  gst_structure_set (many, "num_tensors", G_TYPE_INT, 1, NULL);
  if (type != NULL && !nns_type (type, &dtype)) {
    gst_structure_free (many);
    gst_structure_free (one);
    return out;
  }
  if (type == NULL
      || !gst_tn_structure_get_dims (s, info.dims, &info.rank, NULL)) {
    if (type != NULL) {
      gst_structure_set (many, "types", G_TYPE_STRING, type, NULL);
      gst_structure_set (one, "type", G_TYPE_STRING, type, NULL);
    }
    gst_caps_append_structure (out, many);
    gst_caps_append_structure (out, one);
    return out;
  }
  info.dtype = dtype;
  if (!gst_tensor_convert_nns_check (&info, NULL)) {
    gst_structure_free (many);
    gst_structure_free (one);
    return out;
  }
  /* other/tensors first, in each spelling; then other/tensor, which
   * NNStreamer 2.x still reads. */
  n = spellings (info.dims, info.rank, NNS_RANK_LIMIT, ranks);
  for (gint k = 0; k < 2; k++)
    for (gint i = 0; i < n; i++) {
      GstStructure *st = gst_structure_copy (k == 0 ? many : one);
      gint64 dims[NNS_RANK_LIMIT];
      gchar *str;

      respell (info.dims, info.rank, ranks[i], dims);
      str = dims_string (dims, ranks[i]);
      gst_structure_set (st, k == 0 ? "types" : "type", G_TYPE_STRING, type,
          k == 0 ? "dimensions" : "dimension", G_TYPE_STRING, str, NULL);
      g_free (str);
      gst_caps_append_structure (out, st);
    }
  if (index == 0) {
    /* tensor-index=0 takes the first of any number. */
    GValue range = G_VALUE_INIT;

    g_value_init (&range, GST_TYPE_INT_RANGE);
    gst_value_set_int_range (&range, 2, NNS_SIZE_LIMIT);
    gst_structure_set_value (many, "num_tensors", &range);
    g_value_unset (&range);
    gst_caps_append_structure (out, many);
  } else {
    gst_structure_free (many);
  }
  gst_structure_free (one);
  return out;
}

/* Whether a and b are the same bytes: equal dtypes, equal dims but for
 * outer extents of 1. */
static gboolean
same_tensor (const GstTnInfo *a, const GstTnInfo *b)
{
  gint ra = core_rank (a->dims, a->rank), rb = core_rank (b->dims, b->rank);

  if (a->dtype != b->dtype || ra != rb)
    return FALSE;
  for (gint i = 1; i <= ra; i++)
    if ((a->rank >= i ? a->dims[a->rank - i] : 1)
        != (b->rank >= i ? b->dims[b->rank - i] : 1))
      return FALSE;
  return TRUE;
}

gboolean
gst_tensor_convert_nns_match (
    GstTensorConvert *self, GstCaps *nns, gboolean nns_in, GError **err)
{
  GstTnInfo info;
  gchar *a, *b;
  gint index;

  GST_OBJECT_LOCK (self);
  index = nns_in ? self->tensor_index : -1;
  GST_OBJECT_UNLOCK (self);
  if (!nns_in && !gst_tensor_convert_nns_check (&self->tinfo, err))
    return FALSE;
  if (!gst_tensor_convert_nns_info (
          gst_caps_get_structure (nns, 0), index, &info, &self->nns_count, err))
    return FALSE;
  self->nns_index = MAX (index, 0);
  if (same_tensor (&info, &self->tinfo))
    return TRUE;
  a = gst_tn_info_to_string (&info);
  b = gst_tn_info_to_string (&self->tinfo);
  nns_error (err,
      "NNStreamer's tensor %d is %s, the tensor/x-raw side %s: not the same "
      "items",
      self->nns_index, a, b);
  g_free (a);
  g_free (b);
  return FALSE;
}

gboolean
gst_tensor_convert_nns_acceptable (GstTensorConvert *self, GstCaps *caps)
{
  GstTnInfo info;
  GError *err = NULL;
  guint count;
  gint index;

  GST_OBJECT_LOCK (self);
  index = self->tensor_index;
  GST_OBJECT_UNLOCK (self);
  if (gst_tensor_convert_nns_info (
          gst_caps_get_structure (caps, 0), index, &info, &count, &err))
    return TRUE;
  if (gst_tn_caps_refusal_is_new (&self->refused, caps))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: %s", GST_OBJECT_NAME (self), err->message),
        ("caps %" GST_PTR_FORMAT, caps));
  g_error_free (err);
  return FALSE;
}

gboolean
gst_tensor_convert_downstream_nns (
    GstTensorConvert *self, GstCaps *caps, GError **err)
{
  GstCaps *nns
      = gst_tensor_convert_caps_to_nns (gst_caps_get_structure (caps, 0), -1);
  GstCaps *peer
      = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (self), NULL);
  GstCaps *any = gst_caps_from_string (GST_TENSOR_CONVERT_NNS_TENSORS
      ", format=static; " GST_TENSOR_CONVERT_NNS_TENSOR);
  gboolean ok = FALSE;
  GstTnInfo info;

  if (!gst_caps_is_any (peer) && gst_caps_can_intersect (peer, any)) {
    ok = gst_caps_can_intersect (peer, nns);
    /* Downstream asks for NNStreamer's caps: say why there are none. */
    if (!ok && gst_caps_is_empty (nns)
        && gst_tn_info_from_caps (&info, caps, NULL))
      gst_tensor_convert_nns_check (&info, err);
  }
  gst_caps_unref (any);
  gst_caps_unref (peer);
  gst_caps_unref (nns);
  return ok;
}
