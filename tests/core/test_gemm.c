/* tn_matmul and its GEMM: NumPy golden products (tests/data/gen_matmul.py)
 * for every supported dtype on both micro-kernel sets, identities that must
 * hold (bit-identical across thread counts, packed once = packed per call,
 * strided = materialized), and every error message.
 *
 * Operands live in blocks of exactly their size, so under ASan a read past
 * the end of an odd-sized operand fails the test. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/view.h"
#include "tests/common/npyread.h"
#include "ftz.h"

/* The golden tests run on the portable kernels (isa 0: CPU mask 0), on
 * all this CPU has but AVX-512 (isa 1: the AVX2 level, whose tile is the
 * portable one) and on all it has (isa 2: AVX-512's own tile, where the
 * CPU has it); checkasm compares the kernels themselves.  Returns the CPU
 * flags in use; *old gets the mask to restore. */
#define NISA 3

static unsigned
use_isa (int isa, unsigned *old)
{
  static const unsigned masks[NISA] = { 0, ~(unsigned) TN_CPU_AVX512, ~0u };
  unsigned prev = tn_cpu_set_mask (masks[isa]);

  if (isa == 0)
    *old = prev;
  return tn_cpu_flags ();
}

typedef struct {
  tn_view v;
  void *data; /* exactly the items of v, dense */
} arr;

static void
arr_free (arr *x)
{
  g_free (x->data);
  x->data = NULL;
}

/* An array of dtype t and dims, its *n items not yet written. */
static arr
arr_new (tn_dtype t, const int64_t *dims, int rank, int64_t *n)
{
  arr x;

  tn_view_init (&x.v, t, dims, rank, NULL);
  *n = tn_view_count (&x.v);
  x.data = g_malloc (*n * tn_dtype_size (t) + 1);
  return x;
}

/* The tests' generator: the next of a linear congruential sequence. */
static inline uint32_t
lcg (uint32_t seed)
{
  return seed * 1664525u + 1013904223u;
}

/* A .npy file of tests/data as a dense array in its own block. */
static arr
load (const char *name)
{
  Npy a;
  tn_err e;
  arr x;

  npy_load (&a, name);
  g_assert_cmpint (tn_view_init (&x.v, a.dtype, a.dims, a.rank, &e), ==, 0);
  x.data = g_malloc (a.size ? a.size : 1);
  memcpy (x.data, a.data, a.size);
  npy_clear (&a);
  return x;
}

static arr
loadf (const char *fmt, const char *a)
{
  gchar *n = g_strdup_printf (fmt, a);
  arr x = load (n);

  g_free (n);
  return x;
}

/* The float32 master values as dtype t (exact: they are small integers). */
static arr
convert (const arr *src, tn_dtype t)
{
  int64_t n = tn_view_count (&src->v);
  const float *s = src->data;
  arr x = *src;

  x.v.dtype = t;
  x.data = g_malloc (n * tn_dtype_size (t) + (n == 0));
  for (int64_t i = 0; i < n; i++)
    switch (t) {
    case TN_FLOAT32:
      ((float *) x.data)[i] = s[i];
      break;
    case TN_FLOAT64:
      ((double *) x.data)[i] = s[i];
      break;
    case TN_FLOAT16:
      ((uint16_t *) x.data)[i] = tn_f32_to_f16 (s[i]);
      break;
    case TN_BFLOAT16:
      ((uint16_t *) x.data)[i] = tn_f32_to_bf16 (s[i]);
      break;
    case TN_INT8:
      ((int8_t *) x.data)[i] = (int8_t) s[i];
      break;
    case TN_INT32:
      ((int32_t *) x.data)[i] = (int32_t) s[i];
      break;
    default:
      g_assert_not_reached ();
    }
  return x;
}

typedef struct {
  const char *name;
  bool ta, tb, bias;
} golden_case;

/* The cases of gen_matmul.py. */
static const golden_case golden[] = {
  { "square", false, false, false },
  { "tall", false, false, false },
  { "wide", false, false, false },
  { "k1", false, false, false },
  { "odd", false, false, false },
  { "mbig", false, false, false },
  { "nbig", false, false, false },
  { "vecmat", false, false, false },
  { "matvec", false, false, false },
  { "vecvec", false, false, false },
  { "batch", false, false, false },
  { "trans", true, true, false },
  { "transbatch", true, false, true },
  { "bias", false, false, true },
  { "biascol", false, false, true },
  { "biasvec", false, false, true },
  { "k0", false, false, true },
};

static const tn_dtype types[]
    = { TN_FLOAT32, TN_FLOAT64, TN_FLOAT16, TN_BFLOAT16, TN_INT8 };

/* Runs one golden case in dtype t with nthreads; returns the product. */
static void *
run_golden (
    const golden_case *c, tn_dtype t, int nthreads, bool packed, int64_t *count)
{
  arr a0 = loadf ("matmul_%s_a.npy", c->name);
  arr b0 = loadf ("matmul_%s_b.npy", c->name);
  arr a = convert (&a0, t), b = convert (&b0, t), bias = { 0 };
  tn_dtype ot;
  int64_t od[TN_MAX_RANK];
  int orank;
  tn_matmul_args args = { 0 };
  tn_gemm_b *pb = NULL;
  tn_err e;
  void *out;

  g_assert_cmpint (tn_matmul_dtype (t, t, &ot, &e), ==, 0);
  if (c->bias) {
    arr bias0 = loadf ("matmul_%s_bias.npy", c->name);

    bias = convert (&bias0, ot);
    arr_free (&bias0);
  }
  g_assert_cmpint (tn_matmul_dims (a.v.dims, a.v.rank, c->ta, b.v.dims,
                       b.v.rank, c->tb, od, &orank, &e),
      ==, 0);
  tn_shape_count (od, orank, count, NULL);
  out = g_malloc (*count * tn_dtype_size (ot) + 1);
  args.a = &a.v;
  args.a_base = a.data;
  args.ta = c->ta;
  if (packed) {
    pb = tn_gemm_b_pack (nthreads, &b.v, b.data, c->tb, &e);
    g_assert_nonnull (pb);
    args.packed_b = pb;
  } else {
    args.b = &b.v;
    args.b_base = b.data;
    args.tb = c->tb;
  }
  if (c->bias) {
    args.bias = &bias.v;
    args.bias_base = bias.data;
  }
  args.out = out;
  args.nthreads = nthreads;
  if (tn_matmul (&args, &e) != 0)
    g_error ("%s: %s", c->name, e.msg);
  tn_gemm_b_free (pb);
  arr_free (&a0);
  arr_free (&b0);
  arr_free (&a);
  arr_free (&b);
  arr_free (&bias);
  return out;
}

