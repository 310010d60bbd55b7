/* Compiling a parsed chain for one dtype and dims, and running it in one
 * blocked pass over memory. */
#include "ewise.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "cpu.h"
#include "ewise-kern.h"
#include "half-private.h"
#include "ewise-parse.h"
#include "parallel.h"
#include "shape.h"

/* Blocks ahead whose memory is requested while a block is computed. */
#define PF_AHEAD 2

/* Where a binary step finds its operand for items [b, b + m). */
typedef enum {
  OPND_NONE,
  OPND_SCALAR, /* one item (two for clamp) */
  OPND_FULL,   /* as many items as the tensor, same layout: data + b */
  OPND_TILE,   /* a period P repeated: data + b % P, data holds P + BLOCK */
  OPND_GATHER  /* anything else: walked by runs over the collapsed dims */
} opnd_mode;

/* Tiles are for operands such as <3> over <480, 640, 3>. */
#define TILE_MAX 65536

typedef struct {
  tn_ew_op op;
  tn_ew_kern fn;    /* NULL for cast */
  tn_dtype in, out; /* dtypes before and after the step */
  size_t rsize;     /* item size of the result as computed (float32 for
                     * float16/bfloat16) */
  bool round;       /* round the float32 result to out, a half dtype */
  bool to_dst;      /* the result is already the output's type: compute it
                     * in the output block */
  opnd_mode mode;
  tn_ew_scalars scalar;
  unsigned char *data;
  int64_t period;
  tn_ew_walk walk;
} ew_pstep;

struct tn_ewise {
  tn_dtype in, out;
  int64_t n;
  bool identity;
  bool direct; /* one kernel step, straight from src to dst */
  /* One cast step from a dtype that is not half: tn_cast straight from
   * src to dst (to a half output too: the block path's cast, widening and
   * narrowing give the same bits in three passes). */
  bool cast_direct;
  /* The direct step with non-temporal stores (a lone cast of a small
   * integer type to float32), or NULL: taken for large outputs. */
  tn_ew_kern cast_stream;
  int nsteps; /* steps that do something */
  ew_pstep steps[];
};

static bool
is_half (tn_dtype t)
{
  return t == TN_FLOAT16 || t == TN_BFLOAT16;
}

/* The dtype a block of t is computed in. */
static tn_dtype
repr (tn_dtype t)
{
  return is_half (t) ? TN_FLOAT32 : t;
}

static bool
float_only (tn_ew_op op)
{
  return op == TN_EW_SQRT || op == TN_EW_EXP || op == TN_EW_LOG
         || op == TN_EW_SIGMOID || op == TN_EW_TANH;
}

static bool
binary (tn_ew_op op)
{
  return op <= TN_EW_MOD;
}

/* Steps that leave a tensor of kind k as it is. */
static bool
identity_on (tn_ew_op op, tn_kind k)
{
  if (k == TN_KIND_INT || k == TN_KIND_UINT)
    if (op == TN_EW_FLOOR || op == TN_EW_CEIL || op == TN_EW_ROUND)
      return true;
  return k == TN_KIND_UINT && (op == TN_EW_ABS || op == TN_EW_RELU);
}

/* "an int32", "a uint8". */
static const char *
art (tn_dtype t)
{
  return tn_dtype_name (t)[0] == 'i' ? "an" : "a";
}

static void
num_format (char *buf, size_t cap, const tn_ew_num *n)
{
  if (n->kind == TN_EW_NUM_INT)
    snprintf (buf, cap, "%" PRId64, n->i);
  else if (n->kind == TN_EW_NUM_UINT)
    snprintf (buf, cap, "%" PRIu64, n->u);
  else
    snprintf (buf, cap, "%.17g", n->f);
}

/* The range of an integer dtype, as text and as exact bounds. */
static void
int_range (tn_dtype t, tn_ew_num *lo, tn_ew_num *hi, char *buf, size_t cap)
{
  int bits = 8 * (int) tn_dtype_size (t);
  char a[24], b[24];

  memset (lo, 0, sizeof *lo);
  memset (hi, 0, sizeof *hi);
  lo->kind = hi->kind = TN_EW_NUM_INT;
  if (tn_dtype_kind (t) == TN_KIND_INT) {
    lo->i = bits == 64 ? INT64_MIN : -(INT64_C (1) << (bits - 1));
    hi->i = bits == 64 ? INT64_MAX : (INT64_C (1) << (bits - 1)) - 1;
  } else if (bits == 64) {
    hi->kind = TN_EW_NUM_UINT;
    hi->u = UINT64_MAX;
  } else {
    hi->i = (INT64_C (1) << bits) - 1;
  }
  lo->f = (double) lo->i;
  hi->f = hi->kind == TN_EW_NUM_UINT ? (double) hi->u : (double) hi->i;
  num_format (a, sizeof a, lo);
  num_format (b, sizeof b, hi);
  snprintf (buf, cap, "%s to %s", a, b);
}

