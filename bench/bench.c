#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

#define HUGE_MIN ((size_t) 4 << 20) /* the tensor allocator's threshold */
#define HUGE_PAGE ((size_t) 2 << 20)

void *
bench_alloc (size_t bytes)
{
  size_t align = bytes >= HUGE_MIN ? HUGE_PAGE : 64;
  void *p = NULL;

  if (posix_memalign (&p, align, bytes ? bytes : 1) != 0) {
    fprintf (stderr, "bench: no memory for %zu bytes\n", bytes);
    exit (1);
  }
#ifdef MADV_HUGEPAGE
  /* only advice: without THP the kernel says EINVAL and nothing changes */
  if (bytes >= HUGE_MIN)
    madvise (p, (bytes + 4095) & ~(size_t) 4095, MADV_HUGEPAGE);
#endif
  return p;
}

BenchCache
bench_cache (void)
{
  const char *s = getenv ("TN_BENCH_CACHE");

  return s && strcmp (s, "cold") == 0 ? BENCH_COLD : BENCH_WARM;
}

const char *
bench_cache_name (BenchCache c)
{
  return c == BENCH_COLD ? "cold (256 MiB evicted before each timed call)"
                         : "warm (each timed call run once untimed first)";
}

#define EVICT_BYTES ((size_t) 256 << 20)

void
bench_evict (void)
{
  static unsigned char *buf;
  size_t s = 0;

  if (!buf) {
    buf = malloc (EVICT_BYTES);
    if (!buf)
      return;
    /* written once: untouched pages would all map the one zero page */
    memset (buf, 1, EVICT_BYTES);
  }
  /* one load per 64-byte line brings every line in, pushing the rest out */
  for (size_t i = 0; i < EVICT_BYTES; i += 64)
    s += buf[i];
  bench_sink ((const void *) (uintptr_t) s);
}

int
bench_prepare (BenchCache c)
{
  if (c == BENCH_COLD) {
    bench_evict ();
    return 0;
  }
  return 1;
}

int
bench_peer_start (BenchPeer *p, const char *script)
{
  int to[2], from[2];
  char line[128];
  pid_t pid;

  memset (p, 0, sizeof *p);
  if (access ("/usr/bin/python3", X_OK) != 0 || pipe (to) || pipe (from))
    return -1;
  pid = fork ();
  if (pid == 0) {
    dup2 (to[0], 0);
    dup2 (from[1], 1);
    close (to[1]);
    close (from[0]);
    execl ("/usr/bin/python3", "python3", "-c", script, (char *) NULL);
    _exit (127);
  }
  close (to[0]);
  close (from[1]);
  p->pid = (int) pid;
  p->in = fdopen (to[1], "w");
  p->out = fdopen (from[0], "r");
  if (!fgets (line, sizeof line, p->out) || strncmp (line, "ready ", 6)) {
    fclose (p->in);
    fclose (p->out);
    waitpid (pid, NULL, 0);
    p->pid = 0;
    return -1;
  }
  snprintf (p->version, sizeof p->version, "%.40s", line + 6);
  p->version[strcspn (p->version, "\n")] = '\0';
  return 0;
}

double
bench_peer_run (BenchPeer *p, const char *cmd, long n)
{
  char line[64];

  if (p->pid <= 0)
    return -1;
  fprintf (p->in, "%s %ld\n", cmd, n);
  fflush (p->in);
  if (!fgets (line, sizeof line, p->out))
    return -1;
  return strtod (line, NULL);
}

void
bench_peer_stop (BenchPeer *p)
{
  if (p->pid <= 0)
    return;
  fclose (p->in);
  fclose (p->out);
  waitpid ((pid_t) p->pid, NULL, 0);
  p->pid = 0;
}
