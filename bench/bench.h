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

#endif
