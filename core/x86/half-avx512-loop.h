/* The loops of the AVX-512 float32 -> 16-bit casts (x86/half-avx512.c for
 * float16, x86/half-avx512bf16.c for bfloat16), written once: 32 items a
 * step into one 64-byte store, a masked tail, and a stream entry that
 * stores whole lines from a 64-byte border of dst with the source
 * prefetched ahead.  Each file compiles it with its own ISA flags and
 * its own conversion of 32 items. */
#ifndef TN_X86_HALF_AVX512_LOOP_H
#define TN_X86_HALF_AVX512_LOOP_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* Items of the source the stream entry asks the caches for ahead of its
 * loads (4 KiB).  On the Xeon of session 10 the 16M casts ran at about
 * the sum of their memory time and their instructions' time without it
 * (the hardware prefetchers alone kept too few lines in flight): 0.70-0.75
 * of a memcpy of the output bytes, 0.83-0.95 with it (docs/perf-notes.md,
 * "Session 10 H3"). */
#define TN_HALF512_AHEAD 1024

/* NAME (dst, src, n) and NAME##_stream; CVT32 (a, b) turns items 0-15 (a)
 * and 16-31 (b) into one vector of 32 halves, in order. */
#define TN_HALF512_LOOPS(NAME, CVT32)                                          \
  void NAME (uint16_t *dst, const float *src, size_t n)                        \
  {                                                                            \
    size_t i = 0;                                                              \
                                                                               \
    for (; i + 32 <= n; i += 32)                                               \
      _mm512_storeu_si512 (dst + i,                                            \
          CVT32 (_mm512_loadu_ps (src + i), _mm512_loadu_ps (src + i + 16)));  \
    if (i < n) {                                                               \
      /* masked: the lanes past n are neither read nor written */              \
      size_t m = n - i;                                                        \
      __mmask16 ka = (__mmask16) (m >= 16 ? 0xffff : (1u << m) - 1);           \
      __mmask16 kb = (__mmask16) (m > 16 ? (1u << (m - 16)) - 1 : 0);          \
      __mmask32 k = (__mmask32) (((uint64_t) 1 << m) - 1);                     \
                                                                               \
      _mm512_mask_storeu_epi16 (dst + i, k,                                    \
          CVT32 (_mm512_maskz_loadu_ps (ka, src + i),                          \
              _mm512_maskz_loadu_ps (kb, src + i + 16)));                      \
    }                                                                          \
  }                                                                            \
                                                                               \
  void NAME##_stream (uint16_t *dst, const float *src, size_t n)               \
  {                                                                            \
    size_t head = (-(uintptr_t) dst & 63) / sizeof *dst, i;                    \
                                                                               \
    if (((uintptr_t) dst & 1) || head >= n) {                                  \
      NAME (dst, src, n);                                                      \
      return;                                                                  \
    }                                                                          \
    NAME (dst, src, head);                                                     \
    for (i = head; i + 32 <= n; i += 32) {                                     \
      /* prefetches past the end of src never fault */                         \
      _mm_prefetch ((const char *) (src + i + TN_HALF512_AHEAD), _MM_HINT_T0); \
      _mm_prefetch (                                                           \
          (const char *) (src + i + TN_HALF512_AHEAD + 16), _MM_HINT_T0);      \
      _mm512_stream_si512 ((void *) (dst + i),                                 \
          CVT32 (_mm512_loadu_ps (src + i), _mm512_loadu_ps (src + i + 16)));  \
    }                                                                          \
    NAME (dst + i, src + i, n - i);                                            \
  }

#endif