static bool
num_fits (const tn_ew_num *n, tn_dtype t)
{
  tn_ew_num lo, hi;
  char buf[64];

  int_range (t, &lo, &hi, buf, sizeof buf);
  /* A whole float: compare with exact doubles.  The tops of the 64-bit
   * types (2^64 - 1, 2^63 - 1) are no doubles; they round up to 2^64 and
   * 2^63, which do not fit, so those bounds are exclusive. */
  if (n->kind == TN_EW_NUM_FLOAT)
    return n->f >= lo.f
           && (hi.kind == TN_EW_NUM_UINT ? n->f < 0x1p64
               : t == TN_INT64           ? n->f < 0x1p63
                                         : n->f <= hi.f);
  return !tn_ew_num_less (n, &lo) && !tn_ew_num_less (&hi, n);
}

/* Writes a whole number that fits t as one item of t. */
static void
num_store_int (void *out, tn_dtype t, const tn_ew_num *n)
{
  if (n->kind == TN_EW_NUM_UINT) {
    tn_cast (out, t, &n->u, TN_UINT64, 1);
  } else if (n->kind == TN_EW_NUM_INT) {
    tn_cast (out, t, &n->i, TN_INT64, 1);
  } else if (n->f < 0) {
    int64_t v = (int64_t) n->f;

    tn_cast (out, t, &v, TN_INT64, 1);
  } else {
    uint64_t v = (uint64_t) n->f;

    tn_cast (out, t, &v, TN_UINT64, 1);
  }
}

/* A number rounded once to the float dtype t, then widened to the
 * compute type. */
static void
num_store_float (void *out, tn_dtype t, const tn_ew_num *n)
{
  unsigned char item[8];

  if (n->kind == TN_EW_NUM_UINT)
    tn_cast (item, t, &n->u, TN_UINT64, 1);
  else if (n->kind == TN_EW_NUM_INT)
    tn_cast (item, t, &n->i, TN_INT64, 1);
  else
    tn_cast (item, t, &n->f, TN_FLOAT64, 1);
  if (is_half (t))
    tn_cast (out, TN_FLOAT32, item, t, 1);
  else
    memcpy (out, item, tn_dtype_size (t));
}

typedef struct {
  int k, nsteps;
  const tn_ew_step *st;
  tn_dtype t;
} step_ctx;

#define STEP_FMT "step %d of %d (%s): "
#define STEP_ARGS(s) (s)->k, (s)->nsteps, (s)->st->text

/* A scalar operand converted to the compute type of s->t. */
static int
convert_num (const step_ctx *s, const tn_ew_num *n, void *out, tn_err *e)
{
  char num[40], range[64];
  tn_ew_num lo, hi;

  if (tn_dtype_kind (s->t) == TN_KIND_FLOAT) {
    num_store_float (out, s->t, n);
    return 0;
  }
  num_format (num, sizeof num, n);
  if (!tn_ew_num_whole (n)) {
    tn_err_set (e,
        STEP_FMT "operand %s is not a whole number, and %s %s tensor takes "
                 "whole operands only; put a cast:float32 step first.",
        STEP_ARGS (s), num, art (s->t), tn_dtype_name (s->t));
    return -1;
  }
  if (!num_fits (n, s->t)) {
    int_range (s->t, &lo, &hi, range, sizeof range);
    tn_err_set (e, STEP_FMT "operand %s does not fit %s, which holds %s.",
        STEP_ARGS (s), num, tn_dtype_name (s->t), range);
    return -1;
  }
  if (s->st->op == TN_EW_POW && tn_ew_num_less (n, &(tn_ew_num){ 0 })) {
    tn_err_set (e,
        STEP_FMT "%s %s tensor cannot be raised to the negative power %s; "
                 "put a cast:float32 step first.",
        STEP_ARGS (s), art (s->t), tn_dtype_name (s->t), num);
    return -1;
  }
  if (out)
    num_store_int (out, s->t, n);
  return 0;
}

/* A tensor operand checked item by item for an integer s->t; the first
 * item that does not convert is named. */
