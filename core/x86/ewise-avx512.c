/* The elementwise kernels written by hand for AVX-512 (the avx512 library
 * of core/meson.build): add, sub and mul of float32 and float64, the
 * steps' two variants, the operand first (rev), the stream entries and
 * the rep entries (a short period beside a dense operand), over the AVX2
 * table's (ewise-kern.h).
 *
 * Why: these are the memory-bound passes (a += 1, a += b, c = a + b),
 * and on the Xeon (Emerald Rapids) one 64-byte vector per line moved
 * 5-15% more bytes per thread CPU second than two 32-byte ones at 16M
 * items in place, from memory and L3 (docs/perf-notes.md, "Session 10
 * H6"): half the loads and stores in flight for the same lines, as in
 * NumPy's AVX-512 loops.  The stores start at a 64-byte border of d (a
 * masked head), so that no store splits a line and the stream entries
 * may use vmovntps, and the last items are one masked vector: no scalar
 * tail.  Masked-off lanes are neither loaded nor computed (maskz), so
 * they raise no flag.  The same IEEE operations as the portable loops,
 * item by item: the same bits but for which NaN. */
#include "core/ewise-kern.h"

#include <immintrin.h>
#include <string.h>

#define EW_INLINE static inline __attribute__ ((always_inline))

/* How the operand comes: one item for every item (variant 0), n items
 * (variant 1), one item first (rev). */
enum { EW_SCALAR, EW_VECTOR, EW_REV };

/* d = s op o for n items; stream: whole vectors with non-temporal stores
 * (no fence: the caller fences once after its last call).  d not aligned
 * to its items (never a tensor) takes ordinary unaligned stores. */
#define EW512(                                                                 \
    NAME, T, V, M, LANES, SET1, LOADZ, STOREU, STOREM, STREAM, ADD, SUB, MUL)  \
  EW_INLINE V NAME##_op (int op, M m, V x, V y)                                \
  {                                                                            \
    return op == TN_EW_ADD   ? ADD (m, x, y)                                   \
           : op == TN_EW_SUB ? SUB (m, x, y)                                   \
                             : MUL (m, x, y);                                  \
  }                                                                            \
  EW_INLINE void NAME##_vec (T *d, const T *s, const T *o, size_t j, M m,      \
      int op, int kind, V c, bool stream)                                      \
  {                                                                            \
    const V x = LOADZ (m, s + j);                                              \
    const V r = kind == EW_VECTOR ? NAME##_op (op, m, x, LOADZ (m, o + j))     \
                : kind == EW_REV  ? NAME##_op (op, m, c, x)                    \
                                  : NAME##_op (op, m, x, c);                    \
                                                                               \
    if (stream)                                                                \
      STREAM (d + j, r);                                                       \
    else if (m == (M) ~0u)                                                     \
      STOREU (d + j, r);                                                       \
    else                                                                       \
      STOREM (d + j, m, r);                                                    \
  }                                                                            \
  EW_INLINE void NAME##_do (void *dv, const void *sv, const void *ov,          \
      size_t n, int op, int kind, bool stream)                                 \
  {                                                                            \
    T *d = dv;                                                                 \
    const T *s = sv, *o = ov;                                                  \
    const V c = kind == EW_VECTOR ? SET1 (0) : SET1 (o[0]);                    \
    const M all = (M) ~0u;                                                     \
    size_t j = 0, h = ((uintptr_t) 0 - (uintptr_t) d) % 64 / sizeof (T);       \
                                                                               \
    if ((uintptr_t) d % sizeof (T)) {                                          \
      h = 0;                                                                   \
      stream = false;                                                          \
    }                                                                          \
    if (h > n)                                                                 \
      h = n;                                                                   \
    if (h > 0) {                                                               \
      NAME##_vec (d, s, o, 0, (M) ((1u << h) - 1), op, kind, c, false);        \
      j = h;                                                                   \
    }                                                                          \
    /* Pointers stepped, not an index: GCC then emits pointer-relative         \
     * loads and one index register for the stores (over j it kept two,        \
     * and a mov and lea to carry them): the in-place 16M add went from        \
     * 0.96-0.98 of a STREAM loop to 1.04-1.06 (Xeon model 167,                \
     * docs/perf-notes.md "Session 14"). */                                    \
    {                                                                          \
      const size_t ov = kind == EW_VECTOR ? 2 * LANES : 0;                     \
      T *dp = d + j;                                                           \
      const T *sp = s + j, *opp = kind == EW_VECTOR ? o + j : o;               \
                                                                               \
      for (; j + 2 * LANES <= n;                                               \
           j += 2 * LANES, dp += 2 * LANES, sp += 2 * LANES, opp += ov) {      \
        NAME##_vec (dp, sp, opp, 0, all, op, kind, c, stream);                 \
        NAME##_vec (dp, sp, opp, LANES, all, op, kind, c, stream);             \
      }                                                                        \
    }                                                                          \
    if (j + LANES <= n) {                                                      \
      NAME##_vec (d, s, o, j, all, op, kind, c, stream);                       \
      j += LANES;                                                              \
    }                                                                          \
    if (j < n)                                                                 \
      NAME##_vec (d, s, o, j, (M) ((1u << (n - j)) - 1), op, kind, c, false);  \
  }

