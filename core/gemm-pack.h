/* GEMM internals shared by the driver and the micro-kernels: the register
 * tile geometry of each compute type and the packing of panels.  Private to
 * core/. */
#ifndef TN_GEMM_PACK_H
#define TN_GEMM_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* The micro-kernel: C[mr x nr] (= or +=, as beta is 0 or 1) the product of
 * a packed A micro-panel (ksteps steps of mr x kp items) and a packed B
 * micro-panel (ksteps steps of kp x nr items).  mr is 1..MR; the columns
 * are always NR wide (the driver passes a tile buffer at the right edge).
 * ldc is C's row stride in items of the accumulator type. */
typedef void (*tn_gemm_ukr) (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);

/* The skinny kernel, for products of at most MR rows (a matrix-vector
 * product): the same as g calls of the micro-kernel on g B micro-panels
 * side by side (panel s at pb + s * sstride items, its C columns at
 * c + s * NR), with the same sums, but with the FMA chains of several
 * panels in flight at once. */
typedef void (*tn_gemm_skr) (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);

/* The compute types: float32 (also for float16 and bfloat16), float64 and
 * int8 (as int16 pairs, int32 sums). */
enum { TN_GEMM_F32, TN_GEMM_F64, TN_GEMM_I8, TN_GEMM_NKINDS };

typedef struct {
  int mr, nr;   /* register tile */
  int kp;       /* k items per step: 2 for int8 (pairs for madd) */
  int kc;       /* k block: the float sums depend on it (and on nothing
                 * else of the geometry), so every level keeps one per type */
  int mc;       /* rows of A per packed block (a multiple of mr) */
  int nc;       /* columns of the output per task (a multiple of nr);
                 * mc and nc cut the output only, never a sum */
  size_t psize; /* bytes of one packed item */
  tn_dtype acc; /* accumulator type: float32, float64 or int32 */
  int kind;     /* TN_GEMM_F32, _F64 or _I8: the kernels in tn_gemm_dsp */
} tn_gemm_geom;

/* The kernels of one compute type at one CPU level and the geometry they
 * are written for: the packing, the driver's blocking and a pre-packed B
 * (tn_gemm_b) all follow g. */
typedef struct {
  tn_gemm_geom g;
  tn_gemm_ukr ukr;
  tn_gemm_skr skr;
} tn_gemm_kern;

/* The kernels of one CPU level, per compute type.  Every ukr of a level
 * gives int8 sums identical to the portable ones and float sums within
 * rounding of them (AVX2 and AVX-512 fuse the multiply-add; with kc the
 * same they give the same bits as each other); every skr gives the bits
 * of g calls of its level's ukr. */
typedef struct {
  tn_gemm_kern k[TN_GEMM_NKINDS];
} tn_gemm_dsp;

/* The portable kernels, then those the CPU features in flags allow. */
void tn_gemm_dsp_init (tn_gemm_dsp *d, unsigned flags);
/* The table for tn_cpu_flags (), rebuilt when the mask changes. */
const tn_gemm_dsp *tn_gemm_dsp_get (void);
/* The portable kernels written for geometry g (any geometry a level of
 * tn_gemm_dsp_init uses): the reference checkasm holds a level's kernels
 * against.  0, or -1 when no level uses g. */
int tn_gemm_portable_of (const tn_gemm_geom *g, tn_gemm_kern *out);

/* TN_GEMM_F32, _F64 or _I8 for operands of type src; -1 if there is no
 * kernel. */
int tn_gemm_kind_of (tn_dtype src);
/* The geometry of the kernels that run now (tn_gemm_dsp_get) for operands
 * of type src; NULL if there is no kernel.  Valid until the mask
 * changes. */
const tn_gemm_geom *tn_gemm_geom_of (tn_dtype src);

/* Rounds k up to a whole number of steps. */
static inline int64_t
tn_gemm_kpad (const tn_gemm_geom *g, int64_t k)
{
  return (k + g->kp - 1) / g->kp * g->kp;
}

/* Packs rows [0, mb) x k [0, kb) of the matrix at base + off (strides rs,
 * cs, in items of src) into ceil(mb / mr) micro-panels of kpad(kb) x mr,
 * converting to the compute type and zero-filling the padding. */
void tn_gemm_pack_a (const tn_gemm_geom *g, tn_dtype src, void *dst,
    const void *base, int64_t off, int64_t rs, int64_t cs, int64_t mb,
    int64_t kb);
/* Packs k [0, kb) x columns [0, nb) into ceil(nb / nr) micro-panels of
 * kpad(kb) x nr, one after the other, zero-filling the padding. */
void tn_gemm_pack_b (const tn_gemm_geom *g, tn_dtype src, void *dst,
    const void *base, int64_t off, int64_t rs, int64_t cs, int64_t kb,
    int64_t nb);

/* x86/gemm-avx2.c (the avx2 library of core/meson.build). */
void tn_gemm_ukr_f32_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_f64_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_i8_avx2 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_skr_f32_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_f64_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_i8_avx2 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);

/* x86/gemm-avx512.c (the avx512 library of core/meson.build). */
void tn_gemm_ukr_f32_avx512 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_f64_avx512 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_ukr_i8_avx512 (int mr, int64_t ksteps, const void *pa,
    const void *pb, void *c, int64_t ldc, int beta);
void tn_gemm_skr_f32_avx512 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_f64_avx512 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);
void tn_gemm_skr_i8_avx512 (int mr, int g, int64_t ksteps, const void *pa,
    const void *pb, int64_t sstride, void *c, int64_t ldc, int beta);

#endif
