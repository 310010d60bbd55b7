/* Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror and
 * Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
 *
 * There is no state to advance: item i of stream s under seed k is a pure
 * function of (k, s, i).  The seed is the 64-bit key, the stream (a buffer
 * index for tensorsrc) is the upper 64 bits of the 128-bit counter and the
 * item's block number is the lower 64 bits.  Any split of a range into
 * pieces, in any order or on any thread, gives the same bits as one call. */
#ifndef TN_RANDOM_H
#define TN_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "err.h"

/* One block: 128 bits of counter and 64 bits of key to 128 random bits. */
void tn_philox4x32_10 (
    const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The batched generator below runs AVX2 code where tn_cpu_flags () has
 * it (core/random-kern.h); every path gives the same bits. */

/* n uniform numbers in [0, 1), items first .. first+n-1 of the stream.
 * float32: each 32-bit word gives one item (its top 24 bits), four items a
 * block.  float64: two words give one item (53 bits), two items a block. */
void tn_random_uniform_f32 (
    float *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first);
void tn_random_uniform_f64 (
    double *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first);

/* n standard normal numbers: Box-Muller on the two 53-bit uniforms of one
 * block (u1 in (0, 1], u2 in [0, 1)); even items take r cos(2 pi u2), odd
 * items r sin(2 pi u2).  |z| never exceeds sqrt(2 ln 2^53) ~ 8.57. */
void tn_random_normal_f64 (
    double *dst, size_t n, uint64_t seed, uint64_t stream, uint64_t first);

/* n items of dtype dt, items first .. first+n-1 of the stream, uniform in
 * [low, high).
 * - float dtypes: low + (high - low) * u, rounded to the dtype, then held
 *   inside [low, high) (the nearest representable values inside the
 *   interval replace a rounding that left it).  float32, float16 and
 *   bfloat16 draw 24-bit uniforms, float64 53-bit ones.
 * - integer dtypes and bool: every integer in [ceil(low), ceil(high)) with
 *   equal chance (as NumPy's integers()), from a 53-bit uniform, then cast
 *   with core's rules (saturating outside the dtype's range).  An interval
 *   that holds no integer gives ceil(low) everywhere; bounds whose distance
 *   overflows a double take floor(low * (1 - u) + high * u).
 * Fails (-1, message with both numbers) unless low < high, both finite. */
int tn_random_fill_uniform (void *dst, tn_dtype dt, uint64_t first, size_t n,
    double low, double high, uint64_t seed, uint64_t stream, tn_err *e);

/* n items of dtype dt, normal with mean and stddev, computed in float64
 * and cast with core's rules (integers truncate toward zero and saturate).
 * Fails unless mean is finite and stddev is finite and >= 0. */
int tn_random_fill_normal (void *dst, tn_dtype dt, uint64_t first, size_t n,
    double mean, double stddev, uint64_t seed, uint64_t stream, tn_err *e);

#endif