EW512 (ew512_f32, float, __m512, __mmask16, 16, _mm512_set1_ps,
    _mm512_maskz_loadu_ps, _mm512_storeu_ps, _mm512_mask_storeu_ps,
    _mm512_stream_ps, _mm512_maskz_add_ps, _mm512_maskz_sub_ps,
    _mm512_maskz_mul_ps)
EW512 (ew512_f64, double, __m512d, __mmask8, 8, _mm512_set1_pd,
    _mm512_maskz_loadu_pd, _mm512_storeu_pd, _mm512_mask_storeu_pd,
    _mm512_stream_pd, _mm512_maskz_add_pd, _mm512_maskz_sub_pd,
    _mm512_maskz_mul_pd)

/* rep (ewise-kern.h): d = s op o[i % L] (rev: o[i % L] op s), the
 * pattern of TN_EW_REP_BYTES being three 64-byte vectors here, held in
 * registers from the phase at which d reaches its 64-byte border, as the
 * AVX2 entries do at 32 (x86/ewise-avx2.c): a load, the op and a store
 * per vector, like the dense add beside it (bench_combine's broadcast
 * row is the ratio of the two). */
#define EW512_REP(                                                             \
    NAME, T, V, M, LANES, LOAD, LOADZ, STOREU, STOREM, STREAM, OP)             \
  EW_INLINE V NAME##_rop (int op, bool rev, M m, V x, V p)                     \
  {                                                                            \
    return rev ? OP (op, m, p, x) : OP (op, m, x, p);                          \
  }                                                                            \
  EW_INLINE void NAME##_rep (void *dv, const void *sv, const void *ov,         \
      size_t n, int op, bool rev, bool stream)                                 \
  {                                                                            \
    enum { L = TN_EW_REP_BYTES / sizeof (T) };                                 \
    _Static_assert(L == 3 * LANES, "3 vectors");                               \
    T *d = dv;                                                                 \
    const T *s = sv, *o = ov;                                                  \
    const M all = (M) ~0u;                                                     \
    size_t j = 0, h = ((uintptr_t) 0 - (uintptr_t) d) % 64 / sizeof (T);       \
    T o2[2 * L];                                                               \
    V p[3];                                                                    \
    int k = 0;                                                                 \
                                                                               \
    if ((uintptr_t) d % sizeof (T)) {                                          \
      h = 0;                                                                   \
      stream = false;                                                          \
    }                                                                          \
    if (h > n)                                                                 \
      h = n;                                                                   \
    if (h > 0) { /* h < LANES: the pattern's first items */                    \
      const M m = (M) ((1u << h) - 1);                                         \
                                                                               \
      STOREM (d, m, NAME##_rop (op, rev, m, LOADZ (m, s), LOADZ (m, o)));      \
      j = h;                                                                   \
    }                                                                          \
    memcpy (o2, o, sizeof (T) * L);                                            \
    memcpy (o2 + L, o, sizeof (T) * L);                                        \
    for (k = 0; k < 3; k++)                                                    \
      p[k] = LOAD (o2 + h + (size_t) k * LANES);                               \
    for (; j + L <= n; j += L)                                                 \
      for (k = 0; k < 3; k++) {                                                \
        const V r = NAME##_rop (                                               \
            op, rev, all, LOAD (s + j + (size_t) k * LANES), p[k]);            \
                                                                               \
        if (stream)                                                            \
          STREAM (d + j + (size_t) k * LANES, r);                              \
        else                                                                   \
          STOREU (d + j + (size_t) k * LANES, r);                              \
      }                                                                        \
    /* fewer than L items left: vector k of the pattern is at j */             \
    for (k = 0; j + LANES <= n; j += LANES, k++) {                             \
      const V r = NAME##_rop (op, rev, all, LOAD (s + j), p[k]);               \
                                                                               \
      if (stream)                                                              \
        STREAM (d + j, r);                                                     \
      else                                                                     \
        STOREU (d + j, r);                                                     \
    }                                                                          \
    if (j < n) {                                                               \
      const M m = (M) ((1u << (n - j)) - 1);                                   \
                                                                               \
      STOREM (d + j, m, NAME##_rop (op, rev, m, LOADZ (m, s + j), p[k]));      \
    }                                                                          \
  }

EW512_REP (ew512_f32, float, __m512, __mmask16, 16, _mm512_loadu_ps,
    _mm512_maskz_loadu_ps, _mm512_storeu_ps, _mm512_mask_storeu_ps,
    _mm512_stream_ps, ew512_f32_op)
EW512_REP (ew512_f64, double, __m512d, __mmask8, 8, _mm512_loadu_pd,
    _mm512_maskz_loadu_pd, _mm512_storeu_pd, _mm512_mask_storeu_pd,
    _mm512_stream_pd, ew512_f64_op)

/* One entry per op, dtype and kind: constants in each. */
#define EW512_FN(op, OP, t)                                                    \
  static void ew512_##op##_##t##_s (                                           \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_do (d, s, o, n, OP, EW_SCALAR, false);                         \
  }                                                                            \
  static void ew512_##op##_##t##_v (                                           \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_do (d, s, o, n, OP, EW_VECTOR, false);                         \
  }                                                                            \
  static void ew512_##op##_##t##_r (                                           \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_do (d, s, o, n, OP, EW_REV, false);                            \
  }                                                                            \
  static void ew512_##op##_##t##_nt (                                          \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_do (d, s, o, n, OP, EW_VECTOR, true);                          \
  }                                                                            \
  static void ew512_##op##_##t##_p (                                           \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_rep (d, s, o, n, OP, false, false);                            \
  }                                                                            \
  static void ew512_##op##_##t##_pr (                                          \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_rep (d, s, o, n, OP, true, false);                             \
  }                                                                            \
  static void ew512_##op##_##t##_ps (                                          \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_rep (d, s, o, n, OP, false, true);                             \
  }                                                                            \
  static void ew512_##op##_##t##_prs (                                         \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew512_##t##_rep (d, s, o, n, OP, true, true);                              \
  }
