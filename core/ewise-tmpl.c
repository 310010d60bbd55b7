/* The elementwise kernels in plain C, written once: compiled into core as
 * the portable kernels (tn_ew_fill_c) and again per ISA by meson with
 * TN_ISA set and that ISA's flags (tn_ew_fill_avx2: the same loops
 * vectorised for AVX2).  ewise-tmpl.h holds the kernels of one dtype and
 * is included below once per dtype.
 *
 * Two rules keep every build of a kernel at the bits of the portable one:
 * - each kernel is one loop the compiler vectorises, in runs of EW_RUN
 *   items: GCC's -O2 cost model ("very cheap") vectorises only loops that
 *   need no scalar epilogue, which a run of a fixed count does not; the
 *   last items go through the same expression one at a time;
 * - no product is fused into the sum that follows it: the project builds
 *   with -ffp-contract=off (meson.build), which GCC and Clang both honour,
 *   so x * a + b rounds twice on every ISA as it does here.  The fused
 *   runs (mul:a,add:b) are built portable only all the same: an ISA that
 *   speeds them up writes its own (x86/ewise-avx2.c). */
#include "ewise-kern.h"

#include <stdint.h>
#include <string.h>
#include <tgmath.h>

#ifdef TN_ISA
#define EW_PORTABLE 0
#else
#define EW_PORTABLE 1
#define TN_ISA c
#endif

#define EW_INLINE static inline __attribute__ ((always_inline))
#define EW_CAT_(a, b) a##_##b
#define EW_CAT(a, b) EW_CAT_ (a, b)

/* Items per run of the loops (see above): a multiple of every vector
 * length in items, 32 uint8 in AVX2 the largest. */
#define EW_RUN 32

/* d[j] = EXPR for every j < n: in runs of EW_RUN, then one at a time.
 * Used in functions whose pointer parameters are restrict, which is what
 * lets GCC vectorise without a run-time alias check (restrict locals do
 * not), so in place (d == s) and out of place are separate functions. */
#define EW_LOOP(EXPR)                                                          \
  do {                                                                         \
    size_t i_ = 0, j;                                                          \
    for (; i_ + EW_RUN <= n; i_ += EW_RUN)                                     \
      for (size_t k_ = 0; k_ < EW_RUN; k_++) {                                 \
        j = i_ + k_;                                                           \
        d[j] = (EXPR);                                                         \
      }                                                                        \
    for (j = i_; j < n; j++)                                                   \
      d[j] = (EXPR);                                                           \
  } while (0)

/* Items of a rep kernel's pattern (ewise-kern.h) of items of T. */
#define EW_REP_L (TN_EW_REP_BYTES / sizeof (T))

/* Integer helpers: floor division and modulo as NumPy's // and %, with a
 * zero divisor giving 0 and -1 handled apart (INT_MIN / -1 wraps). */
static inline int64_t
ew_floordiv (int64_t a, int64_t b)
{
  int64_t q;

  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t) (0 - (uint64_t) a);
  q = a / b;
  if (a % b != 0 && (a < 0) != (b < 0))
    q--;
  return q;
}

static inline int64_t
ew_floormod (int64_t a, int64_t b)
{
  int64_t r;

  if (b == 0 || b == -1)
    return 0;
  r = a % b;
  if (r != 0 && (r < 0) != (b < 0))
    r += b;
  return r;
}

/* Square and multiply modulo 2^64; the caller keeps the low bits. */
static inline uint64_t
ew_ipow (uint64_t x, uint64_t k)
{
  uint64_t r = 1;

  while (k) {
    if (k & 1)
      r *= x;
    x *= x;
    k >>= 1;
  }
  return r;
}

/* The kinds of dtype ewise-tmpl.h tells apart. */
#define EW_INT 1
#define EW_UINT 2
#define EW_FLOAT 3

/* Kernels of ewise-tmpl.h, one per table entry, each with its op as a
 * constant: variant 0 (one operand item) and 1 (n of them) of a binary
 * op, a unary op, fused run k (TN_EW_REP50). */
#define EW_BINARY(OP, op)                                                      \
  static void FN (op##_s) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_s) (dv, sv, ov, n, OP);                                           \
  }                                                                            \
  static void FN (op##_v) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_v) (dv, sv, ov, n, OP);                                           \
  }
/* A binary step with the operand first (rev). */
#define EW_REV(OP, op)                                                         \
  static void FN (op##_r) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_r) (dv, sv, ov, n, OP);                                           \
  }
/* A rep kernel (ewise-kern.h), both sides. */
#define EW_REP(OP, op)                                                         \
  static void FN (op##_p) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_p) (dv, sv, ov, n, OP, false);                                    \
  }                                                                            \
  static void FN (op##_pr) (                                                   \
      void *dv, const void *sv, const void *ov, size_t n)                      \
  {                                                                            \
    FN (kern_p) (dv, sv, ov, n, OP, true);                                     \
  }
/* A comparison, variants 0 and 1. */
#define EW_REL(R, r)                                                           \
  static void FN (r##_rs) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_rel) (dv, sv, ov, n, R, false);                                   \
  }                                                                            \
  static void FN (r##_rv) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_rel) (dv, sv, ov, n, R, true);                                    \
  }
