/* Elementwise chains: every step on every dtype it takes against golden
 * data from tests/data/gen/gen_ewise.py (and the cast goldens of
 * gen_cast.py), on the portable and the AVX2 kernels, in place and not,
 * on one thread and two; broadcasting; and every error with its message. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cast.h"
#include "core/cpu.h"
#include "core/ewise-kern.h"
#include "core/ewise.h"
#include "core/half.h"
#include "core/npy.h"
#include "ftz.h"
#include "tests/common/npyread.h"

/* The kernels are checked under two CPU masks (core/cpu.h): 0, the
 * portable kernels alone, and everything this machine has. */
#define NMASKS 2
static const unsigned masks[NMASKS] = { 0, ~0u };
static const char *const mask_names[NMASKS] = { "portable", "native" };

/* Whether the native mask runs the AVX2 kernels. */
static gboolean
avx2_kernels (void)
{
  const unsigned need = TN_CPU_AVX2 | TN_CPU_F16C;

  return (tn_cpu_detect () & need) == need;
}

/* Parses, compiles and runs; fails the test with the message if any of
 * it fails. */
static tn_ewise *
compile_ok (const gchar *ops, tn_dtype t, const int64_t *dims, int rank)
{
  tn_ewise_chain *c;
  tn_ewise *p;
  tn_err e;

  if (tn_ewise_chain_parse (ops, &c, &e) != 0)
    g_error ("parse '%s': %s", ops, e.msg);
  if (tn_ewise_compile (c, t, dims, rank, &p, &e) != 0)
    g_error ("compile '%s' for %s: %s", ops, tn_dtype_name (t), e.msg);
  tn_ewise_chain_free (c);
  return p;
}

/* Order-preserving integer of a float's bits, for ulp distances. */
static gint64
ordered (const guint8 *p, gsize size)
{
  guint64 b = 0, sign;

  memcpy (&b, p, size);
  sign = G_GUINT64_CONSTANT (1) << (8 * size - 1);
  return (b & sign) ? -(gint64) (b & ~sign) : (gint64) b;
}

static gboolean
is_nan_item (const guint8 *p, tn_dtype t)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT && isnan (tn_get_f64 (p, t));
}

/* got against want: bits equal, or both NaN, or (approx) within 2 ulp. */
static void
compare (const gchar *what, const guint8 *got, const guint8 *want, gsize n,
    tn_dtype t, gboolean approx)
{
  gsize s = tn_dtype_size (t), i;

  for (i = 0; i < n; i++) {
    const guint8 *g = got + i * s, *w = want + i * s;
    char gs[64], ws[64];

    if (memcmp (g, w, s) == 0)
      continue;
    if (is_nan_item (g, t) && is_nan_item (w, t))
      continue;
    if (approx && tn_dtype_kind (t) == TN_KIND_FLOAT && !is_nan_item (g, t)
        && !is_nan_item (w, t) && ABS (ordered (g, s) - ordered (w, s)) <= 2)
      continue;
    tn_format_item (gs, sizeof gs, g, t);
    tn_format_item (ws, sizeof ws, w, t);
    g_error (
        "%s: item %" G_GSIZE_FORMAT " is %s, expected %s", what, i, gs, ws);
  }
}

/* "add:@y" -> "add:/path/ewise_y_int8.npy". */
static gchar *
expand_line (const gchar *line, const gchar *dname)
{
  gchar *yname = g_strdup_printf ("ewise_y_%s.npy", dname);
  gchar *pname = g_strdup_printf ("ewise_p_%s.npy", dname);
  gchar *y = npy_data_path (yname), *p = npy_data_path (pname);
  gchar **a = g_strsplit (line, "@y", -1), *s1 = g_strjoinv (y, a);
  gchar **b = g_strsplit (s1, "@p", -1), *s2 = g_strjoinv (p, b);

  g_strfreev (a);
  g_strfreev (b);
  g_free (s1);
  g_free (y);
  g_free (p);
  g_free (yname);
  g_free (pname);
  return s2;
}

#define REPS 200 /* the replicated runs span many blocks and chunks */

static void
check_dtype_with (tn_dtype t, int m)
{
  const gchar *dname = tn_dtype_name (t);
  gchar *name, *path, *text, **lines;
  gsize s = tn_dtype_size (t), nlines, li;
  Npy x, out;
  guint8 *dst, *inplace, *bigx, *bigd, *bigd1, *bigw;

  const unsigned old = tn_cpu_set_mask (masks[m]);

  name = g_strdup_printf ("ewise_x_%s.npy", dname);
  npy_load (&x, name);
  g_free (name);
  name = g_strdup_printf ("ewise_out_%s.npy", dname);
  npy_load (&out, name);
  g_free (name);
  name = g_strdup_printf ("ewise_steps_%s.txt", dname);
  path = npy_data_path (name);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_free (path);
  g_free (name);
  lines = g_strsplit (g_strchomp (text), "\n", -1);
  nlines = g_strv_length (lines);
  g_assert_cmpint (out.rank, ==, 2);
  g_assert_cmpint (out.dims[0], ==, (gint64) nlines);
  g_assert_cmpint (out.dims[1], ==, (gint64) (gsize) x.count);
  g_assert_cmpint (tn_dtype_size (x.dtype), ==, s);

  dst = g_malloc ((gsize) x.count * s);
  inplace = g_malloc ((gsize) x.count * s);
  bigx = g_malloc ((gsize) x.count * s * REPS);
  bigd = g_malloc ((gsize) x.count * s * REPS);
  bigd1 = g_malloc ((gsize) x.count * s * REPS);
  bigw = g_malloc ((gsize) x.count * s * REPS);
  for (gsize r = 0; r < REPS; r++)
    memcpy (bigx + r * (gsize) x.count * s, x.data, (gsize) x.count * s);

  for (li = 0; li < nlines; li++) {
    gboolean approx = lines[li][0] == '~';
    gchar *ops = expand_line (lines[li] + approx, dname);
    const guint8 *want = out.data + li * (gsize) x.count * s;
    int64_t dims = (int64_t) (gsize) x.count,
            bdims[2] = { REPS, (int64_t) (gsize) x.count };
    tn_ewise *p = compile_ok (ops, t, &dims, 1), *bp;
    gchar *what;

    g_assert_cmpint (tn_ewise_out_dtype (p), ==, t);
    what = g_strdup_printf ("%s on %s (%s)", lines[li], dname, mask_names[m]);
    tn_ewise_run (p, dst, x.data, 1);
    compare (what, dst, want, (gsize) x.count, t, approx);
    memcpy (inplace, x.data, (gsize) x.count * s);
    tn_ewise_run (p, inplace, inplace, 1);
    compare (what, inplace, want, (gsize) x.count, t, approx);
    tn_ewise_free (p);

    /* The same items 200 times over, as <200, N>: the operand of the
     * "@y" lines broadcasts along the new axis (a tile or a gather). */
    bp = compile_ok (ops, t, bdims, 2);
    for (gsize r = 0; r < REPS; r++)
      memcpy (bigw + r * (gsize) x.count * s, want, (gsize) x.count * s);
    tn_ewise_run (bp, bigd, bigx, 2);
    compare (what, bigd, bigw, (gsize) x.count * REPS, t, approx);
    tn_ewise_run (bp, bigd1, bigx, 1);
    g_assert_cmpmem (
        bigd, (gsize) x.count * s * REPS, bigd1, (gsize) x.count * s * REPS);
    tn_ewise_free (bp);
    g_free (what);
    g_free (ops);
  }

  g_free (dst);
  g_free (inplace);
  g_free (bigx);
  g_free (bigd);
  g_free (bigd1);
  g_free (bigw);
  g_strfreev (lines);
  g_free (text);
  npy_clear (&x);
  npy_clear (&out);
  tn_cpu_set_mask (old);
}

static void
test_golden (gconstpointer data)
{
  tn_dtype t = (tn_dtype) GPOINTER_TO_INT (data);

  check_dtype_with (t, 0);
  /* On a CPU with AVX2 the second run must really use it (only the AVX2
   * table has a division check). */
  if (avx2_kernels ())
    g_assert_nonnull (tn_ewise_dsp_get ()->rdiv_check);
  check_dtype_with (t, 1);
}

/* cast:T from every S, against gen_cast.py's exact answers: through the
 * chain machinery, float16/bfloat16 included (computed as float32). */
static void
test_casts (void)
{
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (int st = 0; st < TN_NDTYPES; st++) {
      gchar *sname
          = g_strdup_printf ("../cast/cast_src_%s.npy", tn_dtype_name (st));
      Npy src;

      npy_load (&src, sname);
      for (int dt = 0; dt < TN_NDTYPES; dt++) {
        gchar *tname
            = g_strdup_printf ("../cast/cast_to_%s.npy", tn_dtype_name (dt));
        gchar *ops = g_strdup_printf ("cast:%s", tn_dtype_name (dt));
        gsize dsz = tn_dtype_size (dt), n = (gsize) src.count;
        int64_t dims = (int64_t) n;
        tn_ewise *p;
        guint8 *dst;
        Npy want;

        npy_load (&want, tname);
        g_assert_cmpint (want.dims[1], ==, (gint64) n);
        p = compile_ok (ops, (tn_dtype) st, &dims, 1);
        g_assert_cmpint (tn_ewise_out_dtype (p), ==, dt);
        g_assert_true (tn_ewise_in_place_ok (p) == (tn_dtype_size (st) == dsz));
        dst = g_malloc (n * dsz);
        tn_ewise_run (p, dst, src.data, 1);
        /* Bits, NaN payloads included: a cast is exact. */
        if (memcmp (dst, want.data + st * n * dsz, n * dsz) != 0)
          compare (ops, dst, want.data + st * n * dsz, n, dt, FALSE);
        tn_ewise_free (p);
        g_free (dst);
        npy_clear (&want);
        g_free (tname);
        g_free (ops);
      }
      npy_clear (&src);
      g_free (sname);
    }
  }
  tn_cpu_set_mask (old);
}

