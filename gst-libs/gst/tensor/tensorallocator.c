/* The tensor allocator: 64-byte aligned GstMemory whose blocks are recycled
 * through a size-classed cache instead of going back to the system.
 *
 * A root memory and its storage are one system allocation: the GstTnMemory
 * header sits in front of the data, so a cache hit costs no system call at
 * all (the header is re-initialised in place).  Shares are small separate
 * headers that point into their parent's data. */
#include "tensorallocator-private.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

GST_DEBUG_CATEGORY_STATIC (gst_tn_allocator_debug);
#define GST_CAT_DEFAULT gst_tn_allocator_debug

#define TN_MEM_TYPE "TnMemory"

typedef struct _TnBlock TnBlock;

typedef struct {
  GstMemory mem;
  guint8 *data; /* start of the maxsize region: what mem_map returns */
} GstTnMemory;

/* A root memory together with the bookkeeping of its storage.  While the
 * block is handed out only mem is live; while it is cached, the links put it
 * in its class's LIFO stack and in the age list that trimming walks. */
struct _TnBlock {
  GstTnMemory mem;
  gsize cls;          /* bytes of storage after the header */
  TnBlock *bin_older; /* stack of the class: head is the newest */
  TnBlock *bin_newer;
  TnBlock *age_older; /* every cached block, oldest first */
  TnBlock *age_newer;
};

/* Keeps the storage on its own cache lines, 64-byte aligned. */
#define TN_HDR                                                                 \
  ((sizeof (TnBlock) + GST_TN_ALIGN - 1) & ~(gsize) (GST_TN_ALIGN - 1))
#define TN_BLOCK_DATA(b) ((guint8 *) (b) + TN_HDR)

typedef struct {
  gsize cls;
  TnBlock *newest;
  TnBlock *oldest;
} TnBin;

struct _GstTnAllocator {
  GstAllocator parent;

  GMutex lock;
  /* Only non-empty classes, sorted by cls, so that the first bin at or
   * above a request is the first fit. */
  TnBin *bins;
  guint n_bins;
  guint bins_len;
  TnBlock *oldest;
  TnBlock *newest;
  gsize max_cached;
  GstTnAllocatorStats stats;
  guint fail_sys;
};

G_DEFINE_TYPE_WITH_CODE (GstTnAllocator, gst_tn_allocator, GST_TYPE_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (gst_tn_allocator_debug, "tensorallocator", 0,
        "tensor memory allocator"));

gsize
gst_tn_allocator_round (gsize size)
{
  if (size <= GST_TN_ALIGN)
    return GST_TN_ALIGN;
  if (size <= GST_TN_SMALL_MAX)
    return (gsize) 1 << g_bit_storage (size - 1);
  if (size > G_MAXSIZE - (GST_TN_QUANTUM - 1))
    return 0;
  return (size + GST_TN_QUANTUM - 1) & ~(GST_TN_QUANTUM - 1);
}

