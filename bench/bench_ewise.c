/* tensorop and core/ewise against their peers, in one run:
 *  - add:1 on float32 in place, 1M and 16M items: the element and the
 *    core kernel against a STREAM-style loop compiled here and NumPy's
 *    a += 1 (a python3 process fed one command per run, so its runs
 *    interleave with ours);
 *  - sub:127.5,div:127.5,relu against sub:127.5 and div:127.5 alone, the
 *    same chain dividing with vdivps, a hand-fused C loop and NumPy;
 *  - cast:float32,sub:127.5,div:127.5 from uint8 frames, against NumPy;
 *  - ORC programs against the compiler's AVX2 kernels, per kernel;
 *  - the per-buffer cost on 16 items against identity;
 *  - uint8 -> float32 and float32 -> float16 / bfloat16 casts at 1M and
 *    16M items against memcpy of the output bytes;
 *  - n-threads=2 against n-threads=1 at 16M.
 * Every figure is a median of RUNS interleaved runs.  Arguments pick
 * parts: bench_ewise add chain normalise orc overhead cast
 * threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gst/gst.h>
#include <orc/orc.h>

#include "bench.h"
#include "rig.h"
#include "core/cpu.h"
#include "core/ewise-kern.h"
#include "core/ewise.h"
#include <gst/tensor/gsttensor.h>

#define RUNS 15

/* ---- NumPy, in a process of its own ---- */

static const char numpy_script[]
    = "import sys, time\n"
      "import numpy as np\n"
      "keep = {}\n"
      "def arr(key, make):\n"
      "    if key not in keep:\n"
      "        keep[key] = make()\n"
      "    return keep[key]\n"
      "print('ready', np.__version__, flush=True)\n"
      "c = np.float32(127.5)\n"
      "def add(n):\n"
      "    a = arr(('f', n), lambda: np.zeros(n, np.float32))\n"
      "    a += 1\n"
      "def chain(n):\n"
      "    a = arr(('f', n), lambda: np.zeros(n, np.float32))\n"
      "    np.subtract(a, c, out=a)\n"
      "    np.divide(a, c, out=a)\n"
      "    np.maximum(a, 0, out=a)\n"
      "def norm(n):\n"
      "    u = arr(('u', n), lambda: (np.arange(n) % 256).astype(np.uint8))\n"
      "    o = arr(('o', n), lambda: np.empty(n, np.float32))\n"
      "    np.subtract(u, c, out=o, dtype=np.float32)\n"
      "    np.divide(o, c, out=o)\n"
      "fns = {'add': add, 'chain': chain, 'norm': norm}\n"
      "for line in sys.stdin:\n"
      "    cmd, n = line.split()\n"
      "    f, n = fns[cmd], int(n)\n"
      "    f(n)  # warm, as every contender is before it is timed\n"
      "    f(n)\n"
      "    t = time.perf_counter()\n"
      "    f(n)\n"
      "    print(time.perf_counter() - t, flush=True)\n";

/* ---- tensorop fed buffer by buffer (rig.h) ---- */

static void
start_element (BenchRig *r, const char *factory, const char *ops, int threads,
    const char *caps)
{
  gchar *desc = ops ? g_strdup_printf (
                    "%s ops=\"%s\" n-threads=%d", factory, ops, threads)
                    : g_strdup (factory);

  bench_rig_start (r, desc, caps, BENCH_RIG_KEEP);
  g_free (desc);
}

static GstBuffer *
new_tensor_buffer (gsize bytes)
{
  GstAllocator *a = gst_tn_allocator_get ();
  GstBuffer *b = gst_buffer_new_allocate (a, bytes, NULL);
  GstMapInfo m;

  gst_object_unref (a);
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  memset (m.data, 0, m.size);
  gst_buffer_unmap (b, &m);
  return b;
}