/* Outputs of 16 MiB and more take the stream kernels (non-temporal
 * stores, core/ewise.c): a cast of 4M + 5 small integers to float32, from
 * an odd output address, on 1 and 2 threads under every mask, gives
 * (float) x, which is exact. */
static void
test_large_casts (void)
{
  static const tn_dtype types[] = { TN_UINT8, TN_INT8, TN_UINT16, TN_INT16 };
  const gsize n = ((gsize) 4 << 20) + 5;
  const unsigned old = tn_cpu_set_mask (masks[0]);
  guint8 *src = g_malloc (n * 2);
  float *out = g_malloc ((n + 1) * sizeof (float)), *dst = out + 1;

  for (gsize i = 0; i < n * 2; i++)
    src[i] = (guint8) (i * 2654435761u >> 11);
  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (gsize k = 0; k < G_N_ELEMENTS (types); k++) {
      const int64_t dims = (int64_t) n;
      tn_ewise *p = compile_ok ("cast:float32", types[k], &dims, 1);

      for (int threads = 1; threads <= 2; threads++) {
        memset (out, 0xff, (n + 1) * sizeof (float));
        tn_ewise_run (p, dst, src, threads);
        for (gsize i = 0; i < n; i++) {
          float want;

          switch (types[k]) {
          case TN_UINT8:
            want = src[i];
            break;
          case TN_INT8:
            want = (gint8) src[i];
            break;
          case TN_UINT16:
            want = ((const guint16 *) src)[i];
            break;
          default:
            want = ((const gint16 *) src)[i];
            break;
          }
          if (dst[i] != want)
            g_error ("cast %s -> float32, mask %d, %d threads: item %zu "
                     "is %g, expected %g",
                tn_dtype_name (types[k]), m, threads, (size_t) i, dst[i], want);
        }
      }
      tn_ewise_free (p);
    }
  }
  tn_cpu_set_mask (old);
  g_free (src);
  g_free (out);
}

/* float32 -> float16 / bfloat16 with outputs of 16 MiB and more take the
 * half table's stream entries: 8M + 5 items of float32 bit patterns
 * (subnormals, NaNs with low payloads, ties among them), written to an
 * output 2 bytes past a 64-byte border (a head before the first vector),
 * on 1 and 2 threads, portable, native and native without AVX512_BF16,
 * give the scalar conversions of half.h item for item (test_half checks
 * those against NumPy). */
static void
test_large_half_casts (void)
{
  static const tn_dtype types[] = { TN_FLOAT16, TN_BFLOAT16 };
  static const unsigned hmasks[] = { 0, ~0u, ~(unsigned) TN_CPU_AVX512BF16 };
  const gsize n = ((gsize) 8 << 20) + 5;
  const unsigned old = tn_cpu_set_mask (0);
  guint32 *src = g_malloc (n * sizeof *src);
  guint16 *out = g_aligned_alloc (n + 32, sizeof *out, 64), *dst = out + 1;

  for (gsize i = 0; i < n; i++) {
    guint32 u = (guint32) (i * 2654435761u) ^ (guint32) (i >> 7);

    /* a quarter subnormal or zero, a sixteenth NaN or infinity */
    if (i % 4 == 1)
      u &= 0x807fffffu;
    else if (i % 16 == 2)
      u |= 0x7f800000u;
    src[i] = u;
  }
  for (gsize m = 0; m < G_N_ELEMENTS (hmasks); m++) {
    tn_cpu_set_mask (hmasks[m]);
    for (gsize k = 0; k < G_N_ELEMENTS (types); k++) {
      const int64_t dims = (int64_t) n;
      tn_ewise *p = compile_ok (
          types[k] == TN_FLOAT16 ? "cast:float16" : "cast:bfloat16", TN_FLOAT32,
          &dims, 1);

      for (int threads = 1; threads <= 2; threads++) {
        memset (out, 0xff, (n + 32) * sizeof *out);
        tn_ewise_run (p, dst, src, threads);
        g_assert_cmphex (out[0], ==, 0xffff);
        g_assert_cmphex (dst[n], ==, 0xffff);
        for (gsize i = 0; i < n; i++) {
          float f;
          guint16 want;

          memcpy (&f, &src[i], sizeof f);
          want
              = types[k] == TN_FLOAT16 ? tn_f32_to_f16 (f) : tn_f32_to_bf16 (f);
          if (dst[i] != want)
            g_error ("cast float32 -> %s, mask %zu, %d threads: item %zu "
                     "(0x%08x) is 0x%04x, expected 0x%04x",
                tn_dtype_name (types[k]), (size_t) m, threads, (size_t) i,
                src[i], dst[i], want);
        }
      }
      tn_ewise_free (p);
    }
  }
  tn_cpu_set_mask (old);
  g_free (src);
  g_aligned_free (out);
}

/* Every other chain with an output of 16 MiB and more, out of place, is
 * computed in L1 and copied out past the caches (core/ewise.c): a fused
 * direct step (the normalisation of uint8), a single step, one with an
 * operand of the tensor's shape (a .npy file written here; its expected
 * values by hand, any NaN for a NaN), a chain of steps, one narrowed to
 * float16 and one from float16, each to an output
 * 4 bytes past a 64-byte border (a head before the first 16-byte border)
 * on 1 and 2 threads under every mask, give the bits of the same chain
 * run over pieces of 1021 items (whose outputs never stream), and write
 * nothing past the output. */
static void
test_large_chains (void)
{
  const gsize n = ((gsize) 4 << 20) + 13, piece = 1021;
  const int64_t dims = (int64_t) n;
  gchar *dir = g_dir_make_tmp ("test_ewise-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "operand.npy", NULL);
  gchar *sub = g_strdup_printf ("sub:%s", path);
  /* items: n, or 2 n for outputs of 2 bytes (the same 16 MiB) */
  const struct {
    const char *ops;
    tn_dtype in;
    gsize items;
  } cases[] = {
    { "cast:float32,sub:127.5,div:127.5", TN_UINT8, n },
    { "add:1", TN_FLOAT32, n },
    { sub, TN_FLOAT32, n },
    { "mul:0.5,sqrt,add:1", TN_FLOAT32, n },
    { "add:1,cast:float16", TN_FLOAT32, 2 * n },
    { "mul:3", TN_FLOAT16, 2 * n },
  };
  const unsigned old = tn_cpu_set_mask (masks[0]);
  guint8 *src = g_aligned_alloc (n, 8, 64);
  guint8 *out = g_aligned_alloc (n + 16, 4, 64), *dst = out + 4;
  guint8 *want = g_malloc (n * 4);
  tn_array opnd;
  tn_err e;

  g_assert_nonnull (dir);
  g_assert_cmpint (tn_array_init (&opnd, TN_FLOAT32, &dims, 1, &e), ==, 0);
  for (gsize i = 0; i < n; i++)
    ((float *) opnd.data)[i] = (float) (i % 1000) - 0.25f;
  g_assert_cmpint (tn_array_save_npy (path, &opnd, &e), ==, 0);
  tn_array_clear (&opnd);

  for (gsize i = 0; i < 2 * n; i++) {
    guint32 u = (guint32) (i * 2654435761u) >> 8;

    /* float32 and float16 items of a few binades, both signs */
    if (i % 3 == 0)
      u = 0x3f000000u | (u & 0x807fffffu);
    memcpy (src + 4 * i, &u, 4);
  }
  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
      const gsize nk = cases[k].items;
      const int64_t kdims = (int64_t) nk;
      tn_ewise *p = compile_ok (cases[k].ops, cases[k].in, &kdims, 1);
      gsize isz = tn_dtype_size (cases[k].in);
      gsize osz = tn_dtype_size (tn_ewise_out_dtype (p));

      g_assert_cmpuint (nk * osz, >=, (gsize) 16 << 20);
      if (cases[k].ops == sub) {
        /* the operand's pieces too: the small chain is of a scalar */
        for (gsize i = 0; i < nk; i++) {
          float x, w;

          memcpy (&x, src + 4 * i, 4);
          w = x - ((float) (i % 1000) - 0.25f);
          memcpy (want + 4 * i, &w, 4);
        }
      } else {
        const int64_t pdims = (int64_t) piece;
        tn_ewise *pp = compile_ok (cases[k].ops, cases[k].in, &pdims, 1);

        for (gsize i = 0; i + piece <= nk; i += piece)
          tn_ewise_run (pp, want + i * osz, src + i * isz, 1);
        /* the last items: the piece's chain over the piece ending there */
        tn_ewise_run (
            pp, want + (nk - piece) * osz, src + (nk - piece) * isz, 1);
        tn_ewise_free (pp);
      }
      for (int threads = 1; threads <= 2; threads++) {
        memset (out, 0xa5, n * 4 + 16);
        tn_ewise_run (p, dst, src, threads);
        for (gsize i = 0; i < nk; i++)
          if (memcmp (dst + i * osz, want + i * osz, osz) != 0
              && !(cases[k].ops == sub && isnan (((float *) dst)[i])
                   && isnan (((float *) want)[i])))
            g_error ("%s on %s, %s, %d threads: item %zu differs from the "
                     "chain run over small pieces",
                cases[k].ops, tn_dtype_name (cases[k].in), mask_names[m],
                threads, (size_t) i);
        for (gsize i = 0; i < 4; i++)
          g_assert_cmphex (out[i], ==, 0xa5);
        for (gsize i = nk * osz; i < nk * osz + 12; i++)
          g_assert_cmphex (dst[i], ==, 0xa5);
      }
      tn_ewise_free (p);
    }
  }
  tn_cpu_set_mask (old);
  g_remove (path);
  g_rmdir (dir);
  g_free (sub);
  g_free (path);
  g_free (dir);
  g_aligned_free (src);
  g_aligned_free (out);
  g_free (want);
}

