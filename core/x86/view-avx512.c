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
 * (docs/perf-notes.md, "Session 14").  Destination rows that do not
 * start on a line (a pitch no multiple of 64: the 1080p permute) keep
 * the SSE2 tiles: halves of lines streamed apart measured 3.4x, and
 * whole lines carried across two blocks no faster than the tiles.
 * Blocks at the edges load and store under masks, with ordinary
 * stores. */
#include <immintrin.h>

#include "core/view-kern.h"

/* Rows l walked per band: the band's source lines (BAND rows, one line
 * of each per block column) stay in L2 while its k columns are swept. */
#define BAND 128

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

/* One block: kn <= 16 destination rows from k0 on, ln <= 16 items from
 * l0 on; whole blocks stream, edge blocks store under masks. */
TR_INLINE void
block (char *d, int64_t dk, const char *s, int64_t sl, int kn, int ln)
{
  __m512i r[16];
  const __mmask16 km = (__mmask16) ((1u << kn) - 1);

  if (kn == 16 && ln == 16) {
#pragma GCC unroll 16
    for (int l = 0; l < 16; l++)
      r[l] = _mm512_loadu_si512 ((const void *) (s + l * sl));
    tr16 (r);
#pragma GCC unroll 16
    for (int k = 0; k < 16; k++)
      _mm512_stream_si512 ((void *) (d + k * dk), r[k]);
    return;
  }
  for (int l = 0; l < 16; l++)
    r[l] = l < ln ? _mm512_maskz_loadu_epi32 (km, s + l * sl)
                  : _mm512_setzero_si512 ();
  tr16 (r);
  for (int k = 0; k < kn; k++)
    _mm512_mask_storeu_epi32 (d + k * dk, (__mmask16) ((1u << ln) - 1), r[k]);
}

void
tn_vk_tr4_avx512 (
    char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t nl)
{
  for (int64_t l1 = 0; l1 < nl; l1 += BAND) {
    const int64_t le = nl - l1 < BAND ? nl : l1 + BAND;

    for (int64_t k0 = 0; k0 < nk; k0 += 16) {
      const int kn = nk - k0 < 16 ? (int) (nk - k0) : 16;

      for (int64_t l0 = l1; l0 < le; l0 += 16) {
        const char *sb = s + 4 * k0 + l0 * sl;

        /* The next block's source lines, one per row l: a column the
         * hardware prefetchers do not follow. */
        if (l0 + 32 <= le)
          for (int l = 16; l < 32; l++)
            _mm_prefetch (sb + l * sl, _MM_HINT_T0);
        block (d + k0 * dk + 4 * l0, dk, sb, sl, kn,
            le - l0 < 16 ? (int) (le - l0) : 16);
      }
    }
  }
}
