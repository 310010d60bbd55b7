/* The elementwise kernels: one definition per op and dtype family,
 * expanded over TN_FOREACH_DTYPE twice, as portable C and as an AVX2+FMA
 * clone chosen at run time.  Each kernel is one straight loop the
 * compiler vectorises. */
#include "ewise-kern.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <tgmath.h>

#include "half-private.h"
#include "half.h"

#if defined(__GNUC__) && !defined(__clang__)
/* The default build is -O2, where GCC vectorises only loops that need no
 * scalar epilogue; vectorising these loops is the point of the file.  No
 * kernel may fuse a multiply and an add into an FMA that the portable
 * path does not do, or the two paths would round differently.  (sqrt
 * stays scalar: only -fno-math-errno on the command line lets GCC
 * vectorise it, not this pragma.) */
#pragma GCC optimize(                                                          \
    "tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off")
#endif
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#if defined(__x86_64__) || defined(__i386__)
#define EW_HAVE_AVX2 1
#define EW_ATTR_avx2 __attribute__ ((target ("avx2,fma")))
#else
#define EW_HAVE_AVX2 0
#endif
#define EW_ATTR_gen

/* Wrapping integer arithmetic is done in the unsigned type of the same
 * width, where C defines it. */
#define EW_U_int8 uint8_t
#define EW_U_uint8 uint8_t
#define EW_U_int16 uint16_t
#define EW_U_uint16 uint16_t
#define EW_U_int32 uint32_t
#define EW_U_uint32 uint32_t
#define EW_U_int64 uint64_t
#define EW_U_uint64 uint64_t
#define EW_U_float32 float
#define EW_U_float64 double

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

/* fmod moved into the divisor's sign: exact, like NumPy's remainder. */
#define EW_FLOAT_HELPERS(T, IT)                                                \
  static inline T ew_pymod_##T (T a, T b)                                      \
  {                                                                            \
    T m = fmod (a, b);                                                         \
                                                                               \
    if (b == 0)                                                                \
      return m;                                                                \
    if (m != 0) {                                                              \
      if ((b < 0) != (m < 0))                                                  \
        m += b;                                                                \
    } else {                                                                   \
      m = copysign ((T) 0, b);                                                 \
    }                                                                          \
    return m;                                                                  \
  }                                                                            \
  /* exp of a non-positive number cannot overflow. */                          \
  static inline T ew_sigmoid_##T (T x)                                         \
  {                                                                            \
    T t = exp (-fabs (x));                                                     \
                                                                               \
    return (x >= 0 ? (T) 1 : t) / ((T) 1 + t);                                 \
  }                                                                            \
  /* rint is exact; x - r is then exact too, and never -0, so its sign         \
   * bit alone says whether r rounded up.  Bit operations instead of a         \
   * comparison let GCC vectorise under -ftrapping-math, and r - 0 keeps       \
   * -0.  ceil(x) = -floor(-x) holds for every x, signed zeros included. */    \
  static inline T ew_floor_##T (T x)                                           \
  {                                                                            \
    T r = rint (x), d = x - r, one = 1, adj;                                   \
    IT b, o;                                                                   \
                                                                               \
    memcpy (&b, &d, sizeof b);                                                 \
    memcpy (&o, &one, sizeof o);                                               \
    o &= (IT) 0 - (b >> (8 * sizeof (IT) - 1));                                \
    memcpy (&adj, &o, sizeof adj);                                             \
    return r - adj;                                                            \
  }                                                                            \
  static inline T ew_ceil_##T (T x)                                            \
  {                                                                            \
    return -ew_floor_##T (-x);                                                 \
  }
EW_FLOAT_HELPERS (float, uint32_t)
EW_FLOAT_HELPERS (double, uint64_t)

#if EW_HAVE_AVX2
#include <immintrin.h>

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

static inline EW_ATTR_avx2 ew_vdivk
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

static inline EW_ATTR_avx2 __m256
ew_vdiv (__m256 x, const ew_vdivk *k)
{
  __m256i u = _mm256_sub_epi32 (_mm256_castps_si256 (x), k->lo);

  if (__builtin_expect (!_mm256_testz_si256 (u, k->mask), 0))
    return _mm256_div_ps (x, k->c);
  return _mm256_fmadd_ps (x, k->zh, _mm256_mul_ps (x, k->zl));
}

/* Whether the kernels' quotient has the bits of x / c for every x in
 * [2^e, 2^(e+1)). */
static EW_ATTR_avx2 bool
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

/* A vector of 8 floats from each source type (the small integers are
 * exact in float32). */
#define EW_VLD_float(p) _mm256_loadu_ps (p)
#define EW_VLD_I8(cvt, p)                                                      \
  _mm256_cvtepi32_ps (cvt (_mm_loadl_epi64 ((const __m128i *) (p))))
#define EW_VLD_I16(cvt, p)                                                     \
  _mm256_cvtepi32_ps (cvt (_mm_loadu_si128 ((const __m128i *) (p))))
#define EW_VLD_int8_t(p) EW_VLD_I8 (_mm256_cvtepi8_epi32, p)
#define EW_VLD_uint8_t(p) EW_VLD_I8 (_mm256_cvtepu8_epi32, p)
#define EW_VLD_int16_t(p) EW_VLD_I16 (_mm256_cvtepi16_epi32, p)
#define EW_VLD_uint16_t(p) EW_VLD_I16 (_mm256_cvtepu16_epi32, p)

