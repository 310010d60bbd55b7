/* The GEMM driver: NumPy matmul semantics (rank 1, batch broadcasting,
 * transposes as strides) over packed panels and the micro-kernels.
 *
 * Loops, per output block of mc rows x nc columns (one task of the worker
 * pool): for each k block of kc, pack the A block, then for each NR strip
 * of the pre-packed B, for each MR row panel, call the micro-kernel.  B is
 * packed once: for constant weights before any product, else by the first
 * items of the tasks' own job, each run of panels by one thread, and a
 * task starts only once every run is packed (it yields meanwhile; the
 * packer of a run is a thread that already holds it, so the wait ends).
 * Sums depend on kc alone, never on mc, nc or the thread count. */
#include "gemm.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gemm-pack.h"
#include "half.h"
#include "parallel.h"

/* ------------------------------------------------------ type & dims --- */

int
tn_matmul_dtype (tn_dtype a, tn_dtype b, tn_dtype *out, tn_err *e)
{
  if (a == b && tn_gemm_kind_of (a) >= 0) {
    *out = a == TN_INT8 ? TN_INT32 : a;
    return 0;
  }
  if (a != b)
    tn_err_set (e, "matmul needs both operands of one type: %s times %s",
        tn_dtype_name (a) ? tn_dtype_name (a) : "?",
        tn_dtype_name (b) ? tn_dtype_name (b) : "?");
  else
    tn_err_set (e,
        "matmul has no kernel for %s: it takes float32, float64, float16, "
        "bfloat16 and int8",
        tn_dtype_name (a) ? tn_dtype_name (a) : "?");
  return -1;
}

/* "[2,3]", with " (transposed)" when read transposed. */
static void
fmt_dims (char *buf, size_t cap, const int64_t *d, int r, bool t)
{
  size_t n = 0;

  n += snprintf (buf + n, cap - n, "[");
  for (int i = 0; i < r && n < cap; i++)
    n += snprintf (buf + n, cap - n, "%s%lld", i ? "," : "", (long long) d[i]);
  if (n < cap)
    snprintf (buf + n, cap - n, "]%s", t && r >= 2 ? " (transposed)" : "");
}

/* m, k of a (or k, n of b) after promotion of rank 1 and the transpose. */
static void
mat_extents (
    const int64_t *d, int r, bool t, bool is_b, int64_t *rows, int64_t *cols)
{
  if (r == 1) {
    *rows = is_b ? d[0] : 1;
    *cols = is_b ? 1 : d[0];
  } else {
    *rows = t ? d[r - 1] : d[r - 2];
    *cols = t ? d[r - 2] : d[r - 1];
  }
}

int
tn_matmul_dims (const int64_t *adims, int arank, bool ta, const int64_t *bdims,
    int brank, bool tb, int64_t *out, int *orank, tn_err *e)
{
  char as[160], bs[160];
  int64_t m, ka, kb, n;
  int abr, bbr, obr;

  /* formatted only for a message: the product of small tensors is a
   * microsecond, and snprintf would be a good part of it */
#define FMT_DIMS()                                                             \
  do {                                                                         \
    fmt_dims (as, sizeof as, adims, arank > 0 ? arank : 0, ta);                \
    fmt_dims (bs, sizeof bs, bdims, brank > 0 ? brank : 0, tb);                \
  } while (0)
  if (arank < 1 || brank < 1 || arank > TN_MAX_RANK || brank > TN_MAX_RANK) {
    FMT_DIMS ();
    tn_err_set (e,
        "matmul needs operands of rank 1 to %d: %s times %s has ranks %d "
        "and %d",
        TN_MAX_RANK, as, bs, arank, brank);
    return -1;
  }
  mat_extents (adims, arank, ta, false, &m, &ka);
  mat_extents (bdims, brank, tb, true, &kb, &n);
  if (ka != kb) {
    FMT_DIMS ();
    tn_err_set (e,
        "matmul needs the inner extents to agree: %s times %s, %lld "
        "against %lld",
        as, bs, (long long) ka, (long long) kb);
    return -1;
  }
  abr = arank > 2 ? arank - 2 : 0;
  bbr = brank > 2 ? brank - 2 : 0;
  obr = abr > bbr ? abr : bbr;
  for (int i = 0; i < obr; i++) {
    int ai = i - (obr - abr), bi = i - (obr - bbr);
    int64_t x = ai >= 0 ? adims[ai] : 1, y = bi >= 0 ? bdims[bi] : 1;

    if (x != y && x != 1 && y != 1) {
      FMT_DIMS ();
      tn_err_set (e,
          "matmul needs the batch axes to broadcast: %s times %s, batch "
          "axis %d has %lld against %lld and neither is 1",
          as, bs, i, (long long) x, (long long) y);
      return -1;
    }
    out[i] = x == 1 ? y : x;
  }
#undef FMT_DIMS
  *orank = obr;
  if (arank >= 2)
    out[(*orank)++] = m;
  if (brank >= 2)
    out[(*orank)++] = n;
  return 0;
}

/* tn_parallel_ncpus reads sysfs (microseconds): ask once. */
static int
ncpus (void)
{
  static atomic_int n;
  int v = atomic_load (&n);

  if (v == 0) {
    v = tn_parallel_ncpus ();
    atomic_store (&n, v);
  }
  return v;
}

/* ---------------------------------------------------------- buffers --- */

static void *
alloc64 (size_t bytes)
{
  return aligned_alloc (64, (bytes + 63) / 64 * 64 + 64);
}

