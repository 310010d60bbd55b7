/* The digits of one float for core/print.c: shortest round-trip digits
 * per dtype, and the positional and scientific forms NumPy builds from
 * them.  Private to core; every function expects the "C" numeric locale. */
#ifndef TN_PRINT_DIGITS_H
#define TN_PRINT_DIGITS_H

#include <stdint.h>

#include "dtype.h"

#define TN_DIGITS_CHARS 400 /* "%.8f" of the largest double, with room */

/* A finite value's shortest digits: x = d[0].d[1..n) * 10^e. */
typedef struct {
  char d[20];
  int16_t n, e;
} tn_digits;

/* ax finite and >= 0: its shortest digits as an item of dtype t (float16,
 * bfloat16, float32; any other t is read as float64). */
void tn_digits_shortest (double ax, tn_dtype t, tn_digits *s);
/* The correctly rounded digits of ax with prec digits after the first,
 * into d (NUL-terminated, at least prec + 2 bytes); returns their count
 * and sets *e10 to the exponent of the first. */
int tn_digits_rounded (double ax, int prec, char *d, int *e10);
/* Positional form of finite x with shortest digits s (of |x|) into out
 * (TN_DIGITS_CHARS bytes): at most 8 digits after the point (rounded
 * there), trailing zeros dropped, the point kept ("1.").  *ilen gets the
 * characters before the point (sign included), *flen after it; returns
 * the length. */
int tn_digits_positional (
    char *out, double x, const tn_digits *s, int *ilen, int *flen);
/* The scientific digits NumPy's first pass sees for ax with shortest
 * digits s: at most 9 significant (rounded there), trailing zeros
 * dropped, into d (32 bytes); returns their count, *e10 the exponent. */
int tn_digits_sci (double ax, const tn_digits *s, char *d, int *e10);
/* Digits of the exponent e10 as printed: at least 2 ("e+05"). */
int tn_digits_exp_width (int e10);

#endif
