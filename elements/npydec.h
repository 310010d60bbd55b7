/* npydec's parts: the decoder (npydec.c) and its seeking and queries
 * with split=true (npydec-seek.c). */
#ifndef GST_NPY_DEC_H
#define GST_NPY_DEC_H

#include <gst/base/gstadapter.h>
#include <gst/gst.h>
#include <gst/tensor/gsttensor.h>

#include "core/npy.h"
#include "elements.h"
#include "tnelement.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_npy_dec_debug);

#define GST_TYPE_NPY_DEC (gst_npy_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstNpyDec, gst_npy_dec, GST, NPY_DEC, GstElement)

struct _GstNpyDec {
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;
  GstAdapter *adapter;

  /* properties, under the object lock */
  gint fps_n;
  gint fps_d;
  gboolean split;

  /* streaming state, reset per stream */
  gsize need; /* bytes the header parser asked for */
  gboolean have_header;
  tn_npy hdr;
  gboolean failed;       /* an error was posted: drop the rest */
  gboolean need_segment; /* before the next buffer */
  guint64 arrays;        /* arrays emitted so far in this stream */
  guint64 index;         /* buffers emitted so far: offset and PTS */
  guint64 array_start;   /* stream byte where the current array starts */
  /* whether downstream reads the layout meta, asked once per caps */
  gboolean meta_known;
  gboolean meta;

  /* seeking (npydec-seek.c), split=true only */
  guint64 first_n;     /* axis 0 of the stream's first array */
  guint64 first_bytes; /* its header and data: a file holding just it */
  gboolean have_first;
  guint64 skip_to;  /* buffers before this index are not pushed */
  gint64 stop_at;   /* at this index the stream ends; -1: never */
  gboolean stopped; /* it ended there: EOS is clean */
  gboolean discont; /* on the next buffer pushed */
  guint32 seqnum;   /* of the seek, for its segment; 0: none */
  /* a seek sent upstream, applied at its FLUSH_STOP; object lock */
  gboolean pending;
  guint64 pending_start;
  gint64 pending_stop;
  guint32 pending_seqnum;
};

/* npydec.c */
void gst_npy_dec_stamp (GstBuffer *buf, guint64 index, gint fps_n, gint fps_d);

/* npydec-seek.c */
gboolean gst_npy_dec_src_event (
    GstPad *pad, GstObject *parent, GstEvent *event);
gboolean gst_npy_dec_src_query (
    GstPad *pad, GstObject *parent, GstQuery *query);
/* At FLUSH_STOP, after the reset: the seek that caused it, if any. */
void gst_npy_dec_seek_flushed (GstNpyDec *self);
/* The segment before the first buffer (of the stream or after a seek). */
void gst_npy_dec_push_segment (GstNpyDec *self);

G_END_DECLS

#endif
