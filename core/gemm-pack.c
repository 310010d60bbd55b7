/* Packing of GEMM panels: strided operands of any supported type become
 * contiguous micro-panels of the compute type, zero-padded at the edges so
 * the micro-kernels never read past a buffer. */
#include "gemm-pack.h"

#include <string.h>

#include "half.h"

/* Item (i, kk) of an A micro-panel and (kk, j) of a B micro-panel: k runs
 * in steps of kp items kept adjacent (int8 pairs for madd). */
#define A_AT(g, i, kk)                                                         \
  ((((kk) / (g)->kp) * (g)->mr + (i)) * (g)->kp + (kk) % (g)->kp)
#define B_AT(g, kk, j)                                                         \
  ((((kk) / (g)->kp) * (g)->nr + (j)) * (g)->kp + (kk) % (g)->kp)

#define CONV_SAME(x) (x)
#define CONV_F16(x) tn_f16_to_f32 (x)
#define CONV_BF16(x) tn_bf16_to_f32 (x)

/* (source dtype, storage C type, compute C type, conversion) for every
 * type that has a kernel. */
#define TN_GEMM_FOREACH_SRC(X)                                                 \
  X (TN_FLOAT32, float, float, CONV_SAME)                                      \
  X (TN_FLOAT64, double, double, CONV_SAME)                                    \
  X (TN_FLOAT16, uint16_t, float, CONV_F16)                                    \
  X (TN_BFLOAT16, uint16_t, float, CONV_BF16)                                  \
  X (TN_INT8, int8_t, int16_t, (int16_t) CONV_SAME)

/* The whole source lines of k of one full micro-panel of MR rows with
 * contiguous k: the same copy as the general loop below, with the row
 * count and the line a compile-time constant so that the copy unrolls
 * into straight loads and stores (the loop with mr a variable cost
 * about a cycle an item, 2.5 times OpenBLAS's copy of A at 2048^3:
 * docs/perf-notes.md, session 11 H3).  Gives the first k not copied. */
#define PACK_A_LINES(MR, ST, CT, CONV)                                         \
  ({                                                                           \
    const int64_t line_ = 64 / (int64_t) sizeof (ST);                          \
    int64_t k_ = 0;                                                            \
    for (; k_ + line_ <= kb; k_ += line_)                                      \
      for (int64_t kk_ = 0; kk_ < line_; kk_++)                                \
        for (int i_ = 0; i_ < (MR); i_++)                                      \
          d[(k_ + kk_) * (MR) + i_] = CONV (rp[i_ * rs + k_ + kk_]);           \
    k_;                                                                        \
  })

#define PACK_A(ENUM, ST, CT, CONV)                                             \
  case ENUM: {                                                                 \
    const ST *s = (const ST *) base + off;                                     \
    CT *d = dst;                                                               \
    for (int64_t p = 0; p < np; p++, d += panel) {                             \
      int64_t rows = mb - p * g->mr < g->mr ? mb - p * g->mr : g->mr;          \
      if (rows < g->mr || kpad > kb)                                           \
        memset (d, 0, panel * sizeof (CT));                                    \
      if (g->kp == 1 && rows == g->mr) {                                       \
        /* k in chunks of a source line (64 bytes), rows inside: the           \
         * panel is written a few lines at a time and each source line         \
         * read whole at once.  Reading the mr rows side by side item by       \
         * item, rows a power of two apart (2048 float64: 16 KiB) put          \
         * their mr lines in one L1 set, more than its 8 ways; row by row      \
         * over all of k, the stores went mr items apart (perf,                \
         * docs/perf-notes.md session 9 H2) */                                 \
        const ST *rp = s + p * g->mr * rs;                                     \
        int64_t k0 = 0;                                                        \
        if (cs == 1 && g->mr == 12)                                            \
          k0 = PACK_A_LINES (12, ST, CT, CONV);                                \
        else if (cs == 1 && g->mr == 14)                                       \
          k0 = PACK_A_LINES (14, ST, CT, CONV);                                \
        else if (cs == 1 && g->mr == 6)                                        \
          k0 = PACK_A_LINES (6, ST, CT, CONV);                                 \
        for (; k0 < kb; k0 += 64 / (int64_t) sizeof (ST)) {                    \
          int64_t k1 = k0 + 64 / (int64_t) sizeof (ST);                        \
          if (k1 > kb)                                                         \
            k1 = kb;                                                           \
          for (int64_t i = 0; i < g->mr; i++)                                  \
            for (int64_t kk = k0; kk < k1; kk++)                               \
              d[kk * g->mr + i] = CONV (rp[i * rs + kk * cs]);                 \
        }                                                                      \
      } else                                                                   \
        for (int64_t i = 0; i < rows; i++) {                                   \
          const ST *row = s + (p * g->mr + i) * rs;                            \
          if (g->kp == 1)                                                      \
            for (int64_t kk = 0; kk < kb; kk++)                                \
              d[kk * g->mr + i] = CONV (row[kk * cs]);                         \
          else                                                                 \
            for (int64_t kk = 0; kk < kb; kk++)                                \
              d[A_AT (g, i, kk)] = CONV (row[kk * cs]);                        \
        }                                                                      \
    }                                                                          \
    break;                                                                     \
  }

