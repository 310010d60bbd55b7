#include "cast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half-private.h"
#include "half.h"
#include "parallel.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TN_INLINE static inline __attribute__ ((always_inline))

/* An item read into the widest type of its kind: integers (and bool) as
 * their two's complement bits in u, k telling signed from unsigned, so
 * int -> float sees the exact value; floats widened exactly to f. */
typedef struct {
  tn_kind k;
  uint64_t u;
  double f;
} tn_val;

#define WIDEN_float16(x) ((double) tn_f16_to_f32 (x))
#define WIDEN_bfloat16(x) ((double) tn_bf16_to_f32_inline (x))
#define WIDEN_float32(x) ((double) (x))
#define WIDEN_float64(x) (x)

TN_INLINE tn_val
mkval (tn_kind k, uint64_t u, double f)
{
  tn_val v = { k, u, f };
  return v;
}

#define LOADV_TN_KIND_BOOL(name, x) mkval (TN_KIND_BOOL, (x) != 0, 0)
#define LOADV_TN_KIND_INT(name, x)                                             \
  mkval (TN_KIND_INT, (uint64_t) (int64_t) (x), 0)
#define LOADV_TN_KIND_UINT(name, x) mkval (TN_KIND_UINT, (uint64_t) (x), 0)
#define LOADV_TN_KIND_FLOAT(name, x) mkval (TN_KIND_FLOAT, 0, WIDEN_##name (x))

#define SIZE_CASE(e, name, ct, kind)                                           \
  case e:                                                                      \
    return sizeof (ct);

TN_INLINE size_t
isize (tn_dtype t)
{
  switch (t) {
    TN_FOREACH_DTYPE (SIZE_CASE)
  default:
    return 0;
  }
}

#define LOAD_CASE(e, name, ct, kind)                                           \
  case e: {                                                                    \
    ct x;                                                                      \
    memcpy (&x, p, sizeof x);                                                  \
    return LOADV_##kind (name, x);                                             \
  }

TN_INLINE tn_val
load (const unsigned char *p, tn_dtype t)
{
  switch (t) {
    TN_FOREACH_DTYPE (LOAD_CASE)
  default:
    return mkval (TN_KIND_FLOAT, 0, NAN);
  }
}

/* Truncation toward zero with saturation.  The bounds 2^(bits-1) and
 * 2^bits are exact doubles, so the comparisons are exact; between them the
 * C conversion is defined. */
TN_INLINE uint64_t
sat_signed (double v, int bits)
{
  const uint64_t top = UINT64_C (1) << (bits - 1);
  const double hi = (double) top;

  if (v != v)
    return 0;
  if (v >= hi)
    return top - 1;
  if (v <= -hi)
    return (uint64_t) 0 - top;
  return (uint64_t) (int64_t) v;
}

TN_INLINE uint64_t
sat_unsigned (double v, int bits)
{
  const double hi = 2.0 * (double) (UINT64_C (1) << (bits - 1));

  if (!(v > 0)) /* NaN, and (-1, 0] truncating to 0 */
    return 0;
  if (v >= hi)
    return UINT64_MAX >> (64 - bits);
  return (uint64_t) v;
}

/* A 64-bit integer magnitude as a double rounded to odd: exact up to 2^53,
 * otherwise the dropped bits leave a sticky 1.  Rounding that once more to
 * a format of 51 bits or fewer gives the correctly rounded result, which a
 * plain (double) conversion followed by a second rounding does not. */
TN_INLINE double
u64_to_f64_odd (uint64_t m)
{
  int sh;
  uint64_t kept;

  if ((m >> 53) == 0)
    return (double) m;
  sh = 11 - __builtin_clzll (m);
  kept = m >> sh;
  if (m & ((UINT64_C (1) << sh) - 1))
    kept |= 1;
  return (double) kept * (double) (UINT64_C (1) << sh);
}

TN_INLINE double
i64_to_f64_odd (int64_t v)
{
  return v < 0 ? -u64_to_f64_odd ((uint64_t) 0 - (uint64_t) v)
               : u64_to_f64_odd ((uint64_t) v);
}

#define NARROW_float16(d) tn_f64_to_f16 (d)
#define NARROW_bfloat16(d) tn_f64_to_bf16 (d)
#define NARROW_float32(d) ((float) (d))
#define NARROW_float64(d) (d)

/* int64/uint64 -> float32/float64: the hardware conversion rounds once. */
#define FROM_I64_float16(v) tn_f64_to_f16 (i64_to_f64_odd (v))
#define FROM_I64_bfloat16(v) tn_f64_to_bf16 (i64_to_f64_odd (v))
#define FROM_I64_float32(v) ((float) (v))
#define FROM_I64_float64(v) ((double) (v))
#define FROM_U64_float16(v) tn_f64_to_f16 (u64_to_f64_odd (v))
#define FROM_U64_bfloat16(v) tn_f64_to_bf16 (u64_to_f64_odd (v))
#define FROM_U64_float32(v) ((float) (v))
#define FROM_U64_float64(v) ((double) (v))

