/* The reduction kernels' tables: which version of each kernel runs, for
 * the CPU features tn_cpu_flags () allows. */
#include "reduce-kern.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu.h"

#if TN_ARCH_X86
/* The AVX2 build (the template's and the hand-written kernels) is
 * compiled with -mf16c as well: its float16 loads are F16C's. */
static void
init_x86 (tn_reduce_dsp *dsp, unsigned flags)
{
  const unsigned avx2 = TN_CPU_AVX2 | TN_CPU_F16C;

  if ((flags & avx2) == avx2) {
    tn_rk_fill_avx2 (dsp);
    tn_rk_init_avx2_sum (dsp);
    tn_rk_init_avx2_ext (dsp);
  }
}
#endif

void
tn_reduce_dsp_init (tn_reduce_dsp *dsp, unsigned flags)
{
  memset (dsp, 0, sizeof *dsp);
  tn_rk_fill_c (dsp);
#if TN_ARCH_X86
  init_x86 (dsp, flags);
#endif
}

/* Rebuilt in place under the lock when the mask has changed; cpu.h lets
 * the mask change only while no kernel runs, so no reader holds entries
 * of the table being rewritten.  The generation is stored after the
 * table (release), so a reader that sees it current sees the table. */
static tn_reduce_dsp dsp_cur;
static atomic_uint dsp_gen; /* 0: never built */
static pthread_mutex_t dsp_lock = PTHREAD_MUTEX_INITIALIZER;

const tn_reduce_dsp *
tn_reduce_dsp_get (void)
{
  unsigned g = tn_cpu_generation ();

  if (atomic_load_explicit (&dsp_gen, memory_order_acquire) != g) {
    pthread_mutex_lock (&dsp_lock);
    g = tn_cpu_generation ();
    if (atomic_load_explicit (&dsp_gen, memory_order_relaxed) != g) {
      tn_reduce_dsp_init (&dsp_cur, tn_cpu_flags ());
      atomic_store_explicit (&dsp_gen, g, memory_order_release);
    }
    pthread_mutex_unlock (&dsp_lock);
  }
  return &dsp_cur;
}
