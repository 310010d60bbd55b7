/* Deinterleave and interleave kernels for tn_view_materialize.
 *
 * A shuffle kernel holds one block of the source in registers (c vectors
 * of rows, or one vector per plane) and builds each output vector as the
 * OR of one byte shuffle per input vector: pshufb puts the bytes of the
 * items it wants in place and zeroes the rest.  The masks depend on the
 * item size, c and the output vector only, so they are built once per
 * view.  Blocks that would read past the last byte a view reaches are
 * left to the portable loop. */
#include "view-kern.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define VK_X86 1
#include <immintrin.h>
#else
#define VK_X86 0
#endif

#define VK_INLINE static inline __attribute__ ((always_inline))

/* ---- portable: one pass over the source, per item size ---- */

#define DEFINE_PORTABLE(S, T)                                                  \
  static void deint_portable_##S (                                             \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    const int c = k->c, m = k->m;                                              \
    for (int64_t i = 0; i < n; i++, s += c * S, d += S)                        \
      for (int q = 0; q < m; q++) {                                            \
        T x;                                                                   \
        memcpy (&x, s + q * S, S);                                             \
        memcpy (d + q * pitch, &x, S);                                         \
      }                                                                        \
  }                                                                            \
  static void inter_portable_##S (                                             \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    const int c = k->c;                                                        \
    for (int64_t i = 0; i < n; i++, s += S)                                    \
      for (int q = 0; q < c; q++, d += S) {                                    \
        T x;                                                                   \
        memcpy (&x, s + q * pitch, S);                                         \
        memcpy (d, &x, S);                                                     \
      }                                                                        \
  }

DEFINE_PORTABLE (1, uint8_t)
DEFINE_PORTABLE (2, uint16_t)
DEFINE_PORTABLE (4, uint32_t)
DEFINE_PORTABLE (8, uint64_t)

static const tn_vk_fn deint_portable[4] = { deint_portable_1, deint_portable_2,
  deint_portable_4, deint_portable_8 };
static const tn_vk_fn inter_portable[4] = { inter_portable_1, inter_portable_2,
  inter_portable_4, inter_portable_8 };

static int
size_index (size_t isz)
{
  return isz == 1 ? 0 : isz == 2 ? 1 : isz == 4 ? 2 : 3;
}

#if VK_X86

/* ---- SSSE3: blocks of 16 / S rows (deinterleave) or items (interleave),
 * c vectors in, m or c vectors out ---- */

#define VK_SSSE3 __attribute__ ((target ("ssse3")))

VK_INLINE VK_SSSE3 __m128i
mask16 (const tn_vk *k, int i)
{
  return _mm_load_si128 ((const __m128i *) k->mask[i]);
}

/* Returns the rows done; nb: rows whose whole block may be read. */
VK_INLINE VK_SSSE3 int64_t
deint_16 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t nb,
    int64_t j, const int S, const int C, const int M)
{
  const int G = 16 / S;

  for (; j + G <= nb; j += G) {
    const char *sb = s + j * C * S;
    __m128i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int i = 0; i < C; i++)
      in[i] = _mm_loadu_si128 ((const __m128i *) (sb + 16 * i));
    for (int q = 0; q < M; q++) {
      __m128i a = _mm_shuffle_epi8 (in[0], mask16 (k, q * C));

#pragma GCC unroll 8
      for (int i = 1; i < C; i++)
        a = _mm_or_si128 (a, _mm_shuffle_epi8 (in[i], mask16 (k, q * C + i)));
      _mm_storeu_si128 ((__m128i *) (d + q * pitch + j * S), a);
    }
  }
  return j;
}

VK_INLINE VK_SSSE3 int64_t
inter_16 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n,
    int64_t j, const int S, const int C)
{
  const int G = 16 / S;

  for (; j + G <= n; j += G) {
    char *db = d + j * C * S;
    __m128i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int q = 0; q < C; q++)
      in[q] = _mm_loadu_si128 ((const __m128i *) (s + q * pitch + j * S));
    for (int o = 0; o < C; o++) {
      __m128i a = _mm_shuffle_epi8 (in[0], mask16 (k, o * C));

#pragma GCC unroll 8
      for (int q = 1; q < C; q++)
        a = _mm_or_si128 (a, _mm_shuffle_epi8 (in[q], mask16 (k, o * C + q)));
      _mm_storeu_si128 ((__m128i *) (db + 16 * o), a);
    }
  }
  return j;
}

/* ---- AVX2: two SSSE3 blocks side by side, one per 128-bit lane, since
 * vpshufb does not cross lanes ---- */

#define VK_AVX2 __attribute__ ((target ("avx2")))

VK_INLINE VK_AVX2 __m256i
mask32 (const tn_vk *k, int i)
{
  return _mm256_load_si256 ((const __m256i *) k->mask[i]);
}

