/* Float32 sums and means along a short innermost axis (the short-row
 * kernels' case: k = 2, 3, 4, 5, 8, 16 items) against golden data from
 * tests/data/gen/gen_reduce_short.py, bit for bit (NaN: any NaN), with
 * rounding in every addition and NaN/inf items: an HWC array along axis
 * 2, its CHW view (permute 2,0,1, not materialised) along axis 0, which
 * reads the same memory, and a stepped slice along W, whose rows are
 * apart; on 1 and 2 threads, with the portable and with every ISA's
 * kernels. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/reduce.h"
#include "tests/common/npyread.h"

#define H 5
#define W 23

/* got (n floats) against want, row-major over <rows, cols>, where the
 * wanted item of output (r, c) is want[r * wrow + c * wstep]. */
static void
check (const char *what, const float *got, const float *want, int64_t rows,
    int64_t cols, int64_t wrow, int64_t wstep)
{
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t c = 0; c < cols; c++) {
      float g = got[r * cols + c], w = want[r * wrow + c * wstep];

      if (memcmp (&g, &w, 4) != 0 && !(isnan (g) && isnan (w)))
        g_error ("%s: output (%lld, %lld) is %a, NumPy's %a", what,
            (long long) r, (long long) c, (double) g, (double) w);
    }
  }
}

static void
reduce_into (float *out, const float *base, const tn_view *v, tn_reduce_op op,
    uint32_t mask, int th)
{
  tn_err e;

  if (tn_reduce (out, base, v, op, mask, 0, th, &e) < 0)
    g_error ("%s: %s", tn_reduce_op_name (op), e.msg);
}

static void
test_short (void)
{
  static const int ks[] = { 2, 3, 4, 5, 8, 16 };
  static const tn_reduce_op ops[] = { TN_REDUCE_SUM, TN_REDUCE_MEAN };
  const int perm[3] = { 2, 0, 1 };
  const unsigned all = tn_cpu_set_mask (0);
  float out[H * W];

  for (guint ki = 0; ki < G_N_ELEMENTS (ks); ki++) {
    const int64_t k = ks[ki], dims[3] = { H, W, k };
    char name[64];
    Npy in;

    g_snprintf (name, sizeof name, "reduce_short_in_k%d.npy", ks[ki]);
    npy_load (&in, name);
    g_assert_cmpint (in.dtype, ==, TN_FLOAT32);
    g_assert_cmpint (in.count, ==, H * W * k);
    for (guint o = 0; o < G_N_ELEMENTS (ops); o++) {
      const float *x = (const float *) in.data, *want;
      tn_view hwc, chw, step;
      tn_err e;
      Npy wn;

      g_snprintf (name, sizeof name, "reduce_short_%s_k%d.npy",
          tn_reduce_op_name (ops[o]), ks[ki]);
      npy_load (&wn, name);
      g_assert_cmpint (wn.count, ==, H * W);
      want = (const float *) wn.data;
      g_assert_cmpint (tn_view_init (&hwc, TN_FLOAT32, dims, 3, &e), ==, 0);
      chw = hwc;
      g_assert_cmpint (tn_view_permute (&chw, perm, 3, &e), ==, 0);
      /* [:, 1::2, :]: rows 2 k items apart */
      step = hwc;
      step.dims[1] = W / 2;
      step.strides[1] = 2 * k;
      step.offset = k;
      g_assert_cmpint (tn_view_check (&step, H * W * k, &e), ==, 0);
      for (int impl = 0; impl < 2; impl++) {
        tn_cpu_set_mask (impl ? all : 0);
        for (int th = 1; th <= 2; th++) {
          gchar *what = g_strdup_printf ("%s of k=%d, %s kernels, %d threads",
              tn_reduce_op_name (ops[o]), ks[ki], impl ? "ISA" : "portable",
              th);
          gchar *w2;

          reduce_into (out, x, &hwc, ops[o], 4, th);
          check (what, out, want, H, W, W, 1);
          memset (out, 0, sizeof out);
          reduce_into (out, x, &chw, ops[o], 1, th);
          w2 = g_strconcat (what, ", CHW view axis 0", NULL);
          check (w2, out, want, H, W, W, 1);
          g_free (w2);
          memset (out, 0, sizeof out);
          reduce_into (out, x, &step, ops[o], 4, th);
          w2 = g_strconcat (what, ", W stepped by 2", NULL);
          check (w2, out, want + 1, H, W / 2, W, 2);
          g_free (w2);
          g_free (what);
        }
      }
      npy_clear (&wn);
    }
    npy_clear (&in);
  }
  tn_cpu_set_mask (all);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reduce-short/goldens", test_short);
  return g_test_run ();
}