static tn_ewise *
compile (const char *ops, tn_dtype t, int64_t n)
{
  tn_ewise_chain *c;
  tn_ewise *p;
  tn_err e;

  if (tn_ewise_chain_parse (ops, &c, &e) < 0
      || tn_ewise_compile (c, t, &n, 1, &p, &e) < 0) {
    fprintf (stderr, "%s: %s\n", ops, e.msg);
    exit (1);
  }
  tn_ewise_chain_free (c);
  return p;
}

/* A STREAM-style in-place add, plain C at the bench's flags. */
static void __attribute__ ((noinline)) stream_add (float *a, size_t n)
{
  for (size_t i = 0; i < n; i++)
    a[i] = a[i] + 1.0f;
}

static double
gbs (double bytes, double *t, int n)
{
  return bytes / bench_median (t, n) / 1e9;
}

/* add:1 in place: element, core, STREAM loop, NumPy. */
static void
bench_add (BenchPeer *np, long n)
{
  char caps[160];
  double te[RUNS], tc[RUNS], ts[RUNS], tn[RUNS];
  float *a = bench_alloc (n * sizeof (float));
  float *a2 = bench_alloc (n * sizeof (float));
  tn_ewise *p = compile ("add:1", TN_FLOAT32, n);
  GstBuffer *buf = new_tensor_buffer (n * sizeof (float));
  double bytes = 2.0 * n * sizeof (float), e, c, s, nn;
  BenchRig r;

  memset (a, 0, n * sizeof (float));
  memset (a2, 0, n * sizeof (float));
  snprintf (caps, sizeof caps,
      "tensor/x-raw,type=float32,dims=<%ld>,dims-order=row-major,"
      "framerate=0/1",
      n);
  start_element (&r, "tensorop", "add:1", 1, caps);
  bench_rig_push (&r, buf);
  buf = bench_rig_take (&r);
  tn_ewise_run (p, a, a, 1);
  stream_add (a, n);
  bench_peer_run (np, "add", n);
  /* Each contender has an array of its own and runs twice untimed right
   * before its timed run: at 1M items (4 MiB, under the 8 MiB L3, which
   * on this CPU is a victim cache) one pass after other work does not
   * bring an array back whole, two do. */
  for (int i = 0; i < RUNS; i++) {
    for (int k = 0; k < 3; k++) {
      for (int pass = 0; pass < 3; pass++) {
        double t0 = bench_now ();

        if (k == 0) {
          bench_rig_push (&r, buf);
          buf = bench_rig_take (&r);
        } else if (k == 1) {
          tn_ewise_run (p, a, a, 1);
          bench_sink (a);
        } else {
          stream_add (a2, n);
          bench_sink (a2);
        }
        (k == 0 ? te : k == 1 ? tc : ts)[i] = bench_now () - t0;
      }
    }
    tn[i] = bench_peer_run (np, "add", n);
  }
  e = gbs (bytes, te, RUNS);
  c = gbs (bytes, tc, RUNS);
  s = gbs (bytes, ts, RUNS);
  printf ("add:1 float32 in place, %ldM items (8 bytes moved per item):\n",
      n >> 20);
  printf (
      "  tensorop %.2f GB/s, core %.2f GB/s, STREAM loop %.2f GB/s", e, c, s);
  if (tn[0] > 0) {
    nn = gbs (bytes, tn, RUNS);
    printf (", NumPy a += 1 %.2f GB/s\n", nn);
    printf ("  tensorop/STREAM %.2f (target >= 0.80), tensorop/NumPy %.2f "
            "(target >= 0.90); core/STREAM %.2f, core/NumPy %.2f\n",
        e / s, e / nn, c / s, c / nn);
  } else {
    printf ("\n  tensorop/STREAM %.2f (target >= 0.80); NumPy not "
            "available\n",
        e / s);
  }
  gst_buffer_unref (buf);
  bench_rig_stop (&r);
  tn_ewise_free (p);
  free (a);
  free (a2);
}

/* The chain as one hand-fused loop: the best a single pass can do. */
static void __attribute__ ((noinline)) fused_chain (float *a, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    float x = (a[i] - 127.5f) / 127.5f;

    a[i] = x < 0 ? 0 : x;
  }
}

