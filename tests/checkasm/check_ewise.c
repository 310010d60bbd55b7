/* checkasm: the elementwise kernels (core/ewise-kern.h).  Every entry of
 * the table, the steps in both variants, the fused runs, and the kernels
 * between tensors (rev, rel, bit, where, stream, rep: core/combine.c) and the
 * streamed casts (cast_stream: core/ewise.c), against the
 * portable entry: on checkasm_fill's edge-heavy items (NaN, +-0, +-inf,
 * subnormals, INT_MIN, -1, ...) as data and as operands, at
 * checkasm_lengths, from unaligned starts, out of place and in place.
 * The divisions of float32 by a scalar also run with the plans the
 * compiler would give them (tn_ew_rdiv_plan, for divisors it proves):
 * with the test per vector on any data, and bare on data the plan proves
 * (tn_ew_rdiv_bare), as a chain only runs them.
 *
 * Every kernel must give the portable bits (ewise.h: the same arithmetic
 * on every path) but for one freedom: which NaN comes out where the
 * result is NaN, which IEEE arithmetic leaves to the order of the
 * operands in each instruction, the compiler's choice. */
#include "checkasm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/ewise-kern.h"
#include "core/ewise-parse.h"

/* Items an input or output starts after a 64-byte border. */
static const size_t offsets[] = { 0, 1, 3 };

/* Divisors the plan proves (on AVX2), one of each kind of plan: zh and zl
 * of one sign, of two signs, zl 0. */
static const float divisors[] = { 127.5f, 1.0f / 3.0f, -2.5f, 2.0f };
#define NDIV (sizeof divisors / sizeof divisors[0])

static int
is_float (tn_dtype t)
{
  return tn_dtype_kind (t) == TN_KIND_FLOAT;
}

/* n floats of t (float32 or float64) from 2^-2 to 2^2 in magnitude, of
 * random sign and mantissa: where products and sums of them round, an
 * FMA in place of a multiply and an add shows. */
static void
fill_moderate (void *dst, tn_dtype t, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    uint32_t r = checkasm_rand (), e = checkasm_rand () % 4;

    if (t == TN_FLOAT32) {
      uint32_t f = (r >> 31) << 31 | (125 + e) << 23 | (r & 0x7fffff);

      memcpy ((char *) dst + 4 * i, &f, 4);
    } else {
      uint64_t m = ((uint64_t) checkasm_rand () << 32 | r) >> 12;
      uint64_t d = (uint64_t) (r >> 31) << 63 | (uint64_t) (1021 + e) << 52 | m;

      memcpy ((char *) dst + 8 * i, &d, 8);
    }
  }
}

/* Data of t: edge-heavy, or moderate floats (integers stay edge-heavy). */
static void
fill (void *dst, tn_dtype t, size_t n, bool moderate)
{
  if (moderate && (t == TN_FLOAT32 || t == TN_FLOAT64))
    fill_moderate (dst, t, n);
  else
    checkasm_fill (dst, t, n);
}

/* Where both results are NaN, got takes want's bits (see above). */
static void
same_nans (const void *want, void *got, tn_dtype t, size_t n)
{
  for (size_t i = 0; i < n && is_float (t); i++) {
    if (t == TN_FLOAT32) {
      float w, g;

      memcpy (&w, (const char *) want + 4 * i, 4);
      memcpy (&g, (char *) got + 4 * i, 4);
      if (isnan (w) && isnan (g))
        memcpy ((char *) got + 4 * i, &w, 4);
    } else {
      double w, g;

      memcpy (&w, (const char *) want + 8 * i, 8);
      memcpy (&g, (char *) got + 8 * i, 8);
      if (isnan (w) && isnan (g))
        memcpy ((char *) got + 8 * i, &w, 8);
    }
  }
}

/* A kernel under test: fn against ref from items of ts to items of td,
 * with the operand o (a tn_ew_scalars, or NULL for n items of td that
 * each run fills); in place too when the sizes allow.  bare_ok, if set,
 * makes every input one the division plan proves; moderate picks
 * fill_moderate's data; redraw, new scalar operands for each length and
 * offset. */
