/* tensormatmul in a pipeline, against identity moving the same A buffers:
 *
 *   tensorsrc num-buffers=N ! <A caps> ! tensormatmul weights=W ! fakesink
 *   tensorsrc num-buffers=N ! <A caps> ! identity ! fakesink
 *
 * Seconds from PLAYING to EOS over N, median of RUNS interleaved runs.
 * [8,8] x [8,8] shows the per-buffer overhead of the element (aggregator
 * pairing, caps, pool, one small product); a second row pairs two streams
 * (B from sink_1) instead; [1,4096] x [4096,4096] shows the weights
 * streamed per buffer (64 MiB of packed float32).
 *
 * Arguments pick cases by number (0, 1, 2); none runs all three. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>

#include "bench.h"
#include "rig.h"
#include "core/npy.h"

#define RUNS 7

/* A float32 .npy of dims k x n with small values, in a temporary file. */
static gchar *
weights_file (gint64 k, gint64 n)
{
  gint64 dims[2] = { k, n };
  gchar hdr[256], *path;
  size_t hl = tn_npy_header (hdr, sizeof hdr, TN_FLOAT32, dims, 2);
  int fd = g_file_open_tmp ("bench-matmul-XXXXXX.npy", &path, NULL);
  float *w = g_new (float, k *n);
  FILE *f = fdopen (fd, "wb");

  for (gint64 i = 0; i < k * n; i++)
    w[i] = (float) (i % 7) / 7.0f;
  fwrite (hdr, 1, hl, f);
  fwrite (w, sizeof *w, k * n, f);
  fclose (f);
  g_free (w);
  return path;
}

static void
use_build_tree_plugin (void)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *dir, *top, *path;

  if (!exe)
    return;
  dir = g_path_get_dirname (exe);
  top = g_path_get_dirname (dir);
  path = g_build_filename (top, "elements", NULL);
  g_setenv ("GST_PLUGIN_PATH", path, TRUE);
  g_free (path);
  g_free (top);
  g_free (dir);
  g_free (exe);
}

int
main (int argc, char **argv)
{
  gchar *w8, *w4k, *mm[3], *id[3];
  double tm[3][RUNS], ti[3][RUNS];
  static const guint nbuf[3] = { 20000, 20000, 30 };
  static const char *label[3] = { "[8,8] x [8,8] weights",
    "[8,8] x [8,8] two streams", "[1,4096] x [4096,4096] weights" };
  gboolean on[3] = { argc < 2, argc < 2, argc < 2 };

  use_build_tree_plugin ();
  gst_init (&argc, &argv);
  for (int i = 1; i < argc; i++) {
    int c = atoi (argv[i]);

    if (c < 0 || c > 2 || strspn (argv[i], "0123456789") != strlen (argv[i])) {
      fprintf (stderr, "usage: %s [case 0-2 ...]\n", argv[0]);
      return 2;
    }
    on[c] = TRUE;
  }
  w8 = weights_file (8, 8);
  w4k = weights_file (4096, 4096);
  mm[0] = g_strdup_printf (
      "tensorsrc num-buffers=%u pattern=uniform "
      "! tensor/x-raw,type=float32,dims=<8,8> ! tensormatmul weights=%s "
      "! fakesink sync=false enable-last-sample=false",
      nbuf[0], w8);
  mm[1] = g_strdup_printf (
      "tensorsrc num-buffers=%u pattern=uniform "
      "! tensor/x-raw,type=float32,dims=<8,8> ! m.sink_0 "
      "tensorsrc num-buffers=%u pattern=uniform "
      "! tensor/x-raw,type=float32,dims=<8,8> ! m.sink_1 tensormatmul name=m "
      "! fakesink sync=false enable-last-sample=false",
      nbuf[1], nbuf[1]);
  mm[2] = g_strdup_printf (
      "tensorsrc num-buffers=%u pattern=uniform "
      "! tensor/x-raw,type=float32,dims=<1,4096> ! tensormatmul weights=%s "
      "! fakesink sync=false enable-last-sample=false",
      nbuf[2], w4k);
  for (int c = 0; c < 3; c++)
    id[c] = g_strdup_printf ("tensorsrc num-buffers=%u pattern=uniform "
                             "! tensor/x-raw,type=float32,dims=<%s> ! identity "
                             "! fakesink sync=false enable-last-sample=false",
        nbuf[c], c < 2 ? "8,8" : "1,4096");

  for (int r = 0; r < RUNS; r++)
    for (int c = 0; c < 3; c++) {
      if (!on[c])
        continue;
      tm[c][r] = bench_pipeline_seconds (mm[c]) / nbuf[c];
      ti[c][r] = bench_pipeline_seconds (id[c]) / nbuf[c];
    }
  printf ("bench_matmul: us/buffer, median of %d interleaved runs, "
          "n-threads=0 (%u cores)\n",
      RUNS, g_get_num_processors ());
  for (int c = 0; c < 3; c++) {
    double m, i;

    if (!on[c])
      continue;
    m = bench_median (tm[c], RUNS);
    i = bench_median (ti[c], RUNS);

    printf ("%-32s tensormatmul %9.2f  identity %7.2f  overhead %9.2f us",
        label[c], m * 1e6, i * 1e6, (m - i) * 1e6);
    if (c == 2)
      printf ("  (%.2f GB/s of weights)", 4096.0 * 4096 * 4 / (m - i) / 1e9);
    printf ("\n");
  }
  unlink (w8);
  unlink (w4k);
  g_free (w8);
  g_free (w4k);
  for (int c = 0; c < 3; c++) {
    g_free (mm[c]);
    g_free (id[c]);
  }
  return 0;
}
