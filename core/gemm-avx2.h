/* AVX2+FMA micro-kernels (private to core/; see gemm-pack.h).  Built with
 * a target attribute, called only when the CPU reports both. */
#ifndef TN_GEMM_AVX2_H
#define TN_GEMM_AVX2_H

#include "gemm-pack.h"

#if defined(__x86_64__) || defined(__i386__)
#define TN_GEMM_HAVE_AVX2 1
#define TN_GEMM_AVX2_UKR(t) tn_gemm_ukr_##t##_avx2
void tn_gemm_ukr_f32_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_f64_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_i8_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
#define TN_GEMM_AVX2_SKR(t) tn_gemm_skr_##t##_avx2
void tn_gemm_skr_f32_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_f64_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_i8_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
#else
#define TN_GEMM_HAVE_AVX2 0
#define TN_GEMM_AVX2_UKR(t) NULL
#define TN_GEMM_AVX2_SKR(t) NULL
#endif

#endif
