/* The twice-mapped ring (core/ring.h): one memfd, mapped at base and
 * again at base + size, inside one reservation so nothing else can land
 * between the two. */
#define _GNU_SOURCE
#include "ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
tn_ring_map (tn_ring *r, size_t min_size, tn_err *e)
{
  long page = sysconf (_SC_PAGESIZE);
  size_t size;
  uint8_t *base;
  int fd;

  r->base = NULL;
  r->size = 0;
  if (page <= 0)
    page = 4096;
  if (min_size == 0)
    min_size = 1;
  if (min_size > SIZE_MAX / 4) {
    tn_err_set (e, "A ring of %zu bytes is too large to map twice.", min_size);
    return -1;
  }
  size = (min_size + (size_t) page - 1) / (size_t) page * (size_t) page;
  fd = memfd_create ("tn-ring", MFD_CLOEXEC);
  if (fd < 0) {
    tn_err_set (e, "memfd_create for a ring of %zu bytes failed: %s.", size,
        strerror (errno));
    return -1;
  }
  if (ftruncate (fd, (off_t) size) != 0) {
    tn_err_set (e, "ftruncate of a ring to %zu bytes failed: %s.", size,
        strerror (errno));
    close (fd);
    return -1;
  }
  /* Reserve both halves at once, then map the file over each half. */
  base = mmap (NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    tn_err_set (e,
        "Reserving %zu bytes of address space for a ring failed: "
        "%s.",
        2 * size, strerror (errno));
    close (fd);
    return -1;
  }
  if (mmap (base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0)
          == MAP_FAILED
      || mmap (base + size, size, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_FIXED, fd, 0)
             == MAP_FAILED) {
    tn_err_set (e, "Mapping a ring of %zu bytes twice failed: %s.", size,
        strerror (errno));
    munmap (base, 2 * size);
    close (fd);
    return -1;
  }
  /* The mappings keep the file; the descriptor is not needed. */
  close (fd);
  r->base = base;
  r->size = size;
  return 0;
}

void
tn_ring_unmap (tn_ring *r)
{
  if (r->base != NULL)
    munmap (r->base, 2 * r->size);
  r->base = NULL;
  r->size = 0;
}
