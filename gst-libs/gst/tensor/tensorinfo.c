/* tensor/x-raw caps <-> GstTnInfo.
 *
 * What GStreamer 1.22 does with dims arrays (checked in tests/plugin/
 * test_info.c):
 * - gst_caps_from_string parses "dims=(int)<2, 3>", "dims=<2, 3>" (entries
 *   default to int) and "dims=<>" (an empty array, rank 0); an empty array
 *   is fixed.
 * - Two arrays of different lengths never intersect (the result is EMPTY),
 *   so <> and <1> are distinct shapes, as NumPy has it.
 * - Entries may be ranges or lists: <2, [1, 5]> intersects <2, 3> to the
 *   fixed <2, 3>, and <[1, 3], [4, 8]> with <2, [1, 5]> gives <2, [4, 5]>;
 *   an array with such an entry is not fixed.
 * - Partial caps such as "tensor/x-raw, type=float32" (no dims) intersect
 *   GST_TN_CAPS_ANY, which leaves dims out for that reason. */
#include "tensorinfo.h"

#include <string.h>

#include "core/shape.h"

/* Boxed, so that bindings can hold one (a plain struct: a copy is a
 * memdup). */
static GstTnInfo *
gst_tn_info_copy (GstTnInfo *info)
{
  return g_memdup2 (info, sizeof *info);
}

G_DEFINE_BOXED_TYPE (GstTnInfo, gst_tn_info, gst_tn_info_copy, g_free)

G_STATIC_ASSERT (sizeof (gint64) == sizeof (int64_t));

static const gchar *
value_type_name (const GValue *v)
{
  return G_VALUE_TYPE_NAME (v);
}

/* "bool, int8, ..., float64" (g_free it). */
static gchar *
dtype_list (void)
{
  GString *s = g_string_new (NULL);
  gint t;

  for (t = 0; t < TN_NDTYPES; t++)
    g_string_append_printf (
        s, "%s%s", t ? ", " : "", tn_dtype_name ((tn_dtype) t));
  return g_string_free (s, FALSE);
}

static gboolean
parse_type (const gchar *name, tn_dtype *out, GError **err)
{
  gchar *valid;

  if (tn_dtype_from_name (name, out, NULL) == 0)
    return TRUE;
  valid = dtype_list ();
  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "type '%s' is not a tensor type; expected one of %s.", name, valid);
  g_free (valid);
  return FALSE;
}

static gboolean
check_dims_order (const gchar *order, GError **err)
{
  if (g_strcmp0 (order, "row-major") == 0)
    return TRUE;
  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "dims-order '%s' is not supported; only row-major (outermost axis "
      "first) is.",
      order);
  return FALSE;
}

static void
set_not_string (GError **err, const gchar *field, const GValue *v)
{
  gchar *str = gst_value_serialize (v);

  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "%s %s is a %s, not a string.", field, str ? str : "?",
      value_type_name (v));
  g_free (str);
}

static gchar *
format_dims (const gint64 *dims, gint rank)
{
  char buf[256];

  tn_shape_format (buf, sizeof buf, (const int64_t *) dims, rank);
  return g_strdup (buf);
}

/* Checks an array value of dims.  With fixed_only, every entry must be a
 * non-negative int and dims/rank are filled; otherwise entries that are not
 * fixed (ranges, lists) are let through, for partial caps. */
static gboolean
check_dims_array (const GValue *arr, gboolean fixed_only, gint64 *dims,
    gint *rank, GError **err)
{
  guint n = gst_value_array_get_size (arr), i;

  if (n > TN_MAX_RANK) {
    gchar *str = gst_value_serialize (arr);

    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "dims %s have rank %u; at most %d axes are supported.", str, n,
        TN_MAX_RANK);
    g_free (str);
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    const GValue *e = gst_value_array_get_value (arr, i);

    if (G_VALUE_HOLDS_INT (e)) {
      gint d = g_value_get_int (e);

      if (d < 0) {
        g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
            "dims entry %u is %d; an extent must be >= 0.", i, d);
        return FALSE;
      }
      if (dims)
        dims[i] = d;
    } else if (fixed_only || gst_value_is_fixed (e)) {
      gchar *str = gst_value_serialize (e);

      g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "dims entry %u is %s (a %s), not an int.", i, str ? str : "?",
          value_type_name (e));
      g_free (str);
      return FALSE;
    }
  }
  if (rank)
    *rank = (gint) n;
  return TRUE;
}

static void
set_dims_not_array (GError **err, const GValue *v)
{
  gchar *str = gst_value_serialize (v);

  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "dims %s is a %s, not an array; write dims=(int)<2, 3>, outermost axis "
      "first (<> for a scalar).",
      str ? str : "?", value_type_name (v));
  g_free (str);
}

