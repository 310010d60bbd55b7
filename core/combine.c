/* Elementwise ops between tensors (combine.h): planning each operand's
 * walk over the output once, then one pass over memory per run with the
 * elementwise family's kernels (ewise-kern.h). */
#include "combine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "ewise-kern.h"
#include "parallel.h"
#include "shape.h"

/* Items per block where operands are gathered, widened or tiled: large
 * enough that a kernel call per block costs nothing next to its memory
 * traffic, small enough that the blocks (three operands of 8-byte items,
 * three float32 ones) stay in L1 and L2. */
#define CB_BLOCK 1024

/* Items per kernel call where the operands are dense, scalars or tiles
 * (no gather, no widening): the tiles hold P + CB_RUN items, which stay
 * in L1 (16384 made <1080, 1920, 3> + <3> a fifth slower: the tile then
 * streams from L2 beside the operands). */
#define CB_RUN 2048

/* How an operand's items for output items [b, b + m) are found. */
typedef enum {
  CB_SCALAR, /* one item for every output item */
  CB_FULL,   /* dense with the output's layout: base + b */
  CB_TILE,   /* a period P < CB_BLOCK along the last axis: a tile of
              * P + CB_RUN items (at least a rep pattern's) built once
              * per run, at b % P */
  CB_GATHER  /* anything else: tn_ew_gather into a block */
} cb_mode;

typedef struct {
  cb_mode mode;
  tn_dtype dt;
  size_t es;
  int64_t offset; /* items from the base to the operand's first item */
  int64_t period;
  tn_ew_walk walk;
} cb_opnd;

typedef enum { CB_ARITH, CB_REL, CB_BIT, CB_WHERE } cb_class;

struct tn_combine {
  tn_combine_op op;
  cb_class cls;
  int nops;
  tn_dtype in, out; /* operand dtype (then's for where), output dtype */
  bool half;        /* float16/bfloat16 operands, computed in float32 */
  bool direct;      /* every operand FULL or SCALAR, not all SCALAR */
  bool runs;        /* no operand gathered, nothing widened: kernel calls
                     * of CB_RUN items on pointers into the operands */
  int64_t n;
  int rank;
  int64_t dims[TN_MAX_RANK];
  cb_opnd ops[3];
  /* The kernel for vector with vector, vector with scalar and scalar
   * with vector operands (arguments in that order: d, vector, operand). */
  tn_ew_kern vv, vs, sv;
  tn_ew_kern stream; /* vv past the caches, or NULL */
  bool sv_swap;      /* sv takes (d, vector, scalar) too: the op commutes or
                      * is a comparison with its sides swapped */
  tn_ew_where_kern where;
  /* An operand (rep_k) of a period dividing the rep kernels' pattern,
   * beside a dense one: the rep kernels, ordinary and streaming stores,
   * over every range at once; rep_k -1 where not. */
  int rep_k;
  tn_ew_kern rep[2];
};

static const char *const op_names[TN_COMBINE_NOPS] = {
#define CB_NAME(E, name) #name,
  TN_COMBINE_FOREACH (CB_NAME)
#undef CB_NAME
};

/* The steps' op of each arithmetic op (their orders differ). */
static const tn_ew_op arith_ops[TN_COMBINE_MAX + 1] = { TN_EW_ADD, TN_EW_SUB,
  TN_EW_MUL, TN_EW_DIV, TN_EW_POW, TN_EW_MOD, TN_EW_MIN, TN_EW_MAX };

/* a r b is b swapped[r] a. */
static const tn_ew_rel swapped[TN_EW_NREL]
    = { TN_EW_EQ, TN_EW_NE, TN_EW_GT, TN_EW_GE, TN_EW_LT, TN_EW_LE };

const char *
tn_combine_op_name (tn_combine_op op)
{
  return (unsigned) op < TN_COMBINE_NOPS ? op_names[op] : "?";
}

int
tn_combine_arity (tn_combine_op op)
{
  return op == TN_COMBINE_WHERE ? 3 : 2;
}

