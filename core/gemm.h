/* Matrix products with NumPy's matmul semantics, on a packed, cache-blocked
 * GEMM (the BLIS structure: B packed into kc x n panels, A into mc x kc
 * panels, a register-tile micro-kernel).
 *
 * Types: float32 and float64 keep their type; float16 and bfloat16 compute
 * in float32 (converted while packing) and give their own type back, rounded
 * once at the end; int8 x int8 accumulates in int32 and gives int32, wrapping
 * like C unsigned arithmetic on overflow (it needs k > 131072).
 *
 * Work is split over blocks of the output only, never over k, and the k
 * blocking is fixed per type, so every thread count gives the same bits.
 *
 * A product of at most MR = 6 rows (a matrix-vector product, a small
 * batch of them) takes a skinny path that streams the packed B once per
 * call with the FMA chains of several column strips in flight.  It sums
 * every output in the same order as the blocked path (k blocks of kc, in
 * k order within a block, the same write-out), so the rows it gives have
 * the bits the blocked path gives for the same rows of a taller A.
 *
 * The micro-kernels are AVX2+FMA ones where tn_cpu_flags () has them,
 * else portable C (gemm-pack.h, tn_gemm_dsp). */
#ifndef TN_GEMM_H
#define TN_GEMM_H

#include <stdbool.h>

#include "view.h"

/* The dtype of a product of a and b, or -1 with a sentence naming both. */
int tn_matmul_dtype (tn_dtype a, tn_dtype b, tn_dtype *out, tn_err *e);

/* Dims of matmul(a, b), where ta/tb read the last two axes swapped (a no-op
 * on rank 1).  A rank-1 a is a row, a rank-1 b a column, and the axis that
 * exists only for that is dropped; batch axes broadcast.  Errors, e.g.
 * "matmul needs the inner extents to agree: [2,3] times [4,2], 3 against 4"
 * (dims as given, before the transposes). */
int tn_matmul_dims (const int64_t *adims, int arank, bool ta,
    const int64_t *bdims, int brank, bool tb, int64_t *out, int *orank,
    tn_err *e);

/* A B operand packed once for many products (constant weights).  Keeps no
 * pointer to the caller's data. */
typedef struct tn_gemm_b tn_gemm_b;

/* Packs b (a view over base, rank >= 1, of a type tn_matmul_dtype takes)
 * read transposed when tb.  NULL with a message on a bad type, rank 0 or
 * when memory runs out. */
tn_gemm_b *tn_gemm_b_pack (
    int nthreads, const tn_view *b, const void *base, bool tb, tn_err *e);
void tn_gemm_b_free (tn_gemm_b *pb);
/* The dtype and dims of the operand that was packed (before tb). */
tn_dtype tn_gemm_b_dtype (const tn_gemm_b *pb);
int tn_gemm_b_dims (const tn_gemm_b *pb, int64_t *dims);
/* Whether pb is packed for the kernels that run now: the tile geometry
 * is the CPU level's (AVX-512 and AVX2 differ), so after
 * tn_cpu_set_mask () a caller that keeps a packed B tests this and packs
 * again; tn_matmul refuses a stale one. */
bool tn_gemm_b_current (const tn_gemm_b *pb);

typedef struct {
  const tn_view *a; /* any strides (checked by the caller) */
  const void *a_base;
  bool ta;
  const tn_view *b; /* ignored when packed_b is set */
  const void *b_base;
  bool tb;
  const tn_gemm_b *packed_b;
  const tn_view *bias; /* NULL for none; broadcast over the result */
  const void *bias_base;
  void *out;    /* dense, of tn_matmul_dims and tn_matmul_dtype */
  int nthreads; /* 0 = all cores */
} tn_matmul_args;

/* Whether a bias of dtype t and dims bdims fits a product of dtype ot and
 * dims odims: the same dtype, and broadcasting to odims without growing
 * them.  -1 with a sentence naming both. */
int tn_matmul_check_bias (tn_dtype t, const int64_t *bdims, int brank,
    tn_dtype ot, const int64_t *odims, int orank, tn_err *e);

/* out = matmul(a, b) + bias, the bias added as the product is written out.
 * The bias must have the product's dtype and broadcast to its dims without
 * growing them.  -1 with a sentence for every mismatch. */
int tn_matmul (const tn_matmul_args *args, tn_err *e);

#endif