typedef struct {
  tn_ew_kern fn, ref;
  tn_dtype ts, td;
  tn_ew_scalars *o;
  void (*bare_ok) (float *x, size_t n, const tn_ew_rdiv *p);
  const tn_ew_rdiv *plan;
  const char *what;
  bool moderate, redraw;
  bool opnd_src;   /* the operand has the source's dtype (comparisons) */
  size_t min_opnd; /* n operand items at least this many (rep) */
} kernel;

/* +0, NaN and finite numbers from 2^emin up stay; the rest become 1.5. */
static void
proven_inputs (float *x, size_t n, const tn_ew_rdiv *p)
{
  for (size_t i = 0; i < n; i++) {
    uint32_t b;

    memcpy (&b, &x[i], 4);
    if (b != 0 && !isnan (x[i])
        && (!isfinite (x[i]) || x[i] == 0 || ilogb (x[i]) < p->emin))
      x[i] = 1.5f;
  }
}

/* One length and offset: 0 when fn gave ref's bits. */
static int
try_one (const kernel *k, size_t n, size_t off)
{
  const size_t ss = tn_dtype_size (k->ts), ds = tn_dtype_size (k->td);
  char *src = checkasm_alloc ((n + off) * ss);
  char *want = checkasm_alloc ((n + off) * ds);
  char *got = checkasm_alloc ((n + off) * ds);
  const tn_dtype to = k->opnd_src ? k->ts : k->td;
  const size_t os = tn_dtype_size (to);
  const size_t no = n > k->min_opnd ? n : k->min_opnd;
  char *opnd = k->o ? NULL : checkasm_alloc ((no + off) * os);
  const void *o = k->o ? (const void *) k->o : opnd + off * os;
  int bad;

  if (k->redraw)
    fill (k->o->c.b, to, 2, k->moderate);
  fill (src + off * ss, k->ts, n, k->moderate);
  if (k->bare_ok)
    k->bare_ok ((float *) (src + off * ss), n, k->plan);
  if (opnd)
    fill (opnd + off * os, to, no, k->moderate);
  k->ref (want + off * ds, src + off * ss, o, n);
  k->fn (got + off * ds, src + off * ss, o, n);
  same_nans (want + off * ds, got + off * ds, k->td, n);
  bad = checkasm_check_bits (want + off * ds, got + off * ds, n, ds,
      "%s, n %zu, offset %zu", k->what, n, off);
  if (!bad && ss == ds) {
    /* In place: the source's copies become the results. */
    memcpy (want + off * ds, src + off * ss, n * ss);
    memcpy (got + off * ds, src + off * ss, n * ss);
    k->ref (want + off * ds, want + off * ds, o, n);
    k->fn (got + off * ds, got + off * ds, o, n);
    same_nans (want + off * ds, got + off * ds, k->td, n);
    bad = checkasm_check_bits (want + off * ds, got + off * ds, n, ds,
        "%s in place, n %zu, offset %zu", k->what, n, off);
  }
  checkasm_free (src);
  checkasm_free (want);
  checkasm_free (got);
  if (opnd)
    checkasm_free (opnd);
  return bad;
}

/* Every length and offset, then with --bench 4096 items out of place. */
static void
try_all (const kernel *k)
{
  for (size_t li = 0; li < checkasm_nlengths; li++)
    for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++)
      if (try_one (k, checkasm_lengths[li], offsets[oi]))
        return;
  if (checkasm_benching ()) {
    const size_t n = 4096, ds = tn_dtype_size (k->td);
    const tn_dtype to = k->opnd_src ? k->ts : k->td;
    char *src = checkasm_alloc (n * tn_dtype_size (k->ts));
    char *dst = checkasm_alloc (n * ds);
    char *opnd = k->o ? NULL : checkasm_alloc (n * tn_dtype_size (to));
    const void *o = k->o ? (const void *) k->o : opnd;

    fill (src, k->ts, n, k->moderate);
    if (k->bare_ok)
      k->bare_ok ((float *) src, n, k->plan);
    if (opnd)
      fill (opnd, to, n, k->moderate);
    checkasm_bench (k->fn (dst, src, o, n));
    checkasm_free (src);
    checkasm_free (dst);
    if (opnd)
      checkasm_free (opnd);
  }
}

