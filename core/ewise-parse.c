/* Parsing "cast:float32,sub:127.5,div:127.5"; .npy operands come from the
 * one loader, tn_array_load_npy. */
#define _GNU_SOURCE /* uselocale */
#include "ewise-parse.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"
#include "npy.h"
#include "steps.h"
#include "view.h"

#define EW_NAME(E, name, arity) [TN_EW_##E] = #name,
static const char *const op_names[TN_EW_NOPS] = { TN_EW_FOREACH_OP (EW_NAME) };
#undef EW_NAME
#define EW_ARITY(E, name, arity) [TN_EW_##E] = arity,
static const int op_arity[TN_EW_NOPS] = { TN_EW_FOREACH_OP (EW_ARITY) };
#undef EW_ARITY
#define EW_LIST(E, name, arity) ", " #name
static const char op_list[] = TN_EW_FOREACH_OP (EW_LIST);
#undef EW_LIST

const char *
tn_ew_op_name (tn_ew_op op)
{
  return (unsigned) op < TN_EW_NOPS ? op_names[op] : "?";
}

const char *
tn_ewise_step_names (void)
{
  return op_list + 2;
}

static int
op_lookup (const char *name)
{
  int i;

  for (i = 0; i < TN_EW_NOPS; i++)
    if (strcmp (name, op_names[i]) == 0)
      return i;
  return -1;
}

bool
tn_ewise_step_known (const char *name)
{
  return name != NULL && op_lookup (name) >= 0;
}

/* Numbers are read in the C locale whatever the application set, so
 * "0.5" means one half everywhere. */
