/* The view kernels (core/view-kern.h): deinterleave and interleave per
 * item size, and the mirror of blocks.  They move bytes, so every entry
 * must give the bytes of the portable one: every item size, c from 1 to
 * past TN_VK_MAX_C, every m <= c, every length of checkasm_lengths,
 * sources that start at odd byte offsets and end exactly where the kernel
 * may read (for the sanitizer build), output rows a pitch apart both
 * ways (tn_view_materialize_flip passes negative ones), blocks of every
 * size from 1 to 32 bytes; transposes of 4-byte items with edges of
 * every size below and above the 16-item blocks.  Outputs lie in guarded
 * blocks, compared whole (the gaps between rows too). */
#include "checkasm.h"

#include <stdlib.h>
#include <string.h>

#include "core/view-kern.h"

static const size_t sizes[4] = { 1, 2, 4, 8 };
static const size_t src_offs[] = { 0, 1, 3 };

#define NOFFS (sizeof src_offs / sizeof src_offs[0])

/* A source of bytes random bytes, starting off bytes into its block,
 * which ends at its last byte. */
static char *
source (size_t off, size_t bytes, char **block)
{
  *block = malloc (off + bytes + !(off + bytes));
  checkasm_fill (*block + off, TN_UINT8, bytes);
  return *block + off;
}

/* Deinterleave of n rows of c items, items 0..m-1 to m rows pitch bytes
 * apart (pitch < 0: the rows go down in memory). */