static cb_class
op_class (tn_combine_op op)
{
  return op <= TN_COMBINE_MAX   ? CB_ARITH
         : op <= TN_COMBINE_GE  ? CB_REL
         : op <= TN_COMBINE_XOR ? CB_BIT
                                : CB_WHERE;
}

bool
tn_combine_folds (tn_combine_op op)
{
  cb_class c = op_class (op);

  return c == CB_ARITH || c == CB_BIT;
}

static bool
is_half (tn_dtype t)
{
  return t == TN_FLOAT16 || t == TN_BFLOAT16;
}

/* The dtype of the kernels for operands of t. */
static tn_dtype
compute_type (tn_dtype t)
{
  return is_half (t) ? TN_FLOAT32 : t == TN_BOOL ? TN_UINT8 : t;
}

static const char *
opnd_name (const char *const *names, int k, char *buf, size_t cap)
{
  if (names && names[k])
    return names[k];
  snprintf (buf, cap, "operand %d", k);
  return buf;
}

int
tn_combine_check (tn_combine_op op, int n, const tn_dtype *dt,
    const int64_t *const *dims, const int *ranks, const char *const *names,
    int64_t *out_dims, int *out_rank, tn_dtype *out_dtype, int *bad, tn_err *e)
{
  const cb_class cls = op_class (op);
  int64_t acc[TN_MAX_RANK];
  char na[32], nb[32];
  int k, r;

  if (bad)
    *bad = 0;
  if ((unsigned) op >= TN_COMBINE_NOPS) {
    tn_err_set (
        e, "op %d is not one of the %d ops.", (int) op, (int) TN_COMBINE_NOPS);
    return -1;
  }
  if (tn_combine_folds (op) ? n < 2 || n > TN_COMBINE_MAX_INPUTS
                            : n != tn_combine_arity (op)) {
    tn_err_set (e, "%s takes %s operands, not %d.", op_names[op],
        op == TN_COMBINE_WHERE  ? "3 (condition, then, else)"
        : tn_combine_folds (op) ? "2 or more"
                                : "2",
        n);
    return -1;
  }
  for (k = 0; k < n; k++) {
    if (!tn_dtype_valid ((int) dt[k])) {
      tn_err_set (e, "%s has dtype %d, which is none of the %d dtypes.",
          opnd_name (names, k, na, sizeof na), (int) dt[k], TN_NDTYPES);
      goto fail;
    }
  }
  if (cls == CB_WHERE && dt[0] != TN_BOOL) {
    tn_err_set (e,
        "the condition of where (%s) must be bool, not %s; compare it "
        "first (ne with zeros, or a cast to bool).",
        opnd_name (names, 0, na, sizeof na), tn_dtype_name (dt[0]));
    goto fail;
  }
  for (k = cls == CB_WHERE ? 2 : 1; k < n; k++) {
    int ref = cls == CB_WHERE ? 1 : 0;

    if (dt[k] != dt[ref]) {
      tn_err_set (e, "%s is %s but %s is %s: %s needs one dtype.",
          opnd_name (names, k, na, sizeof na), tn_dtype_name (dt[k]),
          opnd_name (names, ref, nb, sizeof nb), tn_dtype_name (dt[ref]),
          op_names[op]);
      goto fail;
    }
  }
  if (cls == CB_ARITH && dt[0] == TN_BOOL) {
    tn_err_set (e,
        "%s does not take bool operands (%s is bool); cast them to an "
        "integer or float dtype first.",
        op_names[op], opnd_name (names, 0, na, sizeof na));
    goto fail;
  }
  if (cls == CB_BIT && tn_dtype_kind (dt[0]) == TN_KIND_FLOAT) {
    tn_err_set (e,
        "%s needs bool or integer operands, and %s is %s; cast them first.",
        op_names[op], opnd_name (names, 0, na, sizeof na),
        tn_dtype_name (dt[0]));
    goto fail;
  }
  if (tn_shape_count (dims[0], ranks[0], NULL, e) < 0)
    goto fail;
  r = ranks[0];
  memcpy (acc, dims[0], sizeof acc[0] * (size_t) r);
  for (k = 1; k < n; k++) {
    tn_err be;

    if (tn_shape_broadcast (acc, &r, acc, r, dims[k], ranks[k], &be) < 0) {
      if (bad)
        *bad = k;
      tn_err_set (e, "%s does not broadcast with %s: %s.",
          opnd_name (names, k, na, sizeof na),
          k == 1 ? opnd_name (names, 0, nb, sizeof nb) : "the ones before it",
          be.msg);
      return -1;
    }
  }
  if (out_dims)
    memcpy (out_dims, acc, sizeof acc[0] * (size_t) r);
  if (out_rank)
    *out_rank = r;
  if (out_dtype)
    *out_dtype = cls == CB_REL ? TN_BOOL : dt[cls == CB_WHERE ? 1 : 0];
  return 0;
fail:
  if (bad)
    *bad = k < n ? k : 0;
  return -1;
}

