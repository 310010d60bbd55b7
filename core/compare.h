/* Comparing a tensor with a reference under NumPy's tolerances.
 *
 * An item passes when |actual - expected| <= atol + rtol * |expected|
 * (numpy.testing.assert_allclose), or, with max_ulp >= 0 on a float
 * dtype, when the two lie at most max_ulp units in the last place apart
 * instead.  Equal items always pass (inf against inf of the same sign
 * too); NaN against NaN passes only with equal_nan.  Floats are compared
 * in their own precision (float16 and bfloat16 in float32), integers in
 * float64 under a tolerance and exactly with exact set, as NumPy does.
 * Both tensors are read in place, strided or not. */
#ifndef TN_COMPARE_H
#define TN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

typedef struct {
  double rtol, atol;
  int64_t max_ulp; /* < 0: rtol/atol; >= 0: this ulp bound (floats only) */
  bool exact;      /* integers and bool: equality, rtol/atol unused */
  bool equal_nan;
} tn_cmp_tol;

typedef struct {
  int64_t items, bad;
  /* the first failing item in row-major order (-1: none), its values */
  int64_t first;
  double first_actual, first_expected, first_abs, first_rel;
  uint64_t first_ulp;
  /* int64 and uint64: the first failing items themselves (uint64 as its
   * bits), which a double holds exactly only up to 2^53 */
  int64_t first_actual_i, first_expected_i;
  /* the largest errors over all items (NaN items left out); worst is the
   * first item with the largest abs error (-1 when every error is 0) */
  double max_abs, max_rel;
  uint64_t max_ulp;
  int64_t worst;
} tn_cmp_result;

/* NumPy's defaults: rtol 1e-7, atol 0, no ulp bound, equal_nan. */
void tn_cmp_tol_init (tn_cmp_tol *t);

/* 0 when a and e have the same dtype and dims; else -1 with e naming
 * both ("dtype float32 against float64", "dims <2, 3> against <3, 2>"). */
int tn_compare_check (const tn_view *a, const tn_view *e, tn_err *err);

/* NumPy has no bfloat16: npyenc and tensorcompare record=true write a
 * bfloat16 tensor as float32, each value widened exactly.  When a is
 * bfloat16 and the reference *ev (over *e) float32 of a's dims, narrows
 * the reference's items in row-major order into a block of its own
 * (*owned: free() it) and points *e and *ev at them (*ev = nv, their
 * dense bfloat16 view); any other pair is left as it is.  0, or -1 with
 * err naming the first item that is no bfloat16 value (then the
 * reference is no recording of a bfloat16 tensor) or the memory that
 * was not there. */
int tn_compare_bf16_ref (const tn_view *a, const void **e, const tn_view **ev,
    tn_view *nv, void **owned, tn_err *err);

/* Compares the items of view av over base a with those of ev over e
 * (same dtype and dims: tn_compare_check first).  Both views must have
 * been checked against their storage. */
void tn_compare (const void *a, const tn_view *av, const void *e,
    const tn_view *ev, const tn_cmp_tol *t, tn_cmp_result *r);

/* The sentence for a result with bad > 0, NumPy's way: "12 of 1000 items
 * differ beyond rtol=1e-07, atol=0; first at [1, 4]: 0.5 against 0.50001
 * (abs 1e-05, rel 2e-05); worst abs 3e-05 at [9, 2]".  dims and rank
 * give the index; dtype the digits of the values. */
void tn_compare_format (char *buf, size_t cap, const tn_cmp_result *r,
    const tn_view *v, const tn_cmp_tol *t);

/* The first failing actual (which 0) or expected (which 1) item of r in
 * full digits: tn_compare_format_value's, but int64 and uint64 items
 * beyond 2^53 exactly too. */
void tn_compare_format_first (
    char *buf, size_t cap, const tn_cmp_result *r, tn_dtype dt, int which);

/* The row-major multi-index of flat item index i of dims ("[1, 4]"). */
void tn_compare_format_index (
    char *buf, size_t cap, int64_t i, const int64_t *dims, int rank);

/* The shortest digits that read back as x in dtype dt ("0.50001" for a
 * float32, integers in full), Python's repr style ("nan", "inf"). */
void tn_compare_format_value (char *buf, size_t cap, double x, tn_dtype dt);

#endif
