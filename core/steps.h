/* A generic step list: "permute:2:0:1,slice:0:1:3" -> steps with string
 * arguments.  Steps are separated by ',' and a step's arguments by ':';
 * blanks around either are ignored; an empty text is the empty list.  What
 * the names and arguments mean is up to the caller (tensorview's view
 * steps, tensorop's elementwise steps). */
#ifndef TN_STEPS_H
#define TN_STEPS_H

#include <stdint.h>

#include "err.h"

#define TN_STEPS_MAX 64
#define TN_STEP_MAX_ARGS 16

typedef struct {
  char *name;
  int nargs;
  char *args[TN_STEP_MAX_ARGS];
} tn_step;

typedef struct {
  int n;
  tn_step steps[TN_STEPS_MAX];
  char *buf; /* owns every string above */
} tn_steps;

/* Splits text (NULL is the empty list) into s; -1 with a message naming
 * the step ("step 2 of 3 is empty", "step 1 ('permute') has 17 arguments;
 * at most 16 are allowed").  Call tn_steps_clear afterwards either way. */
int tn_steps_parse (const char *text, tn_steps *s, tn_err *e);
/* The same, but with empty_args an argument may be empty (an empty
 * string): tensorview's slice:AXIS::STEP leaves bounds out, as Python. */
int tn_steps_parse_full (
    const char *text, tn_steps *s, int empty_args, tn_err *e);
void tn_steps_clear (tn_steps *s);

/* Argument i of step index (0-based) of s as a whole number; -1 with a
 * message naming the step, the argument and the text otherwise. */
int tn_steps_arg_int64 (
    const tn_steps *s, int index, int i, int64_t *out, tn_err *e);

#endif