/* Items [0, count) of out, of dtype ot, against the golden STEM_out.npy
 * (float32) and its float16 and bfloat16 roundings STEM_out_f16.npy and
 * STEM_out_bf16.npy; with whole, the golden holds count items exactly. */
static void
check_out (const char *stem, tn_dtype ot, const void *out, int64_t count,
    gboolean whole)
{
  arr want = loadf ("%s_out.npy", stem);
  arr w16 = loadf ("%s_out_f16.npy", stem);
  arr wbf = loadf ("%s_out_bf16.npy", stem);
  const float *w = want.data;

  if (whole)
    g_assert_cmpint (tn_view_count (&want.v), ==, count);
  for (int64_t i = 0; i < count; i++) {
    uint32_t bits;

    switch (ot) {
    case TN_FLOAT32:
      g_assert_cmpfloat (((const float *) out)[i], ==, w[i]);
      break;
    case TN_FLOAT64:
      g_assert_cmpfloat (((const double *) out)[i], ==, w[i]);
      break;
    case TN_INT32:
      g_assert_cmpint (((const int32_t *) out)[i], ==, (int32_t) w[i]);
      break;
    case TN_FLOAT16:
      g_assert_cmphex (
          ((const uint16_t *) out)[i], ==, ((const uint16_t *) w16.data)[i]);
      break;
    case TN_BFLOAT16:
      memcpy (&bits, (const float *) wbf.data + i, 4);
      g_assert_cmphex (((const uint16_t *) out)[i], ==, bits >> 16);
      break;
    default:
      g_assert_not_reached ();
    }
  }
  arr_free (&want);
  arr_free (&w16);
  arr_free (&wbf);
}

/* The product of golden case c on inputs of dtype t (int8 gives int32). */
static void
check_golden (const golden_case *c, tn_dtype t, const void *out, int64_t count)
{
  gchar *stem = g_strdup_printf ("matmul_%s", c->name);

  check_out (stem, t == TN_INT8 ? TN_INT32 : t, out, count, TRUE);
  g_free (stem);
}

static void
test_golden (gconstpointer data)
{
  const golden_case *c = data;
  unsigned old;

  for (int isa = 0; isa < NISA; isa++) {
    use_isa (isa, &old);
    for (size_t i = 0; i < G_N_ELEMENTS (types); i++) {
      int64_t count;
      void *out = run_golden (c, types[i], 1, false, &count);

      check_golden (c, types[i], out, count);
      g_free (out);
      /* B packed beforehand, as for constant weights, on 2 threads. */
      out = run_golden (c, types[i], 2, true, &count);
      check_golden (c, types[i], out, count);
      g_free (out);
    }
  }
  tn_cpu_set_mask (old);
}

/* Real values: float64 within 1e-12 of NumPy, float32 (inputs rounded to
 * float32 first) within 1e-4 relative to the size of the terms. */
static void
test_random (void)
{
  arr a = load ("matmul_rand_a.npy"), b = load ("matmul_rand_b.npy");
  arr want = load ("matmul_rand_out.npy");
  const double *w = want.data, *ad = a.data, *bd = b.data;
  int64_t m = 33, k = 300, n = 45;
  unsigned old;

  for (int isa = 0; isa < NISA; isa++) {
    tn_matmul_args args = { 0 };
    double *o64 = g_new (double, m *n);
    float *o32 = g_new (float, m *n);
    float *a32 = g_new (float, m *k), *b32 = g_new (float, k *n);
    tn_view va = a.v, vb = b.v;

    use_isa (isa, &old);
    args.a = &a.v;
    args.a_base = a.data;
    args.b = &b.v;
    args.b_base = b.data;
    args.out = o64;
    g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
    for (int64_t i = 0; i < m * k; i++)
      a32[i] = (float) ad[i];
    for (int64_t i = 0; i < k * n; i++)
      b32[i] = (float) bd[i];
    va.dtype = vb.dtype = TN_FLOAT32;
    args.a = &va;
    args.a_base = a32;
    args.b = &vb;
    args.b_base = b32;
    args.out = o32;
    g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double mag = 0;

        for (int64_t p = 0; p < k; p++)
          mag += fabs (ad[i * k + p] * bd[p * n + j]);
        g_assert_cmpfloat_with_epsilon (
            o64[i * n + j], w[i * n + j], 1e-12 * mag);
        g_assert_cmpfloat_with_epsilon (
            o32[i * n + j], w[i * n + j], 1e-6 * mag);
      }
    g_free (o64);
    g_free (o32);
    g_free (a32);
    g_free (b32);
  }
  tn_cpu_set_mask (old);
  arr_free (&a);
  arr_free (&b);
  arr_free (&want);
}

/* int8 over its whole range (-128 * -128 included): exact int32. */
static void
test_int8_full (void)
{
  arr a = load ("matmul_i8full_a.npy"), b = load ("matmul_i8full_b.npy");
  arr want = load ("matmul_i8full_out.npy");
  unsigned old;

  g_assert_cmpint (want.v.dtype, ==, TN_INT32);
  for (int isa = 0; isa < NISA; isa++) {
    tn_matmul_args args = { 0 };
    int32_t *out = g_new (int32_t, 19 * 23);

    use_isa (isa, &old);
    args.a = &a.v;
    args.a_base = a.data;
    args.b = &b.v;
    args.b_base = b.data;
    args.out = out;
    g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
    g_assert_cmpmem (out, 19 * 23 * 4, want.data, 19 * 23 * 4);
    g_free (out);
  }
  tn_cpu_set_mask (old);
  arr_free (&a);
  arr_free (&b);
  arr_free (&want);
}

