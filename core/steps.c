#include "steps.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Trims blanks in place; returns the first non-blank character. */
static char *
trim (char *s)
{
  char *end;

  while (isspace ((unsigned char) *s))
    s++;
  end = s + strlen (s);
  while (end > s && isspace ((unsigned char) end[-1]))
    *--end = '\0';
  return s;
}

static int
count_char (const char *s, char c)
{
  int n = 0;

  for (; *s; s++)
    n += *s == c;
  return n;
}

int
tn_steps_parse (const char *text, tn_steps *s, tn_err *e)
{
  return tn_steps_parse_full (text, s, 0, e);
}

int
tn_steps_parse_full (const char *text, tn_steps *s, int empty_args, tn_err *e)
{
  char *p, *next;
  int nsteps, k = 0;

  memset (s, 0, sizeof *s);
  if (text == NULL || *text == '\0')
    return 0;
  s->buf = strdup (text);
  if (s->buf == NULL) {
    tn_err_set (
        e, "could not copy the %zu characters of the step list", strlen (text));
    return -1;
  }
  /* A text of blanks only is the empty list too. */
  if (*trim (s->buf) == '\0')
    return 0;

  nsteps = count_char (s->buf, ',') + 1;
  if (nsteps > TN_STEPS_MAX) {
    tn_err_set (e, "the list has %d steps; at most %d are allowed", nsteps,
        TN_STEPS_MAX);
    return -1;
  }
  for (p = s->buf; p != NULL; p = next, k++) {
    tn_step *st = &s->steps[k];
    char *a, *colon;
    int nargs;

    next = strchr (p, ',');
    if (next)
      *next++ = '\0';
    nargs = count_char (p, ':');
    if (nargs > TN_STEP_MAX_ARGS) {
      tn_err_set (e, "step %d of %d has %d arguments; at most %d are allowed",
          k + 1, nsteps, nargs, TN_STEP_MAX_ARGS);
      return -1;
    }
    colon = strchr (p, ':');
    if (colon)
      *colon = '\0';
    st->name = trim (p);
    if (*st->name == '\0') {
      tn_err_set (e, "step %d of %d is empty%s", k + 1, nsteps,
          colon ? " (an argument without a step name)" : "");
      return -1;
    }
    for (a = colon ? colon + 1 : NULL; a != NULL; a = colon) {
      colon = strchr (a, ':');
      if (colon)
        *colon++ = '\0';
      st->args[st->nargs] = trim (a);
      if (*st->args[st->nargs] == '\0' && !empty_args) {
        tn_err_set (e, "step %d of %d ('%s') has an empty argument %d", k + 1,
            nsteps, st->name, st->nargs + 1);
        return -1;
      }
      st->nargs++;
    }
    s->n++;
  }
  return 0;
}

void
tn_steps_clear (tn_steps *s)
{
  free (s->buf);
  memset (s, 0, sizeof *s);
}

int
tn_steps_arg_int64 (
    const tn_steps *s, int index, int i, int64_t *out, tn_err *e)
{
  const tn_step *st = &s->steps[index];
  const char *a = st->args[i];
  char *end;
  long long v;

  errno = 0;
  v = strtoll (a, &end, 10);
  if (errno != 0 || end == a || *end != '\0') {
    tn_err_set (e,
        "step %d of %d ('%s'): argument %d is '%s', not a whole number%s",
        index + 1, s->n, st->name, i + 1, a,
        errno == ERANGE ? " that fits in 64 bits" : "");
    return -1;
  }
  *out = v;
  return 0;
}
