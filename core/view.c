#include "view.h"

#include <string.h>

#include "view-kern.h"

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

int
tn_view_check (const tn_view *v, int64_t storage_items, tn_err *e)
{
  int64_t n, reach;
  char sd[160], ss[160];

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
  tn_shape_format (sd, sizeof sd, v->dims, v->rank);
  tn_shape_format (ss, sizeof ss, v->strides, v->rank);
  if (n == 0) {
    if (v->offset > storage_items) {
      tn_err_set (e,
          "the empty view %s starts at item %lld, past the end of "
          "a storage of %lld items",
          sd, (long long) v->offset, (long long) storage_items);
      return -1;
    }
    return 0;
  }
  reach = v->offset;
  for (int i = 0; i < v->rank; i++) {
    int64_t t;

    if (__builtin_mul_overflow (v->dims[i] - 1, v->strides[i], &t)
        || __builtin_add_overflow (reach, t, &reach)) {
      tn_err_set (e,
          "view %s with strides %s at offset %lld reaches past "
          "item 2^63: the index overflows at axis %d",
          sd, ss, (long long) v->offset, i);
      return -1;
    }
  }
  if (reach >= storage_items) {
    tn_err_set (e,
        "view %s with strides %s at offset %lld reaches item "
        "%lld, but the storage holds %lld items",
        sd, ss, (long long) v->offset, (long long) reach,
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

int
tn_view_broadcast (tn_view *v, const int64_t *dims, int rank, tn_err *e)
{
  int64_t strides[TN_MAX_RANK];
  char from[160], to[160];

  if (rank_ok (v, e) < 0 || tn_shape_count (dims, rank, NULL, e) < 0)
    return -1;
  tn_shape_format (from, sizeof from, v->dims, v->rank);
  tn_shape_format (to, sizeof to, dims, rank);
  if (rank < v->rank) {
    tn_err_set (e,
        "cannot broadcast %s to %s: the target has rank %d, "
        "below the tensor's rank %d",
        from, to, rank, v->rank);
    return -1;
  }
  for (int i = 0; i < rank; i++) {
    int j = i - (rank - v->rank);

    if (j < 0) {
      strides[i] = 0;
    } else if (v->dims[j] == dims[i]) {
      strides[i] = v->strides[j];
    } else if (v->dims[j] == 1) {
      strides[i] = 0;
    } else {
      tn_err_set (e,
          "cannot broadcast %s to %s: axis %d has %lld against "
          "%lld",
          from, to, i, (long long) v->dims[j], (long long) dims[i]);
      return -1;
    }
  }
  v->rank = rank;
  for (int i = 0; i < TN_MAX_RANK; i++) {
    v->dims[i] = i < rank ? dims[i] : 0;
    v->strides[i] = i < rank ? strides[i] : 0;
  }
  return 0;
}

/* ---- materialize ---- */

/* Axes in bytes, after dropping extents of 1 and merging axes that chain. */
typedef struct {
  int rank;
  int64_t dims[TN_MAX_RANK];
  int64_t src[TN_MAX_RANK];
  int64_t dst[TN_MAX_RANK];
} plan;

/* An odometer over a subset of the plan's axes: no division per step. */
typedef struct {
  int n;
  int64_t idx[TN_MAX_RANK], dims[TN_MAX_RANK];
  int64_t sstep[TN_MAX_RANK], dstep[TN_MAX_RANK];
} odo;

static void
odo_init (odo *o, const plan *p, const int *axes, int n)
{
  o->n = n;
  for (int i = 0; i < n; i++) {
    o->idx[i] = 0;
    o->dims[i] = p->dims[axes[i]];
    o->sstep[i] = p->src[axes[i]];
    o->dstep[i] = p->dst[axes[i]];
  }
}

static inline bool
odo_next (odo *o, const char **s, char **d)
{
  for (int i = o->n - 1; i >= 0; i--) {
    if (++o->idx[i] < o->dims[i]) {
      *s += o->sstep[i];
      *d += o->dstep[i];
      return true;
    }
    o->idx[i] = 0;
    *s -= (o->dims[i] - 1) * o->sstep[i];
    *d -= (o->dims[i] - 1) * o->dstep[i];
  }
  return false;
}

/* Per item size, not per dtype: a copy moves bits. memcpy of a constant
 * size compiles to one load and one store and tolerates any alignment. */
#define DEFINE_ROW(S, T)                                                       \
  static void row_##S (char *d, const char *s, int64_t n, int64_t ss)          \
  {                                                                            \
    for (int64_t j = 0; j < n; j++) {                                          \
      T x;                                                                     \
      memcpy (&x, s, S);                                                       \
      memcpy (d, &x, S);                                                       \
      d += S;                                                                  \
      s += ss;                                                                 \
    }                                                                          \
  }

DEFINE_ROW (1, uint8_t)
DEFINE_ROW (2, uint16_t)
DEFINE_ROW (4, uint32_t)
DEFINE_ROW (8, uint64_t)

static void
row_copy (size_t isz, char *d, const char *s, int64_t n, int64_t ss)
{
  switch (isz) {
  case 1:
    row_1 (d, s, n, ss);
    break;
  case 2:
    row_2 (d, s, n, ss);
    break;
  case 4:
    row_4 (d, s, n, ss);
    break;
  case 8:
    row_8 (d, s, n, ss);
    break;
  default:
    for (int64_t j = 0; j < n; j++)
      memcpy (d + j * isz, s + j * ss, isz);
  }
}

/* A pair of axes (k, l), l innermost in the destination: nk destination
 * rows of nl items at byte pitch dk; source byte strides sk and sl.
 *
 * Portable path: square tiles, so that the source lines a tile reads
 * along l stay cached while its rows k are walked. */
#define SCALAR_TILE 32

static void
tile_scalar (size_t isz, char *d, int64_t dk, const char *s, int64_t sk,
    int64_t sl, int64_t nk, int64_t nl)
{
  for (int64_t k0 = 0; k0 < nk; k0 += SCALAR_TILE) {
    int64_t ke = nk - k0 < SCALAR_TILE ? nk : k0 + SCALAR_TILE;

    for (int64_t l0 = 0; l0 < nl; l0 += SCALAR_TILE) {
      int64_t le = nl - l0 < SCALAR_TILE ? nl - l0 : SCALAR_TILE;

      for (int64_t k = k0; k < ke; k++)
        row_copy (
            isz, d + k * dk + l0 * (int64_t) isz, s + k * sk + l0 * sl, le, sl);
    }
  }
}

#ifdef __SSE2__
#include <emmintrin.h>

/* One 16-byte register holds V = 16 / S items. A V x V block is loaded
 * as V registers along k (the source is contiguous there), transposed by
 * log2 (V) rounds of interleaves of doubling width, and stored as V
 * registers along l. */
static inline __attribute__ ((always_inline)) __m128i
interleave (__m128i a, __m128i b, int width, int hi)
{
  switch (width) {
  case 1:
    return hi ? _mm_unpackhi_epi8 (a, b) : _mm_unpacklo_epi8 (a, b);
  case 2:
    return hi ? _mm_unpackhi_epi16 (a, b) : _mm_unpacklo_epi16 (a, b);
  case 4:
    return hi ? _mm_unpackhi_epi32 (a, b) : _mm_unpacklo_epi32 (a, b);
  default:
    return hi ? _mm_unpackhi_epi64 (a, b) : _mm_unpacklo_epi64 (a, b);
  }
}

/* After the rounds, register i holds column bitreverse (i). */
static const uint8_t bitrev[5][16] = {
  { 0 },
  { 0, 1 },
  { 0, 2, 1, 3 },
  { 0, 4, 2, 6, 1, 5, 3, 7 },
  { 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15 },
};

static inline __attribute__ ((always_inline)) void
block_simd (char *d, int64_t dk, const char *s, int64_t sl, const int S)
{
  const int V = 16 / S, lg = S == 1 ? 4 : S == 2 ? 3 : S == 4 ? 2 : 1;
  __m128i r[16], x[16];

#pragma GCC unroll 16
  for (int l = 0; l < V; l++)
    r[l] = _mm_loadu_si128 ((const __m128i *) (s + l * sl));
#pragma GCC unroll 4
  for (int w = S; w < 16; w *= 2) {
#pragma GCC unroll 8
    for (int i = 0; i < V / 2; i++) {
      x[i] = interleave (r[2 * i], r[2 * i + 1], w, 0);
      x[i + V / 2] = interleave (r[2 * i], r[2 * i + 1], w, 1);
    }
#pragma GCC unroll 16
    for (int i = 0; i < V; i++)
      r[i] = x[i];
  }
#pragma GCC unroll 16
  for (int k = 0; k < V; k++)
    _mm_storeu_si128 ((__m128i *) (d + k * dk), r[bitrev[lg][k]]);
}

/* Rows l walked per band: the band's source pages stay in the TLB while
 * its k columns are swept; measured best of 64/128/256/512 on a 2048^2
 * transpose for every item size. A multiple of the largest B (64). */
#define SIMD_BAND 128

/* Blocks of one cache line by one cache line (B = 64 / S items square):
 * each source line is read whole, once, and each destination line written
 * whole, once. A block is transposed into a small buffer first: rows a
 * power-of-two pitch apart share an L1 set, so destination lines filled
 * piecemeal in place would be evicted between visits. The next block's
 * source lines, a column the hardware prefetcher does not follow, are
 * prefetched. Outputs too large to stay cached are written with streaming
 * stores (when aligned), as memcpy does for large copies. */
#define DEFINE_TILE_SIMD(S)                                                    \
  static void tile_simd_##S (char *d, int64_t dk, const char *s, int64_t sl,   \
      int64_t nk, int64_t nl, bool stream)                                     \
  {                                                                            \
    enum { V = 16 / S, B = 64 / S };                                           \
    __m128i buf[B * 4];                                                        \
    char *bp = (char *) buf;                                                   \
    for (int64_t l1 = 0; l1 < nl; l1 += SIMD_BAND) {                           \
      int64_t le = nl - l1 < SIMD_BAND ? nl : l1 + SIMD_BAND;                  \
      for (int64_t k0 = 0; k0 < nk; k0 += B) {                                 \
        int64_t kn = nk - k0 < B ? nk - k0 : B, l0 = l1;                       \
        for (; kn == B && l0 + B <= le; l0 += B) {                             \
          const char *sb = s + k0 * S + l0 * sl;                               \
          char *db = d + k0 * dk + l0 * S;                                     \
          if (l0 + 2 * B <= le)                                                \
            for (int l = 0; l < B; l++)                                        \
              __builtin_prefetch (sb + (B + l) * sl);                          \
          for (int l = 0; l < B; l += V)                                       \
            for (int k = 0; k < B; k += V)                                     \
              block_simd (                                                     \
                  bp + k * 64 + l * S, 64, sb + k * S + l * sl, sl, S);        \
          for (int k = 0; k < B; k++) {                                        \
            __m128i *o = (__m128i *) (db + k * dk);                            \
            if (stream)                                                        \
              for (int q = 0; q < 4; q++)                                      \
                _mm_stream_si128 (o + q, buf[k * 4 + q]);                      \
            else                                                               \
              for (int q = 0; q < 4; q++)                                      \
                _mm_storeu_si128 (o + q, buf[k * 4 + q]);                      \
          }                                                                    \
        }                                                                      \
        if (l0 < le)                                                           \
          for (int64_t k = k0; k < k0 + kn; k++)                               \
            row_##S (d + k * dk + l0 * S, s + k * S + l0 * sl, le - l0, sl);   \
      }                                                                        \
    }                                                                          \
  }

DEFINE_TILE_SIMD (1)
DEFINE_TILE_SIMD (2)
DEFINE_TILE_SIMD (4)
DEFINE_TILE_SIMD (8)
#endif

/* Outputs from this size on are streamed past the caches (about half of
 * a common L3; glibc's memcpy switches near 3/4 of it). */
#define STREAM_BYTES ((size_t) 4 << 20)

static void
tile_copy (size_t isz, char *d, int64_t dk, const char *s, int64_t sk,
    int64_t sl, int64_t nk, int64_t nl, bool stream)
{
#ifdef __SSE2__
  if (sk == (int64_t) isz) {
    switch (isz) {
    case 1:
      tile_simd_1 (d, dk, s, sl, nk, nl, stream);
      return;
    case 2:
      tile_simd_2 (d, dk, s, sl, nk, nl, stream);
      return;
    case 4:
      tile_simd_4 (d, dk, s, sl, nk, nl, stream);
      return;
    case 8:
      tile_simd_8 (d, dk, s, sl, nk, nl, stream);
      return;
    }
  }
#else
  (void) stream;
#endif
  tile_scalar (isz, d, dk, s, sk, sl, nk, nl);
}

static void
make_plan (plan *p, const tn_view *v, size_t isz)
{
  int r = 0;
  int64_t dst = (int64_t) isz;

  /* Walk inner to outer, fusing an axis into the one inside it when its
   * stride is that axis's whole span: the fused axis is then one longer
   * run with the inner stride. The destination is dense and always fuses. */
  for (int i = v->rank - 1; i >= 0; i--) {
    int64_t n = v->dims[i], s, span;

    /* An axis of extent 1 may carry any stride, even one that would
     * overflow here; it moves nothing. */
    if (n == 1)
      continue;
    s = v->strides[i] * (int64_t) isz;
    if (r > 0 && !__builtin_mul_overflow (p->src[r - 1], p->dims[r - 1], &span)
        && s == span) {
      p->dims[r - 1] *= n;
    } else {
      p->dims[r] = n;
      p->src[r] = s;
      r++;
    }
  }
  /* Reverse into outermost-first order and lay out the destination. */
  for (int i = 0; i < r / 2; i++) {
    int64_t t = p->dims[i];

    p->dims[i] = p->dims[r - 1 - i];
    p->dims[r - 1 - i] = t;
    t = p->src[i];
    p->src[i] = p->src[r - 1 - i];
    p->src[r - 1 - i] = t;
  }
  for (int i = r - 1; i >= 0; i--) {
    p->dst[i] = dst;
    dst *= p->dims[i];
  }
  p->rank = r;
}

/* The innermost axis steps a few items at a time (less than a cache
 * line, so the tiles never apply), or holds a few items whose source axis
 * one further out is contiguous.  Deinterleave: read rows of c items
 * once, writing every axis of the view that picks items within a row (the
 * channels of HWC -> CHW) at the same time.  Interleave: the inverse, c
 * planes read side by side.  When both apply, the longer runs win.  Out
 * of line: inlined, it changed the code of the tiled loops below (0.1%
 * more instructions on a transpose). */
static __attribute__ ((noinline)) bool
materialize_kern (const plan *p, size_t isz, char *d, const char *s)
{
  int last = p->rank - 1, k = -1, axes[TN_MAX_RANK], n = 0;
  int64_t sl = p->src[last], cde = 0, cin = 0, pitch, len;
  tn_vk kern;
  odo o;

  /* Both kernels write rows forwards; interleave also writes its rows of
   * c items one after the other.  A plan of tn_view_materialize always
   * has that; one of tn_view_materialize_flip (destination steps that
   * may be negative) is checked. */
  if ((isz != 1 && isz != 2 && isz != 4 && isz != 8)
      || p->dst[last] != (int64_t) isz)
    return false;
  /* sl is a multiple of isz and not isz itself (the memcpy runs). */
  if (sl > 0 && sl < 64)
    cde = sl / (int64_t) isz;
  if (last >= 1 && p->src[last - 1] == (int64_t) isz
      && p->dims[last] <= TN_VK_MAX_C && p->dims[last] * (int64_t) isz < 64
      && p->dst[last - 1] == p->dims[last] * (int64_t) isz)
    cin = p->dims[last];
  if (cde && (!cin || p->dims[last] >= p->dims[last - 1])) {
    for (int i = 0; i < last && k < 0; i++)
      if (p->src[i] == (int64_t) isz && p->dims[i] <= cde)
        k = i;
    tn_vk_deint_prepare (&kern, isz, (int) cde, k >= 0 ? (int) p->dims[k] : 1);
    pitch = k >= 0 ? p->dst[k] : 0;
    len = p->dims[last];
    for (int i = 0; i < last; i++)
      if (i != k)
        axes[n++] = i;
  } else if (cin) {
    tn_vk_inter_prepare (&kern, isz, (int) cin);
    pitch = sl;
    len = p->dims[last - 1];
    for (int i = 0; i < last - 1; i++)
      axes[n++] = i;
  } else {
    return false;
  }
  odo_init (&o, p, axes, n);
  do
    kern.fn (&kern, d, pitch, s, len);
  while (odo_next (&o, &s, &d));
  return true;
}

void
tn_view_materialize (void *dst, const void *base, const tn_view *v)
{
  size_t isz = tn_dtype_size (v->dtype);
  const char *s;
  char *d = dst;
  int axes[TN_MAX_RANK], n = 0, last, k;
  plan p;
  odo o;

  if (!isz || tn_view_count (v) <= 0)
    return;
  s = (const char *) base + v->offset * (int64_t) isz;
  make_plan (&p, v, isz);
  if (p.rank == 0) {
    memcpy (d, s, isz);
    return;
  }
  last = p.rank - 1;

  if (p.src[last] == (int64_t) isz) {
    size_t run = (size_t) p.dims[last] * isz;

    for (int i = 0; i < last; i++)
      axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      memcpy (d, s, run);
    while (odo_next (&o, &s, &d));
    return;
  }

  if (materialize_kern (&p, isz, d, s))
    return;

  /* The innermost axis is strided. When each of its items sits on its own
   * cache line and an outer axis steps through memory more finely, copy
   * that pair of axes in tiles so both sides stay in cache. */
  k = -1;
  if (p.src[last] >= 64) {
    for (int i = 0; i < last; i++)
      if (p.src[i] < p.src[last] && (k < 0 || p.src[i] <= p.src[k]))
        k = i;
  }
  if (k >= 0) {
    size_t total = (size_t) tn_view_count (v) * isz;
    /* Streaming stores need every destination row 16-byte aligned: the
     * start, the row pitch and each step of the outer walk. */
    bool stream = total >= STREAM_BYTES && (uintptr_t) d % 16 == 0;

    for (int i = 0; i < last; i++)
      stream = stream && p.dst[i] % 16 == 0;

    for (int i = 0; i < last; i++)
      if (i != k)
        axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      tile_copy (isz, d, p.dst[k], s, p.src[k], p.src[last], p.dims[k],
          p.dims[last], stream);
    while (odo_next (&o, &s, &d));
#ifdef __SSE2__
    if (stream)
      _mm_sfence ();
#endif
    return;
  }

  for (int i = 0; i < last; i++)
    axes[n++] = i;
  odo_init (&o, &p, axes, n);
  do
    row_copy (isz, d, s, p.dims[last], p.src[last]);
  while (odo_next (&o, &s, &d));
}

/* ---- materialize with axes reversed ---- */

uint32_t
tn_view_flip_mask (const tn_view *v, uint32_t flip)
{
  uint32_t m = 0;

  if (tn_view_count (v) <= 0)
    return 0;
  for (int i = 0; i < v->rank; i++)
    if ((flip >> i & 1) && v->dims[i] > 1 && v->strides[i] != 0)
      m |= 1u << i;
  return m;
}

/* The plan of a copy into a dense destination whose reversed axes are
 * walked backwards: a negative destination step, starting from the last
 * item of the axis.  The source is read forwards, so contiguous source
 * runs stay runs.  Two neighbouring axes fuse when they chain in the
 * source and are reversed alike (the destination always chains).
 * Returns where item 0 of the source goes. */
static char *
make_flip_plan (plan *p, const tn_view *v, uint32_t flip, size_t isz, char *d)
{
  int64_t dense[TN_MAX_RANK], acc = (int64_t) isz;
  int r = 0;

  for (int i = v->rank - 1; i >= 0; i--) {
    dense[i] = acc;
    acc *= v->dims[i]; /* bounded by the item count */
  }
  /* Outer to inner: an axis fuses into the one outside it, which then
   * takes its steps, when the outer one's source step spans it. */
  for (int i = 0; i < v->rank; i++) {
    int64_t n = v->dims[i], s = v->strides[i] * (int64_t) isz, span;
    bool rev = flip >> i & 1;
    int64_t ds = rev ? -dense[i] : dense[i];

    if (n == 1)
      continue;
    if (rev)
      d += (n - 1) * dense[i];
    if (r > 0 && !__builtin_mul_overflow (s, n, &span) && p->src[r - 1] == span
        && (ds < 0) == (p->dst[r - 1] < 0)) {
      p->dims[r - 1] *= n;
      p->src[r - 1] = s;
      p->dst[r - 1] = ds;
    } else {
      p->dims[r] = n;
      p->src[r] = s;
      p->dst[r] = ds;
      r++;
    }
  }
  p->rank = r;
  return d;
}

/* n blocks of G bytes, contiguous in the source, in reverse order: block
 * j goes to d - j * G (a mirror of an HWC image: G is one pixel).  A
 * constant G makes each memcpy a load and a store. */
#define DEFINE_REV_BLOCKS(G)                                                   \
  static void rev_blocks_##G (char *d, const char *s, int64_t n)               \
  {                                                                            \
    for (int64_t j = 0; j < n; j++, d -= G, s += G)                            \
      memcpy (d, s, G);                                                        \
  }

DEFINE_REV_BLOCKS (1)
DEFINE_REV_BLOCKS (2)
DEFINE_REV_BLOCKS (3)
DEFINE_REV_BLOCKS (4)
DEFINE_REV_BLOCKS (6)
DEFINE_REV_BLOCKS (8)
DEFINE_REV_BLOCKS (12)
DEFINE_REV_BLOCKS (16)
DEFINE_REV_BLOCKS (24)
DEFINE_REV_BLOCKS (32)

/* Mirrored blocks of G bytes with SSSE3, G in 2, 3, 4, 6, 8, 12 (pixels
 * of 2 to 4 channels): a chunk of L bytes (48 when 3 divides G, else 16)
 * holds L / G whole blocks; each destination vector of the chunk is the OR
 * of one byte shuffle per source vector, which puts the bytes of the
 * blocks it wants, reversed, in place and zeroes the rest.  Chunks go to
 * the mirrored place; what does not fill a chunk is left to the scalar
 * loop.  The masks depend on G only: built once per copy. */
typedef struct {
  int64_t g;
  int simd; /* 0, or the vectors per chunk: 1 or 3 */
  int nb;   /* blocks per chunk */
  _Alignas(16) uint8_t mask[3][3][16];
} rev_blocks_kern;

static void
rev_blocks_prepare (rev_blocks_kern *k, int64_t g)
{
  k->g = g;
  k->simd = 0;
#if defined(__x86_64__) || defined(__i386__)
  if ((g == 2 || g == 3 || g == 4 || g == 6 || g == 8 || g == 12)
      && __builtin_cpu_supports ("ssse3")) {
    const int L = g % 3 == 0 ? 48 : 16, V = L / 16;

    k->simd = V;
    k->nb = L / (int) g;
    for (int v = 0; v < V; v++)
      for (int u = 0; u < V; u++)
        for (int j = 0; j < 16; j++) {
          int q = (16 * v + j) / (int) g, t = (16 * v + j) % (int) g;
          int sb = (k->nb - 1 - q) * (int) g + t;

          k->mask[v][u][j] = sb / 16 == u ? (uint8_t) (sb % 16) : 0x80;
        }
  }
#endif
}

#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>

static inline __attribute__ ((always_inline, target ("ssse3"))) void
rev_chunk (const rev_blocks_kern *k, char *dc, const char *sc, const int V)
{
  __m128i x[3];

  for (int u = 0; u < V; u++)
    x[u] = _mm_loadu_si128 ((const __m128i *) (sc + 16 * u));
  for (int v = 0; v < V; v++) {
    __m128i acc = _mm_shuffle_epi8 (
        x[0], _mm_load_si128 ((const __m128i *) k->mask[v][0]));

    for (int u = 1; u < V; u++)
      acc = _mm_or_si128 (
          acc, _mm_shuffle_epi8 (
                   x[u], _mm_load_si128 ((const __m128i *) k->mask[v][u])));
    _mm_storeu_si128 ((__m128i *) (dc + 16 * v), acc);
  }
}

/* Returns the blocks done. */
static __attribute__ ((target ("ssse3"))) int64_t
rev_blocks_ssse3 (const rev_blocks_kern *k, char *d, const char *s, int64_t n)
{
  const int64_t nb = k->nb, nc = n / nb, g = k->g;

  if (k->simd == 1)
    for (int64_t c = 0; c < nc; c++)
      rev_chunk (k, d - ((c + 1) * nb - 1) * g, s + c * 16, 1);
  else
    for (int64_t c = 0; c < nc; c++)
      rev_chunk (k, d - ((c + 1) * nb - 1) * g, s + c * 48, 3);
  return nc * nb;
}
#endif

static void
rev_blocks (const rev_blocks_kern *k, char *d, const char *s, int64_t n)
{
  const int64_t g = k->g;

#if defined(__x86_64__) || defined(__i386__)
  if (k->simd) {
    int64_t done = rev_blocks_ssse3 (k, d, s, n);

    d -= done * g;
    s += done * g;
    n -= done;
  }
#endif
  switch (g) {
  case 1:
    rev_blocks_1 (d, s, n);
    return;
  case 2:
    rev_blocks_2 (d, s, n);
    return;
  case 3:
    rev_blocks_3 (d, s, n);
    return;
  case 4:
    rev_blocks_4 (d, s, n);
    return;
  case 6:
    rev_blocks_6 (d, s, n);
    return;
  case 8:
    rev_blocks_8 (d, s, n);
    return;
  case 12:
    rev_blocks_12 (d, s, n);
    return;
  case 16:
    rev_blocks_16 (d, s, n);
    return;
  case 24:
    rev_blocks_24 (d, s, n);
    return;
  case 32:
    rev_blocks_32 (d, s, n);
    return;
  }
  for (int64_t j = 0; j < n; j++, d -= g, s += g)
    memcpy (d, s, (size_t) g);
}

/* n groups of C items of S bytes, contiguous on both sides, each with its
 * items reversed and the groups in order (RGB <-> BGR: C = 3).  d is the
 * first byte of the first destination group. */
#define DEFINE_REV_GROUPS(S, T, C)                                             \
  static void rev_groups_##S##_##C (char *d, const char *s, int64_t n)         \
  {                                                                            \
    for (int64_t j = 0; j < n; j++, d += C * S, s += C * S)                    \
      for (int q = 0; q < C; q++) {                                            \
        T x;                                                                   \
        memcpy (&x, s + (C - 1 - q) * S, S);                                   \
        memcpy (d + q * S, &x, S);                                             \
      }                                                                        \
  }

#define DEFINE_REV_GROUPS_C(S, T)                                              \
  DEFINE_REV_GROUPS (S, T, 2)                                                  \
  DEFINE_REV_GROUPS (S, T, 3)                                                  \
  DEFINE_REV_GROUPS (S, T, 4)

DEFINE_REV_GROUPS_C (1, uint8_t)
DEFINE_REV_GROUPS_C (2, uint16_t)
DEFINE_REV_GROUPS_C (4, uint32_t)
DEFINE_REV_GROUPS_C (8, uint64_t)

#ifdef __SSE2__
/* Three items reversed in every group of three: item j of the output is
 * item j + 2 - 2 (j % 3) of the input, so each output vector is a blend
 * of the input vectors 2 items ahead, level and 2 items behind.  48 bytes
 * hold a whole number of groups for every item size, so the blend masks
 * repeat every three vectors.  The first 48 bytes and what is left at the
 * end (whose loads would reach outside the run) go the scalar way.
 * Returns the groups done. */
static int64_t
rev3_sse2 (size_t isz, char *d, const char *s, int64_t n)
{
  const int64_t total = n * 3 * (int64_t) isz, o2 = 2 * (int64_t) isz;
  __m128i m[3][3];
  int64_t o;

  if (total < 96 + o2)
    return 0;
  for (int v = 0; v < 3; v++) {
    uint8_t b[3][16];

    for (int k = 0; k < 16; k++) {
      int r = (int) ((16 * v + k) / (int) isz % 3);

      for (int q = 0; q < 3; q++)
        b[q][k] = q == r ? 0xff : 0;
    }
    for (int q = 0; q < 3; q++)
      m[v][q] = _mm_loadu_si128 ((const __m128i *) b[q]);
  }
  for (o = 48; o + 48 + o2 <= total; o += 48)
    for (int v = 0; v < 3; v++) {
      const char *p = s + o + 16 * v;
      __m128i a = _mm_loadu_si128 ((const __m128i *) (p + o2));
      __m128i b = _mm_loadu_si128 ((const __m128i *) p);
      __m128i c = _mm_loadu_si128 ((const __m128i *) (p - o2));

      _mm_storeu_si128 ((__m128i *) (d + o + 16 * v),
          _mm_or_si128 (_mm_and_si128 (a, m[v][0]),
              _mm_or_si128 (
                  _mm_and_si128 (b, m[v][1]), _mm_and_si128 (c, m[v][2]))));
    }
  return o / (3 * (int64_t) isz);
}
#endif

static void
rev_groups (size_t isz, int64_t c, char *d, const char *s, int64_t n)
{
#define REV_GROUPS_CASE(S)                                                     \
  case S:                                                                      \
    if (c == 2) {                                                              \
      rev_groups_##S##_2 (d, s, n);                                            \
      return;                                                                  \
    }                                                                          \
    if (c == 3) {                                                              \
      rev_groups_##S##_3 (d + g3 * 3 * S, s + g3 * 3 * S, n - g3);             \
      if (g3 > 0)                                                              \
        rev_groups_##S##_3 (d, s, 48 / (3 * S));                               \
      return;                                                                  \
    }                                                                          \
    if (c == 4) {                                                              \
      rev_groups_##S##_4 (d, s, n);                                            \
      return;                                                                  \
    }                                                                          \
    break;

  int64_t g3 = 0;

#ifdef __SSE2__
  if (c == 3)
    g3 = rev3_sse2 (isz, d, s, n);
#endif
  switch (isz) {
    REV_GROUPS_CASE (1)
    REV_GROUPS_CASE (2)
    REV_GROUPS_CASE (4)
    REV_GROUPS_CASE (8)
  }
#undef REV_GROUPS_CASE
  for (int64_t j = 0; j < n; j++)
    for (int64_t q = 0; q < c; q++)
      memcpy (d + (j * c + q) * (int64_t) isz,
          s + (j * c + c - 1 - q) * (int64_t) isz, isz);
}

/* A run of n items reversed: item j of s goes to item n - 1 - j of d (d
 * is the lowest destination byte).  SSE2 reverses 16 bytes at a time:
 * 32-bit lanes by one shuffle, then 16-bit halves and bytes within them
 * as the item size needs. */
#ifdef __SSE2__
static inline __attribute__ ((always_inline)) __m128i
rev16 (__m128i x, size_t isz)
{
  if (isz == 8)
    return _mm_shuffle_epi32 (x, 0x4e);
  x = _mm_shuffle_epi32 (x, 0x1b);
  if (isz == 4)
    return x;
  x = _mm_shufflehi_epi16 (_mm_shufflelo_epi16 (x, 0xb1), 0xb1);
  if (isz == 2)
    return x;
  return _mm_or_si128 (_mm_slli_epi16 (x, 8), _mm_srli_epi16 (x, 8));
}
#endif

#define DEFINE_REV_RUN(S, T)                                                   \
  static void rev_run_##S (char *d, const char *s, int64_t n)                  \
  {                                                                            \
    int64_t j = 0;                                                             \
    REV_RUN_SIMD (S)                                                           \
    for (; j < n; j++) {                                                       \
      T x;                                                                     \
      memcpy (&x, s + j * S, S);                                               \
      memcpy (d + (n - 1 - j) * S, &x, S);                                     \
    }                                                                          \
  }

#ifdef __SSE2__
#define REV_RUN_SIMD(S)                                                        \
  for (; j + 16 / S <= n; j += 16 / S)                                         \
    _mm_storeu_si128 ((__m128i *) (d + (n - j) * S - 16),                      \
        rev16 (_mm_loadu_si128 ((const __m128i *) (s + j * S)), S));
#else
#define REV_RUN_SIMD(S)
#endif

DEFINE_REV_RUN (1, uint8_t)
DEFINE_REV_RUN (2, uint16_t)
DEFINE_REV_RUN (4, uint32_t)
DEFINE_REV_RUN (8, uint64_t)
#undef REV_RUN_SIMD

static void
rev_run (size_t isz, char *d, const char *s, int64_t n)
{
  switch (isz) {
  case 1:
    rev_run_1 (d, s, n);
    return;
  case 2:
    rev_run_2 (d, s, n);
    return;
  case 4:
    rev_run_4 (d, s, n);
    return;
  case 8:
    rev_run_8 (d, s, n);
    return;
  }
  for (int64_t j = 0; j < n; j++)
    memcpy (d + (n - 1 - j) * (int64_t) isz, s + j * (int64_t) isz, isz);
}

/* Any other innermost axis: item by item, the destination step signed. */
static void
row_signed (
    size_t isz, char *d, int64_t ds, const char *s, int64_t ss, int64_t n)
{
  for (int64_t j = 0; j < n; j++, d += ds, s += ss)
    memcpy (d, s, isz);
}

void
tn_view_materialize_flip (
    void *dst, const void *base, const tn_view *v, uint32_t flip)
{
  size_t isz = tn_dtype_size (v->dtype);
  const int64_t is = (int64_t) isz;
  const char *s;
  char *d;
  int axes[TN_MAX_RANK], n = 0, last, k;
  int64_t nl, sl, dl, g;
  plan p;
  odo o;

  flip = tn_view_flip_mask (v, flip);
  if (flip == 0) {
    tn_view_materialize (dst, base, v);
    return;
  }
  /* A reversed axis has 2 items or more, so the plan has an axis. */
  s = (const char *) base + v->offset * is;
  d = make_flip_plan (&p, v, flip, isz, dst);
  if (p.rank == 0) {
    memcpy (dst, s, isz); /* unreachable, but the compiler cannot tell */
    return;
  }
  last = p.rank - 1;
  nl = p.dims[last];
  sl = p.src[last];
  dl = p.dst[last];
  g = nl * is;
  k = last - 1;

  if (sl == is && dl == is) {
    if (k >= 0 && g <= 32 && p.src[k] == g && p.dst[k] == -g) {
      /* Small contiguous blocks in reverse order: a mirror of pixels. */
      rev_blocks_kern kern;

      rev_blocks_prepare (&kern, g);
      for (int i = 0; i < k; i++)
        axes[n++] = i;
      odo_init (&o, &p, axes, n);
      do
        rev_blocks (&kern, d, s, p.dims[k]);
      while (odo_next (&o, &s, &d));
      return;
    }
    /* Whole contiguous rows moved by memcpy, the rows in reverse order. */
    for (int i = 0; i < last; i++)
      axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      memcpy (d, s, (size_t) g);
    while (odo_next (&o, &s, &d));
    return;
  }
  if (sl == is && dl == -is) {
    if (k >= 0 && nl <= 16 && p.src[k] == g && p.dst[k] == g) {
      /* Small groups reversed in place, one tight loop over all of them:
       * RGB <-> BGR. */
      for (int i = 0; i < k; i++)
        axes[n++] = i;
      odo_init (&o, &p, axes, n);
      do
        rev_groups (isz, nl, d - (nl - 1) * is, s, p.dims[k]);
      while (odo_next (&o, &s, &d));
      return;
    }
    for (int i = 0; i < last; i++)
      axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      rev_run (isz, d - (nl - 1) * is, s, nl);
    while (odo_next (&o, &s, &d));
    return;
  }

  /* The innermost axis is strided in the source.  The channel kernels
   * take negative plane pitches and outer steps: BGR planes from RGB
   * pixels are one pass. */
  if (materialize_kern (&p, isz, d, s))
    return;
  /* Else, when no axis inside the innermost reversed one is reversed,
   * each of its slabs is an ordinary view copied by tn_view_materialize
   * (with its kernels) to the slab's reversed place. */
  for (k = last; k >= 0 && p.dst[k] > 0; k--)
    ;
  if (k < last) {
    tn_view sub;

    memset (&sub, 0, sizeof sub);
    sub.dtype = v->dtype;
    sub.rank = last - k;
    for (int i = k + 1; i <= last; i++) {
      sub.dims[i - k - 1] = p.dims[i];
      sub.strides[i - k - 1] = p.src[i] / is;
    }
    for (int i = 0; i <= k; i++)
      axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      tn_view_materialize (d, s, &sub);
    while (odo_next (&o, &s, &d));
    return;
  }
  for (int i = 0; i < last; i++)
    axes[n++] = i;
  odo_init (&o, &p, axes, n);
  do
    row_signed (isz, d, dl, s, sl, nl);
  while (odo_next (&o, &s, &d));
}
