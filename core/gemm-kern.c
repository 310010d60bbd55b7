/* The GEMM kernel table: the portable C micro-kernels (the reference the
 * ISA ones are checked against, and the fallback on CPUs without
 * AVX2+FMA), then the ISA ones (core/x86/gemm-avx2.c, gemm-avx512.c), and
 * the geometry of each level. */
#include "gemm-pack.h"

#include "cpu.h"
#include "dsp.h"

/* One template for every compute type: MR x NR sums of KP products per
 * step, in k order.  Integer sums run in uint32_t so that overflow wraps
 * instead of being undefined. */
#define TN_GEMM_UKR_C(NAME, CT, ST, OT, MR, NR, KP)                            \
  static void NAME (int mr, int64_t ksteps, const void *pa_, const void *pb_,  \
      void *c_, int64_t ldc, int beta)                                         \
  {                                                                            \
    const CT *pa = pa_;                                                        \
    const CT *pb = pb_;                                                        \
    OT *c = c_;                                                                \
    ST acc[MR][NR] = { { 0 } };                                                \
                                                                               \
    for (int64_t p = 0; p < ksteps; p++, pa += MR * KP, pb += NR * KP)         \
      for (int i = 0; i < mr; i++)                                             \
        for (int j = 0; j < NR; j++)                                           \
          for (int q = 0; q < KP; q++)                                         \
            acc[i][j] += (ST) (pa[i * KP + q] * pb[j * KP + q]);               \
    for (int i = 0; i < mr; i++)                                               \
      for (int j = 0; j < NR; j++)                                             \
        c[i * ldc + j]                                                         \
            = beta ? (OT) ((ST) c[i * ldc + j] + acc[i][j]) : (OT) acc[i][j];  \
  }

/* The portable skinny kernel is what it stands for: g calls of the
 * micro-kernel, one per B micro-panel. */
#define TN_GEMM_SKR_C(NAME, UKR, CT, OT, NR)                                   \
  static void NAME (int mr, int g, int64_t ksteps, const void *pa,             \
      const void *pb, int64_t sstride, void *c, int64_t ldc, int beta)         \
  {                                                                            \
    for (int s = 0; s < g; s++)                                                \
      UKR (mr, ksteps, pa, (const CT *) pb + s * sstride, (OT *) c + s * NR,   \
          ldc, beta);                                                          \
  }

TN_GEMM_UKR_C (ukr_f32_c, float, float, float, 6, 16, 1)
TN_GEMM_UKR_C (ukr_f64_c, double, double, double, 6, 8, 1)
TN_GEMM_UKR_C (ukr_i8_c, int16_t, uint32_t, int32_t, 6, 16, 2)
TN_GEMM_SKR_C (skr_f32_c, ukr_f32_c, float, float, 16)
TN_GEMM_SKR_C (skr_f64_c, ukr_f64_c, double, double, 8)
TN_GEMM_SKR_C (skr_i8_c, ukr_i8_c, int16_t, int32_t, 16)
/* AVX-512's geometries, for checkasm's reference */
TN_GEMM_UKR_C (ukr_f32_c12, float, float, float, 12, 32, 1)
TN_GEMM_UKR_C (ukr_f64_c14, double, double, double, 14, 16, 1)
TN_GEMM_UKR_C (ukr_i8_c12, int16_t, uint32_t, int32_t, 12, 32, 2)
TN_GEMM_SKR_C (skr_f32_c12, ukr_f32_c12, float, float, 32)
TN_GEMM_SKR_C (skr_f64_c14, ukr_f64_c14, double, double, 16)
TN_GEMM_SKR_C (skr_i8_c12, ukr_i8_c12, int16_t, int32_t, 32)

/* The portable and AVX2 geometry. */
static const tn_gemm_kern portable[TN_GEMM_NKINDS] = {
  /* float32 6x16: 12 ymm accumulators; kc 256 keeps a B micro-panel
   * (16 KB) in L1, mc 144 keeps an A block (144 KB) in L2. */
  [TN_GEMM_F32]
  = { { 6, 16, 1, 256, 144, 512, sizeof (float), TN_FLOAT32, TN_GEMM_F32 },
      ukr_f32_c, skr_f32_c },
  /* float64 6x8: the same 12 accumulators, half the lanes.  mc 216: an
   * A block of 432 KB in Zen 4's 1 MB L2, so a 16 KB B micro-panel
   * serves 36 calls from L1 where 72 rows gave 12 (2048^3: 0.78-0.82 ->
   * 0.87-0.95 of OpenBLAS, docs/perf-notes.md session 9 H2). */
  [TN_GEMM_F64]
  = { { 6, 8, 1, 256, 216, 512, sizeof (double), TN_FLOAT64, TN_GEMM_F64 },
      ukr_f64_c, skr_f64_c },
  /* int8 widened to int16 in pairs of k for vpmaddwd, int32 sums. */
  [TN_GEMM_I8]
  = { { 6, 16, 2, 512, 144, 512, sizeof (int16_t), TN_INT32, TN_GEMM_I8 },
      ukr_i8_c, skr_i8_c },
};

