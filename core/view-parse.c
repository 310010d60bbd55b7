#include "view-parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps.h"

static const struct {
  const char *name;
  int min_args, max_args;
  const char *usage;
} kinds[] = {
  [TN_VS_PERMUTE] = { "permute", 1, TN_MAX_RANK, "permute:AXIS:AXIS..." },
  [TN_VS_TRANSPOSE] = { "transpose", 0, 0, "transpose" },
  [TN_VS_SLICE] = { "slice", 3, 4, "slice:AXIS:START:STOP[:STEP]" },
  [TN_VS_SELECT] = { "select", 2, 2, "select:AXIS:INDEX" },
  [TN_VS_RESHAPE] = { "reshape", 0, TN_MAX_RANK, "reshape:DIM:DIM..." },
  [TN_VS_EXPAND] = { "expand", 1, 1, "expand:AXIS" },
  [TN_VS_SQUEEZE] = { "squeeze", 1, 1, "squeeze:AXIS" },
  [TN_VS_BROADCAST] = { "broadcast", 0, TN_MAX_RANK, "broadcast:DIM:DIM..." },
  [TN_VS_FLIP] = { "flip", 1, 1, "flip:AXIS" },
};

#define NKINDS ((int) (sizeof kinds / sizeof kinds[0]))

const char *
tn_vsteps_names (void)
{
  return "permute, transpose, slice, select, reshape, expand, squeeze, "
         "broadcast, flip";
}

static void
set_step_text (tn_vstep *st, const char *name, char *const *args, int nargs)
{
  size_t len = (size_t) snprintf (st->text, sizeof st->text, "%s", name);

  for (int i = 0; i < nargs && len < sizeof st->text; i++)
    len += (size_t) snprintf (
        st->text + len, sizeof st->text - len, ":%s", args[i]);
}

/* An axis argument that no tensor of rank 0..TN_MAX_RANK could take:
 * lo..hi is the widest range any rank allows. */
static int
axis_possible (const tn_vstep *st, int k, int n, int64_t a, int64_t lo,
    int64_t hi, tn_err *e)
{
  if (a < lo || a > hi) {
    tn_err_set (e,
        "step %d of %d ('%s'): axis %lld is out of range for any tensor "
        "(rank %d at most: %lld to %lld)",
        k + 1, n, st->text, (long long) a, TN_MAX_RANK, (long long) lo,
        (long long) hi);
    return -1;
  }
  return 0;
}

/* What a step means without a tensor, checked now so that a list that
 * cannot work is refused when it is set. */
static int
check_step (const tn_vstep *st, int k, int n, tn_err *e)
{
  const int64_t *a = st->args;
  bool seen[TN_MAX_RANK] = { false };
  int infer = -1;

  switch (st->kind) {
  case TN_VS_PERMUTE:
    /* The permutation's length is the rank it needs: its axes can be
     * checked now. */
    for (int i = 0; i < st->nargs; i++) {
      int64_t x = a[i] < 0 ? a[i] + st->nargs : a[i];

      if (x < 0 || x >= st->nargs) {
        tn_err_set (e,
            "step %d of %d ('%s'): axis %lld is out of range for a "
            "permutation of %d axes (%d to %d)",
            k + 1, n, st->text, (long long) a[i], st->nargs, -st->nargs,
            st->nargs - 1);
        return -1;
      }
      if (seen[x]) {
        tn_err_set (e,
            "step %d of %d ('%s'): permute needs each of the %d axes "
            "once; axis %lld appears twice",
            k + 1, n, st->text, st->nargs, (long long) x);
        return -1;
      }
      seen[x] = true;
    }
    return 0;
  case TN_VS_SLICE:
    if (axis_possible (st, k, n, a[0], -TN_MAX_RANK, TN_MAX_RANK - 1, e) < 0)
      return -1;
    if ((st->given & 8) && a[3] < 1) {
      tn_err_set (e,
          "step %d of %d ('%s'): slice step must be 1 or more, got %lld%s",
          k + 1, n, st->text, (long long) a[3],
          a[3] < 0 ? "; flip:AXIS reverses an axis" : "");
      return -1;
    }
    return 0;
  case TN_VS_SELECT:
  case TN_VS_SQUEEZE:
  case TN_VS_FLIP:
  case TN_VS_EXPAND: /* into rank TN_MAX_RANK - 1 at most: the same range */
    return axis_possible (st, k, n, a[0], -TN_MAX_RANK, TN_MAX_RANK - 1, e);
  case TN_VS_RESHAPE:
    for (int i = 0; i < st->nargs; i++) {
      if (a[i] == -1) {
        if (infer >= 0) {
          tn_err_set (e,
              "step %d of %d ('%s'): only one extent can be -1, and "
              "axes %d and %d both are",
              k + 1, n, st->text, infer, i);
          return -1;
        }
        infer = i;
      } else if (a[i] < 0) {
        tn_err_set (e,
            "step %d of %d ('%s'): axis %d has extent %lld; extents must "
            "be 0 or more, or -1 for one inferred extent",
            k + 1, n, st->text, i, (long long) a[i]);
        return -1;
      }
    }
    return 0;
  case TN_VS_BROADCAST:
    for (int i = 0; i < st->nargs; i++)
      if (a[i] < 0) {
        tn_err_set (e,
            "step %d of %d ('%s'): axis %d has extent %lld; extents must "
            "be 0 or more",
            k + 1, n, st->text, i, (long long) a[i]);
        return -1;
      }
    return 0;
  case TN_VS_TRANSPOSE:
    return 0;
  }
  return 0;
}