/* Deterministic values with fractional parts, so that the order of the
 * sums shows in the bits. */
static arr
pseudo (tn_dtype t, const int64_t *dims, int rank, uint32_t seed)
{
  int64_t n;
  arr x = arr_new (t, dims, rank, &n);

  for (int64_t i = 0; i < n; i++) {
    float v;

    seed = lcg (seed);
    v = (float) ((int32_t) (seed >> 8) % 2000) / 337.0f;
    switch (t) {
    case TN_FLOAT32:
      ((float *) x.data)[i] = v;
      break;
    case TN_FLOAT64:
      ((double *) x.data)[i] = v / 3.0;
      break;
    case TN_FLOAT16:
      ((uint16_t *) x.data)[i] = tn_f32_to_f16 (v);
      break;
    case TN_BFLOAT16:
      ((uint16_t *) x.data)[i] = tn_f32_to_bf16 (v);
      break;
    case TN_INT8:
      ((int8_t *) x.data)[i] = (int8_t) (seed >> 24);
      break;
    case TN_INT32:
      ((int32_t *) x.data)[i] = (int32_t) (seed >> 16);
      break;
    default:
      g_assert_not_reached ();
    }
  }
  return x;
}

/* args's product into out with each thread count of thr, B packed by
 * the call and packed once (pb): every time the bits of ref. */
static void
check_every_way (tn_matmul_args *args, const tn_gemm_b *pb, const int *thr,
    size_t nthr, void *out, const void *ref, size_t bytes)
{
  for (size_t i = 0; i < nthr; i++)
    for (int packed = 0; packed < 2; packed++) {
      memset (out, 0x55, bytes);
      args->nthreads = thr[i];
      args->packed_b = packed ? pb : NULL;
      args->out = out;
      g_assert_cmpint (tn_matmul (args, NULL), ==, 0);
      g_assert_cmpmem (out, bytes, ref, bytes);
    }
}

/* Same bits on 1, 2, 3, 5 and 8 threads, with B packed per call or once,
 * transposed A and a bias; k spans several k blocks, m and n several
 * blocks and ragged edges (m 233: more than every level's mc, float64's
 * 216 on AVX2 included; n 530: more than an nc of 512, and on 2 threads
 * and up split below AVX-512 float32's 1024). */
static void
test_threads (void)
{
  const int64_t ad[] = { 2, 701, 233 }, bd[] = { 701, 530 }, cd[] = { 530 };

  for (size_t ti = 0; ti < G_N_ELEMENTS (types); ti++) {
    tn_dtype t = types[ti], ot;
    arr a = pseudo (t, ad, 3, 1), b = pseudo (t, bd, 2, 2), bias;
    tn_matmul_args args = { 0 };
    size_t bytes;
    void *ref, *out;
    tn_gemm_b *pb;
    static const int thr[] = { 1, 2, 3, 5, 8 };

    tn_matmul_dtype (t, t, &ot, NULL);
    bias = pseudo (ot, cd, 1, 3);
    bytes = 2 * 233 * 530 * tn_dtype_size (ot);
    ref = g_malloc (bytes);
    out = g_malloc (bytes);
    args.a = &a.v;
    args.a_base = a.data;
    args.ta = true;
    args.b = &b.v;
    args.b_base = b.data;
    args.bias = &bias.v;
    args.bias_base = bias.data;
    args.out = ref;
    args.nthreads = 1;
    g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
    pb = tn_gemm_b_pack (3, &b.v, b.data, false, NULL);
    check_every_way (&args, pb, thr, G_N_ELEMENTS (thr), out, ref, bytes);
    tn_gemm_b_free (pb);
    g_free (ref);
    g_free (out);
    arr_free (&a);
    arr_free (&b);
    arr_free (&bias);
  }
}

/* A batched B packed per call is packed by the first items of the
 * tasks' job: 301 products give 301 packing items and 301 tasks, more
 * than the pool's 256 chunks, so a chunk holds both kinds.  On every
 * level and 1, 2, 3 and 5 threads, the bits of the products made one
 * matrix at a time. */
static void
test_batched_b (void)
{
  enum { NB = 301, M = 13, K = 20, N = 17 };
  const int64_t ad[] = { NB, M, K }, bd[] = { NB, K, N };
  const int64_t a1[] = { M, K }, b1[] = { K, N };
  arr a = pseudo (TN_FLOAT32, ad, 3, 21), b = pseudo (TN_FLOAT32, bd, 3, 22);
  const size_t items = NB * M * N, bytes = items * sizeof (float);
  float *ref = g_new (float, items), *out = g_new (float, items);
  static const int thr[] = { 1, 2, 3, 5 };
  unsigned old;

  for (int isa = 0; isa < NISA; isa++) {
    tn_matmul_args args = { 0 };
    tn_view va, vb;

    use_isa (isa, &old);
    tn_view_init (&va, TN_FLOAT32, a1, 2, NULL);
    tn_view_init (&vb, TN_FLOAT32, b1, 2, NULL);
    args.a = &va;
    args.b = &vb;
    args.nthreads = 1;
    for (int i = 0; i < NB; i++) {
      args.a_base = (const float *) a.data + i * M * K;
      args.b_base = (const float *) b.data + i * K * N;
      args.out = ref + i * M * N;
      g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
    }
    args.a = &a.v;
    args.a_base = a.data;
    args.b = &b.v;
    args.b_base = b.data;
    args.out = out;
    for (size_t i = 0; i < G_N_ELEMENTS (thr); i++) {
      memset (out, 0x55, bytes);
      args.nthreads = thr[i];
      g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
      g_assert_cmpmem (out, bytes, ref, bytes);
    }
  }
  tn_cpu_set_mask (old);
  g_free (ref);
  g_free (out);
  arr_free (&a);
  arr_free (&b);
}

/* Views that are not dense (a stepped slice of A, a broadcast B, a
 * Fortran-order bias) give the bits of their materialized copies. */
