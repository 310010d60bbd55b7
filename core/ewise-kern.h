/* Internal to core/ewise*.c, core/x86/ewise-*.c and their tests: the
 * elementwise kernels, one table of them per CPU level. */
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

/* The ops between two tensors that are no steps (core/combine.h): the
 * comparisons, which give bool, and the bitwise ops of integers (and of
 * bool, through uint8: 0 and 1 stay 0 and 1). */
#define TN_EW_FOREACH_REL(X)                                                   \
  X (EQ, eq) X (NE, ne) X (LT, lt) X (LE, le) X (GT, gt) X (GE, ge)
#define TN_EW_FOREACH_BIT(X) X (AND, and) X (OR, or) X (XOR, xor)
#define TN_EW_ENUM(E, name) TN_EW_##E,
typedef enum { TN_EW_FOREACH_REL (TN_EW_ENUM) TN_EW_NREL } tn_ew_rel;
typedef enum { TN_EW_FOREACH_BIT (TN_EW_ENUM) TN_EW_NBIT } tn_ew_bit;
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

/* Plans x / c for the kernels of tn_ewise_dsp_get (), proving it with
 * its rdiv_check on every mantissa of one binade (a few ms); fast false
 * when it fails, when c or 1/c is not normal, or without rdiv_check. */
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

/* d[i] = c[i] ? a[i] : b[i] on items of one size: c holds bool bytes (any
 * byte other than 0 is true), a, b and d n items each; no two overlap. */
typedef void (*tn_ew_where_kern) (
    void *d, const void *c, const void *a, const void *b, size_t n);

/* The index of "nothing" for op1 or op2 in a fused run, after add, sub,
 * mul and div (0 to 3 in tn_ew_op). */
#define TN_EW_NOP 4

/* The pattern of a rep kernel: 192 bytes, three 64-byte lines (48
 * float32 items, 24 float64), the least that every vector length divides
 * and that the periods 1, 2, 3, 4, 6, 8, 12, 16, 24 (and 48 of float32)
 * divide: the channels of HWC images (RGB, RGBA) among them. */
#define TN_EW_REP_BYTES 192

/* M (0) ... M (49): one kernel per entry run[t][k / 10][k / 2 % 5][k % 2]
 * of a source dtype t, for the files that write them (constants in each,
 * so each is one straight loop). */