static void
test_normalise_uint8 (void)
{
  Npy in, want;
  int64_t dims[3] = { 4, 8, 8 };
  tn_ewise *p;
  float out[256];

  npy_load (&in, "ewise_norm_in_uint8.npy");
  npy_load (&want, "ewise_norm_out_float32.npy");
  p = compile_ok ("cast:float32,sub:127.5,div:127.5", TN_UINT8, dims, 3);
  g_assert_cmpint (tn_ewise_out_dtype (p), ==, TN_FLOAT32);
  g_assert_false (tn_ewise_in_place_ok (p));
  tn_ewise_run (p, out, in.data, 0);
  g_assert_cmpmem (out, sizeof out, want.data, want.size);
  /* Hand values: 0 -> -1, 255 -> 1, 127 -> -0.5/127.5. */
  g_assert_cmpfloat (out[0], ==, -1.0f);
  g_assert_cmpfloat (out[255], ==, 1.0f);
  g_assert_cmpfloat (out[127], ==, -0.5f / 127.5f);
  tn_ewise_free (p);
  npy_clear (&in);
  npy_clear (&want);
}

/* NumPy's broadcasting of operands with other dims, small. */
static void
test_broadcast_golden (void)
{
  Npy x;

  npy_load (&x, "ewise_bx.npy");
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (int k = 0; k < 6; k++) {
      gchar *oname = g_strdup_printf ("ewise_bop_%d.npy", k);
      gchar *wname = g_strdup_printf ("ewise_bout_%d.npy", k);
      gchar *opath = npy_data_path (oname),
            *ops = g_strdup_printf ("mul:%s", opath);
      float got[24];
      tn_ewise *p;
      Npy want;

      npy_load (&want, wname);
      p = compile_ok (ops, TN_FLOAT32, x.dims, 3);
      tn_ewise_run (p, got, x.data, 1);
      compare (ops, (guint8 *) got, want.data, 24, TN_FLOAT32, FALSE);
      tn_ewise_free (p);
      npy_clear (&want);
      g_free (ops);
      g_free (opath);
      g_free (oname);
      g_free (wname);
    }
  }
  tn_cpu_set_mask (old);
  npy_clear (&x);
}

/* <3> and <480, 1, 1> over <480, 640, 3>, expected values by index. */
static void
test_broadcast_frame (void)
{
  const int64_t dims[3] = { 480, 640, 3 }, n = 480 * 640 * 3;
  float *x = g_malloc (n * sizeof *x), *y = g_malloc (n * sizeof *y);
  float *y1 = g_malloc (n * sizeof *y);
  const float w3[3] = { 0.5f, -2.0f, 100.0f };
  gchar *p3 = npy_data_path ("ewise_w3.npy"),
        *p480 = npy_data_path ("ewise_w480.npy");
  gchar *ops;
  tn_ewise *p;
  int64_t i;

  for (i = 0; i < n; i++)
    x[i] = (float) (i % 251) - 125.0f;

  ops = g_strdup_printf ("mul:%s", p3);
  p = compile_ok (ops, TN_FLOAT32, dims, 3);
  tn_ewise_run (p, y, x, 2);
  for (i = 0; i < n; i++)
    if (y[i] != x[i] * w3[i % 3])
      g_error ("mul <3>: item %" G_GINT64_FORMAT " is %g, expected %g", i, y[i],
          x[i] * w3[i % 3]);
  tn_ewise_run (p, y1, x, 1);
  g_assert_cmpmem (y, n * sizeof *y, y1, n * sizeof *y);
  tn_ewise_free (p);
  g_free (ops);

  /* Row r of the frame gets r / 4, and a chain around it. */
  ops = g_strdup_printf ("add:%s,sub:1", p480);
  p = compile_ok (ops, TN_FLOAT32, dims, 3);
  memcpy (y, x, n * sizeof *y);
  tn_ewise_run (p, y, y, 0); /* in place */
  for (i = 0; i < n; i++) {
    float want = x[i] + (float) (i / (640 * 3)) * 0.25f - 1.0f;

    if (y[i] != want)
      g_error ("add <480,1,1>: item %" G_GINT64_FORMAT " is %g, expected %g", i,
          y[i], want);
  }
  tn_ewise_free (p);
  g_free (ops);
  g_free (p3);
  g_free (p480);
  g_free (x);
  g_free (y);
  g_free (y1);
}

/* Rounding once per step, not once per chain: 1 + 0.0004 is 1 in
 * float16, twice over; per chain it would be 1.0009765625 (0x3c01).
 * Below 1 the spacing halves: -1 + 0.0004 = -0.9996 rounds to
 * -0.99951171875 (0xbbff), and + 0.0004 again to -0.9990234375 (0xbbfe). */
static void
test_float16_rounds_per_step (void)
{
  const int64_t dims = 2;
  guint16 x[2] = { 0x3c00, 0xbc00 }, y[2]; /* 1, -1 */
  tn_ewise *p = compile_ok ("add:0.0004,add:0.0004", TN_FLOAT16, &dims, 1);

  tn_ewise_run (p, y, x, 1);
  g_assert_cmphex (y[0], ==, 0x3c00);
  g_assert_cmphex (y[1], ==, 0xbbfe);
  tn_ewise_free (p);
  /* bfloat16: 256 + 1 is 256 (8 bits of precision), twice. */
  p = compile_ok ("add:1,add:1", TN_BFLOAT16, &dims, 1);
  x[0] = 0x4380; /* 256 */
  x[1] = 0x3f80; /* 1 */
  tn_ewise_run (p, y, x, 1);
  g_assert_cmphex (y[0], ==, 0x4380);
  g_assert_cmphex (y[1], ==, 0x4040); /* 3 */
  tn_ewise_free (p);
}