/* The ops of a fused run as vectors; k is the division's plan. */
#define EW_VOP_add(x, v, k) _mm256_add_ps (x, v)
#define EW_VOP_sub(x, v, k) _mm256_sub_ps (x, v)
#define EW_VOP_mul(x, v, k) _mm256_mul_ps (x, v)
#define EW_VOP_div(x, v, k) ew_vdiv (x, &(k))
#define EW_VOP_divb(x, v, k)                                                   \
  _mm256_fmadd_ps (x, (k).zh, _mm256_mul_ps (x, (k).zl))
#define EW_VOP_nop(x, v, k) (x)
/* max (0, y) is y < 0 ? 0 : y, NaN and -0 included (vmaxps returns its
 * second operand unless the first is greater). */
#define EW_VTAIL_plain(y) (y)
#define EW_VTAIL_relu(y) _mm256_max_ps (_mm256_setzero_ps (), y)

/* How far ahead the fused loops request their source (one request per
 * 16 items: a line of float32, a quarter of one of uint8): with three
 * dependent operations per vector, loads that wait on L3 fill the
 * scheduler. */
#define EW_PF_DIST 2048
/* One vector of EW_VRUN: items [j, j + 8). */
#define EW_VSTEP(S, op1, op2, tail, j)                                         \
  do {                                                                         \
    __m256 x = EW_VLD_##S (vs + (j));                                          \
    x = EW_VOP_##op1 (x, v1, k1);                                              \
    x = EW_VOP_##op2 (x, v2, k2);                                              \
    _mm256_storeu_ps (vd + (j), EW_VTAIL_##tail (x));                          \
  } while (0)
/* d[i] = tail (op2 (op1 ((float) s[i], c1), c2)) for n items, the
 * divisions planned in sc: vectors, then the last items through the
 * scalar expressions (the same bits). */
#define EW_VRUN(S, op1, op2, tail, c1, c2, sc)                                 \
  do {                                                                         \
    const __m256 v1 = _mm256_set1_ps (c1), v2 = _mm256_set1_ps (c2);           \
    const ew_vdivk k1 = ew_vdiv_init (c1, &(sc)->div[0]);                      \
    const ew_vdivk k2 = ew_vdiv_init (c2, &(sc)->div[1]);                      \
    float *vd = (float *) dv;                                                  \
    const S *vs = (const S *) sv;                                              \
    size_t j = 0;                                                              \
    (void) v1;                                                                 \
    (void) v2;                                                                 \
    (void) k1;                                                                 \
    (void) k2;                                                                 \
    for (; j + 16 <= n; j += 16) {                                             \
      _mm_prefetch ((const char *) (vs + j) + EW_PF_DIST, _MM_HINT_T0);        \
      EW_VSTEP (S, op1, op2, tail, j);                                         \
      EW_VSTEP (S, op1, op2, tail, j + 8);                                     \
    }                                                                          \
    for (; j + 8 <= n; j += 8)                                                 \
      EW_VSTEP (S, op1, op2, tail, j);                                         \
    for (; j < n; j++) {                                                       \
      float x = EW_##op1##_FLOAT (float, float, (float) vs[j], c1);            \
      x = EW_##op2##_FLOAT (float, float, x, c2);                              \
      vd[j] = EW_TAIL_##tail (float, x);                                       \
    }                                                                          \
  } while (0)
#endif

static atomic_ulong rdiv_checks;
static atomic_bool rdiv_allowed = true;

void
tn_ew_rdiv_allow (bool on)
{
  atomic_store (&rdiv_allowed, on);
}

unsigned long
tn_ew_rdiv_checks (void)
{
  return atomic_load (&rdiv_checks);
}

/* Proves (zh, zl) for c into p: the binades from emin up where RN (x zl)
 * is normal (or zl is 0) and |q| at least 2^-125, and the run of w of
 * them the per-vector test takes, below 2^(ec + 126) where q cannot
 * overflow. */
static bool
rdiv_try (tn_ew_rdiv *p, float c, float zh, float zl)
{
  int ec = ilogb (c), elo, ehi, w = 1, s;

  elo = ec - 124 > -126 ? ec - 124 : -126;
  if (zl != 0 && -126 - ilogb (zl) > elo)
    elo = -126 - ilogb (zl);
  ehi = ec + 125 < 127 ? ec + 125 : 127;
  if (elo > ehi)
    return false;
  while (2 * w <= ehi - elo + 1)
    w *= 2;
  s = -w / 2;
  s = s < elo ? elo : s > ehi + 1 - w ? ehi + 1 - w : s;
  p->zh = zh;
  p->zl = zl;
  p->emin = elo;
  p->same = zl == 0 || (zl < 0) == (zh < 0);
  p->lo = (uint32_t) (s + 127) << 23;
  p->mask = ~(((uint32_t) w << 23) - 1) & 0x7fffffffu;
#if EW_HAVE_AVX2
  p->fast = ew_rdiv_binade_ok (c, zh, zl, s);
#endif
  return p->fast;
}

void
tn_ew_rdiv_plan (tn_ew_rdiv *p, float c)
{
  float zh = 1 / c;
  tn_ew_rdiv alt;

  memset (p, 0, sizeof *p);
  if (!atomic_load (&rdiv_allowed)
      || tn_ew_resolve (TN_EWISE_IMPL_AUTO) != TN_EWISE_IMPL_AVX2
      || fpclassify (c) != FP_NORMAL || fpclassify (zh) != FP_NORMAL)
    return;
  atomic_fetch_add (&rdiv_checks, 1);
  /* 1 - c zh is exact in double; a zl off by an ulp would only fail the
   * check. */
  if (rdiv_try (p, c, zh, (float) ((1.0 - (double) c * zh) / c)) && p->same)
    return;
  /* zh one ulp nearer 0 than RN (1/c) leaves a rest of its sign, so that
   * ±inf and -0 need no test (for about 19 divisors in 20 one of the two
   * pairs passes and has one sign). */
  memset (&alt, 0, sizeof alt);
  zh = nextafterf (zh, 0);
  if (rdiv_try (&alt, c, zh, (float) ((1.0 - (double) c * zh) / c))
      && (alt.same || !p->fast))
    *p = alt;
}

void
tn_ew_rdiv_bare (tn_ew_rdiv *p, int emin, bool specials)
{
  /* Above the per-vector run the quotient may overflow: scaling x by 2^k
   * scales RN (x zl) and both exact quotients alike, and a quotient that
   * agrees with x / c with an unbounded exponent overflows with it.  That
   * needs RN (x zl) finite for every finite x: |zl| < 1/2. */
  bool zero_ok = p->same || p->zh > 0; /* +0 zh + RN (+0 zl) is +0 */
  bool inf_ok = p->same && p->zl != 0;

  p->bare = p->fast && emin >= p->emin && zero_ok && (!specials || inf_ok)
            && (p->zl == 0 || ilogb (p->zl) < -1);
}

/* Which loops divide by a scalar, and so may take EW_VRUN on AVX2. */
#define EW_ISDIV_add 0
#define EW_ISDIV_sub 0
#define EW_ISDIV_mul 0
#define EW_ISDIV_div 1
#define EW_ISDIV_pow 0
#define EW_ISDIV_min 0
#define EW_ISDIV_max 0
#define EW_ISDIV_mod 0
#define EW_ISDIV_nop 0
#define EW_VDIV_HOOK_gen(T, S, op1, op2, tail, c1, c2)
#define EW_VDIV_HOOK_avx2(T, S, op1, op2, tail, c1, c2)                        \
  EW_VDIV_HOOK_##T (S, op1, op2, tail, c1, c2)
#define EW_VDIV_HOOK_double(S, op1, op2, tail, c1, c2)
/* Bare divisions, "divb", skip the test per vector. */
#define EW_BARE_add add
#define EW_BARE_sub sub
#define EW_BARE_mul mul
#define EW_BARE_div divb
#define EW_BARE_nop nop
#define EW_divb_FLOAT EW_div_FLOAT
#define EW_VRUN_X(...) EW_VRUN (__VA_ARGS__)
#define EW_VDIV_HOOK_float(S, op1, op2, tail, c1, c2)                          \
  if (EW_ISDIV_##op1 || EW_ISDIV_##op2) {                                      \
    const tn_ew_rdiv *r_ = ((const tn_ew_scalars *) ov)->div;                  \
    if ((!EW_ISDIV_##op1 || r_[0].bare) && (!EW_ISDIV_##op2 || r_[1].bare)) {  \
      EW_VRUN_X (S, EW_BARE_##op1, EW_BARE_##op2, tail, c1, c2,                \
          (const tn_ew_scalars *) ov);                                         \
      return;                                                                  \
    }                                                                          \
    if ((!EW_ISDIV_##op1 || r_[0].fast) && (!EW_ISDIV_##op2 || r_[1].fast)) {  \
      EW_VRUN (S, op1, op2, tail, c1, c2, (const tn_ew_scalars *) ov);         \
      return;                                                                  \
    }                                                                          \
  }
/* The one-step kernels: only float div, the others expand to nothing. */
#define EW_SDIV_HOOK_gen(op, F, T)
#define EW_SDIV_HOOK_avx2(op, F, T) EW_SDIV_SEL (EW_ISDIV_##op, F, T)
#define EW_SDIV_SEL(isdiv, F, T) EW_SDIV_SEL2 (isdiv, F, T)
#define EW_SDIV_SEL2(isdiv, F, T) EW_SDIV_##isdiv##_##F (T)
#define EW_SDIV_0_INT(T)
#define EW_SDIV_0_UINT(T)
#define EW_SDIV_0_FLOAT(T)
#define EW_SDIV_1_INT(T)
#define EW_SDIV_1_UINT(T)
#define EW_SDIV_1_FLOAT(T) EW_VDIV_HOOK_avx2 (T, T, div, nop, plain, c, c)

/* One expression per op and family: x is the item, c the operand. */
#define EW_add_INT(T, U, x, c) ((T) ((U) (x) + (U) (c)))
#define EW_add_UINT EW_add_INT
#define EW_add_FLOAT(T, U, x, c) ((x) + (c))
#define EW_sub_INT(T, U, x, c) ((T) ((U) (x) - (U) (c)))
#define EW_sub_UINT EW_sub_INT
#define EW_sub_FLOAT(T, U, x, c) ((x) - (c))
/* "* 1u" keeps types narrower than int from promoting to signed int. */
#define EW_mul_INT(T, U, x, c) ((T) ((U) (x) *1u * (U) (c)))
#define EW_mul_UINT EW_mul_INT
#define EW_mul_FLOAT(T, U, x, c) ((x) * (c))
#define EW_div_INT(T, U, x, c) ((T) ew_floordiv ((int64_t) (x), (int64_t) (c)))
#define EW_div_UINT(T, U, x, c) ((T) ((c) ? (x) / (c) : 0))
#define EW_div_FLOAT(T, U, x, c) ((x) / (c))
#define EW_pow_INT(T, U, x, c) ((T) ew_ipow ((uint64_t) (x), (uint64_t) (c)))
#define EW_pow_UINT EW_pow_INT
#define EW_pow_FLOAT(T, U, x, c) (pow ((x), (c)))
#define EW_min_INT(T, U, x, c) ((c) < (x) ? (c) : (x))
#define EW_min_UINT EW_min_INT
#define EW_min_FLOAT(T, U, x, c) ((c) < (x) || (c) != (c) ? (c) : (x))
#define EW_max_INT(T, U, x, c) ((c) > (x) ? (c) : (x))
#define EW_max_UINT EW_max_INT
#define EW_max_FLOAT(T, U, x, c) ((c) > (x) || (c) != (c) ? (c) : (x))
#define EW_mod_INT(T, U, x, c) ((T) ew_floormod ((int64_t) (x), (int64_t) (c)))
#define EW_mod_UINT(T, U, x, c) ((T) ((c) ? (x) % (c) : 0))
#define EW_mod_FLOAT(T, U, x, c) (ew_pymod_##T ((x), (c)))
#define EW_neg_INT(T, U, x, c) ((T) (0u - (U) (x)))
#define EW_neg_UINT EW_neg_INT
#define EW_neg_FLOAT(T, U, x, c) (-(x))
#define EW_abs_INT(T, U, x, c) ((T) ((x) < 0 ? 0u - (U) (x) : (U) (x)))
#define EW_abs_FLOAT(T, U, x, c) (fabs (x))
#define EW_relu_INT(T, U, x, c) ((x) < 0 ? (T) 0 : (x))
#define EW_relu_FLOAT EW_relu_INT
#define EW_sqrt_FLOAT(T, U, x, c) (sqrt (x))
#define EW_exp_FLOAT(T, U, x, c) (exp (x))
#define EW_log_FLOAT(T, U, x, c) (log (x))
#define EW_sigmoid_FLOAT(T, U, x, c) (ew_sigmoid_##T (x))
#define EW_tanh_FLOAT(T, U, x, c) (tanh (x))
/* floor and ceil through rint, which vectorises where they do not
 * (without -fno-trapping-math). */
#define EW_floor_FLOAT(T, U, x, c) ew_floor_##T (x)
#define EW_ceil_FLOAT(T, U, x, c) ew_ceil_##T (x)
#define EW_round_FLOAT(T, U, x, c) (rint (x))

/* Which ops each family has a kernel for; the others are errors or the
 * identity (see ewise.h). */
#define EW_BINOPS(Y, ...)                                                      \
  Y (add, ADD, __VA_ARGS__)                                                    \
  Y (sub, SUB, __VA_ARGS__)                                                    \
  Y (mul, MUL, __VA_ARGS__)                                                    \
  Y (div, DIV, __VA_ARGS__)                                                    \
  Y (pow, POW, __VA_ARGS__)                                                    \
  Y (min, MIN, __VA_ARGS__)                                                    \
  Y (max, MAX, __VA_ARGS__)                                                    \
  Y (mod, MOD, __VA_ARGS__)
#define EW_UNOPS_INT(Y, ...)                                                   \
  Y (neg, NEG, __VA_ARGS__)                                                    \
  Y (abs, ABS, __VA_ARGS__)                                                    \
  Y (relu, RELU, __VA_ARGS__)
#define EW_UNOPS_UINT(Y, ...) Y (neg, NEG, __VA_ARGS__)
#define EW_UNOPS_FLOAT(Y, ...)                                                 \
  EW_UNOPS_INT (Y, __VA_ARGS__)                                                \
  Y (sqrt, SQRT, __VA_ARGS__)                                                  \
  Y (exp, EXP, __VA_ARGS__)                                                    \
  Y (log, LOG, __VA_ARGS__)                                                    \
  Y (sigmoid, SIGMOID, __VA_ARGS__)                                            \
  Y (tanh, TANH, __VA_ARGS__)                                                  \
  Y (floor, FLOOR, __VA_ARGS__)                                                \
  Y (ceil, CEIL, __VA_ARGS__)                                                  \
  Y (round, ROUND, __VA_ARGS__)

/* In place (d == s) and out of place are separate loops so that neither
 * needs a run-time alias check to vectorise. */
#define EW_LOOP(T, EXPR_AT)                                                    \
  do {                                                                         \
    size_t i;                                                                  \
    if (dv == sv) {                                                            \
      T *d = (T *) dv;                                                         \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EXPR_AT (d[i]);                                                 \
    } else {                                                                   \
      T *restrict d = (T *) dv;                                                \
      const T *restrict s = (const T *) sv;                                    \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EXPR_AT (s[i]);                                                 \
    }                                                                          \
  } while (0)

#define EW_FN(op, name, var, suf) ew_##op##_##name##_##var##_##suf
#define EW_SIG(op, name, var, suf)                                             \
  static EW_ATTR_##suf void EW_FN (op, name, var, suf) (                       \
      void *dv, const void *sv, const void *ov, size_t n)

#define EW_GEN_UN(op, OP, suf, e, name, T, F)                                  \
  EW_SIG (op, name, s, suf)                                                    \
  {                                                                            \
    size_t i;                                                                  \
    (void) ov;                                                                 \
    if (dv == sv) {                                                            \
      T *d = (T *) dv;                                                         \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, d[i], 0);                        \
    } else {                                                                   \
      T *restrict d = (T *) dv;                                                \
      const T *restrict s = (const T *) sv;                                    \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, s[i], 0);                        \
    }                                                                          \
  }