/* Index of the first bin whose class is >= cls (n_bins if none). */
static guint
bin_lower_bound (GstTnAllocator *self, gsize cls)
{
  guint lo = 0, hi = self->n_bins;

  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;

    if (self->bins[mid].cls < cls)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
age_unlink (GstTnAllocator *self, TnBlock *b)
{
  if (b->age_older)
    b->age_older->age_newer = b->age_newer;
  else
    self->oldest = b->age_newer;
  if (b->age_newer)
    b->age_newer->age_older = b->age_older;
  else
    self->newest = b->age_older;
}

/* Takes b out of the cache; idx is the index of its bin. */
static void
cache_remove (GstTnAllocator *self, guint idx, TnBlock *b)
{
  TnBin *bin = &self->bins[idx];

  if (b->bin_older)
    b->bin_older->bin_newer = b->bin_newer;
  else
    bin->oldest = b->bin_newer;
  if (b->bin_newer)
    b->bin_newer->bin_older = b->bin_older;
  else
    bin->newest = b->bin_older;
  if (bin->newest == NULL) {
    memmove (bin, bin + 1, (self->n_bins - idx - 1) * sizeof (TnBin));
    self->n_bins--;
  }
  age_unlink (self, b);
  self->stats.bytes_cached -= b->cls;
  self->stats.blocks_cached--;
}

/* Puts b on top of its class's stack and at the young end of the age list. */
static void
cache_push (GstTnAllocator *self, TnBlock *b)
{
  guint idx = bin_lower_bound (self, b->cls);
  TnBin *bin;

  if (idx == self->n_bins || self->bins[idx].cls != b->cls) {
    if (self->n_bins == self->bins_len) {
      self->bins_len = self->bins_len ? self->bins_len * 2 : 16;
      self->bins = g_renew (TnBin, self->bins, self->bins_len);
    }
    memmove (&self->bins[idx + 1], &self->bins[idx],
        (self->n_bins - idx) * sizeof (TnBin));
    self->n_bins++;
    self->bins[idx].cls = b->cls;
    self->bins[idx].newest = self->bins[idx].oldest = NULL;
  }
  bin = &self->bins[idx];
  b->bin_newer = NULL;
  b->bin_older = bin->newest;
  if (bin->newest)
    bin->newest->bin_newer = b;
  else
    bin->oldest = b;
  bin->newest = b;

  b->age_newer = NULL;
  b->age_older = self->newest;
  if (self->newest)
    self->newest->age_newer = b;
  else
    self->oldest = b;
  self->newest = b;

  self->stats.bytes_cached += b->cls;
  self->stats.blocks_cached++;
}

/* Moves the longest-cached blocks to *to_free (linked by bin_older) until
 * the cache holds at most bound bytes. */
static void
cache_trim_to (GstTnAllocator *self, gsize bound, TnBlock **to_free)
{
  while (self->stats.bytes_cached > bound) {
    TnBlock *b = self->oldest;

    cache_remove (self, bin_lower_bound (self, b->cls), b);
    b->bin_older = *to_free;
    *to_free = b;
    self->stats.trims++;
  }
}

static void
free_blocks (TnBlock *list)
{
  while (list) {
    TnBlock *next = list->bin_older;

    free (list);
    list = next;
  }
}

/* Large blocks go on transparent huge pages, as NumPy puts its large
 * arrays: a stream over 4 KiB pages pays a TLB miss every 4 KiB, about a
 * tenth of a memory-bound pass.  The block starts on a huge page boundary
 * so that all of it can be backed by huge pages. */
static void *
tn_block_alloc (gsize total)
{
  void *p = NULL;

#ifdef MADV_HUGEPAGE
  if (total >= GST_TN_HUGE_MIN) {
    if (posix_memalign (&p, GST_TN_HUGE_PAGE, total) != 0)
      return NULL;
    /* Only advice: a kernel without THP says EINVAL and the block stays. */
    madvise (p, (total + 4095) & ~(gsize) 4095, MADV_HUGEPAGE);
    return p;
  }
#endif
  return posix_memalign (&p, GST_TN_ALIGN, total) == 0 ? p : NULL;
}

static GstMemory *
gst_tn_allocator_alloc (
    GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  GstTnAllocator *self = (GstTnAllocator *) allocator;
  gsize align = params->align | (GST_TN_ALIGN - 1);
  gsize prefix = params->prefix, padding = params->padding;
  gsize slack, need, maxsize, cls, total;
  TnBlock *b = NULL;
  guint8 *data;
  gboolean fail = FALSE;

  /* The payload (data + prefix) is what kernels read, so that is the
   * address we align.  The block is 64-aligned already, so only a larger
   * alignment or a prefix that is not a multiple of 64 needs room to slide
   * the payload forward. */
  if (align == G_MAXSIZE)
    goto overflow;
  slack = (prefix & (GST_TN_ALIGN - 1)) ? align : align + 1 - GST_TN_ALIGN;
  if (!g_size_checked_add (&maxsize, prefix, size)
      || !g_size_checked_add (&maxsize, maxsize, padding)
      || !g_size_checked_add (&need, maxsize, slack))
    goto overflow;
  cls = gst_tn_allocator_round (need);
  if (cls == 0 || !g_size_checked_add (&total, cls, TN_HDR))
    goto overflow;

  g_mutex_lock (&self->lock);
  {
    guint idx = bin_lower_bound (self, cls);

    /* First fit, but a block more than twice the class stays for the
     * requests it suits. */
    if (idx < self->n_bins && self->bins[idx].cls / 2 <= cls) {
      b = self->bins[idx].newest;
      cache_remove (self, idx, b);
      self->stats.hits++;
      self->stats.outstanding++;
      self->stats.outstanding_bytes += b->cls;
    } else if (self->fail_sys > 0) {
      self->fail_sys--;
      fail = TRUE;
    }
  }
  g_mutex_unlock (&self->lock);

  if (b == NULL) {
    void *p = fail ? NULL : tn_block_alloc (total);

    if (p == NULL) {
      GST_WARNING_OBJECT (self,
          "The system could not allocate a %" G_GSIZE_FORMAT
          "-byte block for a request of %" G_GSIZE_FORMAT
          " bytes (prefix %" G_GSIZE_FORMAT ", padding %" G_GSIZE_FORMAT ").",
          cls, size, prefix, padding);
      return NULL;
    }
    b = p;
    b->cls = cls;
    g_mutex_lock (&self->lock);
    self->stats.misses++;
    self->stats.outstanding++;
    self->stats.outstanding_bytes += cls;
    g_mutex_unlock (&self->lock);
  }

  data = TN_BLOCK_DATA (b);
  data += ((guintptr) - (guintptr) (data + prefix)) & align;
  gst_memory_init (GST_MEMORY_CAST (b), params->flags, allocator, NULL, maxsize,
      align, prefix, size);
  b->mem.data = data;
  if (prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (data, 0, prefix);
  if (padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (data + prefix + size, 0, padding);

  GST_LOG_OBJECT (self,
      "memory %p: %" G_GSIZE_FORMAT " bytes in a block of %" G_GSIZE_FORMAT, b,
      size, b->cls);
  return GST_MEMORY_CAST (b);

overflow:
  GST_WARNING_OBJECT (self,
      "Cannot allocate %" G_GSIZE_FORMAT " bytes with prefix %" G_GSIZE_FORMAT
      ", padding %" G_GSIZE_FORMAT " and alignment %" G_GSIZE_FORMAT
      ": the block size overflows %u bits.",
      size, prefix, padding, align + (align < G_MAXSIZE),
      (guint) (8 * sizeof (gsize)));
  return NULL;
}

static void
gst_tn_allocator_free (GstAllocator *allocator, GstMemory *mem)
{
  GstTnAllocator *self = (GstTnAllocator *) allocator;
  TnBlock *b = (TnBlock *) mem;
  TnBlock *to_free = NULL;

  if (mem->parent) {
    g_free (mem);
    return;
  }

  g_mutex_lock (&self->lock);
  self->stats.outstanding--;
  self->stats.outstanding_bytes -= b->cls;
  /* A block larger than the whole bound would only evict everything else
   * before being evicted itself. */
  if (b->cls > self->max_cached) {
    b->bin_older = NULL;
    to_free = b;
    self->stats.trims++;
  } else {
    cache_push (self, b);
    cache_trim_to (self, self->max_cached, &to_free);
  }
  g_mutex_unlock (&self->lock);

  free_blocks (to_free);
}

static gpointer
tn_mem_map (GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstTnMemory *) mem)->data;
}

static void
tn_mem_unmap (GstMemory *mem)
{}

/* Resolves a (offset, size) request relative to mem as GstMemory does
 * (size -1: to the end), checking that it stays inside the block. */
static gboolean
tn_mem_range (GstMemory *mem, gssize offset, gssize *size, const gchar *what)
{
  gboolean inside = offset >= -(gssize) mem->offset
                    && offset <= (gssize) (mem->maxsize - mem->offset);
  gssize want = *size;

  if (want == -1 && inside)
    want = (gssize) mem->size - offset;
  if (inside && want >= 0
      && (gsize) want <= mem->maxsize - (mem->offset + offset)) {
    *size = want;
    return TRUE;
  }
  GST_WARNING (
      "Cannot %s %" G_GSSIZE_FORMAT " bytes at offset %" G_GSSIZE_FORMAT
      " of a memory of %" G_GSIZE_FORMAT " bytes (at offset %" G_GSIZE_FORMAT
      " in a block of %" G_GSIZE_FORMAT " bytes): the range leaves the block.",
      what, want, offset, mem->size, mem->offset, mem->maxsize);
  return FALSE;
}

static GstMemory *
tn_mem_share (GstMemory *mem, gssize offset, gssize size)
{
  GstTnMemory *sub;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (!tn_mem_range (mem, offset, &size, "share"))
    return NULL;
  sub = g_new (GstTnMemory, 1);
  /* A share is a read-only view, as in GstSystemMemory: writers copy. */
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      mem->allocator, parent, mem->maxsize, mem->align, mem->offset + offset,
      size);
  sub->data = ((GstTnMemory *) mem)->data;
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
tn_mem_copy (GstMemory *mem, gssize offset, gssize size)
{
  GstAllocationParams params;
  GstMemory *copy;

  gst_allocation_params_init (&params);
  params.align = mem->align;

  if (!tn_mem_range (mem, offset, &size, "copy"))
    return NULL;
  copy = gst_allocator_alloc (mem->allocator, size, &params);
  if (copy == NULL)
    return NULL;
  memcpy (((GstTnMemory *) copy)->data,
      ((GstTnMemory *) mem)->data + mem->offset + offset, size);
  return copy;
}

static gboolean
tn_mem_is_span (GstMemory *mem1, GstMemory *mem2, gsize *offset)
{
  GstTnMemory *a = (GstTnMemory *) mem1, *b = (GstTnMemory *) mem2;

  if (offset)
    *offset = mem1->offset - mem1->parent->offset;
  return a->data + mem1->offset + mem1->size == b->data + mem2->offset;
}

static void
gst_tn_allocator_finalize (GObject *object)
{
  GstTnAllocator *self = GST_TN_ALLOCATOR (object);
  TnBlock *to_free = NULL;

  GST_DEBUG_OBJECT (self,
      "freeing %" G_GSIZE_FORMAT " cached blocks (%" G_GSIZE_FORMAT
      " bytes); %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
      " misses, %" G_GUINT64_FORMAT " trims",
      self->stats.blocks_cached, self->stats.bytes_cached, self->stats.hits,
      self->stats.misses, self->stats.trims);
  cache_trim_to (self, 0, &to_free);
  free_blocks (to_free);
  g_free (self->bins);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gst_tn_allocator_parent_class)->finalize (object);
}

