/* checkasm's framework and main: see checkasm.h. */
#include "checkasm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the families that are built ---- */

static const struct {
  const char *name;
  void (*check) (void);
} families[] = {
#ifdef CHECKASM_HAVE_HALF
  { "half", checkasm_check_half },
#endif
#ifdef CHECKASM_HAVE_VIEW
  { "view", checkasm_check_view },
#endif
#ifdef CHECKASM_HAVE_GEMM
  { "gemm", checkasm_check_gemm },
#endif
#ifdef CHECKASM_HAVE_RANDOM
  { "random", checkasm_check_random },
#endif
#ifdef CHECKASM_HAVE_REDUCE
  { "reduce", checkasm_check_reduce },
#endif
#ifdef CHECKASM_HAVE_EWISE
  { "ewise", checkasm_check_ewise },
#endif
#ifdef CHECKASM_HAVE_NORMALIZE
  { "normalize", checkasm_check_normalize },
#endif
#ifdef CHECKASM_HAVE_COMPARE
  { "compare", checkasm_check_compare },
#endif
  { NULL, NULL },
};

/* ---- the registry: every kernel, and its versions in order of masks ---- */

#define MAX_VERSIONS 8
#define BENCH_RUNS 21

typedef struct {
  checkasm_fn fn;
  unsigned cpu; /* the mask under which it was first seen */
  bool failed;
  double ns; /* median per call, 0: not benched */
} version;

typedef struct {
  char name[112]; /* "family/kernel" */
  version v[MAX_VERSIONS];
  int nv;
} kernel;

static struct {
  kernel *k;
  size_t nk, cap;
  kernel *cur;
  version *ver;
  const char *family;
  unsigned cpu;
  uint64_t seed, rng;
  bool bench, verbose;
  unsigned checked, failed, family_failed;
  uint64_t samples[BENCH_RUNS];
  int nsamples;
} st;

static kernel *
find_kernel (const char *name)
{
  for (size_t i = 0; i < st.nk; i++)
    if (strcmp (st.k[i].name, name) == 0)
      return &st.k[i];
  if (st.nk == st.cap) {
    size_t cap = st.cap ? 2 * st.cap : 256;
    kernel *k = realloc (st.k, cap * sizeof *k);

    if (!k) {
      fprintf (stderr, "checkasm: out of memory\n");
      exit (2);
    }
    st.k = k;
    st.cap = cap;
  }
  memset (&st.k[st.nk], 0, sizeof st.k[st.nk]);
  snprintf (st.k[st.nk].name, sizeof st.k[st.nk].name, "%s", name);
  return &st.k[st.nk++];
}

void *
checkasm_check_func_ (checkasm_fn fn, const char *fmt, ...)
{
  char kname[80], name[112];
  va_list ap;
  kernel *k;

  st.cur = NULL;
  st.ver = NULL;
  if (!fn)
    return NULL;
  va_start (ap, fmt);
  vsnprintf (kname, sizeof kname, fmt, ap);
  va_end (ap);
  snprintf (name, sizeof name, "%s/%s", st.family, kname);
  k = find_kernel (name);
  for (int i = 0; i < k->nv; i++)
    if (k->v[i].fn == fn)
      return NULL;
  if (k->nv == MAX_VERSIONS) {
    fprintf (stderr, "checkasm: %s has more than %d versions\n", name,
        MAX_VERSIONS);
    exit (2);
  }
  k->v[k->nv] = (version) { fn, st.cpu, false, 0 };
  st.cur = k;
  st.ver = &k->v[k->nv++];
  st.nsamples = 0;
  st.checked++;
  return (void *) k->v[0].fn;
}

unsigned
checkasm_cpu_flags (void)
{
  return tn_cpu_flags ();
}

/* ---- failures ---- */

static const char *
cpu_name (unsigned flags, char *buf)
{
  return tn_cpu_names (flags, buf, 48);
}