/* clamp: o holds LO then HI. */
#define EW_CLAMP_AT(x) ((x) < lo ? lo : (x) > hi ? hi : (x))
#define EW_GEN_CLAMP(suf, e, name, T)                                          \
  EW_SIG (clamp, name, s, suf)                                                 \
  {                                                                            \
    const T lo = ((const T *) ov)[0], hi = ((const T *) ov)[1];                \
    EW_LOOP (T, EW_CLAMP_AT);                                                  \
  }

#define EW_GEN_TN_KIND_BOOL(suf, e, name, T)
#define EW_GEN_TN_KIND_INT(suf, e, name, T)                                    \
  EW_BINOPS (EW_GEN_BIN, suf, e, name, T, INT)                                 \
  EW_UNOPS_INT (EW_GEN_UN, suf, e, name, T, INT)                               \
  EW_GEN_CLAMP (suf, e, name, T)
#define EW_GEN_TN_KIND_UINT(suf, e, name, T)                                   \
  EW_BINOPS (EW_GEN_BIN, suf, e, name, T, UINT)                                \
  EW_UNOPS_UINT (EW_GEN_UN, suf, e, name, T, UINT)                             \
  EW_GEN_CLAMP (suf, e, name, T)
/* float16 and bfloat16 are computed with the float32 kernels. */
#define EW_GEN_TN_KIND_FLOAT(suf, e, name, T)                                  \
  EW_GEN_FLOAT_##name (suf, e, name, T)