static void
check_steps (const tn_ewise_dsp *tab)
{
  for (int op = 0; op < TN_EW_NOPS; op++) {
    for (int t = 0; t < TN_NDTYPES; t++) {
      for (int v = 0; v < 2; v++) {
        tn_ew_kern fn = tab->step[op][t][v], ref;
        tn_ew_scalars sc = { .div = { { 0 } } };
        char what[64];
        kernel k = { fn, NULL, (tn_dtype) t, (tn_dtype) t, v ? NULL : &sc, NULL,
          NULL, what };

        if (!fn
            || !(ref = checkasm_check_func (fn, "step_%s_%s_%d",
                     tn_ew_op_name ((tn_ew_op) op), tn_dtype_name (t), v)))
          continue;
        k.ref = ref;
        k.redraw = !v;
        snprintf (what, sizeof what, "%s on %s, variant %d",
            tn_ew_op_name ((tn_ew_op) op), tn_dtype_name (t), v);
        try_all (&k);
        if (is_float ((tn_dtype) t) && !checkasm_failed ()) {
          k.moderate = true;
          snprintf (what, sizeof what, "%s on %s, variant %d, moderate",
              tn_ew_op_name ((tn_ew_op) op), tn_dtype_name (t), v);
          try_all (&k);
          k.moderate = false;
        }
        /* float32 division by the divisors the plan proves. */
        k.redraw = false;
        for (size_t i = 0; i < NDIV && op == TN_EW_DIV && t == TN_FLOAT32 && !v
                           && !checkasm_failed ();
             i++) {
          memcpy (sc.c.b, &divisors[i], 4);
          tn_ew_rdiv_plan (&sc.div[0], divisors[i]);
          snprintf (
              what, sizeof what, "div:%.9g on float32 (planned)", divisors[i]);
          try_all (&k);
          tn_ew_rdiv_bare (&sc.div[0], sc.div[0].emin, false);
          if (sc.div[0].bare) {
            k.bare_ok = proven_inputs;
            k.plan = &sc.div[0];
            snprintf (
                what, sizeof what, "div:%.9g on float32 (bare)", divisors[i]);
            try_all (&k);
            k.bare_ok = NULL;
          }
        }
      }
    }
  }
}

static const char *
arith_name (int op)
{
  return op == TN_EW_NOP ? "none" : tn_ew_op_name ((tn_ew_op) op);
}

/* Run [t][op1][op2][relu]: random operands, then planned divisors, then
 * bare where the division sees the source items themselves. */
static void
check_run (const tn_ewise_dsp *tab, int t, int op1, int op2, int relu)
{
  tn_ew_kern fn = tab->run[t][op1][op2][relu], ref;
  const tn_dtype ts = (tn_dtype) t;
  const tn_dtype td = t == TN_FLOAT64 ? TN_FLOAT64 : TN_FLOAT32;
  tn_ew_scalars sc = { .div = { { 0 } } };
  char what[96];
  kernel k = { fn, NULL, ts, td, &sc, NULL, NULL, what };
  const bool div1 = op1 == TN_EW_DIV, div2 = op2 == TN_EW_DIV;

  if (!fn
      || !(ref = checkasm_check_func (fn, "run_%s_%s_%s_%d", tn_dtype_name (t),
               arith_name (op1), arith_name (op2), relu)))
    return;
  k.ref = ref;
  k.redraw = true;
  snprintf (what, sizeof what, "%s,%s%s on %s", arith_name (op1),
      arith_name (op2), relu ? ",relu" : "", tn_dtype_name (t));
  try_all (&k);
  if (checkasm_failed ())
    return;
  k.moderate = true;
  snprintf (what, sizeof what, "%s,%s%s on %s, moderate", arith_name (op1),
      arith_name (op2), relu ? ",relu" : "", tn_dtype_name (t));
  try_all (&k);
  k.moderate = false;
  k.redraw = false;
  if (td != TN_FLOAT32 || !(div1 || div2))
    return;
  for (size_t i = 0; i < NDIV && !checkasm_failed (); i++) {
    const float c[2] = { divisors[i], divisors[(i + 1) % NDIV] };
    /* The division that sees the items as they come. */
    const int first = div1 ? 0 : op1 == TN_EW_NOP ? 1 : -1;

    memcpy (sc.c.b, c, sizeof c);
    memset (sc.div, 0, sizeof sc.div);
    if (div1)
      tn_ew_rdiv_plan (&sc.div[0], c[0]);
    if (div2)
      tn_ew_rdiv_plan (&sc.div[1], c[1]);
    snprintf (what, sizeof what, "%s,%s%s on %s, c %.9g %.9g (planned)",
        arith_name (op1), arith_name (op2), relu ? ",relu" : "",
        tn_dtype_name (t), c[0], c[1]);
    try_all (&k);
    if (first < 0 || (div1 && div2))
      continue;
    tn_ew_rdiv_bare (
        &sc.div[first], ts == TN_FLOAT32 ? sc.div[first].emin : 0, false);
    if (!sc.div[first].bare)
      continue;
    k.bare_ok = ts == TN_FLOAT32 ? proven_inputs : NULL;
    k.plan = &sc.div[first];
    snprintf (what, sizeof what, "%s,%s%s on %s, c %.9g %.9g (bare)",
        arith_name (op1), arith_name (op2), relu ? ",relu" : "",
        tn_dtype_name (t), c[0], c[1]);
    try_all (&k);
    k.bare_ok = NULL;
  }
}