static void
fill_bytes (float *a, long n)
{
  for (long i = 0; i < n; i++)
    a[i] = (float) (i % 256);
}

/* Three steps against one: blocked, the chain is still one pass. */
#define CHAIN_RUNS 31
static void
bench_chain (BenchPeer *np, long n)
{
  double t1[CHAIN_RUNS], td[CHAIN_RUNS], t3[CHAIN_RUNS], tv[CHAIN_RUNS];
  double tf[CHAIN_RUNS], tn[CHAIN_RUNS], r1, rd, rv;
  double l1[CHAIN_RUNS], l3[CHAIN_RUNS];
  tn_ewise *ps1, *ps3;
  float *a = bench_alloc (n * sizeof (float));
  tn_ewise *p1 = compile ("sub:127.5", TN_FLOAT32, n);
  tn_ewise *pd = compile ("div:127.5", TN_FLOAT32, n);
  tn_ewise *p3 = compile ("sub:127.5,div:127.5,relu", TN_FLOAT32, n), *pv;
  double m1, md, m3, mv, mf;

  /* The same chain dividing with vdivps (core/ewise-kern.c). */
  tn_ew_rdiv_allow (false);
  pv = compile ("sub:127.5,div:127.5,relu", TN_FLOAT32, n);
  tn_ew_rdiv_allow (true);

  /* Each round starts with the next contender: whoever follows NumPy's
   * process finds the caches cold, and no one should always be that.
   * Every run starts from the same bytes, so that none meets the zeros
   * or tiny values another one left (the division tests its input). */
  for (int i = 0; i < CHAIN_RUNS; i++) {
    tn_ewise *const ps[4] = { p1, pd, p3, pv };
    double *const ts[5] = { t1, td, t3, tv, tf };

    for (int j = 0; j < 5; j++) {
      int k = (i + j) % 5;
      double t0;

      fill_bytes (a, n);
      if (k < 4) {
        tn_ewise_run (ps[k], a, a, 1);
        fill_bytes (a, n);
        t0 = bench_now ();
        tn_ewise_run (ps[k], a, a, 1);
      } else {
        fused_chain (a, n);
        fill_bytes (a, n);
        t0 = bench_now ();
        fused_chain (a, n);
      }
      bench_sink (a);
      ts[k][i] = bench_now () - t0;
    }
    tn[i] = bench_peer_run (np, "chain", n);
  }
  /* The arithmetic alone: the same chains over 4096 items that stay in
   * L1, scaled to n; in place and again, so the items settle at values
   * that take no slow path (0 after the chain, -127.5 k after sub). */
  ps1 = compile ("sub:127.5", TN_FLOAT32, 4096);
  ps3 = compile ("sub:127.5,div:127.5,relu", TN_FLOAT32, 4096);
  for (int i = 0; i < CHAIN_RUNS; i++) {
    tn_ewise *const ps[2] = { ps1, ps3 };
    double *const ts[2] = { l1, l3 };

    for (int k = 0; k < 2; k++) {
      double t0;

      fill_bytes (a, 4096);
      tn_ewise_run (ps[k], a, a, 1);
      t0 = bench_now ();
      for (int r = 0; r < 1024; r++)
        tn_ewise_run (ps[k], a, a, 1);
      bench_sink (a);
      ts[k][i] = (bench_now () - t0) * n / (4096.0 * 1024);
    }
  }
  r1 = bench_ratio (t3, t1, CHAIN_RUNS);
  rd = bench_ratio (t3, td, CHAIN_RUNS);
  rv = bench_ratio (t3, tv, CHAIN_RUNS);
  m1 = bench_median (t1, CHAIN_RUNS);
  md = bench_median (td, CHAIN_RUNS);
  m3 = bench_median (t3, CHAIN_RUNS);
  mv = bench_median (tv, CHAIN_RUNS);
  mf = bench_median (tf, CHAIN_RUNS);
  printf ("sub:127.5,div:127.5,relu, float32 in place, %ldM items: %.3f ms; "
          "sub:127.5 %.3f ms, div:127.5 %.3f ms, the chain with vdivps "
          "%.3f ms, hand-fused C loop %.3f ms",
      n >> 20, 1e3 * m3, 1e3 * m1, 1e3 * md, 1e3 * mv, 1e3 * mf);
  if (tn[0] > 0)
    printf (", NumPy (3 passes) %.3f ms", 1e3 * bench_median (tn, CHAIN_RUNS));
  printf ("\n  per round: chain/sub %.2f (target <= 1.30), chain/div %.2f, "
          "chain/vdivps chain %.2f; of medians: chain/fused %.2f",
      r1, rd, rv, m3 / mf);
  if (tn[0] > 0)
    printf (", chain/NumPy %.2f", m3 / bench_median (tn, CHAIN_RUNS));
  printf ("\n  arithmetic alone (4096 items in L1, scaled): chain %.3f ms, "
          "sub %.3f ms; chain at %ldM / chain in L1 %.2f\n",
      1e3 * bench_median (l3, CHAIN_RUNS), 1e3 * bench_median (l1, CHAIN_RUNS),
      n >> 20, m3 / bench_median (l3, CHAIN_RUNS));
  tn_ewise_free (p1);
  tn_ewise_free (pd);
  tn_ewise_free (p3);
  tn_ewise_free (pv);
  tn_ewise_free (ps1);
  tn_ewise_free (ps3);
  free (a);
}

