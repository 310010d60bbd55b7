/* Internal to core/view-copy.c and core/view-flip.c: the plan of a copy
 * of a view (tn_view_materialize and tn_view_materialize_flip) and the
 * odometer that walks it. */
#ifndef TN_VIEW_COPY_H
#define TN_VIEW_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

/* Axes in bytes, after dropping extents of 1 and merging axes that chain. */
typedef struct {
  int rank;
  int64_t dims[TN_MAX_RANK];
  int64_t src[TN_MAX_RANK];
  int64_t dst[TN_MAX_RANK];
} plan;

/* An odometer over a subset of the plan's axes: no division per step. */
typedef struct {
  int n;
  int64_t idx[TN_MAX_RANK], dims[TN_MAX_RANK];
  int64_t sstep[TN_MAX_RANK], dstep[TN_MAX_RANK];
} odo;

static inline void
odo_init (odo *o, const plan *p, const int *axes, int n)
{
  o->n = n;
  for (int i = 0; i < n; i++) {
    o->idx[i] = 0;
    o->dims[i] = p->dims[axes[i]];
    o->sstep[i] = p->src[axes[i]];
    o->dstep[i] = p->dst[axes[i]];
  }
}

static inline bool
odo_next (odo *o, const char **s, char **d)
{
  for (int i = o->n - 1; i >= 0; i--) {
    if (++o->idx[i] < o->dims[i]) {
      *s += o->sstep[i];
      *d += o->dstep[i];
      return true;
    }
    o->idx[i] = 0;
    *s -= (o->dims[i] - 1) * o->sstep[i];
    *d -= (o->dims[i] - 1) * o->dstep[i];
  }
  return false;
}


/* The channel kernels of view-kern.h for a plan whose innermost axis
 * steps a few items at a time (view-copy.c says when); false when they
 * do not apply.  The destination steps of the plan may be negative
 * (view-flip.c). */
bool tn_view_copy_channels (const plan *p, size_t isz, char *d, const char *s);

#endif