static int
vfail (const char *fmt, va_list ap)
{
  char cpu[48];

  if (st.ver && st.ver->failed) /* the first mismatch of a kernel only */
    return 1;
  if (st.ver)
    st.ver->failed = true;
  st.failed++;
  st.family_failed++;
  fprintf (stderr, "FAIL %s [%s]: ", st.cur ? st.cur->name : st.family,
      cpu_name (st.cpu, cpu));
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n");
  return 1;
}

int
checkasm_fail (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vfail (fmt, ap);
  va_end (ap);
  return 1;
}

bool
checkasm_failed (void)
{
  return st.ver && st.ver->failed;
}

/* ---- blocks with guard zones ---- */

#define GUARD 64
#define POISON 0xa5

typedef struct {
  unsigned char *mem, *user;
  size_t bytes;
} block;

static block *blocks;
static size_t nblocks;

void *
checkasm_alloc (size_t bytes)
{
  unsigned char *mem = malloc (bytes + 2 * GUARD + 64);
  block *b = realloc (blocks, (nblocks + 1) * sizeof *b);

  if (!mem || !b) {
    fprintf (stderr, "checkasm: out of memory for %zu bytes\n", bytes);
    exit (2);
  }
  blocks = b;
  b = &blocks[nblocks++];
  b->mem = mem;
  b->user = mem + GUARD + (64 - (uintptr_t) (mem + GUARD) % 64) % 64;
  b->bytes = bytes;
  checkasm_poison (b->user);
  return b->user;
}

static block *
block_of (const void *p)
{
  const unsigned char *c = p;

  for (size_t i = 0; i < nblocks; i++)
    if (c >= blocks[i].user && c <= blocks[i].user + blocks[i].bytes)
      return &blocks[i];
  return NULL;
}

void
checkasm_poison (void *p)
{
  block *b = block_of (p);

  if (b)
    memset (b->user - GUARD, POISON, b->bytes + 2 * GUARD);
}

void
checkasm_free (void *p)
{
  block *b = block_of (p);

  if (!b)
    return;
  free (b->mem);
  *b = blocks[--nblocks];
}

/* ---- comparing ---- */

static void
hex (char *buf, const unsigned char *p, size_t isz)
{
  uint64_t v = 0;

  if (isz > 8) { /* bytes, as they lie in memory */
    for (size_t i = 0; i < isz && i < 16; i++)
      sprintf (buf + 2 * i, "%02x", p[i]);
    return;
  }
  memcpy (&v, p, isz); /* little-endian: the item's value */
  sprintf (buf, "0x%0*" PRIx64, (int) (2 * isz), v);
}

int
checkasm_check_bits (const void *want, const void *got, size_t n, size_t isz,
    const char *ctx_fmt, ...)
{
  const unsigned char *w = want, *g = got;
  char ctx[160], a[40], b[40];
  va_list ap;
  block *blk;

  va_start (ap, ctx_fmt);
  vsnprintf (ctx, sizeof ctx, ctx_fmt, ap);
  va_end (ap);
  for (size_t i = 0; i < n; i++)
    if (memcmp (w + i * isz, g + i * isz, isz) != 0) {
      hex (a, w + i * isz, isz);
      hex (b, g + i * isz, isz);
      return checkasm_fail (
          "%s: item %zu of %zu: portable %s, got %s", ctx, i, n, a, b);
    }
  blk = block_of (got);
  if (blk) {
    const unsigned char *lo = blk->user - GUARD;
    const unsigned char *hi = blk->user + blk->bytes + GUARD;

    for (const unsigned char *p = lo; p < hi; p++) {
      if (p >= g && p < g + n * isz)
        continue;
      if (*p != POISON)
        return checkasm_fail ("%s: wrote byte %td %s the %zu items "
                              "(0x%02x where 0x%02x was)",
            ctx, p < g ? g - p : p - (g + n * isz) + 1,
            p < g ? "before" : "past", n, *p, POISON);
    }
  }
  return 0;
}