/* Mode and walk of operand v over the output dims. */
static void
plan_opnd (cb_opnd *o, const tn_view *v, const int64_t *dims, int rank)
{
  int64_t str[TN_MAX_RANK];
  int i;

  memset (o, 0, sizeof *o);
  o->dt = v->dtype;
  o->es = tn_dtype_size (v->dtype);
  o->offset = v->offset;
  for (i = rank - 1; i >= 0; i--) {
    int j = i - (rank - v->rank);

    str[i] = j < 0 || v->dims[j] == 1 ? 0 : v->strides[j];
  }
  tn_ew_walk_init (&o->walk, dims, str, rank);
  if (o->walk.rank == 0 || (o->walk.rank == 1 && o->walk.strides[0] == 0))
    o->mode = CB_SCALAR;
  else if (o->walk.rank == 1 && o->walk.strides[0] == 1)
    o->mode = CB_FULL;
  else if (o->walk.rank == 2 && o->walk.strides[0] == 0
           && o->walk.strides[1] == 1 && o->walk.dims[1] < CB_BLOCK)
    o->mode = CB_TILE, o->period = o->walk.dims[1];
  else
    o->mode = CB_GATHER;
}

int
tn_combine_compile (
    tn_combine_op op, const tn_view *ops, tn_combine **out, tn_err *e)
{
  const tn_ewise_dsp *dsp = tn_ewise_dsp_get ();
  const int nops = tn_combine_arity (op);
  const int64_t *dims[3];
  tn_dtype dt[3];
  int ranks[3], k, full_or_scalar = 0, scalars = 0;
  tn_combine *p;
  tn_dtype ct;

  *out = NULL;
  if ((unsigned) op >= TN_COMBINE_NOPS) {
    tn_err_set (
        e, "op %d is not one of the %d ops.", (int) op, (int) TN_COMBINE_NOPS);
    return -1;
  }
  for (k = 0; k < nops; k++) {
    if (ops[k].rank < 0 || ops[k].rank > TN_MAX_RANK) {
      tn_err_set (e, "operand %d has rank %d; a tensor has rank 0 to %d.", k,
          ops[k].rank, TN_MAX_RANK);
      return -1;
    }
    dt[k] = ops[k].dtype;
    dims[k] = ops[k].dims;
    ranks[k] = ops[k].rank;
  }
  p = calloc (1, sizeof *p);
  if (p == NULL) {
    tn_err_set (e, "cannot allocate a plan.");
    return -1;
  }
  if (tn_combine_check (
          op, nops, dt, dims, ranks, NULL, p->dims, &p->rank, &p->out, NULL, e)
      < 0) {
    free (p);
    return -1;
  }
  p->op = op;
  p->cls = op_class (op);
  p->nops = nops;
  p->in = dt[nops - 1];
  p->half = is_half (p->in) && p->cls != CB_WHERE;
  tn_shape_count (p->dims, p->rank, &p->n, NULL);
  for (k = 0; k < nops; k++) {
    plan_opnd (&p->ops[k], &ops[k], p->dims, p->rank);
    full_or_scalar += p->ops[k].mode <= CB_FULL;
    scalars += p->ops[k].mode == CB_SCALAR;
  }
  /* The select takes n items of each operand: no scalars. */
  p->direct = !p->half && full_or_scalar == nops
              && (p->cls == CB_WHERE ? scalars == 0 : scalars < nops);
  p->runs = !p->half && (p->cls == CB_WHERE ? scalars == 0 : scalars < nops);
  for (k = 0; k < nops; k++)
    p->runs = p->runs && p->ops[k].mode != CB_GATHER;

  ct = compute_type (p->in);
  switch (p->cls) {
  case CB_ARITH: {
    tn_ew_op eo = arith_ops[op];

    p->vv = dsp->step[eo][ct][1];
    p->vs = dsp->step[eo][ct][0];
    p->sv = dsp->rev[eo][ct];
    if (eo <= TN_EW_DIV && (p->in == TN_FLOAT32 || p->in == TN_FLOAT64)
        && (uint64_t) p->n * tn_dtype_size (p->in) >= TN_STREAM_BYTES)
      p->stream = dsp->stream[eo][ct];
    break;
  }
  case CB_REL:
    p->vv = dsp->rel[op - TN_COMBINE_EQ][ct][1];
    p->vs = dsp->rel[op - TN_COMBINE_EQ][ct][0];
    p->sv = dsp->rel[swapped[op - TN_COMBINE_EQ]][ct][0];
    p->sv_swap = true;
    break;
  case CB_BIT:
    p->vv = dsp->bit[op - TN_COMBINE_AND][ct][1];
    p->vs = p->sv = dsp->bit[op - TN_COMBINE_AND][ct][0];
    p->sv_swap = true;
    break;
  case CB_WHERE:
    for (k = 0; (size_t) 1 << k < tn_dtype_size (p->in); k++)
      ;
    p->where = dsp->where[k];
    break;
  }
  p->rep_k = -1;
  if (p->cls == CB_ARITH && p->runs && arith_ops[op] <= TN_EW_DIV
      && (p->in == TN_FLOAT32 || p->in == TN_FLOAT64)) {
    const int64_t len = TN_EW_REP_BYTES / (int64_t) tn_dtype_size (p->in);

    for (k = 0; k < 2; k++) {
      if (p->ops[k].mode == CB_TILE && len % p->ops[k].period == 0
          && p->ops[1 - k].mode == CB_FULL
          && dsp->rep[arith_ops[op]][ct][k == 0][0]) {
        /* A tile first is the kernel's rev side. */
        p->rep_k = k;
        p->rep[0] = dsp->rep[arith_ops[op]][ct][k == 0][0];
        p->rep[1] = dsp->rep[arith_ops[op]][ct][k == 0][1];
      }
    }
  }
  if (p->cls == CB_WHERE ? p->where == NULL
                         : !p->vv || !p->vs || !p->sv) { /* a table hole */
    tn_err_set (
        e, "no kernel for %s on %s.", op_names[op], tn_dtype_name (p->in));
    free (p);
    return -1;
  }
  *out = p;
  return 0;
}

