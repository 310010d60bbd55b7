/* tensorwindow's element struct, shared by tensorwindow.c (negotiation,
 * properties, events) and tensorwindow-buffer.c (the data path). */
#ifndef GST_TENSOR_WINDOW_H
#define GST_TENSOR_WINDOW_H

#include <gst/base/gstbasetransform.h>
#include <gst/tensor/gsttensor.h>

#include "tnring.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_tensor_window_debug);

#define GST_TYPE_TENSOR_WINDOW (gst_tensor_window_get_type ())
G_DECLARE_FINAL_TYPE (
    GstTensorWindow, gst_tensor_window, GST, TENSOR_WINDOW, GstBaseTransform)

/* A window that has started (its first item has come) and is not full. */
typedef struct {
  guint64 start; /* item of the joined stream */
  GstClockTime pts, duration;
} Pending;

/* The settings a stream runs with, copied from the properties at
 * set_caps so that the streaming thread needs no lock. */
typedef struct {
  gint axis, size, hop;
  gboolean stack, squeeze, pad_end;
} Settings;

struct _GstTensorWindow {
  GstBaseTransform parent;

  /* under the object lock */
  Settings props;
  guint64 bytes_copied; /* atomic loads and stores; streaming thread writes */

  /* streaming thread */
  Settings run;
  GstTnInfo in_info, out_info;
  gboolean have_info;
  gint k;          /* the window axis: of the input, or (stack) the
                    * output's new one */
  tn_view item;    /* one item, dense: the input without axis k */
  tn_view in_view; /* the input, dense */
  gsize in_nbytes;
  tn_view win_view;      /* a window held item after item, as output */
  gboolean win_dense;    /* win_view is dense: no meta, no copy */
  gsize isz, item_bytes; /* bytes of one item */
  gsize out_nbytes;
  guint64 total;      /* items received since the start or a flush */
  guint64 next_start; /* the first window start not yet come */
  /* The windows started and not full, oldest first: n_pending of them
   * from pend[pend_head] on, round an array of pend_cap (a power of two).
   * Inline, not a GstQueueArray: its calls (a push, two peeks and a pop
   * per window, and two more for out) were a tenth of our own
   * instructions per window (docs/perf-notes.md, "Session 12 H5"). */
  Pending *pend;
  guint pend_head, n_pending, pend_cap;
  GstTnRing *ring;            /* NULL until a window spans buffers */
  guint64 ring_from, ring_to; /* items held in the ring */
  gboolean downstream_meta;
  gboolean discont;
  gboolean items_contig; /* items [a, b) of a dense input are contiguous */
  guint64 uncounted;     /* bytes copied, not yet in bytes_copied */
  /* a window's duration, span, for num / den ns an item (span_den 0:
   * none yet; set up again by every set_caps) */
  guint64 span_num, span_den;
  GstClockTime span;
  /* windows made by submit_input_buffer, for generate_output: out[out_pos]
   * to out[n_out - 1] (an array, emptied by the chain that filled it
   * unless a push failed) */
  GstBuffer **out;
  guint out_pos, n_out, out_cap;
  GstTnViews *views;                /* the windows' buffers, recycled */
  GstPadChainFunction parent_chain; /* the base class's, which ours wraps */
  GstBufferPool *pool;
  GstCaps *refused;
};

/* The next window made for generate_output, NULL when none is left. */
static inline GstBuffer *
gst_tensor_window_pop_out (GstTensorWindow *self)
{
  if (self->out_pos == self->n_out) {
    self->out_pos = self->n_out = 0;
    return NULL;
  }
  return self->out[self->out_pos++];
}

/* The output view of a window of n items held item after item (the
 * window axis outermost, dense) from item 0 on. */
void gst_tensor_window_items_view (GstTensorWindow *self, gint64 n, tn_view *v);
/* Counts bytes copied (the streaming thread's tally, into bytes-copied
 * at the end of each input buffer and drain: one lock per input). */
void gst_tensor_window_count_copy (GstTensorWindow *self, gsize bytes);
/* One input buffer: the windows it completes go into self->out, and what
 * later windows need of it into the ring. */
GstFlowReturn gst_tensor_window_take (GstTensorWindow *self, GstBuffer *in);
/* The windows started and not full, at the end of the stream or before
 * caps that change the output: padded and pushed (pad-end) or dropped
 * with a warning naming why (the event). */
void gst_tensor_window_drain (GstTensorWindow *self, const gchar *why);
/* A flush, a new stream or a stop: nothing held, counts from 0. */
void gst_tensor_window_reset (GstTensorWindow *self);

G_END_DECLS

#endif
