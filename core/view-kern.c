/* The kernel table of tn_view_materialize and tn_view_materialize_flip,
 * and the shuffle masks its ISA entries read.
 *
 * A shuffle kernel holds one block of the source in registers (c vectors
 * of rows, or one vector per plane) and builds each output vector as the
 * OR of one byte shuffle per input vector: pshufb puts the bytes of the
 * items it wants in place and zeroes the rest.  The masks depend on the
 * item size, c and the output vector only, so they are built once per
 * view.  Blocks that would read past the last byte a view reaches are
 * left to the portable loop. */
#include "view-kern.h"

#include <stdbool.h>
#include <string.h>

#include "cpu.h"
#include "dsp.h"
#include "view-kern-tmpl.h"

/* The portable entries are the template's loops themselves. */
static void
rev_c (const tn_vk_rev *k, char *d, const char *s, int64_t n)
{
  tn_vk_rev_c (k->g, d, s, n);
}

static const tn_vk_fn deint_c[4] = { tn_vk_deint_c_1, tn_vk_deint_c_2,
  tn_vk_deint_c_4, tn_vk_deint_c_8 };
static const tn_vk_fn inter_c[4] = { tn_vk_inter_c_1, tn_vk_inter_c_2,
  tn_vk_inter_c_4, tn_vk_inter_c_8 };

/* ---- the table ---- */

#if TN_ARCH_X86
static void
init_x86 (tn_view_dsp *d, unsigned flags)
{
  if (flags & TN_CPU_SSSE3) {
    d->deint[0] = tn_vk_deint_ssse3_1;
    d->deint[1] = tn_vk_deint_ssse3_2;
    d->deint[2] = tn_vk_deint_ssse3_4;
    d->deint[3] = tn_vk_deint_ssse3_8;
    d->inter[0] = tn_vk_inter_ssse3_1;
    d->inter[1] = tn_vk_inter_ssse3_2;
    d->inter[2] = tn_vk_inter_ssse3_4;
    d->inter[3] = tn_vk_inter_ssse3_8;
    d->rev = tn_vk_rev_ssse3;
  }
  if (flags & TN_CPU_AVX2) {
    d->deint[0] = tn_vk_deint_avx2_1;
    d->deint[1] = tn_vk_deint_avx2_2;
    d->deint[2] = tn_vk_deint_avx2_4;
    d->deint[3] = tn_vk_deint_avx2_8;
    d->inter[0] = tn_vk_inter_avx2_1;
    d->inter[1] = tn_vk_inter_avx2_2;
    d->inter[2] = tn_vk_inter_avx2_4;
    d->inter[3] = tn_vk_inter_avx2_8;
  }
  /* Whole lines streamed (x86/view-avx512.c): the 2048x2048 float32
   * transpose 1.87-2.22x -> 1.30-1.47x memcpy on the Xeon (model 167);
   * with half lines carried and the prefetch further ahead, the 1080p
   * float32 permute 2.0-2.2x -> 0.9-1.0x on Zen 4. */
  if (flags & TN_CPU_AVX512) {
    d->tr4 = tn_vk_tr4_avx512;
    d->tr4_stream = 1;
  }
  /* One permute per input vector and output vector where AVX2 needs a
   * shuffle and an OR per 16-byte lane: on the Xeon (model 207) HWC <->
   * CHW of 640x480 uint8 went from 1.6-1.8x a cache-hot memcpy (AVX2 and
   * SSSE3) to 1.05-1.1x (docs/perf-notes.md, session 10 H2). */
  if (flags & TN_CPU_AVX512VBMI) {
    d->deint[0] = tn_vk_deint_avx512vbmi_1;
    d->deint[1] = tn_vk_deint_avx512vbmi_2;
    d->deint[2] = tn_vk_deint_avx512vbmi_4;
    d->deint[3] = tn_vk_deint_avx512vbmi_8;
    d->inter[0] = tn_vk_inter_avx512vbmi_1;
    d->inter[1] = tn_vk_inter_avx512vbmi_2;
    d->inter[2] = tn_vk_inter_avx512vbmi_4;
    d->inter[3] = tn_vk_inter_avx512vbmi_8;
    d->perm64 = 1;
  }
}
#endif

void
tn_view_dsp_init (tn_view_dsp *d, unsigned flags)
{
  for (int i = 0; i < 4; i++) {
    d->deint[i] = deint_c[i];
    d->inter[i] = inter_c[i];
  }
  d->rev = rev_c;
  d->perm64 = 0;
  d->tr4 = tn_vk_tr4_c;
  d->tr4_stream = 0;
#if TN_ARCH_X86
  init_x86 (d, flags);
#else
  (void) flags;
#endif
}

TN_DSP_GET (tn_view_dsp, tn_view_dsp_get, tn_view_dsp_init)

/* ---- masks ---- */

static int
size_index (size_t isz)
{
  return isz == 1 ? 0 : isz == 2 ? 1 : isz == 4 ? 2 : 3;
}

/* Byte b of mask (o, i) is the byte of input vector i that lands at byte
 * b of output vector o, or 0x80 (pshufb writes zero) when it comes from
 * another input. */
static void
set_byte (tn_vk *k, int o, int i, int b, int from)
{
  k->mask[o * k->c + i][b] = (uint8_t) from;
  k->mask[o * k->c + i][b + 16] = (uint8_t) from;
}

