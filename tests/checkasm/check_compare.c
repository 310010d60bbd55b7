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
#include "core/parallel.h"

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

/* The vector runs' cheap pass (CMP_FAST in core/compare-kern.h) sees
 * clean blocks only in data like a real golden's: every item finite,
 * signs equal, a few ulps off, all passing.  Such pairs, with one
 * kind of item put where it matters. */
enum {
  PUT_NONE,
  PUT_FAIL,   /* an item beyond the bound */
  PUT_BIG,    /* a larger abs error that still passes */
  PUT_REL,    /* a larger rel error: a small reference */
  PUT_TIE,    /* the rel of item 0 again, later */
  PUT_NAN,    /* NaN in the actual */
  PUT_NAN2,   /* NaN in both */
  PUT_INF,    /* inf against a finite reference */
  PUT_INF2,   /* inf against inf */
  PUT_ZERO,   /* -0.0 against 0.0 */
  PUT_ZEROS,  /* 0.0 against 0.0 (0 / 0) */
  PUT_Y0,     /* a tiny actual against 0.0 (rel inf) */
  PUT_SIGN,   /* opposite signs, close */
  PUT_DENORM, /* subnormals 40 ulps apart (equal under DAZ: no ulps) */
  PUT_HUGE,   /* finite items whose difference overflows */
  PUT_EQHEAD, /* every item before this one equal (where equal runs end) */
  /* The cheap pass takes rtol * |y| and rel * |y| as 0 below 2^-100
   * (FAST_TINY in x86/compare-avx512.c), and divides vectors with a
   * subnormal d or |y| in float64: */
  PUT_SUBREL,   /* 0 against the least subnormal (rel 1: a 1-ulp-off 0) */
  PUT_SUBD,     /* normals next to FLT_MIN whose difference is subnormal */
  PUT_TINY,     /* a reference of 1e-32, 1 ulp off: passes with atol 0 */
  PUT_TINYFAIL, /* 3 against 4 times the least subnormal: fails at atol 0 */
  PUT_KINDS
};

static void
make_near (float *a, float *e, size_t n, int kind, size_t at)
{
  uint32_t b;

  for (size_t i = 0; i < n; i++) {
    a[i] = 0.5f + (float) (checkasm_rand () % 1000) * 0.001f;
    memcpy (&b, &a[i], 4);
    b += checkasm_rand () % 3; /* 0-2 ulps */
    memcpy (&e[i], &b, 4);
    if (checkasm_rand () % 2) {
      a[i] = -a[i];
      e[i] = -e[i];
    }
  }
  if (n == 0)
    return;
  at %= n;
  switch (kind) {
  case PUT_FAIL:
    a[at] = e[at] * 1.5f;
    break;
  case PUT_BIG:
    a[at] = e[at] + 2e-7f * (e[at] < 0 ? -1.0f : 1.0f);
    break;
  case PUT_REL:
    e[at] = 1e-3f;
    a[at] = 1e-3f + 1e-6f;
    break;
  case PUT_TIE:
    a[at] = a[0];
    e[at] = e[0];
    break;
  case PUT_NAN:
    a[at] = __builtin_nanf ("");
    break;
  case PUT_NAN2:
    a[at] = e[at] = __builtin_nanf ("");
    break;
  case PUT_INF:
    a[at] = __builtin_inff ();
    break;
  case PUT_INF2:
    a[at] = e[at] = -__builtin_inff ();
    break;
  case PUT_ZERO:
    a[at] = -0.0f;
    e[at] = 0.0f;
    break;
  case PUT_ZEROS:
    a[at] = e[at] = 0.0f;
    break;
  case PUT_Y0:
    a[at] = 1e-9f;
    e[at] = 0.0f;
    break;
  case PUT_SIGN:
    a[at] = -1e-7f;
    e[at] = 1e-7f;
    break;
  case PUT_DENORM:
    /* more ulps than any other item has, so a run that counts the bits
     * of two subnormals DAZ calls equal raises max_ulp */
    b = 5;
    memcpy (&a[at], &b, 4);
    b = 45;
    memcpy (&e[at], &b, 4);
    break;
  case PUT_HUGE:
    a[at] = 3e38f;
    e[at] = -3e38f;
    break;
  case PUT_SUBREL:
    a[at] = 0.0f;
    b = 1;
    memcpy (&e[at], &b, 4);
    break;
  case PUT_SUBD:
    b = 0x00800123;
    memcpy (&a[at], &b, 4);
    b = 0x00800100;
    memcpy (&e[at], &b, 4);
    break;
  case PUT_TINY:
    e[at] = 1e-32f;
    memcpy (&b, &e[at], 4);
    b++;
    memcpy (&a[at], &b, 4);
    break;
  case PUT_TINYFAIL:
    b = 3;
    memcpy (&a[at], &b, 4);
    b = 4;
    memcpy (&e[at], &b, 4);
    break;
  case PUT_EQHEAD:
    memcpy (e, a, at * sizeof (float));
    if (a[at] == e[at])
      a[at] = e[at] * (1.0f + 1e-7f);
    break;
  default:
    break;
  }
}