void
gst_tn_structure_set_dims (GstStructure *s, const gint64 *dims, gint rank)
{
  GValue arr = G_VALUE_INIT;
  gint i;

  g_return_if_fail (s != NULL);
  g_return_if_fail (rank >= 0 && rank <= TN_MAX_RANK);
  g_return_if_fail (rank == 0 || dims != NULL);
  for (i = 0; i < rank; i++)
    g_return_if_fail (dims[i] >= 0 && dims[i] <= G_MAXINT);

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < rank; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_INT);
    g_value_set_int (&v, (gint) dims[i]);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  gst_structure_take_value (s, "dims", &arr);
}

gboolean
gst_tn_structure_get_dims (
    const GstStructure *s, gint64 *dims, gint *rank, GError **err)
{
  const GValue *v;
  gint64 d[TN_MAX_RANK];
  gint r;

  g_return_val_if_fail (s != NULL && dims != NULL && rank != NULL, FALSE);

  v = gst_structure_get_value (s, "dims");
  if (v == NULL) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s has no dims field; a tensor needs dims such as dims=(int)<2, 3> "
        "(<> for a scalar).",
        gst_structure_get_name (s));
    return FALSE;
  }
  if (!GST_VALUE_HOLDS_ARRAY (v)) {
    set_dims_not_array (err, v);
    return FALSE;
  }
  if (!check_dims_array (v, TRUE, d, &r, err))
    return FALSE;
  memcpy (dims, d, sizeof (gint64) * r);
  *rank = r;
  return TRUE;
}

/* Names the first field of s that is not fixed, for the message. */
static gboolean
find_unfixed (GQuark field, const GValue *value, gpointer user_data)
{
  const gchar **out = user_data;

  if (gst_value_is_fixed (value))
    return TRUE;
  *out = g_quark_to_string (field);
  return FALSE;
}

static gboolean
check_fixed (const GstCaps *caps, GError **err)
{
  const gchar *field = NULL;
  gchar *str;
  guint n;

  if (gst_caps_is_any (caps) || gst_caps_is_empty (caps)) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "caps are %s; a tensor needs fixed %s caps.",
        gst_caps_is_any (caps) ? "ANY" : "EMPTY", GST_TN_MEDIA_TYPE);
    return FALSE;
  }
  n = gst_caps_get_size (caps);
  if (n != 1) {
    str = gst_caps_to_string (caps);
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "caps %s hold %u structures, not 1; a tensor needs fixed caps.", str,
        n);
    g_free (str);
    return FALSE;
  }
  if (gst_caps_is_fixed (caps))
    return TRUE;
  gst_structure_foreach (
      gst_caps_get_structure (caps, 0), find_unfixed, &field);
  str = gst_caps_to_string (caps);
  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "caps %s are not fixed: field %s has more than one value.", str,
      field ? field : "?");
  g_free (str);
  return FALSE;
}

static gboolean
check_name (const GstStructure *s, GError **err)
{
  if (gst_structure_has_name (s, GST_TN_MEDIA_TYPE))
    return TRUE;
  g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "media type '%s' is not %s.", gst_structure_get_name (s),
      GST_TN_MEDIA_TYPE);
  return FALSE;
}

gboolean
gst_tn_info_from_caps (GstTnInfo *info, const GstCaps *caps, GError **err)
{
  const GstStructure *s;
  const GValue *v;
  GstTnInfo out;
  size_t nbytes;
  tn_err e = { { 0 } };

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (!check_fixed (caps, err))
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!check_name (s, err))
    return FALSE;

  memset (&out, 0, sizeof out);
  v = gst_structure_get_value (s, "type");
  if (v == NULL) {
    gchar *valid = dtype_list ();

    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s has no type field; expected one of %s.", GST_TN_MEDIA_TYPE, valid);
    g_free (valid);
    return FALSE;
  }
  if (!G_VALUE_HOLDS_STRING (v)) {
    set_not_string (err, "type", v);
    return FALSE;
  }
  if (!parse_type (g_value_get_string (v), &out.dtype, err))
    return FALSE;

  if (!gst_tn_structure_get_dims (s, out.dims, &out.rank, err))
    return FALSE;

  /* Absent means the default, row-major. */
  v = gst_structure_get_value (s, "dims-order");
  if (v != NULL) {
    if (!G_VALUE_HOLDS_STRING (v)) {
      set_not_string (err, "dims-order", v);
      return FALSE;
    }
    if (!check_dims_order (g_value_get_string (v), err))
      return FALSE;
  }

  out.fps_n = 0;
  out.fps_d = 1;
  v = gst_structure_get_value (s, "framerate");
  if (v != NULL) {
    if (!GST_VALUE_HOLDS_FRACTION (v)) {
      gchar *str = gst_value_serialize (v);

      g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "framerate %s is a %s, not a fraction such as 30/1.", str ? str : "?",
          value_type_name (v));
      g_free (str);
      return FALSE;
    }
    out.fps_n = gst_value_get_fraction_numerator (v);
    out.fps_d = gst_value_get_fraction_denominator (v);
    if (out.fps_n < 0 || out.fps_d <= 0) {
      g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "framerate %d/%d is negative; it must be >= 0/1.", out.fps_n,
          out.fps_d);
      return FALSE;
    }
  }

  if (tn_shape_nbytes (
          out.dtype, (const int64_t *) out.dims, out.rank, &nbytes, &e)
      != 0) {
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "caps describe a tensor too large to address: %s.", e.msg);
    return FALSE;
  }

  *info = out;
  return TRUE;
}

