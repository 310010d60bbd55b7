/* The benchmarks' pad rig (rig.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rig.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/tensor/gsttensor.h>

static GstFlowReturn
rig_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  BenchRig *r = gst_pad_get_element_private (pad);

  if (r->flags & BENCH_RIG_KEEP)
    gst_buffer_replace (&r->back, NULL), r->back = buf;
  else
    gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
rig_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  BenchRig *r = gst_pad_get_element_private (pad);

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    if (r->flags & BENCH_RIG_META)
      gst_query_add_allocation_meta (query, GST_TN_LAYOUT_META_API_TYPE, NULL);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
rig_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  gst_event_unref (event);
  return TRUE;
}

/* One element comes from gst_parse_launch as itself: no ghost pads
 * between the rig and it, whose cost would show in per-buffer rows. */
static GstElement *
rig_parse (const char *desc)
{
  GError *err = NULL;
  GstElement *e = strchr (desc, '!') != NULL
                      ? gst_parse_bin_from_description (desc, TRUE, &err)
                      : gst_parse_launch (desc, &err);

  if (e == NULL || err != NULL) {
    fprintf (stderr, "%s: %s (GST_PLUGIN_PATH=%s)\n", desc,
        err ? err->message : "no element", g_getenv ("GST_PLUGIN_PATH"));
    exit (1);
  }
  return e;
}

void
bench_rig_start (
    BenchRig *r, const char *desc, const char *caps_str, unsigned flags)
{
  GstPad *esink, *esrc;
  GstSegment seg;
  GstCaps *caps = gst_caps_from_string (caps_str);

  memset (r, 0, sizeof *r);
  r->flags = flags;
  r->e = rig_parse (desc);
  r->src = gst_pad_new ("src", GST_PAD_SRC);
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  gst_pad_set_element_private (r->sink, r);
  gst_pad_set_chain_function (r->sink, rig_chain);
  gst_pad_set_event_function (r->sink, rig_event);
  gst_pad_set_query_function (r->sink, rig_query);
  esink = gst_element_get_static_pad (r->e, "sink");
  esrc = gst_element_get_static_pad (r->e, "src");
  if (esink == NULL || esrc == NULL
      || gst_pad_link (r->src, esink) != GST_PAD_LINK_OK
      || gst_pad_link (esrc, r->sink) != GST_PAD_LINK_OK) {
    fprintf (stderr, "%s: cannot link its sink and src pads\n", desc);
    exit (1);
  }
  gst_object_unref (esink);
  gst_object_unref (esrc);
  gst_pad_set_active (r->src, TRUE);
  gst_pad_set_active (r->sink, TRUE);
  gst_element_set_state (r->e, GST_STATE_PLAYING);
  gst_pad_push_event (r->src, gst_event_new_stream_start ("bench"));
  if (caps == NULL || !gst_pad_push_event (r->src, gst_event_new_caps (caps))) {
    fprintf (stderr, "%s refused %s\n", desc, caps_str);
    exit (1);
  }
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (r->src, gst_event_new_segment (&seg));
}

void
bench_rig_push (BenchRig *r, GstBuffer *buf)
{
  GstFlowReturn ret = gst_pad_push (r->src, buf);

  if (ret != GST_FLOW_OK) {
    fprintf (stderr, "push failed: %s\n", gst_flow_get_name (ret));
    exit (1);
  }
}

GstBuffer *
bench_rig_take (BenchRig *r)
{
  GstBuffer *b = r->back;

  r->back = NULL;
  return b;
}

void
bench_rig_stop (BenchRig *r)
{
  gst_buffer_replace (&r->back, NULL);
  gst_element_set_state (r->e, GST_STATE_NULL);
  gst_pad_set_active (r->src, FALSE);
  gst_pad_set_active (r->sink, FALSE);
  gst_object_unref (r->src);
  gst_object_unref (r->sink);
  gst_object_unref (r->e);
}

double
bench_pipeline_seconds (const char *desc)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;
  double t0, t1;

  if (!pipe) {
    fprintf (stderr, "cannot build '%s': %s\n", desc, err->message);
    exit (1);
  }
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  t0 = bench_now ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = bench_now ();
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "'%s' failed: %s\n", desc, err->message);
    exit (1);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return t1 - t0;
}
