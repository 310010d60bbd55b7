/* The batched Philox4x32-10 (core/random-kern.h): every entry gives the
 * bits of the portable one (the promise of random.h: any path, the same
 * numbers), for block numbers whose low word carries into the high one
 * inside a batch or wraps at 2^64, and for edge seeds and streams. */
#include "checkasm.h"

#include <string.h>

#include "core/random-kern.h"

static uint64_t
pick (int i, uint64_t r)
{
  static const uint64_t edge[] = { 0, 1, 0xffffffffu - 5, 0xffffffffu,
    0x100000000u, UINT64_MAX - 3, UINT64_MAX, 0x8000000000000000u };

  return i < (int) (sizeof edge / sizeof edge[0]) ? edge[i] : r;
}

void
checkasm_check_random (void)
{
  const tn_random_dsp *d = tn_random_dsp_get ();
  tn_philox_batch_fn ref;

  if (!(ref = checkasm_check_func (d->batch, "philox_batch")))
    return;
  for (int i = 0; i < 64; i++) {
    uint64_t block0 = pick (i % 16, (uint64_t) checkasm_rand () << 32 | checkasm_rand ());
    uint64_t stream = pick ((i / 2) % 12, (uint64_t) checkasm_rand () << 32 | checkasm_rand ());
    uint64_t seed = pick ((i / 3) % 10, (uint64_t) checkasm_rand () << 32 | checkasm_rand ());
    uint32_t want[4][TN_PHILOX_BATCH], got[4][TN_PHILOX_BATCH];

    memset (want, 0xa5, sizeof want);
    memset (got, 0x5a, sizeof got);
    ref (want, block0, stream, seed);
    d->batch (got, block0, stream, seed);
    if (checkasm_check_bits (want, got, 4 * TN_PHILOX_BATCH, 4,
            "block0 %#llx, stream %#llx, seed %#llx (word w of block j is "
            "item 16 w + j)",
            (unsigned long long) block0, (unsigned long long) stream,
            (unsigned long long) seed))
      return;
  }
  {
    uint32_t x[4][TN_PHILOX_BATCH];
    uint64_t b = 0;

    checkasm_bench (d->batch (x, b += TN_PHILOX_BATCH, 7, 42));
  }
}
