/* The elementwise kernels written by hand for AVX2 (the avx2 library of
 * core/meson.build): every fused run of ewise-kern.h, and through them
 * the one-step division of float32 by a scalar.  The other entries of the
 * AVX2 table are the template's (core/ewise-tmpl.c) as built for AVX2.
 *
 * Why by hand: fused runs keep a block of values in registers across
 * their steps, and the division by a float32 scalar runs without vdivps
 * (below).  Products still round before they are added: the project
 * builds with -ffp-contract=off (meson.build). */
#include "core/ewise-kern.h"

#include <immintrin.h>
#include <string.h>

#define EW_INLINE static inline __attribute__ ((always_inline))

/* Division by a float32 scalar c without vdivps (one per ~10 cycles on
 * Zen 1, the whole cost of "sub:a,div:b,relu" in cache): with zh =
 * RN(1/c) and zl close to 1/c - zh, q = fma (x, zh, RN (x zl)) is two
 * operations (Brisebarre, Muller and Raina, IEEE TC 2004), and for most
 * divisors, not all, it is the correctly rounded x / c.  tn_ew_rdiv_plan
 * proves it per divisor: where neither RN (x zl) nor q is subnormal and
 * |q| < 2^126, multiplying x by a power of two multiplies every
 * intermediate and both results exactly, so one binade of x, every
 * mantissa, decides the whole range (and the sign is symmetric).  The
 * kernels test a power-of-two run of w binades of it per vector with one
 * subtraction and one vptest: the bits of x less those of 2^s, sign bit
 * masked off, are below w << 23 only for |x| in [2^s, 2^(s+w)).  A
 * vector with a lane outside (±0, whose sign can come out wrong when zl
 * and zh differ in sign, subnormals, inf, NaN, quotients near underflow
 * or overflow) is divided with vdivps, so is every vector when c failed:
 * the bits are those of x / c everywhere.  float64 keeps vdivpd: no
 * binade of it can be checked whole. */
typedef struct {
  __m256 c, zh, zl;
  __m256i lo, mask;
} ew_vdivk;

EW_INLINE ew_vdivk
ew_vdiv_init (float c, const tn_ew_rdiv *p)
{
  ew_vdivk k;

  k.c = _mm256_set1_ps (c);
  k.zh = _mm256_set1_ps (p->zh);
  k.zl = _mm256_set1_ps (p->zl);
  k.lo = _mm256_set1_epi32 ((int) p->lo);
  k.mask = _mm256_set1_epi32 ((int) p->mask);
  return k;
}

EW_INLINE __m256
ew_vdiv (__m256 x, const ew_vdivk *k)
{
  __m256i u = _mm256_sub_epi32 (_mm256_castps_si256 (x), k->lo);

  if (__builtin_expect (!_mm256_testz_si256 (u, k->mask), 0))
    return _mm256_div_ps (x, k->c);
  return _mm256_fmadd_ps (x, k->zh, _mm256_mul_ps (x, k->zl));
}

/* Whether the kernels' quotient has the bits of x / c for every x in
 * [2^e, 2^(e+1)). */
static bool
ew_rdiv_binade_ok (float c, float zh, float zl, int e)
{
  const __m256 vc = _mm256_set1_ps (c), vh = _mm256_set1_ps (zh);
  const __m256 vl = _mm256_set1_ps (zl);
  const __m256i eight = _mm256_set1_epi32 (8);
  __m256i b = _mm256_add_epi32 (_mm256_set1_epi32 ((e + 127) << 23),
      _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));
  __m256i diff = _mm256_setzero_si256 ();
  uint32_t m;

  for (m = 0; m < (1u << 23); m += 8) {
    __m256 x = _mm256_castsi256_ps (b);
    __m256 q = _mm256_fmadd_ps (x, vh, _mm256_mul_ps (x, vl));

    diff = _mm256_or_si256 (
        diff, _mm256_xor_si256 (_mm256_castps_si256 (q),
                  _mm256_castps_si256 (_mm256_div_ps (x, vc))));
    b = _mm256_add_epi32 (b, eight);
  }
  return _mm256_testz_si256 (diff, diff);
}

/* How a run divides: with vdivps, with the plan and a test per vector, or
 * with the plan alone ("bare": every input is proven, tn_ew_rdiv_bare). */
enum { EW_DIV_PLAIN, EW_DIV_GUARD, EW_DIV_BARE };

