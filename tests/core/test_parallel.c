/* The worker pool: every chunk runs once, borders depend on n alone, and a
 * chunk-ordered reduction gives the same bits on any thread count. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/parallel.h"

static void
test_chunks (void)
{
  int64_t b, e, prev = 0;

  g_assert_cmpint (tn_parallel_chunks (0, 1024), ==, 0);
  g_assert_cmpint (tn_parallel_chunks (1, 1024), ==, 1);
  g_assert_cmpint (tn_parallel_chunks (1024, 1024), ==, 1);
  g_assert_cmpint (tn_parallel_chunks (1025, 1024), ==, 2);
  /* 1M items in grains of 1024 = 1024 units, at most 256 chunks of 4. */
  g_assert_cmpint (tn_parallel_chunks (1 << 20, 1024), ==, 256);
  tn_parallel_bounds (1 << 20, 1024, 1, &b, &e);
  g_assert_cmpint (b, ==, 4096);
  g_assert_cmpint (e, ==, 8192);
  /* Chunks tile [0, n) in order, every border but the last a multiple of
   * the grain. */
  int64_t n = 1000003, c = tn_parallel_chunks (n, 100);
  g_assert_cmpint (c, <=, TN_MAX_CHUNKS);
  for (int64_t i = 0; i < c; i++) {
    tn_parallel_bounds (n, 100, i, &b, &e);
    g_assert_cmpint (b, ==, prev);
    g_assert_cmpint (b % 100, ==, 0);
    g_assert_cmpint (e, >, b);
    prev = e;
  }
  g_assert_cmpint (prev, ==, n);
  /* grain < 1 is taken as 1. */
  g_assert_cmpint (tn_parallel_chunks (5, 0), ==, 5);
}

typedef struct {
  const float *x;
  float partial[TN_MAX_CHUNKS];
  int hits[TN_MAX_CHUNKS];
} sum_ctx;

static void
sum_chunk (void *p, int64_t c, int64_t b, int64_t e)
{
  sum_ctx *s = p;
  float acc = 0;

  for (int64_t i = b; i < e; i++)
    acc += s->x[i];
  s->partial[c] = acc;
  __atomic_add_fetch (&s->hits[c], 1, __ATOMIC_RELAXED);
}

static float
chunked_sum (int nthreads, const float *x, int64_t n, sum_ctx *s)
{
  float total = 0;

  memset (s, 0, sizeof *s);
  s->x = x;
  tn_parallel_run (nthreads, n, 1024, sum_chunk, s);
  for (int64_t c = 0; c < tn_parallel_chunks (n, 1024); c++) {
    g_assert_cmpint (s->hits[c], ==, 1);
    total += s->partial[c];
  }
  return total;
}

static void
test_deterministic (void)
{
  int64_t n = 3000017;
  float *x = g_new (float, n);
  sum_ctx *s = g_new (sum_ctx, 1);
  float one, again;
  double exact = 0;

  for (int64_t i = 0; i < n; i++) {
    x[i] = (float) ((i * 2654435761u) % 1000) / 997.0f;
    exact += x[i];
  }
  one = chunked_sum (1, x, n, s);
  g_assert_cmpfloat (fabs (one - exact) / exact, <, 1e-5);
  for (int t = 2; t <= 8; t++) {
    for (int rep = 0; rep < 20; rep++) {
      again = chunked_sum (t, x, n, s);
      g_assert_true (memcmp (&one, &again, sizeof one) == 0);
    }
  }
  again = chunked_sum (0, x, n, s);
  g_assert_true (memcmp (&one, &again, sizeof one) == 0);
  g_free (s);
  g_free (x);
}

static gpointer
concurrent_caller (gpointer data)
{
  sum_ctx *s = g_new (sum_ctx, 1);
  const float *x = data;
  float first = chunked_sum (2, x, 500000, s), r;

  for (int i = 0; i < 200; i++) {
    r = chunked_sum (2, x, 500000, s);
    g_assert_true (memcmp (&first, &r, sizeof r) == 0);
  }
  g_free (s);
  return NULL;
}

static void
test_concurrent_callers (void)
{
  /* Several pipelines' threads share the pool: jobs queue, none is lost. */
  float *x = g_new (float, 500000);
  GThread *t[4];

  for (int i = 0; i < 500000; i++)
    x[i] = (float) (i % 17);
  for (int i = 0; i < 4; i++)
    t[i] = g_thread_new ("caller", concurrent_caller, x);
  for (int i = 0; i < 4; i++)
    g_thread_join (t[i]);
  g_free (x);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (tn_parallel_ncpus (), >=, 1);
  g_test_add_func ("/parallel/chunks", test_chunks);
  g_test_add_func ("/parallel/deterministic", test_deterministic);
  g_test_add_func ("/parallel/concurrent-callers", test_concurrent_callers);
  return g_test_run ();
}
