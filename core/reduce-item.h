/* Internal to the reduction kernels (core/reduce-tmpl.c, core/x86/): how
 * they read an item, and the scalar steps every version of a kernel shares
 * for its tails, so that all of them round alike. */
#ifndef TN_REDUCE_ITEM_H
#define TN_REDUCE_ITEM_H

#include <math.h>
#include <stdint.h>

#include "half-private.h"
#include "half.h"
#include "reduce-kern.h"

#define RK_INLINE static inline __attribute__ ((always_inline))

RK_INLINE int
rk_is_float (tn_dtype t)
{
  return t == TN_FLOAT16 || t == TN_BFLOAT16 || t == TN_FLOAT32
         || t == TN_FLOAT64;
}

/* Every NaN result is written as the one quiet NaN of C's NAN (+, payload
 * 0: 0x7fc00000 as float32): which NaN a fold ends with follows the
 * operand order of its additions (x86 keeps the first NaN operand, and
 * inf + -inf makes the negative default NaN), which the kernels of each
 * layout choose, so that without this a strided view and its dense copy
 * could differ in a NaN's sign. */
RK_INLINE double
rk_canon (double v)
{
  return isnan (v) ? (double) NAN : v;
}

RK_INLINE float
rk_canon_f (float v)
{
  return isnan (v) ? NAN : v;
}

/* bool counts as signed: its items are 0 and 1 either way. */
RK_INLINE int
rk_is_unsigned (tn_dtype t)
{
  return t == TN_UINT8 || t == TN_UINT16 || t == TN_UINT32 || t == TN_UINT64;
}

/* Item i of p as float64: exact for every dtype but 64-bit integers beyond
 * 2^53 (rounded to nearest); bool items are 0 or 1. */
RK_INLINE double
rk_ld_d (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
#define RK_LD_D(E, name, ctype, kind)                                          \
  case E: {                                                                    \
    ctype x = ((const ctype *) p)[i];                                          \
    if (E == TN_FLOAT16)                                                       \
      return tn_f16_to_f32 ((uint16_t) x);                                     \
    if (E == TN_BFLOAT16)                                                      \
      return tn_bf16_to_f32_inline ((uint16_t) x);                             \
    if (kind == TN_KIND_BOOL)                                                  \
      return x != 0;                                                           \
    return (double) x;                                                         \
  }
    TN_FOREACH_DTYPE (RK_LD_D)
#undef RK_LD_D
  default:
    return 0;
  }
}

/* Item i of a float16/bfloat16/float32 tensor as float32 (exact). */
RK_INLINE float
rk_ld_f (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
  case TN_FLOAT16:
    return tn_f16_to_f32 (((const uint16_t *) p)[i]);
  case TN_BFLOAT16:
    return tn_bf16_to_f32_inline (((const uint16_t *) p)[i]);
  case TN_FLOAT32:
    return ((const float *) p)[i];
  default:
    return (float) rk_ld_d (t, p, i);
  }
}

/* Item i of a bool or integer tensor, sign- or zero-extended to 64 bits. */
RK_INLINE uint64_t
rk_ld_u (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
#define RK_LD_U(E, name, ctype, kind)                                          \
  case E: {                                                                    \
    ctype x = ((const ctype *) p)[i];                                          \
    if (kind == TN_KIND_BOOL)                                                  \
      return x != 0;                                                           \
    if (kind == TN_KIND_INT)                                                   \
      return (uint64_t) (int64_t) x;                                           \
    if (kind == TN_KIND_UINT)                                                  \
      return (uint64_t) x;                                                     \
    return 0;                                                                  \
  }
    TN_FOREACH_DTYPE (RK_LD_U)
#undef RK_LD_U
  default:
    return 0;
  }
}

RK_INLINE __int128
rk_ld_q (tn_dtype t, const void *p, int64_t i)
{
  if (rk_is_unsigned (t))
    return (__int128) rk_ld_u (t, p, i);
  return (__int128) (int64_t) rk_ld_u (t, p, i);
}

/* An int64 in the order of the items: unsigned values shifted down by
 * 2^63 (a flip of the top bit). */
RK_INLINE int64_t
rk_key (tn_dtype t, const void *p, int64_t i)
{
  uint64_t u = rk_ld_u (t, p, i);

  return (int64_t) (rk_is_unsigned (t) ? u ^ (UINT64_C (1) << 63) : u);
}

RK_INLINE double
rk_identity (tn_rk_kind kind)
{
  return kind == TN_RK_DMUL ? 1.0 : -0.0;
}

RK_INLINE double
rk_dop (tn_rk_kind kind, double acc, double x, double m)
{
  switch (kind) {
  case TN_RK_DMUL:
    return acc * x;
  case TN_RK_DSQ:
    return acc + x * x;
  case TN_RK_DDEV:
    return acc + (x - m) * (x - m);
  default:
    return acc + x;
  }
}

RK_INLINE double
rk_dfold (tn_rk_kind kind, double s, double lane)
{
  return kind == TN_RK_DMUL ? s * lane : s + lane;
}

/* The fold of one row of k <= 32 items (kind FSUM, DADD, DMUL or DSQ):
 * item l is lane l's only item; FSUM's lane is its float32 half (-0.0f +
 * x) added to -0.0.  The lanes k..31 hold the identity; folding it in is
 * idempotent (x + -0.0 and x * 1.0 are x, or x's flush to zero or quiet
 * NaN, whose fold again changes nothing), so one fold stands for them
 * all. */
RK_INLINE double
rk_short_row (tn_dtype t, tn_rk_kind kind, const void *row, int64_t k)
{
  const double id = rk_identity (kind);
  double s = id;

  for (int64_t l = 0; l < k; l++) {
    double lane = kind == TN_RK_FSUM
                      ? id + (double) (-0.0f + rk_ld_f (t, row, l))
                      : rk_dop (kind, id, rk_ld_d (t, row, l), 0.0);

    s = rk_dfold (kind, s, lane);
  }
  if (k < TN_RK_LANES)
    s = rk_dfold (kind, s, id);
  return s;
}

/* Column arrays in scratch start at multiples of 64 bytes. */
RK_INLINE int64_t
rk_pad (int64_t nc)
{
  return (nc + 7) & ~(int64_t) 7;
}

/* IEEE 754-2019 minimum/maximum for numbers (NaN is flagged apart):
 * -0.0 is below +0.0. */
RK_INLINE double
rk_fmin (double a, double x)
{
  return (x < a || (x == a && signbit (x))) ? x : a;
}

RK_INLINE double
rk_fmax (double a, double x)
{
  return (x > a || (x == a && !signbit (x))) ? x : a;
}

#endif
