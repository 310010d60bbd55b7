/* For core tests that check results under the SSE flush-to-zero and
 * denormals-are-zero flags themselves (ftz.c sets them for the whole
 * program in the "-ftz" variants; these set them for one check). */
#ifndef TN_TEST_FTZ_H
#define TN_TEST_FTZ_H

#include "core/parallel.h"

#define TN_TEST_FTZ_DAZ 0x8040u /* MXCSR bits 15 (FTZ) and 6 (DAZ) */

/* Sets FTZ and DAZ on this thread; returns the MXCSR to restore. */
static inline unsigned int
tn_test_ftz_on (void)
{
  unsigned int old = tn_mxcsr_get ();

  tn_mxcsr_set (old | TN_TEST_FTZ_DAZ);
  return old;
}

static inline void
tn_test_ftz_restore (unsigned int old)
{
  tn_mxcsr_set (old);
}

/* x widened to double exactly whatever this thread's flags: the plain
 * conversion a float argument gets at a call reads a subnormal as 0 under
 * DAZ, which would make the expectation, not the code under test, wrong. */
static inline double
tn_test_widen (float x)
{
  tn_fpenv env = tn_fpenv_enter ();
  double d;

  TN_FPENV_PIN (x);
  d = x;
  TN_FPENV_PIN (d);
  tn_fpenv_leave (env);
  return d;
}

#endif