#define EW_UNARY(OP, op)                                                       \
  static void FN (op##_s) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (kern_s) (dv, sv, ov, n, OP);                                           \
  }
#define EW_RUN_K(k)                                                            \
  static void FN (run##k) (void *dv, const void *sv, const void *ov, size_t n) \
  {                                                                            \
    FN (run) (dv, sv, ov, n, k / 10, k / 2 % 5, k % 2);                        \
  }
#define EW_RUN_ENTRY(k) FN (run##k),
#define EW_SET2(OP, op)                                                        \
  d->step[OP][DT][0] = FN (op##_s);                                            \
  d->step[OP][DT][1] = FN (op##_v)
#define EW_SETREP(OP, op)                                                      \
  d->rep[OP][DT][0][0] = d->rep[OP][DT][0][1] = FN (op##_p);                   \
  d->rep[OP][DT][1][0] = d->rep[OP][DT][1][1] = FN (op##_pr)
#define EW_SETBIT(B, op)                                                       \
  d->bit[B][DT][0] = FN (op##_s);                                              \
  d->bit[B][DT][1] = FN (op##_v)
#define EW_SETREL(R, r)                                                        \
  d->rel[R][DT][0] = FN (r##_rs);                                              \
  d->rel[R][DT][1] = FN (r##_rv)

/* The bitwise ops in the template's apply, past every step (tn_ew_bit in
 * this order). */
#define EW_AND (TN_EW_NOPS + 1)
#define EW_OR (TN_EW_NOPS + 2)
#define EW_XOR (TN_EW_NOPS + 3)

/* Per dtype: T its C type; U the unsigned type of its width (wrapping
 * integer arithmetic, a float's bits); NAME, DT and KIND; for the dtypes
 * with fused runs, R, the type they compute in. */
#define T int8_t
#define U uint8_t
#define NAME int8
#define DT TN_INT8
#define KIND EW_INT
#define R float
#include "ewise-tmpl.h"

#define T uint8_t
#define U uint8_t
#define NAME uint8
#define DT TN_UINT8
#define KIND EW_UINT
#define R float
#include "ewise-tmpl.h"

#define T int16_t
#define U uint16_t
#define NAME int16
#define DT TN_INT16
#define KIND EW_INT
#define R float
#include "ewise-tmpl.h"

#define T uint16_t
#define U uint16_t
#define NAME uint16
#define DT TN_UINT16
#define KIND EW_UINT
#define R float
#include "ewise-tmpl.h"

#define T int32_t
#define U uint32_t
#define NAME int32
#define DT TN_INT32
#define KIND EW_INT
#include "ewise-tmpl.h"

#define T uint32_t
#define U uint32_t
#define NAME uint32
#define DT TN_UINT32
#define KIND EW_UINT
#include "ewise-tmpl.h"

#define T int64_t
#define U uint64_t
#define NAME int64
#define DT TN_INT64
#define KIND EW_INT
#include "ewise-tmpl.h"

#define T uint64_t
#define U uint64_t
#define NAME uint64
#define DT TN_UINT64
#define KIND EW_UINT
#include "ewise-tmpl.h"

#define T float
#define U uint32_t
#define NAME float32
#define DT TN_FLOAT32
#define KIND EW_FLOAT
#define R float
#include "ewise-tmpl.h"

#define T double
#define U uint64_t
#define NAME float64
#define DT TN_FLOAT64
#define KIND EW_FLOAT
#define R double
#include "ewise-tmpl.h"

/* np.where on items of one size: a select the compiler vectorises. */
#define EW_WHERE(K, W)                                                         \
  EW_INLINE void EW_CAT (where_map, K) (W *restrict d,                         \
      const uint8_t *restrict c, const W *restrict a, const W *restrict b,     \
      size_t n)                                                                \
  {                                                                            \
    EW_LOOP (c[j] ? a[j] : b[j]);                                              \
  }                                                                            \
  static void EW_CAT (where, K) (                                              \
      void *d, const void *c, const void *a, const void *b, size_t n)          \
  {                                                                            \
    EW_CAT (where_map, K) (d, c, a, b, n);                                     \
  }
EW_WHERE (0, uint8_t)
EW_WHERE (1, uint16_t)
EW_WHERE (2, uint32_t)
EW_WHERE (3, uint64_t)

/* bool, float16 and bfloat16 have no kernels: bool takes casts only, the
 * half types are computed in float32 (ewise.c). */
void
EW_CAT (tn_ew_fill, TN_ISA) (tn_ewise_dsp *d)
{
  d->where[0] = where_0;
  d->where[1] = where_1;
  d->where[2] = where_2;
  d->where[3] = where_3;
  fill_int8 (d);
  fill_uint8 (d);
  fill_int16 (d);
  fill_uint16 (d);
  fill_int32 (d);
  fill_uint32 (d);
  fill_int64 (d);
  fill_uint64 (d);
  fill_float32 (d);
  fill_float64 (d);
}
