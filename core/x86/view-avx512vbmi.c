/* The AVX-512 VBMI view kernels (the avx512vbmi library of
 * core/meson.build): blocks of 64-byte vectors, each output vector built
 * by one vpermt2b of input vectors 0 and 1 and one merging vpermb per
 * further input vector (the tables of tn_vk.idx and tn_vk.km, built by
 * the prepare functions of core/view-kern.c).  Where AVX2 spends a
 * vpshufb and a vpor per input vector per 16-byte lane, and writes its
 * interleaved rows in 16-byte halves, this spends c - 1 permutes per
 * whole 64-byte output line.  What does not fill a block goes to the
 * 16-byte shuffles (x86/view-shuf.h), then the portable loops. */
#include "core/x86/view-shuf.h"

VK_INLINE __m512i
perm_idx (const tn_vk *k, int i)
{
  return _mm512_load_si512 ((const void *) k->idx[i]);
}

/* Output vector o from the C input vectors in. */
VK_INLINE __m512i
perm_out (const tn_vk *k, const __m512i *in, int o, const int C)
{
  __m512i a = _mm512_permutex2var_epi8 (in[0], perm_idx (k, o * C), in[1]);

#pragma GCC unroll 8
  for (int q = 2; q < C; q++)
    a = _mm512_mask_permutexvar_epi8 (
        a, (__mmask64) k->km[o * C + q], perm_idx (k, o * C + q), in[q]);
  return a;
}

/* Blocks ahead that the loops below fetch their lines: the source lines
 * AHEAD_R blocks on, the destination lines AHEAD_W blocks on (one line a
 * block in each of the m planes a deinterleave writes, c a block of the
 * rows an interleave writes).  With the frame in L2 (640x480 uint8 on the
 * Xeon, 2 MiB L2), neither the L1 streamer nor the L2 one gets the three
 * planes' lines in soon enough: a line each store waits for.  Fetched
 * ahead, HWC -> CHW went from 1.19 to 1.00 of a cache-hot memcpy and
 * CHW -> HWC from 1.15 to 1.04 (docs/perf-notes.md, session 18 H2).  A
 * read prefetch is enough for the stores: the line comes exclusive when
 * no other core holds it.  Rows shorter than AHEAD_W blocks (and the last
 * AHEAD_W blocks of a row) fetch nothing: past the row is not ours to
 * fetch. */
#define AHEAD_R 8
#define AHEAD_W 16

/* Returns the rows done; nb: rows whose whole block may be read. */
VK_INLINE int64_t
deint_64 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t nb,
    int64_t j, const int S, const int C, const int M)
{
  const int G = 64 / S;
  const int64_t pf = nb - AHEAD_W * G;

  for (; j + G <= nb; j += G) {
    const char *sb = s + j * C * S;
    __m512i in[TN_VK_MAX_C];

    if (j < pf) {
#pragma GCC unroll 8
      for (int i = 0; i < C; i++)
        _mm_prefetch (sb + 64 * (AHEAD_R * C + i), _MM_HINT_T0);
#pragma GCC unroll 8
      for (int q = 0; q < M; q++)
        _mm_prefetch (d + q * pitch + (j + AHEAD_W * G) * S, _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int i = 0; i < C; i++)
      in[i] = _mm512_loadu_si512 ((const void *) (sb + 64 * i));
    for (int q = 0; q < M; q++)
      _mm512_storeu_si512 (
          (void *) (d + q * pitch + j * S), perm_out (k, in, q, C));
  }
  return j;
}

VK_INLINE int64_t
inter_64 (const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n,
    int64_t j, const int S, const int C)
{
  const int G = 64 / S;
  const int64_t pf = n - AHEAD_W * G;

  for (; j + G <= n; j += G) {
    char *db = d + j * C * S;
    __m512i in[TN_VK_MAX_C];

    if (j < pf) {
#pragma GCC unroll 8
      for (int q = 0; q < C; q++)
        _mm_prefetch (s + q * pitch + (j + AHEAD_R * G) * S, _MM_HINT_T0);
#pragma GCC unroll 8
      for (int o = 0; o < C; o++)
        _mm_prefetch (db + 64 * (AHEAD_W * C + o), _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int q = 0; q < C; q++)
      in[q] = _mm512_loadu_si512 ((const void *) (s + q * pitch + j * S));
#pragma GCC unroll 8
    for (int o = 0; o < C; o++)
      _mm512_storeu_si512 ((void *) (db + 64 * o), perm_out (k, in, o, C));
  }
  return j;
}

ANY_FN (deint, 64, DEINT_CASE)
ANY_FN (inter, 64, INTER_CASE)

VK_ALL_ENTRIES (avx512vbmi, 64)
