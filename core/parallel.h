/* A shared worker pool with deterministic work splitting.
 *
 * The range [0, n) is cut into chunks whose borders depend on n and the
 * grain alone, never on the thread count, so a reduction that combines
 * per-chunk results in chunk order gives the same bits on 1 or N threads. */
#ifndef TN_PARALLEL_H
#define TN_PARALLEL_H

#include <stdint.h>

/* Runs fn (ctx, chunk, begin, end) once for every chunk of [0, n). */
typedef void (*tn_chunk_fn) (
    void *ctx, int64_t chunk, int64_t begin, int64_t end);

/* Number of chunks [0, n) is cut into for grain (a multiple of grain items
 * per chunk, at most TN_MAX_CHUNKS chunks).  0 when n is 0. */
int64_t tn_parallel_chunks (int64_t n, int64_t grain);
/* Bounds of chunk c (as tn_parallel_chunks cuts them). */
void tn_parallel_bounds (
    int64_t n, int64_t grain, int64_t c, int64_t *begin, int64_t *end);

/* Runs every chunk on at most nthreads threads (0 = all cores; the caller
 * counts as one) and returns when all are done.  Chunks may run in any
 * order and on any thread. */
void tn_parallel_run (
    int nthreads, int64_t n, int64_t grain, tn_chunk_fn fn, void *ctx);

/* Online cores, at least 1. */
int tn_parallel_ncpus (void);

#define TN_MAX_CHUNKS 256

#endif
