/* Per-buffer cost of tensorsrc against fakesrc pushing the same bytes
 * without touching them:
 *
 *   tensorsrc num-buffers=N pattern=P ! capsfilter caps=float32 <E> ! fakesink
 *   fakesrc num-buffers=N sizetype=fixed filltype=nothing sizemax=4E ! fakesink
 *
 * The time from PLAYING to EOS, divided by N; the median of RUNS runs, the
 * two pipelines interleaved so that drift in the machine hits both alike.
 * The ratio is what generating the content costs on top of moving empty
 * buffers (fakesrc allocates each buffer and never writes it; tensorsrc
 * recycles its pool, writes every byte and, above 65536 items, uses every
 * core).
 *
 * The plugin is taken from ../elements next to this executable (the build
 * tree), ahead of anything already on GST_PLUGIN_PATH. */
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>

#include "bench.h"
#include "rig.h"

#define RUNS 7

typedef struct {
  const gchar *label;
  const gchar *pattern;
  guint items;   /* float32 items a buffer */
  guint buffers; /* per run, for a run of a fraction of a second */
} Case;

static const Case cases[] = {
  { "16 x float32", "zeros", 16, 100000 },
  { "16 x float32", "uniform", 16, 100000 },
  { "1M x float32", "zeros", 1 << 20, 400 },
  { "1M x float32", "uniform", 1 << 20, 100 },
  { "1M x float32", "normal", 1 << 20, 20 },
};

static void
use_build_tree_plugin (void)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *bench_dir, *build_dir, *dir, *path;
  const gchar *old = g_getenv ("GST_PLUGIN_PATH");

  if (!exe)
    return;
  bench_dir = g_path_get_dirname (exe);
  build_dir = g_path_get_dirname (bench_dir);
  dir = g_build_filename (build_dir, "elements", NULL);
  path = old && *old ? g_strconcat (dir, G_SEARCHPATH_SEPARATOR_S, old, NULL)
                     : g_strdup (dir);
  g_setenv ("GST_PLUGIN_PATH", path, TRUE);
  g_free (path);
  g_free (dir);
  g_free (build_dir);
  g_free (bench_dir);
  g_free (exe);
}

int
main (int argc, char **argv)
{
  enum { N = G_N_ELEMENTS (cases) };
  double src[N][RUNS], fake[N][RUNS];
  GstElementFactory *f;

  use_build_tree_plugin ();
  gst_init (&argc, &argv);
  f = gst_element_factory_find ("tensorsrc");
  if (!f) {
    fprintf (stderr, "tensorsrc not found (GST_PLUGIN_PATH=%s)\n",
        g_getenv ("GST_PLUGIN_PATH"));
    return 1;
  }
  gst_object_unref (f);

  for (int r = 0; r < RUNS; r++) {
    for (int c = 0; c < N; c++) {
      gchar *a = g_strdup_printf (
          "tensorsrc num-buffers=%u pattern=%s ! capsfilter caps="
          "\"tensor/x-raw,type=float32,dims=<%u>\" ! fakesink sync=false "
          "enable-last-sample=false",
          cases[c].buffers, cases[c].pattern, cases[c].items);
      gchar *b = g_strdup_printf (
          "fakesrc num-buffers=%u sizetype=fixed filltype=nothing "
          "sizemax=%u ! fakesink sync=false enable-last-sample=false",
          cases[c].buffers, cases[c].items * 4);

      src[c][r] = bench_pipeline_seconds (a) / cases[c].buffers;
      fake[c][r] = bench_pipeline_seconds (b) / cases[c].buffers;
      g_free (a);
      g_free (b);
    }
  }

  printf ("bench_src: ns/buffer, median of %d interleaved runs; tensorsrc "
          "n-threads=0 (%u cores)\n",
      RUNS, g_get_num_processors ());
  printf ("%-14s %-8s %12s %12s %8s\n", "tensor", "pattern", "tensorsrc",
      "fakesrc", "ratio");
  for (int c = 0; c < N; c++) {
    double s = bench_median (src[c], RUNS) * 1e9;
    double k = bench_median (fake[c], RUNS) * 1e9;

    printf ("%-14s %-8s %12.0f %12.0f %8.2f\n", cases[c].label,
        cases[c].pattern, s, k, s / k);
  }
  return 0;
}
