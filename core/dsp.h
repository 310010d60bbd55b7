/* The cached table of a kernel family (cpu.h): one line per family,
 *
 *   TN_DSP_GET (tn_view_dsp, tn_view_dsp_get, tn_view_dsp_init)
 *
 * defines const tn_view_dsp *tn_view_dsp_get (void), the table
 * tn_view_dsp_init fills for tn_cpu_flags (), rebuilt when
 * tn_cpu_generation () has changed since.  The rebuild is in place under
 * a lock: cpu.h lets the mask change only while no kernel runs, so no
 * reader holds entries of a table being rewritten, and the generation is
 * stored after the table (release), so a reader that sees it current sees
 * the table.  Private to core/. */
#ifndef TN_DSP_H
#define TN_DSP_H

#include <pthread.h>
#include <stdatomic.h>

#include "cpu.h"

#define TN_DSP_GET(TYPE, GET, INIT)                                            \
  const TYPE *GET (void)                                                       \
  {                                                                            \
    static TYPE cur;                                                           \
    static atomic_uint gen; /* 0: never built; generations start at 1 */       \
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;                   \
    unsigned g = tn_cpu_generation ();                                         \
                                                                               \
    if (atomic_load_explicit (&gen, memory_order_acquire) != g) {              \
      pthread_mutex_lock (&lock);                                              \
      g = tn_cpu_generation ();                                                \
      if (atomic_load_explicit (&gen, memory_order_relaxed) != g) {            \
        INIT (&cur, tn_cpu_flags ());                                          \
        atomic_store_explicit (&gen, g, memory_order_release);                 \
      }                                                                        \
      pthread_mutex_unlock (&lock);                                            \
    }                                                                          \
    return &cur;                                                               \
  }

#endif