void
tn_combine_free (tn_combine *p)
{
  free (p);
}

tn_dtype
tn_combine_out_dtype (const tn_combine *p)
{
  return p->out;
}

int64_t
tn_combine_count (const tn_combine *p)
{
  return p->n;
}

int
tn_combine_rank (const tn_combine *p)
{
  return p->rank;
}

const int64_t *
tn_combine_dims (const tn_combine *p)
{
  return p->dims;
}

bool
tn_combine_in_place_ok (const tn_combine *p)
{
  /* One item (rank 0, extents of 1) walks as a scalar: it is read before
   * the output is written.  No item (a zero extent, whose walk is not a
   * dense run when it is not the first axis) writes nothing. */
  return p->cls != CB_WHERE
         && (p->n == 0 || p->ops[0].mode == CB_FULL
             || (p->ops[0].mode == CB_SCALAR && p->n <= 1))
         && p->ops[0].offset == 0 && p->ops[0].dt == p->out;
}

/* Running. */

typedef struct {
  const tn_combine *p;
  unsigned char *dst;
  const unsigned char *src[3];  /* each operand's first item */
  const unsigned char *tile[3]; /* NULL: gathered instead (no memory) */
  bool runs;                    /* p->runs, and every tile there */
  bool stream;                  /* p->stream, and dst is no operand */
  /* Scalar operands in the compute type, for the kernels' variant 0
   * (whose division plans stay off: fast false). */
  tn_ew_scalars sc[3];
} cb_ctx;

