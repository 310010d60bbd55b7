/* NumPy .npy headers.  The header is a Python dict literal; it is parsed by
 * a small recursive-descent reader that accepts what ast.literal_eval would
 * accept for the three keys NumPy writes, and names the byte offset of the
 * first thing it cannot accept. */
#include "npy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast.h"

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
/* NumPy pads so the data starts on this boundary. */
#define ALIGN 64
/* NumPy leaves room for the growth axis to gain digits in place. */
#define GROWTH_DIGITS 21
/* Our dtypes and rank <= 8 need a few hundred bytes; a larger header can
 * only be padding or an attack, so refuse it before the caller reads it. */
#define MAX_HEADER (1u << 20)
#define MAX_STRING 64

/* kind letter of NumPy's descr, generated from the one dtype list; 0 for
 * bfloat16, which NumPy does not have. */
static const struct {
  char kind;
  unsigned char size;
} descr_of[TN_NDTYPES] = {
#define X(E, name, ctype, kind)                                                \
  [E] = { (E) == TN_BFLOAT16       ? 0                                         \
          : (kind) == TN_KIND_BOOL ? 'b'                                       \
          : (kind) == TN_KIND_INT  ? 'i'                                       \
          : (kind) == TN_KIND_UINT ? 'u'                                       \
                                   : 'f',                                      \
    sizeof (ctype) },
  TN_FOREACH_DTYPE (X)
#undef X
};

typedef struct {
  const unsigned char *s; /* the whole file buffer */
  size_t p;               /* cursor, bytes from the start of the file */
  size_t end;             /* one past the last header byte */
  int major;
  tn_err *e;
} parser;

static int
is_ws (unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
         || c == '\v';
}

static int
is_word (unsigned char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
         || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '+'
         || c == '-';
}

static void
skip_ws (parser *P)
{
  while (P->p < P->end && is_ws (P->s[P->p]))
    P->p++;
}

/* Up to 24 bytes of s, printable (\xNN for the rest), "..." if cut. */
static void
escape (const unsigned char *s, size_t n, char *out, size_t cap)
{
  char tmp[24 * 4 + 4];
  size_t i, o = 0;

  for (i = 0; i < n && i < 24; i++) {
    if (s[i] >= 0x20 && s[i] < 0x7f)
      tmp[o++] = (char) s[i];
    else
      o += (size_t) snprintf (tmp + o, sizeof tmp - o, "\\x%02x", s[i]);
  }
  if (n > 24)
    o += (size_t) snprintf (tmp + o, sizeof tmp - o, "...");
  tmp[o] = '\0';
  snprintf (out, cap, "%s", tmp);
}

/* The token at byte q, quoted and printable, for "found ..." */
static void
describe (const parser *P, size_t q, char *out, size_t cap)
{
  char tok[24 * 4 + 4];
  size_t n = 1;
  unsigned char c;

  if (q >= P->end) {
    snprintf (out, cap, "the end of the header");
    return;
  }
  c = P->s[q];
  if (c == '\'' || c == '"') {
    while (q + n < P->end && P->s[q + n] != c && P->s[q + n] != '\n')
      n++;
    if (q + n < P->end && P->s[q + n] == c)
      n++;
  } else if (is_word (c)) {
    while (q + n < P->end && is_word (P->s[q + n]))
      n++;
  }
  escape (P->s + q, n, tok, sizeof tok);
  snprintf (out, cap, c == '\'' ? "\"%s\"" : "'%s'", tok);
}