static int
check_tensor_values (const step_ctx *s, const tn_ew_tensor *t, tn_err *e)
{
  tn_ew_num zero = { 0 };
  char num[40], range[64];
  tn_ew_num lo, hi;
  int64_t i;

  if (tn_dtype_kind (s->t) == TN_KIND_FLOAT || t->count == 0)
    return 0;
  if (t->all_whole && num_fits (&t->lo, s->t) && num_fits (&t->hi, s->t)
      && (s->st->op != TN_EW_POW || !tn_ew_num_less (&t->lo, &zero)))
    return 0;
  int_range (s->t, &lo, &hi, range, sizeof range);
  for (i = 0; i < t->count; i++) {
    tn_ew_num n = tn_ew_tensor_item (t, i);

    num_format (num, sizeof num, &n);
    if (!tn_ew_num_whole (&n)) {
      tn_err_set (e,
          STEP_FMT "item %" PRId64 " of the operand (%s) is not a whole "
                   "number, and %s %s tensor takes whole operands only; put "
                   "a cast:float32 step first.",
          STEP_ARGS (s), i, num, art (s->t), tn_dtype_name (s->t));
      return -1;
    }
    if (!num_fits (&n, s->t)) {
      tn_err_set (e,
          STEP_FMT "item %" PRId64 " of the operand (%s) does not fit %s, "
                   "which holds %s.",
          STEP_ARGS (s), i, num, tn_dtype_name (s->t), range);
      return -1;
    }
    if (s->st->op == TN_EW_POW && tn_ew_num_less (&n, &zero)) {
      tn_err_set (e,
          STEP_FMT "item %" PRId64 " of the operand is the negative power "
                   "%s, which %s %s tensor cannot be raised to; put a "
                   "cast:float32 step first.",
          STEP_ARGS (s), i, num, art (s->t), tn_dtype_name (s->t));
      return -1;
    }
  }
  return 0;
}

/* The operand must broadcast to the tensor's dims without changing them. */
static int
check_broadcast (const step_ctx *s, const tn_ew_tensor *t, const int64_t *dims,
    int rank, tn_err *e)
{
  int64_t out[TN_MAX_RANK];
  char sd[120], so[120];
  int orank, i;
  tn_err te;

  if (tn_shape_broadcast (out, &orank, dims, rank, t->dims, t->rank, &te) < 0) {
    tn_err_set (e, STEP_FMT "the tensor's and the operand's %s.", STEP_ARGS (s),
        te.msg);
    return -1;
  }
  tn_shape_format (sd, sizeof sd, dims, rank);
  tn_shape_format (so, sizeof so, t->dims, t->rank);
  if (orank > rank) {
    tn_err_set (e,
        STEP_FMT "operand dims %s have rank %d, more than the %d of the "
                 "tensor dims %s; the output keeps the input's dims.",
        STEP_ARGS (s), so, t->rank, rank, sd);
    return -1;
  }
  for (i = 0; i < rank; i++) {
    if (out[i] != dims[i]) {
      tn_err_set (e,
          STEP_FMT "operand dims %s would stretch axis %d of the tensor dims "
                   "%s from %" PRId64 " to %" PRId64
                   "; the output keeps the input's dims.",
          STEP_ARGS (s), so, i, sd, dims[i], out[i]);
      return -1;
    }
  }
  return 0;
}

/* Lays out a tensor operand for the run: converted to the compute type,
 * then a scalar, the full tensor, a tile or a gather plan. */
static int
plan_tensor (ew_pstep *ps, const tn_ew_tensor *t, tn_dtype cur,
    const int64_t *dims, int rank, tn_err *e)
{
  int64_t ostr[TN_MAX_RANK], stride = 1;
  size_t rs = ps->rsize, n = (size_t) t->count;
  const int64_t *gd = ps->walk.dims, *gs = ps->walk.strides;
  unsigned char *conv;
  int i, g;

  conv = malloc (n * (rs > 2 ? rs : 2) + 1);
  if (conv == NULL) {
    tn_err_set (
        e, "cannot allocate %zu bytes for a converted operand.", n * rs);
    return -1;
  }
  if (is_half (cur)) {
    /* Cast to the half dtype first (one rounding), then widen. */
    unsigned char *h = malloc (n * 2 + 1);

    if (h == NULL) {
      free (conv);
      tn_err_set (
          e, "cannot allocate %zu bytes for a converted operand.", n * 2);
      return -1;
    }
    tn_cast (h, cur, t->data, t->dtype, n);
    tn_cast (conv, TN_FLOAT32, h, cur, n);
    free (h);
  } else {
    tn_cast (conv, cur, t->data, t->dtype, n);
  }

  /* The operand's strides over the tensor's axes: 0 where it broadcasts. */
  for (i = rank - 1; i >= 0; i--) {
    int j = i - (rank - t->rank);

    if (j < 0 || t->dims[j] == 1) {
      ostr[i] = 0;
    } else {
      ostr[i] = stride;
      stride *= t->dims[j];
    }
  }
  /* Axes of extent 1 dropped, neighbours the operand walks alike merged
   * (neighbouring broadcast axes among them). */
  tn_ew_walk_init (&ps->walk, dims, ostr, rank);
  g = ps->walk.rank;

  if (g == 0 || (g == 1 && gs[0] == 0) || t->count <= 1) {
    ps->mode = OPND_SCALAR;
    if (t->count > 0)
      memcpy (ps->scalar.c.b, conv, rs);
    free (conv);
    return 0;
  }
  if (g == 1) { /* the operand is the tensor's own shape */
    ps->mode = OPND_FULL;
    ps->data = conv;
    return 0;
  }
  if (g == 2 && gs[0] == 0 && gs[1] == 1 && gd[1] <= TILE_MAX) {
    int64_t p = gd[1], len = p + TN_EWISE_BLOCK, k;
    unsigned char *tile = malloc ((size_t) len * rs);

    if (tile == NULL) {
      free (conv);
      tn_err_set (e, "cannot allocate %zu bytes for an operand tile.",
          (size_t) len * rs);
      return -1;
    }
    for (k = 0; k < len; k++)
      memcpy (tile + k * rs, conv + (k % p) * rs, rs);
    free (conv);
    ps->mode = OPND_TILE;
    ps->data = tile;
    ps->period = p;
    return 0;
  }
  ps->mode = OPND_GATHER;
  ps->data = conv;
  return 0;
}

