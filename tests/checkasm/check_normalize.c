/* checkasm: the normalisation passes (core/normalize-kern.h).  Every
 * entry (exp, affine, shift; float32 and float64; one parameter pair per
 * run and one per item) against the portable entry, bit for bit, over
 * checkasm's lengths, unaligned starts and in place: on checkasm_fill's
 * edge-heavy items (NaN, infinities, subnormals, +-max) with edge-heavy
 * parameters, and on the inputs softmax gives the exp pass (x at most the
 * parameter, down to 120 below it, so that the results reach the
 * subnormal range); affine_rep (check_affine_rep); the reductions and
 * affine_rep of both tables, with and without software prefetch.  Which NaN
 * comes out is free, as in every family: a NaN result must be NaN in both. */
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

/* The reductions of the fused float32 paths (rmax, rsum, moments) on
 * edge-heavy items and on ordinary ones (uniform in [-100, 100]), over
 * checkasm's lengths at unaligned starts; moments for every slot count
 * it takes (1, 2, 3, 4, 6, 12) over lengths cut to a multiple of it. */
static void
check_reductions (const tn_norm_dsp *tab)
{
  static const int slots[] = { 1, 2, 3, 4, 6, 12 };
  const size_t nmax = 4095 + 4;
  tn_nk_max_fn rmax_ref = checkasm_check_func (tab->rmax, "rmax_f32");
  tn_nk_sum_fn rsum_ref = checkasm_check_func (tab->rsum, "rsum_f32");
  tn_nk_mom_fn mom_ref = checkasm_check_func (tab->moments, "moments_f32");
  const int bench = mom_ref != NULL;
  float *x = malloc (nmax * sizeof (float));
  double bs[12], bq[12];

  for (int data = 0; data < 2 && !checkasm_failed (); data++) {
    if (data == 0)
      checkasm_fill (x, TN_FLOAT32, nmax);
    else
      for (size_t i = 0; i < nmax; i++)
        x[i] = (float) ((int) (checkasm_rand () % 200001) - 100000) / 1000.0f;
    for (size_t li = 0; li < checkasm_nlengths; li++) {
      const size_t n = checkasm_lengths[li];

      for (size_t off = 0; off < 3 && n > 0; off += 2) {
        if (rmax_ref) {
          float want = rmax_ref (x + off, (int64_t) n);
          float got = tab->rmax (x + off, (int64_t) n);

          canon_nan (&want, 0, 1);
          canon_nan (&got, 0, 1);
          if (checkasm_check_bits (&want, &got, 1, 4,
                  "rmax, data %d, n %zu, offset %zu", data, n, off))
            rmax_ref = NULL;
        }
        if (rsum_ref) {
          double want = rsum_ref (x + off, (int64_t) n);
          double got = tab->rsum (x + off, (int64_t) n);

          canon_nan (&want, 1, 1);
          canon_nan (&got, 1, 1);
          if (checkasm_check_bits (&want, &got, 1, 8,
                  "rsum, data %d, n %zu, offset %zu", data, n, off))
            rsum_ref = NULL;
        }
        for (size_t si = 0; mom_ref && si < sizeof slots / sizeof *slots;
             si++) {
          const int p = slots[si];
          const size_t m = n / (size_t) p * (size_t) p;
          double ws[12], wq[12], gs[12], gq[12];

          if (m == 0)
            continue;
          mom_ref (x + off, (int64_t) m, p, ws, wq);
          tab->moments (x + off, (int64_t) m, p, gs, gq);
          canon_nan (ws, 1, (size_t) p);
          canon_nan (wq, 1, (size_t) p);
          canon_nan (gs, 1, (size_t) p);
          canon_nan (gq, 1, (size_t) p);
          if (checkasm_check_bits (ws, gs, (size_t) p, 8,
                  "moments s, data %d, n %zu, p %d, offset %zu", data, m, p,
                  off)
              || checkasm_check_bits (wq, gq, (size_t) p, 8,
                  "moments q, data %d, n %zu, p %d, offset %zu", data, m, p,
                  off))
            mom_ref = NULL;
        }
      }
    }
  }
  if (bench)
    checkasm_bench (tab->moments (x, 4092, 3, bs, bq));
  free (x);
}