#define EW_GEN_FLOAT_float16(suf, e, name, T)
#define EW_GEN_FLOAT_bfloat16(suf, e, name, T)
#define EW_GEN_FLOAT_float32(suf, e, name, T) EW_GEN_FLOATS (suf, e, name, T)
#define EW_GEN_FLOAT_float64(suf, e, name, T) EW_GEN_FLOATS (suf, e, name, T)
#define EW_GEN_FLOATS(suf, e, name, T)                                         \
  EW_BINOPS (EW_GEN_BIN, suf, e, name, T, FLOAT)                               \
  EW_UNOPS_FLOAT (EW_GEN_UN, suf, e, name, T, FLOAT)                           \
  EW_GEN_CLAMP (suf, e, name, T)                                               \
  EW_ARITH_A (EW_GEN_PAIR1, suf, e, name, T)

/* Two arithmetic steps with scalar operands fused into one loop, the
 * intermediate rounded to T as two steps would round it: "sub:127.5,
 * div:127.5" and "mul:a,add:b" become one pass even in L1.  (The same
 * list twice: a macro does not expand inside its own expansion.) */
#define EW_ARITH_A(Y, ...)                                                     \
  Y (add, ADD, __VA_ARGS__)                                                    \
  Y (sub, SUB, __VA_ARGS__)                                                    \
  Y (mul, MUL, __VA_ARGS__) Y (div, DIV, __VA_ARGS__)
