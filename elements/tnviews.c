/* Recycled read-only buffers over bytes someone else owns (tnviews.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tnviews.h"

#include <pthread.h>
#include <string.h>

#include <gst/tensor/gsttensor.h>

/* The memory of a view buffer: where its bytes are and who owns them. */
typedef struct _ViewMem ViewMem;
struct _ViewMem {
  GstMemory mem;
  /* the bytes; NULL for a view of a mapped input, whose bytes are the
   * input's at off (mapped when a reader first maps a view of it) */
  guint8 *data;
  gsize off;
  gpointer owner;
  GDestroyNotify release;
  GstTnViews *views; /* a reference: every ViewMem holds one */
  GstBuffer *buf;    /* the buffer it was made for */
  /* the buffer's layout meta, kept across reuse (found again at every
   * dispose: downstream may have removed it) */
  GstTnLayoutMeta *layout;
  ViewMem *next; /* in views' spare lists */
};

/* views->back once closed: a buffer coming back is freed. */
#define VIEWS_CLOSED ((ViewMem *) &view_allocator)

/* The spare buffers, without a lock: buffers come back on any thread and
 * are pushed onto `back` with a compare-and-swap; one thread at a time
 * (the element's streaming thread, under its stream lock) takes them,
 * from its own list `mine`, which it refills by taking the whole of
 * `back` at once.  A stack popped by one taker and whole only has no ABA
 * problem.  A spare buffer's refcount is 0 (as dispose left it): the
 * taker refs it. */
struct _GstTnViews {
  gint ref;      /* the owner's, one per ViewMem and per mapped input */
  ViewMem *back; /* atomic; VIEWS_CLOSED when closed */
  ViewMem *mine; /* the taker's */
  guint n_made;  /* the taker's: ViewMems made */
  /* atomic (relaxed): the taker's thread between gst_tn_views_enter and
   * leave, else 0.  Only that thread stores its own id here, so a thread
   * that reads its own id is between the two: a buffer that dies there
   * goes straight onto `mine`, without the compare-and-swap.  (A thread
   * id, not a GPrivate: g_private_get and set cost more instructions
   * than the compare-and-swap they would save.) */
  guintptr here;
  /* atomic: one mapped input record to reuse (no allocation per input);
   * MI_CLOSED when closed */
  GstTnMappedInput *mi_spare;
  /* the taker's: a record that came back on its thread (no atomic) */
  GstTnMappedInput *mi_mine;
  /* the taker's: mapped inputs whose views died on its thread between
   * gst_tn_views_enter and leave, their references given back in one
   * subtraction each at leave (not one locked instruction per view) */
  GstTnMappedInput *given;
};

static gchar mi_closed;
#define MI_CLOSED ((GstTnMappedInput *) &mi_closed)

/* The allocator of view memories: they come from gst_tn_views_buffer
 * only, never from gst_allocator_alloc. */
typedef struct {
  GstAllocator parent;
} GstTnViewAllocator;
typedef struct {
  GstAllocatorClass parent_class;
} GstTnViewAllocatorClass;