/* uint8 frames to float32 in [-1, 1]: element, core, NumPy. */
static void
bench_normalise (BenchPeer *np, int h, int w)
{
  long n = (long) h * w * 3;
  const char *ops = "cast:float32,sub:127.5,div:127.5";
  double te[RUNS], tc[RUNS], tn[RUNS], bytes = 5.0 * n;
  guint8 *u = bench_alloc (n);
  float *f = bench_alloc (n * sizeof (float));
  int64_t dims[3] = { h, w, 3 };
  tn_ewise_chain *c;
  tn_ewise *p;
  char caps[160];
  GstBuffer *in = new_tensor_buffer (n), *out;
  tn_err e;
  BenchRig r;

  for (long i = 0; i < n; i++)
    u[i] = (guint8) i;
  tn_ewise_chain_parse (ops, &c, &e);
  tn_ewise_compile (c, TN_UINT8, dims, 3, &p, &e);
  tn_ewise_chain_free (c);
  snprintf (caps, sizeof caps,
      "tensor/x-raw,type=uint8,dims=<%d,%d,3>,dims-order=row-major,"
      "framerate=0/1",
      h, w);
  start_element (&r, "tensorop", ops, 1, caps);
  tn_ewise_run (p, f, u, 1);
  bench_peer_run (np, "norm", n);
  for (int i = 0; i < RUNS; i++) {
    double t0;

    /* The output comes from tensorop's pool (uint8 -> float32 widens). */
    bench_rig_push (&r, gst_buffer_ref (in));
    gst_buffer_unref (bench_rig_take (&r));
    t0 = bench_now ();
    bench_rig_push (&r, gst_buffer_ref (in));
    out = bench_rig_take (&r);
    te[i] = bench_now () - t0;
    gst_buffer_unref (out);
    tn_ewise_run (p, f, u, 1);
    t0 = bench_now ();
    tn_ewise_run (p, f, u, 1);
    bench_sink (f);
    tc[i] = bench_now () - t0;
    tn[i] = bench_peer_run (np, "norm", n);
  }
  printf ("%s, uint8 %dx%dx3: tensorop %.3f ms (%.2f GB/s), core %.3f ms", ops,
      h, w, 1e3 * bench_median (te, RUNS), gbs (bytes, te, RUNS),
      1e3 * bench_median (tc, RUNS));
  if (tn[0] > 0)
    printf (", NumPy %.3f ms; tensorop/NumPy time ratio %.2f\n",
        1e3 * bench_median (tn, RUNS),
        bench_median (te, RUNS) / bench_median (tn, RUNS));
  else
    printf ("\n");
  gst_buffer_unref (in);
  bench_rig_stop (&r);
  tn_ewise_free (p);
  free (u);
  free (f);
}

