/* checkasm: every entry of every kernel table of core/, under every CPU
 * mask this machine allows, against the family's portable entry.
 *
 * One program (checkasm.c holds the framework and main) and one file per
 * kernel family, check_NAME.c, defining
 *
 *   void checkasm_check_NAME (void);
 *
 * tests/checkasm/meson.build builds every check_NAME.c of its list
 * (half, view, gemm, random, reduce, ewise, normalize) that exists and defines
 * CHECKASM_HAVE_NAME for it, so a family lands by adding its file (then
 * reconfigure: meson setup --reconfigure).  A new family also adds its
 * name to that list, to the table in checkasm.c and a prototype below.
 *
 * main calls each family once per subset of tn_cpu_detect () (0 first,
 * then growing), with tn_cpu_set_mask () already applied: the family reads
 * its table through its cached accessor (or builds one for
 * checkasm_cpu_flags ()) and, per kernel:
 *
 *   fn_type ref;
 *
 *   if ((ref = checkasm_check_func (tab->kern[i], "kern_%s", name))) {
 *     ... run ref and tab->kern[i] on the same inputs:
 *         checkasm_fill () for data with edge values, the lengths of
 *         checkasm_lengths[], unaligned starts ...
 *     if (checkasm_check_bits (want, got, n, isz, "%s, n %zu, offset %zu",
 *             dtype_name, n, off))
 *       break;
 *     checkasm_bench (tab->kern[i] (dst, src, 4096));
 *   }
 *
 * checkasm_check_func returns NULL when this very function was checked
 * under an earlier mask (an ISA init that did not override the entry), so
 * each distinct implementation is checked once, against the portable one
 * (the version seen under mask 0; under mask 0 itself, fn against fn).
 *
 * Usage: checkasm [--bench] [--family=NAME] [--seed=N] [--verbose]
 * Exits 0 when everything matched, 1 on any mismatch (each reported on
 * stderr with the family, the kernel, the CPU flags and the caller's
 * context: dtype, length, offset). */
#ifndef TN_CHECKASM_H
#define TN_CHECKASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/dtype.h"

/* ---- the kernel under test ---- */

typedef void (*checkasm_fn) (void);

void *checkasm_check_func_ (checkasm_fn fn, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* fn's portable version when fn itself is to be checked now, NULL when it
 * was checked already.  The name (printf-style) identifies the kernel
 * across masks; use one per table entry, e.g. "deint_%zu" with the item
 * size.  Typed as fn. */
#define checkasm_check_func(fn, ...)                                           \
  ((__typeof__ (fn)) checkasm_check_func_ ((checkasm_fn) (fn), __VA_ARGS__))

/* The CPU flags of the mask under test (tn_cpu_flags ()). */
unsigned checkasm_cpu_flags (void);

/* ---- comparing ---- */

/* Compares n items of isz bytes, bit for bit.  On the first difference it
 * reports "FAIL family/kernel [cpu]: <context>: item i of n: portable
 * <hex> got <hex>", marks the kernel failed and returns 1; else 0.  When
 * got lies in a block of checkasm_alloc (), the block's bytes outside
 * [got, got + n * isz) must still hold the poison: a write before the
 * start or past the end is reported the same way. */
int checkasm_check_bits (const void *want, const void *got, size_t n,
    size_t isz, const char *ctx_fmt, ...)
    __attribute__ ((format (printf, 5, 6)));

/* Only that last part, for a block whose contents the caller compared
 * its own way (a tolerance): the guard zones around p's block must still
 * hold the poison. */
int checkasm_check_guards (const void *p, const char *ctx_fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Reports a failure of the current kernel in the caller's own words (for
 * checks that are not bitwise, e.g. a documented tolerance); returns 1. */
int checkasm_fail (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Whether the current kernel has failed already (to stop early). */
bool checkasm_failed (void);

/* ---- data ---- */

/* Uniform 32 bits from the run's seed (--seed, printed on failure). */
uint32_t checkasm_rand (void);

/* n items of dt: random bit patterns (floats: any exponent; bool: 0 or 1)
 * with about one item in four an edge value: for floats NaN (quiet and
 * signalling, both signs, with payloads), +-0, +-inf, the smallest and
 * largest subnormals, the smallest normal, +-max, +-1; for integers 0, 1,
 * -1, the minimum (INT_MIN) and the maximum. */
void checkasm_fill (void *dst, tn_dtype dt, size_t n);

/* Lengths every kernel with a length runs: 0, 1, 7, 8, 9, 15, 16, 17, 31,
 * 32, 33, 63, 64, 65, 255, 4095. */
extern const size_t checkasm_lengths[];
extern const size_t checkasm_nlengths;

/* A 64-byte aligned block of bytes inside 64-byte guard zones, all of it
 * (guards included) filled with the poison byte 0xa5; checkasm_poison ()
 * fills it again.  Freed with checkasm_free (or at exit).  Start an
 * output at p + off for an unaligned start.  Inputs are better in blocks
 * of malloc that end exactly at their last byte: under AddressSanitizer
 * (the asan build runs checkasm too) a read past the end is caught. */
void *checkasm_alloc (size_t bytes);
void checkasm_poison (void *p);
void checkasm_free (void *p);

/* ---- --bench ---- */

bool checkasm_benching (void);
uint64_t checkasm_now_ns (void);
void checkasm_bench_record (uint64_t ns, uint64_t calls);

/* With --bench, times the expression call (a call of the kernel under
 * test, on inputs the caller prepared) and records its median time per
 * call; the report at the end prints, per kernel and ISA, that time and
 * its ratio to the portable version's.  Without --bench it does nothing. */
#define checkasm_bench(call)                                                   \
  do {                                                                         \
    if (checkasm_benching ()) {                                                \
      uint64_t iters_ = 1;                                                     \
      for (;;) { /* calibrate: about 100 us per run */                         \
        uint64_t t0_ = checkasm_now_ns ();                                     \
        for (uint64_t i_ = 0; i_ < iters_; i_++) {                             \
          call;                                                                \
        }                                                                      \
        if (checkasm_now_ns () - t0_ >= 100000 || iters_ >= (1u << 20))        \
          break;                                                               \
        iters_ *= 2;                                                           \
      }                                                                        \
      for (int r_ = 0; r_ < 21; r_++) {                                        \
        uint64_t t0_ = checkasm_now_ns ();                                     \
        for (uint64_t i_ = 0; i_ < iters_; i_++) {                             \
          call;                                                                \
        }                                                                      \
        checkasm_bench_record (checkasm_now_ns () - t0_, iters_);              \
      }                                                                        \
    }                                                                          \
  } while (0)

/* ---- the families (checkasm.c calls those that are built) ---- */

void checkasm_check_half (void);
void checkasm_check_view (void);
void checkasm_check_gemm (void);
void checkasm_check_random (void);
void checkasm_check_reduce (void);
void checkasm_check_ewise (void);
void checkasm_check_normalize (void);
void checkasm_check_compare (void);

#endif