#define STOREV_TN_KIND_BOOL(name, ct, v)                                       \
  (ct) ((v).k == TN_KIND_FLOAT ? (v).f != 0 : (v).u != 0)
#define STOREV_TN_KIND_INT(name, ct, v)                                        \
  (ct) ((v).k == TN_KIND_FLOAT ? sat_signed ((v).f, 8 * sizeof (ct)) : (v).u)
#define STOREV_TN_KIND_UINT(name, ct, v)                                       \
  (ct) ((v).k == TN_KIND_FLOAT ? sat_unsigned ((v).f, 8 * sizeof (ct)) : (v).u)
#define STOREV_TN_KIND_FLOAT(name, ct, v)                                      \
  ((v).k == TN_KIND_FLOAT    ? NARROW_##name ((v).f)                           \
      : (v).k == TN_KIND_INT ? FROM_I64_##name ((int64_t) (v).u)               \
                             : FROM_U64_##name ((v).u))

#define STORE_CASE(e, name, ct, kind)                                          \
  case e: {                                                                    \
    ct y = STOREV_##kind (name, ct, v);                                        \
    memcpy (p, &y, sizeof y);                                                  \
    return;                                                                    \
  }

TN_INLINE void
store (unsigned char *p, tn_dtype t, tn_val v)
{
  switch (t) {
    TN_FOREACH_DTYPE (STORE_CASE)
  default:
    return;
  }
}

/* With dt and st constant after inlining, load and store fold to the one
 * conversion of that pair. */
TN_INLINE void
cast_loop (unsigned char *d, tn_dtype dt, const unsigned char *s, tn_dtype st,
    size_t n)
{
  const size_t dsz = isize (dt), ssz = isize (st);
  size_t i;

  for (i = 0; i < n; i++)
    store (d + i * dsz, dt, load (s + i * ssz, st));
}

#define DST_CASE(e, name, ct, kind)                                            \
  case e:                                                                      \
    cast_loop (d, e, s, st, n);                                                \
    return;

TN_INLINE void
cast_to_any (unsigned char *d, tn_dtype dt, const unsigned char *s, tn_dtype st,
    size_t n)
{
  switch (dt) {
    TN_FOREACH_DTYPE (DST_CASE)
  default:
    return;
  }
}

/* One function per source dtype, each holding the 13 loops from it. */
#define CAST_FROM(e, name, ct, kind)                                           \
  static void cast_from_##name (                                               \
      unsigned char *d, tn_dtype dt, const unsigned char *s, size_t n)         \
  {                                                                            \
    cast_to_any (d, dt, s, e, n);                                              \
  }
TN_FOREACH_DTYPE (CAST_FROM)

typedef void (*cast_fn) (
    unsigned char *, tn_dtype, const unsigned char *, size_t);

#define CAST_ENTRY(e, name, ct, kind) [e] = cast_from_##name,
static const cast_fn cast_from[TN_NDTYPES] = { TN_FOREACH_DTYPE (CAST_ENTRY) };

/* Hot contiguous casts.  The SSE2 forms give the same results as the
 * generic loops (the tests compare them). */

static void
cast_u8_f32 (float *d, const uint8_t *s, size_t n)
{
  size_t i = 0;

#if defined(__SSE2__)
  const __m128i z = _mm_setzero_si128 ();

  for (; i + 16 <= n; i += 16) {
    __m128i b = _mm_loadu_si128 ((const __m128i *) (s + i));
    __m128i lo = _mm_unpacklo_epi8 (b, z), hi = _mm_unpackhi_epi8 (b, z);
    _mm_storeu_ps (d + i, _mm_cvtepi32_ps (_mm_unpacklo_epi16 (lo, z)));
    _mm_storeu_ps (d + i + 4, _mm_cvtepi32_ps (_mm_unpackhi_epi16 (lo, z)));
    _mm_storeu_ps (d + i + 8, _mm_cvtepi32_ps (_mm_unpacklo_epi16 (hi, z)));
    _mm_storeu_ps (d + i + 12, _mm_cvtepi32_ps (_mm_unpackhi_epi16 (hi, z)));
  }
#endif
  for (; i < n; i++)
    d[i] = (float) s[i];
}