/* How far ahead the runs that divide by the plan request their source,
 * in bytes (one request per 16 items: a line of float32, a quarter of one
 * of uint8): with three dependent operations per vector, loads that wait
 * on L3 fill the scheduler.  The other runs stream as fast without the
 * requests, and slower with them: mul:a,add:b on 1M items out of place
 * by 15%, sub:a,div:b,relu with vdivps on 16M in place by a third. */
#define EW_PF_DIST 2048

/* The item size of a source. */
EW_INLINE size_t
ew_isz (tn_dtype src)
{
  return src == TN_INT8 || src == TN_UINT8     ? 1
         : src == TN_INT16 || src == TN_UINT16 ? 2
                                               : 4;
}

/* float32 lanes: 8 items from each source type (the small integers are
 * exact in float32), and one. */
EW_INLINE __m256
ew_load8 (tn_dtype src, const void *s, size_t j)
{
  const char *p = (const char *) s + j * ew_isz (src);

  switch (src) {
  case TN_INT8:
    return _mm256_cvtepi32_ps (
        _mm256_cvtepi8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
  case TN_UINT8:
    return _mm256_cvtepi32_ps (
        _mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
  case TN_INT16:
    return _mm256_cvtepi32_ps (
        _mm256_cvtepi16_epi32 (_mm_loadu_si128 ((const __m128i *) p)));
  case TN_UINT16:
    return _mm256_cvtepi32_ps (
        _mm256_cvtepu16_epi32 (_mm_loadu_si128 ((const __m128i *) p)));
  default:
    return _mm256_loadu_ps ((const float *) p);
  }
}

EW_INLINE float
ew_load1 (tn_dtype src, const void *s, size_t j)
{
  switch (src) {
  case TN_INT8:
    return (float) ((const int8_t *) s)[j];
  case TN_UINT8:
    return (float) ((const uint8_t *) s)[j];
  case TN_INT16:
    return (float) ((const int16_t *) s)[j];
  case TN_UINT16:
    return (float) ((const uint16_t *) s)[j];
  default:
    return ((const float *) s)[j];
  }
}

/* op of a run on 8 lanes and on one (op TN_EW_NOP: nothing). */
EW_INLINE __m256
ew_op8 (int op, int mode, __m256 x, __m256 v, const ew_vdivk *k)
{
  switch (op) {
  case TN_EW_ADD:
    return _mm256_add_ps (x, v);
  case TN_EW_SUB:
    return _mm256_sub_ps (x, v);
  case TN_EW_MUL:
    return _mm256_mul_ps (x, v);
  case TN_EW_DIV:
    if (mode == EW_DIV_BARE)
      return _mm256_fmadd_ps (x, k->zh, _mm256_mul_ps (x, k->zl));
    if (mode == EW_DIV_GUARD)
      return ew_vdiv (x, k);
    return _mm256_div_ps (x, v);
  default:
    return x;
  }
}

/* One scalar step (the tails of the vector runs), for float and double
 * alike. */
#define EW_DEFINE_OP1(NAME, T)                                                 \
  EW_INLINE T NAME (int op, T x, T c)                                          \
  {                                                                            \
    switch (op) {                                                              \
    case TN_EW_ADD:                                                            \
      return x + c;                                                            \
    case TN_EW_SUB:                                                            \
      return x - c;                                                            \
    case TN_EW_MUL:                                                            \
      return x * c;                                                            \
    case TN_EW_DIV:                                                            \
      return x / c;                                                            \
    default:                                                                   \
      return x;                                                                \
    }                                                                          \
  }

EW_DEFINE_OP1 (ew_op1, float)

/* max (0, y) is y < 0 ? 0 : y, NaN and -0 included (vmaxps returns its
 * second operand unless the first is greater). */
EW_INLINE void
ew_step8 (float *d, const void *s, size_t j, tn_dtype src, int op1, int op2,
    bool relu, int mode, const __m256 *v, const ew_vdivk *k)
{
  __m256 x = ew_load8 (src, s, j);

  x = ew_op8 (op1, mode, x, v[0], &k[0]);
  x = ew_op8 (op2, mode, x, v[1], &k[1]);
  if (relu)
    x = _mm256_max_ps (_mm256_setzero_ps (), x);
  _mm256_storeu_ps (d + j, x);
}

/* d[j] = relu (op2 (op1 ((float) s[j], c1), c2)): vectors, then the last
 * items through the scalar expressions (the same bits). */
EW_INLINE void
ew_loop (float *d, const void *s, size_t n, tn_dtype src, int op1, int op2,
    bool relu, int mode, const float *c, const tn_ew_scalars *sc)
{
  const __m256 v[2] = { _mm256_set1_ps (c[0]), _mm256_set1_ps (c[1]) };
  const ew_vdivk k[2]
      = { ew_vdiv_init (c[0], &sc->div[0]), ew_vdiv_init (c[1], &sc->div[1]) };
  const size_t isz = ew_isz (src);
  size_t j = 0;

  for (; j + 16 <= n; j += 16) {
    if (mode != EW_DIV_PLAIN)
      _mm_prefetch ((const char *) s + j * isz + EW_PF_DIST, _MM_HINT_T0);
    ew_step8 (d, s, j, src, op1, op2, relu, mode, v, k);
    ew_step8 (d, s, j + 8, src, op1, op2, relu, mode, v, k);
  }
  for (; j + 8 <= n; j += 8)
    ew_step8 (d, s, j, src, op1, op2, relu, mode, v, k);
  for (; j < n; j++) {
    float x = ew_op1 (op2, ew_op1 (op1, ew_load1 (src, s, j), c[0]), c[1]);

    d[j] = relu && x < 0 ? 0.0f : x;
  }
}

/* A run to float32: the plan's way when every division in it may take it
 * (bare, else with the test per vector), vdivps otherwise. */
EW_INLINE void
ew_run_f32 (void *dv, const void *sv, const void *ov, size_t n, tn_dtype src,
    int op1, int op2, bool relu)
{
  const tn_ew_scalars *sc = ov;
  const bool div1 = op1 == TN_EW_DIV, div2 = op2 == TN_EW_DIV;
  float c[2];

  memcpy (c, sc->c.b, sizeof c);
  if ((div1 || div2) && (!div1 || sc->div[0].bare)
      && (!div2 || sc->div[1].bare))
    ew_loop (dv, sv, n, src, op1, op2, relu, EW_DIV_BARE, c, sc);
  else if ((div1 || div2) && (!div1 || sc->div[0].fast)
           && (!div2 || sc->div[1].fast))
    ew_loop (dv, sv, n, src, op1, op2, relu, EW_DIV_GUARD, c, sc);
  else
    ew_loop (dv, sv, n, src, op1, op2, relu, EW_DIV_PLAIN, c, sc);
}

/* float64 lanes, always dividing with vdivpd (no plan, so no prefetch:
 * see EW_PF_DIST). */
EW_INLINE __m256d
ew_op4d (int op, __m256d x, __m256d v)
{
  switch (op) {
  case TN_EW_ADD:
    return _mm256_add_pd (x, v);
  case TN_EW_SUB:
    return _mm256_sub_pd (x, v);
  case TN_EW_MUL:
    return _mm256_mul_pd (x, v);
  case TN_EW_DIV:
    return _mm256_div_pd (x, v);
  default:
    return x;
  }
}

EW_DEFINE_OP1 (ew_op1d, double)

EW_INLINE void
ew_step4d (double *d, const double *s, size_t j, int op1, int op2, bool relu,
    const __m256d *v)
{
  __m256d x = _mm256_loadu_pd (s + j);

  x = ew_op4d (op1, x, v[0]);
  x = ew_op4d (op2, x, v[1]);
  if (relu)
    x = _mm256_max_pd (_mm256_setzero_pd (), x);
  _mm256_storeu_pd (d + j, x);
}

EW_INLINE void
ew_run_f64 (void *dv, const void *sv, const void *ov, size_t n, int op1,
    int op2, bool relu)
{
  double *d = dv, c[2];
  const double *s = sv;
  size_t j = 0;
  __m256d v[2];

  memcpy (c, ((const tn_ew_scalars *) ov)->c.b, sizeof c);
  v[0] = _mm256_set1_pd (c[0]);
  v[1] = _mm256_set1_pd (c[1]);
  for (; j + 8 <= n; j += 8) {
    ew_step4d (d, s, j, op1, op2, relu, v);
    ew_step4d (d, s, j + 4, op1, op2, relu, v);
  }
  for (; j + 4 <= n; j += 4)
    ew_step4d (d, s, j, op1, op2, relu, v);
  for (; j < n; j++) {
    double x = ew_op1d (op2, ew_op1d (op1, s[j], c[0]), c[1]);

    d[j] = relu && x < 0 ? 0.0 : x;
  }
}

/* Entry k of each source's runs (TN_EW_REP50). */
#define EW_RUN_SRC(k, name, src)                                               \
  static void run##k##_##name (                                                \
      void *dv, const void *sv, const void *ov, size_t n)                      \
  {                                                                            \
    ew_run_f32 (dv, sv, ov, n, src, k / 10, k / 2 % 5, k % 2);                 \
  }
#define EW_RUNS(k)                                                             \
  EW_RUN_SRC (k, float32, TN_FLOAT32)                                          \
  EW_RUN_SRC (k, int8, TN_INT8)                                                \
  EW_RUN_SRC (k, uint8, TN_UINT8)                                              \
  EW_RUN_SRC (k, int16, TN_INT16)                                              \
  EW_RUN_SRC (k, uint16, TN_UINT16)                                            \
  static void run##k##_float64 (                                               \
      void *dv, const void *sv, const void *ov, size_t n)                      \
  {                                                                            \
    ew_run_f64 (dv, sv, ov, n, k / 10, k / 2 % 5, k % 2);                      \
  }