static void
test_strided (void)
{
  const int64_t ad[] = { 40, 50 }, bd[] = { 25, 13 }, cd[] = { 9, 13 };
  arr a = pseudo (TN_FLOAT32, ad, 2, 11), b = pseudo (TN_FLOAT32, bd, 2, 12);
  arr bias = pseudo (TN_FLOAT32, cd, 2, 13);
  tn_view va = a.v, vb = b.v, vbias = bias.v, da, db, dbias;
  float *ca, *cb, *cbias, o1[3 * 9 * 13], o2[3 * 9 * 13];
  const int64_t bb[] = { 3, 25, 13 };
  tn_matmul_args args = { 0 };

  g_assert_cmpint (tn_view_slice (&va, 0, 1, 28, 3, NULL), ==, 0); /* 9 */
  g_assert_cmpint (tn_view_slice (&va, 1, 0, 50, 2, NULL), ==, 0); /* 25 */
  g_assert_cmpint (tn_view_broadcast (&vb, bb, 3, NULL), ==, 0);
  vbias.strides[0] = 1; /* read the 9 x 13 storage in Fortran order */
  vbias.strides[1] = 9;
  ca = g_new (float, 9 * 25);
  cb = g_new (float, 3 * 25 * 13);
  cbias = g_new (float, 9 * 13);
  tn_view_materialize (ca, a.data, &va);
  tn_view_materialize (cb, b.data, &vb);
  tn_view_materialize (cbias, bias.data, &vbias);
  tn_view_init (&da, TN_FLOAT32, va.dims, 2, NULL);
  tn_view_init (&db, TN_FLOAT32, vb.dims, 3, NULL);
  tn_view_init (&dbias, TN_FLOAT32, cd, 2, NULL);

  args.a = &va;
  args.a_base = a.data;
  args.b = &vb;
  args.b_base = b.data;
  args.bias = &vbias;
  args.bias_base = bias.data;
  args.out = o1;
  g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
  args.a = &da;
  args.a_base = ca;
  args.b = &db;
  args.b_base = cb;
  args.bias = &dbias;
  args.bias_base = cbias;
  args.out = o2;
  g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
  g_assert_cmpmem (o1, sizeof o1, o2, sizeof o2);
  /* and by hand for one item: row 2 of the slice is row 7 of A */
  {
    double s = 0;
    const float *fa = a.data, *fb = b.data, *fc = bias.data;

    for (int p = 0; p < 25; p++)
      s += (double) fa[7 * 50 + 2 * p] * fb[p * 13 + 4];
    s += fc[4 * 9 + 2];
    g_assert_cmpfloat_with_epsilon (o1[2 * 13 + 4], s, 1e-4 * fabs (s) + 1e-4);
  }
  g_free (ca);
  g_free (cb);
  g_free (cbias);
  arr_free (&a);
  arr_free (&b);
  arr_free (&bias);
}

/* ---------------------------------------------- skinny path (m <= MR) */

typedef struct {
  const char *name;
  int64_t k, n;
  bool tb, bias;
} skinny_case;

/* The cases of gen_gemm_skinny.py. */
static const skinny_case skinny[] = {
  { "k1_n4097", 1, 4097, false, false },
  { "k7_n15_t", 7, 15, true, false },
  { "k15_n7_bias", 15, 7, false, true },
  { "k17_n17_t", 17, 17, true, true },
  { "k4097_n1", 4097, 1, false, false },
  { "k4097_n17_bias", 4097, 17, false, true },
  { "k17_n4097_t_bias", 17, 4097, true, true },
  { "k600_n33", 600, 33, false, false },
};

/* The first count items of the int8 or float32 src as dtype t, in a block
 * of exactly their size (no byte to spare for a stray read under ASan). */
static void *
exact_as (const arr *src, int64_t count, tn_dtype t)
{
  void *d = g_malloc (count * tn_dtype_size (t));

  for (int64_t i = 0; i < count; i++) {
    double v = src->v.dtype == TN_INT8 ? ((const int8_t *) src->data)[i]
                                       : ((const float *) src->data)[i];

    switch (t) {
    case TN_FLOAT32:
      ((float *) d)[i] = (float) v;
      break;
    case TN_FLOAT64:
      ((double *) d)[i] = v;
      break;
    case TN_FLOAT16:
      ((uint16_t *) d)[i] = tn_f32_to_f16 ((float) v);
      break;
    case TN_BFLOAT16:
      ((uint16_t *) d)[i] = tn_f32_to_bf16 ((float) v);
      break;
    case TN_INT8:
      ((int8_t *) d)[i] = (int8_t) v;
      break;
    case TN_INT32:
      ((int32_t *) d)[i] = (int32_t) v;
      break;
    default:
      g_assert_not_reached ();
    }
  }
  return d;
}

/* Items [0, count) of out (dtype ot) against the golden files of case c. */
static void
check_skinny_out (
    const skinny_case *c, tn_dtype ot, const void *out, int64_t count)
{
  gchar *stem = g_strdup_printf ("gemm_skinny_%s", c->name);

  check_out (stem, ot, out, count, FALSE);
  g_free (stem);
}

/* m = 1..7 rows of A (7 runs the blocked GEMM), and A as a rank-1 vector,
 * against NumPy for every dtype, both kernel sets, 1 and 3 threads, B
 * packed per call and once. */
