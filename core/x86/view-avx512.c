/* The AVX-512 transpose of 4-byte items (the avx512 library of
 * core/meson.build; tn_vk_tr_fn in core/view-kern.h), for outputs too
 * large to stay cached.
 *
 * A block is 16 source lines (16 items along k each, one zmm per line)
 * transposed in registers into 16 destination lines, each stored whole
 * with one streaming store: no line is filled piecemeal, so no
 * write-combining buffer is flushed half full, and none is read for
 * ownership.  The SSE2 tiles of core/view-copy.c go through a buffer in
 * 16-byte pieces; on the Xeon (model 167) this took the 2048x2048
 * float32 transpose from 1.87-2.22x a memcpy of its bytes to 1.30-1.47x
 * (docs/perf-notes.md, "Session 14").  Where the pitch is an odd
 * multiple of 32 bytes (the 1080p permute) every other row starts half a
 * line in, and its lines are carried across two blocks (halves of lines
 * streamed apart measured 3.4x on the Xeon).  Blocks at the edges load
 * and store under masks, with ordinary stores. */
#include <immintrin.h>

#include "core/view-kern.h"

/* Rows l walked per band at most, and blocks prefetched ahead (AHEAD x
 * 16 source lines, in walk order).  Together they took the 1080p permute
 * from 2.1-2.2x memcpy to 0.9-1.0x on Zen 4 (docs/perf-notes.md,
 * "Session 17 H2"): one block ahead (about 100 ns of work) left the
 * loads waiting on memory, and bands of 128 rows left more half lines at
 * band edges and shorter runs per destination row.
 *
 * A band's source column, one line per row, sl bytes apart, falls in
 * few cache sets where sl is a multiple of a large power of two z: in a
 * 16-way L2 of 64 KiB a way (Zen 4's 1 MiB) it holds 1 MiB / z lines,
 * 128 at the 8192 bytes of the 2048x2048 transpose, which measured
 * 1.36-1.42x memcpy with bands of 128-512 rows and 1.56-1.64x with
 * 1024.  The band is cut to what fits. */
#define BAND 1024
#define AHEAD 4
#define L2_SPAN ((int64_t) 1 << 20)

#define TR_INLINE static inline __attribute__ ((always_inline))

/* r[i] holds row i of a 16x16 block of 32-bit items; afterwards r[j]
 * holds column j.  Two rounds of unpacks transpose the 4x4 blocks inside
 * each 128-bit lane (u[4i + m], lane j: column 4j + m of rows 4i..4i+3),
 * two rounds of lane shuffles gather each column's four lanes. */
TR_INLINE void
tr16 (__m512i r[16])
{
  __m512i t[16], u[16];

#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_epi32 (r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32 (r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    u[4 * i] = _mm512_unpacklo_epi64 (t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64 (t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64 (t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64 (t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 4
  for (int m = 0; m < 4; m++) {
    /* lanes 0, 1 (x0, y0) and 2, 3 (x1, y1) of rows 0-7 and 8-15 */
    __m512i x0 = _mm512_shuffle_i32x4 (u[m], u[4 + m], 0x44);
    __m512i x1 = _mm512_shuffle_i32x4 (u[m], u[4 + m], 0xee);
    __m512i y0 = _mm512_shuffle_i32x4 (u[8 + m], u[12 + m], 0x44);
    __m512i y1 = _mm512_shuffle_i32x4 (u[8 + m], u[12 + m], 0xee);

    r[m] = _mm512_shuffle_i32x4 (x0, y0, 0x88);
    r[4 + m] = _mm512_shuffle_i32x4 (x0, y0, 0xdd);
    r[8 + m] = _mm512_shuffle_i32x4 (x1, y1, 0x88);
    r[12 + m] = _mm512_shuffle_i32x4 (x1, y1, 0xdd);
  }
}

/* Edge blocks (kn or ln under 16) load and store under masks, with
 * ordinary stores. */
TR_INLINE void
edge (char *d, int64_t dk, const char *s, int64_t sl, int kn, int ln)
{
  __m512i r[16];
  const __mmask16 km = (__mmask16) ((1u << kn) - 1);

  for (int l = 0; l < 16; l++)
    r[l] = l < ln ? _mm512_maskz_loadu_epi32 (km, s + l * sl)
                  : _mm512_setzero_si512 ();
  tr16 (r);
  for (int k = 0; k < kn; k++)
    _mm512_mask_storeu_epi32 (d + k * dk, (__mmask16) ((1u << ln) - 1), r[k]);
}