/* One step, already cut from the list by tn_steps_parse_full. */
static int
parse_step (const tn_step *raw, tn_vstep *st, int k, int n, tn_err *e)
{
  char *const *args = raw->args;
  const char *name = raw->name;
  int nargs = raw->nargs, kind, i;

  for (kind = 0; kind < NKINDS; kind++)
    if (strcmp (name, kinds[kind].name) == 0)
      break;
  if (kind == NKINDS) {
    tn_err_set (e,
        "step %d of %d ('%s') is not a view step; expected one of %s", k + 1, n,
        name, tn_vsteps_names ());
    return -1;
  }
  st->kind = (tn_vstep_kind) kind;
  set_step_text (st, name, args, nargs);
  if (kind == TN_VS_SLICE && nargs >= 1 && *args[0] == '\0') {
    tn_err_set (e,
        "step %d of %d ('%s') has an empty argument 1; a slice names its "
        "AXIS first: slice:AXIS:START:STOP[:STEP] (slice:0::3 is NumPy's "
        "a[:3])",
        k + 1, n, st->text);
    return -1;
  }
  if (kind == TN_VS_SLICE && nargs == 2) {
    /* Python reads a[i] as an index, not a slice: say which was meant
     * rather than guess. */
    tn_err_set (e,
        "step %d of %d ('%s') has one bound after the axis; write "
        "slice:%s:%s: (from %s to the end), slice:%s::%s (up to %s) or "
        "select:%s:%s (one index)",
        k + 1, n, st->text, args[0], args[1], args[1], args[0], args[1],
        args[1], args[0], args[1]);
    return -1;
  }
  if (nargs < kinds[kind].min_args || nargs > kinds[kind].max_args) {
    char range[32];

    if (kinds[kind].min_args == kinds[kind].max_args)
      snprintf (range, sizeof range, "%d argument%s", kinds[kind].min_args,
          kinds[kind].min_args == 1 ? "" : "s");
    else
      snprintf (range, sizeof range, "%d to %d arguments", kinds[kind].min_args,
          kinds[kind].max_args);
    tn_err_set (e, "step %d of %d ('%s') has %d argument%s; expected %s (%s)",
        k + 1, n, st->text, nargs, nargs == 1 ? "" : "s", kinds[kind].usage,
        range);
    return -1;
  }
  st->nargs = nargs;
  for (i = 0; i < nargs; i++) {
    const char *a = args[i];
    char *end;
    long long v;

    if (*a == '\0') {
      /* START, STOP and STEP of a slice may be left out, as in Python. */
      if (kind == TN_VS_SLICE && i > 0)
        continue;
      tn_err_set (e, "step %d of %d ('%s') has an empty argument %d", k + 1, n,
          st->text, i + 1);
      return -1;
    }
    errno = 0;
    v = strtoll (a, &end, 10);
    if (errno != 0 || end == a || *end != '\0') {
      tn_err_set (e,
          "step %d of %d ('%s'): argument %d is '%s', not a whole number%s",
          k + 1, n, st->text, i + 1, a,
          errno == ERANGE ? " that fits in 64 bits" : "");
      return -1;
    }
    st->args[i] = v;
    st->given |= 1u << i;
  }
  return check_step (st, k, n, e);
}