static void
test_integer_edges (void)
{
  const int64_t dims = 4;
  int64_t a[4] = { INT64_MIN, 7, -7, 0 }, r[4];
  int32_t b[4] = { INT32_MIN, INT32_MAX, -1, 5 }, rb[4];
  uint8_t u[4] = { 0, 1, 200, 255 }, ru[4];
  tn_ewise *p;

  /* INT_MIN / -1 wraps to INT_MIN; mod -1 is 0. */
  p = compile_ok ("div:-1", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  g_assert_cmpint (r[0], ==, INT64_MIN);
  g_assert_cmpint (r[1], ==, -7);
  g_assert_cmpint (r[2], ==, 7);
  tn_ewise_free (p);
  p = compile_ok ("mod:-1", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  g_assert_cmpint (r[0], ==, 0);
  tn_ewise_free (p);
  /* Division by zero gives 0, no SIGFPE. */
  p = compile_ok ("div:0", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (r[i], ==, 0);
  tn_ewise_free (p);
  /* Floor division and modulo: -7 // 2 = -4, -7 % 2 = 1, 7 % -2 = -1. */
  p = compile_ok ("div:2", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  g_assert_cmpint (r[1], ==, 3);
  g_assert_cmpint (r[2], ==, -4);
  tn_ewise_free (p);
  p = compile_ok ("mod:-2", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  g_assert_cmpint (r[1], ==, -1);
  g_assert_cmpint (r[2], ==, -1);
  tn_ewise_free (p);
  /* Wrap: INT32_MAX + 1, abs and neg of INT_MIN. */
  p = compile_ok ("add:1", TN_INT32, &dims, 1);
  tn_ewise_run (p, rb, b, 1);
  g_assert_cmpint (rb[1], ==, INT32_MIN);
  tn_ewise_free (p);
  p = compile_ok ("abs", TN_INT32, &dims, 1);
  tn_ewise_run (p, rb, b, 1);
  g_assert_cmpint (rb[0], ==, INT32_MIN);
  g_assert_cmpint (rb[2], ==, 1);
  tn_ewise_free (p);
  p = compile_ok ("mul:2", TN_UINT8, &dims, 1);
  tn_ewise_run (p, ru, u, 1);
  g_assert_cmpint (ru[2], ==, 144);
  g_assert_cmpint (ru[3], ==, 254);
  tn_ewise_free (p);
  p = compile_ok ("sub:1", TN_UINT8, &dims, 1);
  tn_ewise_run (p, ru, u, 1);
  g_assert_cmpint (ru[0], ==, 255);
  tn_ewise_free (p);
  /* An operand beyond 2^53 is taken exactly, not through a double. */
  p = compile_ok ("add:9007199254740993", TN_INT64, &dims, 1);
  tn_ewise_run (p, r, a, 1);
  g_assert_cmpint (r[3], ==, G_GINT64_CONSTANT (9007199254740993));
  tn_ewise_free (p);
  p = compile_ok ("max:18446744073709551615", TN_UINT64, &dims, 1);
  {
    guint64 x[4] = { 0, 1, 2, 3 }, y[4];

    tn_ewise_run (p, y, x, 1);
    g_assert_cmpuint (y[2], ==, G_MAXUINT64);
  }
  tn_ewise_free (p);
  /* 2.0 and 1e3 are whole numbers; a float literal is fine if whole. */
  p = compile_ok ("mul:2.0,add:1e3", TN_INT32, &dims, 1);
  tn_ewise_run (p, rb, b, 1);
  g_assert_cmpint (rb[3], ==, 1010);
  tn_ewise_free (p);
}

static void
test_zero_size_and_rank0 (void)
{
  const int64_t d0[1] = { 0 }, d1[3] = { 2, 0, 3 };
  float x = 3.0f, y = -1.0f, canary[4] = { 7, 7, 7, 7 };
  tn_ewise *p;

  p = compile_ok ("mul:2,sqrt", TN_FLOAT32, d0, 1);
  g_assert_cmpint (tn_ewise_count (p), ==, 0);
  tn_ewise_run (p, canary, canary, 2);
  g_assert_cmpfloat (canary[0], ==, 7.0f);
  tn_ewise_free (p);
  p = compile_ok ("cast:float64,add:1", TN_FLOAT32, d1, 3);
  g_assert_cmpint (tn_ewise_count (p), ==, 0);
  tn_ewise_run (p, canary, &x, 2);
  g_assert_cmpfloat (canary[0], ==, 7.0f);
  tn_ewise_free (p);
  /* Rank 0 holds one item. */
  p = compile_ok ("mul:2,add:0.5", TN_FLOAT32, NULL, 0);
  g_assert_cmpint (tn_ewise_count (p), ==, 1);
  tn_ewise_run (p, &y, &x, 0);
  g_assert_cmpfloat (y, ==, 6.5f);
  tn_ewise_free (p);
}

static void
test_identity_and_in_place (void)
{
  const int64_t dims = 3;
  int32_t x[3] = { -1, 0, 5 }, y[3] = { 9, 9, 9 };
  tn_ewise_chain *c;
  tn_ewise *p;
  tn_dtype out;
  tn_err e;

  /* Whole steps on integers, abs/relu on unsigned, cast to the same
   * type: nothing to do. */
  p = compile_ok ("floor,ceil,round,cast:int32", TN_INT32, &dims, 1);
  g_assert_true (tn_ewise_is_identity (p));
  tn_ewise_run (p, y, x, 1);
  g_assert_cmpmem (x, sizeof x, y, sizeof y);
  tn_ewise_free (p);
  p = compile_ok ("abs,relu", TN_UINT16, &dims, 1);
  g_assert_true (tn_ewise_is_identity (p));
  tn_ewise_free (p);
  p = compile_ok ("", TN_BOOL, &dims, 1);
  g_assert_true (tn_ewise_is_identity (p));
  tn_ewise_free (p);
  p = compile_ok ("relu", TN_INT32, &dims, 1);
  g_assert_false (tn_ewise_is_identity (p));
  tn_ewise_run (p, y, x, 1);
  g_assert_cmpint (y[0], ==, 0);
  g_assert_cmpint (y[2], ==, 5);
  tn_ewise_free (p);

  /* In place needs equal item sizes at both ends, whatever is between. */
  p = compile_ok ("cast:float64,sqrt,cast:int32", TN_FLOAT32, &dims, 1);
  g_assert_true (tn_ewise_in_place_ok (p));
  g_assert_cmpint (tn_ewise_out_dtype (p), ==, TN_INT32);
  tn_ewise_free (p);
  p = compile_ok ("cast:float64", TN_FLOAT32, &dims, 1);
  g_assert_false (tn_ewise_in_place_ok (p));
  g_assert_cmpint (tn_ewise_in_dtype (p), ==, TN_FLOAT32);
  tn_ewise_free (p);

  /* Type checks without dims. */
  g_assert_cmpint (
      tn_ewise_chain_parse ("cast:uint8,add:1,cast:float16", &c, &e), ==, 0);
  g_assert_cmpint (tn_ewise_chain_length (c), ==, 3);
  g_assert_cmpint (
      tn_ewise_chain_check (c, TN_BOOL, NULL, -1, &out, &e), ==, 0);
  g_assert_cmpint (out, ==, TN_FLOAT16);
  tn_ewise_chain_free (c);
  g_assert_cmpint (tn_ewise_chain_parse (NULL, &c, &e), ==, 0);
  g_assert_cmpint (tn_ewise_chain_length (c), ==, 0);
  tn_ewise_chain_free (c);

  /* Blanks around steps and arguments are ignored. */
  p = compile_ok ("  sub : 1 ,\tmul:2  ", TN_INT32, &dims, 1);
  tn_ewise_run (p, y, x, 1);
  g_assert_cmpint (y[0], ==, -4);
  g_assert_cmpint (y[2], ==, 8);
  tn_ewise_free (p);

  g_assert_true (tn_ewise_step_known ("sigmoid"));
  g_assert_false (tn_ewise_step_known ("Sigmoid"));
  g_assert_false (tn_ewise_step_known (NULL));
  g_assert_nonnull (strstr (tn_ewise_step_names (), "add, sub, mul"));
}

/* The error of ops on t (with dims, or none if rank < 0) contains every
 * needle. */
static void
expect_error (const gchar *ops, tn_dtype t, const int64_t *dims, int rank,
    const gchar *const *needles)
{
  tn_ewise_chain *c = NULL;
  tn_ewise *p = NULL;
  tn_err e = { { 0 } };
  int r;

  r = tn_ewise_chain_parse (ops, &c, &e);
  if (r == 0) {
    g_assert_nonnull (c);
    r = rank >= 0 ? tn_ewise_compile (c, t, dims, rank, &p, &e)
                  : tn_ewise_chain_check (c, t, NULL, -1, NULL, &e);
    g_assert_null (p);
    tn_ewise_chain_free (c);
  } else {
    g_assert_null (c);
  }
  if (r == 0)
    g_error ("'%s' on %s was accepted", ops, tn_dtype_name (t));
  for (; *needles; needles++)
    if (!strstr (e.msg, *needles))
      g_error ("'%s': message \"%s\" lacks \"%s\"", ops, e.msg, *needles);
}

#define EXPECT(ops, t, dims, rank, ...)                                        \
  do {                                                                         \
    const gchar *const n_[] = { __VA_ARGS__, NULL };                           \
    expect_error (ops, t, dims, rank, n_);                                     \
  } while (0)

static void
test_parse_errors (void)
{
  gchar *txt = npy_data_path ("ewise_steps_int8.txt");
  gchar *ops = g_strdup_printf ("add:%s", txt);

  EXPECT ("add:1,foo,mul:2", TN_FLOAT32, NULL, -1,
      "step 2 of 3 ('foo') is not a known step", "add, sub, mul, div");
  /* Splitting is core/steps.c's; its messages come through. */
  EXPECT ("add:1,,mul:2", TN_FLOAT32, NULL, -1, "step 2 of 3 is empty");
  EXPECT ("add:1,", TN_FLOAT32, NULL, -1, "step 2 of 2 is empty");
  EXPECT ("add", TN_FLOAT32, NULL, -1, "step 1 of 1 (add) needs one operand",
      "but has 0");
  EXPECT ("add:1:2", TN_FLOAT32, NULL, -1, "(add:1:2) needs one operand",
      "but has 2");
  EXPECT ("relu:1", TN_FLOAT32, NULL, -1,
      "step 1 of 1 (relu:1) takes no argument but has 1");
  EXPECT ("neg:1:2:3:4", TN_FLOAT32, NULL, -1,
      "step 1 of 1 (neg:1:2:3:4) takes no argument but has 4");
  EXPECT ("clamp:1", TN_FLOAT32, NULL, -1, "needs two numbers", "clamp:0:255",
      "but has 1");
  EXPECT ("clamp:a:1", TN_FLOAT32, NULL, -1, "'a' is not a number");
  EXPECT ("add:", TN_FLOAT32, NULL, -1,
      "step 1 of 1 ('add') has an empty argument 1");
  EXPECT ("cast", TN_FLOAT32, NULL, -1, "needs one type", "has 0");
  EXPECT ("cast:float33", TN_FLOAT32, NULL, -1, "step 1 of 1 (cast:float33)",
      "\"float33\"", "bool, int8");
  EXPECT ("mul:1..5", TN_FLOAT32, NULL, -1,
      "cannot open '1..5' (and it is not a number)", "No such file");
  /* A file that is not a .npy. */
  EXPECT (ops, TN_FLOAT32, NULL, -1, "step 1 of 1");
  g_free (ops);
  g_free (txt);
}

static void
test_type_errors (void)
{
  const int64_t frame[3] = { 480, 640, 3 }, one = 1, four = 4;
  gchar *frac = npy_data_path ("ewise_bad_frac.npy");
  gchar *big = npy_data_path ("ewise_bad_big.npy");
  gchar *negexp = npy_data_path ("ewise_bad_negexp.npy");
  gchar *bdims = npy_data_path ("ewise_bad_dims.npy");
  gchar *b2 = npy_data_path ("ewise_bop_2.npy");
  gchar *ops;

  EXPECT ("sqrt", TN_INT32, NULL, -1,
      "step 1 of 1 (sqrt): sqrt needs a float tensor but the tensor is int32",
      "put a cast:float32 step before it");
  EXPECT ("cast:int16,exp", TN_FLOAT32, NULL, -1,
      "step 2 of 2 (exp): exp needs a float tensor", "int16");
  EXPECT ("log", TN_UINT8, NULL, -1, "log needs a float tensor", "uint8");
  EXPECT ("tanh", TN_INT64, NULL, -1, "tanh needs");
  EXPECT ("sigmoid", TN_BOOL, NULL, -1, "a bool tensor takes cast steps only");
  EXPECT ("add:1", TN_BOOL, NULL, -1, "step 1 of 1 (add:1): a bool tensor",
      "cast:uint8");
  EXPECT ("add:2.5", TN_INT32, NULL, -1, "operand 2.5 is not a whole number",
      "int32", "put a cast:float32 step first");
  EXPECT ("mul:nan", TN_INT8, NULL, -1, "operand nan is not a whole number");
  EXPECT ("add:300", TN_UINT8, NULL, -1,
      "operand 300 does not fit uint8, which holds 0 to 255");
  EXPECT ("sub:-1", TN_UINT8, NULL, -1, "operand -1 does not fit uint8");
  EXPECT ("add:128", TN_INT8, NULL, -1, "which holds -128 to 127");
  EXPECT ("add:9223372036854775808", TN_INT64, NULL, -1,
      "operand 9223372036854775808 does not fit int64",
      "-9223372036854775808 to 9223372036854775807");
  /* the same number written as a float: 2^63 is a double, INT64_MAX not */
  EXPECT (
      "add:9223372036854775808.0", TN_INT64, NULL, -1, "does not fit int64");
  EXPECT ("add:18446744073709551616", TN_UINT64, NULL, -1,
      "does not fit uint64, which holds 0 to 18446744073709551615");
  EXPECT ("pow:-1", TN_INT32, NULL, -1,
      "an int32 tensor cannot be raised to the negative power -1");
  EXPECT ("clamp:5:1", TN_INT32, NULL, -1,
      "the lower bound 5 is above the upper bound 1");
  EXPECT ("clamp:nan:1", TN_FLOAT32, NULL, -1, "a clamp bound may not be NaN");
  EXPECT ("clamp:0:256", TN_UINT8, NULL, -1, "operand 256 does not fit uint8");

  ops = g_strdup_printf ("add:%s", frac);
  EXPECT (ops, TN_INT32, NULL, -1,
      "item 2 of the operand (2.5) is not a whole number", "int32");
  g_free (ops);
  ops = g_strdup_printf ("add:%s", big);
  EXPECT (ops, TN_UINT8, NULL, -1,
      "item 1 of the operand (300) does not fit uint8, which holds 0 to 255");
  g_free (ops);
  ops = g_strdup_printf ("pow:%s", negexp);
  EXPECT (ops, TN_INT32, NULL, -1,
      "item 2 of the operand is the negative power -1");
  g_free (ops);

  /* Broadcasting: both dims and the axis in the message. */
  ops = g_strdup_printf ("cast:float32,add:%s", bdims);
  EXPECT (ops, TN_UINT8, frame, 3, "step 2 of 2",
      "dims <480, 640, 3> and <4> do not broadcast: axis 2 has 3 against 4 "
      "and neither is 1");
  EXPECT (ops, TN_UINT8, &one, 1,
      "operand dims <4> would stretch axis 0 of the tensor dims <1> from 1 "
      "to 4");
  g_free (ops);
  ops = g_strdup_printf ("mul:%s", b2);
  EXPECT (ops, TN_FLOAT32, &four, 1,
      "operand dims <2, 1, 4> have rank 3, more than the 1 of the tensor "
      "dims <4>");
  g_free (ops);
  /* Bad dims for the compiler itself. */
  {
    const int64_t neg = -2;

    EXPECT ("add:1", TN_FLOAT32, &neg, 1, "axis 0 has extent -2");
    EXPECT ("add:1", TN_FLOAT32, &neg, 9, "rank 9");
  }
  g_free (frac);
  g_free (big);
  g_free (negexp);
  g_free (bdims);
  g_free (b2);
}

/* Operands on float16 round once to float16; an integer operand becomes
 * the nearest float. */
static void
test_operand_conversion (void)
{
  const int64_t dims = 1;
  guint16 x = 0, y;
  float f = 0.0f, g;
  tn_ewise *p;

  p = compile_ok ("add:0.1", TN_FLOAT16, &dims, 1);
  tn_ewise_run (p, &y, &x, 1);
  g_assert_cmphex (y, ==, 0x2e66); /* float16(0.1) */
  tn_ewise_free (p);
  p = compile_ok ("add:16777217", TN_FLOAT32, &dims, 1);
  tn_ewise_run (p, &g, &f, 1);
  g_assert_cmpfloat (g, ==, 16777216.0f);
  tn_ewise_free (p);
  p = compile_ok ("add:inf", TN_FLOAT32, &dims, 1);
  tn_ewise_run (p, &g, &f, 1);
  g_assert_true (isinf (g) && g > 0);
  tn_ewise_free (p);
}

/* Fused loops (a cast from a small integer type with the one or two
 * arithmetic steps after it; two arithmetic steps in a row) against the
 * same arithmetic written out in C, one rounding per step. */
static void
test_fused_steps (void)
{
  static const tn_dtype srcs[] = { TN_UINT8, TN_INT8, TN_UINT16, TN_INT16 };
  const int64_t n = 70000; /* several chunks on two threads */
  float *got = g_new (float, n), *want = g_new (float, n);
  double *dx = g_new (double, n), *dg = g_new (double, n);
  guint8 *src = g_malloc (n * 2);
  tn_ewise *p;

  for (int64_t i = 0; i < n * 2; i++)
    src[i] = (guint8) (i * 37 + (i >> 8));
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (guint k = 0; k < G_N_ELEMENTS (srcs); k++) {
      tn_dtype t = srcs[k];

      for (int c = 0; c < 3; c++) {
        static const char *const ops[] = { "cast:float32,sub:3.25,div:7",
          "cast:float32,mul:0.1", "cast:float32,add:1,mul:-2,relu" };

        p = compile_ok (ops[c], t, &n, 1);
        tn_ewise_run (p, got, src, 2);
        for (int64_t i = 0; i < n; i++) {
          float x = (float) tn_get_f64 (src + i * tn_dtype_size (t), t);

          if (c == 0)
            want[i] = (x - 3.25f) / 7.0f;
          else if (c == 1)
            want[i] = x * 0.1f;
          else
            want[i] = (x + 1.0f) * -2.0f < 0 ? 0.0f : (x + 1.0f) * -2.0f;
        }
        compare (ops[c], (guint8 *) got, (guint8 *) want, n, TN_FLOAT32, FALSE);
        tn_ewise_free (p);
      }
    }
    /* float64: mul then sub, then div then add then relu. */
    for (int64_t i = 0; i < n; i++)
      dx[i] = (double) (i - n / 2) / 3.0;
    p = compile_ok ("mul:3,sub:0.1,div:0.7,add:2,relu", TN_FLOAT64, &n, 1);
    tn_ewise_run (p, dg, dx, 1);
    for (int64_t i = 0; i < n; i++) {
      double y = (dx[i] * 3.0 - 0.1) / 0.7 + 2.0;

      g_assert_cmpfloat (dg[i], ==, y < 0 ? 0.0 : y);
    }
    tn_ewise_free (p);
  }
  tn_cpu_set_mask (old);
  g_free (got);
  g_free (want);
  g_free (dx);
  g_free (dg);
  g_free (src);
}

/* Division by a float32 scalar: on AVX2 it is fma (x, zh, RN (x zl))
 * where tn_ew_rdiv_plan proved that on one binade, vdivps elsewhere
 * (core/ewise-kern.c); every path must give the bits of x / c.  Every
 * mantissa of the binades at the two ends of the multiplied range and at
 * 1 is tried for the first divisors below; the binades just outside, the
 * guard's edge bit patterns, ±0, subnormals, inf and NaN, alone and
 * mixed into vectors of in-range items, check the fall back. */
static guint32
f32_bits (float f)
{
  guint32 u;

  memcpy (&u, &f, 4);
  return u;
}

static float
f32_of (guint32 u)
{
  float f;

  memcpy (&f, &u, 4);
  return f;
}

static const guint32 div_specials[] = { 0x00000000, 0x80000000, 0x7f800000,
  0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001, 0xff812345, 0x7f7fffff,
  0xff7fffff, 0x00800000, 0x80800000, 0x00000001, 0x807fffff, 0x00400000,
  0x3f800000, 0xbf800000, 0x0d800000, 0x72000000 };
#define DIV_NSP (G_N_ELEMENTS (div_specials) + 12)

/* The binades [*lo, *hi] of x that the plan for c multiplies, FALSE when
 * it keeps vdivps; sp gets the guard's edge patterns: 2^lo and 2^(hi+1)
 * as bits, one below and one above each, both signs. */
static gboolean
div_range (float c, int *lo, int *hi, guint32 *sp)
{
  tn_ew_rdiv p;

  tn_ew_rdiv_plan (&p, c);
  for (int i = 0; i < 12; i++) {
    guint32 edge = i % 6 < 3 ? p.lo : p.lo + ((~p.mask & 0x7fffffffu) + 1);

    sp[i] = (edge + (guint32) (i % 3) - 1) | (i < 6 ? 0 : 0x80000000u);
  }
  if (!p.fast)
    return FALSE;
  *lo = (int) (p.lo >> 23) - 127;
  *hi = *lo + (int) (((~p.mask & 0x7fffffffu) + 1) >> 23) - 1;
  return TRUE;
}

/* x: every stride-th mantissa of the binade with exponent field ef, the
 * sign from a hash of the mantissa; then each special among seven
 * in-range items, so that it shares a vector with them; then the
 * specials in a row (whole vectors of them) and 3 more, so that the count
 * is not a multiple of 8.  Returns the count. */
static gsize
div_inputs (float *x, int ef, guint stride, const guint32 *sp)
{
  gsize n = 0, k;

  for (guint32 m = 0; m < (1u << 23); m += stride) {
    guint32 sign = ((m * 0x9e3779b1u) >> 31) << 31;

    x[n++] = f32_of (sign | (guint32) ef << 23 | m);
  }
  for (k = 0; k < DIV_NSP * 8; k++)
    x[n++] = k % 8 == k / 8 % 8 ? f32_of (sp[k / 8])
                                : f32_of (0x3fc00000u + (guint32) k * 77);
  for (k = 0; k < DIV_NSP + 3; k++)
    x[n++] = f32_of (sp[k % DIV_NSP]);
  return n;
}

/* Runs ops on x and compares every bit with want. */
static void
div_check_chain (const char *ops, tn_dtype t, const void *x, void *got,
    const void *want, gsize n, const char *impl)
{
  int64_t dims = (int64_t) n;
  gsize s = tn_dtype_size (t);
  tn_ewise *p = compile_ok (ops, t, &dims, 1);

  memset (got, 0x55, n * s);
  tn_ewise_run (p, got, x, 1);
  tn_ewise_free (p);
  if (memcmp (got, want, n * s) == 0)
    return;
  for (gsize i = 0; i < n; i++) {
    guint64 g = 0, w = 0, xi = 0;

    memcpy (&g, (const guint8 *) got + i * s, s);
    memcpy (&w, (const guint8 *) want + i * s, s);
    memcpy (&xi, (const guint8 *) x + i * s, s);
    if (g != w)
      g_error ("%s (%s): item %" G_GSIZE_FORMAT " (bits 0x%" G_GINT64_MODIFIER
               "x) gives 0x%" G_GINT64_MODIFIER
               "x, expected 0x%" G_GINT64_MODIFIER "x",
          ops, impl, i, xi, g, w);
  }
}

/* A divisor the plan rejects, found by a search over random mantissas
 * (about 1 in 100 fail): for some x in [1, 2) the two-operation quotient
 * is off by an ulp (test_div_plan checks that independently). */
#define DIV_FAILING 0x1.e72ff6p+0f

/* The first 7 get every mantissa of their end binades. */
static const float div_f32_divisors[]
    = { 127.5f, 255.0f, 3.0f, 0.1f, DIV_FAILING, -2.5f, 1e-3f, 7.0f, 10.0f,
        1.0f / 3.0f, 3.0e35f, 2.5e-37f, 0x1p-126f, 0x1.fffffep+124f, 2.0f,
        -0x1p-60f, 0x1.fffffep+127f, -DIV_FAILING * 0x1p40f, 0.0f, INFINITY };

static void
test_div_float32 (void)
{
  const gsize cap = (1u << 23) + 9 * DIV_NSP + 3;
  float *x = g_new (float, cap), *want = g_new (float, cap);
  float *wrelu = g_new (float, cap), *got = g_new (float, cap);
  const gboolean have_avx2 = avx2_kernels ();
  guint32 sp[DIV_NSP];

  memcpy (sp, div_specials, sizeof div_specials);
  for (gsize k = 0; k < G_N_ELEMENTS (div_f32_divisors); k++) {
    float c = div_f32_divisors[k];
    int exlo = 0, exhi = 0, efs[10], nef = 0;
    guint strides[10], full = k < 7 ? 1 : 17;
    gboolean fast
        = div_range (c, &exlo, &exhi, sp + G_N_ELEMENTS (div_specials));
    char ops[5][96];

    /* Refused: the pinned divisor, divisors whose zl is subnormal (3e35
     * and 0x1.fffffep+124: too few bits), FLT_MAX (1/c subnormal), 0 and
     * inf. */
    g_assert_true (
        fast == (have_avx2 && k < 16 && k != 4 && k != 10 && k != 13));
    efs[nef] = 127, strides[nef++] = full;
    if (fast) {
      int ec;

      frexp (c, &ec);
      efs[nef] = exlo + 127, strides[nef++] = full;
      efs[nef] = exhi + 127, strides[nef++] = full;
      efs[nef] = exlo + 126, strides[nef++] = 61;
      if (exhi + 128 <= 254)
        efs[nef] = exhi + 128, strides[nef++] = 61;
      if (ec > 0 && ec <= 254)
        efs[nef] = ec, strides[nef++] = 61;
    }
    efs[nef] = 0, strides[nef++] = 61;
    efs[nef] = 254, strides[nef++] = 61;
    efs[nef] = 255, strides[nef++] = 61;

    g_snprintf (ops[0], sizeof ops[0], "div:%.17g", c);
    g_snprintf (ops[1], sizeof ops[1], "sub:0,div:%.17g", c);
    g_snprintf (ops[2], sizeof ops[2], "div:%.17g,mul:1", c);
    g_snprintf (ops[3], sizeof ops[3], "div:%.17g,div:1,div:1", c);
    g_snprintf (ops[4], sizeof ops[4], "sub:0,div:%.17g,relu", c);
    /* The portable kernels divide with '/' as the reference does: a
     * sample of each binade is enough for them.  The next divisor is
     * planned under the mask the test started with. */
    const unsigned old = tn_cpu_set_mask (masks[0]);

    for (int m = 0; m < NMASKS; m++) {
      const char *iname = mask_names[m];

      tn_cpu_set_mask (masks[m]);
      if (m && have_avx2)
        g_assert_nonnull (tn_ewise_dsp_get ()->rdiv_check);
      for (int e = 0; e < nef; e++) {
        gsize n
            = div_inputs (x, efs[e], m ? strides[e] : MAX (strides[e], 61), sp);

        /* the reference in IEEE arithmetic, as the kernels promise it:
         * under the -ftz variant's flags x / c would flush */
        tn_fpenv env = tn_fpenv_enter ();

        for (gsize i = 0; i < n; i++) {
          want[i] = x[i] / c;
          wrelu[i] = want[i] < 0 ? 0.0f : want[i];
        }
        tn_fpenv_leave (env);
        for (int o = 0; o < 5; o++)
          div_check_chain (
              ops[o], TN_FLOAT32, x, got, o == 4 ? wrelu : want, n, iname);
      }
    }
    tn_cpu_set_mask (old);
  }
  g_free (x);
  g_free (want);
  g_free (wrelu);
  g_free (got);
}

/* The plan's numbers by hand, and its refusals. */
static void
test_div_plan (void)
{
  static const float refused[]
      = { 0x1p-127f, 0x1p127f, 0.0f, -0.0f, INFINITY, NAN };
  const unsigned long n0 = tn_ew_rdiv_checks ();
  tn_ew_rdiv p;
  float zh, zl;
  gboolean differs = FALSE;

  if (!avx2_kernels ()) {
    tn_ew_rdiv_plan (&p, 127.5f);
    g_assert_false (p.fast);
    g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0);
    return;
  }
  /* 1/127.5 = 2/255 = 0x1.010101...p-7: RN (1/c) = 0x1.010102p-7 leaves
   * a negative rest, so the plan takes the float below, 0x1.0101p-7, and
   * the rest 2^-31 * 256/255 rounded, 0x1.010102p-31: one sign.  Binades
   * from max (ec - 124, -126 - ilogb (zl)) = -95 up; the test per vector
   * takes the widest power-of-two run centred on 1: [-64, 64). */
  tn_ew_rdiv_plan (&p, 127.5f);
  g_assert_true (p.fast);
  g_assert_true (p.same);
  g_assert_cmpfloat (p.zh, ==, 0x1.0101p-7f);
  g_assert_cmpfloat (p.zl, ==, 0x1.010102p-31f);
  g_assert_cmpint (p.emin, ==, -95);
  g_assert_cmphex (p.lo, ==, 63u << 23);
  g_assert_cmphex (p.mask, ==, 0x40000000u);
  /* float (1/3) rounds up, 1/c rounds to 3 with a negative rest, and the
   * float below 3 fails: the pair of two signs is kept. */
  tn_ew_rdiv_plan (&p, 1.0f / 3.0f);
  g_assert_true (p.fast);
  g_assert_false (p.same);
  g_assert_cmpfloat (p.zh, ==, 3.0f);
  g_assert_cmpfloat (p.zl, <, 0.0f);
  /* A power of two: zl = 0, binades [-123, 126]. */
  tn_ew_rdiv_plan (&p, 2.0f);
  g_assert_true (p.fast);
  g_assert_cmpfloat (p.zh, ==, 0.5f);
  g_assert_cmpfloat (p.zl, ==, 0.0f);
  g_assert_cmphex (p.lo, ==, 63u << 23);
  g_assert_cmphex (p.mask, ==, 0x40000000u);
  /* The least normal divisor: binades [-126, -1], so 64 of them from -64. */
  tn_ew_rdiv_plan (&p, 0x1p-126f);
  g_assert_true (p.fast);
  g_assert_cmphex (p.lo, ==, 63u << 23);
  g_assert_cmphex (p.mask, ==, 0x60000000u);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 4);
  /* c or 1/c not normal: refused without a check. */
  for (gsize i = 0; i < G_N_ELEMENTS (refused); i++) {
    tn_ew_rdiv_plan (&p, refused[i]);
    g_assert_false (p.fast);
  }
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 4);

  /* The pinned failing divisor: checked, refused, and by the C library's
   * fmaf some x in [1, 2) indeed comes out wrong. */
  tn_ew_rdiv_plan (&p, DIV_FAILING);
  g_assert_false (p.fast);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 5);
  zh = 1 / DIV_FAILING;
  zl = (float) ((1.0 - (double) DIV_FAILING * zh) / DIV_FAILING);
  for (guint32 m = 0; m < (1u << 23) && !differs; m++) {
    float xi = f32_of (0x3f800000u | m);
    volatile float u = xi * zl;

    differs = f32_bits (fmaf (xi, zh, u)) != f32_bits (xi / DIV_FAILING);
  }
  g_assert_true (differs);
}

