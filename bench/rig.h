/* How the benchmarks drive GStreamer: a pipeline fed buffer by buffer
 * from a pad of the benchmark, its output taken by another (the
 * per-buffer rows time an element without a source or a sink of
 * GStreamer's in the measurement), and whole pipelines timed to EOS.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef BENCH_RIG_H
#define BENCH_RIG_H

#include <gst/gst.h>

enum {
  /* Keep the last buffer out for bench_rig_take (otherwise dropped). */
  BENCH_RIG_KEEP = 1 << 0,
  /* Our sink pad says it reads the layout meta (GstTnLayoutMeta): views
   * reach it as they are.  Without it, it is a consumer of dense bytes,
   * as filesink. */
  BENCH_RIG_META = 1 << 1,
};

typedef struct {
  GstElement *e; /* the element, or a bin of several with ghost pads */
  GstPad *src, *sink;
  GstBuffer *back; /* the last buffer out, with BENCH_RIG_KEEP */
  unsigned flags;
} BenchRig;

/* desc: one element with its properties as gst-launch writes them
 * ("tensorop ops=add:1 n-threads=2"), or several joined by '!'.  Exits
 * with a message when the element is missing or refuses caps. */
void bench_rig_start (
    BenchRig *r, const char *desc, const char *caps, unsigned flags);
/* Pushes buf (taken); exits if the flow is not OK. */
void bench_rig_push (BenchRig *r, GstBuffer *buf);
/* The last buffer out (yours), or NULL. */
GstBuffer *bench_rig_take (BenchRig *r);
void bench_rig_stop (BenchRig *r);

/* Seconds from PLAYING to EOS of a whole pipeline (a gst-launch
 * description), after it prerolled in PAUSED, so that negotiation, pool
 * set-up and preroll stay out of the time.  Exits on an error. */
double bench_pipeline_seconds (const char *desc);

#endif
