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
#if TN_ARCH_X86
  if ((flags & avx2) == avx2) {
    tn_ew_fill_avx2 (d);
    tn_ew_init_avx2 (d);
  }
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
