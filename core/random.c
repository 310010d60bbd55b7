/* sincos, where glibc has it. */
#define _GNU_SOURCE
#include "random.h"

#include "parallel.h"

#include <math.h>
#include <string.h>

#include "cast.h"
#include "cpu.h"
#include "dsp.h"
#include "random-kern.h"

#define TWO_PI 6.283185307179586476925286766559

#define BATCH TN_PHILOX_BATCH

/* Items converted per pass of the dtype fills (on the stack). */
#define CHUNK 1024

void
tn_philox4x32_10 (const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];

  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t) TN_PHILOX_M0 * x0;
    uint64_t p1 = (uint64_t) TN_PHILOX_M1 * x2;

    x0 = (uint32_t) (p1 >> 32) ^ x1 ^ k0;
    x1 = (uint32_t) p1;
    x2 = (uint32_t) (p0 >> 32) ^ x3 ^ k1;
    x3 = (uint32_t) p0;
    k0 += TN_PHILOX_W0;
    k1 += TN_PHILOX_W1;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

static void
philox_batch_c (
    uint32_t x[4][BATCH], uint64_t block0, uint64_t stream, uint64_t seed)
{
  uint32_t k0 = (uint32_t) seed, k1 = (uint32_t) (seed >> 32);

  for (int j = 0; j < BATCH; j++) {
    uint64_t b = block0 + (uint64_t) j;

    x[0][j] = (uint32_t) b;
    x[1][j] = (uint32_t) (b >> 32);
    x[2][j] = (uint32_t) stream;
    x[3][j] = (uint32_t) (stream >> 32);
  }
  for (int r = 0; r < 10; r++) {
    for (int j = 0; j < BATCH; j++) {
      uint64_t p0 = (uint64_t) TN_PHILOX_M0 * x[0][j];
      uint64_t p1 = (uint64_t) TN_PHILOX_M1 * x[2][j];
      uint32_t y0 = (uint32_t) (p1 >> 32) ^ x[1][j] ^ k0;
      uint32_t y2 = (uint32_t) (p0 >> 32) ^ x[3][j] ^ k1;

      x[0][j] = y0;
      x[1][j] = (uint32_t) p1;
      x[2][j] = y2;
      x[3][j] = (uint32_t) p0;
    }
    k0 += TN_PHILOX_W0;
    k1 += TN_PHILOX_W1;
  }
}

#if TN_ARCH_X86
static void
init_x86 (tn_random_dsp *d, unsigned flags)
{
  if (flags & TN_CPU_AVX2)
    d->batch = tn_philox_batch_avx2;
}
#endif

void
tn_random_dsp_init (tn_random_dsp *d, unsigned flags)
{
  d->batch = philox_batch_c;
#if TN_ARCH_X86
  init_x86 (d, flags);
#else
  (void) flags;
#endif
}

TN_DSP_GET (tn_random_dsp, tn_random_dsp_get, tn_random_dsp_init)

static inline double
u53 (uint32_t hi, uint32_t lo)
{
  return (double) (((uint64_t) hi << 21) | (lo >> 11)) * 0x1.0p-53;
}

/* Box-Muller on one block: u1 in (0, 1] keeps the logarithm finite. */
static inline void
box_muller (const uint32_t w[4], double *z0, double *z1)
{
  double u1 = u53 (w[0], w[1]) + 0x1.0p-53;
  double t = TWO_PI * u53 (w[2], w[3]);
  double r = sqrt (-2.0 * log (u1));
  double s, c;

#ifdef __GLIBC__
  sincos (t, &s, &c);
#else
  s = sin (t);
  c = cos (t);
#endif
  *z0 = r * c;
  *z1 = r * s;
}

typedef enum { GEN_U24, GEN_U53, GEN_NORMAL } gen_mode;

/* The items of block j of x, in order. */
static inline void
block_items (const uint32_t x[4][BATCH], int j, gen_mode mode, double v[4])
{
  uint32_t w[4] = { x[0][j], x[1][j], x[2][j], x[3][j] };

  switch (mode) {
  case GEN_U24:
    for (int i = 0; i < 4; i++)
      v[i] = (double) (w[i] >> 8) * 0x1.0p-24;
    break;
  case GEN_U53:
    v[0] = u53 (w[0], w[1]);
    v[1] = u53 (w[2], w[3]);
    break;
  case GEN_NORMAL:
    box_muller (w, &v[0], &v[1]);
    break;
  }
}