void
tn_gemm_pack_a (const tn_gemm_geom *g, tn_dtype src, void *dst,
    const void *base, int64_t off, int64_t rs, int64_t cs, int64_t mb,
    int64_t kb)
{
  int64_t kpad = tn_gemm_kpad (g, kb);
  int64_t panel = kpad * g->mr;
  int64_t np = (mb + g->mr - 1) / g->mr;

  switch (src) {
    TN_GEMM_FOREACH_SRC (PACK_A)
  default:
    break;
  }
}

/* Source row by source row over all the micro-panels of the call (the
 * driver passes the strips of a k block together): one panel at a time
 * read 64-128 bytes from each of kc rows a pitch apart (16 KiB at 2048
 * float64), then the same rows again for the next.  perf share of
 * tn_gemm_pack_b in a 2048^3 float64 product 1.5 % -> 0.7 %
 * (docs/perf-notes.md, session 17 H1). */
#define PACK_B(ENUM, ST, CT, CONV)                                             \
  case ENUM: {                                                                 \
    const ST *s = (const ST *) base + off;                                     \
    CT *d = dst;                                                               \
    int64_t ns = (nb + g->nr - 1) / g->nr, sp = kpad * g->nr;                  \
    if (kpad > kb)                                                             \
      memset (d, 0, (size_t) (ns * sp) * sizeof (CT));                         \
    else if (nb % g->nr)                                                       \
      memset (d + (ns - 1) * sp, 0, (size_t) sp * sizeof (CT));                \
    for (int64_t kk = 0; kk < kb; kk++) {                                      \
      const ST *row = s + kk * rs;                                             \
      for (int64_t j0 = 0; j0 < nb; j0 += g->nr) {                             \
        int64_t w = nb - j0 < g->nr ? nb - j0 : g->nr;                         \
        CT *ds = d + j0 / g->nr * sp;                                          \
        if (g->kp == 1 && cs == 1)                                             \
          for (int64_t j = 0; j < w; j++)                                      \
            ds[kk * g->nr + j] = CONV (row[j0 + j]);                           \
        else if (g->kp == 1)                                                   \
          for (int64_t j = 0; j < w; j++)                                      \
            ds[kk * g->nr + j] = CONV (row[(j0 + j) * cs]);                    \
        else                                                                   \
          for (int64_t j = 0; j < w; j++)                                      \
            ds[B_AT (g, kk, j)] = CONV (row[(j0 + j) * cs]);                   \
      }                                                                        \
    }                                                                          \
    break;                                                                     \
  }

void
tn_gemm_pack_b (const tn_gemm_geom *g, tn_dtype src, void *dst,
    const void *base, int64_t off, int64_t rs, int64_t cs, int64_t kb,
    int64_t nb)
{
  int64_t kpad = tn_gemm_kpad (g, kb);

  switch (src) {
    TN_GEMM_FOREACH_SRC (PACK_B)
  default:
    break;
  }
}