GType gst_tn_view_allocator_get_type (void);
G_DEFINE_TYPE (GstTnViewAllocator, gst_tn_view_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *view_allocator;

/* The map functions of the allocators whose memories a mapped input maps
 * only when a view of it is first mapped (mapped_input_lazy): system
 * memory and the tensor allocator's, whose map is their data pointer
 * and cannot fail. */
static gpointer (*sysmem_map) (GstMemory *, gsize, GstMapFlags);
static gpointer (*tnmem_map) (GstMemory *, gsize, GstMapFlags);

static void mapped_input_view_done (gpointer in);
static guint8 *mapped_input_data (GstTnMappedInput *in);

/* The calling thread's id for `here`: its thread pointer, read inline
 * (one instruction on x86-64 and AArch64), where pthread_self is a call
 * through the PLT, twice per view that dies (its dispose and its
 * owner's give-back).  Any value unique among live threads does: each
 * has its own thread control block, and glibc's pthread_self returns
 * that very pointer. */
#if defined(__has_builtin) && (defined(__x86_64__) || defined(__aarch64__))
#if __has_builtin(__builtin_thread_pointer)
#define TN_THREAD_POINTER 1
#endif
#endif

static inline guintptr
thread_id (void)
{
#ifdef TN_THREAD_POINTER
  return (guintptr) __builtin_thread_pointer ();
#else
  return (guintptr) pthread_self ();
#endif
}

/* Whether this thread is the taker's between gst_tn_views_enter and
 * leave: only that thread stores its own id in here. */
static inline gboolean
views_here (GstTnViews *views)
{
  return __atomic_load_n (&views->here, __ATOMIC_RELAXED) == thread_id ();
}

static void
gst_tn_views_unref (GstTnViews *views)
{
  if (g_atomic_int_dec_and_test (&views->ref))
    g_free (views);
}

static void
view_mem_release (ViewMem *vm)
{
  GDestroyNotify release = vm->release;
  gpointer owner = vm->owner;

  vm->owner = NULL;
  vm->release = NULL;
  vm->data = NULL;
  vm->off = 0;
  if (release != NULL)
    release (owner);
}

static GstMemory *
view_alloc (GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  return NULL;
}

static void
view_free (GstAllocator *allocator, GstMemory *mem)
{
  ViewMem *vm = (ViewMem *) mem;
  GstTnViews *views = vm->views;

  view_mem_release (vm);
  g_free (vm);
  gst_tn_views_unref (views);
}

/* The bytes of vm (NULL when they cannot be mapped). */
static guint8 *
view_data (ViewMem *vm)
{
  guint8 *base;

  if (vm->data != NULL || vm->release != mapped_input_view_done)
    return vm->data;
  base = mapped_input_data (vm->owner);
  return base != NULL ? base + vm->off : NULL;
}

static gpointer
view_map (GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
  return view_data ((ViewMem *) mem);
}

static void
view_unmap (GstMemory *mem)
{}

/* A share (gst_buffer_copy of a view) keeps the whole view buffer, and so
 * the owner of the bytes, alive: the view is not reused under it. */
static GstMemory *
view_share (GstMemory *mem, gssize offset, gssize size)
{
  ViewMem *vm = (ViewMem *) mem;
  guint8 *data = view_data (vm);

  if (data == NULL)
    return NULL;
  if (size == -1)
    size = (gssize) mem->size - offset;
  return gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, data, mem->maxsize,
      mem->offset + offset, (gsize) size, gst_buffer_ref (vm->buf),
      (GDestroyNotify) gst_buffer_unref);
}

static void
gst_tn_view_allocator_class_init (GstTnViewAllocatorClass *klass)
{
  GstAllocatorClass *ac = GST_ALLOCATOR_CLASS (klass);

  ac->alloc = view_alloc;
  ac->free = view_free;
}