/* ---- ORC against the compiler, kernel by kernel ---- */

typedef struct {
  const char *name;
  const char *ops; /* the same work as an ewise chain */
  tn_dtype in;
  int in_size;
} OrcCase;

static OrcProgram *
orc_make (int k)
{
  OrcProgram *p = orc_program_new ();

  switch (k) {
  case 4: /* multiply by a constant */
    orc_program_add_destination (p, 4, "d1");
    orc_program_add_source (p, 4, "s1");
    orc_program_add_constant_float (p, 4, 0.5f, "c1");
    orc_program_append_str (p, "mulf", "d1", "s1", "c1");
    break;
  case 0: /* add a constant */
    orc_program_add_destination (p, 4, "d1");
    orc_program_add_source (p, 4, "s1");
    orc_program_add_constant_float (p, 4, 1.0f, "c1");
    orc_program_append_str (p, "addf", "d1", "s1", "c1");
    break;
  case 1: /* scale and offset */
    orc_program_add_destination (p, 4, "d1");
    orc_program_add_source (p, 4, "s1");
    orc_program_add_temporary (p, 4, "t1");
    orc_program_add_constant_float (p, 4, 0.5f, "c1");
    orc_program_add_constant_float (p, 4, 3.0f, "c2");
    orc_program_append_str (p, "mulf", "t1", "s1", "c1");
    orc_program_append_str (p, "addf", "d1", "t1", "c2");
    break;
  case 2: /* uint8 -> float32 */
    orc_program_add_destination (p, 4, "d1");
    orc_program_add_source (p, 1, "s1");
    orc_program_add_temporary (p, 2, "t1");
    orc_program_add_temporary (p, 4, "t2");
    orc_program_append_ds_str (p, "convubw", "t1", "s1");
    orc_program_append_ds_str (p, "convuwl", "t2", "t1");
    orc_program_append_ds_str (p, "convlf", "d1", "t2");
    break;
  default: /* uint8 -> float32, normalised */
    orc_program_add_destination (p, 4, "d1");
    orc_program_add_source (p, 1, "s1");
    orc_program_add_temporary (p, 2, "t1");
    orc_program_add_temporary (p, 4, "t2");
    orc_program_add_temporary (p, 4, "t3");
    orc_program_add_constant_float (p, 4, 127.5f, "c1");
    orc_program_append_ds_str (p, "convubw", "t1", "s1");
    orc_program_append_ds_str (p, "convuwl", "t2", "t1");
    orc_program_append_ds_str (p, "convlf", "t3", "t2");
    orc_program_append_str (p, "subf", "t3", "t3", "c1");
    orc_program_append_str (p, "divf", "d1", "t3", "c1");
    break;
  }
  if (!ORC_COMPILE_RESULT_IS_SUCCESSFUL (orc_program_compile (p))) {
    fprintf (stderr, "ORC program %d did not compile\n", k);
    exit (1);
  }
  return p;
}