static void
test_skinny_golden (gconstpointer data)
{
  const skinny_case *c = data;
  arr a0 = loadf ("gemm_skinny_%s_a.npy", c->name);
  arr b0 = loadf ("gemm_skinny_%s_b.npy", c->name);
  arr bias0 = { 0 };
  int64_t bd[2] = { c->tb ? c->n : c->k, c->tb ? c->k : c->n };
  unsigned old;

  if (c->bias)
    bias0 = loadf ("gemm_skinny_%s_bias.npy", c->name);
  g_assert_cmpint (a0.v.dims[0], ==, 7);
  g_assert_cmpint (a0.v.dims[1], ==, c->k);
  for (int isa = 0; isa < NISA; isa++) {
    use_isa (isa, &old);
    for (size_t ti = 0; ti < G_N_ELEMENTS (types); ti++) {
      tn_dtype t = types[ti], ot;
      void *b = exact_as (&b0, c->k * c->n, t), *bias = NULL;
      tn_view vb, vbias;
      tn_gemm_b *pb;

      tn_matmul_dtype (t, t, &ot, NULL);
      tn_view_init (&vb, t, bd, 2, NULL);
      if (c->bias) {
        bias = exact_as (&bias0, c->n, ot);
        tn_view_init (&vbias, ot, &c->n, 1, NULL);
      }
      pb = tn_gemm_b_pack (2, &vb, b, c->tb, NULL);
      g_assert_nonnull (pb);
      for (int m = 0; m <= 7; m++) {
        /* m = 0: A as a rank-1 vector of k items, row 0 */
        int64_t ad[2] = { m ? m : 1, c->k }, rows = ad[0];
        void *a = exact_as (&a0, rows * c->k, t);
        void *out = g_malloc (rows * c->n * tn_dtype_size (ot));
        tn_matmul_args args = { 0 };
        tn_view va;
        tn_err e;

        if (m)
          tn_view_init (&va, t, ad, 2, NULL);
        else
          tn_view_init (&va, t, &c->k, 1, NULL);
        args.a = &va;
        args.a_base = a;
        if (m % 2) {
          args.packed_b = pb;
        } else {
          args.b = &vb;
          args.b_base = b;
          args.tb = c->tb;
        }
        if (c->bias) {
          args.bias = &vbias;
          args.bias_base = bias;
        }
        args.out = out;
        args.nthreads = m % 3 ? 1 : 3;
        if (tn_matmul (&args, &e) != 0)
          g_error ("%s, m = %d: %s", c->name, m, e.msg);
        check_skinny_out (c, ot, out, rows * c->n);
        g_free (a);
        g_free (out);
      }
      tn_gemm_b_free (pb);
      g_free (b);
      g_free (bias);
    }
  }
  tn_cpu_set_mask (old);
  arr_free (&a0);
  arr_free (&b0);
  arr_free (&bias0);
}

/* One product of the first m rows of a (dims [mtot, k]) by b, into a
 * block of exactly its size. */
static void *
product_rows (const arr *a, int64_t m, const arr *b, bool tb,
    const tn_gemm_b *pb, const arr *bias, int nthreads, size_t *bytes)
{
  tn_matmul_args args = { 0 };
  tn_view va = a->v;
  tn_dtype ot;
  int64_t n = tb ? b->v.dims[0] : b->v.dims[1];
  void *out;

  tn_matmul_dtype (a->v.dtype, a->v.dtype, &ot, NULL);
  va.dims[0] = m;
  *bytes = m * n * tn_dtype_size (ot);
  out = g_malloc (*bytes);
  memset (out, 0x55, *bytes);
  args.a = &va;
  args.a_base = a->data;
  args.b = &b->v;
  args.b_base = b->data;
  args.tb = tb;
  args.packed_b = pb;
  if (bias) {
    args.bias = &bias->v;
    args.bias_base = bias->data;
  }
  args.out = out;
  args.nthreads = nthreads;
  g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
  return out;
}

/* The skinny path sums every output in the order the blocked GEMM does, so
 * the first m rows of a 15-row product (blocked GEMM) have the bits of the
 * m-row product (skinny path), with fractional values that show the order
 * of the sums: k over 2 k blocks, ragged n, with a bias or B transposed. */
static void
test_skinny_same_bits (void)
{
  unsigned old;

  for (int isa = 0; isa < NISA; isa++) {
    use_isa (isa, &old);
    for (size_t ti = 0; ti < G_N_ELEMENTS (types); ti++)
      for (int cfg = 0; cfg < 2; cfg++) {
        tn_dtype t = types[ti], ot;
        bool tb = cfg == 1;
        int64_t k = 700, n = tb ? 33 : 1031;
        int64_t ad[] = { 15, k }, bd[] = { tb ? n : k, tb ? k : n },
                cd[] = { n };
        arr a = pseudo (t, ad, 2, 21), b = pseudo (t, bd, 2, 22), bias;
        size_t bytes, bytes7;
        void *ref;

        tn_matmul_dtype (t, t, &ot, NULL);
        bias = pseudo (ot, cd, 1, 23);
        /* 15 rows: past every level's MR (AVX-512 float64's is 14) */
        ref = product_rows (
            &a, 15, &b, tb, NULL, tb ? NULL : &bias, 2, &bytes7);
        for (int m = 1; m <= 14; m++) {
          void *out = product_rows (
              &a, m, &b, tb, NULL, tb ? NULL : &bias, 1, &bytes);

          g_assert_cmpmem (out, bytes, ref, bytes);
          g_free (out);
        }
        g_free (ref);
        arr_free (&a);
        arr_free (&b);
        arr_free (&bias);
      }
  }
  tn_cpu_set_mask (old);
}

/* The AVX2 and AVX-512 levels give the same float bits (one FMA chain
 * per output over each k block of the same kc, whatever the tile), two k
 * blocks and partial tiles of both geometries; and a B packed for one
 * level is refused by the other's kernels, never multiplied wrongly
 * (tn_gemm_b_current says to pack again).  Without AVX-512 both masks
 * pick AVX2 and the packed B stays current. */
