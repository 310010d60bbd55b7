/* Internal to core/view.c and its tests: kernels for views whose innermost
 * axis steps through memory a few items at a time.
 *
 * Deinterleave: rows of c small items (an HWC image read as CHW, or a
 * step slice [::c]) are read once, and items 0..m-1 of each row go to m
 * dense output rows.  Interleave, its inverse: c planes read side by side
 * are written as rows of c items (CHW back to HWC).  Each exists as
 * portable C and as SSSE3 and AVX2 byte shuffles chosen at run time; all
 * give the same bytes. */
#ifndef TN_VIEW_KERN_H
#define TN_VIEW_KERN_H

#include <stddef.h>
#include <stdint.h>

/* The shuffles serve c * itemsize up to 32 bytes and c up to 8; beyond,
 * the portable loops run (still one pass over the source). */
#define TN_VK_MAX_C 8

typedef enum {
  TN_VK_IMPL_AUTO, /* the widest the CPU has */
  TN_VK_IMPL_PORTABLE,
  TN_VK_IMPL_SSSE3, /* portable without SSSE3 */
  TN_VK_IMPL_AVX2   /* SSSE3 (or portable) without AVX2 */
} tn_vk_impl;

/* Selects the kernels used from now on, for all threads; tests and
 * benchmarks force each in turn.  Returns the choice in effect. */
tn_vk_impl tn_vk_set_impl (tn_vk_impl impl);

typedef struct tn_vk tn_vk;
/* d, s: see tn_vk_deint_prepare and tn_vk_inter_prepare; n: items per
 * output row (deinterleave) or per source plane (interleave). */
typedef void (*tn_vk_fn) (
    const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n);

/* A prepared kernel: the byte-shuffle masks are built once per view. */
struct tn_vk {
  tn_vk_fn fn;
  int isz, c, m;
  /* Shuffle masks, 16 bytes repeated in both 128-bit lanes. */
  _Alignas(32) uint8_t mask[TN_VK_MAX_C * TN_VK_MAX_C][32];
};

/* Deinterleave: n rows of c items at s (row i starts c * isz * i bytes
 * on); item q < m of row i goes to d + q * pitch + i * isz.  Reads
 * nothing past item m - 1 of the last row.  isz is 1, 2, 4 or 8;
 * 1 <= m <= c. */
void tn_vk_deint_prepare (tn_vk *k, size_t isz, int c, int m);
/* Interleave: c planes of n items, plane q at s + q * pitch; writes n
 * rows of c items densely at d.  isz is 1, 2, 4 or 8; c >= 1. */
void tn_vk_inter_prepare (tn_vk *k, size_t isz, int c);

#endif
