/* The 16-byte shuffle loops of the view kernels (core/view-kern.c says
 * how the masks are laid out), shared by x86/view-ssse3.c and
 * x86/view-avx2.c, which finishes with one 16-byte block where one fits:
 * each includes this file and compiles it with its own flags. */
#ifndef TN_X86_VIEW_SHUF_H
#define TN_X86_VIEW_SHUF_H

#include <immintrin.h>

#include "core/view-kern-tmpl.h"

#define VK_INLINE static inline __attribute__ ((always_inline))

/* ---- blocks of 16 / S rows (deinterleave) or items (interleave), c
 * vectors in, m or c vectors out ---- */

VK_INLINE __m128i
mask16 (const tn_vk *k, int i)
{
  return _mm_load_si128 ((const __m128i *) k->mask[i]);
}

/* The first n masks of k in registers (where they fit) before a loop:
 * read from k inside it, every vpshufb would load its mask again, since
 * the loop's char stores may alias k for the compiler.  On Zen 1 those
 * loads bound HWC -> CHW of uint8 (nine a block of three). */
#define VK_MASKS(T, LOAD, mk, k, n)                                            \
  T mk[TN_VK_MAX_C * TN_VK_MAX_C];                                             \
  _Pragma ("GCC unroll 64") for (int i_ = 0; i_ < (n); i_++) mk[i_]            \
      = LOAD (k, i_)

/* Returns the rows done; nb: rows whose whole block may be read. */
VK_INLINE int64_t
deint_16 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t nb,
    int64_t j, const int S, const int C, const int M)
{
  const int G = 16 / S;
  VK_MASKS (__m128i, mask16, mk, k, C * M);

  for (; j + G <= nb; j += G) {
    const char *sb = s + j * C * S;
    __m128i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int i = 0; i < C; i++)
      in[i] = _mm_loadu_si128 ((const __m128i *) (sb + 16 * i));
    for (int q = 0; q < M; q++) {
      __m128i a = _mm_shuffle_epi8 (in[0], mk[q * C]);

#pragma GCC unroll 8
      for (int i = 1; i < C; i++)
        a = _mm_or_si128 (a, _mm_shuffle_epi8 (in[i], mk[q * C + i]));
      _mm_storeu_si128 ((__m128i *) (d + q * pitch + j * S), a);
    }
  }
  return j;
}

VK_INLINE int64_t
inter_16 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n,
    int64_t j, const int S, const int C)
{
  const int G = 16 / S;
  VK_MASKS (__m128i, mask16, mk, k, C * C);

  for (; j + G <= n; j += G) {
    char *db = d + j * C * S;
    __m128i in[TN_VK_MAX_C];

#pragma GCC unroll 8
    for (int q = 0; q < C; q++)
      in[q] = _mm_loadu_si128 ((const __m128i *) (s + q * pitch + j * S));
    for (int o = 0; o < C; o++) {
      __m128i a = _mm_shuffle_epi8 (in[0], mk[o * C]);

#pragma GCC unroll 8
      for (int q = 1; q < C; q++)
        a = _mm_or_si128 (a, _mm_shuffle_epi8 (in[q], mk[o * C + q]));
      _mm_storeu_si128 ((__m128i *) (db + 16 * o), a);
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
#define ANY_FN(KIND, W, CASE)                                                  \
  VK_INLINE int64_t KIND##_any_##W (const tn_vk *k, char *d, int64_t pitch,    \
      const char *s, int64_t lim, int64_t j, const int S)                      \
  {                                                                            \
    switch (k->c) {                                                            \
      ALL_CASES (CASE, W)                                                      \
    }                                                                          \
    return j;                                                                  \
  }

ANY_FN (deint, 16, DEINT_CASE)
ANY_FN (inter, 16, INTER_CASE)

/* The entries of one ISA for item size S: W-byte kernels (W = 16, 32 or
 * 64, the file's ANY_FN), then 16-byte ones where W is wider, then the
 * portable kernel for the rest.  nb: rows whose whole block lies within
 * what the view reaches (with m < c the last row ends before its block
 * does). */
#define VK_ENTRIES(ISA, W, S)                                                  \
  void tn_vk_deint_##ISA##_##S (                                               \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t nb = k->m == k->c ? n : n - 1;                                     \
    int64_t j = deint_any_##W (k, d, pitch, s, nb, 0, S);                      \
    if (W > 16)                                                                \
      j = deint_any_16 (k, d, pitch, s, nb, j, S);                             \
    if (j < n)                                                                 \
      tn_vk_deint_c_##S (k, d + j * S, pitch, s + j * k->c * S, n - j);        \
  }                                                                            \
  void tn_vk_inter_##ISA##_##S (                                               \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    int64_t j = inter_any_##W (k, d, pitch, s, n, 0, S);                       \
    if (W > 16)                                                                \
      j = inter_any_16 (k, d, pitch, s, n, j, S);                              \
    if (j < n)                                                                 \
      tn_vk_inter_c_##S (k, d + j * k->c * S, pitch, s + j * S, n - j);        \
  }
#define VK_ALL_ENTRIES(ISA, W)                                                 \
  VK_ENTRIES (ISA, W, 1)                                                       \
  VK_ENTRIES (ISA, W, 2) VK_ENTRIES (ISA, W, 4) VK_ENTRIES (ISA, W, 8)

#endif
