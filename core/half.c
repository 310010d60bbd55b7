#include "half.h"
#include "half-private.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define TN_HAVE_X86 1
#endif

static inline uint64_t
f64_bits (double d)
{
  uint64_t u;
  memcpy (&u, &d, sizeof u);
  return u;
}

static inline uint32_t
f32_bits (float f)
{
  uint32_t u;
  memcpy (&u, &f, sizeof u);
  return u;
}

static inline float
bits_f32 (uint32_t u)
{
  float f;
  memcpy (&f, &u, sizeof f);
  return f;
}

/* Narrows the binary float `bits` (sebits exponent bits, smbits fraction
 * bits) to one with ebits/mbits, rounding once to nearest even.  Always
 * inlined with constant widths, so each use compiles to its own code.
 *
 * A source subnormal is taken with e = emin and no implicit bit, and a
 * result that falls below the target's normal range is shifted further
 * right with the exponent pinned at emin: in both cases the field
 * (e + bias - 1) << mbits plus the shifted significand (whose implicit bit,
 * when present, lands on the exponent's lowest bit) is the right encoding,
 * and a rounding carry moves into the exponent (or to infinity) by itself. */
static inline __attribute__ ((always_inline)) uint32_t
narrow_bits (uint64_t bits, int sebits, int smbits, int ebits, int mbits)
{
  const int sbias = (1 << (sebits - 1)) - 1;
  const int bias = (1 << (ebits - 1)) - 1;
  const int emin = 1 - bias;
  const uint32_t sign = (uint32_t) (bits >> (sebits + smbits))
                        << (ebits + mbits);
  const uint32_t inf = (uint32_t) ((1 << ebits) - 1) << mbits;
  const int exp = (int) ((bits >> smbits) & ((1u << sebits) - 1));
  const uint64_t frac = bits & ((UINT64_C (1) << smbits) - 1);
  uint64_t m, rem, half;
  uint32_t r;
  int e, s;

  if (exp == (1 << sebits) - 1) {
    if (frac == 0)
      return sign | inf;
    /* Quiet NaN keeping the top of the payload. */
    return sign | inf | (1u << (mbits - 1))
           | (uint32_t) (frac >> (smbits - mbits));
  }
  if (exp == 0) {
    if (frac == 0)
      return sign;
    e = 1 - sbias;
    m = frac;
  } else {
    e = exp - sbias;
    m = frac | (UINT64_C (1) << smbits);
  }
  if (e > bias)
    return sign | inf;
  s = smbits - mbits;
  if (e < emin) {
    s += emin - e;
    /* Below half the smallest subnormal (m < 2^(smbits+1)). */
    if (s > smbits + 1)
      return sign;
    e = emin;
  }
  r = ((uint32_t) (e + bias - 1) << mbits) + (uint32_t) (m >> s);
  rem = m & ((UINT64_C (1) << s) - 1);
  half = UINT64_C (1) << (s - 1);
  if (rem > half || (rem == half && (r & 1)))
    r++;
  return sign | r;
}

