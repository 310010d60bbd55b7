/* Views: making, checking and reshaping them; no operation here copies.
 * The copies are tn_view_materialize (view-copy.c) and
 * tn_view_materialize_flip (view-flip.c). */
#include "view.h"

#include <string.h>

static int
rank_ok (const tn_view *v, tn_err *e)
{
  if (v->rank < 0 || v->rank > TN_MAX_RANK) {
    tn_err_set (e, "rank %d is out of range: a tensor has rank 0 to %d",
        v->rank, TN_MAX_RANK);
    return -1;
  }
  return 0;
}

static int
norm_axis (int axis, int rank, int *out, tn_err *e)
{
  if (axis < -rank || axis >= rank) {
    tn_err_set (
        e, "axis %d is out of range for a tensor of rank %d", axis, rank);
    return -1;
  }
  *out = axis < 0 ? axis + rank : axis;
  return 0;
}

static int
dtype_ok (tn_dtype t, tn_err *e)
{
  if (!tn_dtype_valid (t)) {
    tn_err_set (e, "dtype %d is not one of the %d dtypes (0 to %d)", (int) t,
        (int) TN_NDTYPES, (int) TN_NDTYPES - 1);
    return -1;
  }
  return 0;
}

int
tn_view_init (tn_view *v, tn_dtype t, const int64_t *dims, int rank, tn_err *e)
{
  int64_t d[TN_MAX_RANK];

  if (dtype_ok (t, e) < 0 || tn_shape_count (dims, rank, NULL, e) < 0)
    return -1;
  /* dims may be v->dims itself (making a view dense in place): read them
   * before v is cleared. */
  if (rank)
    memcpy (d, dims, sizeof dims[0] * rank);
  memset (v, 0, sizeof *v);
  v->dtype = t;
  v->rank = rank;
  if (rank)
    memcpy (v->dims, d, sizeof d[0] * rank);
  tn_shape_strides (v->strides, v->dims, rank);
  return 0;
}

/* -1 when the view's rank or extents are invalid. */
int64_t
tn_view_count (const tn_view *v)
{
  int64_t n;

  if (tn_shape_count (v->dims, v->rank, &n, NULL) < 0)
    return -1;
  return n;
}

bool
tn_view_dense (const tn_view *v)
{
  int64_t n = tn_view_count (v), expect = 1;

  if (n < 0)
    return false;
  if (n == 0)
    return true;
  for (int i = v->rank - 1; i >= 0; i--) {
    if (v->dims[i] != 1 && v->strides[i] != expect)
      return false;
    expect *= v->dims[i]; /* bounded by n */
  }
  return true;
}

/* The view's extents and strides in words, for tn_view_check's messages:
 * formatted only for a message, since a view that fits (every buffer of
 * a stream) has no use for them. */
typedef struct {
  char dims[160], strides[160];
} shapes;

static void
shapes_of (shapes *w, const tn_view *v)
{
  tn_shape_format (w->dims, sizeof w->dims, v->dims, v->rank);
  tn_shape_format (w->strides, sizeof w->strides, v->strides, v->rank);
}

