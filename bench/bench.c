#include "bench.h"

#include <stdlib.h>
#include <time.h>

double
bench_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

double
bench_median (double *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double
bench_ratio (const double *a, const double *b, size_t n)
{
  double *r = malloc (n * sizeof *r), m;

  for (size_t i = 0; i < n; i++)
    r[i] = a[i] / b[i];
  m = bench_median (r, n);
  free (r);
  return m;
}

void
bench_sink (const void *p)
{
  __asm__ volatile("" : : "r"(p) : "memory");
}