/* The stored items of operand k for [b, b + m): a pointer into its
 * memory or its tile, or scratch filled. */
static const unsigned char *
opnd_at (const cb_ctx *c, int k, int64_t b, int64_t m, unsigned char *scratch)
{
  const cb_opnd *o = &c->p->ops[k];

  switch (o->mode) {
  case CB_SCALAR:
    return c->src[k];
  case CB_FULL:
    return c->src[k] + b * (int64_t) o->es;
  case CB_TILE:
    if (c->tile[k])
      return c->tile[k] + (b % o->period) * (int64_t) o->es;
    /* fall through */
  default:
    tn_ew_gather (scratch, c->src[k], o->es, &o->walk, b, m);
    return scratch;
  }
}

/* d = a op b for m items, either side a scalar (its tn_ew_scalars). */
static void
apply2 (const cb_ctx *c, void *d, const void *a, bool as, const void *b,
    bool bs, size_t m, unsigned char *tmp)
{
  const tn_combine *p = c->p;

  if (!as && !bs) {
    (c->stream ? p->stream : p->vv) (d, a, b, m);
  } else if (!as) {
    p->vs (d, a, b, m);
  } else if (!bs) {
    p->sv (d, b, a, m);
  } else {
    /* Both scalars: one item, then copies of it. */
    const size_t os = tn_dtype_size (p->half ? TN_FLOAT32 : p->out);
    tn_ew_walk none = { 0 };

    p->vs (tmp, ((const tn_ew_scalars *) a)->c.b, b, 1);
    tn_ew_gather (d, tmp, os, &none, 0, (int64_t) m);
  }
}

static void
run_direct (const cb_ctx *c, int64_t b, int64_t e)
{
  const tn_combine *p = c->p;
  const size_t osz = tn_dtype_size (p->out);
  const void *x[3];
  bool s[3];
  int k;

  for (k = 0; k < p->nops; k++) {
    s[k] = p->ops[k].mode == CB_SCALAR;
    x[k] = s[k] ? (const void *) &c->sc[k]
                : (const void *) opnd_at (c, k, b, e - b, NULL);
  }
  if (p->cls == CB_WHERE)
    p->where (c->dst + b * (int64_t) osz, x[0], x[1], x[2], (size_t) (e - b));
  else
    apply2 (c, c->dst + b * (int64_t) osz, x[0], s[0], x[1], s[1],
        (size_t) (e - b), NULL);
}