int
tn_view_check (const tn_view *v, int64_t storage_items, tn_err *e)
{
  int64_t n, reach;
  shapes w;

  if (dtype_ok (v->dtype, e) < 0 || rank_ok (v, e) < 0
      || tn_shape_count (v->dims, v->rank, &n, e) < 0)
    return -1;
  if (storage_items < 0) {
    tn_err_set (e,
        "a storage of %lld items is impossible; the size must be "
        "0 or more",
        (long long) storage_items);
    return -1;
  }
  if (v->offset < 0) {
    tn_err_set (e, "the view starts at item %lld; an offset must be 0 or more",
        (long long) v->offset);
    return -1;
  }
  for (int i = 0; i < v->rank; i++) {
    if (v->strides[i] < 0) {
      tn_err_set (e, "axis %d has stride %lld; strides must be 0 or more", i,
          (long long) v->strides[i]);
      return -1;
    }
  }
  if (n == 0) {
    if (v->offset > storage_items) {
      shapes_of (&w, v);
      tn_err_set (e,
          "the empty view %s starts at item %lld, past the end of "
          "a storage of %lld items",
          w.dims, (long long) v->offset, (long long) storage_items);
      return -1;
    }
    return 0;
  }
  reach = v->offset;
  for (int i = 0; i < v->rank; i++) {
    int64_t t;

    if (__builtin_mul_overflow (v->dims[i] - 1, v->strides[i], &t)
        || __builtin_add_overflow (reach, t, &reach)) {
      shapes_of (&w, v);
      tn_err_set (e,
          "view %s with strides %s at offset %lld reaches past "
          "item 2^63: the index overflows at axis %d",
          w.dims, w.strides, (long long) v->offset, i);
      return -1;
    }
  }
  if (reach >= storage_items) {
    shapes_of (&w, v);
    tn_err_set (e,
        "view %s with strides %s at offset %lld reaches item "
        "%lld, but the storage holds %lld items",
        w.dims, w.strides, (long long) v->offset, (long long) reach,
        (long long) storage_items);
    return -1;
  }
  return 0;
}

int
tn_view_permute (tn_view *v, const int *axes, int naxes, tn_err *e)
{
  int64_t dims[TN_MAX_RANK], strides[TN_MAX_RANK];
  int seen[TN_MAX_RANK];

  if (rank_ok (v, e) < 0)
    return -1;
  if (naxes != v->rank) {
    tn_err_set (e, "permute needs %d axes for a tensor of rank %d, got %d",
        v->rank, v->rank, naxes);
    return -1;
  }
  for (int i = 0; i < naxes; i++)
    seen[i] = 0;
  for (int i = 0; i < naxes; i++) {
    int a;

    if (norm_axis (axes[i], v->rank, &a, e) < 0)
      return -1;
    if (seen[a]++) {
      tn_err_set (e,
          "permute needs each of the %d axes once; axis %d "
          "appears twice",
          v->rank, a);
      return -1;
    }
    dims[i] = v->dims[a];
    strides[i] = v->strides[a];
  }
  for (int i = 0; i < naxes; i++) {
    v->dims[i] = dims[i];
    v->strides[i] = strides[i];
  }
  return 0;
}

int
tn_view_transpose (tn_view *v, tn_err *e)
{
  int axes[TN_MAX_RANK];

  if (rank_ok (v, e) < 0)
    return -1;
  if (v->rank < 2) {
    tn_err_set (e,
        "transpose swaps the last two axes and needs rank 2 or "
        "more; this tensor has rank %d",
        v->rank);
    return -1;
  }
  for (int i = 0; i < v->rank; i++)
    axes[i] = i;
  axes[v->rank - 2] = v->rank - 1;
  axes[v->rank - 1] = v->rank - 2;
  return tn_view_permute (v, axes, v->rank, e);
}

static int64_t
clamp_index (int64_t i, int64_t n)
{
  if (i < 0) {
    i += n; /* no overflow: n >= 0 */
    return i < 0 ? 0 : i;
  }
  return i > n ? n : i;
}

int
tn_view_slice (
    tn_view *v, int axis, int64_t start, int64_t stop, int64_t step, tn_err *e)
{
  int a;
  int64_t n, len, offset = v->offset, stride;

  if (rank_ok (v, e) < 0 || norm_axis (axis, v->rank, &a, e) < 0)
    return -1;
  if (step < 1) {
    tn_err_set (e, "slice step must be 1 or more, got %lld", (long long) step);
    return -1;
  }
  n = v->dims[a];
  stride = v->strides[a];
  start = clamp_index (start, n);
  stop = clamp_index (stop, n);
  len = stop > start ? (stop - start - 1) / step + 1 : 0;
  /* An empty result keeps its offset (start may be one past the end, or
   * another axis empty, so the storage may hold nothing) and a single item
   * keeps its stride: neither can then overflow or fail a check needlessly. */
  if (len > 0 && tn_view_count (v) > 0) {
    int64_t t;

    if (__builtin_mul_overflow (start, stride, &t)
        || __builtin_add_overflow (offset, t, &offset)) {
      tn_err_set (e,
          "slicing axis %d from index %lld overflows the offset "
          "%lld with stride %lld",
          a, (long long) start, (long long) v->offset, (long long) stride);
      return -1;
    }
  }
  if (len > 1 && __builtin_mul_overflow (stride, step, &stride)) {
    tn_err_set (e, "slicing axis %d with step %lld overflows its stride %lld",
        a, (long long) step, (long long) v->strides[a]);
    return -1;
  }
  v->dims[a] = len;
  v->strides[a] = stride;
  v->offset = offset;
  return 0;
}

