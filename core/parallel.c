#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

/* One job at a time runs on the pool; callers queue on job_lock.  Workers
 * take chunk indices from an atomic counter, so no thread waits for a
 * slower one while chunks are left. */
typedef struct {
  tn_chunk_fn fn;
  void *ctx;
  int64_t n, grain, nchunks;
  atomic_int_fast64_t next;
  atomic_int_fast64_t done;
  bool alone; /* the caller runs every chunk: nobody waits for the last */
} job;

#define MAX_WORKERS 64

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static job *current;
static int wanted; /* workers that may still join the job */
static atomic_int active; /* workers inside the job: it lives on the
                           * caller's stack until they leave (changed
                           * under lock, read without it while the
                           * caller spins) */
static uint64_t generation;
static int nworkers;
static int nstarted; /* workers that reached worker_main */
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;

/* sysconf reads sysfs (microseconds): ask once per process. */
int
tn_parallel_ncpus (void)
{
  static atomic_int cached;
  int c = atomic_load_explicit (&cached, memory_order_relaxed);

  if (c == 0) {
    long n = sysconf (_SC_NPROCESSORS_ONLN);

    c = n < 1 ? 1 : (n > MAX_WORKERS ? MAX_WORKERS : (int) n);
    atomic_store_explicit (&cached, c, memory_order_relaxed);
  }
  return c;
}

int64_t
tn_parallel_chunks (int64_t n, int64_t grain)
{
  int64_t per, units;

  if (n <= 0)
    return 0;
  if (grain < 1)
    grain = 1;
  units = (n + grain - 1) / grain;
  per = (units + TN_MAX_CHUNKS - 1) / TN_MAX_CHUNKS;
  return (units + per - 1) / per;
}

void
tn_parallel_bounds (
    int64_t n, int64_t grain, int64_t c, int64_t *begin, int64_t *end)
{
  int64_t units, per, size;

  if (grain < 1)
    grain = 1;
  units = (n + grain - 1) / grain;
  per = (units + TN_MAX_CHUNKS - 1) / TN_MAX_CHUNKS;
  size = per * grain;
  *begin = c * size;
  *end = *begin + size < n ? *begin + size : n;
}

/* Run by the caller and by every worker that joins: each sets the IEEE
 * environment (parallel.h) for the chunks it runs, whatever MXCSR it
 * inherited, so a chunk's bits never depend on its thread. */
static void
work (job *j)
{
  tn_fpenv env = tn_fpenv_enter ();
  int64_t c, b, e;

  while ((c = atomic_fetch_add (&j->next, 1)) < j->nchunks) {
    tn_parallel_bounds (j->n, j->grain, c, &b, &e);
    j->fn (j->ctx, c, b, e);
    /* Alone, nothing to signal (the lock and broadcast were a tenth of
     * a small product's instructions). */
    if (!j->alone && atomic_fetch_add (&j->done, 1) + 1 == j->nchunks) {
      pthread_mutex_lock (&lock);
      pthread_cond_broadcast (&finished);
      pthread_mutex_unlock (&lock);
    }
  }
  tn_fpenv_leave (env);
}

static void *
worker_main (void *arg)
{
  uint64_t seen = 0;

  (void) arg;
  pthread_mutex_lock (&lock);
  nstarted++;
  pthread_cond_signal (&started);
  for (;;) {
    while (generation == seen || wanted == 0 || !current)
      pthread_cond_wait (&wake, &lock);
    seen = generation;
    wanted--;
    atomic_fetch_add (&active, 1);
    job *j = current;
    pthread_mutex_unlock (&lock);
    work (j);
    pthread_mutex_lock (&lock);
    if (atomic_fetch_sub (&active, 1) == 1)
      pthread_cond_broadcast (&finished);
  }
  return NULL;
}

/* Workers are started on demand and live for the process: a pipeline runs
 * many buffers, and thread start-up per buffer would cost more than the
 * work on small tensors.  The caller waits until every new worker runs:
 * a thread still inside its start-up when the process exits holds
 * allocations of the C library (and of ASan, which then reports them as
 * leaked), and a job never has to wait on a thread that is not there yet. */
static int
ensure_workers (int n)
{
  while (nworkers < n) {
    pthread_t t;
    pthread_attr_t attr;

    pthread_attr_init (&attr);
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create (&t, &attr, worker_main, NULL) != 0) {
      pthread_attr_destroy (&attr);
      break;
    }
    pthread_attr_destroy (&attr);
    nworkers++;
  }
  while (nstarted < nworkers)
    pthread_cond_wait (&started, &lock);
  return nworkers;
}

/* The caller, out of chunks, yields its core for up to SPIN_NS before it
 * sleeps on the condition until the workers finish theirs.  Asleep, it
 * is woken by the last worker's broadcast; on the KVM Xeon of session
 * 18 a thread asleep for more than about 20 us took 40-100 us to run
 * again (the vCPU halts and the hypervisor wakes it), a third of a
 * 256^3 float32 product on two threads (docs/perf-notes.md, session 18
 * H1).  Yielding, not pausing: another thread that wants this core gets
 * it. */
#define SPIN_NS 200000

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
spin_until_done (job *j)
{
  int64_t t0 = now_ns ();

  while (atomic_load (&j->done) < j->nchunks || atomic_load (&active) > 0) {
    if (now_ns () - t0 > SPIN_NS)
      return;
    sched_yield ();
  }
}

void
tn_parallel_run (
    int nthreads, int64_t n, int64_t grain, tn_chunk_fn fn, void *ctx)
{
  job j;
  int helpers;

  j.fn = fn;
  j.ctx = ctx;
  j.n = n;
  j.grain = grain < 1 ? 1 : grain;
  j.nchunks = tn_parallel_chunks (n, j.grain);
  atomic_init (&j.next, 0);
  atomic_init (&j.done, 0);
  j.alone = false;
  if (j.nchunks == 0)
    return;

  if (nthreads <= 0)
    nthreads = tn_parallel_ncpus ();
  if (nthreads > MAX_WORKERS)
    nthreads = MAX_WORKERS;
  helpers = nthreads - 1;
  if (helpers > j.nchunks - 1)
    helpers = (int) (j.nchunks - 1);

  if (helpers <= 0) {
    j.alone = true;
    work (&j);
    return;
  }

  pthread_mutex_lock (&job_lock);
  pthread_mutex_lock (&lock);
  if (ensure_workers (helpers) < helpers)
    helpers = nworkers;
  current = &j;
  wanted = helpers;
  generation++;
  pthread_cond_broadcast (&wake);
  pthread_mutex_unlock (&lock);

  work (&j);
  spin_until_done (&j);

  pthread_mutex_lock (&lock);
  while (atomic_load (&j.done) < j.nchunks || atomic_load (&active) > 0)
    pthread_cond_wait (&finished, &lock);
  /* Workers that never woke must not pick this job up later. */
  current = NULL;
  wanted = 0;
  pthread_mutex_unlock (&lock);
  pthread_mutex_unlock (&job_lock);
}