static double
strtod_c (const char *s, char **end)
{
  static locale_t c_locale;
  locale_t prev;
  double v;

  if (c_locale == (locale_t) 0) {
    locale_t l = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);

    if (l != (locale_t) 0
        && !__atomic_compare_exchange_n (&c_locale, &(locale_t){ (locale_t) 0 },
            l, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      freelocale (l);
  }
  if (c_locale == (locale_t) 0)
    return strtod (s, end);
  prev = uselocale (c_locale);
  v = strtod (s, end);
  uselocale (prev);
  return v;
}

/* 0 when s is a whole number literal or a float literal, exactly. */
static int
parse_num (const char *s, tn_ew_num *n)
{
  const char *p = s;
  char *end;

  if (*s == '\0')
    return -1;
  if (*p == '+' || *p == '-')
    p++;
  if (*p != '\0' && strspn (p, "0123456789") == strlen (p)) {
    errno = 0;
    if (*s == '-') {
      long long v = strtoll (s, &end, 10);

      if (errno == 0) {
        n->kind = TN_EW_NUM_INT;
        n->i = v;
        n->f = (double) v;
        return 0;
      }
    } else {
      unsigned long long v = strtoull (s, &end, 10);

      if (errno == 0) {
        n->kind = v > INT64_MAX ? TN_EW_NUM_UINT : TN_EW_NUM_INT;
        n->u = v;
        n->i = (int64_t) (v & INT64_MAX);
        n->f = (double) v;
        return 0;
      }
    }
    /* Beyond 64 bits: kept as a float, so any integer dtype refuses it. */
  }
  n->kind = TN_EW_NUM_FLOAT;
  n->f = strtod_c (s, &end);
  return *end == '\0' ? 0 : -1;
}

/* Item i of t as an exact number (floats as doubles: exact too). */
static tn_ew_num
item_num (const tn_ew_tensor *t, int64_t i)
{
  const unsigned char *p = (const unsigned char *) t->data
                           + i * (int64_t) tn_dtype_size (t->dtype);
  tn_ew_num n = { 0 };
  int64_t v;
  uint64_t u;

  switch (tn_dtype_kind (t->dtype)) {
  case TN_KIND_INT:
    tn_cast (&v, TN_INT64, p, t->dtype, 1);
    n.kind = TN_EW_NUM_INT;
    n.i = v;
    n.f = (double) v;
    break;
  case TN_KIND_UINT:
  case TN_KIND_BOOL:
    tn_cast (&u, TN_UINT64, p, t->dtype, 1);
    n.kind = u > INT64_MAX ? TN_EW_NUM_UINT : TN_EW_NUM_INT;
    n.u = u;
    n.i = (int64_t) (u & INT64_MAX);
    n.f = (double) u;
    break;
  default:
    n.kind = TN_EW_NUM_FLOAT;
    n.f = tn_get_f64 (p, t->dtype);
    break;
  }
  return n;
}

static bool
num_whole (const tn_ew_num *n)
{
  return n->kind != TN_EW_NUM_FLOAT
         || (isfinite (n->f) && n->f == trunc (n->f));
}

/* a < b for whole numbers. */
static bool
num_less (const tn_ew_num *a, const tn_ew_num *b)
{
  if (a->kind == TN_EW_NUM_FLOAT || b->kind == TN_EW_NUM_FLOAT)
    return a->f < b->f;
  if (a->kind == TN_EW_NUM_UINT || b->kind == TN_EW_NUM_UINT)
    return b->kind == TN_EW_NUM_UINT
           && (a->kind == TN_EW_NUM_INT || a->u < b->u);
  return a->i < b->i;
}

static void
tensor_summarise (tn_ew_tensor *t)
{
  int64_t i;

  t->all_whole = true;
  for (i = 0; i < t->count; i++) {
    tn_ew_num n = item_num (t, i);

    if (!num_whole (&n)) {
      t->all_whole = false;
      return;
    }
    if (i == 0 || num_less (&n, &t->lo))
      t->lo = n;
    if (i == 0 || num_less (&t->hi, &n))
      t->hi = n;
  }
}

/* The .npy operand at path, read by the one loader into the step's
 * array, and the view of it the planner reads. */
static tn_ew_tensor *
load_operand (const char *path, tn_array *a, tn_err *e)
{
  tn_ew_tensor *t;
  int r = tn_array_load_npy (path, a, e);

  if (r == -2) {
    tn_err_set (e, "cannot open '%.60s' (and it is not a number): %s", path,
        strerror (errno));
    return NULL;
  }
  if (r < 0)
    return NULL;
  t = calloc (1, sizeof *t);
  if (t == NULL) {
    tn_err_set (e, "cannot allocate the operand of '%.60s'", path);
    tn_array_clear (a);
    return NULL;
  }
  t->dtype = a->view.dtype;
  t->rank = a->view.rank;
  memcpy (t->dims, a->view.dims, sizeof t->dims);
  t->count = tn_view_count (&a->view);
  t->data = a->data;
  tensor_summarise (t);
  return t;
}

/* Fills st from the split step; text is kept (cut) for messages. */
static int
parse_step (const tn_step *sp, int k, int nsteps, tn_ew_step *st, tn_err *e)
{
  int op, i, arity, len;

  len = snprintf (st->text, sizeof st->text, "%s", sp->name);
  for (i = 0; i < sp->nargs && len < (int) sizeof st->text; i++)
    len += snprintf (
        st->text + len, sizeof st->text - (size_t) len, ":%s", sp->args[i]);
  op = op_lookup (sp->name);
  if (op < 0) {
    tn_err_set (e,
        "step %d of %d ('%.30s') is not a known step; expected "
        "one of %s.",
        k, nsteps, sp->name, tn_ewise_step_names ());
    return -1;
  }
  st->op = (tn_ew_op) op;
  arity = op_arity[op];
  if (sp->nargs != arity) {
    if (arity == 0)
      tn_err_set (e, "step %d of %d (%s) takes no argument but has %d.", k,
          nsteps, st->text, sp->nargs);
    else if (op == TN_EW_CAST)
      tn_err_set (e,
          "step %d of %d (%s) needs one type, as in cast:float32, "
          "but has %d arguments.",
          k, nsteps, st->text, sp->nargs);
    else if (op == TN_EW_CLAMP)
      tn_err_set (e,
          "step %d of %d (%s) needs two numbers, as in "
          "clamp:0:255, but has %d.",
          k, nsteps, st->text, sp->nargs);
    else
      tn_err_set (e,
          "step %d of %d (%s) needs one operand (a number or the "
          "path of a .npy file, as in %s:2) but has %d.",
          k, nsteps, st->text, op_names[op], sp->nargs);
    return -1;
  }
  if (op == TN_EW_CAST) {
    tn_err te;

    if (tn_dtype_from_name (sp->args[0], &st->cast_to, &te) < 0) {
      tn_err_set (e, "step %d of %d (%s): %s", k, nsteps, st->text, te.msg);
      return -1;
    }
    return 0;
  }
  for (i = 0; i < sp->nargs; i++) {
    tn_err te;

    if (parse_num (sp->args[i], &st->num[i]) == 0)
      continue;
    if (op == TN_EW_CLAMP) {
      tn_err_set (e, "step %d of %d (%s): '%.30s' is not a number.", k, nsteps,
          st->text, sp->args[i]);
      return -1;
    }
    st->tensor = load_operand (sp->args[i], &st->array, &te);
    if (st->tensor == NULL) {
      tn_err_set (e, "step %d of %d (%s): %s.", k, nsteps, st->text, te.msg);
      return -1;
    }
  }
  return 0;
}

void
tn_ewise_chain_free (tn_ewise_chain *c)
{
  int i;

  if (c == NULL)
    return;
  for (i = 0; i < c->nsteps; i++) {
    free (c->steps[i].tensor);
    tn_array_clear (&c->steps[i].array);
  }
  free (c->steps);
  free (c);
}

int
tn_ewise_chain_length (const tn_ewise_chain *c)
{
  return c ? c->nsteps : 0;
}

int
tn_ewise_chain_parse (const char *text, tn_ewise_chain **out, tn_err *e)
{
  tn_ewise_chain *c;
  tn_steps sp;
  tn_err te;
  int i;

  *out = NULL;
  if (tn_steps_parse (text, &sp, &te) < 0) {
    tn_err_set (e, "%s.", te.msg);
    tn_steps_clear (&sp);
    return -1;
  }
  c = calloc (1, sizeof *c);
  if (c == NULL
      || (sp.n > 0 && !(c->steps = calloc ((size_t) sp.n, sizeof *c->steps)))) {
    tn_err_set (e, "cannot allocate a chain of %d steps.", sp.n);
    free (c);
    tn_steps_clear (&sp);
    return -1;
  }
  for (i = 0; i < sp.n; i++) {
    c->nsteps = i + 1;
    if (parse_step (&sp.steps[i], i + 1, sp.n, &c->steps[i], e) < 0) {
      tn_ewise_chain_free (c);
      tn_steps_clear (&sp);
      return -1;
    }
  }
  tn_steps_clear (&sp);
  *out = c;
  return 0;
}
tn_ew_num
tn_ew_tensor_item (const tn_ew_tensor *t, int64_t i)
{
  return item_num (t, i);
}

bool
tn_ew_num_whole (const tn_ew_num *n)
{
  return num_whole (n);
}

bool
tn_ew_num_less (const tn_ew_num *a, const tn_ew_num *b)
{
  return num_less (a, b);
}
