/* A ring of bytes mapped twice, back to back: byte i of the ring is at
 * base[i] and base[i + size], so any run of at most size bytes that
 * starts anywhere in [0, size) is contiguous at base + start, however it
 * wraps.  A sliding window over a stream kept in the ring is one pointer
 * and a length, whatever its position (docs/design-notes.md, "tensorwindow:
 * one ring, mapped twice").  Not installed. */
#ifndef TN_RING_H
#define TN_RING_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct {
  uint8_t *base; /* 2 * size bytes of address space; one size of storage */
  size_t size;   /* a multiple of the page size */
} tn_ring;

/* Maps a ring of at least min_size bytes (rounded up to whole pages) from
 * a memfd, twice.  -1 with a sentence naming the call and errno when the
 * system refuses (no memfd_create, out of address space). */
int tn_ring_map (tn_ring *r, size_t min_size, tn_err *e);
void tn_ring_unmap (tn_ring *r);

/* Where stream byte pos lives: base + pos % size. */
static inline uint8_t *
tn_ring_at (const tn_ring *r, uint64_t pos)
{
  return r->base + (size_t) (pos % r->size);
}

#endif