int
tn_vsteps_parse (const char *text, tn_vsteps *s, tn_err *e)
{
  tn_steps raw;
  int k;

  memset (s, 0, sizeof *s);
  if (tn_steps_parse_full (text, &raw, 1, e) < 0) {
    tn_steps_clear (&raw);
    return -1;
  }
  if (raw.n == 0) {
    tn_steps_clear (&raw);
    return 0;
  }
  s->steps = calloc ((size_t) raw.n, sizeof *s->steps);
  if (s->steps == NULL) {
    tn_err_set (e, "could not allocate %d steps", raw.n);
    tn_steps_clear (&raw);
    return -1;
  }
  for (k = 0; k < raw.n; k++)
    if (parse_step (&raw.steps[k], &s->steps[k], k, raw.n, e) < 0) {
      tn_steps_clear (&raw);
      tn_vsteps_clear (s);
      return -1;
    }
  s->n = raw.n;
  tn_steps_clear (&raw);
  return 0;
}

void
tn_vsteps_clear (tn_vsteps *s)
{
  free (s->steps);
  memset (s, 0, sizeof *s);
}

int
tn_vsteps_copy (tn_vsteps *dst, const tn_vsteps *src, tn_err *e)
{
  memset (dst, 0, sizeof *dst);
  if (src->n == 0)
    return 0;
  dst->steps = malloc ((size_t) src->n * sizeof *src->steps);
  if (dst->steps == NULL) {
    tn_err_set (e, "could not allocate %d steps", src->n);
    return -1;
  }
  memcpy (dst->steps, src->steps, (size_t) src->n * sizeof *src->steps);
  dst->n = src->n;
  return 0;
}

/* ---- applying ---- */

static int
norm_axis (int64_t axis, int rank, int *out, tn_err *e)
{
  if (axis < -rank || axis >= rank) {
    tn_err_set (e, "axis %lld is out of range for a tensor of rank %d",
        (long long) axis, rank);
    return -1;
  }
  *out = (int) (axis < 0 ? axis + rank : axis);
  return 0;
}

/* The mask without bit a, the bits above it moved down. */
static uint32_t
mask_remove (uint32_t m, int a)
{
  return ((m >> (a + 1)) << a) | (m & ((1u << a) - 1));
}

/* The mask with a clear bit inserted at a. */
static uint32_t
mask_insert (uint32_t m, int a)
{
  return ((m >> a) << (a + 1)) | (m & ((1u << a) - 1));
}

static int64_t
clamp_index (int64_t i, int64_t n)
{
  if (i < 0) {
    i += n; /* no overflow: n >= 0 */
    return i < 0 ? 0 : i;
  }
  return i > n ? n : i;
}

/* Python's a[start:stop:step] of axis a (step >= 1).  On a reversed axis
 * logical item i is stored item n - 1 - i: the items picked are then a
 * stored slice with the same step, read backwards. */
static int
slice_step (tn_fview *f, const tn_vstep *st, tn_err *e)
{
  int64_t start = (st->given & 2) ? st->args[1] : 0;
  int64_t stop = (st->given & 4) ? st->args[2] : INT64_MAX;
  int64_t step = (st->given & 8) ? st->args[3] : 1;
  int64_t n, s0, e0, len, first;
  int a;

  if (norm_axis (st->args[0], f->v.rank, &a, e) < 0)
    return -1;
  if (!(f->flip >> a & 1))
    return tn_view_slice (&f->v, a, start, stop, step, e);
  n = f->v.dims[a];
  s0 = clamp_index (start, n);
  e0 = clamp_index (stop, n);
  len = e0 > s0 ? (e0 - s0 - 1) / step + 1 : 0;
  if (len == 0)
    return tn_view_slice (&f->v, a, 0, 0, 1, e);
  first = n - 1 - (s0 + (len - 1) * step); /* the stored item read last */
  return tn_view_slice (&f->v, a, first, first + (len - 1) * step + 1, step, e);
}

