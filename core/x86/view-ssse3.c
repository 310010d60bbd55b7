/* The SSSE3 view kernels (the ssse3 library of core/meson.build): blocks
 * of 16 bytes for deinterleave and interleave (x86/view-shuf.h), and
 * mirrored pixels in chunks of 16 or 48 bytes; the portable loops of
 * core/view-kern-tmpl.h finish what does not fill a block. */
#include "core/x86/view-shuf.h"

VK_ALL_ENTRIES (ssse3, 16)

/* One chunk of V vectors of mirrored blocks (tn_vk_rev_prepare). */
VK_INLINE void
rev_chunk (const tn_vk_rev *k, char *dc, const char *sc, const int V)
{
  __m128i x[3];

  for (int u = 0; u < V; u++)
    x[u] = _mm_loadu_si128 ((const __m128i *) (sc + 16 * u));
  for (int v = 0; v < V; v++) {
    __m128i acc = _mm_shuffle_epi8 (
        x[0], _mm_load_si128 ((const __m128i *) k->mask[v][0]));

    for (int u = 1; u < V; u++)
      acc = _mm_or_si128 (
          acc, _mm_shuffle_epi8 (
                   x[u], _mm_load_si128 ((const __m128i *) k->mask[v][u])));
    _mm_storeu_si128 ((__m128i *) (dc + 16 * v), acc);
  }
}

void
tn_vk_rev_ssse3 (const tn_vk_rev *k, char *d, const char *s, int64_t n)
{
  const int64_t g = k->g;

  if (k->simd) {
    const int64_t nb = k->nb, nc = n / nb;

    if (k->simd == 1)
      for (int64_t c = 0; c < nc; c++)
        rev_chunk (k, d - ((c + 1) * nb - 1) * g, s + c * 16, 1);
    else
      for (int64_t c = 0; c < nc; c++)
        rev_chunk (k, d - ((c + 1) * nb - 1) * g, s + c * 48, 3);
    d -= nc * nb * g;
    s += nc * nb * g;
    n -= nc * nb;
  }
  tn_vk_rev_c (g, d, s, n);
}