/* Checks step s->st on a tensor of dtype s->t (and dims when rank >= 0);
 * fills ps when not NULL.  *next gets the dtype after the step, *skip
 * whether the step leaves the tensor as it is. */
static int
compile_step (const step_ctx *s, const int64_t *dims, int rank,
    const tn_ewise_dsp *dsp, ew_pstep *ps, tn_dtype *next, bool *skip,
    tn_err *e)
{
  const tn_ew_step *st = s->st;
  tn_kind kind = tn_dtype_kind (s->t);
  unsigned char tmp[16];
  int i;

  *next = s->t;
  *skip = false;
  if (st->op == TN_EW_CAST) {
    *next = st->cast_to;
    *skip = st->cast_to == s->t && s->t != TN_BOOL;
    if (ps) {
      ps->op = TN_EW_CAST;
      ps->in = s->t;
      ps->out = st->cast_to;
      ps->rsize = tn_dtype_size (repr (st->cast_to));
    }
    return 0;
  }
  if (kind == TN_KIND_BOOL) {
    tn_err_set (e,
        STEP_FMT "a bool tensor takes cast steps only; put cast:uint8 or "
                 "cast:float32 first.",
        STEP_ARGS (s));
    return -1;
  }
  if (float_only (st->op) && kind != TN_KIND_FLOAT) {
    tn_err_set (e,
        STEP_FMT "%s needs a float tensor but the tensor is %s there; put a "
                 "cast:float32 step before it.",
        STEP_ARGS (s), tn_ew_op_name (st->op), tn_dtype_name (s->t));
    return -1;
  }
  if (ps) {
    ps->op = st->op;
    ps->in = ps->out = s->t;
    ps->rsize = tn_dtype_size (repr (s->t));
  }

  if (st->op == TN_EW_CLAMP) {
    unsigned char b[2][8];

    for (i = 0; i < 2; i++) {
      if (st->num[i].kind == TN_EW_NUM_FLOAT && isnan (st->num[i].f)) {
        tn_err_set (e, STEP_FMT "a clamp bound may not be NaN.", STEP_ARGS (s));
        return -1;
      }
      if (convert_num (s, &st->num[i], b[i], e) < 0)
        return -1;
    }
    if (tn_get_f64 (b[0], repr (s->t)) > tn_get_f64 (b[1], repr (s->t))
        || tn_ew_num_less (&st->num[1], &st->num[0])) {
      char lo[40], hi[40];

      num_format (lo, sizeof lo, &st->num[0]);
      num_format (hi, sizeof hi, &st->num[1]);
      tn_err_set (e, STEP_FMT "the lower bound %s is above the upper bound %s.",
          STEP_ARGS (s), lo, hi);
      return -1;
    }
    if (ps) {
      ps->mode = OPND_SCALAR;
      memcpy (ps->scalar.c.b, b[0], ps->rsize);
      memcpy (ps->scalar.c.b + ps->rsize, b[1], ps->rsize);
    }
  } else if (binary (st->op) && st->tensor) {
    if (check_tensor_values (s, st->tensor, e) < 0)
      return -1;
    if (rank >= 0 && check_broadcast (s, st->tensor, dims, rank, e) < 0)
      return -1;
  } else if (binary (st->op)) {
    if (convert_num (s, &st->num[0], tmp, e) < 0)
      return -1;
    if (ps) {
      ps->mode = OPND_SCALAR;
      memcpy (ps->scalar.c.b, tmp, ps->rsize);
      /* Proven once here, not per run (ewise-kern.c). */
      if (st->op == TN_EW_DIV && repr (s->t) == TN_FLOAT32 && dsp->rdiv_check) {
        float c;

        memcpy (&c, tmp, sizeof c);
        tn_ew_rdiv_plan (&ps->scalar.div[0], c);
      }
    }
  }

  if (identity_on (st->op, kind)) {
    *skip = true;
    return 0;
  }
  if (ps) {
    if (binary (st->op) && st->tensor
        && plan_tensor (ps, st->tensor, s->t, dims, rank, e) < 0)
      return -1;
    /* variant 1 for the modes with n operand items */
    ps->fn = dsp->step[st->op][repr (s->t)][ps->mode > OPND_SCALAR];
    if (ps->fn == NULL) { /* a table hole would be a bug in the kernels */
      tn_err_set (e, STEP_FMT "no kernel for %s on %s.", STEP_ARGS (s),
          tn_ew_op_name (st->op), tn_dtype_name (s->t));
      return -1;
    }
  }
  return 0;
}