static void
bench_orc (long n)
{
  static const OrcCase cases[] = {
    { "add 1.0, float32", "add:1", TN_FLOAT32, 4 },
    { "scale/offset x*0.5+3, float32", "mul:0.5,add:3", TN_FLOAT32, 4 },
    { "cast uint8 -> float32", "cast:float32", TN_UINT8, 1 },
    { "uint8 -> (x-127.5)/127.5 float32", "cast:float32,sub:127.5,div:127.5",
        TN_UINT8, 1 },
    { "mul 0.5, float32 (1% subnormal)", "mul:0.5", TN_FLOAT32, 4 },
  };

  printf ("ORC %s against the compiler's kernels, %ldK items, out of place "
          "(ms, median; lower wins):\n",
      orc_version_string (), n >> 10);
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++) {
    OrcProgram *op = orc_make ((int) k);
    OrcExecutor *ex = orc_executor_new (op);
    guint8 *src = bench_alloc (n * 4);
    float *dst = bench_alloc (n * 4), *ref = bench_alloc (n * 4);
    float *ref2 = bench_alloc (n * 4);
    tn_ewise *pa, *pp;
    double to[RUNS], ta[RUNS], tp[RUNS];
    unsigned old;
    long diff = 0;

    for (long i = 0; i < n * 4; i++)
      src[i] = (guint8) (i * 7);
    if (cases[k].in == TN_FLOAT32)
      for (long i = 0; i < n; i++)
        ((float *) src)[i] = (float) (i % 1000) * 0.25f;
    /* ORC's float opcodes flush subnormals to zero; IEEE keeps them. */
    if (strstr (cases[k].name, "subnormal"))
      for (long i = 0; i < n; i += 100)
        ((float *) src)[i] = 3e-39f;
    /* A chain keeps the kernels of the mask it was compiled under. */
    pa = compile (cases[k].ops, cases[k].in, n);
    old = tn_cpu_set_mask (0);
    pp = compile (cases[k].ops, cases[k].in, n);
    tn_cpu_set_mask (old);
    orc_executor_set_n (ex, (int) n);
    orc_executor_set_array_str (ex, "s1", src);
    orc_executor_set_array_str (ex, "d1", dst);
    /* Each writes a buffer of its own, timed on its third pass (see
     * bench_add). */
    for (int i = 0; i < RUNS; i++) {
      for (int k = 0; k < 3; k++) {
        for (int pass = 0; pass < 3; pass++) {
          double t0 = bench_now ();

          if (k == 0)
            orc_executor_run (ex);
          else if (k == 1)
            tn_ewise_run (pa, ref, src, 1);
          else
            tn_ewise_run (pp, ref2, src, 1);
          bench_sink (k == 0 ? dst : k == 1 ? ref : ref2);
          (k == 0 ? to : k == 1 ? ta : tp)[i] = bench_now () - t0;
        }
      }
    }
    orc_executor_run (ex);
    tn_ewise_run (pa, ref, src, 1);
    for (long i = 0; i < n; i++)
      diff += memcmp (&dst[i], &ref[i], 4) != 0;
    printf ("  %-34s ORC %.3f  AVX2 %.3f  portable %.3f  ORC/AVX2 %.2f  "
            "(%ld of %ld results differ in bits)\n",
        cases[k].name, 1e3 * bench_median (to, RUNS),
        1e3 * bench_median (ta, RUNS), 1e3 * bench_median (tp, RUNS),
        bench_median (to, RUNS) / bench_median (ta, RUNS), diff, n);
    orc_executor_free (ex);
    orc_program_free (op);
    tn_ewise_free (pa);
    tn_ewise_free (pp);
    free (src);
    free (dst);
    free (ref);
    free (ref2);
  }
}

/* The cost of one buffer of 16 items: tensorop against identity. */
static void
bench_overhead (void)
{
  const char *caps = "tensor/x-raw,type=float32,dims=<16>,"
                     "dims-order=row-major,framerate=0/1";
  const int pushes = 20000;
  double to[RUNS], ti[RUNS];
  GstBuffer *bo = new_tensor_buffer (64), *bi = new_tensor_buffer (64);
  BenchRig ro, ri;

  start_element (&ro, "tensorop", "add:1", 1, caps);
  start_element (&ri, "identity", NULL, 1, caps);
  for (int i = 0; i < RUNS; i++) {
    double t0 = bench_now ();

    for (int k = 0; k < pushes; k++) {
      bench_rig_push (&ro, bo);
      bo = bench_rig_take (&ro);
    }
    to[i] = (bench_now () - t0) / pushes;
    t0 = bench_now ();
    for (int k = 0; k < pushes; k++) {
      bench_rig_push (&ri, bi);
      bi = bench_rig_take (&ri);
    }
    ti[i] = (bench_now () - t0) / pushes;
  }
  printf ("per buffer, float32 <16>: tensorop add:1 %.0f ns, identity %.0f "
          "ns, ratio %.2f (target <= 1.50)\n",
      1e9 * bench_median (to, RUNS), 1e9 * bench_median (ti, RUNS),
      bench_median (to, RUNS) / bench_median (ti, RUNS));
  gst_buffer_unref (bo);
  gst_buffer_unref (bi);
  bench_rig_stop (&ro);
  bench_rig_stop (&ri);
}

