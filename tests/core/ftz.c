/* Linked into every core test program.  With TN_TEST_FTZ=1 in the
 * environment (the "-ftz" variants in meson.build) it sets the SSE
 * flush-to-zero (MXCSR bit 15) and denormals-are-zero (bit 6) flags before
 * main runs, as a host process does when it loads GStreamer's soundtouch
 * plugin, a -ffast-math library or an ML runtime.  Threads created later
 * (the worker pool's included) inherit the flags from their creator on
 * Linux, so every thread of the test runs with them.  The whole core suite
 * must give the same results either way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define FTZ_DAZ 0x8040u

__attribute__ ((constructor)) static void
tn_test_ftz_init (void)
{
  const char *v = getenv ("TN_TEST_FTZ");

  if (!v || strcmp (v, "1") != 0)
    return;
#if defined(__SSE__)
  _mm_setcsr (_mm_getcsr () | FTZ_DAZ);
  if ((_mm_getcsr () & FTZ_DAZ) != FTZ_DAZ) {
    fprintf (stderr, "TN_TEST_FTZ=1: MXCSR %#x lacks FTZ|DAZ %#x\n",
        _mm_getcsr (), FTZ_DAZ);
    exit (1);
  }
#else
  /* No such flags to set: fail loudly rather than pass without testing. */
  fprintf (stderr, "TN_TEST_FTZ=1 is only implemented for SSE targets\n");
  exit (77);
#endif
}
