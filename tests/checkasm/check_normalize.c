/* checkasm: the normalisation passes (core/normalize-kern.h).  Every
 * entry (exp, affine, shift; float32 and float64; one parameter pair per
 * run and one per item) against the portable entry, bit for bit, over
 * checkasm's lengths, unaligned starts and in place: on checkasm_fill's
 * edge-heavy items (NaN, infinities, subnormals, +-max) with edge-heavy
 * parameters, and on the inputs softmax gives the exp pass (x at most the
 * parameter, down to 120 below it, so that the results reach the
 * subnormal range).  Which NaN comes out is free, as in every family: a
 * NaN result must be NaN in both. */
#include "checkasm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/normalize-kern.h"

static const char *const kind_names[TN_NK_NKINDS]
    = { "exp", "affine", "shift" };

/* NaN bits are free: both NaN, then equal. */
static void
canon_nan (void *p, int f64, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (f64) {
      double *d = (double *) p + i;

      if (isnan (*d))
        *d = NAN;
    } else {
      float *f = (float *) p + i;

      if (isnan (*f))
        *f = NAN;
    }
  }
}

static void
fill_softmax (void *x, double *pa, int f64, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    double d = -(double) (checkasm_rand () % 120000) / 1000.0;

    if (f64)
      ((double *) x)[i] = pa[i] + d;
    else
      ((float *) x)[i] = (float) pa[i] + (float) d;
  }
}

void
checkasm_check_normalize (void)
{
  const tn_norm_dsp *tab = tn_norm_dsp_get ();
  const size_t nmax = 4095 + 4;

  for (int k = 0; k < TN_NK_NKINDS; k++) {
    for (int f64 = 0; f64 < 2; f64++) {
      tn_nk_fn ref;
      const size_t isz = f64 ? 8 : 4;

      if (!(ref = checkasm_check_func (
                tab->fn[k][f64], "%s_%s", kind_names[k], f64 ? "f64" : "f32")))
        continue;
      char *x = malloc (nmax * isz);
      double *pa = malloc (nmax * 8), *pb = malloc (nmax * 8);
      char *want = malloc (nmax * isz), *got = checkasm_alloc (nmax * isz);

      for (int data = 0; data < 2 && !checkasm_failed (); data++) {
        for (size_t li = 0; li < checkasm_nlengths; li++) {
          const size_t n = checkasm_lengths[li];

          for (int step = 0; step < 2; step++) {
            for (size_t off = 0; off < 3; off += 2) {
              checkasm_fill (pa, TN_FLOAT64, nmax);
              checkasm_fill (pb, TN_FLOAT64, nmax);
              if (data == 0) {
                checkasm_fill (x, f64 ? TN_FLOAT64 : TN_FLOAT32, nmax);
              } else {
                for (size_t i = 0; i < nmax; i++) {
                  pa[i] = (double) (int) (checkasm_rand () % 200) - 100.0;
                  pb[i] = 1.0 + (double) (checkasm_rand () % 1000) / 999.0;
                }
                if (step == 0)
                  for (size_t i = 1; i < nmax; i++)
                    pa[i] = pa[0];
                fill_softmax (x, pa, f64, nmax);
              }
              ref (x + off * isz, want, (int64_t) n, pa, pb, step);
              checkasm_poison (got);
              tab->fn[k][f64](x + off * isz, got, (int64_t) n, pa, pb, step);
              canon_nan (want, f64, n);
              canon_nan (got, f64, n);
              if (checkasm_check_bits (want, got, n, isz,
                      "data %d, n %zu, step %d, offset %zu", data, n, step,
                      off))
                goto next;
              /* in place */
              memcpy (got, x + off * isz, n * isz);
              tab->fn[k][f64](got, got, (int64_t) n, pa, pb, step);
              canon_nan (got, f64, n);
              if (checkasm_check_bits (want, got, n, isz,
                      "in place, data %d, n %zu, step %d", data, n, step))
                goto next;
            }
          }
        }
      }
      checkasm_bench (tab->fn[k][f64](x, got, 4095, pa, pb, 0));
    next:
      free (x);
      free (pa);
      free (pb);
      free (want);
      checkasm_free (got);
    }
  }
}
