/* tn_view_materialize_flip: a view with axes reversed, in one copy that
 * reads the source forwards.  Whole rows move by memcpy, mirrored pixels
 * take the mirror kernel of view-kern.h, reversed groups (RGB <-> BGR)
 * and reversed runs tight loops (SSE2 where the build has it), a strided
 * innermost axis the channel kernels or tn_view_materialize per slab. */
#include "view.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "view-copy.h"
#include "view-kern.h"

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
      tn_vk_rev kern;

      tn_vk_rev_prepare (&kern, g);
      for (int i = 0; i < k; i++)
        axes[n++] = i;
      odo_init (&o, &p, axes, n);
      do
        kern.fn (&kern, d, s, p.dims[k]);
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
  if (tn_view_copy_channels (&p, isz, d, s))
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