static void
gst_tn_view_allocator_init (GstTnViewAllocator *self)
{
  GstAllocator *a = GST_ALLOCATOR_CAST (self);

  a->mem_type = "TnView";
  a->mem_map = view_map;
  a->mem_unmap = view_unmap;
  a->mem_share = view_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* Drops every meta but the layout meta, which it notes in vm. */
static gboolean
strip_meta (GstBuffer *buf, GstMeta **meta, gpointer data)
{
  ViewMem *vm = data;

  if ((*meta)->info->api == GST_TN_LAYOUT_META_API_TYPE && vm->layout == NULL) {
    vm->layout = (GstTnLayoutMeta *) *meta;
    return TRUE;
  }
  GST_META_FLAG_UNSET (*meta, GST_META_FLAG_LOCKED);
  *meta = NULL;
  return TRUE;
}

/* The last reference to a view buffer went: the owner is released and
 * the buffer goes back to the spare list (FALSE: not freed), unless it
 * is not the buffer it was or views is closed. */
static gboolean
view_buffer_dispose (GstMiniObject *obj)
{
  GstBuffer *buf = GST_BUFFER_CAST (obj);
  GstMemory *mem;
  GstMeta *meta;
  GstTnViews *views;
  ViewMem *vm, *head;
  GstTnLayoutMeta *mine;
  gpointer state = NULL;

  if (gst_buffer_n_memory (buf) != 1)
    return TRUE;
  mem = gst_buffer_peek_memory (buf, 0);
  if (mem->allocator != view_allocator)
    return TRUE;
  vm = (ViewMem *) mem;
  if (vm->buf != buf || GST_MINI_OBJECT_REFCOUNT_VALUE (mem) != 1)
    return TRUE;
  view_mem_release (vm);
  views = vm->views;
  if (g_atomic_pointer_get (&views->back) == VIEWS_CLOSED)
    return TRUE;
  GST_BUFFER_FLAGS (buf) = 0;
  GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_END (buf)
      = GST_BUFFER_OFFSET_NONE;
  mine = vm->layout;
  vm->layout = NULL;
  /* (a part along axis 0 has none: a look is cheaper than the walk; a
   * view's one meta is most often the layout meta it was given, kept as
   * it is without the walk) */
  meta = gst_buffer_iterate_meta (buf, &state);
  if (meta != NULL && mine != NULL && meta == (GstMeta *) mine
      && gst_buffer_iterate_meta (buf, &state) == NULL)
    vm->layout = mine;
  else if (meta != NULL) {
    /* gst_buffer_foreach_meta changes writable buffers only (refcount
     * 1): at 0 it would leave every meta on, and the next use would add
     * another layout meta and carry its input's metas over */
    GST_MINI_OBJECT_REFCOUNT (buf) = 1;
    gst_buffer_foreach_meta (buf, strip_meta, vm);
    GST_MINI_OBJECT_REFCOUNT (buf) = 0;
  }
  if (views_here (views)) {
    /* the taker's thread, between its takes: its list, no atomics */
    vm->next = views->mine;
    views->mine = vm;
    return FALSE;
  }
  do {
    head = g_atomic_pointer_get (&views->back);
    if (head == VIEWS_CLOSED)
      return TRUE;
    vm->next = head;
  } while (!g_atomic_pointer_compare_and_exchange (&views->back, head, vm));
  return FALSE;
}

void
gst_tn_views_enter (GstTnViews *views)
{
  __atomic_store_n (&views->here, thread_id (), __ATOMIC_RELAXED);
}

static void mapped_input_give_back (GstTnViews *views, gboolean taker);

void
gst_tn_views_leave (GstTnViews *views)
{
  /* first: what dies from here on (a record freed below unrefs its
   * input) takes the atomic way */
  __atomic_store_n (&views->here, 0, __ATOMIC_RELAXED);
  mapped_input_give_back (views, TRUE);
}

gboolean
gst_tn_views_here (GstTnViews *views)
{
  return views_here (views);
}

GstTnViews *
gst_tn_views_new (void)
{
  static gsize once;
  GstTnViews *views = g_new0 (GstTnViews, 1);

  if (g_once_init_enter (&once)) {
    view_allocator = g_object_new (gst_tn_view_allocator_get_type (), NULL);
    gst_object_ref_sink (view_allocator);
    /* lives as long as the plugin: the leaks tracer need not see it */
    GST_OBJECT_FLAG_SET (view_allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    /* (only their functions are kept: no reference held) */
    for (int i = 0; i < 2; i++) {
      GstAllocator *a = i == 0 ? gst_allocator_find (GST_ALLOCATOR_SYSMEM)
                               : gst_tn_allocator_get ();

      if (a == NULL)
        continue;
      if (i == 0)
        sysmem_map = a->mem_map;
      else
        tnmem_map = a->mem_map;
      gst_object_unref (a);
    }
    g_once_init_leave (&once, 1);
  }
  views->ref = 1;
  return views;
}

/* Frees a list of spare buffers (refcount 0: a ref and an unref, whose
 * dispose then sees views closed). */
static void
free_spares (ViewMem *vm)
{
  while (vm != NULL) {
    ViewMem *next = vm->next;

    gst_buffer_unref (gst_buffer_ref (vm->buf));
    vm = next;
  }
}

void
gst_tn_views_close (GstTnViews *views)
{
  GstTnMappedInput *mi;

  /* (leave gave everything back; a taker that did not call it) */
  mapped_input_give_back (views, FALSE);
  mi = g_atomic_pointer_exchange (&views->mi_spare, MI_CLOSED);
  if (mi != NULL) {
    g_free (mi);
    gst_tn_views_unref (views);
  }
  if (views->mi_mine != NULL) {
    g_free (views->mi_mine);
    views->mi_mine = NULL;
    gst_tn_views_unref (views);
  }
  free_spares (g_atomic_pointer_exchange (&views->back, VIEWS_CLOSED));
  free_spares (views->mine);
  views->mine = NULL;
  gst_tn_views_unref (views);
}

/* Spares beyond the buffers out, in batches: when every buffer comes
 * back one at a time (a sink keeps its last buffer until the next
 * replaces it), a taker with no spares of its own would exchange `back`
 * for one buffer per take, a locked instruction as costly as the rest of
 * the take (docs/perf-notes.md, "Session 9 H5").  While a take of
 * `back` brings fewer than SPARE_BATCH buffers, a new buffer is made
 * instead (at most SPARE_MAX of them so), so that later takes find
 * SPARE_BATCH at once: one exchange per SPARE_BATCH buffers. */
#define SPARE_BATCH 8
#define SPARE_MAX 32

/* The taker's next spare, NULL when a new one is to be made. */
static ViewMem *
views_take (GstTnViews *views)
{
  ViewMem *vm = views->mine, *last;
  guint n = 1;

  if (vm != NULL)
    return vm;
  vm = g_atomic_pointer_exchange (&views->back, NULL);
  if (vm == NULL || views->n_made >= SPARE_MAX)
    return vm;
  for (last = vm; last->next != NULL && n < SPARE_BATCH; last = last->next)
    n++;
  if (n >= SPARE_BATCH)
    return vm;
  /* too few: keep them for later takes, make one more */
  views->mine = vm;
  return NULL;
}

/* gst_tn_views_buffer, or (data NULL) a view of a mapped input's bytes
 * at off. */
static GstBuffer *
views_buffer_at (GstTnViews *views, guint8 *data, gsize off, gsize len,
    gpointer owner, GDestroyNotify release, gint rank, const gint64 *strides)
{
  ViewMem *vm = views_take (views);

  if (vm == NULL) {
    vm = g_new0 (ViewMem, 1);
    gst_memory_init (&vm->mem, GST_MEMORY_FLAG_READONLY, view_allocator, NULL,
        len, 0, 0, len);
    g_atomic_int_inc (&views->ref);
    vm->views = views;
    views->n_made++;
    vm->buf = gst_buffer_new ();
    gst_buffer_append_memory (vm->buf, &vm->mem);
    GST_MINI_OBJECT_CAST (vm->buf)->dispose = view_buffer_dispose;
  } else {
    views->mine = vm->next;
    /* a spare is the taker's alone at refcount 0 (dispose left it so):
     * a plain store, not gst_buffer_ref's locked add, makes it 1 */
    GST_MINI_OBJECT_REFCOUNT (vm->buf) = 1;
    vm->mem.maxsize = vm->mem.size = len;
    vm->mem.offset = 0;
    vm->next = NULL;
  }
  vm->data = data;
  vm->off = off;
  vm->owner = owner;
  vm->release = release;
  /* the layout meta of the buffer's last use, rewritten in place (no
   * meta to add and strip per buffer), or dropped for a dense view */
  if (vm->layout != NULL && rank > 0) {
    vm->layout->rank = rank;
    vm->layout->offset = 0;
    memcpy (vm->layout->strides, strides, sizeof (gint64) * rank);
  } else if (vm->layout != NULL) {
    gst_buffer_remove_meta (vm->buf, &vm->layout->meta);
    vm->layout = NULL;
  } else if (rank > 0) {
    vm->layout = gst_tn_buffer_add_layout_meta (vm->buf, rank, 0, strides);
  }
  return vm->buf;
}

GstBuffer *
gst_tn_views_buffer (GstTnViews *views, guint8 *data, gsize len, gpointer owner,
    GDestroyNotify release, gint rank, const gint64 *strides)
{
  return views_buffer_at (views, data, 0, len, owner, release, rank, strides);
}

/* References on a mapped input taken ahead, in its one plain store at
 * birth (the record is the streaming thread's alone until its first view
 * goes out): a view takes one of them without a locked add, and the
 * owner's unref gives back the ones left in one atomic subtraction. */
#define MI_PREPAID (1 << 20)

struct _GstTnMappedInput {
  gint ref;     /* atomic */
  gint prepaid; /* the owner's: references in ref no view holds yet */
  /* the taker's: references given back on its thread (views that died
   * there, the owner's unref), still counted in ref; while not 0 the
   * record is on views->given through given_next */
  gint given;
  GstTnMappedInput *given_next;
  GstBuffer *buf; /* the caller's reference, taken */
  /* atomic: the bytes once mapped, else NULL; while NULL, the first
   * reader that maps a view maps mem and stores map (the record is not
   * mapped at birth: an element that only passes the parts on, a queue
   * or a sink that does not read them, costs no map, whose lock and
   * unlock are two locked instructions per input) */
  guint8 *data;
  GstMapInfo map;
  GstMemory *mem;    /* the buffer's one memory, or NULL */
  gboolean direct;   /* map is of mem (gst_memory_map) */
  GstTnViews *views; /* a reference: the record goes back to it */
};

/* Whether mem's map is one that cannot fail (then it is mapped when
 * first read). */
static inline gboolean
mapped_lazily (GstMemory *mem)
{
  gpointer (*map) (GstMemory *, gsize, GstMapFlags) = mem->allocator->mem_map;

  return map != NULL && (map == sysmem_map || map == tnmem_map)
         && !GST_MEMORY_FLAG_IS_SET (mem, GST_MEMORY_FLAG_NOT_MAPPABLE);
}

const guint8 *
gst_tn_memory_peek_read (GstMemory *mem)
{
  guint8 *base;

  /* gst_memory_map calls mem_map_full when there is one: the data
   * pointer is mem_map's only without it */
  if (!mapped_lazily (mem) || mem->allocator->mem_map_full != NULL)
    return NULL;
  base = mem->allocator->mem_map (mem, mem->maxsize, GST_MAP_READ);
  return base != NULL ? base + mem->offset : NULL;
}

GstTnMappedInput *
gst_tn_mapped_input_new (GstTnViews *views, GstBuffer *buf)
{
  GstTnMappedInput *in = views->mi_mine;

  /* the record that came back on this thread, else one from another
   * (a plain look first: no exchange when there is none) */
  if (in != NULL)
    views->mi_mine = NULL;
  else if (g_atomic_pointer_get (&views->mi_spare) != NULL)
    in = g_atomic_pointer_exchange (&views->mi_spare, NULL);
  if (in == NULL) {
    in = g_new (GstTnMappedInput, 1);
    g_atomic_int_inc (&views->ref);
    in->views = views;
  }
  /* one memory: mapped as itself, without gst_buffer_map's reference
   * and merge check; not yet when its map cannot fail (a memory whose
   * map can fail is mapped now, so that the caller can take another way
   * when it does) */
  in->mem
      = gst_buffer_n_memory (buf) == 1 ? gst_buffer_peek_memory (buf, 0) : NULL;
  in->direct = in->mem != NULL;
  in->data = NULL;
  if (in->direct && mapped_lazily (in->mem)) {
    /* mapped by the first reader (mapped_input_data) */
  } else if (in->direct ? !gst_memory_map (in->mem, &in->map, GST_MAP_READ)
                        : !gst_buffer_map (buf, &in->map, GST_MAP_READ)) {
    g_free (in);
    gst_tn_views_unref (views);
    return NULL;
  } else {
    in->data = in->map.data;
  }
  in->ref = 1 + MI_PREPAID;
  in->prepaid = MI_PREPAID;
  in->given = 0;
  in->given_next = NULL;
  in->buf = buf;
  return in;
}

/* The input's bytes, mapped now if no reader did yet; NULL when the map
 * fails.  Readers on several threads may race: each maps, one stores its
 * map, the others unmap theirs.  The record's death (after every view's,
 * so after every reader's map returned) unmaps the stored one. */
static guint8 *
mapped_input_data (GstTnMappedInput *in)
{
  guint8 *data = __atomic_load_n (&in->data, __ATOMIC_ACQUIRE), *none = NULL;
  GstMapInfo map;

  if (data != NULL)
    return data;
  if (!gst_memory_map (in->mem, &map, GST_MAP_READ))
    return NULL;
  if (!__atomic_compare_exchange_n (&in->data, &none, map.data, FALSE,
          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    gst_memory_unmap (in->mem, &map);
    return none;
  }
  in->map = map;
  return map.data;
}

/* n references go at once (the owner's and what it prepaid, what the
 * taker's thread gave back, or a view's).  taker: on the taker's thread
 * (its record slot needs no atomic). */
static void
mapped_input_drop (GstTnMappedInput *in, gint n, gboolean taker)
{
  GstTnViews *views = in->views;

  /* All the references left are the n that go (views dead on the
   * taker's thread and the owner's, the common case at leave): nobody
   * else holds one, so nobody can change the count, and a plain store
   * does what the locked subtraction would.  The acquire pairs with the
   * release of other threads' subtractions before it. */
  if (__atomic_load_n (&in->ref, __ATOMIC_ACQUIRE) == n)
    in->ref = 0;
  else if (__atomic_sub_fetch (&in->ref, n, __ATOMIC_ACQ_REL) != 0)
    return;
  if (in->data == NULL)
    ; /* no reader mapped it */
  else if (in->direct)
    gst_memory_unmap (in->map.memory, &in->map);
  else
    gst_buffer_unmap (in->buf, &in->map);
  gst_buffer_unref (in->buf);
  in->buf = NULL;
  /* back to views for the next input, unless one is there already or
   * views is closed (the taker's own slot is not looked at once closed:
   * close runs when no taker does) */
  if (taker && views->mi_mine == NULL) {
    views->mi_mine = in;
    return;
  }
  if (!g_atomic_pointer_compare_and_exchange (&views->mi_spare, NULL, in)) {
    g_free (in);
    gst_tn_views_unref (views);
  }
}

/* n references of in go; on the taker's thread between enter and leave
 * they are counted and given back at leave, in one subtraction per
 * record however many views died (a sink replacing its last buffer with
 * the next part kills one view per part). */
static void
mapped_input_give (GstTnMappedInput *in, gint n)
{
  GstTnViews *views = in->views;

  if (!views_here (views)) {
    mapped_input_drop (in, n, FALSE);
    return;
  }
  if (in->given == 0) {
    in->given_next = views->given;
    views->given = in;
  }
  in->given += n;
}

static void
mapped_input_give_back (GstTnViews *views, gboolean taker)
{
  GstTnMappedInput *in;

  while ((in = views->given) != NULL) {
    gint n = in->given;

    views->given = in->given_next;
    in->given = 0;
    in->given_next = NULL;
    mapped_input_drop (in, n, taker);
  }
}

static void
mapped_input_view_done (gpointer in)
{
  mapped_input_give (in, 1);
}

void
gst_tn_mapped_input_unref (GstTnMappedInput *in)
{
  gint n = 1 + in->prepaid;

  in->prepaid = 0;
  mapped_input_give (in, n);
}

GstBuffer *
gst_tn_mapped_input_view (GstTnMappedInput *in, GstTnViews *views, gsize off,
    gsize len, gint rank, const gint64 *strides)
{
  if (in->prepaid > 0)
    in->prepaid--;
  else
    g_atomic_int_inc (&in->ref);
  return views_buffer_at (
      views, NULL, off, len, in, mapped_input_view_done, rank, strides);
}