static bool
fusable (const ew_pstep *ps)
{
  return ps->op <= TN_EW_DIV && ps->mode == OPND_SCALAR
         && (ps->in == TN_FLOAT32 || ps->in == TN_FLOAT64);
}

static bool
is_relu_on (const ew_pstep *ps, tn_dtype t)
{
  return ps && ps->op == TN_EW_RELU && ps->in == t;
}

/* The least binade of x + a (or x - a) when it is not 0, for every float
 * x: near a both are multiples of half an ulp of a, far from it the sum
 * is large.  x_emin when a is 0 (the sum is x), INT_MIN when a is not
 * finite. */
static int
sum_emin (const ew_pstep *ps, int x_emin)
{
  float a;
  int e;

  memcpy (&a, ps->scalar.c.b, sizeof a);
  if (!isfinite (a))
    return INT_MIN;
  if (a == 0)
    return x_emin;
  e = ilogb (a) - 24;
  return e < -149 ? -149 : e;
}

static bool
adds (const ew_pstep *ps)
{
  return ps->op == TN_EW_ADD || ps->op == TN_EW_SUB;
}

/* Neighbouring arithmetic steps with scalar operands on float32/float64
 * run as one loop (the table's runs), and so does a cast from a small
 * integer type to float32 with up to two such steps after it, a relu
 * after either included: fewer steps over each block, and one straight
 * loop for "mul:a,add:b" or "cast:float32,sub:a,div:b,relu". */
static void
fuse_pairs (tn_ewise *p, const tn_ewise_dsp *dsp)
{
  int i = 0, j = 0;

  while (i < p->nsteps) {
    ew_pstep *s[4] = { NULL };
    ew_pstep m = p->steps[i];
    tn_ew_kern f = NULL;
    int used = 1, k;

    for (k = 0; k < 4 && i + k < p->nsteps; k++)
      s[k] = &p->steps[i + k];
    /* A cast from a float is no run: float64's are its own pairs. */
    if (s[0]->op == TN_EW_CAST && s[0]->out == TN_FLOAT32
        && tn_dtype_kind (s[0]->in) != TN_KIND_FLOAT) {
      int na = !(s[1] && fusable (s[1])) ? 0 : s[2] && fusable (s[2]) ? 2 : 1;
      bool relu = is_relu_on (s[1 + na], TN_FLOAT32);

      f = dsp->run[s[0]->in][na > 0 ? (int) s[1]->op : TN_EW_NOP]
                  [na > 1 ? (int) s[2]->op : TN_EW_NOP][relu];
      if (f) {
        m.op = na > 0 ? s[1]->op : TN_EW_MUL; /* not CAST: a kernel */
        m.mode = OPND_SCALAR;
        /* A division sees small integers, or those plus a: +0 but
         * neither inf nor -0. */
        if (na > 0) {
          memcpy (m.scalar.c.b, s[1]->scalar.c.b, 4);
          m.scalar.div[0] = s[1]->scalar.div[0];
          tn_ew_rdiv_bare (&m.scalar.div[0], 0, false);
        }
        if (na > 1) {
          memcpy (m.scalar.c.b + 4, s[2]->scalar.c.b, 4);
          m.scalar.div[1] = s[2]->scalar.div[0];
          if (adds (s[1]))
            tn_ew_rdiv_bare (&m.scalar.div[1], sum_emin (s[1], 0), false);
        }
        used = 1 + na + relu;
      }
    } else if (fusable (s[0]) && s[1] && fusable (s[1])
               && s[0]->out == s[1]->in) {
      bool relu = is_relu_on (s[2], s[0]->in);

      f = dsp->run[s[0]->in][s[0]->op][s[1]->op][relu];
      if (f) {
        memcpy (m.scalar.c.b + m.rsize, s[1]->scalar.c.b, m.rsize);
        m.scalar.div[1] = s[1]->scalar.div[0];
        /* "sub:a,div:c" never divides a tiny number unless a is tiny. */
        if (adds (s[0]) && s[0]->in == TN_FLOAT32)
          tn_ew_rdiv_bare (&m.scalar.div[1], sum_emin (s[0], INT_MIN), true);
        used = 2 + relu;
      }
    }
    if (f)
      m.fn = f;
    p->steps[j++] = m;
    i += used;
  }
  p->nsteps = j;
}

