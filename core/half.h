/* float16 and bfloat16 <-> float32/float64, round-to-nearest-even. */
#ifndef TN_HALF_H
#define TN_HALF_H

#include "api.h"

#include <stddef.h>
#include <stdint.h>

TN_API float tn_f16_to_f32 (uint16_t h);
TN_API uint16_t tn_f32_to_f16 (float f);
/* Rounds once from double (no double rounding through float). */
TN_API uint16_t tn_f64_to_f16 (double d);

/* bfloat16 is the top half of a float32: widening is a shift; narrowing
 * rounds to nearest even and keeps NaN a (quiet) NaN. */
TN_API float tn_bf16_to_f32 (uint16_t b);
TN_API uint16_t tn_f32_to_bf16 (float f);
TN_API uint16_t tn_f64_to_bf16 (double d);

/* Bulk forms; use F16C when the CPU has it (chosen at run time). */
TN_API void tn_f16_to_f32_n (float *dst, const uint16_t *src, size_t n);
TN_API void tn_f32_to_f16_n (uint16_t *dst, const float *src, size_t n);

#endif