static void
test_levels (void)
{
  bool has512 = (tn_cpu_detect () & TN_CPU_AVX512) != 0;
  unsigned old = tn_cpu_set_mask (~0u);

  for (size_t ti = 0; ti < G_N_ELEMENTS (types); ti++) {
    tn_dtype t = types[ti], ot;
    int64_t ad[] = { 37, 300 }, bd[] = { 300, 70 };
    arr a = pseudo (t, ad, 2, 41), b = pseudo (t, bd, 2, 42);
    size_t bytes;
    void *o2, *o512;
    tn_matmul_args args = { 0 };
    tn_gemm_b *pb;
    tn_err e;

    tn_matmul_dtype (t, t, &ot, NULL);
    tn_cpu_set_mask (~(unsigned) TN_CPU_AVX512);
    o2 = product_rows (&a, 37, &b, false, NULL, NULL, 1, &bytes);
    tn_cpu_set_mask (~0u);
    o512 = product_rows (&a, 37, &b, false, NULL, NULL, 2, &bytes);
    g_assert_cmpmem (o2, bytes, o512, bytes);

    pb = tn_gemm_b_pack (1, &b.v, b.data, false, NULL);
    g_assert_nonnull (pb);
    g_assert_true (tn_gemm_b_current (pb));
    tn_cpu_set_mask (~(unsigned) TN_CPU_AVX512);
    g_assert_true (tn_gemm_b_current (pb) == !has512);
    args.a = &a.v;
    args.a_base = a.data;
    args.packed_b = pb;
    args.out = o2;
    if (has512) {
      g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
      g_assert_nonnull (
          strstr (e.msg, t == TN_FLOAT64 ? "packed for 14x16 tiles but the "
                                           "kernels of this CPU level take 6x8"
                                         : "packed for 12x32 tiles but the "
                                           "kernels of this CPU level take "
                                           "6x16"));
    } else {
      g_assert_cmpint (tn_matmul (&args, &e), ==, 0);
      g_assert_cmpmem (o2, bytes, o512, bytes);
    }
    /* the portable level shares AVX2's tile */
    tn_gemm_b_free (pb);
    pb = tn_gemm_b_pack (1, &b.v, b.data, false, NULL);
    tn_cpu_set_mask (0);
    g_assert_true (tn_gemm_b_current (pb));
    tn_gemm_b_free (pb);
    tn_cpu_set_mask (~0u);
    g_free (o2);
    g_free (o512);
    arr_free (&a);
    arr_free (&b);
  }
  tn_cpu_set_mask (old);
}

/* The skinny path on 1..4 and 8 threads, batched or not, B packed per
 * call or once: the bits of one thread. */
static void
test_skinny_threads (void)
{
  for (size_t ti = 0; ti < G_N_ELEMENTS (types); ti++)
    for (int m = 1; m <= 4; m += 3) {
      tn_dtype t = types[ti], ot;
      int64_t k = 600, n = 4097;
      int64_t ad[] = { 3, m, k }, bd[] = { k, n }, cd[] = { n };
      arr a = pseudo (t, ad, 3, 31), b = pseudo (t, bd, 2, 32), bias;
      tn_matmul_args args = { 0 };
      tn_gemm_b *pb = tn_gemm_b_pack (2, &b.v, b.data, false, NULL);
      size_t bytes;
      void *ref, *out;
      static const int thr[] = { 1, 2, 3, 4, 8 };

      tn_matmul_dtype (t, t, &ot, NULL);
      bias = pseudo (ot, cd, 1, 33);
      bytes = 3 * m * n * tn_dtype_size (ot);
      ref = g_malloc (bytes);
      out = g_malloc (bytes);
      args.a = &a.v;
      args.a_base = a.data;
      args.b = &b.v;
      args.b_base = b.data;
      args.bias = &bias.v;
      args.bias_base = bias.data;
      args.out = ref;
      args.nthreads = 1;
      g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
      check_every_way (&args, pb, thr, G_N_ELEMENTS (thr), out, ref, bytes);
      tn_gemm_b_free (pb);
      g_free (ref);
      g_free (out);
      arr_free (&a);
      arr_free (&b);
      arr_free (&bias);
    }
}