#define TN_EW_REP10(M, t)                                                      \
  M (t##0)                                                                     \
  M (t##1)                                                                     \
  M (t##2) M (t##3) M (t##4) M (t##5) M (t##6) M (t##7) M (t##8) M (t##9)
#define TN_EW_REP50(M)                                                         \
  TN_EW_REP10 (M, )                                                            \
  TN_EW_REP10 (M, 1) TN_EW_REP10 (M, 2) TN_EW_REP10 (M, 3) TN_EW_REP10 (M, 4)

/* The elementwise kernels of one CPU level (core/cpu.h); NULL where there
 * is none.
 * - step[op][t][variant]: op on compute dtype t (int8..uint64, float32,
 *   float64; none for bool, float16, bfloat16, a float-only op on
 *   integers, an op that is the identity on t), variant 0 with one
 *   operand item, 1 with n.
 * - run[t][op1][op2][relu]: x -> op2 (op1 (x, o[0]), o[1]) in one loop,
 *   then relu when asked, op1 and op2 among add, sub, mul, div and
 *   TN_EW_NOP, with scalar operands (a tn_ew_scalars), rounding after
 *   each op as the steps would: from float32 and float64 in their own
 *   type, op1 not TN_EW_NOP (in place allowed), and from int8, uint8,
 *   int16 and uint16 as (float) x (exact) to float32 (never in place:
 *   the item sizes differ).
 * - rev[op][t]: op (o[0], s[i]), the operand first, for the binary steps
 *   add..mod (the steps' op (s[i], o[0]) with the sides swapped, for
 *   core/combine.c's scalar first operand); d may equal s.
 * - rel[r][t][variant]: the comparison r of s[i] with the operand (one
 *   item or n, of t), 1 or 0 as bool bytes into d; d may equal s when t
 *   has items of one byte.  No bool, float16, bfloat16 entries (bool
 *   compares as uint8, the half types widened to float32, exactly).
 * - bit[b][t][variant]: and, or, xor on the integer dtypes, as step.
 * - where[k]: tn_ew_where_kern on items of 1 << k bytes.
 * - stream[op][t]: step[op][t][1] for add..div on float32 and float64
 *   with the output kept out of the caches (non-temporal stores where
 *   the ISA has them; the portable entry is the step), for outputs far
 *   larger than the caches; d overlaps neither input.  The caller issues
 *   a seq_cst fence after its last call, before another thread may read
 *   d (non-temporal stores are ordered by fences only).
 * - rep[op][t][rev][stream]: d[i] = s[i] op o[i % L] (rev: o[i % L] op
 *   s[i]) for add..div on float32 and float64, L = TN_EW_REP_BYTES / the
 *   item size, o holding L items: an operand whose period divides L
 *   (core/combine.c's <1080, 1920, 3> + <3>), which the ISA kernels hold
 *   in registers, so that the op streams over s alone; stream as the
 *   stream entries (the portable entries store plainly; the caller
 *   fences).  d may equal s, not with stream.
 * - cast_stream[t]: run[t][TN_EW_NOP][TN_EW_NOP][0] (the cast of int8,
 *   uint8, int16, uint16 to float32) with non-temporal stores where the
 *   ISA has them (the portable entry is the run), for outputs far larger
 *   than the caches; the caller fences as for stream.
 * - rdiv_check: whether fma (x, zh, RN (x zl)) is x / c for every x in
 *   [2^e, 2^(e+1)); NULL when no kernel divides that way. */
typedef struct {
  tn_ew_kern step[TN_EW_NOPS][TN_NDTYPES][2];
  tn_ew_kern run[TN_NDTYPES][TN_EW_NOP + 1][TN_EW_NOP + 1][2];
  tn_ew_kern rev[TN_EW_MOD + 1][TN_NDTYPES];
  tn_ew_kern rel[TN_EW_NREL][TN_NDTYPES][2];
  tn_ew_kern bit[TN_EW_NBIT][TN_NDTYPES][2];
  tn_ew_where_kern where[4];
  tn_ew_kern stream[TN_EW_DIV + 1][TN_NDTYPES];
  tn_ew_kern cast_stream[TN_NDTYPES];
  tn_ew_kern rep[TN_EW_DIV + 1][TN_NDTYPES][2][2];
  bool (*rdiv_check) (float c, float zh, float zl, int e);
} tn_ewise_dsp;

/* Fills d with the kernels the CPU features in flags (TN_CPU_*) allow:
 * the portable ones, then those of each ISA in flags. */
void tn_ewise_dsp_init (tn_ewise_dsp *d, unsigned flags);

/* The table for tn_cpu_flags (), rebuilt when the mask changes; a chain
 * keeps the kernels of the table it was compiled with. */
const tn_ewise_dsp *tn_ewise_dsp_get (void);

/* The fillers behind tn_ewise_dsp_init: the template (core/ewise-tmpl.c)
 * as built for one ISA (c: portable), and the AVX2 table, the template's
 * AVX2 build with core/x86/ewise-avx2.c's kernels over some entries. */
void tn_ew_fill_c (tn_ewise_dsp *d);
void tn_ew_fill_avx2 (tn_ewise_dsp *d);
void tn_ew_init_avx2 (tn_ewise_dsp *d);
/* core/x86/ewise-avx512.c's kernels over the table's add, sub and mul of
 * float32 and float64 (steps, rev, stream). */
void tn_ew_init_avx512 (tn_ewise_dsp *d);

/* How the items of an operand are reached from the flat index of a dense
 * tensor it is broadcast over: axes of extent 1 dropped, neighbouring
 * axes the operand walks alike merged; strides in items (0 where it
 * broadcasts, any other value for a strided view). */
typedef struct {
  int rank;
  int64_t dims[TN_MAX_RANK], strides[TN_MAX_RANK];
} tn_ew_walk;

/* The walk of an operand whose strides over the tensor's dims (rank of
 * them) are strides. */
void tn_ew_walk_init (
    tn_ew_walk *w, const int64_t *dims, const int64_t *strides, int rank);
/* Items [b, b + m) of the walk, es bytes each from base, densely into d:
 * by runs along the innermost axis (one division per axis per call). */
void tn_ew_gather (void *d, const void *base, size_t es, const tn_ew_walk *w,
    int64_t b, int64_t m);

/* float16/bfloat16 blocks are computed in float32: widen, narrow, and
 * round a float32 block to the nearest value of t (in place). */
void tn_ew_widen (float *d, const void *s, tn_dtype t, size_t n);
void tn_ew_narrow (void *d, const float *s, tn_dtype t, size_t n);
void tn_ew_round (float *x, tn_dtype t, size_t n, void *tmp);

#endif