GstCaps *
gst_tn_info_to_caps (const GstTnInfo *info)
{
  GstCaps *caps;
  GstStructure *s;

  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (tn_dtype_valid (info->dtype), NULL);

  caps = gst_caps_new_simple (GST_TN_MEDIA_TYPE, "type", G_TYPE_STRING,
      tn_dtype_name (info->dtype), NULL);
  s = gst_caps_get_structure (caps, 0);
  gst_tn_structure_set_dims (s, info->dims, info->rank);
  gst_structure_set (s, "dims-order", G_TYPE_STRING, "row-major", NULL);
  if (info->fps_d > 0)
    gst_structure_set (
        s, "framerate", GST_TYPE_FRACTION, info->fps_n, info->fps_d, NULL);
  return caps;
}

gboolean
gst_tn_info_size (const GstTnInfo *info, gsize *nbytes)
{
  size_t n;

  g_return_val_if_fail (info != NULL, FALSE);

  if (!tn_dtype_valid (info->dtype) || info->rank < 0
      || info->rank > TN_MAX_RANK)
    return FALSE;
  if (tn_shape_nbytes (
          info->dtype, (const int64_t *) info->dims, info->rank, &n, NULL)
      != 0)
    return FALSE;
  if (nbytes)
    *nbytes = n;
  return TRUE;
}

gboolean
gst_tn_info_equal (const GstTnInfo *a, const GstTnInfo *b)
{
  gint i;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a->dtype != b->dtype || a->rank != b->rank || a->fps_n != b->fps_n
      || a->fps_d != b->fps_d)
    return FALSE;
  if (a->rank < 0 || a->rank > TN_MAX_RANK)
    return FALSE;
  for (i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return FALSE;
  return TRUE;
}

gchar *
gst_tn_info_to_string (const GstTnInfo *info)
{
  gchar *dims, *ret;

  g_return_val_if_fail (info != NULL, NULL);

  if (!tn_dtype_valid (info->dtype) || info->rank < 0
      || info->rank > TN_MAX_RANK)
    return g_strdup_printf (
        "invalid tensor (dtype %d, rank %d)", (gint) info->dtype, info->rank);
  dims = format_dims (info->dims, info->rank);
  ret = g_strdup_printf ("%s %s", tn_dtype_name (info->dtype), dims);
  g_free (dims);
  return ret;
}

/* Only what is present and fixed can be wrong yet; the rank of a dims
 * array is known even when its entries are ranges. */