/* Whether the shuffle entry fn (not the portable one) serves k. */
static bool
shuffles (const tn_vk *k, tn_vk_fn fn, tn_vk_fn portable)
{
  return fn != portable && k->c >= 2 && k->c <= TN_VK_MAX_C
         && k->c * k->isz <= 32;
}

/* Byte b of output vector o comes from byte from of input vector q:
 * vectors 0 and 1 are one 128-byte table for vpermt2b, the others are
 * each merged by a vpermb where their mask bit is set. */
static void
set_perm (tn_vk *k, int o, int q, int b, int from)
{
  if (q < 2) {
    k->idx[o * k->c][b] = (uint8_t) (from + 64 * q);
  } else {
    k->idx[o * k->c + q][b] = (uint8_t) from;
    k->km[o * k->c + q] |= (uint64_t) 1 << b;
  }
}

static void
clear_perm (tn_vk *k, int outs)
{
  memset (k->idx, 0, (size_t) outs * k->c * sizeof k->idx[0]);
  memset (k->km, 0, (size_t) outs * k->c * sizeof k->km[0]);
}

void
tn_vk_deint_prepare (tn_vk *k, size_t isz, int c, int m)
{
  int si = size_index (isz);
  const tn_view_dsp *dsp = tn_view_dsp_get ();
  tn_vk_fn fn = dsp->deint[si];

  k->isz = (int) isz;
  k->c = c;
  k->m = m;
  k->fn = deint_c[si];
  if (!shuffles (k, fn, deint_c[si]))
    return;
  /* Per buffer for a materialized view: shifts and counters, no
   * division (with the 64-byte tables, divisions made the prepare 0.7-1
   * us); only the masks of these c and m are set. */
  memset (k->mask, 0x80, (size_t) m * c * sizeof k->mask[0]);
  /* Output vector q holds items of plane q: byte b is byte b % isz of
   * row b / isz, read from the source block at byte (row * c + q) * isz. */
  for (int q = 0; q < m; q++)
    for (int b = 0; b < 16; b++) {
      int from = ((b >> si) * c + q) * k->isz + (b & (k->isz - 1));

      set_byte (k, q, from >> 4, b, from & 15);
    }
  if (dsp->perm64) {
    /* The same with 64-byte vectors: the block is 64 / isz rows. */
    clear_perm (k, m);
    for (int q = 0; q < m; q++)
      for (int b = 0; b < 64; b++) {
        int from = ((b >> si) * c + q) * k->isz + (b & (k->isz - 1));

        set_perm (k, q, from >> 6, b, from & 63);
      }
  }
  k->fn = fn;
}

void
tn_vk_inter_prepare (tn_vk *k, size_t isz, int c)
{
  int si = size_index (isz);
  const tn_view_dsp *dsp = tn_view_dsp_get ();
  tn_vk_fn fn = dsp->inter[si];

  k->isz = (int) isz;
  k->c = c;
  k->m = c;
  k->fn = inter_c[si];
  if (!shuffles (k, fn, inter_c[si]))
    return;
  memset (k->mask, 0x80, (size_t) c * c * sizeof k->mask[0]);
  /* Item t of the output block is item t / c of plane t % c: its isz
   * bytes land at byte t * isz on (q and i count t % c and t / c). */
  for (int t = 0, q = 0, i = 0; t < 16 * c >> si; t++) {
    for (int e = 0; e < k->isz; e++) {
      int g = t * k->isz + e;

      set_byte (k, g >> 4, q, g & 15, i * k->isz + e);
    }
    if (++q == c) {
      q = 0;
      i++;
    }
  }
  if (dsp->perm64) {
    /* The same with 64-byte vectors: the block is 64 / isz items. */
    clear_perm (k, c);
    for (int t = 0, q = 0, i = 0; t < 64 * c >> si; t++) {
      for (int e = 0; e < k->isz; e++) {
        int g = t * k->isz + e;

        set_perm (k, g >> 6, q, g & 63, i * k->isz + e);
      }
      if (++q == c) {
        q = 0;
        i++;
      }
    }
  }
  k->fn = fn;
}

/* Mirrored blocks of g bytes with shuffles, g in 2, 3, 4, 6, 8, 12
 * (pixels of 2 to 4 channels): a chunk of L bytes (48 when 3 divides g,
 * else 16) holds L / g whole blocks; each destination vector of the chunk
 * is the OR of one byte shuffle per source vector, which puts the bytes
 * of the blocks it wants, reversed, in place and zeroes the rest.  Chunks
 * go to the mirrored place; what does not fill a chunk is left to the
 * scalar loop.  The masks depend on g only: built once per copy. */
void
tn_vk_rev_prepare (tn_vk_rev *k, int64_t g)
{
  tn_vk_rev_fn fn = tn_view_dsp_get ()->rev;

  k->g = g;
  k->simd = 0;
  k->fn = rev_c;
  if (fn != rev_c
      && (g == 2 || g == 3 || g == 4 || g == 6 || g == 8 || g == 12)) {
    const int L = g % 3 == 0 ? 48 : 16, V = L / 16;

    k->simd = V;
    k->nb = L / (int) g;
    for (int v = 0; v < V; v++)
      for (int u = 0; u < V; u++)
        for (int j = 0; j < 16; j++) {
          int q = (16 * v + j) / (int) g, t = (16 * v + j) % (int) g;
          int sb = (k->nb - 1 - q) * (int) g + t;

          k->mask[v][u][j] = sb / 16 == u ? (uint8_t) (sb % 16) : 0x80;
        }
    k->fn = fn;
  }
}
