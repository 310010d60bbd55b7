/* Internal to core/random.c, core/x86/random-avx2.c and their tests: the
 * batched Philox4x32-10 generator, one table of it per CPU level. */
#ifndef TN_RANDOM_KERN_H
#define TN_RANDOM_KERN_H

#include <stdint.h>

#define TN_PHILOX_M0 0xD2511F53u
#define TN_PHILOX_M1 0xCD9E8D57u
#define TN_PHILOX_W0 0x9E3779B9u
#define TN_PHILOX_W1 0xBB67AE85u

/* Blocks computed together, in structure-of-arrays form: independent
 * chains that overlap in the pipeline (two vectors of 8 on AVX2). */
#define TN_PHILOX_BATCH 16

/* TN_PHILOX_BATCH consecutive blocks from block0 of (stream, seed), as
 * tn_philox4x32_10 computes each: x[w][j] is word w of block j.  Every
 * entry gives the same bits. */
typedef void (*tn_philox_batch_fn) (uint32_t x[4][TN_PHILOX_BATCH],
    uint64_t block0, uint64_t stream, uint64_t seed);

typedef struct {
  tn_philox_batch_fn batch;
} tn_random_dsp;

/* The portable entry, then those the CPU features in flags allow. */
void tn_random_dsp_init (tn_random_dsp *d, unsigned flags);
/* The table for tn_cpu_flags (), rebuilt when the mask changes. */
const tn_random_dsp *tn_random_dsp_get (void);

/* x86/random-avx2.c */
void tn_philox_batch_avx2 (uint32_t x[4][TN_PHILOX_BATCH], uint64_t block0,
    uint64_t stream, uint64_t seed);

#endif
