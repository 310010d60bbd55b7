/* tensorview's step list: its grammar, checked once when the text is set
 * (everything that needs no tensor), and what each step does to a view.
 *
 *   permute:A0:A1:...       input axis Ai goes to position i
 *   transpose               swaps the last two axes
 *   slice:AXIS:START:STOP[:STEP]
 *                           Python's a[..., START:STOP:STEP] along AXIS;
 *                           START, STOP and STEP may be left empty
 *                           (Python's omitted bounds); STEP >= 1
 *   select:AXIS:INDEX       one index, the axis dropped
 *   reshape:D0:D1:...       one extent may be -1
 *   expand:AXIS             inserts an axis of extent 1
 *   squeeze:AXIS            removes an axis of extent 1
 *   broadcast:D0:D1:...     NumPy's broadcast_to
 *   flip:AXIS               reverses an axis (NumPy's flip)
 *
 * Steps are separated by ',' and arguments by ':', blanks around either
 * ignored (the grammar of core/steps.h, whose splitter refuses the empty
 * arguments a slice may have).  A negative axis counts from the end.
 * Plain C. */
#ifndef TN_VIEW_PARSE_H
#define TN_VIEW_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "view.h"

typedef enum {
  TN_VS_PERMUTE,
  TN_VS_TRANSPOSE,
  TN_VS_SLICE,
  TN_VS_SELECT,
  TN_VS_RESHAPE,
  TN_VS_EXPAND,
  TN_VS_SQUEEZE,
  TN_VS_BROADCAST,
  TN_VS_FLIP,
} tn_vstep_kind;

typedef struct {
  tn_vstep_kind kind;
  int nargs;
  int64_t args[TN_MAX_RANK];
  /* slice: bit i set when argument i was written; an empty START, STOP
   * or STEP is Python's None */
  unsigned given;
  char text[96]; /* the step as written (cut to fit), for messages */
} tn_vstep;

typedef struct {
  int n;
  tn_vstep *steps; /* NULL when n is 0 */
} tn_vsteps;

/* Parses text (NULL or blanks: the empty list) into s.  -1 with a
 * sentence naming the step, its number and what is wrong ("step 2 of 3
 * ('slice:1:0:4:0'): slice step must be 1 or more, got 0"), and s empty.
 * Checks everything that needs no tensor: names, argument counts, whole
 * numbers, slice steps, permutations (their length is the rank they
 * need), reshape and broadcast extents, axes no rank could have. */
int tn_vsteps_parse (const char *text, tn_vsteps *s, tn_err *e);
void tn_vsteps_clear (tn_vsteps *s);
/* A deep copy; -1 when memory runs out. */
int tn_vsteps_copy (tn_vsteps *dst, const tn_vsteps *src, tn_err *e);
/* "permute, transpose, ..., flip" */
const char *tn_vsteps_names (void);

/* A view whose axes in flip are read backwards (see tn_view_flip_mask):
 * what the steps make of a tensor before the one copy that a reversed
 * axis needs.  flip only holds axes that tn_view_flip_mask keeps. */
typedef struct {
  tn_view v;
  uint32_t flip;
} tn_fview;

/* Applies steps [from, s->n) to f.  Stops before a reshape of a view that
 * is not dense or has a reversed axis (*stop is its index; s->n when all
 * ran): the caller copies first (tn_view_materialize_flip), makes f dense
 * and goes on from *stop.  With dims_only such a view is taken as dense,
 * which is all caps need.  -1 with "step 2 of 3 ('select:0:5'): index 5
 * is out of range for axis 0 of extent 2"; f is then undefined. */
int tn_vsteps_apply (const tn_vsteps *s, int from, tn_fview *f, bool dims_only,
    int *stop, tn_err *e);

/* The input dims that give dims (*rank axes) through s, for lists that
 * can be undone from dims alone (permute, transpose, expand, squeeze,
 * flip); false otherwise, dims then undefined. */
bool tn_vsteps_invert (const tn_vsteps *s, int64_t *dims, int *rank);

#endif
