/* Portable C micro-kernels (private to core/; see gemm-pack.h). */
#ifndef TN_GEMM_PORTABLE_H
#define TN_GEMM_PORTABLE_H

#include "gemm-pack.h"

void tn_gemm_ukr_f32_c (int mr, int64_t ksteps, const void *pa, const void *pb,
    void *c, int64_t ldc, int beta);
void tn_gemm_ukr_f64_c (int mr, int64_t ksteps, const void *pa, const void *pb,
    void *c, int64_t ldc, int beta);
void tn_gemm_ukr_i8_c (int mr, int64_t ksteps, const void *pa, const void *pb,
    void *c, int64_t ldc, int beta);

#endif