static void
test_dtype (void)
{
  tn_dtype o;
  tn_err e;

  g_assert_cmpint (tn_matmul_dtype (TN_FLOAT32, TN_FLOAT32, &o, &e), ==, 0);
  g_assert_cmpint (o, ==, TN_FLOAT32);
  g_assert_cmpint (tn_matmul_dtype (TN_FLOAT64, TN_FLOAT64, &o, &e), ==, 0);
  g_assert_cmpint (o, ==, TN_FLOAT64);
  g_assert_cmpint (tn_matmul_dtype (TN_FLOAT16, TN_FLOAT16, &o, &e), ==, 0);
  g_assert_cmpint (o, ==, TN_FLOAT16);
  g_assert_cmpint (tn_matmul_dtype (TN_BFLOAT16, TN_BFLOAT16, &o, &e), ==, 0);
  g_assert_cmpint (o, ==, TN_BFLOAT16);
  g_assert_cmpint (tn_matmul_dtype (TN_INT8, TN_INT8, &o, &e), ==, 0);
  g_assert_cmpint (o, ==, TN_INT32);
  g_assert_cmpint (tn_matmul_dtype (TN_FLOAT32, TN_FLOAT64, &o, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "matmul needs both operands of one type: float32 times float64");
  g_assert_cmpint (tn_matmul_dtype (TN_UINT8, TN_UINT8, &o, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "matmul has no kernel for uint8: it takes float32, float64, float16, "
      "bfloat16 and int8");
}

static void
expect_dims (const int64_t *a, int ra, bool ta, const int64_t *b, int rb,
    bool tb, const int64_t *want, int rw)
{
  int64_t out[TN_MAX_RANK];
  int r;
  tn_err e;

  if (tn_matmul_dims (a, ra, ta, b, rb, tb, out, &r, &e) != 0)
    g_error ("%s", e.msg);
  g_assert_cmpint (r, ==, rw);
  g_assert_cmpmem (out, r * sizeof *out, want, rw * sizeof *want);
}

static void
expect_dims_error (const int64_t *a, int ra, bool ta, const int64_t *b, int rb,
    bool tb, const char *msg)
{
  int64_t out[TN_MAX_RANK];
  int r;
  tn_err e;

  g_assert_cmpint (tn_matmul_dims (a, ra, ta, b, rb, tb, out, &r, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==, msg);
}

static void
test_dims (void)
{
  const int64_t d23[] = { 2, 3 }, d42[] = { 4, 2 }, d34[] = { 3, 4 };
  const int64_t d3[] = { 3 }, d2134[] = { 2, 1, 3, 4 }, d543[] = { 5, 4, 3 };
  const int64_t d24[] = { 2, 4 }, d32[] = { 3, 2 }, d243[] = { 2, 4, 3 };

  expect_dims (d23, 2, false, d34, 2, false, (int64_t[]){ 2, 4 }, 2);
  expect_dims (d3, 1, false, d34, 2, false, (int64_t[]){ 4 }, 1);
  expect_dims (d23, 2, false, d3, 1, false, (int64_t[]){ 2 }, 1);
  expect_dims (d3, 1, false, d3, 1, false, NULL, 0);
  expect_dims (d3, 1, true, d3, 1, true, NULL, 0); /* no-op on rank 1 */
  expect_dims (d2134, 4, false, d543, 3, false, (int64_t[]){ 2, 5, 3, 3 }, 4);
  expect_dims (
      d32, 2, true, (int64_t[]){ 4, 3 }, 2, true, (int64_t[]){ 2, 4 }, 2);

  expect_dims_error (d23, 2, false, d42, 2, false,
      "matmul needs the inner extents to agree: [2,3] times [4,2], 3 "
      "against 4");
  expect_dims_error (d23, 2, true, d42, 2, false,
      "matmul needs the inner extents to agree: [2,3] (transposed) times "
      "[4,2], 2 against 4");
  expect_dims_error (d3, 1, false, d42, 2, false,
      "matmul needs the inner extents to agree: [3] times [4,2], 3 against "
      "4");
  expect_dims_error (d23, 2, false, d3, 0, false,
      "matmul needs operands of rank 1 to 8: [2,3] times [] has ranks 2 and "
      "0");
  expect_dims_error (d243, 3, false, (int64_t[]){ 5, 3, 2 }, 3, false,
      "matmul needs the batch axes to broadcast: [2,4,3] times [5,3,2], "
      "batch axis 0 has 2 against 5 and neither is 1");
  (void) d24;
}

/* tn_matmul's own checks: types, bias type and dims, rank 0 to pack. */
static void
test_errors (void)
{
  const int64_t d23[] = { 2, 3 }, d34[] = { 3, 4 }, d5[] = { 5 };
  const int64_t d324[] = { 3, 2, 4 }, d21[] = { 2, 1 };
  arr a = pseudo (TN_FLOAT32, d23, 2, 1), b = pseudo (TN_FLOAT32, d34, 2, 2);
  arr b64 = pseudo (TN_FLOAT64, d34, 2, 2), i32 = pseudo (TN_INT32, d5, 1, 3);
  arr bias5 = pseudo (TN_FLOAT32, d5, 1, 4);
  arr bias324 = pseudo (TN_FLOAT32, d324, 3, 5);
  arr bias21 = pseudo (TN_FLOAT64, d21, 2, 5);
  float out[3 * 2 * 4];
  tn_matmul_args args = { 0 };
  tn_view v0;
  tn_err e;

  args.a = &a.v;
  args.a_base = a.data;
  args.b = &b64.v;
  args.b_base = b64.data;
  args.out = out;
  g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "matmul needs both operands of one type: float32 times float64");

  args.b = &b.v;
  args.b_base = b.data;
  args.bias = &bias5.v;
  args.bias_base = bias5.data;
  g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "dims <5> and <2, 4> do not broadcast: axis 1 has 5 against 4 and "
      "neither is 1");
  args.bias = &bias324.v;
  args.bias_base = bias324.data;
  g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "the bias dims <3, 2, 4> would grow the product's dims <2, 4>: a "
      "bias broadcasts over the product, not the other way");
  args.bias = &bias21.v;
  args.bias_base = bias21.data;
  g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "the bias is float64 but the product <2, 4> is float32: they need one "
      "type");
  args.bias = &i32.v;
  args.bias_base = i32.data;
  g_assert_cmpint (tn_matmul (&args, &e), ==, -1);
  g_assert_cmpstr (e.msg, ==,
      "the bias is int32 but the product <2, 4> is float32: they need one "
      "type");

  tn_view_init (&v0, TN_FLOAT32, NULL, 0, NULL);
  g_assert_null (tn_gemm_b_pack (1, &v0, out, false, &e));
  g_assert_cmpstr (e.msg, ==,
      "matmul needs operands of rank 1 to 8: the second operand has rank 0");
  g_assert_null (tn_gemm_b_pack (1, &i32.v, i32.data, false, &e));
  g_assert_cmpstr (e.msg, ==,
      "matmul has no kernel for int32: it takes float32, float64, float16, "
      "bfloat16 and int8");
  arr_free (&a);
  arr_free (&b);
  arr_free (&b64);
  arr_free (&i32);
  arr_free (&bias5);
  arr_free (&bias324);
  arr_free (&bias21);
}

/* Under flush-to-zero and denormals-are-zero (set here) a product of
 * subnormals by ones is exact: A (5 x 7, float32 items k * 2^-149 with
 * bits k = 1 + r + c) times B (7 x 3 of 1.0) gives row sums of bits
 * 7 + 7r + 21, on both ISAs and on 1 and 2 threads. */
static void
test_ftz (void)
{
  enum { M = 5, K = 7, N = 3 };
  guint32 a[M * K], out[M * N];
  float b[K * N];
  int64_t ad[2] = { M, K }, bd[2] = { K, N };
  tn_view av, bv;
  unsigned int old, old_mask;

  for (int r = 0; r < M; r++)
    for (int c = 0; c < K; c++)
      a[r * K + c] = (guint32) (1 + r + c);
  for (int i = 0; i < K * N; i++)
    b[i] = 1.0f;
  g_assert_cmpint (tn_view_init (&av, TN_FLOAT32, ad, 2, NULL), ==, 0);
  g_assert_cmpint (tn_view_init (&bv, TN_FLOAT32, bd, 2, NULL), ==, 0);
  old = tn_test_ftz_on ();
  for (int isa = 0; isa < NISA; isa++) {
    unsigned used = use_isa (isa, &old_mask);

    for (int nthreads = 1; nthreads <= 2; nthreads++) {
      tn_matmul_args args = { 0 };
      tn_err e;

      args.a = &av;
      args.a_base = a;
      args.b = &bv;
      args.b_base = b;
      args.out = out;
      args.nthreads = nthreads;
      memset (out, 0xff, sizeof out);
      if (tn_matmul (&args, &e) != 0)
        g_error ("%s", e.msg);
      for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++)
          if (out[r * N + c] != (guint32) (K + K * r + 21))
            g_error ("cpu flags 0x%x, %d threads, under FTZ/DAZ: out[%d][%d] "
                     "has bits %u, expected %d",
                used, nthreads, r, c, out[r * N + c], K + K * r + 21);
    }
  }
  tn_cpu_set_mask (old_mask);
  tn_test_ftz_restore (old);
}