/* Per-thread blocks that outlive a call: a pipeline multiplies buffer
 * after buffer and a fresh 150 KB block each time would fault its pages
 * in again.  A pthread key, not _Thread_local, so that a streaming thread
 * that exits frees its blocks. */
typedef struct {
  void *p[3];
  size_t cap[3];
} tls_blocks;

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void
tls_free (void *data)
{
  tls_blocks *b = data;

  for (int i = 0; i < 3; i++)
    free (b->p[i]);
  free (b);
}

static void
tls_init (void)
{
  pthread_key_create (&tls_key, tls_free);
}

static void *
tls_get (int which, size_t bytes)
{
  tls_blocks *b;

  pthread_once (&tls_once, tls_init);
  b = pthread_getspecific (tls_key);
  if (!b) {
    b = calloc (1, sizeof *b);
    if (!b || pthread_setspecific (tls_key, b) != 0) {
      free (b);
      return NULL;
    }
  }
  if (b->cap[which] < bytes) {
    free (b->p[which]);
    b->p[which] = alloc64 (bytes);
    b->cap[which] = b->p[which] ? bytes : 0;
  }
  return b->p[which];
}

/* --------------------------------------------------------- packed B --- */

struct tn_gemm_b {
  const tn_gemm_geom *g; /* &geom */
  tn_gemm_geom geom;     /* of the kernels it was packed for (the CPU level) */
  tn_dtype dtype;
  int rank;
  int64_t dims[TN_MAX_RANK];
  bool tb;
  int64_t k, n, npad, kpad; /* kpad: packed k items of one matrix */
  int nbr;                  /* batch axes and their extents */
  int64_t bdims[TN_MAX_RANK];
  int64_t nbatch;
  size_t per; /* bytes of one packed matrix */
  void *data;
  size_t cap; /* bytes at data */
  bool spare; /* data is the spare block's (packed per call) */
};

typedef struct {
  tn_gemm_b *pb;
  const tn_view *v;
  const void *base;
  int64_t rs, cs, nstrips, nkb;
} pack_b_ctx;

/* Items of a packed matrix before k block kb_i (every earlier block has
 * kc items, a multiple of kp). */
static int64_t
block_offset (const tn_gemm_b *pb, int64_t kb_i)
{
  return kb_i * pb->g->kc * pb->npad;
}

static int64_t
batch_offset (const tn_view *v, int nbr, int64_t bi)
{
  int64_t off = v->offset;

  for (int d = nbr - 1; d >= 0; d--) {
    off += (bi % v->dims[d]) * v->strides[d];
    bi /= v->dims[d];
  }
  return off;
}

/* Strips of B packed in one call, row by row across them. */
#define PACK_B_RUN 16

static void
pack_b_chunk (void *ctx_, int64_t chunk, int64_t begin, int64_t end)
{
  pack_b_ctx *c = ctx_;
  tn_gemm_b *pb = c->pb;
  const tn_gemm_geom *g = pb->g;

  (void) chunk;
  /* the strips of one k block in one call: they are side by side in
   * the packed block, and the call reads the source rows along them */
  for (int64_t t = begin; t < end;) {
    int64_t js = t % c->nstrips, kb_i = (t / c->nstrips) % c->nkb;
    int64_t bi = t / c->nstrips / c->nkb;
    int64_t run = c->nstrips - js < end - t ? c->nstrips - js : end - t;
    int64_t k0 = kb_i * g->kc, kb = pb->k - k0 < g->kc ? pb->k - k0 : g->kc;
    int64_t j0 = js * g->nr;
    int64_t nb = pb->n - j0 < run * g->nr ? pb->n - j0 : run * g->nr;
    char *dst = (char *) pb->data + bi * pb->per
                + (block_offset (pb, kb_i) + js * tn_gemm_kpad (g, kb) * g->nr)
                      * g->psize;

    tn_gemm_pack_b (g, pb->dtype, dst, c->base,
        batch_offset (c->v, pb->nbr, bi) + k0 * c->rs + j0 * c->cs, c->rs,
        c->cs, kb, nb);
    t += run;
  }
}

/* Constant weights of 4 MiB and more go on transparent huge pages: a
 * matrix-vector product streams them whole on every call, and with 4 KiB
 * pages it pays a TLB miss every 4 KiB. */
#define HUGE_MIN ((size_t) 4 << 20)
#define HUGE_PAGE ((size_t) 2 << 20)