static void
cast_f32_u8 (uint8_t *d, const float *s, size_t n)
{
  size_t i = 0;

#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps (), top = _mm_set1_ps (255.0f);

  /* maxps returns its second operand when the first is NaN: NaN -> 0. */
#define CLAMP4(k)                                                              \
  _mm_cvttps_epi32 (                                                           \
      _mm_min_ps (_mm_max_ps (_mm_loadu_ps (s + i + (k)), zero), top))
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_packs_epi32 (CLAMP4 (0), CLAMP4 (4));
    __m128i b = _mm_packs_epi32 (CLAMP4 (8), CLAMP4 (12));
    _mm_storeu_si128 ((__m128i *) (d + i), _mm_packus_epi16 (a, b));
  }
#undef CLAMP4
#endif
  for (; i < n; i++)
    d[i] = (uint8_t) sat_unsigned (s[i], 8);
}

static void
cast_f32_f64 (double *d, const float *s, size_t n)
{
  size_t i = 0;

#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) {
    __m128 v = _mm_loadu_ps (s + i);
    _mm_storeu_pd (d + i, _mm_cvtps_pd (v));
    _mm_storeu_pd (d + i + 2, _mm_cvtps_pd (_mm_movehl_ps (v, v)));
  }
#endif
  for (; i < n; i++)
    d[i] = s[i];
}

static void
cast_f64_f32 (float *d, const double *s, size_t n)
{
  size_t i = 0;

#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) {
    __m128 lo = _mm_cvtpd_ps (_mm_loadu_pd (s + i));
    __m128 hi = _mm_cvtpd_ps (_mm_loadu_pd (s + i + 2));
    _mm_storeu_ps (d + i, _mm_movelh_ps (lo, hi));
  }
#endif
  for (; i < n; i++)
    d[i] = (float) s[i];
}

/* Under the IEEE environment (parallel.h): a caller's DAZ would read a
 * subnormal float32 as 0 (bfloat16 -> bool gave False) and its FTZ would
 * flush float32 results of float64 values below 2^-126. */
static void
cast_ieee (void *dst, tn_dtype dt, const void *src, tn_dtype st, size_t n)
{
  /* Same dtype: the bits are the value (a NaN keeps its payload), except
   * bool, whose nonzero bytes become 1. */
  if (dt == st && st != TN_BOOL) {
    if (dst != src)
      memmove (dst, src, n * isize (st));
    return;
  }
  /* The hot pairs change the item size, so they never run in place. */
  if (st == TN_UINT8 && dt == TN_FLOAT32)
    cast_u8_f32 (dst, src, n);
  else if (st == TN_FLOAT32 && dt == TN_UINT8)
    cast_f32_u8 (dst, src, n);
  else if (st == TN_FLOAT32 && dt == TN_FLOAT64)
    cast_f32_f64 (dst, src, n);
  else if (st == TN_FLOAT64 && dt == TN_FLOAT32)
    cast_f64_f32 (dst, src, n);
  else if (st == TN_FLOAT16 && dt == TN_FLOAT32)
    tn_f16_to_f32_n (dst, src, n);
  else if (st == TN_FLOAT32 && dt == TN_FLOAT16)
    tn_f32_to_f16_n (dst, src, n);
  else if (st == TN_BFLOAT16 && dt == TN_FLOAT32)
    tn_bf16_to_f32_n (dst, src, n);
  else if (st == TN_FLOAT32 && dt == TN_BFLOAT16)
    tn_f32_to_bf16_n (dst, src, n);
  else
    cast_from[st](dst, dt, src, n);
}

void
tn_cast (void *dst, tn_dtype dt, const void *src, tn_dtype st, size_t n)
{
  tn_fpenv env;

  if (n == 0 || !tn_dtype_valid ((int) dt) || !tn_dtype_valid ((int) st))
    return;
  env = tn_fpenv_enter ();
  cast_ieee (dst, dt, src, st, n);
  tn_fpenv_leave (env);
}

/* An invalid dtype reads as NaN and is never written.  Both run under
 * the IEEE environment: DAZ would widen a float32 subnormal to 0, FTZ
 * would flush a float64 that narrows to a float32 subnormal. */
double
tn_get_f64 (const void *p, tn_dtype t)
{
  tn_fpenv env = tn_fpenv_enter ();
  tn_val v = load (p, t);
  double r;

  switch (v.k) {
  case TN_KIND_FLOAT:
    r = v.f;
    break;
  case TN_KIND_INT:
    r = (double) (int64_t) v.u;
    break;
  default:
    r = (double) v.u;
    break;
  }
  TN_FPENV_PIN (r);
  tn_fpenv_leave (env);
  return r;
}

void
tn_set_f64 (void *p, tn_dtype t, double v)
{
  tn_fpenv env = tn_fpenv_enter ();

  TN_FPENV_PIN (v);
  store (p, t, mkval (TN_KIND_FLOAT, 0, v));
  tn_fpenv_leave (env);
}

/* Formatting. */

/* Whether the decimal text s reads back as the same item of float dtype
 * t.  float16/bfloat16 go through double: a decimal of at most 5 digits
 * cannot sit close enough to one of their ties to be misrounded. */