/* The kernels of core/combine.c: a binary step with its operand first,
 * the comparisons (into bool) and the bitwise ops, each on edge values
 * and moderate floats, one operand item (redrawn) and n of them. */
static const char *const rel_names[TN_EW_NREL] = {
#define REL_NAME(E, name) #name,
  TN_EW_FOREACH_REL (REL_NAME)
#undef REL_NAME
};
static const char *const bit_names[TN_EW_NBIT] = {
#define BIT_NAME(E, name) #name,
  TN_EW_FOREACH_BIT (BIT_NAME)
#undef BIT_NAME
};

/* min_opnd: as kernel's. */
static void
check_one_min (tn_ew_kern fn, tn_dtype ts, tn_dtype td, bool vec, bool opnd_src,
    size_t min_opnd, const char *name)
{
  tn_ew_scalars sc = { .div = { { 0 } } };
  char what[96]; /* the name and ", moderate" */
  kernel k = { fn, NULL, ts, td, vec ? NULL : &sc, NULL, NULL, what };

  if (!fn || !(k.ref = checkasm_check_func (fn, "%s", name)))
    return;
  k.redraw = !vec;
  k.opnd_src = opnd_src;
  k.min_opnd = min_opnd;
  snprintf (what, sizeof what, "%s", name);
  try_all (&k);
  if (is_float (ts) && !checkasm_failed ()) {
    k.moderate = true;
    snprintf (what, sizeof what, "%s, moderate", name);
    try_all (&k);
  }
}

static void
check_one (tn_ew_kern fn, tn_dtype ts, tn_dtype td, bool vec, bool opnd_src,
    const char *name)
{
  check_one_min (fn, ts, td, vec, opnd_src, 0, name);
}

/* rep[op][t][rev][stream]: the operand holds a whole pattern however
 * short the run (its phase starts at 0; the offsets move the border at
 * which the kernels' registers start). */
static void
check_rep (const tn_ewise_dsp *tab)
{
  static const tn_dtype types[2] = { TN_FLOAT32, TN_FLOAT64 };
  char name[64];

  for (int i = 0; i < 2; i++)
    for (int op = 0; op <= TN_EW_DIV; op++)
      for (int rev = 0; rev < 2; rev++)
        for (int st = 0; st < 2; st++) {
          snprintf (name, sizeof name, "rep_%s_%s%s%s",
              tn_ew_op_name ((tn_ew_op) op), tn_dtype_name (types[i]),
              rev ? "_rev" : "", st ? "_stream" : "");
          check_one_min (tab->rep[op][types[i]][rev][st], types[i], types[i],
              true, false, TN_EW_REP_BYTES / tn_dtype_size (types[i]), name);
        }
}