static void
run_range (void *vctx, int64_t chunk, int64_t b, int64_t e)
{
  const cb_ctx *c = vctx;
  const tn_combine *p = c->p;
  const size_t osz = tn_dtype_size (p->out);
  _Alignas(64) unsigned char scratch[3][CB_BLOCK * 8];
  _Alignas(64) float wide[3][CB_BLOCK];
  int64_t blk;
  int k;

  (void) chunk;
  if (p->rep_k >= 0 && c->tile[p->rep_k]) {
    /* The pattern from b's phase; the tile holds P + L items and more. */
    const cb_opnd *o = &p->ops[p->rep_k];
    const unsigned char *pat = c->tile[p->rep_k] + (b % o->period) * o->es;

    p->rep[c->stream](c->dst + b * (int64_t) osz,
        c->src[1 - p->rep_k] + b * (int64_t) p->ops[1 - p->rep_k].es, pat,
        (size_t) (e - b));
    if (c->stream)
      tn_stream_fence ();
    return;
  }
  if (p->direct || c->runs) {
    for (blk = b; blk < e; blk += p->direct ? e - b : CB_RUN)
      run_direct (c, blk, p->direct || e - blk < CB_RUN ? e : blk + CB_RUN);
    if (c->stream)
      tn_stream_fence ();
    return;
  }
  for (blk = b; blk < e; blk += CB_BLOCK) {
    const int64_t m = e - blk < CB_BLOCK ? e - blk : CB_BLOCK;
    unsigned char *d = c->dst + blk * (int64_t) osz;
    const void *x[3] = { NULL, NULL, NULL };
    bool s[3] = { false, false, false };

    for (k = 0; k < p->nops; k++) {
      const cb_opnd *o = &p->ops[k];

      s[k] = o->mode == CB_SCALAR;
      if (p->cls == CB_WHERE && s[k]) {
        /* The select takes n items of each. */
        tn_ew_gather (scratch[k], c->src[k], o->es, &(tn_ew_walk){ 0 }, 0, m);
        x[k] = scratch[k];
        s[k] = false;
      } else if (s[k]) {
        x[k] = &c->sc[k];
      } else {
        x[k] = opnd_at (c, k, blk, m, scratch[k]);
        if (p->half) {
          tn_ew_widen (wide[k], x[k], o->dt, (size_t) m);
          x[k] = wide[k];
        }
      }
    }
    if (p->cls == CB_WHERE) {
      p->where (d, x[0], x[1], x[2], (size_t) m);
    } else if (p->half && p->cls == CB_ARITH) {
      /* Computed in float32, rounded once on the way out. */
      apply2 (c, wide[2], x[0], s[0], x[1], s[1], (size_t) m, scratch[2]);
      tn_ew_narrow (d, wide[2], p->out, (size_t) m);
    } else {
      apply2 (c, d, x[0], s[0], x[1], s[1], (size_t) m, scratch[2]);
    }
  }
}

void
tn_combine_run (
    const tn_combine *p, void *dst, const void *const *bases, int nthreads)
{
  /* Tiles of P + CB_RUN items, P < CB_BLOCK, built here once. */
  unsigned char *tiles[3] = { NULL, NULL, NULL };
  cb_ctx c;
  int k;

  if (p->n == 0)
    return;
  memset (&c, 0, sizeof c);
  c.p = p;
  c.dst = dst;
  c.runs = p->runs;
  c.stream = p->stream != NULL;
  for (k = 0; k < p->nops; k++) {
    const cb_opnd *o = &p->ops[k];

    c.src[k] = (const unsigned char *) bases[k] + o->offset * (int64_t) o->es;
    c.stream = c.stream && c.src[k] != c.dst;
    if (o->mode == CB_SCALAR) {
      /* In the compute type: half widened (exactly), bool as uint8. */
      if (p->half)
        tn_ew_widen ((float *) c.sc[k].c.b, c.src[k], o->dt, 1);
      else
        memcpy (c.sc[k].c.b, c.src[k], o->es);
    } else if (o->mode == CB_TILE) {
      /* A rep kernel reads a whole pattern from any phase. */
      const int64_t run = p->n < CB_RUN ? p->n : CB_RUN;
      const int64_t rep = TN_EW_REP_BYTES / (int64_t) o->es;
      const int64_t len = o->period + (run > rep ? run : rep);
      int64_t have = o->period;

      tiles[k] = malloc ((size_t) len * o->es);
      if (tiles[k] == NULL) {
        c.runs = false;
        continue;
      }
      tn_ew_gather (tiles[k], c.src[k], o->es, &o->walk, 0, o->period);
      /* Doubling: the first have items are whole periods. */
      while (have < len) {
        int64_t m = have < len - have ? have : len - have;

        memcpy (
            tiles[k] + have * (int64_t) o->es, tiles[k], (size_t) m * o->es);
        have += m;
      }
      c.tile[k] = tiles[k];
    }
  }
  /* The caller's thread may flush subnormals: the kernels promise IEEE
   * results (core/parallel.h). */
  if (nthreads == 1 || p->n < TN_EWISE_PARALLEL_MIN) {
    tn_fpenv env = tn_fpenv_enter ();

    run_range (&c, 0, 0, p->n);
    tn_fpenv_leave (env);
  } else {
    tn_parallel_run (nthreads, p->n, CB_BLOCK, run_range, &c);
  }
  for (k = 0; k < p->nops; k++)
    free (tiles[k]);
}