int
tn_view_select (tn_view *v, int axis, int64_t index, tn_err *e)
{
  int a;
  int64_t n, i, t, offset;

  if (rank_ok (v, e) < 0 || norm_axis (axis, v->rank, &a, e) < 0)
    return -1;
  n = v->dims[a];
  if (index < -n || index >= n) {
    tn_err_set (e, "index %lld is out of range for axis %d of extent %lld",
        (long long) index, a, (long long) n);
    return -1;
  }
  i = index < 0 ? index + n : index;
  offset = v->offset;
  /* As in slice: an empty view keeps its offset. */
  if (tn_view_count (v) != 0
      && (__builtin_mul_overflow (i, v->strides[a], &t)
          || __builtin_add_overflow (offset, t, &offset))) {
    tn_err_set (e,
        "selecting index %lld of axis %d overflows the offset %lld "
        "with stride %lld",
        (long long) i, a, (long long) v->offset, (long long) v->strides[a]);
    return -1;
  }
  v->offset = offset;
  for (int k = a; k + 1 < v->rank; k++) {
    v->dims[k] = v->dims[k + 1];
    v->strides[k] = v->strides[k + 1];
  }
  v->rank--;
  v->dims[v->rank] = 0;
  v->strides[v->rank] = 0;
  return 0;
}

int
tn_view_reshape (tn_view *v, const int64_t *dims, int rank, tn_err *e)
{
  int64_t nd[TN_MAX_RANK], count, ncount;
  int infer = -1;
  char from[160], to[160];

  if (rank_ok (v, e) < 0)
    return -1;
  if (rank < 0 || rank > TN_MAX_RANK) {
    tn_err_set (e, "cannot reshape to rank %d: a tensor has rank 0 to %d", rank,
        TN_MAX_RANK);
    return -1;
  }
  count = tn_view_count (v);
  if (count < 0)
    return tn_shape_count (v->dims, v->rank, NULL, e);
  if (!tn_view_dense (v)) {
    char s[160];

    tn_shape_format (s, sizeof s, v->strides, v->rank);
    tn_err_set (e,
        "reshape needs a dense tensor; this view has strides %s: "
        "copy it first",
        s);
    return -1;
  }
  tn_shape_format (from, sizeof from, v->dims, v->rank);
  tn_shape_format (to, sizeof to, dims, rank);
  for (int i = 0; i < rank; i++) {
    nd[i] = dims[i];
    if (dims[i] == -1) {
      if (infer >= 0) {
        tn_err_set (e,
            "cannot reshape to %s: only one extent can be -1, "
            "and axes %d and %d both are",
            to, infer, i);
        return -1;
      }
      infer = i;
      nd[i] = 1;
    } else if (dims[i] < 0) {
      tn_err_set (e,
          "cannot reshape to %s: axis %d has extent %lld; extents "
          "must be 0 or more, or -1 for one inferred extent",
          to, i, (long long) dims[i]);
      return -1;
    }
  }
  if (infer >= 0) {
    int64_t known;

    if (tn_shape_count (nd, rank, &known, e) < 0)
      return -1;
    if (known == 0) {
      tn_err_set (e,
          "cannot reshape %s (%lld items) to %s: the -1 extent is "
          "ambiguous next to an extent of 0",
          from, (long long) count, to);
      return -1;
    }
    if (count % known) {
      tn_err_set (e,
          "cannot reshape %s (%lld items) to %s: %lld items do "
          "not split into groups of %lld",
          from, (long long) count, to, (long long) count, (long long) known);
      return -1;
    }
    nd[infer] = count / known;
  }
  if (tn_shape_count (nd, rank, &ncount, e) < 0)
    return -1;
  if (ncount != count) {
    tn_err_set (e, "cannot reshape %s (%lld items) to %s (%lld items)", from,
        (long long) count, to, (long long) ncount);
    return -1;
  }
  v->rank = rank;
  for (int i = 0; i < TN_MAX_RANK; i++)
    v->dims[i] = i < rank ? nd[i] : 0;
  memset (v->strides, 0, sizeof v->strides);
  tn_shape_strides (v->strides, v->dims, rank);
  return 0;
}