#define EW_RUNS_ROW(k)                                                         \
  { run##k##_float32, run##k##_int8, run##k##_uint8, run##k##_int16,           \
    run##k##_uint16, run##k##_float64 },

TN_EW_REP50 (EW_RUNS)

static const tn_ew_kern runs[50][6] = { TN_EW_REP50 (EW_RUNS_ROW) };
static const tn_dtype run_srcs[6]
    = { TN_FLOAT32, TN_INT8, TN_UINT8, TN_INT16, TN_UINT16, TN_FLOAT64 };

/* d = a op b with non-temporal stores (the table's stream entries):
 * ordinary stores up to a 32-byte border of d, then whole vectors
 * streamed past the caches, which saves the read of each output line
 * that an ordinary store makes (a third of the traffic of c = a + b);
 * the last items as the scalar tails.  No fence: the caller fences once
 * after its last call (one per chunk, not one per call). */
#define EW_STREAM(NAME, T, V, LANES, LOAD, STREAM, OPV, OP1)                   \
  EW_INLINE void NAME##_do (                                                   \
      void *dv, const void *av, const void *bv, size_t n, int op)              \
  {                                                                            \
    T *d = dv;                                                                 \
    const T *a = av, *b = bv;                                                  \
    size_t j = 0;                                                              \
                                                                               \
    for (; j < n && ((uintptr_t) (d + j) & 31); j++)                           \
      d[j] = OP1 (op, a[j], b[j]);                                             \
    for (; j + 2 * LANES <= n; j += 2 * LANES) {                               \
      V x0 = OPV (op, LOAD (a + j), LOAD (b + j));                             \
      V x1 = OPV (op, LOAD (a + j + LANES), LOAD (b + j + LANES));             \
                                                                               \
      STREAM (d + j, x0);                                                      \
      STREAM (d + j + LANES, x1);                                              \
    }                                                                          \
    for (; j < n; j++)                                                         \
      d[j] = OP1 (op, a[j], b[j]);                                             \
  }

