/* Shared timing helpers for the benchmarks: monotonic clock, medians. */
#ifndef TN_BENCH_H
#define TN_BENCH_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double bench_now (void);
/* Median of n values (sorts v in place). */
double bench_median (double *v, size_t n);
/* Median of a[i] / b[i]: for two contenders timed in the same round,
 * steadier than the ratio of their medians on a shared machine. */
double bench_ratio (const double *a, const double *b, size_t n);
/* Keeps the compiler from dropping work whose result is unused. */
void bench_sink (const void *p);
/* Memory for a peer's arrays (free it with free): 64-byte aligned, and
 * from 4 MiB up on a huge page boundary advised MADV_HUGEPAGE, as the
 * tensor allocator gives our buffers and NumPy its arrays.  A peer on
 * 4 KiB pages pays a TLB miss every 4 KiB, about a tenth of a
 * memory-bound pass, which would flatter every ratio against it.
 * Exits when there is no memory. */
void *bench_alloc (size_t bytes);

/* The cache state each timed call starts from, the same for ours and the
 * peer's (else the ratio measures the order of the calls: whichever runs
 * second on the same data finds it in cache).  BENCH_WARM (the default):
 * the call is run once untimed first, as in a pipeline, where a frame the
 * element before wrote is still in cache if it fits.  BENCH_COLD
 * (TN_BENCH_CACHE=cold in the environment): bench_evict () first, for
 * the figures from memory. */
typedef enum { BENCH_WARM, BENCH_COLD } BenchCache;
BenchCache bench_cache (void);
const char *bench_cache_name (BenchCache c);
/* Reads 256 MiB of memory of its own (allocated and written on the first
 * call), so that the caches hold none of the benchmark's data. */
void bench_evict (void);
/* Call before each timed call: evicts and gives 0 for BENCH_COLD; gives 1
 * for BENCH_WARM (the caller then makes the call once untimed). */
int bench_prepare (BenchCache c);
/* Warm, each timed call follows untimed runs of the same work for at
 * least this long; cold, none.  On these VMs a process idle for a few
 * tens of ms (ours while a NumPy peer ran) runs its next 5-10 ms at
 * about half speed, so one untimed call did not suffice: bench_reduce's
 * 2-thread means, timed first after the peer, read x0.5 of one thread
 * while they scale x1.8 without the peer (docs/perf-notes.md, Session
 * 11 H1).  A peer in a process of its own settles as long. */
#define BENCH_SETTLE_S 0.020
#define BENCH_WARM(cache, call)                                                \
  do {                                                                         \
    if (bench_prepare (cache)) {                                               \
      double bench_s0_ = bench_now ();                                         \
      do {                                                                     \
        call;                                                                  \
      } while (bench_now () - bench_s0_ < BENCH_SETTLE_S);                     \
    }                                                                          \
  } while (0)

/* NumPy (or any python3 peer) in a process of its own, fed one command
 * per run so that its runs interleave with ours.  script prints
 * "ready VERSION" first, then answers each line "CMD N" with the seconds
 * one run took. */
typedef struct {
  int pid;
  void *in, *out; /* FILE * */
  char version[64];
} BenchPeer;

/* 0 when /usr/bin/python3 runs script and says it is ready; -1 else (p
 * is then inert: bench_peer_run gives -1). */
int bench_peer_start (BenchPeer *p, const char *script);
/* Seconds the peer took for "cmd n" (negative if it is not there). */
double bench_peer_run (BenchPeer *p, const char *cmd, long n);
void bench_peer_stop (BenchPeer *p);

#endif
