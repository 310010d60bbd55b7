/* The CPU features core's kernels may use: detected once, narrowed by a mask.
 *
 * Every kernel family keeps a table of function pointers filled by a
 * portable init and then, for the flags tn_cpu_flags() reports, an ISA
 * init.  Tests and benchmarks call tn_cpu_set_mask() to run the same code
 * with fewer features (0 = portable only); each family re-reads the flags
 * when the mask changes.  Detection never reports a feature the OS does not
 * save state for (AVX needs XCR0's YMM bits). */
#ifndef TN_CPU_H
#define TN_CPU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* This build can emit x86 SIMD (GCC or clang on x86): the one test for
 * whether ISA kernels are compiled at all. */
#if (defined(__x86_64__) || defined(__i386__))                                 \
    && (defined(__GNUC__) || defined(__clang__))
#define TN_ARCH_X86 1
#else
#define TN_ARCH_X86 0
#endif

/* Outputs from this many bytes on are written with non-temporal stores
 * where a family has a stream kernel (elementwise chains, the half
 * conversions, combine, normalisations, the short rows of reductions;
 * the view copies have one of their own, 4 MiB, in core/view-copy.c):
 * far beyond the caches, an ordinary store reads each
 * output line first, and an output this large does not stay in cache
 * for the next element anyway.  Never in place (the elementwise callers
 * check that the output is no input): those lines were just read, so a
 * streamed store saves no read and only evicts them (a += b on the Xeon
 * took 1.9x as long streamed at 1M float32, 1.25x at 16M).
 * One constant, not a share of the last-level cache: on the Xeon (2 MiB
 * L2, 260 MiB L3) c = a + b streamed and then c read, as by the next
 * element, took 1.5-1.7x the time of ordinary stores at 1 MiB of output,
 * 0.9-1.1x at 4, 0.8-0.9x at 16 and 0.7x at 64 MiB: the crossing is where
 * Zen 4 (32 MiB L3) put it, and a threshold from the L3's size would stop
 * streaming at 64 MiB there (docs/perf-notes.md, "Session 10 H6"). */
#define TN_STREAM_BYTES ((unsigned long long) 16 << 20)

/* After a range written by a stream kernel, before its end is published
 * to another thread: orders the non-temporal stores before it with the
 * stores after it.  sfence, because a locked instruction (what a C11
 * seq_cst fence compiles to) is not documented to order them on every
 * x86; run only where a stream kernel ran, so only on x86. */
static inline void
tn_stream_fence (void)
{
#if TN_ARCH_X86
  __asm__ volatile("sfence" ::: "memory");
#endif
}

/* Whether tn_stream_copy has non-temporal stores (SSE2, which every x86-64
 * has): without them a caller computing blocks in L1 only to copy them
 * out would add a pass, so it writes in place as before. */
#if defined(__SSE2__)
#define TN_HAVE_STREAM_COPY 1
#else
#define TN_HAVE_STREAM_COPY 0
#endif

/* Copies n bytes from s to d (not overlapping) with non-temporal stores
 * from d's first 16-byte border on (a plain memcpy without
 * TN_HAVE_STREAM_COPY): for results computed block by block in L1 whose
 * output is past the caches.  The caller fences as for a stream kernel. */
static inline void
tn_stream_copy (void *d, const void *s, size_t n)
{
#if TN_HAVE_STREAM_COPY
  char *dc = (char *) d;
  const char *sc = (const char *) s;
  size_t j = (size_t) (-(uintptr_t) dc & 15);

  j = j < n ? j : n;
  memcpy (dc, sc, j);
  for (; j + 16 <= n; j += 16)
    _mm_stream_si128 ((__m128i *) (void *) (dc + j),
        _mm_loadu_si128 ((const __m128i *) (const void *) (sc + j)));
  memcpy (dc + j, sc + j, n - j);
#else
  memcpy (d, s, n);
#endif
}

enum {
  TN_CPU_SSSE3 = 1u << 0,
  TN_CPU_AVX2
  = 1u << 1, /* reported only with FMA: every AVX2 kernel may use it */
  TN_CPU_F16C = 1u << 2,
  /* AVX-512 F, DQ, BW and VL (every AVX-512 server part since Skylake-X,
   * and Zen 4), reported only when the OS saves the opmask and ZMM state
   * (XCR0 bits 5-7) */
  TN_CPU_AVX512 = 1u << 3,
  /* AVX512_BF16 (vcvtne2ps2bf16; Zen 4, Cooper Lake, Sapphire Rapids),
   * reported only with TN_CPU_AVX512 */
  TN_CPU_AVX512BF16 = 1u << 4,
  /* AVX512_VBMI (vpermb, vpermt2b: byte permutes across a whole 64-byte
   * register; Ice Lake and later, Zen 4), reported only with
   * TN_CPU_AVX512 */
  TN_CPU_AVX512VBMI = 1u << 5,
};

/* What the machine has and GST_TENSOR_CPU allows (unset: everything; a
 * comma-separated list of the names below, or "portable" for none), without
 * the mask. */
unsigned tn_cpu_detect (void);

/* What kernels may use: tn_cpu_detect () & mask. */
unsigned tn_cpu_flags (void);

/* Restrict the features kernels use (all bits set = everything detected).
 * Returns the previous mask.  Not for use while kernels run on other
 * threads: tests and benchmarks call it between runs. */
unsigned tn_cpu_set_mask (unsigned mask);

/* Whether the CPU is Intel's (CPUID vendor "GenuineIntel"; 0 elsewhere and
 * on other architectures).  Not a feature: where two versions of a kernel
 * give the same bits and measured faster on different vendors' cores (a
 * divider, how far hardware prefetchers run ahead), the family's init
 * chooses by this, and checkasm checks both versions on any CPU. */
int tn_cpu_intel (void);

/* Changes each time the mask changes, so a family can cache its table and
 * rebuild it when this differs from the value it was built for. */
unsigned tn_cpu_generation (void);

/* "ssse3,avx2,f16c,avx512,avx512bf16,avx512vbmi" for FLAGS, into BUF (at
 * least 48 bytes for all names); for logs and benchmark reports. */
const char *tn_cpu_names (unsigned flags, char *buf, unsigned size);

#endif