static int fail_at (parser *P, size_t at, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int
fail_at (parser *P, size_t at, const char *fmt, ...)
{
  char what[200];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  tn_err_set (P->e, "npy header at byte %zu: %s", at, what);
  return -1;
}

static int
expected (parser *P, const char *what)
{
  char found[128];

  describe (P, P->p, found, sizeof found);
  return fail_at (P, P->p, "expected %s, found %s", what, found);
}

static int
parse_string (parser *P, char *out, const char *what)
{
  size_t start = P->p, n = 0;
  unsigned char q;

  if (P->p >= P->end || (P->s[P->p] != '\'' && P->s[P->p] != '"'))
    return expected (P, what);
  q = P->s[P->p++];
  for (;;) {
    unsigned char c;

    if (P->p >= P->end || P->s[P->p] == '\n')
      return fail_at (P, start, "the string that starts here is not closed");
    c = P->s[P->p];
    if (c == q)
      break;
    if (c == '\0')
      return fail_at (P, P->p, "expected a string, found a NUL byte in it");
    if (c == '\\')
      return fail_at (P, P->p,
          "escape sequences in strings are not "
          "supported, found a backslash");
    if (n == MAX_STRING)
      return fail_at (P, start,
          "the string that starts here is longer "
          "than %d bytes",
          MAX_STRING);
    out[n++] = (char) c;
    P->p++;
  }
  P->p++;
  out[n] = '\0';
  return 0;
}

static const char *
unsupported_kind (char k)
{
  switch (k) {
  case 'c':
    return "complex numbers";
  case 'O':
    return "Python objects";
  case 'S':
  case 'a':
    return "byte strings";
  case 'U':
    return "unicode strings";
  case 'V':
    return "raw void records";
  case 'M':
    return "datetimes";
  case 'm':
    return "timedeltas";
  default:
    return NULL;
  }
}

static int
parse_descr (parser *P, tn_npy *h)
{
  char d[MAX_STRING + 1], shown[24 * 4 + 4];
  size_t at = P->p, i = 0;
  char order = '|', kind;
  unsigned size = 0;
  const char *why;
  int t;

  if (P->p < P->end && P->s[P->p] == '[')
    return fail_at (P, at,
        "descr is a list: structured dtypes are not "
        "supported");
  if (parse_string (P, d, "a descr string such as '<f4'") < 0)
    return -1;
  if (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')
    order = d[i++];
  kind = d[i++];
  if (kind == '?' && d[i] == '\0') {
    kind = 'b';
    size = 1;
  } else if (kind != '\0') {
    /* two digits bound the value; longer sizes fall through unsupported */
    while (d[i] >= '0' && d[i] <= '9' && size < 100)
      size = size * 10 + (unsigned) (d[i++] - '0');
    if (d[i] != '\0')
      size = 0;
  }
  for (t = 0; t < TN_NDTYPES; t++)
    if (descr_of[t].kind && descr_of[t].kind == kind
        && descr_of[t].size == size)
      break;
  if (t == TN_NDTYPES) {
    why = unsupported_kind (kind);
    escape ((const unsigned char *) d, strlen (d), shown, sizeof shown);
    return fail_at (P, at,
        "unsupported dtype descr '%s'%s%s%s; expected "
        "bool, int8..int64, uint8..uint64, float16, float32 or float64",
        shown, why ? " (" : "", why ? why : "",
        why ? " are not supported)" : "");
  }
  h->dtype = (tn_dtype) t;
  h->big_endian = order == '>' && size > 1;
  return 0;
}

static int
parse_bool (parser *P, bool *out)
{
  size_t n = 0;

  while (P->p + n < P->end && is_word (P->s[P->p + n]))
    n++;
  if (n == 4 && memcmp (P->s + P->p, "True", 4) == 0)
    *out = true;
  else if (n == 5 && memcmp (P->s + P->p, "False", 5) == 0)
    *out = false;
  else
    return expected (P, "True or False");
  P->p += n;
  return 0;
}

/* One extent: a decimal integer that fits in int64 (Python 2 writers may
 * append L in format 1.0 and 2.0). */
static int
parse_extent (parser *P, int axis, int64_t *out)
{
  size_t at = P->p, q = P->p, digits;
  uint64_t v = 0;
  int neg = 0, big = 0;
  size_t ndig = 0;

  if (q < P->end && (P->s[q] == '-' || P->s[q] == '+'))
    neg = P->s[q++] == '-';
  digits = q;
  while (q < P->end && P->s[q] >= '0' && P->s[q] <= '9') {
    unsigned dgt = P->s[q] - '0';

    if (v > (UINT64_C (1) << 63) / 10 || v * 10 + dgt > (uint64_t) INT64_MAX)
      big = 1;
    else
      v = v * 10 + dgt;
    ndig++;
    q++;
  }
  if (ndig > 0 && q < P->end && P->s[q] == 'L' && P->major < 3)
    q++;
  if (ndig == 0 || (q < P->end && is_word (P->s[q]))
      || (ndig > 1 && P->s[digits] == '0' && (v != 0 || big)))
    return expected (P, "an integer extent");
  if (big) {
    char found[128];

    describe (P, at, found, sizeof found);
    return fail_at (
        P, at, "extent %s of axis %d does not fit in 64 bits", found, axis);
  }
  if (neg && v != 0)
    return fail_at (
        P, at, "extent -%" PRIu64 " of axis %d is negative", v, axis);
  *out = (int64_t) v;
  P->p = q;
  return 0;
}

static int
format_dims (char *buf, size_t cap, const int64_t *dims, int rank)
{
  size_t o = 0;
  int i;

  o += (size_t) snprintf (buf, cap, "(");
  for (i = 0; i < rank && o < cap; i++)
    o += (size_t) snprintf (
        buf + o, cap - o, "%s%" PRId64, i ? ", " : "", dims[i]);
  if (o < cap)
    o += (size_t) snprintf (buf + o, cap - o, rank == 1 ? ",)" : ")");
  return (int) o;
}

static int
parse_shape (parser *P, tn_npy *h)
{
  size_t at = P->p;
  int n = 0, closed_by_comma = 0;
  int64_t d = 0;

  if (P->p >= P->end || P->s[P->p] != '(')
    return expected (P, "a shape tuple");
  P->p++;
  skip_ws (P);
  while (P->p < P->end && P->s[P->p] != ')') {
    if (parse_extent (P, n, &d) < 0)
      return -1;
    if (n < TN_MAX_RANK)
      h->dims[n] = d;
    n++;
    skip_ws (P);
    closed_by_comma = 0;
    if (P->p < P->end && P->s[P->p] == ',') {
      P->p++;
      skip_ws (P);
      closed_by_comma = 1;
    } else if (P->p >= P->end || P->s[P->p] != ')') {
      return expected (P, "',' or ')' in the shape tuple");
    }
  }
  if (P->p >= P->end)
    return expected (P, "')' to close the shape tuple");
  /* (5) is the integer 5 in Python, not a tuple */
  if (n == 1 && !closed_by_comma)
    return expected (P, "',' after the only extent of a one-axis shape");
  P->p++;
  if (n > TN_MAX_RANK)
    return fail_at (P, at,
        "the shape has %d dimensions, more than the %d "
        "supported",
        n, TN_MAX_RANK);
  h->rank = n;
  return 0;
}

/* The byte count with extents of 0 counted as 1, as NumPy does: even an
 * empty array must have representable strides.  Bounded by 2^63 so that
 * callers may add it to a file offset. */
#if SIZE_MAX < INT64_MAX
#define MAX_BYTES ((uint64_t) SIZE_MAX)
#else
#define MAX_BYTES ((uint64_t) INT64_MAX)
#endif

uint64_t
tn_npy_bytes (tn_dtype t, const int64_t *dims, int rank)
{
  uint64_t n = descr_of[t].size;

  for (int i = 0; i < rank; i++)
    if (__builtin_mul_overflow (n, dims[i] > 0 ? (uint64_t) dims[i] : 1, &n)
        || n > MAX_BYTES)
      return UINT64_MAX;
  return n;
}

static bool
shape_fits (tn_dtype t, const int64_t *dims, int rank)
{
  return tn_npy_bytes (t, dims, rank) != UINT64_MAX;
}

static int
check_size (parser *P, const tn_npy *h, size_t at)
{
  char sh[256];

  if (shape_fits (h->dtype, h->dims, h->rank))
    return 0;
  format_dims (sh, sizeof sh, h->dims, h->rank);
  return fail_at (P, at,
      "shape %s of %u-byte items needs more than 2^63 "
      "bytes",
      sh, (unsigned) descr_of[h->dtype].size);
}

static int
parse_dict (parser *P, tn_npy *h, size_t *shape_at)
{
  static const char *const names[] = { "descr", "fortran_order", "shape" };
  int seen = 0, k;
  char key[MAX_STRING + 1], shown[24 * 4 + 4];
  size_t at;

  skip_ws (P);
  if (P->p >= P->end || P->s[P->p] != '{')
    return expected (P, "'{' to open the header dict");
  P->p++;
  skip_ws (P);
  while (P->p < P->end && P->s[P->p] != '}') {
    at = P->p;
    if (parse_string (P, key,
            "a key string ('descr', 'fortran_order' or "
            "'shape')")
        < 0)
      return -1;
    for (k = 0; k < 3; k++)
      if (strcmp (key, names[k]) == 0)
        break;
    if (k == 3) {
      escape ((const unsigned char *) key, strlen (key), shown, sizeof shown);
      return fail_at (P, at,
          "unexpected key '%s'; expected 'descr', 'fortran_order' or "
          "'shape'",
          shown);
    }
    if (seen & (1 << k))
      return fail_at (P, at, "the key '%s' appears twice", key);
    seen |= 1 << k;
    skip_ws (P);
    if (P->p >= P->end || P->s[P->p] != ':')
      return expected (P, "':' after the key");
    P->p++;
    skip_ws (P);
    if (k == 0) {
      if (parse_descr (P, h) < 0)
        return -1;
    } else if (k == 1) {
      if (parse_bool (P, &h->fortran) < 0)
        return -1;
    } else {
      *shape_at = P->p;
      if (parse_shape (P, h) < 0)
        return -1;
    }
    skip_ws (P);
    if (P->p < P->end && P->s[P->p] == ',') {
      P->p++;
      skip_ws (P);
    } else if (P->p >= P->end || P->s[P->p] != '}') {
      return expected (P, "',' or '}' after a value");
    }
  }
  if (P->p >= P->end)
    return expected (P, "'}' to close the header dict");
  at = P->p;
  P->p++;
  for (k = 0; k < 3; k++)
    if (!(seen & (1 << k)))
      return fail_at (
          P, at, "the header dict ends without the '%s' key", names[k]);
  skip_ws (P);
  if (P->p < P->end)
    return expected (P, "only padding after the header dict");
  return 0;
}

int
tn_npy_parse (tn_npy *h, const void *buf, size_t len, size_t *need, tn_err *e)
{
  const unsigned char *b = buf;
  size_t i, prefix, hlen, total, count, data_size, shape_at = 0;
  parser P = { b, 0, len, 0, e };
  tn_npy r;

  memset (&r, 0, sizeof r);
  for (i = 0; i < MAGIC_LEN && i < len; i++)
    if (b[i] != (unsigned char) MAGIC[i]) {
      char found[128];

      P.end = i + 1;
      describe (&P, i, found, sizeof found);
      return fail_at (&P, i,
          "expected the magic string \\x93NUMPY, found "
          "%s",
          found);
    }
  if (len > 6 && (b[6] < 1 || b[6] > 3))
    return fail_at (&P, 6,
        "expected format version 1.0, 2.0 or 3.0, "
        "found major version %u",
        b[6]);
  if (len > 7 && b[7] != 0)
    return fail_at (
        &P, 7, "expected format version %u.0, found %u.%u", b[6], b[6], b[7]);
  prefix = len > 6 && b[6] > 1 ? 12 : 10;
  if (len < prefix) {
    if (need)
      *need = prefix;
    tn_err_set (e,
        "npy header is incomplete: %zu bytes available, %zu "
        "needed for the magic, version and header length",
        len, prefix);
    return 1;
  }
  r.major = b[6];
  r.minor = 0;
  hlen = prefix == 10 ? (size_t) b[8] | (size_t) b[9] << 8
                      : (size_t) b[8] | (size_t) b[9] << 8
                            | (size_t) b[10] << 16 | (size_t) b[11] << 24;
  if (hlen > MAX_HEADER)
    return fail_at (&P, 8,
        "the header length %zu is larger than the %u "
        "bytes this reader accepts",
        hlen, MAX_HEADER);
  total = prefix + hlen;
  if (len < total) {
    if (need)
      *need = total;
    tn_err_set (e,
        "npy header is incomplete: %zu bytes available, the "
        "header length at byte 8 says %zu are needed",
        len, total);
    return 1;
  }
  P.p = prefix;
  P.end = total;
  P.major = r.major;
  if (parse_dict (&P, &r, &shape_at) < 0 || check_size (&P, &r, shape_at) < 0)
    return -1;
  count = descr_of[r.dtype].size;
  for (i = 0; i < (size_t) r.rank; i++)
    count *= (size_t) r.dims[i]; /* bounded by the check in parse_shape */
  data_size = count;
  if (data_size > MAX_BYTES - total)
    return fail_at (&P, prefix,
        "the data of %zu bytes after a %zu-byte "
        "header ends beyond 2^63 bytes",
        data_size, total);
  r.data_offset = total;
  r.data_size = data_size;
  *h = r;
  return 0;
}

void
tn_npy_view (const tn_npy *h, tn_view *v)
{
  int64_t s = 1;
  int i, ax;

  memset (v, 0, sizeof *v);
  v->dtype = h->dtype;
  v->rank = h->rank;
  v->offset = 0;
  /* Extents of 0 count as 1, as in NumPy; an overflow (only possible for
   * an unparsed header) saturates so that tn_view_check rejects it. */
  for (i = 0; i < h->rank; i++) {
    ax = h->fortran ? i : h->rank - 1 - i;
    v->dims[ax] = h->dims[ax];
    v->strides[ax] = s;
    if (__builtin_mul_overflow (s, h->dims[ax] > 0 ? h->dims[ax] : 1, &s))
      s = INT64_MAX;
  }
}

void
tn_npy_swap (void *data, size_t itemsize, size_t n)
{
  unsigned char *p = data, t;
  size_t i, j;

  if (itemsize < 2)
    return;
  for (i = 0; i < n; i++, p += itemsize)
    for (j = 0; j < itemsize / 2; j++) {
      t = p[j];
      p[j] = p[itemsize - 1 - j];
      p[itemsize - 1 - j] = t;
    }
}

size_t
tn_npy_header (char *buf, size_t cap, tn_dtype t, const int64_t *dims, int rank)
{
  char dict[512];
  size_t n, hlen, pad, prefix, total;
  uint64_t data;
  char sh[256];
  int i;

  if ((unsigned) t >= TN_NDTYPES || !descr_of[t].kind || rank < 0
      || rank > TN_MAX_RANK || (rank > 0 && !dims))
    return 0;
  for (i = 0; i < rank; i++)
    if (dims[i] < 0)
      return 0;
  if (!shape_fits (t, dims, rank))
    return 0;
  format_dims (sh, sizeof sh, dims, rank);
  n = (size_t) snprintf (dict, sizeof dict,
      "{'descr': '%c%c%u', 'fortran_order': False, 'shape': %s, }",
      descr_of[t].size == 1 ? '|' : '<', descr_of[t].kind,
      (unsigned) descr_of[t].size, sh);
  if (rank > 0) {
    int digits = snprintf (NULL, 0, "%" PRId64, dims[0]);

    memset (dict + n, ' ', (size_t) (GROWTH_DIGITS - digits));
    n += (size_t) (GROWTH_DIGITS - digits);
  }
  hlen = n + 1; /* the final newline */
  prefix = MAGIC_LEN + 2 + 2;
  pad = ALIGN - (prefix + hlen) % ALIGN;
  if (hlen + pad > 65535) {
    prefix = MAGIC_LEN + 2 + 4;
    pad = ALIGN - (prefix + hlen) % ALIGN;
  }
  total = prefix + hlen + pad;
  /* what tn_npy_parse accepts: shape_fits bounds the product */
  data = descr_of[t].size;
  for (i = 0; i < rank; i++)
    data *= (uint64_t) dims[i];
  if (data > MAX_BYTES - total)
    return 0;
  if (!buf || cap < total)
    return 0;
  memcpy (buf, MAGIC, MAGIC_LEN);
  buf[6] = prefix == 10 ? 1 : 2;
  buf[7] = 0;
  for (i = 0; i < (int) prefix - 8; i++)
    buf[8 + i] = (char) (((hlen + pad) >> (8 * i)) & 0xff);
  memcpy (buf + prefix, dict, n);
  memset (buf + prefix + n, ' ', pad);
  buf[total - 1] = '\n';
  return total;
}

/* ------------------------------------------------------ whole files --- */

/* The items of a file laid out as h says (raw), into a's dense native
 * storage; raw may be a->data itself for a C-order file. */
static void
place (tn_array *a, const tn_npy *h, const void *raw)
{
  size_t size = descr_of[h->dtype].size;
  tn_view v;

  if (h->fortran) {
    tn_npy_view (h, &v);
    tn_view_materialize (a->data, raw, &v);
  } else if (raw != a->data) {
    memcpy (a->data, raw, h->data_size);
  }
  if (h->big_endian)
    tn_npy_swap (a->data, size, h->data_size / size);
}

static void
short_data (tn_err *e, size_t have, size_t want)
{
  tn_err_set (e, "the file holds %zu bytes of data but its header promises %zu",
      have, want);
}

/* The header's verdict r (tn_npy_parse) as a sentence about the file. */
static int
bad_header (tn_err *e, int r, const tn_err *pe)
{
  if (r > 0)
    tn_err_set (e, "the file is cut short: %s", pe->msg);
  else
    tn_err_set (e, "not a valid .npy file: %s", pe->msg);
  return -1;
}

int
tn_array_decode_npy (const void *buf, size_t len, tn_array *a, tn_err *e)
{
  tn_npy h;
  tn_err pe;
  int r;

  memset (a, 0, sizeof *a);
  r = tn_npy_parse (&h, buf, len, NULL, &pe);
  if (r != 0)
    return bad_header (e, r, &pe);
  if (len - h.data_offset < h.data_size) {
    short_data (e, len - h.data_offset, h.data_size);
    return -1;
  }
  if (tn_array_init (a, h.dtype, h.dims, h.rank, e) < 0)
    return -1;
  place (a, &h, (const unsigned char *) buf + h.data_offset);
  return 0;
}

/* The one place core opens a file: NULL with a message, errno kept. */
static FILE *
open_file (const char *path, const char *mode, tn_err *e)
{
  FILE *f = fopen (path, mode);
  int saved = errno;

  if (f == NULL) {
    tn_err_set (e, "cannot open '%.60s'%s: %s", path,
        mode[0] == 'w' ? " for writing" : "", strerror (saved));
    errno = saved;
  }
  return f;
}

/* Reads the header in pieces until the parser has all of it: most files'
 * header is 128 bytes, and a bad one is refused before the data is read.
 * On success *hdr holds the first *len bytes of the file. */
static int
read_header (FILE *f, tn_npy *h, unsigned char **hdr, size_t *len, tn_err *e)
{
  size_t need = 128, got;
  unsigned char *b;
  tn_err pe;
  int r;

  for (;;) {
    b = realloc (*hdr, need);
    if (b == NULL) {
      tn_err_set (e, "cannot allocate %zu bytes for the header", need);
      return -1;
    }
    *hdr = b;
    got = fread (b + *len, 1, need - *len, f);
    if (got == 0 && ferror (f)) {
      tn_err_set (e, "cannot read the header: %s", strerror (errno));
      return -1;
    }
    *len += got;
    r = tn_npy_parse (h, b, *len, &need, &pe);
    if (r == 0)
      return 0;
    if (r < 0 || got == 0)
      return bad_header (e, r, &pe);
  }
}

/* tn_array_load_npy without the path in its messages. */
static int
load (FILE *f, tn_array *a, tn_err *e)
{
  unsigned char *hdr = NULL, *raw;
  size_t len = 0, have;
  long end;
  tn_npy h;

  if (read_header (f, &h, &hdr, &len, e) < 0)
    goto fail;
  /* A file that cannot hold what its header promises is refused before
   * the array is made (and zeroed): a few bytes must not cost gigabytes. */
  if (fseek (f, 0, SEEK_END) == 0) { /* not for a pipe */
    end = ftell (f);
    if (fseek (f, (long) len, SEEK_SET) != 0) {
      tn_err_set (e, "cannot read the data: %s", strerror (errno));
      goto fail;
    }
    if (end >= 0 && (uint64_t) end - h.data_offset < h.data_size) {
      short_data (e, (size_t) end - h.data_offset, h.data_size);
      goto fail;
    }
  }
  if (tn_array_init (a, h.dtype, h.dims, h.rank, e) < 0)
    goto fail;
  /* A C-order file is read straight into the array; a Fortran-order one
   * needs its own layout first. */
  raw = h.fortran ? malloc (h.data_size ? h.data_size : 1) : a->data;
  if (raw == NULL) {
    tn_err_set (
        e, "cannot allocate %zu bytes for the Fortran-order data", h.data_size);
    goto fail;
  }
  have = len - h.data_offset < h.data_size ? len - h.data_offset : h.data_size;
  memcpy (raw, hdr + h.data_offset, have);
  have += fread ((unsigned char *) raw + have, 1, h.data_size - have, f);
  if (have < h.data_size) {
    if (ferror (f))
      tn_err_set (e, "cannot read the data: %s", strerror (errno));
    else
      short_data (e, have, h.data_size);
    if (raw != a->data)
      free (raw);
    goto fail;
  }
  place (a, &h, raw);
  if (raw != a->data)
    free (raw);
  free (hdr);
  return 0;

fail:
  free (hdr);
  tn_array_clear (a);
  return -1;
}

int
tn_array_load_npy (const char *path, tn_array *a, tn_err *e)
{
  tn_err le;
  FILE *f;

  memset (a, 0, sizeof *a);
  f = open_file (path, "rb", e);
  if (f == NULL)
    return -2;
  if (load (f, a, &le) < 0) {
    tn_err_set (e, "'%.60s': %s", path, le.msg);
    fclose (f);
    return -1;
  }
  fclose (f);
  return 0;
}

/* The items of a as the file stores them: bfloat16 widened, in pieces. */
static int
write_items (FILE *f, const tn_array *a, size_t n)
{
  enum { CHUNK = 4096 };
  float wide[CHUNK];
  const uint16_t *b = a->data;
  size_t i, k;

  if (a->view.dtype != TN_BFLOAT16)
    return fwrite (a->data, 1, n, f) == n ? 0 : -1;
  for (i = 0; i < n / 2; i += k) {
    k = n / 2 - i < CHUNK ? n / 2 - i : CHUNK;
    tn_cast (wide, TN_FLOAT32, b + i, TN_BFLOAT16, k);
    if (fwrite (wide, sizeof wide[0], k, f) != k)
      return -1;
  }
  return 0;
}

int
tn_array_save_npy (const char *path, const tn_array *a, tn_err *e)
{
  tn_dtype t = a->view.dtype == TN_BFLOAT16 ? TN_FLOAT32 : a->view.dtype;
  /* rank 8 of 19-digit extents and the padding fit in well under 1 KiB */
  char hdr[1024];
  size_t hl = 0, n = tn_array_nbytes (a);
  FILE *f;
  int bad, saved;

  /* Only an empty (cleared) array has no header: a set one's shape was
   * checked when it was made. */
  if (a->data)
    hl = tn_npy_header (hdr, sizeof hdr, t, a->view.dims, a->view.rank);
  if (hl == 0) {
    tn_err_set (e, "cannot write '%.60s': the array is empty", path);
    return -1;
  }
  f = open_file (path, "wb", e);
  if (f == NULL)
    return -1;
  bad = fwrite (hdr, 1, hl, f) != hl || write_items (f, a, n) < 0;
  saved = errno;
  if (fclose (f) != 0 && !bad) {
    bad = 1;
    saved = errno;
  }
  if (bad) {
    tn_err_set (e, "cannot write the %zu bytes of '%.60s': %s", hl + n, path,
        strerror (saved));
    remove (path);
    return -1;
  }
  return 0;
}
