/* tn_view_materialize: a view copied densely, row-major, in one pass.
 * The longest contiguous suffix of axes moves as memcpy runs; a strided
 * innermost axis takes the channel kernels of view-kern.h, cache tiles
 * (SSE2 transposes where the build has SSE2, every x86-64 does) or a plain
 * loop; the outer axes are walked like an odometer. */
#include "view.h"

#include <string.h>

#include "view-copy.h"
#include "view-kern.h"

/* Per item size, not per dtype: a copy moves bits. memcpy of a constant
 * size compiles to one load and one store and tolerates any alignment.
 * ds, the destination's byte step, is S except for tn_view_copy_to into
 * a destination whose innermost axis is strided (a stack along the last
 * axis); inlined, the constant S folds in. */
#define DEFINE_ROW(S, T)                                                       \
  static inline void row_##S (                                                 \
      char *d, int64_t ds, const char *s, int64_t n, int64_t ss)               \
  {                                                                            \
    for (int64_t j = 0; j < n; j++) {                                          \
      T x;                                                                     \
      memcpy (&x, s, S);                                                       \
      memcpy (d, &x, S);                                                       \
      d += ds;                                                                 \
      s += ss;                                                                 \
    }                                                                          \
  }

DEFINE_ROW (1, uint8_t)
DEFINE_ROW (2, uint16_t)
DEFINE_ROW (4, uint32_t)
DEFINE_ROW (8, uint64_t)