/* Large casts out of place, against memcpy of the output bytes (the
 * goal: at least 0.8 of its speed): tensorop (its output from the pool,
 * warm), the core plan into a warm buffer of its own, the same on a
 * fresh buffer each run (page faults included: what an output without a
 * pool costs) and on transparent huge pages.  memcpy copies out_bytes
 * from a warm source into a warm destination. */
static void
bench_cast (long n)
{
  static const struct {
    const char *name, *ops, *type;
    tn_dtype in;
    size_t isz, osz;
  } cases[] = {
    { "uint8 -> float32", "cast:float32", "uint8", TN_UINT8, 1, 4 },
    { "float32 -> float16", "cast:float16", "float32", TN_FLOAT32, 4, 2 },
    { "float32 -> bfloat16", "cast:bfloat16", "float32", TN_FLOAT32, 4, 2 },
  };

  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++) {
    size_t ib = n * cases[k].isz, ob = n * cases[k].osz;
    unsigned char *src = bench_alloc (ib), *dst = bench_alloc (ob);
    unsigned char *ma = bench_alloc (ob), *mb = bench_alloc (ob);
    tn_ewise *p = compile (cases[k].ops, cases[k].in, n);
    GstBuffer *buf = new_tensor_buffer (ib);
    double te[RUNS], tc[RUNS], tf[RUNS], tm[RUNS];
    char caps[160];
    BenchRig r;

    for (size_t i = 0; i < ib; i++)
      src[i] = (unsigned char) (i * 7);
    if (cases[k].in == TN_FLOAT32)
      for (long i = 0; i < n; i++)
        ((float *) src)[i] = (float) (i % 1000) * 0.37f - 100.0f;
    gst_buffer_fill (buf, 0, src, ib);
    memset (dst, 0, ob);
    memset (ma, 1, ob);
    memset (mb, 0, ob);
    snprintf (caps, sizeof caps,
        "tensor/x-raw,type=%s,dims=<%ld>,dims-order=row-major,"
        "framerate=0/1",
        cases[k].type, n);
    start_element (&r, "tensorop", cases[k].ops, 1, caps);
    /* The input stays ours (not writable): tensorop writes a pool
     * buffer, warm after the first two. */
    for (int i = 0; i < 2; i++) {
      bench_rig_push (&r, gst_buffer_ref (buf));
      gst_buffer_unref (bench_rig_take (&r));
    }
    for (int i = 0; i < RUNS; i++) {
      for (int c = 0; c < 4; c++) {
        for (int pass = 0; pass < 2; pass++) {
          double t0 = bench_now ();

          if (c == 0) {
            bench_rig_push (&r, gst_buffer_ref (buf));
            gst_buffer_unref (bench_rig_take (&r));
          } else if (c == 1) {
            tn_ewise_run (p, dst, src, 1);
            bench_sink (dst);
          } else if (c == 2) {
            unsigned char *f = malloc (ob);

            tn_ewise_run (p, f, src, 1);
            bench_sink (f);
            free (f);
          } else {
            memcpy (mb, ma, ob);
            bench_sink (mb);
          }
          (c == 0 ? te : c == 1 ? tc : c == 2 ? tf : tm)[i] = bench_now () - t0;
        }
      }
    }
    /* The work compared is the same: tensorop's bytes are the core's. */
    {
      GstBuffer *o;
      GstMapInfo m;

      bench_rig_push (&r, gst_buffer_ref (buf));
      o = bench_rig_take (&r);
      gst_buffer_map (o, &m, GST_MAP_READ);
      if (m.size != ob || memcmp (m.data, dst, ob) != 0) {
        fprintf (stderr, "cast %s: tensorop and core differ\n", cases[k].name);
        exit (1);
      }
      gst_buffer_unmap (o, &m);
      gst_buffer_unref (o);
    }
    printf ("cast %s, %ldM items (memcpy of %zu MiB output bytes "
            "%.3f ms): fraction of memcpy speed: tensorop %.2f, core %.2f, "
            "core fresh buffer %.2f (target >= 0.80)\n",
        cases[k].name, n >> 20, ob >> 20, 1e3 * bench_median (tm, RUNS),
        bench_ratio (tm, te, RUNS), bench_ratio (tm, tc, RUNS),
        bench_ratio (tm, tf, RUNS));
    gst_buffer_unref (buf);
    bench_rig_stop (&r);
    tn_ewise_free (p);
    free (src);
    free (dst);
    free (ma);
    free (mb);
  }
}

