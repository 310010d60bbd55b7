/* The elementwise family's table and what is not a kernel: the table
 * for a CPU level, the division plans of the AVX2 kernels (proven with
 * the table's rdiv_check) and the half blocks.  The kernels are in
 * core/ewise-tmpl.c (portable, and per ISA) and core/x86/ewise-*.c. */
#include "ewise-kern.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu.h"
#include "dsp.h"
#include "half-private.h"
#include "half.h"

/* The AVX2 library is compiled with -mf16c as well, so its kernels need
 * both. */
void
tn_ewise_dsp_init (tn_ewise_dsp *d, unsigned flags)
{
#if TN_ARCH_X86
  const unsigned avx2 = TN_CPU_AVX2 | TN_CPU_F16C;
#endif

  memset (d, 0, sizeof *d);
  tn_ew_fill_c (d);
  {
    static const tn_dtype small[] = { TN_INT8, TN_UINT8, TN_INT16, TN_UINT16 };

    for (int i = 0; i < 4; i++)
      d->cast_stream[small[i]] = d->run[small[i]][TN_EW_NOP][TN_EW_NOP][0];
  }
#if TN_ARCH_X86
  if ((flags & avx2) == avx2) {
    tn_ew_fill_avx2 (d);
    tn_ew_init_avx2 (d);
  }
  if (flags & TN_CPU_AVX512)
    tn_ew_init_avx512 (d);
#else
  (void) flags;
#endif
}

/* The cached table (core/dsp.h). */
TN_DSP_GET (tn_ewise_dsp, tn_ewise_dsp_get, tn_ewise_dsp_init)

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
rdiv_try (tn_ew_rdiv *p, float c, float zh, float zl,
    bool (*check) (float c, float zh, float zl, int e))
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
  p->fast = check (c, zh, zl, s);
  return p->fast;
}

void
tn_ew_rdiv_plan (tn_ew_rdiv *p, float c)
{
  bool (*check) (float, float, float, int) = tn_ewise_dsp_get ()->rdiv_check;
  float zh = 1 / c;
  tn_ew_rdiv alt;

  memset (p, 0, sizeof *p);
  if (!atomic_load (&rdiv_allowed) || check == NULL
      || fpclassify (c) != FP_NORMAL || fpclassify (zh) != FP_NORMAL)
    return;
  atomic_fetch_add (&rdiv_checks, 1);
  /* 1 - c zh is exact in double; a zl off by an ulp would only fail the
   * check. */
  if (rdiv_try (p, c, zh, (float) ((1.0 - (double) c * zh) / c), check)
      && p->same)
    return;
  /* zh one ulp nearer 0 than RN (1/c) leaves a rest of its sign, so that
   * ±inf and -0 need no test (for about 19 divisors in 20 one of the two
   * pairs passes and has one sign). */
  memset (&alt, 0, sizeof alt);
  zh = nextafterf (zh, 0);
  if (rdiv_try (&alt, c, zh, (float) ((1.0 - (double) c * zh) / c), check)
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

void
tn_ew_walk_init (
    tn_ew_walk *w, const int64_t *dims, const int64_t *strides, int rank)
{
  int i, g = 0;

  for (i = 0; i < rank; i++) {
    if (dims[i] == 1)
      continue;
    if (g > 0 && w->strides[g - 1] == strides[i] * dims[i]) {
      w->dims[g - 1] *= dims[i];
      w->strides[g - 1] = strides[i];
    } else {
      w->dims[g] = dims[i];
      w->strides[g] = strides[i];
      g++;
    }
  }
  w->rank = g;
}

/* n copies of the item v. */
static void
fill_item (unsigned char *d, const unsigned char *v, int64_t n, size_t es)
{
  int64_t i;

  switch (es) {
  case 1:
    memset (d, *v, (size_t) n);
    break;
  case 2: {
    uint16_t x, *p = (uint16_t *) d;

    memcpy (&x, v, 2);
    for (i = 0; i < n; i++)
      p[i] = x;
    break;
  }
  case 4: {
    uint32_t x, *p = (uint32_t *) d;

    memcpy (&x, v, 4);
    for (i = 0; i < n; i++)
      p[i] = x;
    break;
  }
  default: {
    uint64_t x, *p = (uint64_t *) d;

    memcpy (&x, v, 8);
    for (i = 0; i < n; i++)
      p[i] = x;
    break;
  }
  }
}

/* n items every st items apart. */
static void
copy_strided (
    unsigned char *d, const unsigned char *s, int64_t n, int64_t st, size_t es)
{
  int64_t i;

  for (i = 0; i < n; i++)
    memcpy (d + (size_t) i * es, s + i * st * (int64_t) es, es);
}

void
tn_ew_gather (void *dv, const void *base, size_t es, const tn_ew_walk *w,
    int64_t b, int64_t m)
{
  const int r = w->rank;
  const unsigned char *data = base;
  unsigned char *d = dv;
  int64_t idx[TN_MAX_RANK], off = 0, rem = b;
  int i;

  if (r == 0) {
    fill_item (d, data, m, es);
    return;
  }
  for (i = r - 1; i >= 0; i--) {
    idx[i] = rem % w->dims[i];
    rem /= w->dims[i];
    off += idx[i] * w->strides[i];
  }
  while (m > 0) {
    int64_t run = w->dims[r - 1] - idx[r - 1], st = w->strides[r - 1];

    if (run > m)
      run = m;
    if (st == 0)
      fill_item (d, data + off * (int64_t) es, run, es);
    else if (st == 1)
      memcpy (d, data + off * (int64_t) es, (size_t) run * es);
    else
      copy_strided (d, data + off * (int64_t) es, run, st, es);
    d += run * (int64_t) es;
    m -= run;
    idx[r - 1] += run;
    off += run * st;
    for (i = r - 1; i > 0 && idx[i] == w->dims[i]; i--) {
      off -= idx[i] * w->strides[i];
      idx[i] = 0;
      idx[i - 1]++;
      off += w->strides[i - 1];
    }
  }
}

/* Half blocks: the bulk converters of half-private.h (F16C for float16,
 * AVX2 integer work on the bits for bfloat16, when the CPU has them). */
void
tn_ew_widen (float *d, const void *s, tn_dtype t, size_t n)
{
  const uint16_t *h = s;

  if (t == TN_FLOAT16)
    tn_f16_to_f32_n (d, h, n);
  else
    tn_bf16_to_f32_n (d, h, n);
}

void
tn_ew_narrow (void *d, const float *s, tn_dtype t, size_t n)
{
  uint16_t *h = d;

  if (t == TN_FLOAT16)
    tn_f32_to_f16_n (h, s, n);
  else
    tn_f32_to_bf16_n (h, s, n);
}

void
tn_ew_round (float *x, tn_dtype t, size_t n, void *tmp)
{

  if (t == TN_FLOAT16) {
    tn_f32_to_f16_n (tmp, x, n);
    tn_f16_to_f32_n (x, tmp, n);
    return;
  }
  tn_f32_to_bf16_n (tmp, x, n);
  tn_bf16_to_f32_n (x, tmp, n);
}
