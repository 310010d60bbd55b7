/* The GEMM kernel table: the portable C micro-kernels (the reference the
 * ISA ones are checked against, and the fallback on CPUs without
 * AVX2+FMA), then the ISA ones (core/x86/gemm-avx2.c). */
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

#if TN_ARCH_X86
static void
init_x86 (tn_gemm_dsp *d, unsigned flags)
{
  if (flags & TN_CPU_AVX2) { /* with FMA */
    d->ukr[TN_GEMM_F32] = tn_gemm_ukr_f32_avx2;
    d->ukr[TN_GEMM_F64] = tn_gemm_ukr_f64_avx2;
    d->ukr[TN_GEMM_I8] = tn_gemm_ukr_i8_avx2;
    d->skr[TN_GEMM_F32] = tn_gemm_skr_f32_avx2;
    d->skr[TN_GEMM_F64] = tn_gemm_skr_f64_avx2;
    d->skr[TN_GEMM_I8] = tn_gemm_skr_i8_avx2;
  }
}
#endif

void
tn_gemm_dsp_init (tn_gemm_dsp *d, unsigned flags)
{
  d->ukr[TN_GEMM_F32] = ukr_f32_c;
  d->ukr[TN_GEMM_F64] = ukr_f64_c;
  d->ukr[TN_GEMM_I8] = ukr_i8_c;
  d->skr[TN_GEMM_F32] = skr_f32_c;
  d->skr[TN_GEMM_F64] = skr_f64_c;
  d->skr[TN_GEMM_I8] = skr_i8_c;
#if TN_ARCH_X86
  init_x86 (d, flags);
#else
  (void) flags;
#endif
}

TN_DSP_GET (tn_gemm_dsp, tn_gemm_dsp_get, tn_gemm_dsp_init)