/* n-threads=2 against 1 at 16M items, one step and three. */
static void
bench_threads (long n)
{
  static const char *const chains[]
      = { "add:1", "sub:127.5,div:127.5,relu", "mul:1.5,sigmoid" };
  float *a = bench_alloc (n * sizeof (float));

  memset (a, 0, n * sizeof (float));
  for (size_t k = 0; k < G_N_ELEMENTS (chains); k++) {
    tn_ewise *p = compile (chains[k], TN_FLOAT32, n);
    double t1[RUNS], t2[RUNS];

    tn_ewise_run (p, a, a, 2);
    for (int i = 0; i < RUNS; i++) {
      double t0 = bench_now ();

      tn_ewise_run (p, a, a, 1);
      bench_sink (a);
      t1[i] = bench_now () - t0;
      t0 = bench_now ();
      tn_ewise_run (p, a, a, 2);
      bench_sink (a);
      t2[i] = bench_now () - t0;
    }
    printf ("n-threads 2 vs 1, %s, float32 %ldM in place: %.2f ms vs %.2f "
            "ms, speed-up %.2f\n",
        chains[k], n >> 20, 1e3 * bench_median (t2, RUNS),
        1e3 * bench_median (t1, RUNS),
        bench_median (t1, RUNS) / bench_median (t2, RUNS));
    tn_ewise_free (p);
  }
  free (a);
}

/* bench_ewise [add chain normalise orc overhead threads]: all without
 * arguments. */
static gboolean
want (int argc, char **argv, const char *name)
{
  if (argc < 2)
    return TRUE;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return TRUE;
  return FALSE;
}

int
main (int argc, char **argv)
{
  BenchPeer np;
  char cpus[32];

  FILE *la = fopen ("/proc/loadavg", "r");
  char load[64] = "?";

  gst_init (&argc, &argv);
  orc_init ();
  if (la) {
    if (fgets (load, sizeof load, la))
      load[strcspn (load, "\n")] = '\0';
    fclose (la);
  }
  printf ("load average at start: %s\n", load);
  if (bench_peer_start (&np, numpy_script) == 0)
    printf ("NumPy %s (/usr/bin/python3), kernels: %s\n", np.version,
        tn_cpu_names (tn_cpu_flags (), cpus, sizeof cpus));
  else
    printf ("NumPy not available: install python3-numpy\n");

  if (want (argc, argv, "add")) {
    bench_add (&np, 1L << 20);
    bench_add (&np, 16L << 20);
  }
  if (want (argc, argv, "chain")) {
    bench_chain (&np, 1L << 20);
    bench_chain (&np, 16L << 20);
  }
  if (want (argc, argv, "normalise")) {
    bench_normalise (&np, 480, 640);
    bench_normalise (&np, 1080, 1920);
  }
  if (want (argc, argv, "orc")) {
    bench_orc (1L << 16);
    bench_orc (1L << 20);
  }
  if (want (argc, argv, "overhead"))
    bench_overhead ();
  if (want (argc, argv, "cast")) {
    bench_cast (1L << 20);
    bench_cast (16L << 20);
  }
  if (want (argc, argv, "threads"))
    bench_threads (16L << 20);
  bench_peer_stop (&np);
  return 0;
}
