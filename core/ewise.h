/* Elementwise chains: "cast:float32,sub:127.5,div:127.5" parsed once,
 * type-checked and compiled once per dtype and dims, then run over a
 * tensor in one pass over memory.
 *
 * Grammar (core/steps.h).  Steps are separated by ',' and a step's
 * arguments by ':'; blanks around either are ignored; the empty chain is
 * the identity.
 *   add sub mul div pow min max mod   one operand: a number, or the path
 *                                     of a .npy file (a constant tensor)
 *   neg abs sqrt exp log relu sigmoid tanh floor ceil round
 *   clamp:LO:HI                       two numbers
 *   cast:TYPE                         any of the 13 dtype names
 *
 * Types.  Nothing promotes silently: a step computes in the dtype the
 * tensor has at that point, and only cast changes it.  bool tensors take
 * cast steps only.  sqrt, exp, log, sigmoid and tanh need a float tensor
 * (the error suggests cast:float32 first).  floor, ceil and round leave
 * integers as they are, as do abs and relu on unsigned ones.
 *
 * Operands.  A number is converted to the tensor's dtype at that step: on
 * an integer tensor it must be a whole number inside the dtype's range
 * (2.5, or 300 on uint8, is an error, never a truncation); on a float
 * tensor it is rounded to nearest even.  A .npy operand is read once when
 * the chain is parsed, converted the same way item by item (an item that
 * is not a whole number, or out of range, is an error naming it) and
 * broadcast against the tensor by NumPy's rule, except that it may not
 * enlarge the tensor: the output always has the input's dims.
 *
 * Arithmetic, the same on every code path (portable C and AVX2):
 * - integers wrap (two's complement): add, sub, mul, neg, abs and pow
 *   keep the low bits, so abs and neg of INT_MIN give INT_MIN;
 * - integer div is floor division and mod takes the divisor's sign, as
 *   NumPy's // and %; a zero divisor gives 0 for both (never SIGFPE), and
 *   INT_MIN div -1 gives INT_MIN (wrap), INT_MIN mod -1 gives 0;
 * - integer pow needs a non-negative exponent (an error otherwise);
 *   x pow 0 is 1, 0 pow 0 included;
 * - floats follow IEEE 754: x/0 is +-inf or NaN; mod is C's fmod moved
 *   into y's sign as NumPy's % does (exact; y = 0 gives NaN);
 * - min and max return NaN if either side is NaN (NumPy's minimum and
 *   maximum); relu(x) is x < 0 ? 0 : x, so NaN stays NaN and -0 stays -0;
 *   clamp(x) is x < LO ? LO : x > HI ? HI : x, so NaN stays NaN;
 * - round is half to even; sigmoid is 1 / (1 + exp(-x)) computed without
 *   overflow; exp, log, pow and tanh are the C library's (within 2 ulp);
 * - float16 and bfloat16 compute each step in float32 and round to
 *   nearest even once per step (as NumPy does float16), not once per
 *   chain;
 * - cast follows core/cast.h: float -> int truncates and saturates, NaN
 *   -> 0.
 *
 * Running.  One pass over memory: the tensor is cut into blocks of
 * TN_EWISE_BLOCK items that stay in L1 while every step runs over them
 * (the memory of a block two blocks on is requested meanwhile, so that
 * computing and streaming overlap), and large tensors are split across
 * the worker pool at borders that depend on the length alone, so any
 * thread count gives the same bits.  A chain of one step on a tensor of
 * a dtype other than float16/bfloat16, with a scalar operand or one of
 * the tensor's own dims, is one straight vector loop over memory; so are
 * fused runs of steps (ewise-kern.h: two of add/sub/mul/div with scalar
 * operands on float32/float64, a cast from int8/uint8/int16/uint16 to
 * float32 before them, a relu after them), which round after every step
 * exactly as the separate steps do.
 */
#ifndef TN_EWISE_H
#define TN_EWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"

/* 256 measured best on the 2-core EPYC of bench/README.md: larger blocks
 * let memory and the arithmetic of a chain take turns instead of
 * overlapping; smaller ones pay a call per step too often. */
#define TN_EWISE_BLOCK 256
/* Tensors smaller than this run on the calling thread alone. */
#define TN_EWISE_PARALLEL_MIN 65536

/* A parsed chain, independent of dtype and dims (its .npy operands are
 * loaded). */
typedef struct tn_ewise_chain tn_ewise_chain;
/* A chain compiled for one input dtype and dims. */
typedef struct tn_ewise tn_ewise;

/* Parses text (NULL is the empty chain) with core/steps.h's grammar.  -1
 * with a message naming the step, e.g. "step 2 of 3 ('foo') is not a
 * known step; expected one of ...". */
int tn_ewise_chain_parse (const char *text, tn_ewise_chain **out, tn_err *e);
void tn_ewise_chain_free (tn_ewise_chain *c);
int tn_ewise_chain_length (const tn_ewise_chain *c);

/* Whether name is a step name ("add", "cast", ...). */
bool tn_ewise_step_known (const char *name);
/* "add, sub, ..., cast" for messages. */
const char *tn_ewise_step_names (void);

/* Type-checks the chain for an input of dtype in and, when rank >= 0, of
 * these dims (broadcasting of tensor operands); *out gets the output
 * dtype.  No memory is allocated. */
int tn_ewise_chain_check (const tn_ewise_chain *c, tn_dtype in,
    const int64_t *dims, int rank, tn_dtype *out, tn_err *e);

/* Checks as above and compiles; the result does not refer to c, and runs
 * the kernels of the CPU features tn_cpu_flags () allowed here (tests
 * narrow them with tn_cpu_set_mask, core/cpu.h).  On AVX2 each division
 * by a float32 scalar is proven here, once, before it may run as a
 * multiply (a few ms per divisor, core/ewise-kern.c). */
int tn_ewise_compile (const tn_ewise_chain *c, tn_dtype in, const int64_t *dims,
    int rank, tn_ewise **out, tn_err *e);
void tn_ewise_free (tn_ewise *p);

tn_dtype tn_ewise_in_dtype (const tn_ewise *p);
tn_dtype tn_ewise_out_dtype (const tn_ewise *p);
/* Items of the tensor. */
int64_t tn_ewise_count (const tn_ewise *p);
/* The output bytes always equal the input bytes (every step compiled
 * away, e.g. floor on integers): the caller may pass buffers through. */
bool tn_ewise_is_identity (const tn_ewise *p);
/* Input and output items have the same size, so dst may equal src. */
bool tn_ewise_in_place_ok (const tn_ewise *p);

/* Runs the chain from the dense tensor src into the dense tensor dst, on
 * up to nthreads threads (0 = all cores).  dst may equal src when
 * tn_ewise_in_place_ok; otherwise they must not overlap. */
void tn_ewise_run (const tn_ewise *p, void *dst, const void *src, int nthreads);

#endif