float
tn_f16_to_f32 (uint16_t h)
{
  const uint32_t sign = (uint32_t) (h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t frac = h & 0x3ff;
  float f;

  if (exp == 0x1f) {
    /* NaN comes out quiet, as F16C makes it. */
    return bits_f32 (sign | 0x7f800000 | (frac << 13) | (frac ? 0x400000u : 0));
  }
  if (exp == 0) {
    f = (float) frac * 0x1p-24f; /* exact: frac < 2^10 */
    return sign ? -f : f;
  }
  return bits_f32 (sign | ((exp + 112) << 23) | (frac << 13));
}

/* Inputs in [2^-14, 65520), whose results are finite normals, take the
 * branch-free integer form: rebias the exponent, then round the 13 dropped
 * bits to nearest even by adding 0xfff plus the lowest kept bit (a carry
 * moves into the exponent).  The rest take the general path. */
uint16_t
tn_f32_to_f16 (float f)
{
  const uint32_t u = f32_bits (f), a = u & 0x7fffffff;
  uint32_t r;

  if (a < 0x38800000 || a >= 0x477ff000)
    return (uint16_t) narrow_bits (u, 8, 23, 5, 10);
  r = (a - (112u << 23) + 0xfff + ((a >> 13) & 1)) >> 13;
  return (uint16_t) (((u >> 16) & 0x8000) | r);
}

uint16_t
tn_f64_to_f16 (double d)
{
  return (uint16_t) narrow_bits (f64_bits (d), 11, 52, 5, 10);
}

float
tn_bf16_to_f32 (uint16_t b)
{
  return tn_bf16_to_f32_inline (b);
}

uint16_t
tn_f32_to_bf16 (float f)
{
  return tn_f32_to_bf16_inline (f);
}

uint16_t
tn_f64_to_bf16 (double d)
{
  return (uint16_t) narrow_bits (f64_bits (d), 11, 52, 8, 7);
}

/* Bulk forms. */

static void
f16_to_f32_portable (float *dst, const uint16_t *src, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = tn_f16_to_f32 (src[i]);
}

static void
f32_to_f16_portable (uint16_t *dst, const float *src, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = tn_f32_to_f16 (src[i]);
}

#ifdef TN_HAVE_X86
/* The tail goes through a padded block so every item takes the same
 * instruction and the results never depend on n. */
static __attribute__ ((target ("avx,f16c"))) void
f16_to_f32_f16c (float *dst, const uint16_t *src, size_t n)
{
  uint16_t tin[8] = { 0 };
  float tout[8];
  size_t i = 0;

  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128 ((const __m128i *) (src + i));
    _mm256_storeu_ps (dst + i, _mm256_cvtph_ps (h));
  }
  if (i < n) {
    memcpy (tin, src + i, (n - i) * sizeof *src);
    _mm256_storeu_ps (
        tout, _mm256_cvtph_ps (_mm_loadu_si128 ((const __m128i *) tin)));
    memcpy (dst + i, tout, (n - i) * sizeof *dst);
  }
}

static __attribute__ ((target ("avx,f16c"))) void
f32_to_f16_f16c (uint16_t *dst, const float *src, size_t n)
{
  float tin[8] = { 0 };
  uint16_t tout[8];
  size_t i = 0;

  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps (src + i);
    _mm_storeu_si128 (
        (__m128i *) (dst + i), _mm256_cvtps_ph (v, _MM_FROUND_TO_NEAREST_INT));
  }
  if (i < n) {
    memcpy (tin, src + i, (n - i) * sizeof *src);
    _mm_storeu_si128 ((__m128i *) tout,
        _mm256_cvtps_ph (_mm256_loadu_ps (tin), _MM_FROUND_TO_NEAREST_INT));
    memcpy (dst + i, tout, (n - i) * sizeof *dst);
  }
}
#endif

/* CPUID directly: clang 14's __builtin_cpu_supports does not know "f16c".
 * F16C's VEX encoding also needs the OS to save YMM state (XCR0 bits 1-2). */
int
tn_half_have_f16c (void)
{
#ifdef TN_HAVE_X86
  unsigned int a, b, c, d, xlo, xhi;

  if (!__get_cpuid (1, &a, &b, &c, &d))
    return 0;
  if (!(c & bit_OSXSAVE) || !(c & bit_AVX) || !(c & bit_F16C))
    return 0;
  __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  (void) xhi;
  return (xlo & 6) == 6;
#else
  return 0;
#endif
}

/* -1 until first use; then the resolved tn_half_impl (never AUTO). */
static atomic_int half_impl = -1;

tn_half_impl
tn_half_set_impl (tn_half_impl impl)
{
  tn_half_impl r = TN_HALF_IMPL_PORTABLE;

  if (impl != TN_HALF_IMPL_PORTABLE && tn_half_have_f16c ())
    r = TN_HALF_IMPL_F16C;
  atomic_store_explicit (&half_impl, (int) r, memory_order_relaxed);
  return r;
}

static inline tn_half_impl
half_get_impl (void)
{
  int v = atomic_load_explicit (&half_impl, memory_order_relaxed);

  if (v < 0)
    return tn_half_set_impl (TN_HALF_IMPL_AUTO);
  return (tn_half_impl) v;
}

void
tn_f16_to_f32_n (float *dst, const uint16_t *src, size_t n)
{
#ifdef TN_HAVE_X86
  if (half_get_impl () == TN_HALF_IMPL_F16C) {
    f16_to_f32_f16c (dst, src, n);
    return;
  }
#endif
  f16_to_f32_portable (dst, src, n);
}

void
tn_f32_to_f16_n (uint16_t *dst, const float *src, size_t n)
{
#ifdef TN_HAVE_X86
  if (half_get_impl () == TN_HALF_IMPL_F16C) {
    f32_to_f16_f16c (dst, src, n);
    return;
  }
#endif
  f32_to_f16_portable (dst, src, n);
}
