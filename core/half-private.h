/* Internal to core/ and its tests: the bulk float16 kernels, one table. */
#ifndef TN_HALF_PRIVATE_H
#define TN_HALF_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The bulk conversions of half.h: n items, any alignment, every entry
 * giving the bits of the scalar conversions (NaN comes out quiet). */
typedef struct {
  void (*f16_to_f32) (float *dst, const uint16_t *src, size_t n);
  void (*f32_to_f16) (uint16_t *dst, const float *src, size_t n);
  void (*bf16_to_f32) (float *dst, const uint16_t *src, size_t n);
  void (*f32_to_bf16) (uint16_t *dst, const float *src, size_t n);
  /* The same two narrowings with non-temporal stores for the whole
   * vectors of dst (ordinary stores up to the first vector border and
   * for the tail), for outputs of TN_STREAM_BYTES or more (cpu.h); the
   * caller fences (tn_stream_fence).  Portable: the entries above. */
  void (*f32_to_f16_stream) (uint16_t *dst, const float *src, size_t n);
  void (*f32_to_bf16_stream) (uint16_t *dst, const float *src, size_t n);
} tn_half_dsp;

/* The portable entries, then those the CPU features in flags (TN_CPU_*)
 * allow. */
void tn_half_dsp_init (tn_half_dsp *d, unsigned flags);
/* The table for tn_cpu_flags (), rebuilt when the mask changes. */
const tn_half_dsp *tn_half_dsp_get (void);
/* x86/half-f16c.c (the avx2 library of core/meson.build). */
void tn_f16_to_f32_f16c (float *dst, const uint16_t *src, size_t n);
void tn_f32_to_f16_f16c (uint16_t *dst, const float *src, size_t n);
/* The bfloat16 ones there need AVX2 only (integer shifts and adds). */
void tn_bf16_to_f32_avx2 (float *dst, const uint16_t *src, size_t n);
void tn_f32_to_bf16_avx2 (uint16_t *dst, const float *src, size_t n);
void tn_f32_to_f16_f16c_stream (uint16_t *dst, const float *src, size_t n);
void tn_f32_to_bf16_avx2_stream (uint16_t *dst, const float *src, size_t n);
/* x86/half-avx512.c (the avx512 library): vcvtps2ph on zmm, 64-byte
 * stores. */
void tn_f32_to_f16_avx512 (uint16_t *dst, const float *src, size_t n);
void tn_f32_to_f16_avx512_stream (uint16_t *dst, const float *src, size_t n);
/* x86/half-avx512bf16.c (the avx512bf16 library): vcvtne2ps2bf16, which
 * flushes float32 subnormals to zero, with the subnormal lanes rounded
 * as the portable entry rounds them. */
void tn_f32_to_bf16_avx512bf16 (uint16_t *dst, const float *src, size_t n);
void tn_f32_to_bf16_avx512bf16_stream (
    uint16_t *dst, const float *src, size_t n);

/* Nonzero when the bulk forms may use F16C: tn_cpu_flags () & TN_CPU_F16C.
 * Kept for core/reduce-kern.c. */
int tn_half_have_f16c (void);

/* The bfloat16 conversions inline, for loops in other files (cast.c). */
static inline float
tn_bf16_to_f32_inline (uint16_t b)
{
  uint32_t u = (uint32_t) b << 16;
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

/* Same exponent range as float32, so rounding the low 16 bits to nearest
 * even is all there is: subnormals, overflow to infinity and carries come
 * out right.  Only NaN needs care, or a payload held in the low bits alone
 * would round to infinity. */
static inline uint16_t
tn_f32_to_bf16_inline (float f)
{
  uint32_t u;

  memcpy (&u, &f, sizeof u);
  if ((u & 0x7fffffff) > 0x7f800000)
    return (uint16_t) ((u >> 16) | 0x40);
  return (uint16_t) ((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* The bulk bfloat16 forms (cast.c's contiguous float32 pairs). */
void tn_bf16_to_f32_n (float *dst, const uint16_t *src, size_t n);
void tn_f32_to_bf16_n (uint16_t *dst, const float *src, size_t n);

#endif