/* Items first .. first+n-1: block b holds items b*per .. b*per+per-1. */
static void
generate (void *dst, gen_mode mode, size_t n, uint64_t seed, uint64_t stream,
    uint64_t first)
{
  const unsigned per = mode == GEN_U24 ? 4 : 2;
  const tn_philox_batch_fn batch = tn_random_dsp_get ()->batch;
  float *f = dst;
  double *d = dst;
  uint32_t x[4][BATCH];
  uint64_t block = first / per;
  unsigned lane = (unsigned) (first % per);
  size_t done = 0;

  while (done < n) {
    batch (x, block, stream, seed);
    if (lane == 0 && n - done >= BATCH * per) {
      /* A whole batch: straight loops, no bounds per item. */
      switch (mode) {
      case GEN_U24:
        for (int j = 0; j < BATCH; j++)
          for (int w = 0; w < 4; w++)
            f[done + 4 * j + w] = (float) (x[w][j] >> 8) * 0x1.0p-24f;
        break;
      case GEN_U53:
        for (int j = 0; j < BATCH; j++) {
          d[done + 2 * j] = u53 (x[0][j], x[1][j]);
          d[done + 2 * j + 1] = u53 (x[2][j], x[3][j]);
        }
        break;
      case GEN_NORMAL:
        for (int j = 0; j < BATCH; j++) {
          const uint32_t w[4] = { x[0][j], x[1][j], x[2][j], x[3][j] };

          box_muller (w, &d[done + 2 * j], &d[done + 2 * j + 1]);
        }
        break;
      }
      done += BATCH * per;
    } else {
      for (int j = 0; j < BATCH && done < n; j++) {
        double v[4];

        block_items (x, j, mode, v);
        for (; lane < per && done < n; lane++, done++) {
          if (mode == GEN_U24)
            f[done] = (float) v[lane];
          else
            d[done] = v[lane];
        }
        lane = 0;
      }
    }
    block += BATCH;
  }
}

void
tn_random_uniform_f32 (
    float *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first)
{
  generate (dst, GEN_U24, n, seed, stream, first);
}

void
tn_random_uniform_f64 (
    double *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first)
{
  generate (dst, GEN_U53, n, seed, stream, first);
}

void
tn_random_normal_f64 (
    double *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first)
{
  generate (dst, GEN_NORMAL, n, seed, stream, first);
}

/* The neighbour of an IEEE float of width bytes, as its bits: one step
 * toward +inf (dir > 0) or -inf.  Sign-magnitude, so a negative number
 * moves up by shrinking its magnitude; +0 and -0 step to the smallest
 * subnormal of the needed sign. */
static uint64_t
float_step (uint64_t bits, size_t width, int dir)
{
  const uint64_t sign = (uint64_t) 1 << (8 * width - 1);
  const uint64_t mag = bits & (sign - 1);

  if (mag == 0)
    return dir > 0 ? 1 : sign | 1;
  if (!!(bits & sign) == (dir > 0))
    return bits - 1;
  return bits + 1;
}

/* The float item of dt nearest to v on the side dir points to (the value
 * itself when v is representable, a neighbour when the rounding went the
 * wrong way), returned as a double. */
static double
float_inside (tn_dtype dt, double v, int dir)
{
  size_t w = tn_dtype_size (dt);
  _Alignas(8) unsigned char item[8];
  uint64_t bits = 0;
  double got;

  tn_set_f64 (item, dt, v);
  got = tn_get_f64 (item, dt);
  if (dir > 0 ? got >= v : got < v)
    return got;
  memcpy (&bits, item, w);
  bits = float_step (bits, w, dir);
  memcpy (item, &bits, w);
  return tn_get_f64 (item, dt);
}

static inline double
uniform_at (double u, double low, double high, double span, int finite_span,
    double bottom, double top)
{
  double x = finite_span ? low + span * u : low * (1 - u) + high * u;

  return x < bottom ? bottom : x > top ? top : x;
}