static int
run_deint (tn_vk_fn ref, tn_vk_fn fn, size_t isz, int c, int m, int64_t n,
    int64_t pitch, size_t off)
{
  size_t row = (size_t) n * isz;
  size_t sbytes = n ? ((size_t) (n - 1) * c + m) * isz : 0;
  size_t span = (size_t) (m - 1) * (size_t) (pitch < 0 ? -pitch : pitch) + row;
  char *sblock, *s = source (off, sbytes, &sblock);
  char *want = checkasm_alloc (span), *got = checkasm_alloc (span);
  int64_t first = pitch < 0 ? (int64_t) span - (int64_t) row : 0;
  tn_vk k;
  int r;

  tn_vk_deint_prepare (&k, isz, c, m);
  ref (&k, want + first, pitch, s, n);
  fn (&k, got + first, pitch, s, n);
  r = checkasm_check_bits (want, got, span, 1,
      "%zu-byte items, c %d, m %d, n %lld, pitch %lld, source at byte %zu",
      isz, c, m, (long long) n, (long long) pitch, off);
  free (sblock);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

/* Interleave of c planes of n items, pitch bytes apart, into n rows of c
 * items. */
static int
run_inter (tn_vk_fn ref, tn_vk_fn fn, size_t isz, int c, int64_t n,
    int64_t pitch, size_t off)
{
  size_t row = (size_t) n * isz, out = row * c;
  size_t sbytes = n ? (size_t) (c - 1) * (size_t) pitch + row : 0;
  char *sblock, *s = source (off, sbytes, &sblock);
  char *want = checkasm_alloc (out), *got = checkasm_alloc (out);
  tn_vk k;
  int r;

  tn_vk_inter_prepare (&k, isz, c);
  ref (&k, want, pitch, s, n);
  fn (&k, got, pitch, s, n);
  r = checkasm_check_bits (want, got, out, 1,
      "%zu-byte items, c %d, n %lld, plane pitch %lld, source at byte %zu",
      isz, c, (long long) n, (long long) pitch, off);
  free (sblock);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

/* n blocks of g bytes mirrored. */
static int
run_rev (tn_vk_rev_fn ref, tn_vk_rev_fn fn, int64_t g, int64_t n, size_t off)
{
  size_t bytes = (size_t) (n * g);
  char *sblock, *s = source (off, bytes, &sblock);
  char *want = checkasm_alloc (bytes), *got = checkasm_alloc (bytes);
  int64_t last = n ? (n - 1) * g : 0;
  tn_vk_rev k;
  int r;

  tn_vk_rev_prepare (&k, g);
  ref (&k, want + last, s, n);
  fn (&k, got + last, s, n);
  r = checkasm_check_bits (want, got, bytes, 1,
      "blocks of %lld bytes, n %lld, source at byte %zu", (long long) g,
      (long long) n, off);
  free (sblock);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

static void
check_deint (const tn_view_dsp *d, int si)
{
  size_t isz = sizes[si];
  tn_vk_fn ref;

  if (!(ref = checkasm_check_func (d->deint[si], "deint_%zu", isz)))
    return;
  for (int c = 1; c <= TN_VK_MAX_C + 1; c++)
    for (int m = 1; m <= c; m++)
      for (size_t l = 0; l < checkasm_nlengths; l++) {
        int64_t n = (int64_t) checkasm_lengths[l];
        int64_t pitch = n * (int64_t) isz + 3;

        if (n > 255 && m != 1 && m != c)
          continue;
        for (size_t o = 0; o < NOFFS; o++)
          if (run_deint (ref, d->deint[si], isz, c, m, n, pitch, src_offs[o])
              || run_deint (ref, d->deint[si], isz, c, m, n,
                  -pitch - (int64_t) isz, src_offs[o]))
            return;
      }
  {
    enum { N = 1024, C = 3 };
    char *s = malloc (N * C * isz), *o = malloc (N * C * isz);
    tn_vk k;

    memset (s, 1, N * C * isz);
    tn_vk_deint_prepare (&k, isz, C, C);
    checkasm_bench (d->deint[si] (&k, o, N * (int64_t) isz, s, N));
    free (s);
    free (o);
  }
}

static void
check_inter (const tn_view_dsp *d, int si)
{
  size_t isz = sizes[si];
  tn_vk_fn ref;

  if (!(ref = checkasm_check_func (d->inter[si], "inter_%zu", isz)))
    return;
  for (int c = 1; c <= TN_VK_MAX_C + 1; c++)
    for (size_t l = 0; l < checkasm_nlengths; l++) {
      int64_t n = (int64_t) checkasm_lengths[l];

      for (size_t o = 0; o < NOFFS; o++)
        if (run_inter (ref, d->inter[si], isz, c, n, n * (int64_t) isz,
                src_offs[o])
            || run_inter (ref, d->inter[si], isz, c, n,
                (n + 3) * (int64_t) isz + 1, src_offs[o]))
          return;
    }
  {
    enum { N = 1024, C = 3 };
    char *s = malloc (N * C * isz), *o = malloc (N * C * isz);
    tn_vk k;

    memset (s, 1, N * C * isz);
    tn_vk_inter_prepare (&k, isz, C);
    checkasm_bench (d->inter[si] (&k, o, N * (int64_t) isz, s, N));
    free (s);
    free (o);
  }
}

static void
check_rev (const tn_view_dsp *d)
{
  tn_vk_rev_fn ref;

  if (!(ref = checkasm_check_func (d->rev, "rev")))
    return;
  for (int64_t g = 1; g <= 32; g++)
    for (size_t l = 0; l < checkasm_nlengths; l++)
      for (size_t o = 0; o < NOFFS; o++)
        if (run_rev (ref, d->rev, g, (int64_t) checkasm_lengths[l],
                src_offs[o]))
          return;
  {
    enum { N = 1024, G = 3 };
    char *s = malloc (N * G), *o = malloc (N * G);
    tn_vk_rev k;

    memset (s, 1, N * G);
    tn_vk_rev_prepare (&k, G);
    checkasm_bench (d->rev (&k, o + (N - 1) * G, s, N));
    free (s);
    free (o);
  }
}

/* Transpose of 4-byte items: a source of nl rows of sp bytes (items
 * along k contiguous, starting off bytes into its block) to nk rows of a
 * 64-byte aligned destination at pitch dk (a multiple of 32); edges of
 * every size. */
static int
run_tr4 (tn_vk_tr_fn ref, tn_vk_tr_fn fn, int64_t nk, int64_t nl, int64_t sp,
    int64_t dk, size_t off)
{
  size_t sbytes = nl ? (size_t) ((nl - 1) * sp + 4 * nk) : 0;
  size_t dbytes = (size_t) (nk * dk);
  char *sblock, *s = source (off, sbytes, &sblock);
  /* 64-byte aligned and poisoned, the gaps between rows too */
  char *want = checkasm_alloc (dbytes), *got = checkasm_alloc (dbytes);
  int r;

  ref (want, dk, s, sp, nk, nl);
  fn (got, dk, s, sp, nk, nl);
  /* orders the streaming stores before the compare */
  __atomic_thread_fence (__ATOMIC_SEQ_CST);
  r = checkasm_check_bits (want, got, dbytes, 1,
      "%lld x %lld items, source pitch %lld, destination pitch %lld, "
      "source at byte %zu",
      (long long) nk, (long long) nl, (long long) sp, (long long) dk, off);
  free (sblock);
  checkasm_free (want);
  checkasm_free (got);
  return r;
}

static void
check_tr4 (const tn_view_dsp *d)
{
  /* the last three: nl over one band of rows (x86/view-avx512.c) */
  static const int64_t ext[] = { 1, 7, 16, 17, 33, 130, 161, 1031, 2056, 2079 };
  enum { NEXT = sizeof ext / sizeof ext[0] };
  tn_vk_tr_fn ref;

  if (!(ref = checkasm_check_func (d->tr4, "tr4")))
    return;
  for (size_t a = 0; a < NEXT - 3; a++)
    for (size_t b = 0; b < NEXT; b++)
      for (size_t o = 0; o < NOFFS; o++) {
        int64_t nk = ext[a], nl = ext[b];
        /* the source rows a little longer than nk items; the
         * destination rows padded to whole or half lines (every other
         * row starting half a line in) */
        int64_t sp = 4 * nk + 4 * (int64_t) (checkasm_rand () % 5);
        int64_t dk = (4 * nl + 31) / 32 * 32 + 32 * (checkasm_rand () % 3);

        if (run_tr4 (ref, d->tr4, nk, nl, sp, dk, src_offs[o]))
          return;
      }
  /* a source pitch of 8 KiB: bands of fewer rows */
  for (int64_t dk = 1216; dk <= 1248; dk += 32)
    if (run_tr4 (ref, d->tr4, 33, 300, 8192, dk, 0))
      return;
  {
    enum { N = 256 };
    char *s = malloc (4 * N * N), *o = aligned_alloc (64, 4 * N * N);

    memset (s, 1, 4 * N * N);
    checkasm_bench (d->tr4 (o, 4 * N, s, 4 * N, N, N));
    free (s);
    free (o);
  }
}

void
checkasm_check_view (void)
{
  const tn_view_dsp *d = tn_view_dsp_get ();

  for (int si = 0; si < 4; si++)
    check_deint (d, si);
  for (int si = 0; si < 4; si++)
    check_inter (d, si);
  check_rev (d);
  check_tr4 (d);
}
