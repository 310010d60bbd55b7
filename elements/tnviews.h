/* Recycled read-only buffers over bytes someone else owns, for elements
 * that hand out many small zero-copy parts per input (tensorsplit's
 * parts, tensorwindow's windows); not installed.
 *
 * A buffer of gst_tn_views_buffer has one memory of its own kind that
 * points at the bytes and holds the owner of those bytes (a reference the
 * caller gives, released with the release function when the buffer, or
 * its memory, dies).  When the last reference to the buffer goes, the
 * owner is released and the buffer, with its memory, returns to the
 * GstTnViews it came from instead of being freed: the next part costs no
 * allocation, no gst_memory_share (whose parent bookkeeping costs as much
 * as pushing the buffer) and no mini-object setup (docs/perf-notes.md,
 * "per-buffer costs").  A buffer someone changed (another memory
 * appended, its memory shared into another buffer) is freed as usual. */
#ifndef GST_TN_VIEWS_H
#define GST_TN_VIEWS_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstTnViews GstTnViews;

GstTnViews *gst_tn_views_new (void);
/* The owner is done with views: the spare buffers are freed now, buffers
 * still out are freed when they die. */
void gst_tn_views_close (GstTnViews *views);
/* A read-only buffer of len bytes at data, valid while owner lives;
 * takes owner, which release gets when the buffer is done with the
 * bytes.  No timestamps or flags; a layout meta (offset 0, the rank
 * strides) when rank > 0, else no meta.  The layout meta stays on the
 * buffer across reuse and is rewritten in place.  Called by one thread
 * at a time (the element's streaming thread). */
/* The taker's thread takes views' buffers until gst_tn_views_leave, so
 * buffers that die on it meanwhile (a sink downstream in the same thread
 * replacing its last buffer) go back without an atomic.  Between the
 * two, only this thread takes from views. */
void gst_tn_views_enter (GstTnViews *views);
/* Also gives back, in one subtraction per mapped input, the references
 * of the views of mapped inputs that died on this thread meanwhile. */
void gst_tn_views_leave (GstTnViews *views);
/* Whether the calling thread is views' taker between enter and leave
 * (an owner that counts references of its own can then give one back
 * without an atomic, as the mapped input does). */
gboolean gst_tn_views_here (GstTnViews *views);
GstBuffer *gst_tn_views_buffer (GstTnViews *views, guint8 *data, gsize len,
    gpointer owner, GDestroyNotify release, gint rank, const gint64 *strides);

/* The bytes of mem for reading, without gst_memory_map's lock and unlock
 * (two locked instructions and two calls per input), when its map is
 * its data pointer and cannot fail (system memory, the tensor
 * allocator's): what gst_memory_map would give, nothing to unmap; NULL
 * for any other memory (map it then).  Valid while the caller holds a
 * reference to the memory; after a gst_tn_views_new. */
const guint8 *gst_tn_memory_peek_read (GstMemory *mem);

/* A mapped input buffer as an owner of its bytes, shared by every view of
 * it: one map and one reference per input, however many parts. */
typedef struct _GstTnMappedInput GstTnMappedInput;

/* NULL when buf cannot be mapped for reading (buf stays the caller's);
 * else the record takes the caller's reference to buf (no reference of
 * its own: one locked add and subtraction fewer per input).  A buffer of
 * one memory whose map cannot fail (system memory, the tensor
 * allocator's) is mapped when a reader first maps a view of it, not
 * here: views that nobody reads (a queue, a sink that drops them) cost
 * no map and unmap, two locked instructions per input.  The record
 * comes from views and goes back to it (no allocation per input); called
 * by the thread that takes views' buffers. */
GstTnMappedInput *gst_tn_mapped_input_new (GstTnViews *views, GstBuffer *buf);
/* A view of bytes [off, off + len) of the input (a reference on it),
 * with the layout of gst_tn_views_buffer. */
GstBuffer *gst_tn_mapped_input_view (GstTnMappedInput *in, GstTnViews *views,
    gsize off, gsize len, gint rank, const gint64 *strides);
/* The caller's reference (gst_tn_mapped_input_new's) goes; views hold
 * their own.  Called by the thread that made it.  The input stays mapped
 * and referenced until its last view is gone and, when that view died
 * on the taker's thread between enter and leave, until leave. */
void gst_tn_mapped_input_unref (GstTnMappedInput *in);

G_END_DECLS

#endif