int
checkasm_check_guards (const void *p, const char *ctx_fmt, ...)
{
  block *blk = block_of (p);
  char ctx[160];
  va_list ap;

  va_start (ap, ctx_fmt);
  vsnprintf (ctx, sizeof ctx, ctx_fmt, ap);
  va_end (ap);
  for (int side = 0; blk && side < 2; side++) {
    const unsigned char *z = side ? blk->user + blk->bytes : blk->user - GUARD;

    for (int i = 0; i < GUARD; i++)
      if (z[i] != POISON)
        return checkasm_fail ("%s: wrote byte %d %s the block of %zu bytes "
                              "(0x%02x where 0x%02x was)",
            ctx, side ? i + 1 : GUARD - i, side ? "past" : "before",
            blk->bytes, z[i], POISON);
  }
  return 0;
}

/* ---- data ---- */

/* xorshift64*: fast, and the same sequence for a seed everywhere. */
uint32_t
checkasm_rand (void)
{
  st.rng ^= st.rng >> 12;
  st.rng ^= st.rng << 25;
  st.rng ^= st.rng >> 27;
  return (uint32_t) ((st.rng * UINT64_C (2685821657736338717)) >> 32);
}

static uint64_t
rand64 (void)
{
  uint64_t hi = checkasm_rand ();

  return hi << 32 | checkasm_rand ();
}

static const uint16_t edge_f16[] = { 0x7e00, 0xfe00, 0x7c01, 0xfd55, 0x7fff,
  0x0000, 0x8000, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff,
  0xfbff, 0x3c00, 0xbc00 };
static const uint16_t edge_bf16[] = { 0x7fc0, 0xffc0, 0x7f81, 0xff95, 0x7fff,
  0x0000, 0x8000, 0x7f80, 0xff80, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f,
  0xff7f, 0x3f80, 0xbf80 };
static const uint32_t edge_f32[] = { 0x7fc00000, 0xffc00000, 0x7f800001,
  0xffa55555, 0x7fffffff, 0x00000000, 0x80000000, 0x7f800000, 0xff800000,
  0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff,
  0x3f800000, 0xbf800000 };
static const uint64_t edge_f64[] = { 0x7ff8000000000000, 0xfff8000000000000,
  0x7ff0000000000001, 0xfff5555555555555, 0x7fffffffffffffff, 0, 1ull << 63,
  0x7ff0000000000000, 0xfff0000000000000, 1, (1ull << 63) | 1,
  0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
  0xffefffffffffffff, 0x3ff0000000000000, 0xbff0000000000000 };

#define N_EDGE (sizeof edge_f32 / sizeof edge_f32[0])

void
checkasm_fill (void *dst, tn_dtype dt, size_t n)
{
  size_t isz = tn_dtype_size (dt);
  unsigned char *d = dst;
  tn_kind kind = tn_dtype_kind (dt);

  for (size_t i = 0; i < n; i++, d += isz) {
    uint64_t v = rand64 ();
    uint32_t r = checkasm_rand ();
    bool edge = r % 4 == 0;
    unsigned e = (r >> 8) % N_EDGE;

    if (kind == TN_KIND_BOOL) {
      v &= 1;
    } else if (edge && kind == TN_KIND_FLOAT) {
      v = dt == TN_FLOAT16    ? edge_f16[e]
          : dt == TN_BFLOAT16 ? edge_bf16[e]
          : dt == TN_FLOAT32  ? edge_f32[e]
                              : edge_f64[e];
    } else if (edge) {
      /* 0, 1, -1 (all ones), the minimum, the maximum */
      const uint64_t top = UINT64_C (1) << (8 * isz - 1);

      switch (e % 5) {
      case 0:
        v = 0;
        break;
      case 1:
        v = 1;
        break;
      case 2:
        v = ~UINT64_C (0);
        break;
      case 3:
        v = kind == TN_KIND_INT ? top : 0;
        break;
      default:
        v = kind == TN_KIND_INT ? top - 1 : ~UINT64_C (0);
      }
    }
    memcpy (d, &v, isz); /* the low bytes: little-endian */
  }
}

const size_t checkasm_lengths[]
    = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 4095 };
const size_t checkasm_nlengths
    = sizeof checkasm_lengths / sizeof checkasm_lengths[0];

/* ---- --bench ---- */