#define EW512_OP(op, OP) EW512_FN (op, OP, f32) EW512_FN (op, OP, f64)
EW512_OP (add, TN_EW_ADD)
EW512_OP (sub, TN_EW_SUB)
EW512_OP (mul, TN_EW_MUL)

void
tn_ew_init_avx512 (tn_ewise_dsp *d)
{
#define EW512_SET(op, OP, t, T)                                                \
  d->step[OP][T][0] = ew512_##op##_##t##_s;                                    \
  d->step[OP][T][1] = ew512_##op##_##t##_v;                                    \
  d->rev[OP][T] = ew512_##op##_##t##_r;                                        \
  d->stream[OP][T] = ew512_##op##_##t##_nt;                                    \
  d->rep[OP][T][0][0] = ew512_##op##_##t##_p;                                  \
  d->rep[OP][T][1][0] = ew512_##op##_##t##_pr;                                 \
  d->rep[OP][T][0][1] = ew512_##op##_##t##_ps;                                 \
  d->rep[OP][T][1][1] = ew512_##op##_##t##_prs;
#define EW512_SET_OP(op, OP)                                                   \
  EW512_SET (op, OP, f32, TN_FLOAT32) EW512_SET (op, OP, f64, TN_FLOAT64)
  EW512_SET_OP (add, TN_EW_ADD)
  EW512_SET_OP (sub, TN_EW_SUB)
  EW512_SET_OP (mul, TN_EW_MUL)
#undef EW512_SET_OP
#undef EW512_SET
}
