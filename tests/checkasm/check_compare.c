/* The comparison runs (core/compare-kern.h): every entry gives the
 * portable entry's part (mismatch count, largest abs, rel and ulp errors,
 * bit for bit) on random data with edge values (NaN, infinities, signed
 * zeros, subnormals), on pairs that differ by a few ulps, on equal pairs
 * (the AVX2 entry's shortcut), in every mode: tolerances, max-ulp, with
 * and without equal-nan. */
#include "checkasm.h"

#include <stdlib.h>
#include <string.h>

#include "core/compare-kern.h"

static const tn_cmp_tol tols[] = {
  { 1e-7, 0.0, -1, false, true },
  { 1e-3, 1e-6, -1, false, false },
  { 0.0, 0.0, 3, false, true },
  { 0.5, 1.0, 0, false, false },
};

/* e: a, a nudged by up to 3 ulps, or random, item by item. */
static void
make_pair (void *a, void *e, tn_dtype dt, size_t n)
{
  size_t isz = tn_dtype_size (dt);

  checkasm_fill (a, dt, n);
  checkasm_fill (e, dt, n);
  for (size_t i = 0; i < n; i++) {
    uint32_t r = checkasm_rand () % 4;

    if (r == 0)
      continue;
    memcpy ((char *) e + i * isz, (char *) a + i * isz, isz);
    if (r == 1) {
      /* a few ulps off: add to the low bits */
      uint8_t *b = (uint8_t *) e + i * isz;

      b[0] = (uint8_t) (b[0] + checkasm_rand () % 4);
    }
  }
}

void
checkasm_check_compare (void)
{
  const tn_compare_dsp *tab = tn_compare_dsp_get ();
  enum { MAXN = 4096 + 64 };

  for (int dt = 0; dt < TN_NDTYPES; dt++) {
    size_t isz = tn_dtype_size (dt);
    tn_cmp_run_fn ref;
    char *a, *e;

    if (!(ref
            = checkasm_check_func (tab->run[dt], "run_%s", tn_dtype_name (dt))))
      continue;
    a = malloc (MAXN * isz);
    e = malloc (MAXN * isz);
    for (size_t li = 0; li < checkasm_nlengths; li++) {
      size_t n = checkasm_lengths[li];
      int bad = 0;

      for (size_t equal = 0; equal < 2 && !bad; equal++) {
        make_pair (a + isz, e + isz, dt, n);
        if (equal)
          memcpy (e + isz, a + isz, n * isz);
        for (size_t t = 0; t < sizeof tols / sizeof tols[0] && !bad; t++) {
          tn_cmp_part want, got;

          ref (a + isz, 1, e + isz, 1, (int64_t) n, &tols[t], &want);
          tab->run[dt](a + isz, 1, e + isz, 1, (int64_t) n, &tols[t], &got);
          bad = checkasm_check_bits (&want.bad, &got.bad, 1, 8,
                    "%s n %zu tol %zu equal %zu: bad", tn_dtype_name (dt), n, t,
                    equal)
                || checkasm_check_bits (&want.max_abs, &got.max_abs, 1, 8,
                    "%s n %zu tol %zu: max_abs", tn_dtype_name (dt), n, t)
                || checkasm_check_bits (&want.max_rel, &got.max_rel, 1, 8,
                    "%s n %zu tol %zu: max_rel", tn_dtype_name (dt), n, t)
                || checkasm_check_bits (&want.max_ulp, &got.max_ulp, 1, 8,
                    "%s n %zu tol %zu: max_ulp", tn_dtype_name (dt), n, t);
        }
      }
      if (bad)
        break;
    }
    checkasm_bench (
        tab->run[dt](a, 1, e, 1, 4096, &tols[0], &(tn_cmp_part){ 0 }));
    free (a);
    free (e);
  }
}