int
tn_ew_bare_divisions (const tn_ewise *p)
{
  int i, n = 0;

  for (i = 0; i < p->nsteps; i++)
    n += p->steps[i].scalar.div[0].bare + p->steps[i].scalar.div[1].bare;
  return n;
}

static void
pstep_clear (ew_pstep *ps)
{
  free (ps->data);
  ps->data = NULL;
}

void
tn_ewise_free (tn_ewise *p)
{
  int i;

  if (p == NULL)
    return;
  for (i = 0; i < p->nsteps; i++)
    pstep_clear (&p->steps[i]);
  free (p);
}

static int
compile (const tn_ewise_chain *c, tn_dtype in, const int64_t *dims, int rank,
    tn_ewise **out, tn_dtype *out_dtype, tn_err *e)
{
  int nsteps = c ? c->nsteps : 0, i, k = 0;
  const tn_ewise_dsp *dsp = tn_ewise_dsp_get ();
  tn_dtype cur = in;
  tn_ewise *p = NULL;
  int64_t n = 0;

  if (!tn_dtype_valid ((int) in)) {
    tn_err_set (
        e, "input dtype %d is not one of the %d dtypes.", (int) in, TN_NDTYPES);
    return -1;
  }
  if (rank >= 0 && tn_shape_count (dims, rank, &n, e) < 0)
    return -1;
  if (out) {
    p = calloc (1, sizeof *p + sizeof (ew_pstep) * (size_t) (nsteps + 1));
    if (p == NULL) {
      tn_err_set (e, "cannot allocate a chain of %d steps.", nsteps);
      return -1;
    }
    p->in = in;
    p->n = n;
  }
  for (i = 0; i < nsteps; i++) {
    step_ctx s = { i + 1, nsteps, &c->steps[i], cur };
    ew_pstep *ps = p ? &p->steps[k] : NULL;
    tn_dtype next;
    bool skip;

    if (compile_step (&s, dims, rank, dsp, ps, &next, &skip, e) < 0) {
      if (ps)
        pstep_clear (ps);
      tn_ewise_free (p);
      return -1;
    }
    if (ps && skip)
      pstep_clear (ps), memset (ps, 0, sizeof *ps);
    else if (ps)
      p->nsteps = ++k;
    cur = next;
  }
  if (out_dtype)
    *out_dtype = cur;
  if (p == NULL)
    return 0;

  p->out = cur;
  p->identity = p->nsteps == 0 && in == cur;
  fuse_pairs (p, dsp);
  for (i = 0; i < p->nsteps; i++) {
    ew_pstep *ps = &p->steps[i];

    ps->to_dst = !is_half (cur) && repr (ps->out) == cur;
    /* The output's narrowing rounds the last step. */
    ps->round = is_half (ps->out) && ps->op != TN_EW_CAST && i + 1 < p->nsteps;
  }
  p->direct
      = p->nsteps == 1 && p->steps[0].op != TN_EW_CAST && !is_half (in)
        && !is_half (cur)
        && (p->steps[0].mode == OPND_NONE || p->steps[0].mode == OPND_SCALAR
            || p->steps[0].mode == OPND_FULL);
  p->cast_direct
      = p->nsteps == 1 && p->steps[0].op == TN_EW_CAST && !is_half (in);
  if (p->direct && p->out == TN_FLOAT32
      && p->steps[0].fn == dsp->run[in][TN_EW_NOP][TN_EW_NOP][0])
    p->cast_stream = dsp->cast_stream[in];
  *out = p;
  return 0;
}

int
tn_ewise_chain_check (const tn_ewise_chain *c, tn_dtype in, const int64_t *dims,
    int rank, tn_dtype *out, tn_err *e)
{
  return compile (c, in, dims, rank, NULL, out, e);
}

