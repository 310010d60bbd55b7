/* The comparison kernels in plain C, one per dtype from one macro, and
 * their table (compare-kern.h).  The ISA entries (x86/compare-avx2.c)
 * give the same bits as these. */
#include "compare-kern.h"

#include <math.h>
#include <string.h>

#include "cpu.h"
#include "dsp.h"
#include "half-private.h"
#include "half.h"

#define CMP_INLINE static inline __attribute__ ((always_inline))

/* The product r * ay on its own: GCC in GNU C mode contracts a product
 * and a sum into one FMA where the ISA has one, which would move items
 * across the bound that NumPy's separate multiply and add put on the
 * other side. */
#ifdef __FMA__
#define CMP_KEEP(x) __asm__("" : "+x"(x))
#else
#define CMP_KEEP(x) ((void) 0)
#endif

/* Float items in precision FT, their bits in UT (BITS wide). */
#define CMP_FLOAT_ITEM(FT, UT, BITS, x, y, ux, uy, t, o)                       \
  do {                                                                         \
    const int same = (x) == (y);                                               \
    const int xn = isnan (x), yn = isnan (y);                                  \
    FT d = same ? (FT) 0 : (FT) fabs ((x) - (y));                              \
    FT ay = (FT) fabs (y);                                                     \
    uint64_t u = (xn || yn || same) ? 0 : tn_cmp_ulp_bits (ux, uy, BITS);      \
    int ok;                                                                    \
                                                                               \
    if ((t)->max_ulp >= 0) {                                                   \
      ok = same || (!xn && !yn && u <= (uint64_t) (t)->max_ulp);               \
    } else {                                                                   \
      FT p = (FT) (t)->rtol * ay;                                              \
      CMP_KEEP (p);                                                            \
      /* NumPy: infinities are close only to themselves */                     \
      ok = same || (isfinite (x) && isfinite (y) && d <= (FT) (t)->atol + p);  \
    }                                                                          \
    ok = ok || ((t)->equal_nan && xn && yn);                                   \
    (o)->bad = !ok;                                                            \
    (o)->abs = d;                                                              \
    (o)->rel = same ? 0.0 : (double) (d / ay);                                 \
    (o)->ulp = u;                                                              \
  } while (0)

#define CMP_MERGE(o, it)                                                       \
  do {                                                                         \
    (o)->bad += (it).bad;                                                      \
    if ((it).abs > (o)->max_abs)                                               \
      (o)->max_abs = (it).abs;                                                 \
    if ((it).rel > (o)->max_rel)                                               \
      (o)->max_rel = (it).rel;                                                 \
    if ((it).ulp > (o)->max_ulp)                                               \
      (o)->max_ulp = (it).ulp;                                                 \
  } while (0)

#define CMP_RUN(RUN, ITEMFN, CT, ITEM)                                         \
  static void RUN (const void *a, int64_t sa, const void *e, int64_t se,       \
      int64_t n, const tn_cmp_tol *t, tn_cmp_part *out)                        \
  {                                                                            \
    const CT *pa = a, *pe = e;                                                 \
    tn_cmp_part o = { 0, 0.0, 0.0, 0 };                                        \
                                                                               \
    for (int64_t i = 0; i < n; i++) {                                          \
      tn_cmp_item it;                                                          \
                                                                               \
      ITEM (pa + i * sa, pe + i * se, t, &it);                                 \
      CMP_MERGE (&o, it);                                                      \
    }                                                                          \
    *out = o;                                                                  \
  }                                                                            \
  static void ITEMFN (                                                         \
      const void *a, const void *e, const tn_cmp_tol *t, tn_cmp_item *o)       \
  {                                                                            \
    ITEM ((const CT *) a, (const CT *) e, t, o);                               \
  }

CMP_INLINE void
item_float32 (
    const float *a, const float *e, const tn_cmp_tol *t, tn_cmp_item *o)
{
  float x = *a, y = *e;
  uint32_t ux, uy;

  memcpy (&ux, a, 4);
  memcpy (&uy, e, 4);
  CMP_FLOAT_ITEM (float, uint32_t, 32, x, y, ux, uy, t, o);
  o->actual = x;
  o->expected = y;
}

CMP_INLINE void
item_float64 (
    const double *a, const double *e, const tn_cmp_tol *t, tn_cmp_item *o)
{
  double x = *a, y = *e;
  uint64_t ux, uy;

  memcpy (&ux, a, 8);
  memcpy (&uy, e, 8);
  CMP_FLOAT_ITEM (double, uint64_t, 64, x, y, ux, uy, t, o);
  o->actual = x;
  o->expected = y;
}