/* The verdict is reached once per compiled chain, never per run. */
static void
test_div_cache (void)
{
  const gboolean avx2 = avx2_kernels ();
  const unsigned long one = avx2 ? 1 : 0;
  const int64_t n = 1000;
  float *x = g_new (float, n), *y = g_new (float, n);
  unsigned long n0;
  unsigned old;
  tn_ewise *p;

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) (i % 256);
  n0 = tn_ew_rdiv_checks ();
  p = compile_ok ("sub:127.5,div:127.5,relu", TN_FLOAT32, &n, 1);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + one);
  for (int r = 0; r < 3; r++) {
    tn_ewise_run (p, y, x, 1);
    for (int64_t i = 0; i < n; i++) {
      float q = (x[i] - 127.5f) / 127.5f;

      g_assert_cmphex (f32_bits (y[i]), ==, f32_bits (q < 0 ? 0.0f : q));
    }
  }
  tn_ewise_free (p);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + one);

  /* One per float32 division, none for float64 or integers. */
  p = compile_ok ("div:3,div:7", TN_FLOAT32, &n, 1);
  tn_ewise_free (p);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 3 * one);
  p = compile_ok ("cast:float32,div:255", TN_UINT8, &n, 1);
  tn_ewise_free (p);
  p = compile_ok ("div:3", TN_FLOAT16, &n, 1);
  tn_ewise_free (p);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 5 * one);
  p = compile_ok ("div:3", TN_FLOAT64, &n, 1);
  tn_ewise_free (p);
  p = compile_ok ("div:3", TN_INT32, &n, 1);
  tn_ewise_free (p);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 5 * one);
  /* Nor on the portable path, nor when disallowed. */
  old = tn_cpu_set_mask (0);
  p = compile_ok ("div:3", TN_FLOAT32, &n, 1);
  tn_ewise_free (p);
  tn_cpu_set_mask (old);
  tn_ew_rdiv_allow (false);
  p = compile_ok ("div:3", TN_FLOAT32, &n, 1);
  tn_ewise_free (p);
  tn_ew_rdiv_allow (true);
  g_assert_cmpuint (tn_ew_rdiv_checks (), ==, n0 + 5 * one);
  g_free (x);
  g_free (y);
}