EW_INLINE __m256
ew_vop8 (int op, __m256 x, __m256 v)
{
  return ew_op8 (op, EW_DIV_PLAIN, x, v, NULL);
}

EW_STREAM (ew_stream_f32, float, __m256, 8, _mm256_loadu_ps, _mm256_stream_ps,
    ew_vop8, ew_op1)
EW_STREAM (ew_stream_f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_stream_pd,
    ew_op4d, ew_op1d)

#define EW_STREAM_K(op, OP)                                                    \
  static void ew_stream_##op##_f32 (                                           \
      void *d, const void *a, const void *b, size_t n)                         \
  {                                                                            \
    ew_stream_f32_do (d, a, b, n, OP);                                         \
  }                                                                            \
  static void ew_stream_##op##_f64 (                                           \
      void *d, const void *a, const void *b, size_t n)                         \
  {                                                                            \
    ew_stream_f64_do (d, a, b, n, OP);                                         \
  }
EW_STREAM_K (add, TN_EW_ADD)
EW_STREAM_K (sub, TN_EW_SUB)
EW_STREAM_K (mul, TN_EW_MUL)
EW_STREAM_K (div, TN_EW_DIV)

/* rep (ewise-kern.h): the pattern of TN_EW_REP_BYTES in six registers,
 * rotated to the phase at which d reaches a 32-byte border, so that each
 * item costs its load, the op and the store, as in a dense stream with
 * one input (a tile in memory beside it cost a load per vector more and
 * came to 0.85 of the same-shape add's bytes per second at 1080p RGB,
 * docs/perf-notes.md); the ops and the scalar edges as the stream
 * entries', so the bits are the template's. */
