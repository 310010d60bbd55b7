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