/* ±0 keep their sign: with zl and zh of opposite signs (both divisors
 * here) the two-operation quotient of -0 is +0, so the guard must send
 * zeros to vdivps; whole vectors of zeros and zeros among in-range
 * items. */
static void
test_div_zeros (void)
{
  static const float cs[] = { 127.5f, -2.5f };
  const gsize n = 8 * 4 + 5;
  float x[8 * 4 + 5], got[8 * 4 + 5];
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (gsize k = 0; k < G_N_ELEMENTS (cs); k++) {
    float zh = 1 / cs[k];
    float zl = (float) ((1.0 - (double) cs[k] * zh) / cs[k]);
    volatile float u = -0.0f * zl;
    int64_t dims = (int64_t) n;

    g_assert_true ((zh < 0) != (zl < 0));
    g_assert_cmphex (f32_bits (fmaf (-0.0f, zh, u)), ==, 0);
    for (gsize i = 0; i < n; i++) {
      gsize v = i / 8;

      x[i] = v == 0   ? -0.0f
             : v == 1 ? (i % 2 ? 0.0f : -0.0f)
             : v == 2 ? (i % 8 == 3 ? -0.0f : 1.5f + (float) i)
                      : (i % 3 ? -0.0f : 0.0f);
    }
    for (int m = 0; m < NMASKS; m++) {
      char ops[2][64];

      tn_cpu_set_mask (masks[m]);
      g_snprintf (ops[0], sizeof ops[0], "div:%.17g", cs[k]);
      g_snprintf (ops[1], sizeof ops[1], "sub:0,div:%.17g", cs[k]);
      for (int o = 0; o < 2; o++) {
        tn_ewise *p = compile_ok (ops[o], TN_FLOAT32, &dims, 1);

        tn_ewise_run (p, got, x, 1);
        tn_ewise_free (p);
        for (gsize i = 0; i < n; i++) {
          /* x - 0 is x, -0 included; the reference in IEEE arithmetic */
          tn_fpenv env = tn_fpenv_enter ();
          float w = x[i] == 0
                        ? ((signbit (x[i]) != 0) != (cs[k] < 0) ? -0.0f : 0.0f)
                        : x[i] / cs[k];

          TN_FPENV_PIN (w);
          tn_fpenv_leave (env);
          g_assert_cmphex (f32_bits (got[i]), ==, f32_bits (w));
        }
      }
    }
  }
  tn_cpu_set_mask (old);
}