#define EW_ARITH_B(Y, ...)                                                     \
  Y (add, ADD, __VA_ARGS__)                                                    \
  Y (sub, SUB, __VA_ARGS__)                                                    \
  Y (mul, MUL, __VA_ARGS__) Y (div, DIV, __VA_ARGS__)
/* Each pair comes plain and followed by relu ("sub:a,div:b,relu"). */
#define EW_TAIL_plain(T, y) (y)
#define EW_TAIL_relu(T, y) ((y) < 0 ? (T) 0 : (y))
#define EW_TAIL_IDX_plain 0
#define EW_TAIL_IDX_relu 1
#define EW_TAILS(Y, ...) Y (plain, __VA_ARGS__) Y (relu, __VA_ARGS__)
#define EW_PAIR_FN(op1, op2, tail, name, suf)                                  \
  ew_##op1##_##op2##_##tail##_##name##_##suf
#define EW_GEN_PAIR1(op1, OP1, suf, e, name, T)                                \
  EW_ARITH_B (EW_GEN_PAIR2, op1, suf, e, name, T)
#define EW_GEN_PAIR2(op2, OP2, op1, suf, e, name, T)                           \
  EW_TAILS (EW_GEN_PAIR3, op1, op2, suf, name, T)
#define EW_GEN_PAIR3(tail, op1, op2, suf, name, T)                             \
  static EW_ATTR_##suf void EW_PAIR_FN (op1, op2, tail, name, suf) (           \
      void *dv, const void *sv, const void *ov, size_t n)                      \
  {                                                                            \
    const T c1 = ((const T *) ov)[0], c2 = ((const T *) ov)[1];                \
    size_t i;                                                                  \
    EW_VDIV_HOOK_##suf (T, T, op1, op2, tail, c1, c2) if (dv == sv)            \
    {                                                                          \
      T *d = (T *) dv;                                                         \
      for (i = 0; i < n; i++) {                                                \
        T x = EW_##op1##_FLOAT (T, T, d[i], c1);                               \
        x = EW_##op2##_FLOAT (T, T, x, c2);                                    \
        d[i] = EW_TAIL_##tail (T, x);                                          \
      }                                                                        \
    }                                                                          \
    else                                                                       \
    {                                                                          \
      T *restrict d = (T *) dv;                                                \
      const T *restrict s = (const T *) sv;                                    \
      for (i = 0; i < n; i++) {                                                \
        T x = EW_##op1##_FLOAT (T, T, s[i], c1);                               \
        x = EW_##op2##_FLOAT (T, T, x, c2);                                    \
        d[i] = EW_TAIL_##tail (T, x);                                          \
      }                                                                        \
    }                                                                          \
  }