static gboolean
validate_structure (const GstStructure *s, GError **err)
{
  const GValue *v;
  tn_dtype t;

  if (!check_name (s, err))
    return FALSE;

  v = gst_structure_get_value (s, "type");
  if (v != NULL && gst_value_is_fixed (v)) {
    if (!G_VALUE_HOLDS_STRING (v)) {
      set_not_string (err, "type", v);
      return FALSE;
    }
    if (!parse_type (g_value_get_string (v), &t, err))
      return FALSE;
  }

  v = gst_structure_get_value (s, "dims");
  if (v != NULL) {
    if (GST_VALUE_HOLDS_ARRAY (v)) {
      if (!check_dims_array (v, FALSE, NULL, NULL, err))
        return FALSE;
    } else if (gst_value_is_fixed (v)) {
      set_dims_not_array (err, v);
      return FALSE;
    }
  }

  v = gst_structure_get_value (s, "dims-order");
  if (v != NULL && gst_value_is_fixed (v)) {
    if (!G_VALUE_HOLDS_STRING (v)) {
      set_not_string (err, "dims-order", v);
      return FALSE;
    }
    if (!check_dims_order (g_value_get_string (v), err))
      return FALSE;
  }

  v = gst_structure_get_value (s, "framerate");
  if (v != NULL && gst_value_is_fixed (v)) {
    gchar *str;

    if (GST_VALUE_HOLDS_FRACTION (v)
        && gst_value_get_fraction_numerator (v) >= 0)
      return TRUE;
    str = gst_value_serialize (v);
    g_set_error (err, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "framerate %s (a %s) is not a fraction >= 0/1.", str ? str : "?",
        value_type_name (v));
    g_free (str);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_tn_caps_validate (const GstCaps *caps, GError **err)
{
  guint i, n;

  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (gst_caps_is_any (caps))
    return TRUE;
  n = gst_caps_get_size (caps);
  for (i = 0; i < n; i++)
    if (!validate_structure (gst_caps_get_structure (caps, i), err))
      return FALSE;
  return TRUE;
}

/* The smallest extent >= 1 the range allows (1 itself for a plain range),
 * so an open extent does not make the tensor empty by accident; only a
 * range that allows nothing above 0 gives 0.  GStreamer keeps min and max
 * on the step grid. */
static gint
nearest_extent (const GValue *range)
{
  gint lo = gst_value_get_int_range_min (range);
  gint hi = gst_value_get_int_range_max (range);
  gint step = gst_value_get_int_range_step (range);
  gint64 k;

  if (lo >= 1)
    return lo;
  if (hi < 1)
    return hi;
  k = ((gint64) 1 - lo + step - 1) / step;
  return (gint) (lo + k * step);
}

static void
fixate_dims (GstStructure *s)
{
  const GValue *v = gst_structure_get_value (s, "dims");
  GValue fixed = G_VALUE_INIT;
  guint i, n;

  if (v == NULL) {
    gint64 one = 1;

    gst_tn_structure_set_dims (s, &one, 1);
    return;
  }
  if (gst_value_is_fixed (v))
    return;
  if (GST_VALUE_HOLDS_LIST (v) && gst_value_list_get_size (v) > 0)
    v = gst_value_list_get_value (v, 0);
  if (!GST_VALUE_HOLDS_ARRAY (v)) {
    /* Not dims we understand: let the generic fixation pick a value. */
    if (gst_value_fixate (&fixed, v))
      gst_structure_take_value (s, "dims", &fixed);
    return;
  }

  g_value_init (&fixed, GST_TYPE_ARRAY);
  n = gst_value_array_get_size (v);
  for (i = 0; i < n; i++) {
    const GValue *e = gst_value_array_get_value (v, i);
    GValue out = G_VALUE_INIT;

    if (GST_VALUE_HOLDS_INT_RANGE (e)) {
      g_value_init (&out, G_TYPE_INT);
      g_value_set_int (&out, nearest_extent (e));
    } else if (!gst_value_fixate (&out, e)) {
      g_value_init (&out, G_VALUE_TYPE (e));
      g_value_copy (e, &out);
    }
    gst_value_array_append_and_take_value (&fixed, &out);
  }
  gst_structure_take_value (s, "dims", &fixed);
}

GstCaps *
gst_tn_caps_fixate (GstCaps *caps)
{
  GstStructure *s;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  if (gst_caps_is_empty (caps))
    return caps;
  if (gst_caps_is_any (caps)) {
    gst_caps_unref (caps);
    caps = gst_caps_from_string (GST_TN_CAPS_ANY);
  }
  caps = gst_caps_truncate (caps);
  caps = gst_caps_make_writable (caps);
  s = gst_caps_get_structure (caps, 0);

  if (gst_structure_has_name (s, GST_TN_MEDIA_TYPE)) {
    if (!gst_structure_has_field (s, "type"))
      gst_structure_set (s, "type", G_TYPE_STRING, "float32", NULL);
    else
      gst_structure_fixate_field_string (s, "type", "float32");
    fixate_dims (s);
    if (!gst_structure_has_field (s, "dims-order"))
      gst_structure_set (s, "dims-order", G_TYPE_STRING, "row-major", NULL);
    else
      gst_structure_fixate_field_string (s, "dims-order", "row-major");
    /* An absent framerate stays absent: the stream has none. */
    if (gst_structure_has_field (s, "framerate"))
      gst_structure_fixate_field_nearest_fraction (s, "framerate", 30, 1);
  }
  return gst_caps_fixate (caps);
}

GstCaps *
gst_tn_caps_filter (GstCaps *caps, GstCaps *filter)
{
  GstCaps *res;

  if (filter == NULL)
    return caps;
  res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return res;
}
