/* Internal to core/ewise*.c: a parsed chain and its operands. */
#ifndef TN_EWISE_PARSE_H
#define TN_EWISE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "array.h"
#include "ewise-kern.h"
#include "ewise.h"

/* A number as written: exact when it is an integer literal. */
typedef enum { TN_EW_NUM_INT, TN_EW_NUM_UINT, TN_EW_NUM_FLOAT } tn_ew_num_kind;

typedef struct {
  tn_ew_num_kind kind;
  int64_t i;  /* TN_EW_NUM_INT */
  uint64_t u; /* TN_EW_NUM_UINT: above INT64_MAX */
  double f;   /* TN_EW_NUM_FLOAT; also the value of the others, rounded */
} tn_ew_num;

/* A constant operand as the planner reads it: a non-owning view of the
 * tn_array its step owns (the .npy file as the one loader read it: dense,
 * native byte order), plus a summary of its values. */
typedef struct {
  tn_dtype dtype;
  int rank;
  int64_t dims[TN_MAX_RANK];
  int64_t count;
  const void *data; /* the step's array.data */
  /* What converting it to an integer dtype needs to know: whether every
   * item is a finite whole number, and then the smallest and largest. */
  bool all_whole;
  tn_ew_num lo, hi;
} tn_ew_tensor;

typedef struct {
  tn_ew_op op;
  char text[48];        /* the step as written, cut, for messages */
  tn_ew_num num[2];     /* the numbers (clamp has two) */
  tn_ew_tensor *tensor; /* a .npy operand instead of a number */
  tn_array array;       /* the operand's items, which tensor views */
  tn_dtype cast_to;
} tn_ew_step;

struct tn_ewise_chain {
  int nsteps;
  tn_ew_step *steps;
};

/* The op's name as the grammar spells it. */
const char *tn_ew_op_name (tn_ew_op op);

/* Item i as an exact number (floats as doubles, which hold them). */
tn_ew_num tn_ew_tensor_item (const tn_ew_tensor *t, int64_t i);
/* A finite whole number. */
bool tn_ew_num_whole (const tn_ew_num *n);
/* a < b, exactly for whole numbers. */
bool tn_ew_num_less (const tn_ew_num *a, const tn_ew_num *b);

#endif