/* AVX-512: 2 zmm per row and 12-14 rows, 24-28 of the 32 registers
 * (BLIS's skx kernels are the same shapes transposed: 32x12 and 16x14).
 * kc stays AVX2's, so the float sums are AVX2's bits; a B micro-panel is
 * then 32 KB, L1's size (docs/perf-notes.md: a smaller kc measured no
 * faster).  float32 nc 1024: A is packed half as often (n / nc times),
 * and the kc x nc B block (1 MiB), the A block and the mc x nc C block
 * still share the Xeon's 2 MiB L2; against 512, in one process, quiet,
 * 1.04-1.06x at 1024^3 and 2048^3.  float64 stays at 512 (1024: 0.98x at
 * 2048^3), as do AVX2's (docs/perf-notes.md, session 11 H3). */
static const tn_gemm_kern avx512_ref[TN_GEMM_NKINDS] = {
  [TN_GEMM_F32]
  = { { 12, 32, 1, 256, 144, 1024, sizeof (float), TN_FLOAT32, TN_GEMM_F32 },
      ukr_f32_c12, skr_f32_c12 },
  [TN_GEMM_F64]
  = { { 14, 16, 1, 256, 84, 512, sizeof (double), TN_FLOAT64, TN_GEMM_F64 },
      ukr_f64_c14, skr_f64_c14 },
  [TN_GEMM_I8]
  = { { 12, 32, 2, 512, 144, 512, sizeof (int16_t), TN_INT32, TN_GEMM_I8 },
      ukr_i8_c12, skr_i8_c12 },
};

#if TN_ARCH_X86
static void
init_x86 (tn_gemm_dsp *d, unsigned flags)
{
  if (flags & TN_CPU_AVX2) { /* with FMA */
    d->k[TN_GEMM_F32].ukr = tn_gemm_ukr_f32_avx2;
    d->k[TN_GEMM_F64].ukr = tn_gemm_ukr_f64_avx2;
    d->k[TN_GEMM_I8].ukr = tn_gemm_ukr_i8_avx2;
    d->k[TN_GEMM_F32].skr = tn_gemm_skr_f32_avx2;
    d->k[TN_GEMM_F64].skr = tn_gemm_skr_f64_avx2;
    d->k[TN_GEMM_I8].skr = tn_gemm_skr_i8_avx2;
  }
  if (flags & TN_CPU_AVX512) { /* a geometry of its own */
    for (int k = 0; k < TN_GEMM_NKINDS; k++)
      d->k[k].g = avx512_ref[k].g;
    /* float64 off Intel (measured on Zen 4: 32 KiB L1d, 1 MiB L2): mc
     * 140, an A block of 280 KiB in L2, so that each B micro-panel read
     * from L3 serves 10 calls where 84 rows gave 6 (252 rows, 18 calls,
     * measured no faster at 2048^3 and made 512^3 on two threads 0.08
     * slower: 3 row blocks, nc cut to 128 for the tasks); nc 1024, so
     * that A is packed half as often (the k x nc B block is past L2
     * already at 512).  With the C prefetch of x86/gemm-tmpl.h, 2048^3
     * on one thread 0.88-0.92 -> 0.97-0.98 of OpenBLAS
     * (docs/perf-notes.md, session 17 H1).  Intel keeps its own: not
     * measured there, and on the Xeon nc 1024 alone measured 0.98x at
     * 2048^3 (session 11 H3). */
    if (!tn_cpu_intel ()) {
      d->k[TN_GEMM_F64].g.mc = 140;
      d->k[TN_GEMM_F64].g.nc = 1024;
    }
    d->k[TN_GEMM_F32].ukr = tn_gemm_ukr_f32_avx512;
    d->k[TN_GEMM_F64].ukr = tn_gemm_ukr_f64_avx512;
    d->k[TN_GEMM_I8].ukr = tn_gemm_ukr_i8_avx512;
    d->k[TN_GEMM_F32].skr = tn_gemm_skr_f32_avx512;
    d->k[TN_GEMM_F64].skr = tn_gemm_skr_f64_avx512;
    d->k[TN_GEMM_I8].skr = tn_gemm_skr_i8_avx512;
  }
}
#endif

void
tn_gemm_dsp_init (tn_gemm_dsp *d, unsigned flags)
{
  for (int k = 0; k < TN_GEMM_NKINDS; k++)
    d->k[k] = portable[k];
#if TN_ARCH_X86
  init_x86 (d, flags);
#else
  (void) flags;
#endif
}

TN_DSP_GET (tn_gemm_dsp, tn_gemm_dsp_get, tn_gemm_dsp_init)

int
tn_gemm_portable_of (const tn_gemm_geom *g, tn_gemm_kern *out)
{
  const tn_gemm_kern *sets[] = { portable, avx512_ref };

  for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
    const tn_gemm_kern *k = &sets[s][g->kind];

    if (k->g.mr == g->mr && k->g.nr == g->nr && k->g.kp == g->kp) {
      *out = *k;
      out->g = *g;
      return 0;
    }
  }
  return -1;
}

int
tn_gemm_kind_of (tn_dtype src)
{
  switch (src) {
  case TN_FLOAT32:
  case TN_FLOAT16:
  case TN_BFLOAT16:
    return TN_GEMM_F32;
  case TN_FLOAT64:
    return TN_GEMM_F64;
  case TN_INT8:
    return TN_GEMM_I8;
  default:
    return -1;
  }
}

const tn_gemm_geom *
tn_gemm_geom_of (tn_dtype src)
{
  int k = tn_gemm_kind_of (src);

  return k < 0 ? NULL : &tn_gemm_dsp_get ()->k[k].g;
}