static bool
round_trips (const char *s, double x, tn_dtype t)
{
  switch (t) {
  case TN_FLOAT16:
    return tn_f64_to_f16 (strtod (s, NULL)) == tn_f64_to_f16 (x);
  case TN_BFLOAT16:
    return tn_f64_to_bf16 (strtod (s, NULL)) == tn_f64_to_bf16 (x);
  case TN_FLOAT32:
    return strtof (s, NULL) == (float) x;
  default:
    return strtod (s, NULL) == x;
  }
}

/* NumPy's repr of a float scalar: the fewest significant digits that read
 * back as the same value of its dtype; positional for 1e-4 <= |x| < 1e16
 * (and 0), with at least one digit after the point; scientific otherwise,
 * with a signed exponent of at least two digits ("1e-05", "1.5e+16"). */
static int
format_float (char *buf, size_t cap, double x, tn_dtype t)
{
  char sci[40], digits[24], out[64];
  const char *mant;
  int p, exp10, nd, i, len = 0, zero;
  double ax = fabs (x);

  if (isnan (x))
    return snprintf (buf, cap, "nan");
  if (isinf (x))
    return snprintf (buf, cap, x < 0 ? "-inf" : "inf");

  /* %.*e prints the nearest p+1 digit decimal; the first that reads back
   * is the shortest, and the nearest of that length. */
  for (p = 0; p < 17; p++) {
    snprintf (sci, sizeof sci, "%.*e", p, x);
    if (round_trips (sci, x, t))
      break;
  }
  /* "-d.ddde+XX" -> digits "dddd", exponent XX */
  mant = sci + (sci[0] == '-');
  nd = 0;
  for (i = 0; mant[i] != 'e'; i++)
    if (mant[i] != '.')
      digits[nd++] = mant[i];
  exp10 = atoi (mant + i + 1);
  while (nd > 1 && digits[nd - 1] == '0')
    nd--;
  digits[nd] = '\0';

  /* Zero by its digits, which printf takes from the bits: under DAZ a
   * subnormal compares equal to 0 (tn_format_item sets the IEEE
   * environment; this stays right without it). */
  zero = nd == 1 && digits[0] == '0';
  if (signbit (x))
    out[len++] = '-';
  /* NumPy compares the value: 1e-4 <= |x| < 1e16 prints positionally.
   * The shortest digits of such a value have exp10 in [-4, 16] (1e-4 and
   * 1e16 are short decimals, and rounding is monotonic), so the second
   * test changes nothing under IEEE; it bounds the zeros and digits
   * written into out[] by construction (a float64 subnormal taken for 0
   * once wrote 314 zeros into it). */
  if (zero || (ax >= 1e-4 && ax < 1e16 && exp10 >= -4 && exp10 <= 16)) {
    if (exp10 < 0) {
      len += sprintf (out + len, "0.");
      for (i = 0; i < -exp10 - 1; i++)
        out[len++] = '0';
      len += sprintf (out + len, "%s", digits);
    } else {
      for (i = 0; i <= exp10; i++)
        out[len++] = i < nd ? digits[i] : '0';
      out[len++] = '.';
      if (nd > exp10 + 1)
        len += sprintf (out + len, "%s", digits + exp10 + 1);
      else
        out[len++] = '0';
    }
  } else {
    out[len++] = digits[0];
    if (nd > 1)
      len += sprintf (out + len, ".%s", digits + 1);
    len += sprintf (out + len, "e%c%02d", exp10 < 0 ? '-' : '+',
        exp10 < 0 ? -exp10 : exp10);
  }
  out[len] = '\0';
  return snprintf (buf, cap, "%s", out);
}

/* Returns what snprintf would: the full length, even when cap cut it.
 * Under the IEEE environment: the shortest digits compare what strtod
 * reads back with the item, and DAZ would call any two subnormals equal
 * (5.1e-315 printed as "5e-315"). */
int
tn_format_item (char *buf, size_t cap, const void *p, tn_dtype t)
{
  tn_fpenv env;
  tn_val v;
  int n;

  if (!tn_dtype_valid ((int) t))
    return snprintf (buf, cap, "?");
  env = tn_fpenv_enter ();
  v = load (p, t);
  switch (v.k) {
  case TN_KIND_BOOL:
    n = snprintf (buf, cap, v.u ? "True" : "False");
    break;
  case TN_KIND_INT:
    n = snprintf (buf, cap, "%lld", (long long) (int64_t) v.u);
    break;
  case TN_KIND_UINT:
    n = snprintf (buf, cap, "%llu", (unsigned long long) v.u);
    break;
  default:
    n = format_float (buf, cap, v.f, t);
    break;
  }
  tn_fpenv_leave (env);
  return n;
}
