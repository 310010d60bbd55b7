/* The worker pool: every chunk runs once, borders depend on n alone, and a
 * chunk-ordered reduction gives the same bits on any thread count. */
#include <glib.h>
#include <pthread.h>
#include <math.h>
#include <string.h>

#include "core/parallel.h"
#include "ftz.h"

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

/* What each chunk saw: its thread's MXCSR control bits, and half the
 * smallest normal double (a subnormal, 0 under flush-to-zero). */
typedef struct {
  const volatile double *tiny;
  unsigned int mxcsr[TN_MAX_CHUNKS];
  double half[TN_MAX_CHUNKS];
  pthread_t who[TN_MAX_CHUNKS];
} env_ctx;

static void
env_chunk (void *ctx, int64_t chunk, int64_t begin, int64_t end)
{
  env_ctx *c = ctx;

  (void) begin;
  (void) end;
  c->mxcsr[chunk] = tn_mxcsr_get () & ~TN_MXCSR_FLAGS;
  c->half[chunk] = *c->tiny * 0.5;
  c->who[chunk] = pthread_self ();
  g_usleep (200); /* let the workers take some chunks */
}

/* A caller with FTZ/DAZ set, and workers started by it (so inheriting
 * them): every chunk, on whichever thread, runs under the IEEE default
 * (MXCSR 0x1f80) and keeps the subnormal 2^-1023; the caller gets its
 * own flags back. */
static void
test_fpenv (void)
{
  static const volatile double tiny = 0x1p-1022;
  env_ctx *c = g_new0 (env_ctx, 1);
  unsigned int old = tn_test_ftz_on ();
  int64_t n = TN_MAX_CHUNKS;
  int others = 0;

  c->tiny = &tiny;
  /* 32 threads: more than any other test asks for, so new workers start
   * here, under the flags */
  tn_parallel_run (32, n, 1, env_chunk, c);
  g_assert_cmphex (tn_mxcsr_get () & ~TN_MXCSR_FLAGS, ==,
      (old | TN_TEST_FTZ_DAZ) & ~TN_MXCSR_FLAGS);
  tn_test_ftz_restore (old);
  for (int64_t i = 0; i < n; i++) {
    guint64 bits;

    /* by its bits: under the -ftz variant's DAZ a compare calls every
     * subnormal 0 */
    memcpy (&bits, &c->half[i], sizeof bits);
    if (c->mxcsr[i] != TN_MXCSR_DEFAULT || bits != G_GUINT64_CONSTANT (1) << 51)
      g_error ("chunk %" G_GINT64_FORMAT " ran with MXCSR 0x%x (want 0x%x) "
               "and halved 2^-1022 to %a (want 0x1p-1023)",
          i, c->mxcsr[i], TN_MXCSR_DEFAULT, c->half[i]);
    others += !pthread_equal (c->who[i], pthread_self ());
  }
  if (tn_parallel_ncpus () > 1)
    g_assert_cmpint (others, >, 0);
  g_free (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (tn_parallel_ncpus (), >=, 1);
  g_test_add_func ("/parallel/chunks", test_chunks);
  g_test_add_func ("/parallel/deterministic", test_deterministic);
  g_test_add_func ("/parallel/concurrent-callers", test_concurrent_callers);
  g_test_add_func ("/parallel/fpenv", test_fpenv);
  return g_test_run ();
}