static int
apply_one (const tn_vstep *st, tn_fview *f, tn_err *e)
{
  tn_view *v = &f->v;
  int axes[TN_MAX_RANK], r = v->rank, a;
  uint32_t m = f->flip, nm = 0;

  switch (st->kind) {
  case TN_VS_PERMUTE:
    for (int i = 0; i < st->nargs; i++)
      axes[i] = (int) st->args[i]; /* checked against nargs when parsed */
    if (tn_view_permute (v, axes, st->nargs, e) < 0)
      return -1;
    for (int i = 0; i < r; i++)
      nm |= (m >> (axes[i] < 0 ? axes[i] + r : axes[i]) & 1) << i;
    f->flip = nm;
    return 0;
  case TN_VS_TRANSPOSE:
    if (tn_view_transpose (v, e) < 0)
      return -1;
    if (((m >> (r - 1)) ^ (m >> (r - 2))) & 1)
      f->flip = m ^ (3u << (r - 2));
    return 0;
  case TN_VS_SLICE:
    return slice_step (f, st, e);
  case TN_VS_SELECT:
    if (norm_axis (st->args[0], r, &a, e) < 0)
      return -1;
    if ((m >> a & 1) && st->args[1] >= -v->dims[a]
        && st->args[1] < v->dims[a]) {
      int64_t i = st->args[1] < 0 ? st->args[1] + v->dims[a] : st->args[1];

      if (tn_view_select (v, a, v->dims[a] - 1 - i, e) < 0)
        return -1;
    } else if (tn_view_select (v, a, st->args[1], e) < 0) {
      return -1;
    }
    f->flip = mask_remove (m, a);
    return 0;
  case TN_VS_RESHAPE:
    /* Only reached for a dense view with nothing reversed. */
    return tn_view_reshape (v, st->args, st->nargs, e);
  case TN_VS_EXPAND:
    if (tn_view_expand (v, (int) st->args[0], e) < 0)
      return -1;
    a = (int) (st->args[0] < 0 ? st->args[0] + r + 1 : st->args[0]);
    f->flip = mask_insert (m, a);
    return 0;
  case TN_VS_SQUEEZE:
    if (tn_view_squeeze (v, (int) st->args[0], e) < 0)
      return -1;
    f->flip = mask_remove (
        m, (int) (st->args[0] < 0 ? st->args[0] + r : st->args[0]));
    return 0;
  case TN_VS_BROADCAST:
    if (tn_view_broadcast (v, st->args, st->nargs, e) < 0)
      return -1;
    /* Axes align at the end; stretched ones (stride 0) read the same
     * either way and lose their bit below. */
    f->flip = m << (v->rank - r);
    return 0;
  case TN_VS_FLIP:
    if (norm_axis (st->args[0], r, &a, e) < 0)
      return -1;
    f->flip = m ^ (1u << a);
    return 0;
  }
  tn_err_set (e, "step kind %d is unknown", (int) st->kind);
  return -1;
}

int
tn_vsteps_apply (const tn_vsteps *s, int from, tn_fview *f, bool dims_only,
    int *stop, tn_err *e)
{
  for (int i = from; i < s->n; i++) {
    const tn_vstep *st = &s->steps[i];
    tn_err why = { { 0 } };

    if (st->kind == TN_VS_RESHAPE && (f->flip || !tn_view_dense (&f->v))) {
      if (!dims_only) {
        *stop = i;
        return 0;
      }
      tn_view_init (&f->v, f->v.dtype, f->v.dims, f->v.rank, NULL);
      f->flip = 0;
    }
    if (apply_one (st, f, &why) < 0) {
      tn_err_set (
          e, "step %d of %d ('%s'): %s", i + 1, s->n, st->text, why.msg);
      return -1;
    }
    f->flip = tn_view_flip_mask (&f->v, f->flip);
  }
  *stop = s->n;
  return 0;
}

bool
tn_vsteps_invert (const tn_vsteps *s, int64_t *dims, int *rank)
{
  for (int i = s->n - 1; i >= 0; i--) {
    const tn_vstep *st = &s->steps[i];
    int64_t d[TN_MAX_RANK], t;
    int r = *rank, a;

    switch (st->kind) {
    case TN_VS_PERMUTE:
      if (st->nargs != r)
        return false;
      for (int k = 0; k < r; k++) {
        a = (int) (st->args[k] < 0 ? st->args[k] + r : st->args[k]);
        d[a] = dims[k];
      }
      memcpy (dims, d, (size_t) r * sizeof *dims);
      break;
    case TN_VS_TRANSPOSE:
      if (r < 2)
        return false;
      t = dims[r - 1];
      dims[r - 1] = dims[r - 2];
      dims[r - 2] = t;
      break;
    case TN_VS_EXPAND:
      /* The axis counts in the output's rank. */
      if (norm_axis (st->args[0], r, &a, NULL) < 0 || dims[a] != 1)
        return false;
      memmove (dims + a, dims + a + 1, (size_t) (r - a - 1) * sizeof *dims);
      (*rank)--;
      break;
    case TN_VS_SQUEEZE:
      /* The axis counts in the input's rank. */
      if (r + 1 > TN_MAX_RANK || norm_axis (st->args[0], r + 1, &a, NULL) < 0)
        return false;
      memmove (dims + a + 1, dims + a, (size_t) (r - a) * sizeof *dims);
      dims[a] = 1;
      (*rank)++;
      break;
    case TN_VS_FLIP:
      if (norm_axis (st->args[0], r, &a, NULL) < 0)
        return false;
      break;
    default:
      return false;
    }
  }
  return true;
}