VK_INLINE VK_AVX2 int64_t
deint_32 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t nb,
    int64_t j, const int S, const int C, const int M)
{
  const int G = 32 / S;

  for (; j + G <= nb; j += G) {
    const char *sb = s + j * C * S;
    __m256i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int i = 0; i < C; i++)
      in[i] = _mm256_inserti128_si256 (_mm256_castsi128_si256 (_mm_loadu_si128 (
                                           (const __m128i *) (sb + 16 * i))),
          _mm_loadu_si128 ((const __m128i *) (sb + 16 * (C + i))), 1);
    for (int q = 0; q < M; q++) {
      __m256i a = _mm256_shuffle_epi8 (in[0], mask32 (k, q * C));

#pragma GCC unroll 8
      for (int i = 1; i < C; i++)
        a = _mm256_or_si256 (
            a, _mm256_shuffle_epi8 (in[i], mask32 (k, q * C + i)));
      _mm256_storeu_si256 ((__m256i *) (d + q * pitch + j * S), a);
    }
  }
  return j;
}

VK_INLINE VK_AVX2 int64_t
inter_32 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n,
    int64_t j, const int S, const int C)
{
  const int G = 32 / S;

  for (; j + G <= n; j += G) {
    char *db = d + j * C * S;
    __m256i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int q = 0; q < C; q++)
      in[q] = _mm256_loadu_si256 ((const __m256i *) (s + q * pitch + j * S));
    for (int o = 0; o < C; o++) {
      __m256i a = _mm256_shuffle_epi8 (in[0], mask32 (k, o * C));

#pragma GCC unroll 8
      for (int q = 1; q < C; q++)
        a = _mm256_or_si256 (
            a, _mm256_shuffle_epi8 (in[q], mask32 (k, o * C + q)));
      _mm_storeu_si128 ((__m128i *) (db + 16 * o), _mm256_castsi256_si128 (a));
      _mm_storeu_si128 (
          (__m128i *) (db + 16 * (C + o)), _mm256_extracti128_si256 (a, 1));
    }
  }
  return j;
}

/* The switches make C (and M when it equals C, the common case)
 * constants, so the block loops unroll and the inputs stay in registers;
 * S is a constant of each caller. */
#define DEINT_CASE(W, CC)                                                      \
  case CC:                                                                     \
    if (CC * S <= 32)                                                          \
      j = k->m == CC ? deint_##W (k, d, pitch, s, lim, j, S, CC, CC)           \
                     : deint_##W (k, d, pitch, s, lim, j, S, CC, k->m);        \
    break;
#define INTER_CASE(W, CC)                                                      \
  case CC:                                                                     \
    if (CC * S <= 32)                                                          \
      j = inter_##W (k, d, pitch, s, lim, j, S, CC);                           \
    break;
#define ALL_CASES(X, W)                                                        \
  X (W, 2) X (W, 3) X (W, 4) X (W, 5) X (W, 6) X (W, 7) X (W, 8)
/* lim: the rows (deinterleave) or items (interleave) the kernel may
 * reach; returns where the kernel stopped. */
#define ANY_FN(KIND, W, TARGET, CASE)                                          \
  VK_INLINE TARGET int64_t KIND##_any_##W (const tn_vk *k, char *d,            \
      int64_t pitch, const char *s, int64_t lim, int64_t j, const int S)       \
  {                                                                            \
    switch (k->c) {                                                            \
      ALL_CASES (CASE, W)                                                      \
    }                                                                          \
    return j;                                                                  \
  }

ANY_FN (deint, 16, VK_SSSE3, DEINT_CASE)
ANY_FN (inter, 16, VK_SSSE3, INTER_CASE)
ANY_FN (deint, 32, VK_AVX2, DEINT_CASE)
ANY_FN (inter, 32, VK_AVX2, INTER_CASE)

/* nb: rows whose whole block lies within what the view reaches (with
 * m < c the last row ends before its block does).  AVX2 finishes with
 * one SSSE3 block where one fits, then the portable loop. */
