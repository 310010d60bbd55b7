/* Internal to core/ewise*.c and its tests: the elementwise kernels. */
#ifndef TN_EWISE_KERN_H
#define TN_EWISE_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "ewise.h"

/* Binary steps first: the order of the operand-taking steps matters to
 * the parser (tn_ew_op_arity). */
#define TN_EW_FOREACH_OP(X)                                                    \
  X (ADD, add, 1)                                                              \
  X (SUB, sub, 1)                                                              \
  X (MUL, mul, 1)                                                              \
  X (DIV, div, 1)                                                              \
  X (POW, pow, 1)                                                              \
  X (MIN, min, 1)                                                              \
  X (MAX, max, 1)                                                              \
  X (MOD, mod, 1)                                                              \
  X (NEG, neg, 0)                                                              \
  X (ABS, abs, 0)                                                              \
  X (SQRT, sqrt, 0)                                                            \
  X (EXP, exp, 0)                                                              \
  X (LOG, log, 0)                                                              \
  X (RELU, relu, 0)                                                            \
  X (SIGMOID, sigmoid, 0)                                                      \
  X (TANH, tanh, 0)                                                            \
  X (FLOOR, floor, 0)                                                          \
  X (CEIL, ceil, 0)                                                            \
  X (ROUND, round, 0)                                                          \
  X (CLAMP, clamp, 2)                                                          \
  X (CAST, cast, 1)

#define TN_EW_ENUM(E, name, arity) TN_EW_##E,
typedef enum { TN_EW_FOREACH_OP (TN_EW_ENUM) TN_EW_NOPS } tn_ew_op;
#undef TN_EW_ENUM

/* Division by a float32 scalar c in the AVX2 kernels, as
 * fma (x, zh, RN (x zl)) with zh ~ 1/c, zl ~ 1/c - zh, where that was
 * proven to give the bits of x / c: for |x| from 2^emin up and NaN; for
 * +0 when zh and zl have one sign or zh > 0; for -0 and ±inf when they
 * have one sign and zl is not 0 (inf times 0 is NaN).  Without bare,
 * each vector is tested for |x| in [2^s, 2^(s + w)) (w a power of two)
 * and divided with vdivps if not; fast false: always vdivps. */
typedef struct {
  float zh, zl;
  uint32_t lo, mask; /* 2^s as bits; the bits above w binades, no sign */
  int emin;
  bool fast;
  bool same; /* zh and zl of one sign (or zl 0) */
  bool bare; /* no test per vector: every input is proven */
} tn_ew_rdiv;

/* What o points to for the scalar variant (0) of every kernel: the
 * operand(s) in the compute type, then the plan of each division by a
 * float32 scalar (the step's, or op1's and op2's in a pair). */
typedef struct {
  union {
    unsigned char b[16];
    double align;
  } c;
  tn_ew_rdiv div[2];
} tn_ew_scalars;

/* Plans x / c for the AVX2 kernels, proving it on every mantissa of one
 * binade (a few ms); fast false when it fails, when c or 1/c is not
 * normal, or without AVX2+FMA. */
void tn_ew_rdiv_plan (tn_ew_rdiv *p, float c);
/* Drops the test per vector when every input the division will see is
 * +0, NaN or at least 2^emin in magnitude, or with specials also ±inf or
 * -0, and the plan gets those right (see tn_ew_rdiv). */
void tn_ew_rdiv_bare (tn_ew_rdiv *p, int emin, bool specials);
/* How many divisions of p's steps are bare (tests). */
int tn_ew_bare_divisions (const tn_ewise *p);
/* How many divisors tn_ew_rdiv_plan has checked (tests). */
unsigned long tn_ew_rdiv_checks (void);
/* Whether tn_ew_rdiv_plan may plan any division fast (the default); off,
 * chains compiled from then on keep vdivps (benchmarks compare both). */
void tn_ew_rdiv_allow (bool on);

/* d[i] = op (s[i], operand): the operand is one item (variant 0, or the
 * two bounds of clamp; o is a tn_ew_scalars) or n items (variant 1), all
 * in the compute type.
 * d may equal s; neither overlaps the operand. */
typedef void (*tn_ew_kern) (void *d, const void *s, const void *o, size_t n);

/* The kernel for op on compute dtype t (int8..uint64, float32, float64),
 * NULL when there is none (bool, float16, bfloat16, a float-only op on
 * integers, an op that is the identity on t). */
tn_ew_kern tn_ew_kernel (
    tn_ewise_impl impl, tn_ew_op op, tn_dtype t, int variant);
/* x -> op2 (op1 (x, o[0]), o[1]) in one loop, then relu when asked, for
 * op1 and op2 among add, sub, mul, div with scalar operands, on float32
 * and float64; NULL otherwise.  Rounds after each op, as the steps
 * would. */
tn_ew_kern tn_ew_pair_kernel (
    tn_ewise_impl impl, tn_ew_op op1, tn_ew_op op2, tn_dtype t, bool relu);
/* The same from (float) x, for x of int8, uint8, int16 or uint16 (exact
 * in float32), to float32; either op may be TN_EW_NOPS, "none".  Never
 * in place (the item sizes differ). */
tn_ew_kern tn_ew_cast_pair_kernel (
    tn_ewise_impl impl, tn_dtype from, tn_ew_op op1, tn_ew_op op2, bool relu);
/* The implementation AUTO resolves to on this CPU. */
tn_ewise_impl tn_ew_resolve (tn_ewise_impl impl);
/* The implementation set with tn_ewise_set_impl, resolved. */
tn_ewise_impl tn_ew_current (void);

/* float16/bfloat16 blocks are computed in float32: widen, narrow, and
 * round a float32 block to the nearest value of t (in place). */
void tn_ew_widen (float *d, const void *s, tn_dtype t, size_t n);
void tn_ew_narrow (void *d, const float *s, tn_dtype t, size_t n);
void tn_ew_round (float *x, tn_dtype t, size_t n, void *tmp);

#endif