static const tn_cmp_tol near_tols[] = {
  { 1e-6, 1e-6, -1, false, true },
  { 1e-6, 0.0, -1, false, false },
  { 0.0, 0.0, 4, false, true },
  { 0.0, 0.0, 0x7fffffff, false, false },
};

/* n items from a + off, e + off under every tolerance; 0 when the
 * entry's part has the portable entry's bits. */
static int
check_near (tn_cmp_run_fn ref, tn_cmp_run_fn fn, const float *a, const float *e,
    size_t n, int kind, size_t at, const char *env)
{
  for (size_t t = 0; t < sizeof near_tols / sizeof near_tols[0]; t++) {
    tn_cmp_part want, got;

    ref (a, 1, e, 1, (int64_t) n, &near_tols[t], &want);
    fn (a, 1, e, 1, (int64_t) n, &near_tols[t], &got);
    if (checkasm_check_bits (&want.bad, &got.bad, 1, 8,
            "near%s n %zu kind %d at %zu tol %zu: bad", env, n, kind, at, t)
        || checkasm_check_bits (&want.max_abs, &got.max_abs, 1, 8,
            "near%s n %zu kind %d at %zu tol %zu: max_abs", env, n, kind, at, t)
        || checkasm_check_bits (&want.max_rel, &got.max_rel, 1, 8,
            "near%s n %zu kind %d at %zu tol %zu: max_rel", env, n, kind, at, t)
        || checkasm_check_bits (&want.max_ulp, &got.max_ulp, 1, 8,
            "near%s n %zu kind %d at %zu tol %zu: max_ulp", env, n, kind, at,
            t))
      return 1;
  }
  return 0;
}

/* Clean data with one item of every kind at the places a block can get
 * wrong: its first and last items, either side of a block border, the
 * run's tail past the last whole vector, and a second block; lengths of
 * one short block to several blocks and a tail.  Also under FTZ alone
 * (DAZ off), where the cheap pass runs and d can flush to 0. */
static void
check_compare_near (tn_cmp_run_fn ref, tn_cmp_run_fn fn)
{
  static const size_t ns[] = { 32, 100, CMP_FAST_BLOCK, CMP_FAST_BLOCK + 31,
    3 * CMP_FAST_BLOCK + 17, 4096 };
  enum { MAXN = 4096 + 64 };
  float *a = malloc (MAXN * sizeof (float));
  float *e = malloc (MAXN * sizeof (float));
  int bad = 0;

  for (int ftz = 0; ftz < 2 && !bad; ftz++) {
#if defined(__SSE__)
    const unsigned old = tn_mxcsr_get ();

    tn_mxcsr_set (ftz ? (old | 0x8000u) & ~0x40u : old);
#endif
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0] && !bad; ni++) {
      const size_t n = ns[ni];
      const size_t ats[] = { 0, 1, CMP_FAST_BLOCK - 1, CMP_FAST_BLOCK,
        CMP_FAST_BLOCK + 16, n - n % 32 - 1, n - 1, n / 2 };

      for (int kind = 0; kind < PUT_KINDS && !bad; kind++) {
        for (size_t ai = 0; ai < sizeof ats / sizeof ats[0] && !bad; ai++) {
          make_near (a + 1, e + 1, n, kind, ats[ai]);
          bad = check_near (
              ref, fn, a + 1, e + 1, n, kind, ats[ai], ftz ? " ftz" : "");
          /* a tie of the largest abs error, and the same at a start
           * aligned to a cache line */
          if (!bad && kind == PUT_BIG && n > 64) {
            const size_t t2 = (ats[ai] + n / 3) % n;

            a[1 + t2] = e[1 + t2] + (a[1 + ats[ai] % n] - e[1 + ats[ai] % n]);
            bad = check_near (
                ref, fn, a + 1, e + 1, n, kind, t2, ftz ? " ftz tie" : " tie");
          }
          if (!bad) {
            make_near (a, e, n, kind, ats[ai]);
            bad = check_near (ref, fn, a, e, n, kind, ats[ai], " aligned");
          }
        }
      }
    }
#if defined(__SSE__)
    tn_mxcsr_set (old);
#endif
  }
  free (a);
  free (e);
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
    if (dt == TN_FLOAT32)
      check_compare_near (ref, tab->run[dt]);
    checkasm_bench (
        tab->run[dt](a, 1, e, 1, 4096, &tols[0], &(tn_cmp_part){ 0 }));
    free (a);
    free (e);
  }
}
