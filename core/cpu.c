#include "cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if TN_ARCH_X86
#include <cpuid.h>

/* CPUID and XGETBV directly: clang 14's __builtin_cpu_supports does not know
 * "f16c", and VEX-encoded code also needs the OS to save YMM state. */
static unsigned
detect_x86 (void)
{
  unsigned a, b, c, d, xlo = 0, xhi, f = 0;
  int ymm, zmm;
  const unsigned avx512
      = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;

  if (!__get_cpuid (1, &a, &b, &c, &d))
    return 0;
  if (c & bit_SSSE3)
    f |= TN_CPU_SSSE3;
  if (c & bit_OSXSAVE) {
    __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void) xhi;
  }
  ymm = (c & bit_OSXSAVE) && (c & bit_AVX) && (xlo & 6) == 6;
  /* EVEX code also needs the opmask, ZMM0-15 upper halves and ZMM16-31
   * saved (XCR0 bits 5, 6, 7) */
  zmm = ymm && (xlo & 0xe0) == 0xe0;
  if (ymm && (c & bit_F16C))
    f |= TN_CPU_F16C;
  if (ymm && (c & bit_FMA) && __get_cpuid_max (0, NULL) >= 7) {
    __cpuid_count (7, 0, a, b, c, d);
    if (b & bit_AVX2)
      f |= TN_CPU_AVX2;
    if (zmm && (b & avx512) == avx512) {
      f |= TN_CPU_AVX512;
      /* leaf 7 subleaf 0, ECX bit 1 */
      if (c & (1u << 1))
        f |= TN_CPU_AVX512VBMI;
      /* leaf 7 subleaf 1, EAX bit 5 (cpuid.h names it bit_AVX512BF16
       * only from GCC 11 on) */
      __cpuid_count (7, 0, a, b, c, d);
      if (a >= 1) {
        __cpuid_count (7, 1, a, b, c, d);
        if (a & (1u << 5))
          f |= TN_CPU_AVX512BF16;
      }
    }
  }
  return f;
}
#endif

static const struct {
  unsigned bit;
  const char *name;
} names[] = {
  { TN_CPU_SSSE3, "ssse3" },
  { TN_CPU_AVX2, "avx2" },
  { TN_CPU_F16C, "f16c" },
  { TN_CPU_AVX512, "avx512" },
  { TN_CPU_AVX512BF16, "avx512bf16" },
  { TN_CPU_AVX512VBMI, "avx512vbmi" },
};
#define N_NAMES (sizeof names / sizeof names[0])

/* GST_TENSOR_CPU="ssse3,f16c" allows only those features, "portable" none:
 * the one way to choose kernels in a process whose core copy a caller
 * cannot reach (the plugin's, from a test or a gst-launch run). */
static unsigned
env_mask (void)
{
  const char *env = getenv ("GST_TENSOR_CPU");
  unsigned m = 0;

  if (env == NULL || *env == '\0')
    return ~0u;
  while (*env) {
    size_t len = strcspn (env, ",");
    size_t i;

    for (i = 0; i < N_NAMES; i++)
      if (strlen (names[i].name) == len && !strncmp (env, names[i].name, len))
        break;
    if (i < N_NAMES)
      m |= names[i].bit;
    else if (!(len == 8 && !strncmp (env, "portable", len)))
      fprintf (stderr,
          "gst-tensor: GST_TENSOR_CPU: unknown feature \"%.*s\" ignored "
          "(known: portable, ssse3, avx2, f16c, avx512, avx512bf16, "
          "avx512vbmi)\n",
          (int) len, env);
    env += len;
    if (*env == ',')
      env++;
  }
  return m;
}

static atomic_int detected = -1;
static atomic_uint mask = ~0u;
static atomic_uint generation = 1;

unsigned
tn_cpu_detect (void)
{
  int v = atomic_load_explicit (&detected, memory_order_relaxed);

  if (v < 0) {
#if TN_ARCH_X86
    v = (int) (detect_x86 () & env_mask ());
#else
    v = 0;
#endif
    atomic_store_explicit (&detected, v, memory_order_relaxed);
  }
  return (unsigned) v;
}

int
tn_cpu_intel (void)
{
#if TN_ARCH_X86
  unsigned a, b, c, d;

  /* "GenuineIntel" in EBX, EDX, ECX */
  return __get_cpuid (0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u
         && c == 0x6c65746eu;
#else
  return 0;
#endif
}

unsigned
tn_cpu_flags (void)
{
  return tn_cpu_detect () & atomic_load_explicit (&mask, memory_order_relaxed);
}

unsigned
tn_cpu_set_mask (unsigned m)
{
  unsigned old = atomic_exchange (&mask, m);

  atomic_fetch_add (&generation, 1);
  return old;
}

unsigned
tn_cpu_generation (void)
{
  return atomic_load_explicit (&generation, memory_order_acquire);
}

const char *
tn_cpu_names (unsigned flags, char *buf, unsigned size)
{
  size_t used = 0;

  if (size == 0)
    return buf;
  buf[0] = '\0';
  for (size_t i = 0; i < N_NAMES; i++) {
    if (!(flags & names[i].bit))
      continue;
    int n = snprintf (
        buf + used, size - used, "%s%s", used ? "," : "", names[i].name);
    if (n < 0 || (size_t) n >= size - used)
      break;
    used += (size_t) n;
  }
  if (!used)
    snprintf (buf, size, "portable");
  return buf;
}