#define EW_REP(NAME, T, V, LANES, LOAD, STORE, STREAM, OPV, OP1)               \
  EW_INLINE void NAME##_do (void *dv, const void *sv, const void *ov,          \
      size_t n, int op, bool rev, bool stream)                                 \
  {                                                                            \
    enum { L = TN_EW_REP_BYTES / sizeof (T) };                                 \
    T *d = dv;                                                                 \
    const T *s = sv, *o = ov;                                                  \
    size_t j = 0;                                                              \
                                                                               \
    for (; j < n && ((uintptr_t) (d + j) & 31); j++)                           \
      d[j] = rev ? OP1 (op, o[j % L], s[j]) : OP1 (op, s[j], o[j % L]);        \
    if (n - j >= LANES) {                                                      \
      T o2[2 * L];                                                             \
      V p[6];                                                                  \
                                                                               \
      memcpy (o2, o, sizeof (T) * L);                                          \
      memcpy (o2 + L, o, sizeof (T) * L);                                      \
      for (int k = 0; k < 6; k++)                                              \
        p[k] = LOAD (o2 + j % L + (size_t) k * LANES);                         \
      /* one vector of the pattern's k-th at j + k LANES */                    \
      _Static_assert(6 * LANES * sizeof (T) == TN_EW_REP_BYTES, "6 vectors");  \
      for (; j + L <= n; j += L) {                                             \
        _Pragma ("GCC unroll 6") for (int k = 0; k < 6; k++)                   \
        {                                                                      \
          const V x = LOAD (s + j + (size_t) k * LANES);                       \
          const V r = rev ? OPV (op, p[k], x) : OPV (op, x, p[k]);             \
                                                                               \
          if (stream)                                                          \
            STREAM (d + j + (size_t) k * LANES, r);                            \
          else                                                                 \
            STORE (d + j + (size_t) k * LANES, r);                             \
        }                                                                      \
      }                                                                        \
      for (int k = 0; j + LANES <= n; j += LANES, k++) {                       \
        const V x = LOAD (s + j);                                              \
        const V r = rev ? OPV (op, p[k], x) : OPV (op, x, p[k]);               \
                                                                               \
        if (stream)                                                            \
          STREAM (d + j, r);                                                   \
        else                                                                   \
          STORE (d + j, r);                                                    \
      }                                                                        \
    }                                                                          \
    for (; j < n; j++)                                                         \
      d[j] = rev ? OP1 (op, o[j % L], s[j]) : OP1 (op, s[j], o[j % L]);        \
  }
EW_REP (ew_rep_f32, float, __m256, 8, _mm256_loadu_ps, _mm256_store_ps,
    _mm256_stream_ps, ew_vop8, ew_op1)
EW_REP (ew_rep_f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_store_pd,
    _mm256_stream_pd, ew_op4d, ew_op1d)

/* One entry per op, dtype, side and store: constants in each. */
#define EW_REP_FN(op, OP, t, SUF, REV, ST)                                     \
  static void ew_rep_##op##_##t##SUF (                                         \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    ew_rep_##t##_do (d, s, o, n, OP, REV, ST);                                 \
  }
#define EW_REP_K(op, OP)                                                       \
  EW_REP_FN (op, OP, f32, , false, false)                                      \
  EW_REP_FN (op, OP, f32, _r, true, false)                                     \
  EW_REP_FN (op, OP, f32, _s, false, true)                                     \
  EW_REP_FN (op, OP, f32, _rs, true, true)                                     \
  EW_REP_FN (op, OP, f64, , false, false)                                      \
  EW_REP_FN (op, OP, f64, _r, true, false)                                     \
  EW_REP_FN (op, OP, f64, _s, false, true)                                     \
  EW_REP_FN (op, OP, f64, _rs, true, true)
