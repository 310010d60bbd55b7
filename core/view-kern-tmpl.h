/* The portable view kernels (view-kern.h), written once: the portable
 * entries of the table (view-kern.c) and the tails of the ISA ones
 * (x86/view-*.c), which include this file so the tails compile inline
 * with the ISA's flags, as the loops they finish. */
#ifndef TN_VIEW_KERN_TMPL_H
#define TN_VIEW_KERN_TMPL_H

#include <string.h>

#include "view-kern.h"

/* ---- deinterleave and interleave: one pass over the source, per item
 * size ---- */

#define TN_VK_DEFINE_C(S, T)                                                   \
  static inline void tn_vk_deint_c_##S (                                       \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    const int c = k->c, m = k->m;                                              \
    for (int64_t i = 0; i < n; i++, s += c * S, d += S)                        \
      for (int q = 0; q < m; q++) {                                            \
        T x;                                                                   \
        memcpy (&x, s + q * S, S);                                             \
        memcpy (d + q * pitch, &x, S);                                         \
      }                                                                        \
  }                                                                            \
  static inline void tn_vk_inter_c_##S (                                       \
      const tn_vk *k, char *d, int64_t pitch, const char *s, int64_t n)        \
  {                                                                            \
    const int c = k->c;                                                        \
    for (int64_t i = 0; i < n; i++, s += S)                                    \
      for (int q = 0; q < c; q++, d += S) {                                    \
        T x;                                                                   \
        memcpy (&x, s + q * pitch, S);                                         \
        memcpy (d, &x, S);                                                     \
      }                                                                        \
  }

TN_VK_DEFINE_C (1, uint8_t)
TN_VK_DEFINE_C (2, uint16_t)
TN_VK_DEFINE_C (4, uint32_t)
TN_VK_DEFINE_C (8, uint64_t)

/* ---- mirrored blocks: a constant G makes each memcpy a load and a
 * store ---- */

#define TN_VK_DEFINE_REV_C(G)                                                  \
  static inline void tn_vk_rev_c_##G (char *d, const char *s, int64_t n)       \
  {                                                                            \
    for (int64_t j = 0; j < n; j++, d -= G, s += G)                            \
      memcpy (d, s, G);                                                        \
  }

TN_VK_DEFINE_REV_C (1)
TN_VK_DEFINE_REV_C (2)
TN_VK_DEFINE_REV_C (3)
TN_VK_DEFINE_REV_C (4)
TN_VK_DEFINE_REV_C (6)
TN_VK_DEFINE_REV_C (8)
TN_VK_DEFINE_REV_C (12)
TN_VK_DEFINE_REV_C (16)
TN_VK_DEFINE_REV_C (24)
TN_VK_DEFINE_REV_C (32)

/* n blocks of g bytes (any g) in reverse order. */
static inline void
tn_vk_rev_c (int64_t g, char *d, const char *s, int64_t n)
{
  switch (g) {
  case 1:
    tn_vk_rev_c_1 (d, s, n);
    return;
  case 2:
    tn_vk_rev_c_2 (d, s, n);
    return;
  case 3:
    tn_vk_rev_c_3 (d, s, n);
    return;
  case 4:
    tn_vk_rev_c_4 (d, s, n);
    return;
  case 6:
    tn_vk_rev_c_6 (d, s, n);
    return;
  case 8:
    tn_vk_rev_c_8 (d, s, n);
    return;
  case 12:
    tn_vk_rev_c_12 (d, s, n);
    return;
  case 16:
    tn_vk_rev_c_16 (d, s, n);
    return;
  case 24:
    tn_vk_rev_c_24 (d, s, n);
    return;
  case 32:
    tn_vk_rev_c_32 (d, s, n);
    return;
  }
  for (int64_t j = 0; j < n; j++, d -= g, s += g)
    memcpy (d, s, (size_t) g);
}

/* ---- transposes of 4-byte items (tn_vk_tr_fn), item by item: the
 * portable entry ---- */

static inline void
tn_vk_tr4_c (
    char *d, int64_t dk, const char *s, int64_t sl, int64_t nk, int64_t nl)
{
  for (int64_t k = 0; k < nk; k++, d += dk, s += 4) {
    const char *sk = s;

    for (int64_t l = 0; l < nl; l++, sk += sl)
      memcpy (d + 4 * l, sk, 4);
  }
}

#endif