#define DEFINE_SIMD(S)                                                         \
  static VK_SSSE3 void deint_ssse3_##S (                                       \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t nb = k->m == k->c ? n : n - 1;                                     \
    int64_t j = deint_any_16 (k, d, pitch, s, nb, 0, S);                       \
    if (j < n)                                                                 \
      deint_portable_##S (k, d + j * S, pitch, s + j * k->c * S, n - j);       \
  }                                                                            \
  static VK_AVX2 void deint_avx2_##S (                                         \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t nb = k->m == k->c ? n : n - 1;                                     \
    int64_t j = deint_any_32 (k, d, pitch, s, nb, 0, S);                       \
    j = deint_any_16 (k, d, pitch, s, nb, j, S);                               \
    if (j < n)                                                                 \
      deint_portable_##S (k, d + j * S, pitch, s + j * k->c * S, n - j);       \
  }                                                                            \
  static VK_SSSE3 void inter_ssse3_##S (                                       \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t j = inter_any_16 (k, d, pitch, s, n, 0, S);                        \
    if (j < n)                                                                 \
      inter_portable_##S (k, d + j * k->c * S, pitch, s + j * S, n - j);       \
  }                                                                            \
  static VK_AVX2 void inter_avx2_##S (                                         \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t j = inter_any_32 (k, d, pitch, s, n, 0, S);                        \
    j = inter_any_16 (k, d, pitch, s, n, j, S);                                \
    if (j < n)                                                                 \
      inter_portable_##S (k, d + j * k->c * S, pitch, s + j * S, n - j);       \
  }

DEFINE_SIMD (1)
DEFINE_SIMD (2)
DEFINE_SIMD (4)
DEFINE_SIMD (8)

static const tn_vk_fn deint_simd[2][4] = {
  { deint_ssse3_1, deint_ssse3_2, deint_ssse3_4, deint_ssse3_8 },
  { deint_avx2_1, deint_avx2_2, deint_avx2_4, deint_avx2_8 },
};
static const tn_vk_fn inter_simd[2][4] = {
  { inter_ssse3_1, inter_ssse3_2, inter_ssse3_4, inter_ssse3_8 },
  { inter_avx2_1, inter_avx2_2, inter_avx2_4, inter_avx2_8 },
};
#endif

/* ---- choice and masks ---- */

static atomic_int vk_impl = -1;

static tn_vk_impl
best_impl (void)
{
#if VK_X86
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2"))
    return TN_VK_IMPL_AVX2;
  if (__builtin_cpu_supports ("ssse3"))
    return TN_VK_IMPL_SSSE3;
#endif
  return TN_VK_IMPL_PORTABLE;
}

tn_vk_impl
tn_vk_set_impl (tn_vk_impl impl)
{
  tn_vk_impl best = best_impl (), r = impl;

  if (impl == TN_VK_IMPL_AUTO || impl > best)
    r = best;
  atomic_store_explicit (&vk_impl, (int) r, memory_order_relaxed);
  return r;
}

static tn_vk_impl
current_impl (void)
{
  int v = atomic_load_explicit (&vk_impl, memory_order_relaxed);

  return v < 0 ? tn_vk_set_impl (TN_VK_IMPL_AUTO) : (tn_vk_impl) v;
}

/* Byte b of mask (o, i) is the byte of input vector i that lands at byte
 * b of output vector o, or 0x80 (pshufb writes zero) when it comes from
 * another input. */
static void
set_byte (tn_vk *k, int o, int i, int b, int from)
{
  k->mask[o * k->c + i][b] = (uint8_t) from;
  k->mask[o * k->c + i][b + 16] = (uint8_t) from;
}

static bool
shuffles (const tn_vk *k)
{
  return VK_X86 && current_impl () != TN_VK_IMPL_PORTABLE && k->c >= 2
         && k->c <= TN_VK_MAX_C && k->c * k->isz <= 32;
}

void
tn_vk_deint_prepare (tn_vk *k, size_t isz, int c, int m)
{
  int si = size_index (isz);

  k->isz = (int) isz;
  k->c = c;
  k->m = m;
  k->fn = deint_portable[si];
  if (!shuffles (k))
    return;
  memset (k->mask, 0x80, sizeof k->mask);
  /* Output vector q holds items of plane q: byte b is byte b % isz of
   * row b / isz, read from the source block at byte (row * c + q) * isz. */
  for (int q = 0; q < m; q++)
    for (int b = 0; b < 16; b++) {
      int from = (b / k->isz * c + q) * k->isz + b % k->isz;

      set_byte (k, q, from / 16, b, from % 16);
    }
#if VK_X86
  k->fn = deint_simd[current_impl () == TN_VK_IMPL_AVX2][si];
#endif
}

void
tn_vk_inter_prepare (tn_vk *k, size_t isz, int c)
{
  int si = size_index (isz);

  k->isz = (int) isz;
  k->c = c;
  k->m = c;
  k->fn = inter_portable[si];
  if (!shuffles (k))
    return;
  memset (k->mask, 0x80, sizeof k->mask);
  /* Byte g of the output block is byte g % isz of item t = g / isz: item
   * t / c of plane t % c. */
  for (int o = 0; o < c; o++)
    for (int b = 0; b < 16; b++) {
      int g = 16 * o + b, t = g / k->isz;

      set_byte (k, o, t % c, b, t / c * k->isz + g % k->isz);
    }
#if VK_X86
  k->fn = inter_simd[current_impl () == TN_VK_IMPL_AVX2][si];
#endif
}