/* The cast pairs from int16 and uint16: every value, through one
 * division and through sub, division and relu. */
static void
test_div_cast_pairs (void)
{
  static const float cs[] = { 127.5f, 255.0f, 3.0f, 0.1f, -7.0f, 1e-30f,
    DIV_FAILING, 1.0f / 3.0f, -1.0f / 3.0f, 2.0f, -2.0f };
  const gsize n = 65536 + 5;
  guint16 *src = g_new (guint16, n);
  float *got = g_new (float, n), *want = g_new (float, n);

  for (gsize i = 0; i < n; i++)
    src[i] = (guint16) (i * 40503u);
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (int m = 0; m < NMASKS; m++) {
    tn_cpu_set_mask (masks[m]);
    for (gsize k = 0; k < G_N_ELEMENTS (cs); k++) {
      for (int t = 0; t < 2; t++) {
        tn_dtype st = t ? TN_INT16 : TN_UINT16;
        char ops[2][96];

        g_snprintf (ops[0], sizeof ops[0], "cast:float32,div:%.17g", cs[k]);
        g_snprintf (ops[1], sizeof ops[1],
            "cast:float32,sub:128,div:%.17g,relu", cs[k]);
        for (int o = 0; o < 2; o++) {
          int64_t dims = (int64_t) n;
          tn_ewise *p = compile_ok (ops[o], st, &dims, 1);

          for (gsize i = 0; i < n; i++) {
            float v = t ? (float) (gint16) src[i] : (float) src[i];
            float q = o ? (v - 128.0f) / cs[k] : v / cs[k];

            want[i] = o && q < 0 ? 0.0f : q;
          }
          tn_ewise_run (p, got, src, 1);
          tn_ewise_free (p);
          for (gsize i = 0; i < n; i++)
            if (f32_bits (got[i]) != f32_bits (want[i]))
              g_error ("%s on %s: item %" G_GSIZE_FORMAT " is 0x%08x, expected "
                       "0x%08x",
                  ops[o], tn_dtype_name (st), i, f32_bits (got[i]),
                  f32_bits (want[i]));
        }
      }
    }
  }
  tn_cpu_set_mask (old);
  g_free (src);
  g_free (got);
  g_free (want);
}

/* A division that sees only numbers its plan proved runs without the
 * test per vector ("bare"): after adding or subtracting an a that is not
 * tiny (x - a is then 0 or at least half an ulp of a), or on small
 * integers.  Which chains get it, then the bits of x - a over c against
 * the C division: a sample of every binade, every mantissa of the binade
 * of a (where x - a comes nearest 0), a and its neighbours, specials. */