bool
checkasm_benching (void)
{
  return st.bench && st.ver;
}

uint64_t
checkasm_now_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

void
checkasm_bench_record (uint64_t ns, uint64_t calls)
{
  if (!st.ver)
    return;
  /* per 1024 calls, so integer sorting keeps sub-ns resolution */
  st.samples[st.nsamples++] = ns * 1024 / (calls ? calls : 1);
  if (st.nsamples == BENCH_RUNS) {
    qsort (st.samples, BENCH_RUNS, sizeof st.samples[0], cmp_u64);
    st.ver->ns = (double) st.samples[BENCH_RUNS / 2] / 1024.0;
    st.nsamples = 0;
  }
}

static void
bench_report (void)
{
  char cpu[48];

  printf ("\n%-40s %-18s %12s %12s\n", "kernel", "isa", "ns/call",
      "vs portable");
  for (size_t i = 0; i < st.nk; i++) {
    const kernel *k = &st.k[i];

    for (int j = 0; j < k->nv; j++) {
      if (k->v[j].ns <= 0)
        continue;
      printf ("%-40s %-18s %12.1f", k->name, cpu_name (k->v[j].cpu, cpu),
          k->v[j].ns);
      if (k->v[0].ns > 0)
        printf (" %12.3f", k->v[j].ns / k->v[0].ns);
      printf ("\n");
    }
  }
}

/* ---- main ---- */

static int
popcount (unsigned x)
{
  return __builtin_popcount (x);
}

int
main (int argc, char **argv)
{
  const char *only = NULL;
  unsigned detect = tn_cpu_detect (), masks[64], nmasks = 0, old;
  char cpu[48];
  bool seeded = false;

  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--bench") == 0)
      st.bench = true;
    else if (strcmp (argv[i], "--verbose") == 0 || strcmp (argv[i], "-v") == 0)
      st.verbose = true;
    else if (strncmp (argv[i], "--family=", 9) == 0)
      only = argv[i] + 9;
    else if (strncmp (argv[i], "--seed=", 7) == 0) {
      st.seed = strtoull (argv[i] + 7, NULL, 0);
      seeded = true;
    } else {
      fprintf (stderr,
          "usage: %s [--bench] [--family=NAME] [--seed=N] [--verbose]\n",
          argv[0]);
      return 2;
    }
  }
  if (!seeded)
    st.seed = (uint64_t) time (NULL);
  st.rng = st.seed * 0x9e3779b97f4a7c15ull | 1;
  printf ("checkasm: seed %" PRIu64 ", cpu %s\n", st.seed,
      cpu_name (detect, cpu));

  /* Every subset of what the machine has, by size: 0 (portable) first. */
  for (int pc = 0; pc <= popcount (detect); pc++)
    for (unsigned m = 0; m <= detect; m++)
      if ((m & ~detect) == 0 && popcount (m) == pc && nmasks < 64)
        masks[nmasks++] = m;

  old = tn_cpu_set_mask (0);
  for (unsigned i = 0; i < nmasks; i++) {
    tn_cpu_set_mask (masks[i]);
    st.cpu = tn_cpu_flags ();
    for (int f = 0; families[f].name; f++) {
      if (only && strcmp (only, families[f].name) != 0)
        continue;
      st.family = families[f].name;
      st.checked = 0;
      st.family_failed = 0;
      families[f].check ();
      st.cur = NULL;
      st.ver = NULL;
      if (st.checked || st.verbose)
        printf ("  %-8s %-18s %4u kernels checked: %s\n", st.family,
            cpu_name (st.cpu, cpu), st.checked,
            st.family_failed ? "FAILED" : "ok");
    }
  }
  tn_cpu_set_mask (old);
  if (st.bench)
    bench_report ();
  while (nblocks)
    checkasm_free (blocks[0].user);
  free (blocks);
  free (st.k);
  if (st.failed) {
    printf ("checkasm: %u kernels FAILED (seed %" PRIu64 ")\n", st.failed,
        st.seed);
    return 1;
  }
  printf ("checkasm: all kernels match their portable versions\n");
  return 0;
}