CMP_INLINE void
item_float16 (
    const uint16_t *a, const uint16_t *e, const tn_cmp_tol *t, tn_cmp_item *o)
{
  float x = tn_f16_to_f32 (*a), y = tn_f16_to_f32 (*e);

  CMP_FLOAT_ITEM (float, uint16_t, 16, x, y, *a, *e, t, o);
  o->actual = x;
  o->expected = y;
}

CMP_INLINE void
item_bfloat16 (
    const uint16_t *a, const uint16_t *e, const tn_cmp_tol *t, tn_cmp_item *o)
{
  float x = tn_bf16_to_f32_inline (*a), y = tn_bf16_to_f32_inline (*e);

  CMP_FLOAT_ITEM (float, uint16_t, 16, x, y, *a, *e, t, o);
  o->actual = x;
  o->expected = y;
}

/* Integers: the distance exactly (as uint64, then rounded once to
 * double), the verdict exactly or, under a tolerance, in float64 as
 * NumPy's isclose converts integers. */
CMP_INLINE void
int_item (
    int64_t x, int64_t y, int is_signed, const tn_cmp_tol *t, tn_cmp_item *o)
{
  uint64_t du;
  double fy, dd;

  if (is_signed)
    du = x >= y ? (uint64_t) x - (uint64_t) y : (uint64_t) y - (uint64_t) x;
  else
    du = (uint64_t) x >= (uint64_t) y ? (uint64_t) x - (uint64_t) y
                                      : (uint64_t) y - (uint64_t) x;
  fy = is_signed ? (double) y : (double) (uint64_t) y;
  dd = (double) du;
  if (t->exact) {
    o->bad = du != 0;
  } else {
    double p = t->rtol * fabs (fy);

    CMP_KEEP (p);
    o->bad = !(du == 0 || dd <= t->atol + p);
  }
  o->abs = dd;
  o->rel = du == 0 ? 0.0 : dd / fabs (fy);
  o->ulp = du;
  o->actual = is_signed ? (double) x : (double) (uint64_t) x;
  o->expected = fy;
}

#define CMP_INT_ITEM(NAME, CT, SIGNED)                                         \
  CMP_INLINE void item_##NAME (                                                \
      const CT *a, const CT *e, const tn_cmp_tol *t, tn_cmp_item *o)           \
  {                                                                            \
    int_item ((int64_t) *a, (int64_t) *e, SIGNED, t, o);                       \
  }

CMP_INT_ITEM (int8, int8_t, 1)
CMP_INT_ITEM (uint8, uint8_t, 0)
CMP_INT_ITEM (int16, int16_t, 1)
CMP_INT_ITEM (uint16, uint16_t, 0)
CMP_INT_ITEM (int32, int32_t, 1)
CMP_INT_ITEM (uint32, uint32_t, 0)
CMP_INT_ITEM (int64, int64_t, 1)
CMP_INT_ITEM (uint64, uint64_t, 0)

/* bool: any nonzero byte is true. */
CMP_INLINE void
item_bool (
    const uint8_t *a, const uint8_t *e, const tn_cmp_tol *t, tn_cmp_item *o)
{
  int_item (*a != 0, *e != 0, 1, t, o);
}

/* pasted here: an argument bool passed on would expand to _Bool */
#define X(E, name, CT, kind)                                                   \
  CMP_RUN (cmp_run_##name, cmp_item_##name, CT, item_##name)
TN_FOREACH_DTYPE (X)
#undef X

void
tn_compare_dsp_init (tn_compare_dsp *dsp, unsigned flags)
{
#define X(E, name, CT, kind)                                                   \
  dsp->run[E] = cmp_run_##name;                                                \
  dsp->item[E] = cmp_item_##name;
  TN_FOREACH_DTYPE (X)
#undef X
#if TN_ARCH_X86
  if (flags & TN_CPU_AVX2)
    tn_cmp_init_avx2 (dsp);
  if ((flags & (TN_CPU_AVX2 | TN_CPU_AVX512)) == (TN_CPU_AVX2 | TN_CPU_AVX512))
    tn_cmp_init_avx512 (dsp);
#else
  (void) flags;
#endif
}

/* The cached table (core/dsp.h). */
TN_DSP_GET (tn_compare_dsp, tn_compare_dsp_get, tn_compare_dsp_init)