static void
gst_tn_allocator_class_init (GstTnAllocatorClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_tn_allocator_finalize;
  allocator_class->alloc = gst_tn_allocator_alloc;
  allocator_class->free = gst_tn_allocator_free;
}

static void
gst_tn_allocator_init (GstTnAllocator *self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = TN_MEM_TYPE;
  alloc->mem_map = tn_mem_map;
  alloc->mem_unmap = tn_mem_unmap;
  alloc->mem_share = tn_mem_share;
  alloc->mem_copy = tn_mem_copy;
  alloc->mem_is_span = tn_mem_is_span;

  g_mutex_init (&self->lock);
  self->max_cached = gst_tn_allocator_default_max_cached ();
}

GstAllocator *
gst_tn_allocator_new (void)
{
  return gst_object_ref_sink (g_object_new (GST_TYPE_TN_ALLOCATOR, NULL));
}

GstAllocator *
gst_tn_allocator_get (void)
{
  /* Borrowed: the registry owns the only reference, so the allocator and
   * its cache are finalized in gst_deinit. */
  static GstAllocator *the_allocator;
  static gsize once;

  if (g_once_init_enter (&once)) {
    the_allocator = gst_tn_allocator_new ();
    GST_OBJECT_FLAG_SET (the_allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    gst_allocator_register (GST_TN_ALLOCATOR_NAME, the_allocator);
    g_once_init_leave (&once, 1);
  }
  return gst_object_ref (the_allocator);
}

/* Boxed, so that bindings can hold one. */
static GstTnAllocatorStats *
gst_tn_allocator_stats_copy (GstTnAllocatorStats *s)
{
  return g_memdup2 (s, sizeof *s);
}

G_DEFINE_BOXED_TYPE (GstTnAllocatorStats, gst_tn_allocator_stats,
    gst_tn_allocator_stats_copy, g_free)

gboolean
gst_is_tn_memory (GstMemory *mem)
{
  return mem != NULL && mem->allocator != NULL
         && GST_IS_TN_ALLOCATOR (mem->allocator);
}

void
gst_tn_allocator_get_stats (GstAllocator *alloc, GstTnAllocatorStats *s)
{
  GstTnAllocator *self;

  g_return_if_fail (GST_IS_TN_ALLOCATOR (alloc));
  g_return_if_fail (s != NULL);

  self = GST_TN_ALLOCATOR (alloc);
  g_mutex_lock (&self->lock);
  *s = self->stats;
  g_mutex_unlock (&self->lock);
}

void
gst_tn_allocator_set_max_cached (GstAllocator *alloc, gsize bytes)
{
  GstTnAllocator *self;
  TnBlock *to_free = NULL;

  g_return_if_fail (GST_IS_TN_ALLOCATOR (alloc));

  self = GST_TN_ALLOCATOR (alloc);
  g_mutex_lock (&self->lock);
  self->max_cached = bytes;
  cache_trim_to (self, bytes, &to_free);
  g_mutex_unlock (&self->lock);
  free_blocks (to_free);
}

gsize
gst_tn_allocator_get_max_cached (GstAllocator *alloc)
{
  GstTnAllocator *self;
  gsize bytes;

  g_return_val_if_fail (GST_IS_TN_ALLOCATOR (alloc), 0);

  self = GST_TN_ALLOCATOR (alloc);
  g_mutex_lock (&self->lock);
  bytes = self->max_cached;
  g_mutex_unlock (&self->lock);
  return bytes;
}

void
gst_tn_allocator_trim (GstAllocator *alloc)
{
  GstTnAllocator *self;
  TnBlock *to_free = NULL;

  g_return_if_fail (GST_IS_TN_ALLOCATOR (alloc));

  self = GST_TN_ALLOCATOR (alloc);
  g_mutex_lock (&self->lock);
  cache_trim_to (self, 0, &to_free);
  g_mutex_unlock (&self->lock);
  free_blocks (to_free);
}

void
gst_tn_allocator_fail_system_allocs (GstAllocator *alloc, guint n)
{
  GstTnAllocator *self;

  g_return_if_fail (GST_IS_TN_ALLOCATOR (alloc));

  self = GST_TN_ALLOCATOR (alloc);
  g_mutex_lock (&self->lock);
  self->fail_sys = n;
  g_mutex_unlock (&self->lock);
}

gboolean
gst_tn_allocator_parse_size (const gchar *str, gsize *bytes, GError **err)
{
  const gchar *p = str;
  guint64 v = 0;
  guint shift = 0;

  if (str == NULL || !g_ascii_isdigit (*p))
    goto invalid;
  for (; g_ascii_isdigit (*p); p++) {
    guint d = *p - '0';

    if (v > (G_MAXUINT64 - d) / 10)
      goto too_big;
    v = v * 10 + d;
  }
  switch (g_ascii_toupper (*p)) {
  case 'K':
    shift = 10;
    break;
  case 'M':
    shift = 20;
    break;
  case 'G':
    shift = 30;
    break;
  default:
    break;
  }
  if (shift) {
    p++;
    if (g_ascii_strcasecmp (p, "iB") == 0 || g_ascii_strcasecmp (p, "B") == 0)
      p += strlen (p);
  }
  if (*p != '\0')
    goto invalid;
  if (v > (G_MAXSIZE >> shift))
    goto too_big;
  *bytes = (gsize) (v << shift);
  return TRUE;

invalid:
  g_set_error (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "'%s' is not a byte count: expected decimal digits with an optional "
      "K, M or G suffix, such as 67108864 or 64M.",
      str ? str : "(null)");
  return FALSE;
too_big:
  g_set_error (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "'%s' is more bytes than a %u-bit size can hold (at most %" G_GSIZE_FORMAT
      ").",
      str, (guint) (8 * sizeof (gsize)), G_MAXSIZE);
  return FALSE;
}

gsize
gst_tn_allocator_default_max_cached (void)
{
  const gchar *env = g_getenv (GST_TN_MAX_CACHED_ENV);
  GError *err = NULL;
  gsize bytes;

  /* The debug category is set up with the type. */
  g_type_ensure (GST_TYPE_TN_ALLOCATOR);
  if (env == NULL)
    return GST_TN_DEFAULT_MAX_CACHED;
  if (!gst_tn_allocator_parse_size (env, &bytes, &err)) {
    GST_WARNING ("Ignoring " GST_TN_MAX_CACHED_ENV ": %s Keeping the default "
                 "of %" G_GSIZE_FORMAT " bytes.",
        err->message, GST_TN_DEFAULT_MAX_CACHED);
    g_error_free (err);
    return GST_TN_DEFAULT_MAX_CACHED;
  }
  return bytes;
}
