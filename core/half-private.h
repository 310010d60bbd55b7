/* Internal to core/ and its tests: choose the bulk float16 path. */
#ifndef TN_HALF_PRIVATE_H
#define TN_HALF_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum {
  TN_HALF_IMPL_AUTO, /* F16C when the CPU has it */
  TN_HALF_IMPL_PORTABLE,
  TN_HALF_IMPL_F16C /* ignored (portable) without F16C */
} tn_half_impl;

/* Nonzero when the CPU (and OS) can run F16C. */
int tn_half_have_f16c (void);
/* Selects the path the bulk forms use from now on, for all threads; tests
 * force each in turn.  Returns the path actually in effect. */
tn_half_impl tn_half_set_impl (tn_half_impl impl);

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

#endif
