/* The reduction kernels' tables: which version of each kernel runs, for
 * the CPU features tn_cpu_flags () allows. */
#include "reduce-kern.h"

#include <string.h>

#include "cpu.h"
#include "dsp.h"

#if TN_ARCH_X86
/* The AVX2 build (the template's and the hand-written kernels) is
 * compiled with -mf16c as well: its float16 loads are F16C's.  AVX-512
 * replaces the float32 short rows' sums and means over it. */
static void
init_x86 (tn_reduce_dsp *dsp, unsigned flags)
{
  const unsigned avx2 = TN_CPU_AVX2 | TN_CPU_F16C;

  if ((flags & avx2) == avx2) {
    tn_rk_fill_avx2 (dsp);
    tn_rk_init_avx2_sum (dsp);
    tn_rk_init_avx2_ext (dsp);
    tn_rk_init_avx2_short (dsp);
    if (flags & TN_CPU_AVX512)
      tn_rk_init_avx512_short (dsp);
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

/* The cached table (core/dsp.h). */
TN_DSP_GET (tn_reduce_dsp, tn_reduce_dsp_get, tn_reduce_dsp_init)