int
tn_ewise_compile (const tn_ewise_chain *c, tn_dtype in, const int64_t *dims,
    int rank, tn_ewise **out, tn_err *e)
{
  *out = NULL;
  if (rank < 0 || rank > TN_MAX_RANK) {
    tn_err_set (e,
        "cannot compile a chain for rank %d; the rank must be 0 "
        "to %d.",
        rank, TN_MAX_RANK);
    return -1;
  }
  return compile (c, in, dims, rank, out, NULL, e);
}

tn_dtype
tn_ewise_in_dtype (const tn_ewise *p)
{
  return p->in;
}

tn_dtype
tn_ewise_out_dtype (const tn_ewise *p)
{
  return p->out;
}

int64_t
tn_ewise_count (const tn_ewise *p)
{
  return p->n;
}

bool
tn_ewise_is_identity (const tn_ewise *p)
{
  return p->identity;
}

bool
tn_ewise_in_place_ok (const tn_ewise *p)
{
  return tn_dtype_size (p->in) == tn_dtype_size (p->out);
}

/* Running. */

static const void *
operand_at (const ew_pstep *ps, int64_t b, int64_t m, unsigned char *scratch)
{
  switch (ps->mode) {
  case OPND_SCALAR:
    return ps->scalar.c.b;
  case OPND_FULL:
    return ps->data + b * (int64_t) ps->rsize;
  case OPND_TILE:
    return ps->data + (b % ps->period) * (int64_t) ps->rsize;
  case OPND_GATHER:
    tn_ew_gather (scratch, ps->data, ps->rsize, &ps->walk, b, m);
    return scratch;
  default:
    return NULL;
  }
}

/* cur holds items of the step's input in its compute type. */
static void
cast_block (const ew_pstep *ps, void *d, const void *cur, size_t m, void *tmp)
{
  tn_dtype from = repr (ps->in);

  if (is_half (ps->out)) {
    tn_cast (tmp, ps->out, cur, from, m);
    tn_ew_widen (d, tmp, ps->out, m);
  } else {
    tn_cast (d, ps->out, cur, from, m);
  }
}

typedef struct {
  const tn_ewise *p;
  unsigned char *dst;
  const unsigned char *src;
  /* The output is past the caches (TN_STREAM_BYTES, out of place): the
   * direct cast by p->cast_stream or the half table's stream entry, any
   * other chain block by block into L1 and out by tn_stream_copy. */
  bool stream;
} run_ctx;

/* Bytes of output a streamed direct step computes in L1 per call: larger
 * than TN_EWISE_BLOCK's, as the step is one call a block. */
#define STREAM_BLOCK_BYTES 8192

/* A direct step over [b, e) into an L1 block, copied out past the caches:
 * an ordinary store of an output that large reads each line first (a
 * fused uint8 -> float32 cast, sub, div of 16M items moves 151 MB where
 * 84 would do). */
static void
run_direct_stream (const run_ctx *ctx, int64_t b, int64_t e)
{
  const tn_ewise *p = ctx->p;
  const ew_pstep *ps = &p->steps[0];
  const size_t isz = tn_dtype_size (p->in), osz = tn_dtype_size (p->out);
  const int64_t per = STREAM_BLOCK_BYTES / (int64_t) osz;
  _Alignas(64) unsigned char blk[STREAM_BLOCK_BYTES];

  for (int64_t i = b; i < e; i += per) {
    int64_t m = e - i < per ? e - i : per;

    ps->fn (blk, ctx->src + i * (int64_t) isz, operand_at (ps, i, m, NULL),
        (size_t) m);
    tn_stream_copy (ctx->dst + i * (int64_t) osz, blk, (size_t) m * osz);
  }
  tn_stream_fence ();
}

