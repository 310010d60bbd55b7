#include "half.h"
#include "half-private.h"

#include <string.h>

#include "cpu.h"
#include "dsp.h"

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

/* Bulk forms: the portable entries of the table, then the table. */

static void
f16_to_f32_c (float *dst, const uint16_t *src, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = tn_f16_to_f32 (src[i]);
}

static void
f32_to_f16_c (uint16_t *dst, const float *src, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = tn_f32_to_f16 (src[i]);
}

static void
bf16_to_f32_c (float *dst, const uint16_t *src, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = tn_bf16_to_f32_inline (src[i]);
}

static void
f32_to_bf16_c (uint16_t *dst, const float *src, size_t n)
{
  for (size_t i = 0; i < n; i++)
    dst[i] = tn_f32_to_bf16_inline (src[i]);
}

#if TN_ARCH_X86
/* x86/half-f16c.c is built with the avx2 library's flags, so it may hold
 * AVX2 instructions besides F16C: it needs both. */
static void
init_x86 (tn_half_dsp *d, unsigned flags)
{
  if ((flags & TN_CPU_F16C) && (flags & TN_CPU_AVX2)) {
    d->f16_to_f32 = tn_f16_to_f32_f16c;
    d->f32_to_f16 = tn_f32_to_f16_f16c;
    d->f32_to_f16_stream = tn_f32_to_f16_f16c_stream;
  }
  if (flags & TN_CPU_AVX2) {
    d->bf16_to_f32 = tn_bf16_to_f32_avx2;
    d->f32_to_bf16 = tn_f32_to_bf16_avx2;
    d->f32_to_bf16_stream = tn_f32_to_bf16_avx2_stream;
  }
  /* vcvtps2ph on zmm is AVX-512F (no F16C flag needed). */
  if (flags & TN_CPU_AVX512) {
    d->f32_to_f16 = tn_f32_to_f16_avx512;
    d->f32_to_f16_stream = tn_f32_to_f16_avx512_stream;
  }
  /* The library is built with the avx512 flags and -mavx512bf16. */
  if ((flags & TN_CPU_AVX512) && (flags & TN_CPU_AVX512BF16)) {
    d->f32_to_bf16 = tn_f32_to_bf16_avx512bf16;
    d->f32_to_bf16_stream = tn_f32_to_bf16_avx512bf16_stream;
  }
}
#endif

void
tn_half_dsp_init (tn_half_dsp *d, unsigned flags)
{
  d->f16_to_f32 = f16_to_f32_c;
  d->f32_to_f16 = f32_to_f16_c;
  d->bf16_to_f32 = bf16_to_f32_c;
  d->f32_to_bf16 = f32_to_bf16_c;
  d->f32_to_f16_stream = f32_to_f16_c;
  d->f32_to_bf16_stream = f32_to_bf16_c;
#if TN_ARCH_X86
  init_x86 (d, flags);
#else
  (void) flags;
#endif
}

TN_DSP_GET (tn_half_dsp, tn_half_dsp_get, tn_half_dsp_init)

int
tn_half_have_f16c (void)
{
  return (tn_cpu_flags () & TN_CPU_F16C) != 0;
}

void
tn_f16_to_f32_n (float *dst, const uint16_t *src, size_t n)
{
  tn_half_dsp_get ()->f16_to_f32 (dst, src, n);
}

void
tn_f32_to_f16_n (uint16_t *dst, const float *src, size_t n)
{
  tn_half_dsp_get ()->f32_to_f16 (dst, src, n);
}

void
tn_bf16_to_f32_n (float *dst, const uint16_t *src, size_t n)
{
  tn_half_dsp_get ()->bf16_to_f32 (dst, src, n);
}

void
tn_f32_to_bf16_n (uint16_t *dst, const float *src, size_t n)
{
  tn_half_dsp_get ()->f32_to_bf16 (dst, src, n);
}