#define EW_GEN_BIN(op, OP, suf, e, name, T, F)                                 \
  EW_SIG (op, name, s, suf)                                                    \
  {                                                                            \
    const T c = *(const T *) ov;                                               \
    size_t i;                                                                  \
    EW_SDIV_HOOK_##suf (op, F, T) if (dv == sv)                                \
    {                                                                          \
      T *d = (T *) dv;                                                         \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, d[i], c);                        \
    }                                                                          \
    else                                                                       \
    {                                                                          \
      T *restrict d = (T *) dv;                                                \
      const T *restrict s = (const T *) sv;                                    \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, s[i], c);                        \
    }                                                                          \
  }                                                                            \
  EW_SIG (op, name, v, suf)                                                    \
  {                                                                            \
    const T *restrict o = (const T *) ov;                                      \
    size_t i;                                                                  \
    if (dv == sv) {                                                            \
      T *d = (T *) dv;                                                         \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, d[i], o[i]);                     \
    } else {                                                                   \
      T *restrict d = (T *) dv;                                                \
      const T *restrict s = (const T *) sv;                                    \
      for (i = 0; i < n; i++)                                                  \
        d[i] = EW_##op##_##F (T, EW_U_##name, s[i], o[i]);                     \
    }                                                                          \
  }

/* The cast from a small integer type to float32 (exact) fused with the
 * arithmetic pair after it, e.g. "cast:float32,sub:127.5,div:127.5" on
 * uint8 frames: one loop from bytes to normalised floats. */
#define EW_CSRC_int8 EW_GEN_CPAIRS
#define EW_CSRC_uint8 EW_GEN_CPAIRS
#define EW_CSRC_int16 EW_GEN_CPAIRS
#define EW_CSRC_uint16 EW_GEN_CPAIRS
#define EW_CSRC_int32(suf, e, name, S)
#define EW_CSRC_uint32(suf, e, name, S)
#define EW_CSRC_int64(suf, e, name, S)
#define EW_CSRC_uint64(suf, e, name, S)
#define EW_CSRC_bool(suf, e, name, S)
#define EW_CSRC_float16(suf, e, name, S)
#define EW_CSRC_bfloat16(suf, e, name, S)
#define EW_CSRC_float32(suf, e, name, S)
#define EW_CSRC_float64(suf, e, name, S)
/* The arithmetic of a cast pair may be missing: "nop" (index
 * TN_EW_NOPS in the table) does nothing, so a cast alone, or with one
 * step, costs no padding arithmetic. */
#define EW_nop_FLOAT(T, U, x, c) (x)
#define EW_CARITH_A(Y, ...)                                                    \
  EW_ARITH_A (Y, __VA_ARGS__) Y (nop, NOP, __VA_ARGS__)
#define EW_CARITH_B(Y, ...)                                                    \
  EW_ARITH_B (Y, __VA_ARGS__) Y (nop, NOP, __VA_ARGS__)
#define EW_GEN_CPAIRS(suf, e, name, S) EW_CARITH_A (EW_GEN_CPAIR1, suf, name, S)
#define EW_GEN_CPAIR1(op1, OP1, suf, name, S)                                  \
  EW_CARITH_B (EW_GEN_CPAIR2, op1, suf, name, S)
#define EW_CPAIR_FN(name, op1, op2, tail, suf)                                 \
  ew_##name##_f32_##op1##_##op2##_##tail##_##suf
#define EW_GEN_CPAIR2(op2, OP2, op1, suf, name, S)                             \
  EW_TAILS (EW_GEN_CPAIR3, op1, op2, suf, name, S)
#define EW_GEN_CPAIR3(tail, op1, op2, suf, name, S)                            \
  static EW_ATTR_##suf void EW_CPAIR_FN (name, op1, op2, tail, suf) (          \
      void *dv, const void *sv, const void *ov, size_t n)                      \
  {                                                                            \
    const float c1 = ((const float *) ov)[0], c2 = ((const float *) ov)[1];    \
    float *restrict d = (float *) dv;                                          \
    const S *restrict s = (const S *) sv;                                      \
    size_t i;                                                                  \
    (void) c1;                                                                 \
    (void) c2;                                                                 \
    EW_VDIV_HOOK_##suf (float, S, op1, op2, tail, c1, c2) for (i = 0; i < n;   \
                                                               i++)            \
    {                                                                          \
      float x = EW_##op1##_FLOAT (float, float, (float) s[i], c1);             \
      x = EW_##op2##_FLOAT (float, float, x, c2);                              \
      d[i] = EW_TAIL_##tail (float, x);                                        \
    }                                                                          \
  }

#define EW_GEN_gen(e, name, ct, kind) EW_GEN_##kind (gen, e, name, ct)
TN_FOREACH_DTYPE (EW_GEN_gen)
#if EW_HAVE_AVX2
#define EW_GEN_avx2(e, name, ct, kind) EW_GEN_##kind (avx2, e, name, ct)
TN_FOREACH_DTYPE (EW_GEN_avx2)
#endif
/* Pasted here, before name is expanded: bool is a macro. */
#define EW_GEN_CSRC_gen(e, name, ct, kind) EW_CSRC_##name (gen, e, name, ct)
TN_FOREACH_DTYPE (EW_GEN_CSRC_gen)
#if EW_HAVE_AVX2
#define EW_GEN_CSRC_avx2(e, name, ct, kind) EW_CSRC_##name (avx2, e, name, ct)
TN_FOREACH_DTYPE (EW_GEN_CSRC_avx2)
#endif