static void
check_between (const tn_ewise_dsp *tab)
{
  char name[64];

  for (int t = 0; t < TN_NDTYPES; t++) {
    for (int op = 0; op <= TN_EW_DIV; op++) {
      snprintf (name, sizeof name, "stream_%s_%s",
          tn_ew_op_name ((tn_ew_op) op), tn_dtype_name (t));
      check_one (
          tab->stream[op][t], (tn_dtype) t, (tn_dtype) t, true, false, name);
    }
    /* The lone casts to float32 with the output past the caches. */
    snprintf (name, sizeof name, "cast_stream_%s", tn_dtype_name (t));
    check_one (
        tab->cast_stream[t], (tn_dtype) t, TN_FLOAT32, false, false, name);
    for (int op = 0; op <= TN_EW_MOD; op++) {
      snprintf (name, sizeof name, "rev_%s_%s", tn_ew_op_name ((tn_ew_op) op),
          tn_dtype_name (t));
      check_one (
          tab->rev[op][t], (tn_dtype) t, (tn_dtype) t, false, false, name);
    }
    for (int v = 0; v < 2; v++) {
      for (int r = 0; r < TN_EW_NREL; r++) {
        snprintf (name, sizeof name, "rel_%s_%s_%d", rel_names[r],
            tn_dtype_name (t), v);
        check_one (tab->rel[r][t][v], (tn_dtype) t, TN_BOOL, v, true, name);
      }
      for (int b = 0; b < TN_EW_NBIT; b++) {
        snprintf (name, sizeof name, "bit_%s_%s_%d", bit_names[b],
            tn_dtype_name (t), v);
        check_one (
            tab->bit[b][t][v], (tn_dtype) t, (tn_dtype) t, v, false, name);
      }
    }
  }
}

/* where[k] on random conditions (any byte, 0 or not) and edge items. */
static void
check_where (const tn_ewise_dsp *tab)
{
  static const tn_dtype types[4]
      = { TN_UINT8, TN_UINT16, TN_UINT32, TN_UINT64 };

  for (int w = 0; w < 4; w++) {
    tn_ew_where_kern fn = tab->where[w], ref;
    const size_t es = (size_t) 1 << w;

    if (!fn || !(ref = checkasm_check_func (fn, "where_%zu", es)))
      continue;
    for (size_t li = 0; li < checkasm_nlengths; li++) {
      for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++) {
        const size_t n = checkasm_lengths[li], off = offsets[oi];
        unsigned char *c = checkasm_alloc (n + off);
        char *a = checkasm_alloc ((n + off) * es);
        char *b = checkasm_alloc ((n + off) * es);
        char *want = checkasm_alloc ((n + off) * es);
        char *got = checkasm_alloc ((n + off) * es);
        int bad;

        for (size_t i = 0; i < n; i++)
          c[off + i]
              = checkasm_rand () % 3 ? 0 : (unsigned char) checkasm_rand ();
        checkasm_fill (a + off * es, types[w], n);
        checkasm_fill (b + off * es, types[w], n);
        ref (want + off * es, c + off, a + off * es, b + off * es, n);
        fn (got + off * es, c + off, a + off * es, b + off * es, n);
        bad = checkasm_check_bits (want + off * es, got + off * es, n, es,
            "where on %zu-byte items, n %zu, offset %zu", es, n, off);
        checkasm_free (c);
        checkasm_free (a);
        checkasm_free (b);
        checkasm_free (want);
        checkasm_free (got);
        if (bad)
          return;
      }
    }
  }
}

void
checkasm_check_ewise (void)
{
  const tn_ewise_dsp *tab = tn_ewise_dsp_get ();

  check_steps (tab);
  check_between (tab);
  check_rep (tab);
  check_where (tab);
  for (int t = 0; t < TN_NDTYPES; t++)
    for (int op1 = 0; op1 <= TN_EW_NOP; op1++)
      for (int op2 = 0; op2 <= TN_EW_NOP; op2++)
        for (int relu = 0; relu < 2; relu++)
          check_run (tab, t, op1, op2, relu);
}
