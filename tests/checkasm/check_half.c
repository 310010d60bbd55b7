/* The bulk float16 and bfloat16 conversions (core/half-private.h): every
 * entry gives the bits of the portable one, NaN included (both make it
 * quiet), for every length, unaligned starts, edge values and all 65536
 * patterns of each half type; the narrowings' stream entries the same
 * (their head before the first vector border moves with the offset). */
#include "checkasm.h"

#include <stdlib.h>
#include <string.h>

#include "core/half-private.h"
#include "core/half.h"

typedef void (*widen_fn) (float *dst, const uint16_t *src, size_t n);
typedef void (*narrow_fn) (uint16_t *dst, const float *src, size_t n);

/* One of the two entries. */
typedef struct {
  widen_fn w;
  narrow_fn n;
} conv;

static void
call (conv c, void *d, const void *s, size_t n)
{
  if (c.w)
    c.w (d, s, n);
  else
    c.n (d, s, n);
}

/* One run of ref and fn over n items at offset off (in items) of the
 * source (a block that ends exactly at its last item, for ASan) and of
 * the outputs.  Returns nonzero on a mismatch. */
static int
run (conv ref, conv fn, tn_dtype sdt, tn_dtype ddt, const void *src, size_t n,
    size_t off)
{
  size_t ssz = tn_dtype_size (sdt), dsz = tn_dtype_size (ddt);
  char *s = malloc ((n + off) * ssz + !(n + off));
  char *want = checkasm_alloc ((n + off) * dsz);
  char *got = checkasm_alloc ((n + off) * dsz);
  int r;

  memcpy (s + off * ssz, src, n * ssz);
  call (ref, want + off * dsz, s + off * ssz, n);
  call (fn, got + off * dsz, s + off * ssz, n);
  /* from the block's start: the off items before the output must stay
   * poison in both */
  r = checkasm_check_bits (want, got, n + off, dsz,
      "%s -> %s, n %zu at offset %zu (item i is output item i - %zu)",
      tn_dtype_name (sdt), tn_dtype_name (ddt), n, off, off);
  free (s);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

/* Every length of checkasm_lengths at offsets 0, 1 and 3 on random data
 * with edge values, then extra (n_extra items) in one call. */
static void
check_conv (conv ref, conv fn, tn_dtype sdt, tn_dtype ddt, const void *extra,
    size_t n_extra)
{
  static const size_t offs[] = { 0, 1, 3 };
  size_t ssz = tn_dtype_size (sdt);
  void *src = malloc (4096 * ssz);

  for (size_t l = 0; l < checkasm_nlengths; l++)
    for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
      checkasm_fill (src, sdt, checkasm_lengths[l]);
      if (run (ref, fn, sdt, ddt, src, checkasm_lengths[l], offs[o]))
        goto out;
    }
  if (extra)
    run (ref, fn, sdt, ddt, extra, n_extra, 0);
  {
    void *d = checkasm_alloc (4096 * tn_dtype_size (ddt));

    checkasm_fill (src, sdt, 4096);
    checkasm_bench (call (fn, d, src, 4096));
    checkasm_free (d);
  }
out:
  free (src);
}

void
checkasm_check_half (void)
{
  const tn_half_dsp *d = tn_half_dsp_get ();
  widen_fn wref;
  narrow_fn nref;

  if ((wref = checkasm_check_func (d->f16_to_f32, "f16_to_f32"))) {
    uint16_t *all = malloc (65536 * sizeof *all);

    for (size_t i = 0; i < 65536; i++)
      all[i] = (uint16_t) i;
    check_conv ((conv){ wref, NULL }, (conv){ d->f16_to_f32, NULL }, TN_FLOAT16,
        TN_FLOAT32, all, 65536);
    free (all);
  }
  /* The plain entry, then the one with non-temporal stores. */
  for (int st = 0; st < 2; st++) {
    narrow_fn fn = st ? d->f32_to_f16_stream : d->f32_to_f16;

    if (!(nref = checkasm_check_func (
              fn, "%s", st ? "f32_to_f16_stream" : "f32_to_f16")))
      continue;
    /* Every float16 value widened, and the float32 values halfway
     * between neighbours (ties to even) and just either side of them. */
    float *mid = malloc (4 * 65536 * sizeof *mid);

    for (uint32_t i = 0; i < 65536; i++) {
      float f = tn_f16_to_f32 ((uint16_t) i);
      uint32_t u;

      memcpy (&u, &f, sizeof u);
      mid[4 * i] = f;
      for (int k = 1; k < 4; k++) {
        uint32_t v = u + (1u << 12) + (uint32_t) (k - 2);

        memcpy (&mid[4 * i + k], &v, sizeof v);
      }
    }
    check_conv ((conv){ NULL, nref }, (conv){ NULL, fn }, TN_FLOAT32,
        TN_FLOAT16, mid, 4 * 65536);
    free (mid);
  }
  if ((wref = checkasm_check_func (d->bf16_to_f32, "bf16_to_f32"))) {
    uint16_t *all = malloc (65536 * sizeof *all);

    for (size_t i = 0; i < 65536; i++)
      all[i] = (uint16_t) i;
    check_conv ((conv){ wref, NULL }, (conv){ d->bf16_to_f32, NULL },
        TN_BFLOAT16, TN_FLOAT32, all, 65536);
    free (all);
  }
  for (int st = 0; st < 2; st++) {
    narrow_fn fn = st ? d->f32_to_bf16_stream : d->f32_to_bf16;

    if (!(nref = checkasm_check_func (
              fn, "%s", st ? "f32_to_bf16_stream" : "f32_to_bf16")))
      continue;
    /* Every bfloat16 pattern widened (NaNs, infinities and the
     * subnormals, which vcvtne2ps2bf16 flushes to zero, among them), the
     * ties between neighbours and either side of them, and NaNs whose
     * payload sits in the low 16 bits alone (rounding them would give
     * infinity). */
    uint32_t *mid = malloc (5 * 65536 * sizeof *mid);

    /* The NaNs of low payloads after the rest: blocks of 16 without a NaN
     * take the AVX2 entry's rounding alone (bf16_round8_num), so the
     * ties must come in such blocks too. */
    for (uint32_t i = 0; i < 65536; i++) {
      uint32_t u = i << 16;

      mid[4 * i] = u;
      for (int k = 1; k < 4; k++)
        mid[4 * i + k] = u + 0x8000u + (uint32_t) (k - 2);
      mid[4 * 65536 + i] = (u & 0x80000000u) | 0x7f800000u | (i | 1);
    }
    check_conv ((conv){ NULL, nref }, (conv){ NULL, fn }, TN_FLOAT32,
        TN_BFLOAT16, mid, 5 * 65536);
    free (mid);
  }
}