/* The tables: [op][dtype][variant]. */
#define EW_ENT_BIN(op, OP, suf, e, name)                                       \
  [TN_EW_##OP][e][0] = EW_FN (op, name, s, suf),                               \
  [TN_EW_##OP][e][1] = EW_FN (op, name, v, suf),
#define EW_ENT_UN(op, OP, suf, e, name)                                        \
  [TN_EW_##OP][e][0] = EW_FN (op, name, s, suf),
#define EW_ENT_TN_KIND_BOOL(suf, e, name)
#define EW_ENT_TN_KIND_INT(suf, e, name)                                       \
  EW_BINOPS (EW_ENT_BIN, suf, e, name)                                         \
  EW_UNOPS_INT (EW_ENT_UN, suf, e, name)                                       \
  EW_ENT_UN (clamp, CLAMP, suf, e, name)
#define EW_ENT_TN_KIND_UINT(suf, e, name)                                      \
  EW_BINOPS (EW_ENT_BIN, suf, e, name)                                         \
  EW_UNOPS_UINT (EW_ENT_UN, suf, e, name)                                      \
  EW_ENT_UN (clamp, CLAMP, suf, e, name)
#define EW_ENT_TN_KIND_FLOAT(suf, e, name) EW_ENT_FLOAT_##name (suf, e, name)
#define EW_ENT_FLOAT_float16(suf, e, name)
#define EW_ENT_FLOAT_bfloat16(suf, e, name)
#define EW_ENT_FLOAT_float32(suf, e, name) EW_ENT_FLOATS (suf, e, name)
#define EW_ENT_FLOAT_float64(suf, e, name) EW_ENT_FLOATS (suf, e, name)
#define EW_ENT_FLOATS(suf, e, name)                                            \
  EW_BINOPS (EW_ENT_BIN, suf, e, name)                                         \
  EW_UNOPS_FLOAT (EW_ENT_UN, suf, e, name)                                     \
  EW_ENT_UN (clamp, CLAMP, suf, e, name)

/* Pairs: [op1][op2][dtype], float32 and float64 only. */
#define EW_PENT_TN_KIND_BOOL(suf, e, name)
#define EW_PENT_TN_KIND_INT(suf, e, name)
#define EW_PENT_TN_KIND_UINT(suf, e, name)
#define EW_PENT_TN_KIND_FLOAT(suf, e, name) EW_PENT_FLOAT_##name (suf, e, name)
#define EW_PENT_FLOAT_float16(suf, e, name)
#define EW_PENT_FLOAT_bfloat16(suf, e, name)
#define EW_PENT_FLOAT_float32(suf, e, name) EW_ARITH_A (EW_PENT1, suf, e, name)
#define EW_PENT_FLOAT_float64(suf, e, name) EW_ARITH_A (EW_PENT1, suf, e, name)
#define EW_PENT1(op1, OP1, suf, e, name)                                       \
  EW_ARITH_B (EW_PENT2, op1, OP1, suf, e, name)
#define EW_PENT2(op2, OP2, op1, OP1, suf, e, name)                             \
  EW_TAILS (EW_PENT3, op1, OP1, op2, OP2, suf, e, name)
#define EW_PENT3(tail, op1, OP1, op2, OP2, suf, e, name)                       \
  [TN_EW_##OP1][TN_EW_##OP2][e][EW_TAIL_IDX_##tail]                            \
      = EW_PAIR_FN (op1, op2, tail, name, suf),

#define EW_PENT_gen(e, name, ct, kind) EW_PENT_##kind (gen, e, name)
static const tn_ew_kern pairs_gen[4][4][TN_NDTYPES][2]
    = { TN_FOREACH_DTYPE (EW_PENT_gen) };
#if EW_HAVE_AVX2
#define EW_PENT_avx2(e, name, ct, kind) EW_PENT_##kind (avx2, e, name)
static const tn_ew_kern pairs_avx2[4][4][TN_NDTYPES][2]
    = { TN_FOREACH_DTYPE (EW_PENT_avx2) };
#endif

/* Cast pairs: [source dtype][op1][op2], to float32. */
#define EW_CENT_int8 EW_CENTS
#define EW_CENT_uint8 EW_CENTS
#define EW_CENT_int16 EW_CENTS
#define EW_CENT_uint16 EW_CENTS
#define EW_CENT_int32(suf, e, name)
#define EW_CENT_uint32(suf, e, name)
#define EW_CENT_int64(suf, e, name)
#define EW_CENT_uint64(suf, e, name)
#define EW_CENT_bool(suf, e, name)
#define EW_CENT_float16(suf, e, name)
#define EW_CENT_bfloat16(suf, e, name)
#define EW_CENT_float32(suf, e, name)
#define EW_CENT_float64(suf, e, name)
#define EW_CENTS(suf, e, name) EW_CARITH_A (EW_CENT1, suf, e, name)
#define EW_CENT1(op1, OP1, suf, e, name)                                       \
  EW_CARITH_B (EW_CENT2, op1, OP1, suf, e, name)
#define TN_EW_NOP 4 /* the table index of "nothing" */
#define EW_CENT2(op2, OP2, op1, OP1, suf, e, name)                             \
  EW_TAILS (EW_CENT3, op1, OP1, op2, OP2, suf, e, name)
#define EW_CENT3(tail, op1, OP1, op2, OP2, suf, e, name)                       \
  [e][TN_EW_##OP1][TN_EW_##OP2][EW_TAIL_IDX_##tail]                            \
      = EW_CPAIR_FN (name, op1, op2, tail, suf),
#define EW_CENT_gen(e, name, ct, kind) EW_CENT_##name (gen, e, name)
static const tn_ew_kern cpairs_gen[TN_NDTYPES][5][5][2]
    = { TN_FOREACH_DTYPE (EW_CENT_gen) };
#if EW_HAVE_AVX2
#define EW_CENT_avx2(e, name, ct, kind) EW_CENT_##name (avx2, e, name)
static const tn_ew_kern cpairs_avx2[TN_NDTYPES][5][5][2]
    = { TN_FOREACH_DTYPE (EW_CENT_avx2) };
#endif

#define EW_ENT_gen(e, name, ct, kind) EW_ENT_##kind (gen, e, name)
static const tn_ew_kern table_gen[TN_EW_NOPS][TN_NDTYPES][2]
    = { TN_FOREACH_DTYPE (EW_ENT_gen) };
#if EW_HAVE_AVX2
#define EW_ENT_avx2(e, name, ct, kind) EW_ENT_##kind (avx2, e, name)
static const tn_ew_kern table_avx2[TN_EW_NOPS][TN_NDTYPES][2]
    = { TN_FOREACH_DTYPE (EW_ENT_avx2) };
#endif

static atomic_int current_impl = TN_EWISE_IMPL_AUTO;

tn_ewise_impl
tn_ew_resolve (tn_ewise_impl impl)
{
#if EW_HAVE_AVX2
  static atomic_int have = -1;
  int h = atomic_load (&have);

  if (h < 0) {
    __builtin_cpu_init ();
    h = __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
    atomic_store (&have, h);
  }
  if (impl == TN_EWISE_IMPL_PORTABLE)
    return impl;
  return h ? TN_EWISE_IMPL_AVX2 : TN_EWISE_IMPL_PORTABLE;
#else
  (void) impl;
  return TN_EWISE_IMPL_PORTABLE;
#endif
}

tn_ewise_impl
tn_ewise_set_impl (tn_ewise_impl impl)
{
  tn_ewise_impl r = tn_ew_resolve (impl);

  atomic_store (&current_impl, (int) impl);
  return r;
}

tn_ewise_impl
tn_ew_current (void)
{
  return tn_ew_resolve ((tn_ewise_impl) atomic_load (&current_impl));
}

tn_ew_kern
tn_ew_kernel (tn_ewise_impl impl, tn_ew_op op, tn_dtype t, int variant)
{
  if ((unsigned) op >= TN_EW_NOPS || !tn_dtype_valid ((int) t) || variant < 0
      || variant > 1)
    return NULL;
#if EW_HAVE_AVX2
  if (tn_ew_resolve (impl) == TN_EWISE_IMPL_AVX2)
    return table_avx2[op][t][variant];
#else
  (void) impl;
#endif
  return table_gen[op][t][variant];
}

tn_ew_kern
tn_ew_pair_kernel (
    tn_ewise_impl impl, tn_ew_op op1, tn_ew_op op2, tn_dtype t, bool relu)
{
  if ((unsigned) op1 > TN_EW_DIV || (unsigned) op2 > TN_EW_DIV
      || !tn_dtype_valid ((int) t))
    return NULL;
#if EW_HAVE_AVX2
  if (tn_ew_resolve (impl) == TN_EWISE_IMPL_AVX2)
    return pairs_avx2[op1][op2][t][relu];
#else
  (void) impl;
#endif
  return pairs_gen[op1][op2][t][relu];
}

/* add..div are 0..3 in the cast-pair table; TN_EW_NOPS, "nothing", is
 * TN_EW_NOP; anything else has no entry (-1). */
static int
carith_index (tn_ew_op op)
{
  if (op == TN_EW_NOPS)
    return TN_EW_NOP;
  return (unsigned) op <= TN_EW_DIV ? (int) op : -1;
}

tn_ew_kern
tn_ew_cast_pair_kernel (
    tn_ewise_impl impl, tn_dtype from, tn_ew_op op1, tn_ew_op op2, bool relu)
{
  int i1 = carith_index (op1), i2 = carith_index (op2);

  if (i1 < 0 || i2 < 0 || !tn_dtype_valid ((int) from))
    return NULL;
#if EW_HAVE_AVX2
  if (tn_ew_resolve (impl) == TN_EWISE_IMPL_AVX2)
    return cpairs_avx2[from][i1][i2][relu];
#else
  (void) impl;
#endif
  return cpairs_gen[from][i1][i2][relu];
}

/* Half blocks.  float16 goes through the bulk converters (F16C when the
 * CPU has it); bfloat16 is integer work on the bits. */
void
tn_ew_widen (float *d, const void *s, tn_dtype t, size_t n)
{
  const uint16_t *restrict h = s;
  size_t i;

  if (t == TN_FLOAT16) {
    tn_f16_to_f32_n (d, h, n);
    return;
  }
  for (i = 0; i < n; i++)
    d[i] = tn_bf16_to_f32_inline (h[i]);
}

void
tn_ew_narrow (void *d, const float *s, tn_dtype t, size_t n)
{
  uint16_t *restrict h = d;
  size_t i;

  if (t == TN_FLOAT16) {
    tn_f32_to_f16_n (h, s, n);
    return;
  }
  for (i = 0; i < n; i++)
    h[i] = tn_f32_to_bf16_inline (s[i]);
}

void
tn_ew_round (float *x, tn_dtype t, size_t n, void *tmp)
{
  size_t i;

  if (t == TN_FLOAT16) {
    tn_f32_to_f16_n (tmp, x, n);
    tn_f16_to_f32_n (x, tmp, n);
    return;
  }
  for (i = 0; i < n; i++)
    x[i] = tn_bf16_to_f32_inline (tn_f32_to_bf16_inline (x[i]));
}