static void
test_div_bare (void)
{
  static const struct {
    const char *ops;
    tn_dtype t;
    int bare;
  } which[] = {
    { "sub:127.5,div:127.5,relu", TN_FLOAT32, 1 },
    { "add:-3,div:7", TN_FLOAT32, 1 },
    /* 127.5 proves binades from -95 up: 2^(-71 - 24) is the least. */
    { "sub:0x1p-71,div:127.5", TN_FLOAT32, 1 },
    { "sub:0x1p-72,div:127.5", TN_FLOAT32, 0 },
    { "sub:0,div:127.5", TN_FLOAT32, 0 },
    /* zh and zl of two signs: inf - a would come out NaN. */
    { "sub:1,div:0.3333333432674408", TN_FLOAT32, 0 },
    /* zl near 2^92: x zl can overflow. */
    { "sub:1,div:2.5e-37", TN_FLOAT32, 0 },
    /* zl 0: inf times zl would be NaN. */
    { "sub:1,div:2", TN_FLOAT32, 0 },
    { "sub:1,div:-4", TN_FLOAT32, 0 },
    { "mul:2,div:127.5", TN_FLOAT32, 0 },
    { "div:127.5", TN_FLOAT32, 0 },
    { "div:127.5,sub:1", TN_FLOAT32, 0 },
    { "sub:127.5,div:127.5", TN_FLOAT64, 0 },
    { "cast:float32,sub:127.5,div:127.5", TN_UINT8, 1 },
    { "cast:float32,div:255", TN_UINT8, 1 },
    /* From integers no inf: two signs will do, but for c < 0 only one
     * sign turns +0 into -0. */
    { "cast:float32,sub:1,div:0.3333333432674408", TN_INT16, 1 },
    { "cast:float32,div:-0.3333333432674408", TN_UINT8, 0 },
    { "cast:float32,sub:1,div:-0.3333333432674408", TN_UINT8, 0 },
    { "cast:float32,div:-2", TN_UINT8, 1 },
    { "cast:float32,mul:2,div:3", TN_UINT8, 0 },
    { "cast:float32,div:3,div:7", TN_INT8, 1 },
  };
  /* The last three are not bare: their per-vector test must take the
   * specials to vdivps. */
  static const struct {
    float a, c;
    guint stride; /* over the binade of a */
    int bare;
  } cases[] = { { 127.5f, 127.5f, 1, 1 }, { 0x1p-71f, 127.5f, 1, 1 },
    { -3.0f, 7.0f, 5, 1 }, { 3e38f, 0.1f, 5, 1 }, { 1.5f, -2.5f, 5, 1 },
    { 1.0f, 1e-3f, 5, 1 }, { -255.0f, 3.0f, 5, 1 }, { 1e-20f, 10.0f, 5, 1 },
    { 1.0f, 2.0f, 61, 0 }, { 1.0f, -4.0f, 61, 0 },
    { 1.0f, -1.0f / 3.0f, 61, 0 } };
  const gboolean avx2 = avx2_kernels ();
  const gsize cap = (1u << 23) + 256 * 8500 + G_N_ELEMENTS (div_specials) + 4;
  float *x = g_new (float, cap), *want = g_new (float, cap);
  float *got = g_new (float, cap);

  for (gsize k = 0; k < G_N_ELEMENTS (which); k++) {
    int64_t n = 64;
    tn_ewise *p = compile_ok (which[k].ops, which[k].t, &n, 1);
    int want_bare = avx2 ? which[k].bare : 0;

    if (tn_ew_bare_divisions (p) != want_bare)
      g_error ("%s on %s: %d bare divisions, expected %d", which[k].ops,
          tn_dtype_name (which[k].t), tn_ew_bare_divisions (p), want_bare);
    tn_ewise_free (p);
  }
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    const float a = cases[k].a, c = cases[k].c;
    const guint32 sa = f32_bits (a) & 0x80000000u;
    const guint32 ea = (guint32) (ilogb (a) + 127);
    gsize n = 0;
    char ops[3][128];
    int64_t dims;
    tn_ewise *p;

    for (guint32 ef = 0; ef < 256; ef++)
      for (guint32 m = ef * 7; m < (1u << 23); m += 997)
        x[n++] = f32_of (((m * 0x9e3779b1u) >> 31) << 31 | ef << 23 | m);
    for (guint32 m = 0; m < (1u << 23); m += cases[k].stride)
      x[n++] = f32_of (sa | ea << 23 | m);
    for (gsize i = 0; i < G_N_ELEMENTS (div_specials); i++)
      x[n++] = f32_of (div_specials[i]);
    x[n++] = a;
    x[n++] = nextafterf (a, INFINITY);
    x[n++] = nextafterf (a, -INFINITY);
    x[n++] = -a;
    g_snprintf (ops[0], sizeof ops[0], "sub:%.17g,div:%.17g", a, c);
    g_snprintf (ops[1], sizeof ops[1], "sub:%.17g,div:%.17g,relu", a, c);
    g_snprintf (ops[2], sizeof ops[2], "add:%.17g,div:%.17g", -a, c);
    dims = (int64_t) n;
    p = compile_ok (ops[0], TN_FLOAT32, &dims, 1);
    g_assert_cmpint (tn_ew_bare_divisions (p), ==, avx2 ? cases[k].bare : 0);
    tn_ewise_free (p);
    for (int o = 0; o < 3; o++) {
      tn_fpenv env = tn_fpenv_enter (); /* the reference in IEEE */

      for (gsize i = 0; i < n; i++) {
        float q = (o == 2 ? x[i] + -a : x[i] - a) / c;

        want[i] = o == 1 && q < 0 ? 0.0f : q;
      }
      tn_fpenv_leave (env);
      div_check_chain (ops[o], TN_FLOAT32, x, got, want, n, "auto");
    }
  }
  g_free (x);
  g_free (want);
  g_free (got);
}

/* float64 keeps its division: random bit patterns of every exponent, and
 * random mantissas around 1. */
static void
test_div_float64 (void)
{
  static const double cs[] = { 127.5, 3.0, 0.1, 7.0, -2.5, 1e-300, 1e300,
    0x1p-1000, 1.0 / 3.0, 0x1.fffffffffffffp+1020, 0x1p-1022, 0.0 };
  const gsize nr = 1u << 20, n = 2 * nr + 7;
  double *x = g_new (double, n), *want = g_new (double, n);
  double *got = g_new (double, n);
  guint64 r = 0x9e3779b97f4a7c15u;
  const unsigned old = tn_cpu_set_mask (masks[0]);

  for (gsize k = 0; k < G_N_ELEMENTS (cs); k++) {
    char ops[3][96];
    tn_fpenv env = tn_fpenv_enter (); /* the reference in IEEE */

    for (gsize i = 0; i < n; i++) {
      guint64 b;

      r ^= r << 13;
      r ^= r >> 7;
      r ^= r << 17;
      b = r;
      if (i >= nr)
        b = (b & G_GUINT64_CONSTANT (0x800fffffffffffff))
            | (guint64) (1023 - 2 + i % 5) << 52;
      memcpy (&x[i], &b, 8);
      want[i] = x[i] / cs[k];
    }
    tn_fpenv_leave (env);
    g_snprintf (ops[0], sizeof ops[0], "div:%.17g", cs[k]);
    g_snprintf (ops[1], sizeof ops[1], "sub:0,div:%.17g", cs[k]);
    g_snprintf (ops[2], sizeof ops[2], "div:%.17g,div:1,div:1", cs[k]);
    for (int m = 0; m < NMASKS; m++) {
      tn_cpu_set_mask (masks[m]);
      for (int o = 0; o < 3; o++)
        div_check_chain (ops[o], TN_FLOAT64, x, got, want, n, mask_names[m]);
    }
  }
  tn_cpu_set_mask (old);
  g_free (x);
  g_free (want);
  g_free (got);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (int t = 0; t < TN_NDTYPES; t++) {
    gchar *path;

    if (t == TN_BOOL)
      continue;
    path = g_strdup_printf ("/ewise/golden/%s", tn_dtype_name (t));
    g_test_add_data_func (path, GINT_TO_POINTER (t), test_golden);
    g_free (path);
  }
  g_test_add_func ("/ewise/casts", test_casts);
  g_test_add_func ("/ewise/large-casts", test_large_casts);
  g_test_add_func ("/ewise/large-half-casts", test_large_half_casts);
  g_test_add_func ("/ewise/large-chains", test_large_chains);
  g_test_add_func ("/ewise/normalise-uint8", test_normalise_uint8);
  g_test_add_func ("/ewise/broadcast-golden", test_broadcast_golden);
  g_test_add_func ("/ewise/broadcast-frame", test_broadcast_frame);
  g_test_add_func ("/ewise/float16-per-step", test_float16_rounds_per_step);
  g_test_add_func ("/ewise/integer-edges", test_integer_edges);
  g_test_add_func ("/ewise/zero-size-rank0", test_zero_size_and_rank0);
  g_test_add_func ("/ewise/identity-in-place", test_identity_and_in_place);
  g_test_add_func ("/ewise/parse-errors", test_parse_errors);
  g_test_add_func ("/ewise/type-errors", test_type_errors);
  g_test_add_func ("/ewise/operand-conversion", test_operand_conversion);
  g_test_add_func ("/ewise/fused-steps", test_fused_steps);
  g_test_add_func ("/ewise/div-plan", test_div_plan);
  g_test_add_func ("/ewise/div-cache", test_div_cache);
  g_test_add_func ("/ewise/div-zeros", test_div_zeros);
  g_test_add_func ("/ewise/div-float32", test_div_float32);
  g_test_add_func ("/ewise/div-cast-pairs", test_div_cast_pairs);
  g_test_add_func ("/ewise/div-bare", test_div_bare);
  g_test_add_func ("/ewise/div-float64", test_div_float64);
  return g_test_run ();
}