/* Small integers in [-8, 8] (exact in every sum here) from seed. */
static arr
small_ints (tn_dtype t, const int64_t *dims, int rank, uint32_t seed)
{
  int64_t n;
  arr f = arr_new (TN_FLOAT32, dims, rank, &n), x;

  for (int64_t i = 0; i < n; i++) {
    seed = lcg (seed);
    ((float *) f.data)[i] = (float) ((int) (seed >> 16) % 17 - 8);
  }
  x = convert (&f, t);
  arr_free (&f);
  return x;
}

static double
item (const arr *x, int64_t i)
{
  switch (x->v.dtype) {
  case TN_FLOAT32:
    return ((const float *) x->data)[i];
  case TN_FLOAT64:
    return ((const double *) x->data)[i];
  case TN_INT8:
    return ((const int8_t *) x->data)[i];
  default:
    g_assert_not_reached ();
  }
  return 0;
}

/* One call after another on this thread, the way a stream multiplies
 * buffer after buffer: shapes that grow and shrink (the blocks kept
 * between calls then hold a larger product's data), the same shape with
 * new values, B packed per call and once, thread counts that change.
 * Every product is exact (small integers), so each is checked against a
 * plain triple loop; one that read a stale packed B, panel or context
 * would not match. */
static void
test_reuse (void)
{
  static const struct {
    int64_t m, k, n;
    int nthreads;
    bool ta, packed;
  } seq[] = {
    { 40, 600, 300, 2 },
    { 4, 4, 4, 1 },
    { 4, 4, 4, 1 }, /* same shape, new values */
    { 5, 7, 9, 0, true },
    { 4, 4, 4, 1, false, true },
    { 40, 600, 300, 3, false, true },
    { 1, 9, 3, 1 },
    { 23, 300, 37, 0 },
    { 3, 5, 2, 2, true },
    { 4, 4, 4, 1 },
  };
  static const tn_dtype rtypes[] = { TN_FLOAT32, TN_FLOAT64, TN_INT8 };
  uint32_t seed = 7;

  for (size_t ti = 0; ti < G_N_ELEMENTS (rtypes); ti++)
    for (size_t si = 0; si < G_N_ELEMENTS (seq); si++) {
      tn_dtype t = rtypes[ti], ot;
      int64_t m = seq[si].m, k = seq[si].k, n = seq[si].n;
      int64_t ad[2] = { seq[si].ta ? k : m, seq[si].ta ? m : k };
      int64_t bd[2] = { k, n };
      arr a = small_ints (t, ad, 2, seed++), b = small_ints (t, bd, 2, seed++);
      tn_matmul_args args = { 0 };
      tn_gemm_b *pb = NULL;
      size_t osize;
      guint8 *out;

      tn_matmul_dtype (t, t, &ot, NULL);
      osize = tn_dtype_size (ot);
      out = g_malloc (m * n * osize);
      memset (out, 0x55, m * n * osize);
      args.a = &a.v;
      args.a_base = a.data;
      args.ta = seq[si].ta;
      args.b = &b.v;
      args.b_base = b.data;
      args.nthreads = seq[si].nthreads;
      args.out = out;
      if (seq[si].packed)
        args.packed_b = pb = tn_gemm_b_pack (2, &b.v, b.data, false, NULL);
      g_assert_cmpint (tn_matmul (&args, NULL), ==, 0);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
          double want = 0, got;

          for (int64_t p = 0; p < k; p++)
            want += item (&a, seq[si].ta ? p * m + i : i * k + p)
                    * item (&b, p * n + j);
          got = ot == TN_FLOAT32   ? ((float *) out)[i * n + j]
                : ot == TN_FLOAT64 ? ((double *) out)[i * n + j]
                                   : ((int32_t *) out)[i * n + j];
          if (got != want)
            g_error ("%s, call %zu (%lld x %lld x %lld, %d threads): "
                     "out[%lld][%lld] = %g, expected %g",
                tn_dtype_name (t), si, (long long) m, (long long) k,
                (long long) n, seq[si].nthreads, (long long) i, (long long) j,
                got, want);
        }
      tn_gemm_b_free (pb);
      g_free (out);
      arr_free (&a);
      arr_free (&b);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (golden); i++) {
    gchar *p = g_strdup_printf ("/gemm/golden/%s", golden[i].name);

    g_test_add_data_func (p, &golden[i], test_golden);
    g_free (p);
  }
  for (size_t i = 0; i < G_N_ELEMENTS (skinny); i++) {
    gchar *p = g_strdup_printf ("/gemm/skinny/golden/%s", skinny[i].name);

    g_test_add_data_func (p, &skinny[i], test_skinny_golden);
    g_free (p);
  }
  g_test_add_func ("/gemm/skinny/same-bits-as-gemm", test_skinny_same_bits);
  g_test_add_func ("/gemm/skinny/threads-bit-identical", test_skinny_threads);
  g_test_add_func ("/gemm/random", test_random);
  g_test_add_func ("/gemm/levels", test_levels);
  g_test_add_func ("/gemm/int8-full-range", test_int8_full);
  g_test_add_func ("/gemm/threads-bit-identical", test_threads);
  g_test_add_func ("/gemm/batched-b", test_batched_b);
  g_test_add_func ("/gemm/strided", test_strided);
  g_test_add_func ("/gemm/dtype", test_dtype);
  g_test_add_func ("/gemm/dims", test_dims);
  g_test_add_func ("/gemm/errors", test_errors);
  g_test_add_func ("/gemm/ftz", test_ftz);
  g_test_add_func ("/gemm/reuse-across-calls", test_reuse);
  return g_test_run ();
}