static int
fill_uniform (void *dst, tn_dtype dt, uint64_t first, size_t n, double low,
    double high, uint64_t seed, uint64_t stream, tn_err *e)
{
  double buf[CHUNK];
  float ubuf[CHUNK];
  unsigned char *out = dst;
  size_t isz;

  if (!tn_dtype_valid (dt)) {
    tn_err_set (e, "uniform: dtype tag %d is not one of the %d dtypes.",
        (int) dt, (int) TN_NDTYPES);
    return -1;
  }
  if (!(isfinite (low) && isfinite (high) && low < high)) {
    tn_err_set (e,
        "uniform needs finite low < high; got low %.17g and "
        "high %.17g.",
        low, high);
    return -1;
  }
  isz = tn_dtype_size (dt);

  if (tn_dtype_kind (dt) == TN_KIND_FLOAT) {
    /* high - low overflows only for huge bounds of opposite signs; the
     * two-product form cannot overflow there. */
    const double span = high - low;
    const int finite_span = isfinite (span);
    /* Rounding (in the arithmetic or in the cast to dt) must not leave the
     * interval: clamp to the dtype's values inside it, before the cast. */
    const double bottom = float_inside (dt, low, +1);
    const double top = float_inside (dt, high, -1);

    for (size_t done = 0; done < n;) {
      size_t m = n - done < CHUNK ? n - done : CHUNK;

      if (dt == TN_FLOAT64) {
        double *o = (double *) out + done;

        tn_random_uniform_f64 (o, m, seed, stream, first + done);
        for (size_t i = 0; i < m; i++)
          o[i] = uniform_at (o[i], low, high, span, finite_span, bottom, top);
      } else {
        tn_random_uniform_f32 (ubuf, m, seed, stream, first + done);
        if (dt == TN_FLOAT32) {
          float *o = (float *) out + done;

          for (size_t i = 0; i < m; i++)
            o[i] = (float) uniform_at (
                ubuf[i], low, high, span, finite_span, bottom, top);
        } else {
          for (size_t i = 0; i < m; i++)
            buf[i] = uniform_at (
                ubuf[i], low, high, span, finite_span, bottom, top);
          tn_cast (out + done * isz, dt, buf, TN_FLOAT64, m);
        }
      }
      done += m;
    }
    return 0;
  }

  /* Integers in [ceil(low), ceil(high)); count is exact below 2^53. */
  {
    double lo = ceil (low);
    double count = ceil (high) - lo;

    for (size_t done = 0; done < n;) {
      size_t m = n - done < CHUNK ? n - done : CHUNK;

      tn_random_uniform_f64 (buf, m, seed, stream, first + done);
      for (size_t i = 0; i < m; i++) {
        double u = buf[i], k = 0;

        if (!isfinite (count)) {
          /* Bounds so far apart that their distance overflows: every
           * integer dtype saturates there, so the integer grid is moot. */
          double x = floor (low * (1 - u) + high * u);

          buf[i] = x < lo ? lo : x;
          continue;
        }
        if (count >= 1) {
          k = floor (u * count);
          if (k > count - 1)
            k = count - 1;
        }
        buf[i] = lo + k;
      }
      tn_cast (out + done * isz, dt, buf, TN_FLOAT64, m);
      done += m;
    }
  }
  return 0;
}

/* In the IEEE environment whatever the caller's FTZ/DAZ: the values near
 * the bounds and the Box-Muller tails are subnormal-sensitive. */
int
tn_random_fill_uniform (void *dst, tn_dtype dt, uint64_t first, size_t n,
    double low, double high, uint64_t seed, uint64_t stream, tn_err *e)
{
  tn_fpenv env = tn_fpenv_enter ();
  int r = fill_uniform (dst, dt, first, n, low, high, seed, stream, e);

  tn_fpenv_leave (env);
  return r;
}

static int
fill_normal (void *dst, tn_dtype dt, uint64_t first, size_t n, double mean,
    double stddev, uint64_t seed, uint64_t stream, tn_err *e)
{
  double buf[CHUNK];
  unsigned char *out = dst;
  size_t isz;

  if (!tn_dtype_valid (dt)) {
    tn_err_set (e, "normal: dtype tag %d is not one of the %d dtypes.",
        (int) dt, (int) TN_NDTYPES);
    return -1;
  }
  if (!isfinite (mean) || !isfinite (stddev) || !(stddev >= 0)) {
    tn_err_set (e,
        "normal needs a finite mean and a finite stddev >= 0; "
        "got mean %.17g and stddev %.17g.",
        mean, stddev);
    return -1;
  }
  isz = tn_dtype_size (dt);
  for (size_t done = 0; done < n;) {
    size_t m = n - done < CHUNK ? n - done : CHUNK;
    double *v = dt == TN_FLOAT64 ? (double *) out + done : buf;

    tn_random_normal_f64 (v, m, seed, stream, first + done);
    for (size_t i = 0; i < m; i++)
      v[i] = mean + stddev * v[i];
    if (dt != TN_FLOAT64)
      tn_cast (out + done * isz, dt, v, TN_FLOAT64, m);
    done += m;
  }
  return 0;
}

/* In the IEEE environment whatever the caller's FTZ/DAZ: the values near
 * the bounds and the Box-Muller tails are subnormal-sensitive. */
int
tn_random_fill_normal (void *dst, tn_dtype dt, uint64_t first, size_t n,
    double mean, double stddev, uint64_t seed, uint64_t stream, tn_err *e)
{
  tn_fpenv env = tn_fpenv_enter ();
  int r = fill_normal (dst, dt, first, n, mean, stddev, seed, stream, e);

  tn_fpenv_leave (env);
  return r;
}