static inline void
row_copy (size_t isz, char *d, int64_t ds, const char *s, int64_t n, int64_t ss)
{
  switch (isz) {
  case 1:
    row_1 (d, ds, s, n, ss);
    break;
  case 2:
    row_2 (d, ds, s, n, ss);
    break;
  case 4:
    row_4 (d, ds, s, n, ss);
    break;
  case 8:
    row_8 (d, ds, s, n, ss);
    break;
  default:
    for (int64_t j = 0; j < n; j++)
      memcpy (d + j * ds, s + j * ss, isz);
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
        row_copy (isz, d + k * dk + l0 * (int64_t) isz, (int64_t) isz,
            s + k * sk + l0 * sl, le, sl);
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

/* B rows of len bytes (a multiple of 64) from the tile buffer (row pitch
 * bt) to the destination (pitch dk). */
#define DEFINE_TILE_OUT(S)                                                     \
  static inline __attribute__ ((always_inline)) void tile_out_##S (char *d,    \
      int64_t dk, const char *b, int64_t bt, int64_t len, bool stream)         \
  {                                                                            \
    for (int k = 0; k < 64 / S; k++) {                                         \
      __m128i *o = (__m128i *) (d + k * dk);                                   \
      const __m128i *r = (const __m128i *) (b + k * bt);                       \
      if (stream)                                                              \
        for (int64_t q = 0; q < len / 16; q++)                                 \
          _mm_stream_si128 (o + q, r[q]);                                      \
      else                                                                     \
        for (int64_t q = 0; q < len / 16; q++)                                 \
          _mm_storeu_si128 (o + q, r[q]);                                      \
    }                                                                          \
  }

DEFINE_TILE_OUT (1)
DEFINE_TILE_OUT (2)
DEFINE_TILE_OUT (4)
DEFINE_TILE_OUT (8)

/* Blocks of one cache line by one cache line (B = 64 / S items square):
 * each source line is read whole, once, and each destination line written
 * whole, once. A block is transposed into a buffer first: rows a
 * power-of-two pitch apart share an L1 set, so destination lines filled
 * piecemeal in place would be evicted between visits. The next block's
 * source lines, a column the hardware prefetcher does not follow, are
 * prefetched. Outputs too large to stay cached are written with streaming
 * stores (when aligned), as memcpy does for large copies.
 *
 * The buffer holds the B rows of a whole band (8 KiB).  Where the
 * destination pitch is not a power of two, each row's run of the band
 * (SIMD_BAND items: 512 bytes of float32) goes out in one burst after the
 * band's blocks, so DRAM sees runs of 8 lines instead of 16 rows taking
 * a line each in turn: the permute of <3,1080,1920> float32 went from
 * 2.2-2.3x memcpy to 1.6-1.7x (docs/perf-notes.md, session 8 H4).  At a
 * power-of-two pitch (the 2048x2048 transposes) the bursts measured 2-4x
 * slower than writing each block's lines at once, so those keep that. */
#define DEFINE_TILE_SIMD(S)                                                    \
  static void tile_simd_##S (char *d, int64_t dk, const char *s, int64_t sl,   \
      int64_t nk, int64_t nl, bool stream)                                     \
  {                                                                            \
    enum { V = 16 / S, B = 64 / S, BT = SIMD_BAND * S };                       \
    __m128i buf[B * BT / 16];                                                  \
    char *bp = (char *) buf;                                                   \
    const bool burst = (dk & (dk - 1)) != 0;                                   \
    /* without bursts one block at a time, at the buffer's start */            \
    const int64_t bt = burst ? BT : 64;                                        \
    for (int64_t l1 = 0; l1 < nl; l1 += SIMD_BAND) {                           \
      int64_t le = nl - l1 < SIMD_BAND ? nl : l1 + SIMD_BAND;                  \
      for (int64_t k0 = 0; k0 < nk; k0 += B) {                                 \
        int64_t kn = nk - k0 < B ? nk - k0 : B, l0 = l1, w0 = l1;              \
        for (; kn == B && l0 + B <= le; l0 += B) {                             \
          const char *sb = s + k0 * S + l0 * sl;                               \
          if (l0 + 2 * B <= le)                                                \
            for (int l = 0; l < B; l++)                                        \
              __builtin_prefetch (sb + (B + l) * sl);                          \
          for (int l = 0; l < B; l += V)                                       \
            for (int k = 0; k < B; k += V)                                     \
              block_simd (bp + k * bt + (burst ? l0 - l1 : 0) * S + l * S, bt, \
                  sb + k * S + l * sl, sl, S);                                 \
          if (!burst || l0 + 2 * B > le) {                                     \
            tile_out_##S (d + k0 * dk + w0 * S, dk,                            \
                bp + (burst ? w0 - l1 : 0) * S, bt, (l0 + B - w0) * S,         \
                stream);                                                       \
            w0 = l0 + B;                                                       \
          }                                                                    \
        }                                                                      \
        if (l0 < le)                                                           \
          for (int64_t k = k0; k < k0 + kn; k++)                               \
            row_##S (                                                          \
                d + k * dk + l0 * S, S, s + k * S + l0 * sl, le - l0, sl);     \
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

/* lines: the table's streamed transpose where copy_view found it serves
 * this pair of axes (4-byte items, a pitch of whole or half lines), else
 * NULL; it takes each step whose destination starts on a line. */
static void
tile_copy (size_t isz, char *d, int64_t dk, const char *s, int64_t sk,
    int64_t sl, int64_t nk, int64_t nl, bool stream, tn_vk_tr_fn lines)
{
  if (lines && (uintptr_t) d % 64 == 0) {
    lines (d, dk, s, sl, nk, nl);
    return;
  }
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

/* True when an axis of n items at byte step s (source) or d
 * (destination) continues the axis inside it, axis r - 1 of the plan. */
static bool
chains (const int64_t *step, const plan *p, int r, int64_t s)
{
  int64_t span;

  return !__builtin_mul_overflow (step[r - 1], p->dims[r - 1], &span)
         && s == span;
}

/* dstride: the destination's strides in items, one per axis of v; NULL
 * for a dense destination. */
static void
make_plan (plan *p, const tn_view *v, const int64_t *dstride, size_t isz)
{
  int r = 0;
  int64_t dst = (int64_t) isz;

  /* Walk inner to outer, fusing an axis into the one inside it when its
   * stride is that axis's whole span: the fused axis is then one longer
   * run with the inner stride. A dense destination always fuses; a
   * strided one must chain too. */
  for (int i = v->rank - 1; i >= 0; i--) {
    int64_t n = v->dims[i], s, d = 0;

    /* An axis of extent 1 may carry any stride, even one that would
     * overflow here; it moves nothing. */
    if (n == 1)
      continue;
    s = v->strides[i] * (int64_t) isz;
    if (dstride)
      d = dstride[i] * (int64_t) isz;
    if (r > 0 && chains (p->src, p, r, s)
        && (!dstride || chains (p->dst, p, r, d))) {
      p->dims[r - 1] *= n;
    } else {
      p->dims[r] = n;
      p->src[r] = s;
      p->dst[r] = d;
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
    t = p->dst[i];
    p->dst[i] = p->dst[r - 1 - i];
    p->dst[r - 1 - i] = t;
  }
  if (!dstride)
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
__attribute__ ((noinline)) bool
tn_view_copy_channels (const plan *p, size_t isz, char *d, const char *s)
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

/* tn_view_materialize (dstride NULL) and tn_view_copy_to. */
static void
copy_view (
    void *dst, const int64_t *dstride, const void *base, const tn_view *v)
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
  make_plan (&p, v, dstride, isz);
  if (p.rank == 0) {
    memcpy (d, s, isz);
    return;
  }
  last = p.rank - 1;

  /* A destination whose innermost axis is strided: items one by one. */
  if (p.dst[last] != (int64_t) isz) {
    for (int i = 0; i < last; i++)
      axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      row_copy (isz, d, p.dst[last], s, p.dims[last], p.src[last]);
    while (odo_next (&o, &s, &d));
    return;
  }

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

  if (tn_view_copy_channels (&p, isz, d, s))
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

    const tn_view_dsp *dsp = tn_view_dsp_get ();
    tn_vk_tr_fn lines = NULL;

    for (int i = 0; i < last; i++)
      stream = stream && p.dst[i] % 16 == 0;
    /* Whole destination lines, each streamed once (x86/view-avx512.c);
     * rows of an odd multiple of 32 bytes carry half lines across. */
    if (stream && isz == 4 && p.src[k] == 4 && dsp->tr4_stream
        && p.dst[k] % 32 == 0)
      lines = dsp->tr4;

    for (int i = 0; i < last; i++)
      if (i != k)
        axes[n++] = i;
    odo_init (&o, &p, axes, n);
    do
      tile_copy (isz, d, p.dst[k], s, p.src[k], p.src[last], p.dims[k],
          p.dims[last], stream, lines);
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
    row_copy (isz, d, (int64_t) isz, s, p.dims[last], p.src[last]);
  while (odo_next (&o, &s, &d));
}

void
tn_view_materialize (void *dst, const void *base, const tn_view *v)
{
  copy_view (dst, NULL, base, v);
}

void
tn_view_copy_to (
    void *dst, const int64_t *dst_strides, const void *base, const tn_view *v)
{
  copy_view (dst, dst_strides, base, v);
}
