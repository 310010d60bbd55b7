/* Internal to core/view*.c, core/x86/view-*.c and their tests: kernels
 * for views whose innermost axis steps through memory a few items at a
 * time, and for mirrored pixels, one table of them per CPU level.
 *
 * Deinterleave: rows of c small items (an HWC image read as CHW, or a
 * step slice [::c]) are read once, and items 0..m-1 of each row go to m
 * dense output rows.  Interleave, its inverse: c planes read side by side
 * are written as rows of c items (CHW back to HWC).  Mirror: blocks of g
 * bytes (pixels) in reverse order.  Each exists as portable C
 * (view-kern-tmpl.h), as SSSE3 and AVX2 byte shuffles and as AVX-512
 * VBMI byte permutes (x86/view-*.c); all give the same bytes. */
#ifndef TN_VIEW_KERN_H
#define TN_VIEW_KERN_H

#include <stddef.h>
#include <stdint.h>

/* The shuffles serve c * itemsize up to 32 bytes and c up to 8; beyond,
 * the portable loops run (still one pass over the source). */
#define TN_VK_MAX_C 8

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
  /* For the 64-byte permute entries (tn_view_dsp.perm64) only: output
   * vector o of a block is vpermt2b of input vectors 0 and 1 by
   * idx[o * c], then for each input vector q >= 2 a vpermb by
   * idx[o * c + q] merged where km[o * c + q] has bits set. */
  _Alignas(64) uint8_t idx[TN_VK_MAX_C * TN_VK_MAX_C][64];
  uint64_t km[TN_VK_MAX_C * TN_VK_MAX_C];
};

/* Deinterleave: n rows of c items at s (row i starts c * isz * i bytes
 * on); item q < m of row i goes to d + q * pitch + i * isz.  Reads
 * nothing past item m - 1 of the last row.  isz is 1, 2, 4 or 8;
 * 1 <= m <= c. */
void tn_vk_deint_prepare (tn_vk *k, size_t isz, int c, int m);
/* Interleave: c planes of n items, plane q at s + q * pitch; writes n
 * rows of c items densely at d.  isz is 1, 2, 4 or 8; c >= 1. */
void tn_vk_inter_prepare (tn_vk *k, size_t isz, int c);

/* Mirror: n blocks of g bytes, contiguous in the source, in reverse
 * order: block j goes to d - j * g (a mirror of an HWC image: g is one
 * pixel; d is where block 0 goes). */
typedef struct tn_vk_rev tn_vk_rev;
typedef void (*tn_vk_rev_fn) (
    const tn_vk_rev *k, char *d, const char *s, int64_t n);

struct tn_vk_rev {
  tn_vk_rev_fn fn;
  int64_t g;
  int simd; /* 0 (no masks), or the vectors per chunk: 1 or 3 */
  int nb;   /* blocks per chunk */
  _Alignas(16) uint8_t mask[3][3][16];
};

void tn_vk_rev_prepare (tn_vk_rev *k, int64_t g);

/* Transpose of 4-byte items: nk destination rows of nl items at byte
 * pitch dk; item (k, l) is read at s + 4 * k + l * sl (the source is
 * contiguous along k).  The streaming entry writes whole destination
 * lines past the caches: d a multiple of 64, dk of 32, the caller's
 * sfence after the last call. */
typedef void (*tn_vk_tr_fn) (
    char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t nl);

/* One CPU level's kernels, per item size (1, 2, 4, 8 bytes: index 0..3).
 * An entry that is not the portable one may read the masks a prepare
 * function builds; the prepare functions build them for it, and give
 * the portable entry where the shuffles do not serve. */
typedef struct {
  tn_vk_fn deint[4];
  tn_vk_fn inter[4];
  tn_vk_rev_fn rev;
  /* The deint and inter entries read tn_vk.idx and tn_vk.km too. */
  int perm64;
  /* Large float32-sized transposes; tr4_stream is 1 when tr4 is an ISA
   * entry with streaming stores (else tn_view_materialize keeps its
   * SSE2 tiles: the portable entry is checkasm's reference). */
  tn_vk_tr_fn tr4;
  int tr4_stream;
} tn_view_dsp;

/* The portable kernels, then those the CPU features in flags allow. */
void tn_view_dsp_init (tn_view_dsp *d, unsigned flags);
/* The table for tn_cpu_flags (), rebuilt when the mask changes. */
const tn_view_dsp *tn_view_dsp_get (void);

/* x86/view-ssse3.c and x86/view-avx2.c (the ssse3 and avx2 libraries of
 * core/meson.build). */
void tn_vk_deint_ssse3_1 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_ssse3_2 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_ssse3_4 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_ssse3_8 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_ssse3_1 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_ssse3_2 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_ssse3_4 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_ssse3_8 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_rev_ssse3 (const tn_vk_rev *k, char *d, const char *s, int64_t n);
void tn_vk_deint_avx2_1 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx2_2 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx2_4 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx2_8 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx2_1 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx2_2 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx2_4 (const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx2_8 (const tn_vk *, char *, int64_t, const char *, int64_t);
/* x86/view-avx512.c (the avx512 library). */
void tn_vk_tr4_avx512 (
    char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t nl);
/* x86/view-avx512vbmi.c (the avx512vbmi library). */
void tn_vk_deint_avx512vbmi_1 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx512vbmi_2 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx512vbmi_4 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_deint_avx512vbmi_8 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx512vbmi_1 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx512vbmi_2 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx512vbmi_4 (
    const tn_vk *, char *, int64_t, const char *, int64_t);
void tn_vk_inter_avx512vbmi_8 (
    const tn_vk *, char *, int64_t, const char *, int64_t);

#endif
