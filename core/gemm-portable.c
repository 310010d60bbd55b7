/* Portable C micro-kernels: the reference the AVX2 ones are tested
 * against, and the fallback on CPUs without AVX2+FMA. */
#include "gemm-portable.h"

/* One template for every compute type: MR x NR sums of KP products per
 * step, in k order.  Integer sums run in uint32_t so that overflow wraps
 * instead of being undefined. */
#define TN_GEMM_UKR_C(NAME, CT, ST, OT, MR, NR, KP)                            \
  void NAME (int mr, int64_t ksteps, const void *pa_, const void *pb_,         \
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

TN_GEMM_UKR_C (tn_gemm_ukr_f32_c, float, float, float, 6, 16, 1)
TN_GEMM_UKR_C (tn_gemm_ukr_f64_c, double, double, double, 6, 8, 1)
TN_GEMM_UKR_C (tn_gemm_ukr_i8_c, int16_t, uint32_t, int32_t, 6, 16, 2)
