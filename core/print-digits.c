/* The digits of one float, as NumPy's Dragon4 prints them: its shortest
 * round-trip digits for its dtype, and the positional and scientific
 * forms built from them.  The array printer (print.c) chooses the form and
 * pads the items; this file only turns one value into digits.
 *
 * Shortest digits: the fewest significant digits whose correctly rounded
 * decimal (printf "%.*e") reads back (strtod) as the same dtype item, or,
 * at a power of two where the gap below is half the gap above, the
 * decimal a unit above it; a binary search over the digit count, as a
 * shorter form that reads back implies every longer one does.  The
 * caller runs under the "C" numeric locale (print.c enters it). */
#include "print-digits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"

/* Digits that round-trip: 17 for float64, 9 float32, 5 float16, 4
 * bfloat16 (ceil(p log10 2) + 1 for a p-bit significand). */
static int
max_digits (tn_dtype t)
{
  switch (t) {
  case TN_FLOAT16:
    return 5;
  case TN_BFLOAT16:
    return 4;
  case TN_FLOAT32:
    return 9;
  default:
    return 17;
  }
}

static int
reads_back (const char *s, double ax, tn_dtype t)
{
  switch (t) {
  case TN_FLOAT32:
    return strtof (s, NULL) == (float) ax;
  case TN_FLOAT16:
    return tn_f64_to_f16 (strtod (s, NULL)) == tn_f64_to_f16 (ax);
  case TN_BFLOAT16:
    return tn_f64_to_bf16 (strtod (s, NULL)) == tn_f64_to_bf16 (ax);
  default:
    return strtod (s, NULL) == ax;
  }
}

/* Digits of a "%.*e" string: d gets the significant digits, *e10 the
 * exponent of the first one. */
static int
parse_sci (const char *s, char *d, int *e10)
{
  int n = 0;

  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9')
      d[n++] = *s;
  d[n] = '\0';
  *e10 = *s == 'e' ? atoi (s + 1) : 0;
  return n;
}

/* Steps the digits of a "%.*e" string up by one unit in the last place,
 * in place ("9.99e+00" becomes "1.00e+01"). */
static void
bump_last_digit (char *buf, size_t cap)
{
  char d[32];
  int e10, n = parse_sci (buf, d, &e10), i;

  for (i = n - 1; i >= 0 && d[i] == '9'; i--)
    d[i] = '0';
  if (i >= 0) {
    d[i]++;
  } else {
    d[0] = '1';
    e10++;
  }
  snprintf (
      buf, cap, "%c%s%.*se%+03d", d[0], n > 1 ? "." : "", n - 1, d + 1, e10);
}

/* Whether some decimal of prec + 1 significant digits reads back as ax;
 * leaves it in buf.  The correctly rounded one is the candidate, except
 * at a power of two: the gap below is half the gap above, so when the
 * rounded decimal falls short below, the one a unit above may still read
 * back (Dragon4 then picks it too). */
static int
some_digits_read_back (double ax, tn_dtype t, int prec, char *buf, size_t cap)
{
  int e2;

  snprintf (buf, cap, "%.*e", prec, ax);
  if (reads_back (buf, ax, t))
    return 1;
  if (frexp (ax, &e2) != 0.5 || strtod (buf, NULL) > ax)
    return 0;
  bump_last_digit (buf, cap);
  return reads_back (buf, ax, t);
}

/* ax finite, >= 0: its shortest digits for dtype t (no trailing zeros
 * unless ax is 0). */
static int
shortest (double ax, tn_dtype t, char *d, int *e10)
{
  char buf[48];
  int lo = 0, hi = max_digits (t) - 1;

  while (lo < hi) {
    int mid = (lo + hi) / 2;

    if (some_digits_read_back (ax, t, mid, buf, sizeof buf))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (!some_digits_read_back (ax, t, hi, buf, sizeof buf))
    snprintf (buf, sizeof buf, "%.*e", hi, ax);
  return parse_sci (buf, d, e10);
}

int
tn_digits_rounded (double ax, int prec, char *d, int *e10)
{
  char buf[48];

  snprintf (buf, sizeof buf, "%.*e", prec, ax);
  return parse_sci (buf, d, e10);
}

void
tn_digits_shortest (double ax, tn_dtype t, tn_digits *s)
{
  int e10;

  s->n = (int16_t) shortest (ax, t, s->d, &e10);
  s->e = (int16_t) e10;
}

int
tn_digits_positional (
    char *out, double x, const tn_digits *s, int *ilen, int *flen)
{
  char tmp[TN_DIGITS_CHARS];
  const char *d = s->d;
  double ax = fabs (x);
  int n = s->n, e = s->e, len = 0, i, f = 0;

  if (signbit (x))
    out[len++] = '-';
  if (e >= n) {
    /* Positional digits run at least to the units: an integer whose
     * shortest form ends above them ("4.11e3" for float16 4112) prints
     * all its digits ("4112."), as NumPy's Dragon4 does. */
    len += snprintf (out + len, TN_DIGITS_CHARS - 1, "%.0f", ax);
    *ilen = len;
    out[len++] = '.';
  } else if (n - 1 - e > 8) {
    char *dot;

    snprintf (tmp, sizeof tmp, "%.8f", ax);
    dot = strchr (tmp, '.');
    if (!dot) /* the C locale always writes a '.'; stay safe anyway */
      dot = tmp + strlen (tmp);
    memcpy (out + len, tmp, (size_t) (dot - tmp));
    len += (int) (dot - tmp);
    *ilen = len;
    out[len++] = '.';
    if (*dot) {
      const char *fr = dot + 1;
      int fl = (int) strlen (fr);

      while (fl > 0 && fr[fl - 1] == '0')
        fl--;
      memcpy (out + len, fr, (size_t) fl);
      len += fl;
      f = fl;
    }
  } else {
    if (e < 0) {
      out[len++] = '0';
    } else {
      for (i = 0; i <= e; i++)
        out[len++] = i < n ? d[i] : '0';
    }
    *ilen = len;
    out[len++] = '.';
    if (e < 0) {
      for (i = 0; i < -e - 1; i++)
        out[len++] = '0';
      memcpy (out + len, d, (size_t) n);
      len += n;
      f = -e - 1 + n;
    } else if (n > e + 1) {
      memcpy (out + len, d + e + 1, (size_t) (n - e - 1));
      len += n - e - 1;
      f = n - e - 1;
    }
  }
  out[len] = '\0';
  *flen = f;
  return len;
}

int
tn_digits_sci (double ax, const tn_digits *s, char *d, int *e10)
{
  int n = s->n;

  memcpy (d, s->d, sizeof s->d);
  *e10 = s->e;
  if (n > 9) {
    n = tn_digits_rounded (ax, 8, d, e10);
    while (n > 1 && d[n - 1] == '0')
      n--;
    d[n] = '\0';
  }
  return n;
}

int
tn_digits_exp_width (int e10)
{
  int a = e10 < 0 ? -e10 : e10, n = 1;

  while (a >= 10) {
    a /= 10;
    n++;
  }
  return n < 2 ? 2 : n;
}