static void
run_range (void *vctx, int64_t chunk, int64_t b, int64_t e)
{
  const run_ctx *ctx = vctx;
  const tn_ewise *p = ctx->p;
  const size_t isz = tn_dtype_size (p->in), osz = tn_dtype_size (p->out);
  /* Two blocks to ping-pong intermediates, one for operands and casts. */
  _Alignas(64) double buf[3][TN_EWISE_BLOCK];
  int64_t blk;
  int k;

  (void) chunk;
  if (p->direct && ctx->stream && !p->cast_stream) {
    run_direct_stream (ctx, b, e);
    return;
  }
  if (p->direct) {
    const ew_pstep *ps = &p->steps[0];

    (ctx->stream ? p->cast_stream : ps->fn) (ctx->dst + b * (int64_t) osz,
        ctx->src + b * (int64_t) isz, operand_at (ps, b, e - b, NULL),
        (size_t) (e - b));
    if (ctx->stream)
      tn_stream_fence ();
    return;
  }
  if (p->cast_direct && ctx->stream) { /* float32 to a half type */
    uint16_t *d = (uint16_t *) (void *) (ctx->dst + b * (int64_t) osz);
    const float *s
        = (const float *) (const void *) (ctx->src + b * (int64_t) isz);
    const tn_half_dsp *hd = tn_half_dsp_get ();

    (p->out == TN_FLOAT16 ? hd->f32_to_f16_stream : hd->f32_to_bf16_stream) (
        d, s, (size_t) (e - b));
    tn_stream_fence ();
    return;
  }
  if (p->cast_direct) {
    tn_cast (ctx->dst + b * (int64_t) osz, p->out, ctx->src + b * (int64_t) isz,
        p->in, (size_t) (e - b));
    return;
  }
  for (blk = b; blk < e; blk += TN_EWISE_BLOCK) {
    size_t m = (size_t) (e - blk < TN_EWISE_BLOCK ? e - blk : TN_EWISE_BLOCK);
    unsigned char *dblk = ctx->dst + blk * (int64_t) osz;
    const void *cur = ctx->src + blk * (int64_t) isz;

    /* While the steps run over this block in L1, memory brings in a
     * block further on: the pass costs what the slower of the two
     * costs, not their sum. */
    if (blk + (PF_AHEAD + 1) * TN_EWISE_BLOCK <= e) {
      const unsigned char *ns
          = (const unsigned char *) cur + PF_AHEAD * TN_EWISE_BLOCK * isz;
      size_t i;

      if (ctx->dst == ctx->src) {
        for (i = 0; i < TN_EWISE_BLOCK * isz; i += 64)
          __builtin_prefetch (ns + i, 1);
      } else {
        for (i = 0; i < TN_EWISE_BLOCK * isz; i += 64)
          __builtin_prefetch (ns + i, 0);
        /* (a streamed output is never read) */
        for (i = 0; i < TN_EWISE_BLOCK * osz && !ctx->stream; i += 64)
          __builtin_prefetch (dblk + PF_AHEAD * TN_EWISE_BLOCK * osz + i, 1);
      }
    }
    if (is_half (p->in)) {
      tn_ew_widen ((float *) buf[0], cur, p->in, m);
      cur = buf[0];
    }
    for (k = 0; k < p->nsteps; k++) {
      const ew_pstep *ps = &p->steps[k];
      void *out = ps->to_dst && !ctx->stream
                      ? (void *) dblk
                      : (cur == buf[0] ? (void *) buf[1] : (void *) buf[0]);

      if (ps->op == TN_EW_CAST) {
        cast_block (ps, out, cur, m, buf[2]);
      } else {
        ps->fn (
            out, cur, operand_at (ps, blk, (int64_t) m, (void *) buf[2]), m);
        if (ps->round)
          tn_ew_round (out, ps->out, m, buf[2]);
      }
      cur = out;
    }
    if (ctx->stream) {
      void *o = cur == buf[0] ? (void *) buf[1] : (void *) buf[0];

      if (is_half (p->out))
        tn_ew_narrow (o, cur, p->out, m);
      tn_stream_copy (dblk, is_half (p->out) ? o : cur, m * osz);
    } else if (cur != dblk) {
      if (is_half (p->out))
        tn_ew_narrow (dblk, cur, p->out, m);
      else
        memcpy (dblk, cur, m * osz);
    }
  }
  if (ctx->stream)
    tn_stream_fence ();
}

void
tn_ewise_run (const tn_ewise *p, void *dst, const void *src, int nthreads)
{
  run_ctx ctx = { p, dst, src, false };

  if (p->n == 0)
    return;
  if (p->identity) {
    if (dst != src)
      memcpy (dst, src, (size_t) p->n * tn_dtype_size (p->in));
    return;
  }
  /* Streamed: a direct cast with a stream kernel (a small integer type
   * to float32 has the ewise table's, float32 to a half type the half
   * table's; tn_cast writes the others), and every other chain where
   * tn_stream_copy has non-temporal stores. */
  ctx.stream = (p->cast_stream
                   || (p->cast_direct ? p->in == TN_FLOAT32 && is_half (p->out)
                                      : TN_HAVE_STREAM_COPY))
               && dst != src
               && (uint64_t) p->n * tn_dtype_size (p->out) >= TN_STREAM_BYTES;
  /* Items are independent, so where the borders fall cannot change a
   * bit; one thread takes the whole range in one call.  The caller's
   * thread may flush subnormals (FTZ/DAZ): the steps promise IEEE
   * results, so they run in the default environment (core/parallel.h). */
  if (nthreads == 1 || p->n < TN_EWISE_PARALLEL_MIN) {
    tn_fpenv env = tn_fpenv_enter ();

    run_range (&ctx, 0, 0, p->n);
    tn_fpenv_leave (env);
  } else {
    tn_parallel_run (nthreads, p->n, TN_EWISE_BLOCK, run_range, &ctx);
  }
}