EW_REP_K (add, TN_EW_ADD)
EW_REP_K (sub, TN_EW_SUB)
EW_REP_K (mul, TN_EW_MUL)
EW_REP_K (div, TN_EW_DIV)
#define EW_REP_ROW(op)                                                         \
  {                                                                            \
    { { ew_rep_##op##_f32, ew_rep_##op##_f32_s },                              \
      { ew_rep_##op##_f32_r, ew_rep_##op##_f32_rs } },                         \
    {                                                                          \
      { ew_rep_##op##_f64, ew_rep_##op##_f64_s },                              \
      {                                                                        \
        ew_rep_##op##_f64_r, ew_rep_##op##_f64_rs                              \
      }                                                                        \
    }                                                                          \
  }
/* [op][float32, float64][rev][stream] */
static const tn_ew_kern reps[4][2][2][2] = { EW_REP_ROW (add), EW_REP_ROW (sub),
  EW_REP_ROW (mul), EW_REP_ROW (div) };
#undef EW_REP_ROW

/* The casts of small integers to float32 with non-temporal stores (the
 * table's cast_stream entries): ordinary stores up to a 32-byte border
 * of d, then whole vectors past the caches, which saves the read of each
 * output line an ordinary store makes (a 16M uint8 -> float32 cast moves
 * 80 MiB instead of 144); the tail as the run's. */
EW_INLINE void
ew_cast_stream (float *d, const void *s, size_t n, tn_dtype src)
{
  size_t j = 0;

  for (; j < n && ((uintptr_t) (d + j) & 31); j++)
    d[j] = ew_load1 (src, s, j);
  for (; j + 16 <= n; j += 16) {
    __m256 x0 = ew_load8 (src, s, j), x1 = ew_load8 (src, s, j + 8);

    _mm256_stream_ps (d + j, x0);
    _mm256_stream_ps (d + j + 8, x1);
  }
  for (; j < n; j++)
    d[j] = ew_load1 (src, s, j);
}

#define EW_CAST_STREAM(name, src)                                              \
  static void ew_cast_stream_##name (                                          \
      void *d, const void *s, const void *o, size_t n)                         \
  {                                                                            \
    (void) o;                                                                  \
    ew_cast_stream (d, s, n, src);                                             \
  }
EW_CAST_STREAM (int8, TN_INT8)
EW_CAST_STREAM (uint8, TN_UINT8)
EW_CAST_STREAM (int16, TN_INT16)
EW_CAST_STREAM (uint16, TN_UINT16)

void
tn_ew_init_avx2 (tn_ewise_dsp *d)
{
  d->cast_stream[TN_INT8] = ew_cast_stream_int8;
  d->cast_stream[TN_UINT8] = ew_cast_stream_uint8;
  d->cast_stream[TN_INT16] = ew_cast_stream_int16;
  d->cast_stream[TN_UINT16] = ew_cast_stream_uint16;
  static const tn_ew_kern stream[4][2] = {
    { ew_stream_add_f32, ew_stream_add_f64 },
    { ew_stream_sub_f32, ew_stream_sub_f64 },
    { ew_stream_mul_f32, ew_stream_mul_f64 },
    { ew_stream_div_f32, ew_stream_div_f64 },
  };

  for (int op = 0; op <= TN_EW_DIV; op++) {
    d->stream[op][TN_FLOAT32] = stream[op][0];
    d->stream[op][TN_FLOAT64] = stream[op][1];
    memcpy (d->rep[op][TN_FLOAT32], reps[op][0], sizeof reps[op][0]);
    memcpy (d->rep[op][TN_FLOAT64], reps[op][1], sizeof reps[op][1]);
  }
  /* Every run the portable table has (ewise-kern.h). */
  for (int k = 0; k < 50; k++)
    for (int i = 0; i < 6; i++)
      if (d->run[run_srcs[i]][k / 10][k / 2 % 5][k % 2])
        d->run[run_srcs[i]][k / 10][k / 2 % 5][k % 2] = runs[k][i];
  /* div:c alone is the run of div and nothing, with the plan's way. */
  d->step[TN_EW_DIV][TN_FLOAT32][0]
      = d->run[TN_FLOAT32][TN_EW_DIV][TN_EW_NOP][0];
  d->rdiv_check = ew_rdiv_binade_ok;
}
