/* libFuzzer entry for the npy header parser.  Beyond "no crash", it checks
 * the promises the parser makes: 1 only when more bytes are truly needed,
 * a message on every failure, a view that fits the bytes that follow, and
 * a header that tn_npy_header writes back and parses to the same array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/npy.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c))                                                                  \
      abort ();                                                                \
  } while (0)

static void
check_message (const tn_err *e)
{
  CHECK (memchr (e->msg, '\0', sizeof e->msg) != NULL);
  CHECK (e->msg[0] != '\0');
}

static void
check_roundtrip (const tn_npy *h)
{
  char buf[1024];
  size_t n, need = 0;
  tn_npy g;
  tn_err e;
  int i;

  n = tn_npy_header (buf, sizeof buf, h->dtype, h->dims, h->rank);
  CHECK (n > 0 && n % 64 == 0);
  CHECK (tn_npy_parse (&g, buf, n, &need, &e) == 0);
  CHECK (g.dtype == h->dtype && g.rank == h->rank && !g.fortran && !g.big_endian
         && g.data_offset == n && g.data_size == h->data_size);
  for (i = 0; i < h->rank; i++)
    CHECK (g.dims[i] == h->dims[i]);
}

/* Reads the last reachable item, so ASan sees a view that overreaches. */
static void
touch_view (const tn_view *v, const uint8_t *base, size_t itemsize)
{
  int64_t last = v->offset;
  volatile uint8_t sink;
  int i;

  for (i = 0; i < v->rank; i++) {
    if (v->dims[i] == 0)
      return;
    last += (v->dims[i] - 1) * v->strides[i];
  }
  sink = base[last * (int64_t) itemsize + (int64_t) itemsize - 1];
  (void) sink;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  tn_npy h;
  tn_view v;
  tn_err e;
  size_t need = 0, itemsize, avail, nswap;
  uint8_t *copy;
  int r;

  memset (&e, 0, sizeof e);
  r = tn_npy_parse (&h, data, size, &need, &e);
  if (r == 1) {
    CHECK (need > size);
    check_message (&e);
    return 0;
  }
  if (r < 0) {
    check_message (&e);
    return 0;
  }
  CHECK (r == 0);
  CHECK (h.data_offset <= size && h.rank >= 0 && h.rank <= TN_MAX_RANK);
  CHECK (h.dtype != TN_BFLOAT16 && tn_dtype_valid (h.dtype));
  check_roundtrip (&h);

  itemsize = tn_dtype_size (h.dtype);
  avail = (size - h.data_offset) / itemsize;
  tn_npy_view (&h, &v);
  if (tn_view_check (&v, (int64_t) avail, &e) == 0) {
    /* the data that is there must be all the header promised */
    CHECK (h.data_size <= avail * itemsize);
    copy = malloc (avail * itemsize + 1);
    CHECK (copy != NULL);
    memcpy (copy, data + h.data_offset, avail * itemsize);
    nswap = h.data_size / itemsize;
    if (h.big_endian)
      tn_npy_swap (copy, itemsize, nswap);
    touch_view (&v, copy, itemsize);
    free (copy);
  } else {
    check_message (&e);
    CHECK (h.data_size > avail * itemsize);
  }
  return 0;
}
