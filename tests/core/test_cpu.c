/* The CPU-feature module: the mask, its generation counter, the names, and
 * GST_TENSOR_CPU.  meson runs this program five times: without the
 * variable, with GST_TENSOR_CPU=portable, with "ssse3,bogus", with
 * "ssse3,avx2,f16c" (AVX-512 masked) and with "ssse3,avx2,f16c,avx512"
 * (AVX512_BF16 and AVX512_VBMI masked)
 * (TN_TEST_CPU_ENV says which, so the expectation is the test's own). */
#include <glib.h>
#include <string.h>

#include "core/cpu.h"

/* What /proc/cpuinfo says, independently of CPUID: the flags line. */
static unsigned
cpuinfo_flags (void)
{
  gchar *text = NULL, **lines;
  unsigned f = 0;

  if (!g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    gchar **words;

    if (!g_str_has_prefix (*l, "flags"))
      continue;
    words = g_strsplit_set (*l, " \t", -1);
    unsigned fma = 0, avx2 = 0, avx512 = 0, bf16 = 0, vbmi = 0;
    for (gchar **w = words; *w; w++) {
      if (!strcmp (*w, "ssse3"))
        f |= TN_CPU_SSSE3;
      else if (!strcmp (*w, "f16c"))
        f |= TN_CPU_F16C;
      else if (!strcmp (*w, "avx2"))
        avx2 = 1;
      else if (!strcmp (*w, "fma"))
        fma = 1;
      else if (!strcmp (*w, "avx512f") || !strcmp (*w, "avx512dq")
               || !strcmp (*w, "avx512bw") || !strcmp (*w, "avx512vl"))
        avx512++;
      else if (!strcmp (*w, "avx512_bf16"))
        bf16 = 1;
      else if (!strcmp (*w, "avx512vbmi"))
        vbmi = 1;
    }
    if (avx2 && fma)
      f |= TN_CPU_AVX2;
    /* all four subsets; the kernel lists none without ZMM state */
    if (avx512 == 4)
      f |= TN_CPU_AVX512;
    /* reported only on top of the four */
    if (avx512 == 4 && bf16)
      f |= TN_CPU_AVX512BF16;
    if (avx512 == 4 && vbmi)
      f |= TN_CPU_AVX512VBMI;
    g_strfreev (words);
    break;
  }
  g_strfreev (lines);
  g_free (text);
  return f;
}

static unsigned
expected_env_mask (void)
{
  const char *which = g_getenv ("TN_TEST_CPU_ENV");

  if (which == NULL)
    return ~0u;
  if (!strcmp (which, "portable"))
    return 0;
  if (!strcmp (which, "ssse3"))
    return TN_CPU_SSSE3;
  if (!strcmp (which, "avx2")) /* everything but AVX-512 */
    return TN_CPU_SSSE3 | TN_CPU_AVX2 | TN_CPU_F16C;
  if (!strcmp (which, "avx512")) /* AVX512_BF16 and AVX512_VBMI masked */
    return TN_CPU_SSSE3 | TN_CPU_AVX2 | TN_CPU_F16C | TN_CPU_AVX512;
  g_error ("TN_TEST_CPU_ENV=%s is not a case of this test", which);
  return 0;
}

static void
test_detect (void)
{
  if (!TN_ARCH_X86) {
    g_assert_cmpuint (tn_cpu_detect (), ==, 0);
    return;
  }
  /* The kernel hides AVX from /proc/cpuinfo when it does not save YMM
   * state, so the two sources must agree. */
  g_assert_cmphex (
      tn_cpu_detect (), ==, cpuinfo_flags () & expected_env_mask ());
}

static void
test_mask (void)
{
  unsigned all = tn_cpu_detect (), gen = tn_cpu_generation (), old;

  g_assert_cmphex (tn_cpu_flags (), ==, all);
  old = tn_cpu_set_mask (0);
  g_assert_cmphex (old, ==, ~0u);
  g_assert_cmphex (tn_cpu_flags (), ==, 0);
  g_assert_cmpuint (tn_cpu_generation (), !=, gen);
  tn_cpu_set_mask (TN_CPU_SSSE3);
  g_assert_cmphex (tn_cpu_flags (), ==, all & TN_CPU_SSSE3);
  /* The mask narrows, never widens, what was detected. */
  tn_cpu_set_mask (~0u);
  g_assert_cmphex (tn_cpu_flags (), ==, all);
  g_assert_cmphex (tn_cpu_detect (), ==, all);
}

static void
test_names (void)
{
  char buf[32], tiny[6];

  g_assert_cmpstr (tn_cpu_names (0, buf, sizeof buf), ==, "portable");
  g_assert_cmpstr (tn_cpu_names (TN_CPU_AVX2, buf, sizeof buf), ==, "avx2");
  g_assert_cmpstr (
      tn_cpu_names (TN_CPU_SSSE3 | TN_CPU_AVX2 | TN_CPU_F16C, buf, sizeof buf),
      ==, "ssse3,avx2,f16c");
  g_assert_cmpstr (
      tn_cpu_names (TN_CPU_SSSE3 | TN_CPU_AVX2 | TN_CPU_F16C | TN_CPU_AVX512,
          buf, sizeof buf),
      ==, "ssse3,avx2,f16c,avx512");
  g_assert_cmpstr (tn_cpu_names (TN_CPU_AVX512, buf, sizeof buf), ==, "avx512");
  g_assert_cmpstr (
      tn_cpu_names (TN_CPU_AVX512 | TN_CPU_AVX512BF16, buf, sizeof buf), ==,
      "avx512,avx512bf16");
  g_assert_cmpstr (
      tn_cpu_names (TN_CPU_AVX512 | TN_CPU_AVX512VBMI, buf, sizeof buf), ==,
      "avx512,avx512vbmi");
  /* Too small a buffer keeps the names that fit, whole. */
  g_assert_cmpstr (tn_cpu_names (TN_CPU_SSSE3 | TN_CPU_AVX2, tiny, sizeof tiny),
      ==, "ssse3");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/detect", test_detect);
  g_test_add_func ("/cpu/mask", test_mask);
  g_test_add_func ("/cpu/names", test_names);
  return g_test_run ();
}