static void *
alloc_huge (size_t *bytes)
{
  void *p;

  if (*bytes < HUGE_MIN)
    return alloc64 (*bytes);
  *bytes = (*bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  p = aligned_alloc (HUGE_PAGE, *bytes);
#ifdef MADV_HUGEPAGE
  if (p)
    madvise (p, *bytes, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
  return p;
}

/* The B packed on every call (an operand that is not constant weights)
 * goes into one block kept between calls, the largest one seen: a fresh
 * 32 MiB block per 2048^2 float64 product was 8192 page faults, 4-6 % of
 * the product's time in the kernel (and outside a user-space profile),
 * where OpenBLAS keeps its buffers.  Kept, the block can also be on huge
 * pages: faulted in once, not per call.  Two products at once: the
 * second allocates its own and the larger of the two is kept.  A block
 * over SPARE_MAX is not kept (a process that once multiplied a huge
 * operand would hold it to the end). */
#define SPARE_MAX ((size_t) 64 << 20)

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static void *spare_p;
static size_t spare_cap;

static void *
take_spare (size_t bytes, size_t *cap)
{
  void *p = NULL;

  pthread_mutex_lock (&spare_lock);
  if (spare_p && spare_cap >= bytes) {
    p = spare_p;
    *cap = spare_cap;
    spare_p = NULL;
    spare_cap = 0;
  }
  pthread_mutex_unlock (&spare_lock);
  if (!p) {
    *cap = bytes;
    p = alloc_huge (cap);
  }
  return p;
}

static void
give_spare (void *p, size_t cap)
{
  pthread_mutex_lock (&spare_lock);
  if (cap > spare_cap && cap <= SPARE_MAX) {
    void *old = spare_p;

    spare_p = p;
    spare_cap = cap;
    p = old;
  }
  pthread_mutex_unlock (&spare_lock);
  free (p);
}

static int pack_b (tn_gemm_b *pb, int nthreads, const tn_view *b,
    const void *base, bool tb, pack_b_ctx *later, tn_err *e);
static void b_release (tn_gemm_b *pb);

tn_gemm_b *
tn_gemm_b_pack (
    int nthreads, const tn_view *b, const void *base, bool tb, tn_err *e)
{
  tn_gemm_b *pb = calloc (1, sizeof *pb);

  if (!pb) {
    tn_err_set (e, "matmul could not allocate %zu bytes", sizeof *pb);
    return NULL;
  }
  if (pack_b (pb, nthreads, b, base, tb, NULL, e) < 0) {
    free (pb);
    return NULL;
  }
  return pb;
}

/* Sets up *pb (zeroed by the caller) for b and packs it: a struct of
 * its own for constant weights (later NULL), packed here on nthreads
 * threads; one on tn_matmul's stack for a B packed per call, so that a
 * small product allocates nothing but what the spare block lacks, packed
 * by the items of tn_matmul's job from *later (the pool is woken once per
 * product).  -1 with a message, *pb then holding nothing to release. */
static int
pack_b (tn_gemm_b *pb, int nthreads, const tn_view *b, const void *base,
    bool tb, pack_b_ctx *later, tn_err *e)
{
  const bool constant = !later;
  tn_dtype out;
  int r = b->rank;
  pack_b_ctx c;
  int64_t nkb;

  if (tn_matmul_dtype (b->dtype, b->dtype, &out, e) < 0)
    return -1;
  if (r < 1) {
    tn_err_set (e,
        "matmul needs operands of rank 1 to %d: the second "
        "operand has rank 0",
        TN_MAX_RANK);
    return -1;
  }
  pb->geom = *tn_gemm_geom_of (b->dtype);
  pb->g = &pb->geom;
  pb->dtype = b->dtype;
  pb->rank = r;
  pb->tb = tb;
  memcpy (pb->dims, b->dims, sizeof b->dims);
  mat_extents (b->dims, r, tb, true, &pb->k, &pb->n);
  pb->nbr = r > 2 ? r - 2 : 0;
  pb->nbatch = 1;
  for (int i = 0; i < pb->nbr; i++)
    pb->nbatch *= pb->bdims[i] = b->dims[i];
  pb->npad = (pb->n + pb->g->nr - 1) / pb->g->nr * pb->g->nr;
  nkb = (pb->k + pb->g->kc - 1) / pb->g->kc;
  pb->kpad = nkb ? (nkb - 1) * pb->g->kc
                       + tn_gemm_kpad (pb->g, pb->k - (nkb - 1) * pb->g->kc)
                 : 0;
  pb->per = (size_t) (pb->kpad * pb->npad) * pb->g->psize;
  pb->cap = pb->per * (size_t) pb->nbatch;
  pb->spare = !constant;
  pb->data = constant ? alloc_huge (&pb->cap) : take_spare (pb->cap, &pb->cap);
  if (!pb->data)
    goto oom;

  c.pb = pb;
  c.v = b;
  c.base = base;
  if (r == 1) {
    c.rs = b->strides[0];
    c.cs = 0;
  } else {
    c.rs = tb ? b->strides[r - 1] : b->strides[r - 2];
    c.cs = tb ? b->strides[r - 2] : b->strides[r - 1];
  }
  c.nstrips = pb->npad / pb->g->nr;
  c.nkb = nkb;
  if (later)
    *later = c;
  else
    tn_parallel_run (
        nthreads, pb->nbatch * nkb * c.nstrips, PACK_B_RUN, pack_b_chunk, &c);
  return 0;

oom:
  tn_err_set (e, "matmul could not allocate the packed %lld x %lld operand",
      (long long) (r >= 2 ? b->dims[r - 2] : b->dims[0]),
      (long long) (r >= 2 ? b->dims[r - 1] : 1));
  return -1;
}

/* The packed data goes back (the spare block's) or is freed; the struct
 * stays its owner's. */
static void
b_release (tn_gemm_b *pb)
{
  if (pb->spare && pb->data)
    give_spare (pb->data, pb->cap);
  else
    free (pb->data);
  pb->data = NULL;
}

void
tn_gemm_b_free (tn_gemm_b *pb)
{
  if (pb) {
    b_release (pb);
    free (pb);
  }
}

/* The packed layout of B depends on nr, kp and kc (mr and mc cut only
 * A and the output). */
static bool
packs_like (const tn_gemm_geom *x, const tn_gemm_geom *y)
{
  return x->nr == y->nr && x->kp == y->kp && x->kc == y->kc;
}

bool
tn_gemm_b_current (const tn_gemm_b *pb)
{
  return packs_like (pb->g, tn_gemm_geom_of (pb->dtype));
}

tn_dtype
tn_gemm_b_dtype (const tn_gemm_b *pb)
{
  return pb->dtype;
}

int
tn_gemm_b_dims (const tn_gemm_b *pb, int64_t *dims)
{
  memcpy (dims, pb->dims, sizeof pb->dims);
  return pb->rank;
}

/* ------------------------------------------------------- write-out --- */

typedef struct {
  const void *p; /* NULL: no bias */
  int64_t rs, cs;
} bias_ref;

static inline float
ld_f (tn_dtype t, const void *p, int64_t i)
{
  switch (t) {
  case TN_FLOAT16:
    return tn_f16_to_f32 (((const uint16_t *) p)[i]);
  case TN_BFLOAT16:
    return tn_bf16_to_f32 (((const uint16_t *) p)[i]);
  default:
    return ((const float *) p)[i];
  }
}

static inline void
st_f (tn_dtype t, void *p, int64_t i, float v)
{
  switch (t) {
  case TN_FLOAT16:
    ((uint16_t *) p)[i] = tn_f32_to_f16 (v);
    break;
  case TN_BFLOAT16:
    ((uint16_t *) p)[i] = tn_f32_to_bf16 (v);
    break;
  default:
    ((float *) p)[i] = v;
  }
}

#define LD_F64(t, p, i) (((const double *) (p))[i])
#define ST_F64(t, p, i, v) (((double *) (p))[i] = (v))
#define LD_I32(t, p, i) ((uint32_t) ((const int32_t *) (p))[i])
#define ST_I32(t, p, i, v) (((int32_t *) (p))[i] = (int32_t) (v))

/* A tile the micro-kernel wrote to t (row stride ldt) goes out:
 * v = prev + t, plus the bias on the last k block, in the accumulator
 * type (integers in uint32_t, so they wrap); then stored converted to the
 * output type on the last block, or back to the accumulator before it. */
#define TN_GEMM_EPILOGUE(NAME, AT, WT, LD, ST)                                 \
  static void NAME (const void *t_, int64_t ldt, int mr, int nr,               \
      const void *prev_, int64_t ldp, void *dst, tn_dtype ot, int64_t ldd,     \
      bias_ref bias, int last)                                                 \
  {                                                                            \
    const AT *t = t_, *prev = prev_;                                           \
                                                                               \
    for (int i = 0; i < mr; i++)                                               \
      for (int j = 0; j < nr; j++) {                                           \
        WT v = (WT) t[i * ldt + j];                                            \
        if (prev)                                                              \
          v = (WT) prev[i * ldp + j] + v;                                      \
        if (last && bias.p)                                                    \
          v = v + (WT) LD (ot, bias.p, i * bias.rs + j * bias.cs);             \
        if (last)                                                              \
          ST (ot, dst, i *ldd + j, v);                                         \
        else                                                                   \
          ((AT *) dst)[i * ldd + j] = (AT) v;                                  \
      }                                                                        \
  }

TN_GEMM_EPILOGUE (epi_f32, float, float, ld_f, st_f)
TN_GEMM_EPILOGUE (epi_f64, double, double, LD_F64, ST_F64)
TN_GEMM_EPILOGUE (epi_i32, int32_t, uint32_t, LD_I32, ST_I32)

typedef void (*epi_fn) (const void *t, int64_t ldt, int mr, int nr,
    const void *prev, int64_t ldp, void *dst, tn_dtype ot, int64_t ldd,
    bias_ref bias, int last);

static epi_fn
epi_of (tn_dtype acc)
{
  return acc == TN_FLOAT64 ? epi_f64 : acc == TN_INT32 ? epi_i32 : epi_f32;
}

/* ----------------------------------------------------------- driver --- */

typedef struct {
  const tn_gemm_geom *g; /* &kern.g */
  tn_gemm_kern kern;     /* of the CPU level, copied once per call */
  tn_gemm_ukr ukr;
  tn_gemm_skr skr;
  epi_fn epi;
  tn_dtype adt, odt;
  size_t osize, asize;
  int64_t m, n, k, mc, nc, mblocks, nblocks, nkb;
  int64_t sw, swidth; /* skinny path: strips per task, tasks per matrix */
  /* 0: row blocks of mc rows (the last one the rest); else the rows are
   * cut for the threads into mblocks blocks of whole micro-panels, as
   * even as they go, of tiles micro-panels in all */
  int64_t tiles;
  /* A: batch axes aligned with the output's (stride 0 where broadcast) */
  const void *a_base;
  int64_t a_off, rs_a, cs_a;
  int obr;
  int64_t obdims[TN_MAX_RANK];
  int64_t a_bstr[TN_MAX_RANK], b_bstr[TN_MAX_RANK], bias_bstr[TN_MAX_RANK];
  const tn_gemm_b *pb;
  /* A B packed for this call is packed by the first npack items of the
   * job, a run of PACK_B_RUN strips of one k block each (pruns per k
   * block); the tasks follow them */
  pack_b_ctx *pk;
  int64_t npack, pruns;
  atomic_int_fast64_t packed; /* runs done */
  const void *bias;
  int64_t bias_off, bias_rs, bias_cs;
  void *out;
  atomic_int failed;
} mm_ctx;

/* Offsets of batch bi of the output in A, the packed B and the bias. */
static void
batch_offsets (const mm_ctx *c, int64_t bi, int64_t *a_off, int64_t *b_idx,
    int64_t *bias_off)
{
  *a_off = c->a_off;
  *b_idx = 0;
  *bias_off = c->bias_off;
  for (int d = c->obr - 1; d >= 0; d--) {
    int64_t x = bi % c->obdims[d];

    bi /= c->obdims[d];
    *a_off += x * c->a_bstr[d];
    *b_idx += x * c->b_bstr[d];
    *bias_off += x * c->bias_bstr[d];
  }
}

/* The skinny path (m <= MR): task t is batch t / swidth, strips
 * [s0, s0 + sw) of it.  k blocks outside, strips inside, so one thread
 * reads its part of the packed B in one pass in memory order (a constant
 * B of a matrix-vector product is a stream from DRAM).  Per output, the
 * sums and the write-out are the ones mm_task makes: the same bits. */
/* Strips per kernel call: at m = 1, 6 side by side (12 FMA chains, 6
 * streams through B) measured 1.0-1.5x OpenBLAS sgemv where 4 gave
 * 0.97-1.05; software prefetch 512 B ahead gained nothing, 2 KB lost. */
#define SKINNY_G 6
#define SKINNY_MAX_STRIPS 256 /* per task: 4096 float32 columns */

static void
mm_skinny_task (mm_ctx *c, int64_t t, void *pa, void *tile, void *scratch)
{
  const tn_gemm_geom *g = c->g;
  int64_t bi = t / c->swidth, s0 = t % c->swidth * c->sw;
  int64_t nstrips = c->pb->npad / g->nr;
  int64_t s1 = s0 + c->sw < nstrips ? s0 + c->sw : nstrips;
  int64_t a_off, b_idx, bias_off, j0 = s0 * g->nr;
  int direct = c->odt == g->acc, mr = (int) c->m;
  char *out = (char *) c->out + (bi * c->m * c->n + j0) * c->osize;
  char *acc = direct ? out : scratch;
  int64_t ldacc = direct ? c->n : (s1 - s0) * g->nr;

  batch_offsets (c, bi, &a_off, &b_idx, &bias_off);
  for (int64_t kb_i = 0; kb_i < c->nkb; kb_i++) {
    int64_t k0 = kb_i * g->kc;
    int64_t kb = c->k - k0 < g->kc ? c->k - k0 : g->kc;
    int64_t kpad = tn_gemm_kpad (g, kb), ks = kpad / g->kp;
    int64_t sstride = kpad * g->nr;
    int last = kb_i == c->nkb - 1, beta = kb_i > 0;
    const char *bblk = (const char *) c->pb->data + b_idx * c->pb->per
                       + block_offset (c->pb, kb_i) * g->psize;

    tn_gemm_pack_a (g, c->adt, pa, c->a_base, a_off + k0 * c->cs_a, c->rs_a,
        c->cs_a, mr, kb);
    for (int64_t s = s0; s < s1; s += SKINNY_G) {
      int ns = s1 - s < SKINNY_G ? (int) (s1 - s) : SKINNY_G;
      int64_t cols
          = c->n - s * g->nr < ns * g->nr ? c->n - s * g->nr : ns * g->nr;
      const char *pbs = bblk + s * sstride * g->psize;
      char *cij = acc + (s - s0) * g->nr * c->asize;
      bias_ref bias = { NULL, 0, 0 };
      void *dst;
      int64_t ldd;

      if (last     ? direct && cols == ns * g->nr && !c->bias
          : direct ? cols == ns * g->nr
                   : 1)
        dst = cij, ldd = ldacc;
      else
        dst = tile, ldd = SKINNY_G * g->nr;
      c->skr (mr, ns, ks, pa, pbs, sstride, dst, ldd, dst == cij && beta);
      if (dst == cij)
        continue;
      if (c->bias) {
        bias.p = (const char *) c->bias
                 + (bias_off + s * g->nr * c->bias_cs) * c->osize;
        bias.rs = c->bias_rs;
        bias.cs = c->bias_cs;
      }
      c->epi (tile, ldd, mr, (int) cols, beta ? cij : NULL, ldacc,
          last ? out + (s - s0) * g->nr * c->osize : cij, c->odt,
          last ? c->n : ldacc, bias, last);
    }
  }
}

/* The first row of row block ib, and in *mb its rows. */
static int64_t
row_block (const mm_ctx *c, int64_t ib, int64_t *mb)
{
  int64_t i0, i1;

  if (c->tiles) {
    i0 = ib * c->tiles / c->mblocks * c->g->mr;
    i1 = (ib + 1) * c->tiles / c->mblocks * c->g->mr;
  } else {
    i0 = ib * c->mc;
    i1 = i0 + c->mc;
  }
  *mb = (i1 < c->m ? i1 : c->m) - i0;
  return i0;
}

static void
mm_task (mm_ctx *c, int64_t t, void *pa, void *tile, void *scratch)
{
  const tn_gemm_geom *g = c->g;
  int64_t ib = t % c->mblocks, jb = (t / c->mblocks) % c->nblocks;
  int64_t bi = t / c->mblocks / c->nblocks;
  int64_t a_off, b_idx, bias_off, mb;
  int64_t i0 = row_block (c, ib, &mb), j0 = jb * c->nc;
  int64_t nbw = c->n - j0 < c->nc ? c->n - j0 : c->nc;
  int direct = c->odt == g->acc;
  char *out = (char *) c->out + ((bi * c->m + i0) * c->n + j0) * c->osize;
  char *acc = direct ? out : scratch;
  int64_t ldacc = direct ? c->n : c->nc;

  batch_offsets (c, bi, &a_off, &b_idx, &bias_off);
  a_off += i0 * c->rs_a;
  bias_off += i0 * c->bias_rs + j0 * c->bias_cs;

  for (int64_t kb_i = 0; kb_i < c->nkb; kb_i++) {
    int64_t k0 = kb_i * g->kc;
    int64_t kb = c->k - k0 < g->kc ? c->k - k0 : g->kc;
    int64_t kpad = tn_gemm_kpad (g, kb), ks = kpad / g->kp;
    int last = kb_i == c->nkb - 1, beta = kb_i > 0;
    const char *bblk = (const char *) c->pb->data + b_idx * c->pb->per
                       + block_offset (c->pb, kb_i) * g->psize;

    tn_gemm_pack_a (g, c->adt, pa, c->a_base, a_off + k0 * c->cs_a, c->rs_a,
        c->cs_a, mb, kb);
    for (int64_t js = 0; js * g->nr < nbw; js++) {
      const char *pbj = bblk + ((j0 / g->nr + js) * kpad * g->nr) * g->psize;
      int nr = nbw - js * g->nr < g->nr ? (int) (nbw - js * g->nr) : g->nr;

      for (int64_t is = 0; is * g->mr < mb; is++) {
        const char *pai = (const char *) pa + is * g->mr * kpad * g->psize;
        int mr = mb - is * g->mr < g->mr ? (int) (mb - is * g->mr) : g->mr;
        char *cij = acc + (is * g->mr * ldacc + js * g->nr) * c->asize;
        bias_ref bias = { NULL, 0, 0 };

        /* Straight into the accumulator when the whole tile fits there
         * and nothing is left to do to it. */
        if (last     ? direct && nr == g->nr && !c->bias
            : direct ? nr == g->nr
                     : 1) {
          c->ukr (mr, ks, pai, pbj, cij, ldacc, beta);
          continue;
        }
        c->ukr (mr, ks, pai, pbj, tile, g->nr, 0);
        if (c->bias) {
          bias.p
              = (const char *) c->bias
                + (bias_off + is * g->mr * c->bias_rs + js * g->nr * c->bias_cs)
                      * c->osize;
          bias.rs = c->bias_rs;
          bias.cs = c->bias_cs;
        }
        c->epi (tile, g->nr, mr, nr, beta ? cij : NULL, ldacc,
            last ? out + (is * g->mr * c->n + js * g->nr) * c->osize : cij,
            c->odt, last ? c->n : ldacc, bias, last);
      }
    }
  }
}

static void
pack_run (mm_ctx *c, int64_t t)
{
  int64_t ns = c->pk->nstrips, q = t / c->pruns;
  int64_t s0 = t % c->pruns * PACK_B_RUN;
  int64_t s1 = s0 + PACK_B_RUN < ns ? s0 + PACK_B_RUN : ns;

  pack_b_chunk (c->pk, 0, q * ns + s0, q * ns + s1);
  atomic_fetch_add_explicit (&c->packed, 1, memory_order_release);
}

static void
mm_chunk (void *ctx_, int64_t chunk, int64_t begin, int64_t end)
{
  mm_ctx *c = ctx_;
  const tn_gemm_geom *g = c->g;
  void *pa, *tile, *scratch;

  (void) chunk;
  for (; begin < end && begin < c->npack; begin++)
    pack_run (c, begin);
  if (begin == end)
    return;
  pa = tls_get (0, (size_t) (c->mc * g->kc) * g->psize);
  tile = tls_get (1, (size_t) (g->mr * SKINNY_G * g->nr) * c->asize);
  scratch = c->odt == g->acc ? tile
                             : tls_get (2, (size_t) (c->mc * c->nc) * c->asize);
  /* A task reads B whole.  Items go out in order, so every run was taken
   * before this task by a thread that is packing it: the wait is about
   * one run's time, on the threads that arrive while the last runs are
   * packed. */
  while (atomic_load_explicit (&c->packed, memory_order_acquire) < c->npack)
    sched_yield ();
  if (!pa || !tile || !scratch) {
    atomic_store (&c->failed, 1);
    return;
  }
  for (int64_t t = begin - c->npack; t < end - c->npack; t++)
    if (c->sw)
      mm_skinny_task (c, t, pa, tile, scratch);
    else
      mm_task (c, t, pa, tile, scratch);
}

/* The fewest rows of a task where the rows are cut for the threads: a B
 * micro-panel then serves at least 2 micro-kernel calls from L1 (4 on
 * AVX2). */
#define MC_MIN 24

/* k = 0: the product is all zeros, plus the bias. */
static void
mm_empty_k (mm_ctx *c, int64_t nbatch)
{
  static const char zero[16];

  for (int64_t bi = 0; bi < nbatch; bi++) {
    int64_t rest = bi, bias_off = c->bias_off;

    for (int d = c->obr - 1; d >= 0; d--) {
      bias_off += (rest % c->obdims[d]) * c->bias_bstr[d];
      rest /= c->obdims[d];
    }
    for (int64_t i = 0; i < c->m; i++) {
      bias_ref bias = { NULL, c->bias_rs, c->bias_cs };

      if (c->bias)
        bias.p
            = (const char *) c->bias + (bias_off + i * c->bias_rs) * c->osize;
      for (int64_t j = 0; j < c->n; j++) {
        bias_ref bj = bias;

        if (bj.p)
          bj.p = (const char *) bj.p + j * c->bias_cs * c->osize;
        c->epi (zero, 0, 1, 1, NULL, 0,
            (char *) c->out + ((bi * c->m + i) * c->n + j) * c->osize, c->odt,
            0, bj, 1);
      }
    }
  }
}

int
tn_matmul_check_bias (tn_dtype t, const int64_t *bdims, int brank, tn_dtype ot,
    const int64_t *odims, int orank, tn_err *e)
{
  int64_t bc[TN_MAX_RANK];
  int bcr;
  char bs[64], os[64];

  tn_shape_format (bs, sizeof bs, bdims, brank);
  tn_shape_format (os, sizeof os, odims, orank);
  if (t != ot) {
    tn_err_set (e,
        "the bias is %s but the product %s is %s: they need one "
        "type",
        tn_dtype_name (t) ? tn_dtype_name (t) : "?", os,
        tn_dtype_name (ot) ? tn_dtype_name (ot) : "?");
    return -1;
  }
  if (tn_shape_broadcast (bc, &bcr, bdims, brank, odims, orank, e) < 0)
    return -1;
  if (bcr != orank || memcmp (bc, odims, sizeof (int64_t) * orank) != 0) {
    tn_err_set (e,
        "the bias dims %s would grow the product's dims %s: a "
        "bias broadcasts over the product, not the other way",
        bs, os);
    return -1;
  }
  return 0;
}

/* Bias strides in the frame [batch..., m, n] of the output, with stride 0
 * where the bias broadcasts and for the axes matmul drops. */
static int
setup_bias (mm_ctx *c, const tn_view *bias, const int64_t *odims, int orank,
    bool a_row, bool b_col, tn_err *e)
{
  tn_view v = *bias;
  int ax;

  if (tn_matmul_check_bias (
          bias->dtype, bias->dims, bias->rank, c->odt, odims, orank, e)
      < 0)
    return -1;
  if (tn_view_broadcast (&v, odims, orank, e) < 0)
    return -1;
  ax = 0;
  for (int d = 0; d < c->obr; d++)
    c->bias_bstr[d] = v.strides[ax++];
  c->bias_rs = a_row ? 0 : v.strides[ax++];
  c->bias_cs = b_col ? 0 : v.strides[ax++];
  c->bias_off = v.offset;
  return 0;
}

int
tn_matmul (const tn_matmul_args *args, tn_err *e)
{
  const tn_view *a = args->a;
  /* The context and a B packed for this call live on the stack: a
   * pipeline of small tensors multiplies buffer after buffer, and a
   * calloc and three frees were a tenth of a 4x4 product's instructions.
   * The packed data and the panels are blocks kept between calls
   * (take_spare, tls_get), grown to the largest product seen. */
  tn_gemm_b own = { 0 };
  const tn_gemm_b *pb = args->packed_b;
  int64_t odims[TN_MAX_RANK], bdims[TN_MAX_RANK], nbatch = 1, ka;
  int orank, brank, abr, nthr;
  tn_dtype bdt = pb ? pb->dtype : args->b->dtype;
  bool tb = pb ? pb->tb : args->tb;
  mm_ctx ctx = { 0 }, *c = &ctx;
  pack_b_ctx pk;
  int ret = -1;

  if (pb)
    brank = tn_gemm_b_dims (pb, bdims);
  else {
    brank = args->b->rank;
    memcpy (bdims, args->b->dims, sizeof bdims);
  }
  if (tn_matmul_dtype (a->dtype, bdt, &c->odt, e) < 0)
    goto out;
  if (tn_matmul_dims (
          a->dims, a->rank, args->ta, bdims, brank, tb, odims, &orank, e)
      < 0)
    goto out;
  c->kern = tn_gemm_dsp_get ()->k[tn_gemm_kind_of (a->dtype)];
  c->g = &c->kern.g;
  c->ukr = c->kern.ukr;
  c->skr = c->kern.skr;
  if (pb && !packs_like (pb->g, c->g)) {
    /* never the wrong sums: the caller repacks (tn_gemm_b_current) */
    tn_err_set (e,
        "matmul's operand B was packed for %dx%d tiles but the kernels "
        "of this CPU level take %dx%d (the CPU mask changed): pack it "
        "again",
        pb->g->mr, pb->g->nr, c->g->mr, c->g->nr);
    goto out;
  }
  c->epi = epi_of (c->g->acc);
  c->adt = a->dtype;
  c->osize = tn_dtype_size (c->odt);
  c->asize = tn_dtype_size (c->g->acc);
  mat_extents (a->dims, a->rank, args->ta, false, &c->m, &ka);
  c->k = ka;
  c->a_base = args->a_base;
  c->a_off = a->offset;
  if (a->rank == 1) {
    c->rs_a = 0;
    c->cs_a = a->strides[0];
  } else {
    c->rs_a = a->strides[args->ta ? a->rank - 1 : a->rank - 2];
    c->cs_a = a->strides[args->ta ? a->rank - 2 : a->rank - 1];
  }
  abr = a->rank > 2 ? a->rank - 2 : 0;
  c->obr = orank - (a->rank >= 2) - (brank >= 2);
  for (int d = 0; d < c->obr; d++) {
    int ai = d - (c->obr - abr),
        bi = d - (c->obr - (brank > 2 ? brank - 2 : 0));

    c->obdims[d] = odims[d];
    nbatch *= odims[d];
    c->a_bstr[d] = ai >= 0 && a->dims[ai] != 1 ? a->strides[ai] : 0;
    c->b_bstr[d] = 0;
    if (bi >= 0 && bdims[bi] != 1) {
      /* index into the packed matrices, row-major over B's batch axes */
      int64_t s = 1;

      for (int x = bi + 1; x < (brank > 2 ? brank - 2 : 0); x++)
        s *= bdims[x];
      c->b_bstr[d] = s;
    }
  }
  if (args->bias
      && setup_bias (c, args->bias, odims, orank, a->rank == 1, brank == 1, e)
             < 0)
    goto out;
  c->bias = args->bias ? args->bias_base : NULL;
  c->out = args->out;

  {
    int64_t kk;

    mat_extents (bdims, brank, tb, true, &kk, &c->n);
  }
  if (nbatch == 0 || c->m == 0 || c->n == 0) {
    ret = 0;
    goto out;
  }
  if (c->k == 0) {
    mm_empty_k (c, nbatch);
    ret = 0;
    goto out;
  }
  nthr = args->nthreads > 0 ? args->nthreads : ncpus ();
  {
    /* Waking a worker costs microseconds: a small product runs on fewer
     * threads (about 2^18 flops each at least); the bits stay the same. */
    double flops = 2.0 * (double) nbatch * c->m * c->n * c->k;

    if (flops / (1 << 18) + 1 < nthr)
      nthr = (int) (flops / (1 << 18)) + 1;
  }
  atomic_init (&c->packed, 0);
  if (!pb) {
    /* packed in the job of the tasks: the workers are woken once, and
     * their wake-up (40-100 us on the KVM Xeon) overlaps the packing of
     * the first runs (docs/perf-notes.md, session 18 H1) */
    if (pack_b (&own, nthr, args->b, args->b_base, tb, &pk, e) < 0)
      goto out;
    pb = &own;
    c->pk = &pk;
    c->pruns = (pk.nstrips + PACK_B_RUN - 1) / PACK_B_RUN;
    c->npack = own.nbatch * pk.nkb * c->pruns;
  }
  c->pb = pb;
  c->nkb = (c->k + c->g->kc - 1) / c->g->kc;
  /* mc and nc change only how the output is cut, never a sum: shrink
   * them until every thread has a few blocks to balance.  Where the last
   * row block would be under half a block, the rows are cut evenly
   * instead: float32 1024^3 on AVX-512 made seven blocks of 144 rows
   * and one of 16, and of two threads one ran 576 rows while the other
   * ran 448 (docs/perf-notes.md, "Session 16").  Otherwise blocks of mc
   * rows measured faster (float32 256^3 on Zen 4: 144 + 112 rows against
   * 132 + 124). */
  {
    const int64_t mr = c->g->mr, mc = c->g->mc, rest = c->m % mc;

    if (c->m >= mc && (rest == 0 || rest >= mc / 2)) {
      c->mc = mc;
    } else {
      const int64_t tiles = (c->m + mr - 1) / mr, nb = (c->m + mc - 1) / mc;

      c->mc = (tiles + nb - 1) / nb * mr;
    }
  }
  /* nc: a task's B column strip (k x nc) stays in L3 while consecutive
   * tasks walk down the rows of A; its C block stays near L2. */
  c->nc = c->n < c->g->nc ? pb->npad : c->g->nc;
  c->mblocks = (c->m + c->mc - 1) / c->mc;
  c->nblocks = (c->n + c->nc - 1) / c->nc;
  if (c->m <= c->g->mr) {
    /* skinny: a thread's share of the columns in one task, when the
     * batch does not already give every thread work; at most
     * SKINNY_MAX_STRIPS strips, which bounds the scratch of a task */
    int64_t nstrips = pb->npad / c->g->nr, per;

    per = nbatch >= nthr ? 1 : (nthr + nbatch - 1) / nbatch;
    c->sw = (nstrips + per - 1) / per;
    if (c->sw > SKINNY_MAX_STRIPS)
      c->sw = SKINNY_MAX_STRIPS;
    c->swidth = (nstrips + c->sw - 1) / c->sw;
    c->nc = c->sw * c->g->nr;
    tn_parallel_run (nthr, c->npack + nbatch * c->swidth, 1, mm_chunk, c);
  } else {
    /* Too few tasks for the threads: cut the rows finer first, into
     * blocks of whole micro-panels as even as they go, of no fewer than
     * MC_MIN rows, then the columns.  A task packs its rows of A whole,
     * so every column block packs them again; blocks of mc rows and a
     * small rest left one thread a block more than the other.  In-process
     * rig, float32 AVX-512, two threads, wall and (thread time of the
     * tasks): 256^3 as 144 x 128 blocks 209 us (317), as 8 blocks of
     * 24-36 rows x 256 186 us (285; one thread 231); 512^3 as 144 x 256
     * 1214 us (2117), as 8 of 60-72 x 512 1182 (2060), as 72 x 512 with
     * a rest of 8 rows 1332 (2090); float64 512^3 as 84 x 256 2380 us,
     * as 8 of 56-70 x 512 2336, as 70 x 512 with a rest 2521
     * (docs/perf-notes.md, session 18 H1). */
    if (nthr > 1 && nbatch * c->mblocks * c->nblocks < 4 * nthr) {
      const int64_t mr = c->g->mr, tiles = (c->m + mr - 1) / mr;
      int64_t want
          = (4 * nthr + nbatch * c->nblocks - 1) / (nbatch * c->nblocks);

      if (want > tiles / ((MC_MIN + mr - 1) / mr))
        want = tiles / ((MC_MIN + mr - 1) / mr);
      if (want > c->mblocks) {
        c->tiles = tiles;
        c->mblocks = want;
        c->mc = (tiles + want - 1) / want * mr; /* the largest block */
      }
    }
    while (nthr > 1 && nbatch * c->mblocks * c->nblocks < 4 * nthr
           && c->nc > 4 * c->g->nr) {
      c->nc = (c->nc / 2 + c->g->nr - 1) / c->g->nr * c->g->nr;
      c->nblocks = (c->n + c->nc - 1) / c->nc;
    }
    tn_parallel_run (
        nthr, c->npack + nbatch * c->mblocks * c->nblocks, 1, mm_chunk, c);
  }
  if (atomic_load (&c->failed)) {
    tn_err_set (e, "matmul could not allocate its %lld x %d panel buffers",
        (long long) c->mc, c->g->kc);
    goto out;
  }
  ret = 0;
out:
  b_release (&own);
  return ret;
}
