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

/* The floating-point environment the core's numbers are documented in.
 *
 * Every documented result (casts, kernels, shortest digits, statistics)
 * assumes IEEE 754 arithmetic: subnormals are values, rounding is to
 * nearest even, exceptions are masked.  A host thread may run with the SSE
 * flush-to-zero (MXCSR bit 15) and denormals-are-zero (bit 6) flags set:
 * GStreamer's soundtouch plugin sets them when it loads, so do -ffast-math
 * libraries and many ML runtimes.  Under them a subnormal compares equal
 * to 0 and arithmetic flushes, so core entry points that promise IEEE
 * results bracket their work with tn_fpenv_enter/tn_fpenv_leave: the
 * control bits are set to the IEEE default for the call and the caller's
 * restored after it.  In the usual case, where the caller already runs
 * the default, this costs one stmxcsr and a compare (about 1 ns); else an
 * ldmxcsr pair on top (a few ns; docs/design-notes.md has the figures).
 * Exception flags raised inside are added to the caller's, as any C
 * function may raise them.  The pool's threads set it too, so which
 * thread runs a chunk never changes a bit (a new thread copies its
 * creator's MXCSR, so without this a pool grown by an FTZ thread would
 * flush on some chunks only).  Other targets: no-op; their flush modes
 * are not handled (the project builds for x86-64). */
typedef struct {
  unsigned int saved;
  int changed;
} tn_fpenv;

#define TN_MXCSR_FLAGS 0x3Fu     /* sticky exception flags */
#define TN_MXCSR_DEFAULT 0x1F80u /* all masked, nearest, no FTZ/DAZ */

/* stmxcsr/ldmxcsr as asm with a memory clobber rather than the
 * intrinsics: GCC does not order other code against _mm_setcsr, and a
 * clobber orders it at least against every load and store. */
#if defined(__SSE__)
static inline unsigned int
tn_mxcsr_get (void)
{
  unsigned int m;

  __asm__ __volatile__("stmxcsr %0" : "=m"(m)::"memory");
  return m;
}

static inline void
tn_mxcsr_set (unsigned int m)
{
  __asm__ __volatile__("ldmxcsr %0" ::"m"(m) : "memory");
}
#endif

/* Pins a value to memory at this point: a value computed in registers
 * alone (an argument converted, a result about to be returned) could
 * otherwise be moved to the other side of an enter or leave. */
#define TN_FPENV_PIN(x) __asm__ __volatile__("" : "+m"(x)::"memory")

static inline tn_fpenv
tn_fpenv_enter (void)
{
  tn_fpenv s = { 0, 0 };

#if defined(__SSE__)
  s.saved = tn_mxcsr_get ();
  if ((s.saved & ~TN_MXCSR_FLAGS) != TN_MXCSR_DEFAULT) {
    tn_mxcsr_set (TN_MXCSR_DEFAULT | (s.saved & TN_MXCSR_FLAGS));
    s.changed = 1;
  }
#endif
  return s;
}

/* The caller's control bits back; the flags stay (they include the
 * caller's, which enter kept). */
static inline void
tn_fpenv_leave (tn_fpenv s)
{
#if defined(__SSE__)
  if (s.changed)
    tn_mxcsr_set (
        (s.saved & ~TN_MXCSR_FLAGS) | (tn_mxcsr_get () & TN_MXCSR_FLAGS));
#else
  (void) s;
#endif
}

#endif