int
tn_view_expand (tn_view *v, int axis, tn_err *e)
{
  int a, r = v->rank;
  int64_t stride = 1;

  if (rank_ok (v, e) < 0)
    return -1;
  if (r == TN_MAX_RANK) {
    tn_err_set (e,
        "cannot add an axis to a tensor of rank %d, the largest "
        "rank",
        r);
    return -1;
  }
  if (axis < -(r + 1) || axis > r) {
    tn_err_set (e,
        "axis %d is out of range for inserting into a tensor of "
        "rank %d (-%d to %d)",
        axis, r, r + 1, r);
    return -1;
  }
  a = axis < 0 ? axis + r + 1 : axis;
  /* Any stride suits an extent of 1; pick the one a dense tensor has. */
  if (a < r && __builtin_mul_overflow (v->strides[a], v->dims[a], &stride))
    stride = 0;
  for (int k = r; k > a; k--) {
    v->dims[k] = v->dims[k - 1];
    v->strides[k] = v->strides[k - 1];
  }
  v->dims[a] = 1;
  v->strides[a] = stride;
  v->rank = r + 1;
  return 0;
}

int
tn_view_squeeze (tn_view *v, int axis, tn_err *e)
{
  int a;

  if (rank_ok (v, e) < 0 || norm_axis (axis, v->rank, &a, e) < 0)
    return -1;
  if (v->dims[a] != 1) {
    tn_err_set (e,
        "cannot squeeze axis %d of extent %lld; only an axis of "
        "extent 1 can be removed",
        a, (long long) v->dims[a]);
    return -1;
  }
  return tn_view_select (v, a, 0, e);
}

/* The shapes are formatted only here, on the way out: tensorcombine
 * broadcasts its operands' views for every buffer. */
static int
broadcast_err (
    const tn_view *v, const int64_t *dims, int rank, int axis, tn_err *e)
{
  char from[160], to[160];

  tn_shape_format (from, sizeof from, v->dims, v->rank);
  tn_shape_format (to, sizeof to, dims, rank);
  if (axis < 0)
    tn_err_set (e,
        "cannot broadcast %s to %s: the target has rank %d, "
        "below the tensor's rank %d",
        from, to, rank, v->rank);
  else
    tn_err_set (e,
        "cannot broadcast %s to %s: axis %d has %lld against "
        "%lld",
        from, to, axis, (long long) v->dims[axis - (rank - v->rank)],
        (long long) dims[axis]);
  return -1;
}

int
tn_view_broadcast (tn_view *v, const int64_t *dims, int rank, tn_err *e)
{
  int64_t strides[TN_MAX_RANK];

  if (rank_ok (v, e) < 0 || tn_shape_count (dims, rank, NULL, e) < 0)
    return -1;
  if (rank < v->rank)
    return broadcast_err (v, dims, rank, -1, e);
  for (int i = 0; i < rank; i++) {
    int j = i - (rank - v->rank);

    if (j < 0)
      strides[i] = 0;
    else if (v->dims[j] == dims[i])
      strides[i] = v->strides[j];
    else if (v->dims[j] == 1)
      strides[i] = 0;
    else
      return broadcast_err (v, dims, rank, i, e);
  }
  v->rank = rank;
  for (int i = 0; i < TN_MAX_RANK; i++) {
    v->dims[i] = i < rank ? dims[i] : 0;
    v->strides[i] = i < rank ? strides[i] : 0;
  }
  return 0;
}