/* The source lines of the block AHEAD blocks on in the walk: further
 * down this column of the band, or past its end the top of the next
 * column (prefetching nothing there left every column's first blocks
 * to wait on memory). */
TR_INLINE void
ahead (const char *s, int64_t sl, int64_t nk, int64_t k0, int64_t l0,
    int64_t l1, int64_t le)
{
  int64_t l = l0 + 16 * AHEAD, k = k0;

  if (l >= le) {
    l = l1 + (l - le);
    k = k0 + 16;
    if (k >= nk || l >= le)
      return;
  }
  s += 4 * k + l * sl;
  for (int i = 0; i < 16 && l + i < le; i++)
    _mm_prefetch (s + i * sl, _MM_HINT_T0);
}

/* One full block: 16 source lines from s loaded and transposed into r,
 * the rows that start on a line (every row, or the even ones where
 * half) streamed at d. */
TR_INLINE void
block (__m512i r[16], char *d, int64_t dk, const char *s, int64_t sl,
    const int half)
{
#pragma GCC unroll 16
  for (int l = 0; l < 16; l++)
    r[l] = _mm512_loadu_si512 ((const void *) (s + l * sl));
  tr16 (r);
#pragma GCC unroll 16
  for (int k = 0; k < 16; k += 1 + half)
    _mm512_stream_si512 ((void *) (d + k * dk), r[k]);
}

/* One column of 16 destination rows from k0 on, rows l1..le - 1 of the
 * band.  half: the pitch is an odd multiple of 32 bytes, so the odd
 * rows start half a line in.  An odd row's line is then the previous
 * block's last 8 items and this block's first 8 (valignd); the first and
 * last half lines of the band go out with ordinary stores. */
TR_INLINE void
column (char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t k0,
    int64_t l1, int64_t le, const int half)
{
  __m512i r[16], p[8];
  int64_t l0 = l1;

  d += k0 * dk;
  if (l0 + 16 <= le) {
    ahead (s, sl, nk, k0, l0, l1, le);
    block (r, d + 4 * l0, dk, s + 4 * k0 + l0 * sl, sl, half);
#pragma GCC unroll 8
    for (int k = 1; half && k < 16; k += 2) {
      _mm256_storeu_si256 (
          (void *) (d + k * dk + 4 * l0), _mm512_castsi512_si256 (r[k]));
      p[k / 2] = r[k];
    }
    for (l0 += 16; l0 + 16 <= le; l0 += 16) {
      ahead (s, sl, nk, k0, l0, l1, le);
      block (r, d + 4 * l0, dk, s + 4 * k0 + l0 * sl, sl, half);
#pragma GCC unroll 8
      for (int k = 1; half && k < 16; k += 2) {
        _mm512_stream_si512 ((void *) (d + k * dk + 4 * l0 - 32),
            _mm512_alignr_epi32 (r[k], p[k / 2], 8));
        p[k / 2] = r[k];
      }
    }
#pragma GCC unroll 8
    for (int k = 1; half && k < 16; k += 2)
      _mm256_storeu_si256 ((void *) (d + k * dk + 4 * l0 - 32),
          _mm512_extracti64x4_epi64 (p[k / 2], 1));
  }
  if (l0 < le)
    edge (d + 4 * l0, dk, s + 4 * k0 + l0 * sl, sl, 16, (int) (le - l0));
}

void
tn_vk_tr4_avx512 (
    char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t nl)
{
  const int half = dk % 64 != 0;
  const int64_t low = sl & -sl, fit = low ? L2_SPAN / low : BAND;
  const int64_t band = fit >= BAND ? BAND : fit >= 16 ? fit : 16;

  for (int64_t l1 = 0; l1 < nl; l1 += band) {
    const int64_t le = nl - l1 < band ? nl : l1 + band;
    int64_t k0 = 0;

    for (; k0 + 16 <= nk; k0 += 16)
      if (half)
        column (d, dk, s, sl, nk, k0, l1, le, 1);
      else
        column (d, dk, s, sl, nk, k0, l1, le, 0);
    for (int64_t l0 = l1; k0 < nk && l0 < le; l0 += 16)
      edge (d + k0 * dk + 4 * l0, dk, s + 4 * k0 + l0 * sl, sl, (int) (nk - k0),
          le - l0 < 16 ? (int) (le - l0) : 16);
  }
}