/* affine_rep, ordinary and streaming stores: edge-heavy items with
 * edge-heavy pairs, and ordinary ones (pairs as a standardize's), over
 * checkasm's lengths and lengths about the 48-item pattern, with the
 * output at every item offset of a 64-byte line (every head before the
 * vector stores' border, so every phase of the pattern at that border)
 * and the input at offsets 0, 1 and 3 (independent of the output's);
 * ordinary stores in place too. */
static void
check_affine_rep (const tn_norm_dsp *tab)
{
  static const size_t more[] = { 47, 48, 49, 95, 96, 97, 143, 1000 };
  const size_t nmax = 4095 + 3 + 16;
  float *x = malloc (nmax * sizeof (float)), *want = malloc (nmax * 4);
  float *got = checkasm_alloc (nmax * 4);
  double a[TN_NK_REP], b[TN_NK_REP];

  for (int st = 0; st < 2; st++) {
    tn_nk_rep_fn ref = checkasm_check_func (
        tab->affine_rep[st], "affine_rep%s_f32", st ? "_stream" : "");

    if (!ref)
      continue;
    for (int data = 0; data < 2 && !checkasm_failed (); data++) {
      if (data == 0) {
        checkasm_fill (x, TN_FLOAT32, nmax);
        checkasm_fill (a, TN_FLOAT64, TN_NK_REP);
        checkasm_fill (b, TN_FLOAT64, TN_NK_REP);
      } else {
        for (size_t i = 0; i < nmax; i++)
          x[i] = (float) (checkasm_rand () % 25600) / 100.0f;
        for (int j = 0; j < TN_NK_REP; j++) {
          a[j] = (double) (checkasm_rand () % 25600) / 100.0 + j % 3;
          b[j] = 1.0 / (1.0 + (double) (checkasm_rand () % 1000) / 10.0);
        }
      }
      for (size_t li = 0; li < checkasm_nlengths + sizeof more / sizeof *more
                          && !checkasm_failed ();
           li++) {
        const size_t n = li < checkasm_nlengths ? checkasm_lengths[li]
                                                : more[li - checkasm_nlengths];

        for (size_t yo = 0; yo < 16; yo++) {
          for (size_t xo = 0; xo < 4; xo += xo == 1 ? 2 : 1) {
            ref (x + xo, want, (int64_t) n, a, b);
            checkasm_poison (got);
            tab->affine_rep[st](x + xo, got + yo, (int64_t) n, a, b);
            canon_nan (want, 0, n);
            canon_nan (got + yo, 0, n);
            if (checkasm_check_bits (want, got + yo, n, 4,
                    "data %d, n %zu, output offset %zu, input offset %zu", data,
                    n, yo, xo))
              goto next;
          }
          if (st == 0) {
            memcpy (got + yo, x + 3, n * 4);
            tab->affine_rep[st](got + yo, got + yo, (int64_t) n, a, b);
            ref (x + 3, want, (int64_t) n, a, b);
            canon_nan (want, 0, n);
            canon_nan (got + yo, 0, n);
            if (checkasm_check_bits (want, got + yo, n, 4,
                    "in place, data %d, n %zu, offset %zu", data, n, yo))
              goto next;
          }
        }
      }
    }
    checkasm_bench (tab->affine_rep[st](x, got, 4095, a, b));
  next:;
  }
  free (x);
  free (want);
  checkasm_free (got);
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
  tn_norm_dsp alt;

  check_reductions (tab);
  check_affine_rep (tab);
  /* the entries with and without software prefetch (the table above has
   * the ones this CPU's vendor gets; the others differ from them by the
   * requests alone, and are checked here all the same) */
  for (int pf = 0; pf < 2; pf++) {
    tn_norm_dsp_fill (&alt, checkasm_cpu_flags (), pf);
    check_reductions (&alt);
    check_affine_rep (&alt);
  }
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
