/* Cost per buffer of GStreamer's transports carrying a tensor stream,
 * against the same transport carrying raw video of the same bytes:
 *
 *   tcp  appsrc ! gdppay ! tcpserversink   ->  tcpclientsrc ! gdpdepay !
 * fakesink rtp  appsrc ! rtpgstpay ! udpsink      ->  udpsrc ! rtpgstdepay !
 * fakesink shm  appsrc ! gdppay ! shmsink         ->  shmsrc ! gdpdepay !
 * fakesink
 *
 * with caps tensor/x-raw uint8 <480, 640, 3> or video/x-raw RGB 640x480
 * (921,600 bytes a buffer either way), all on 127.0.0.1.  Sender and
 * receiver are two pipelines of this process.  One buffer is in flight at
 * a time: each is pushed when the one before has reached the receiver's
 * fakesink, so UDP never overruns the socket's buffer and the figure is
 * the whole trip of one buffer (payload, socket or shared memory,
 * depayload).  The median over RUNS rounds of BUFFERS buffers, tensor
 * and video rounds interleaved; the ratio is tensor time / video time
 * (goal: 1 within noise: the payloaders never look inside caps).
 * A buffer that has not arrived after a second counts as lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "bench.h"

#define RUNS 9
#define BUFFERS 40
#define FRAME (480 * 640 * 3)

static const gchar *const caps_of[2] = {
  "tensor/x-raw,type=uint8,dims=<480,640,3>,dims-order=row-major,"
  "framerate=30/1",
  "video/x-raw,format=RGB,width=640,height=480,framerate=30/1,"
  "pixel-aspect-ratio=1/1,interlace-mode=progressive",
};
/* rtp: rtpgstpay's default mtu, 1400 (about 660 packets a buffer, what a
 * 1500-byte Ethernet frame takes); rtp60k: mtu 60000 (16 packets, for
 * loopback or jumbo frames: IP fragments them on a real link). */
static const gchar *const kinds[] = { "tcp", "rtp", "rtp60k", "shm" };

typedef struct {
  GstElement *send, *recv, *src;
  GMutex lock;
  GCond cond;
  guint64 got, wrong_size;
} Link;

static GstPadProbeReturn
arrived (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Link *l = data;

  g_mutex_lock (&l->lock);
  if (gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)) == FRAME)
    l->got++;
  else
    l->wrong_size++;
  g_cond_broadcast (&l->cond);
  g_mutex_unlock (&l->lock);
  return GST_PAD_PROBE_OK;
}

static GstElement *
launch (const gchar *desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  if (p == NULL || err != NULL) {
    fprintf (stderr, "cannot build '%s': %s\n", desc, err ? err->message : "?");
    exit (1);
  }
  return p;
}

static guint
free_udp_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new (lo, 0), *bound;
  guint port;

  g_socket_bind (s, a, FALSE, NULL);
  bound = g_socket_get_local_address (s, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (a);
  g_object_unref (lo);
  g_socket_close (s, NULL);
  g_object_unref (s);
  return port;
}

static void
wait_for (GstElement *e, const gchar *prop)
{
  gint v = 0;

  for (gint i = 0; i < 500 && v <= 0; i++) {
    g_object_get (e, prop, &v, NULL);
    if (v <= 0)
      g_usleep (10000);
  }
  if (v <= 0) {
    fprintf (stderr, "%s never became positive\n", prop);
    exit (1);
  }
}

/* Sender and receiver of one transport for caps, both playing. */
static void
link_open (Link *l, const gchar *kind, const gchar *caps, const gchar *dir)
{
  gchar *head = g_strdup_printf (
      "appsrc name=in format=time is-live=false caps=%s ! ", caps);
  gchar *s, *r;
  GstElement *out;
  GstPad *pad;

  memset (l, 0, sizeof *l);
  g_mutex_init (&l->lock);
  g_cond_init (&l->cond);
  if (g_str_equal (kind, "tcp")) {
    GstElement *snk;
    gint port;

    s = g_strconcat (head,
        "gdppay ! tcpserversink name=snk host=127.0.0.1 port=0 sync=false",
        NULL);
    l->send = launch (s);
    gst_element_set_state (l->send, GST_STATE_PAUSED);
    snk = gst_bin_get_by_name (GST_BIN (l->send), "snk");
    wait_for (snk, "current-port");
    g_object_get (snk, "current-port", &port, NULL);
    r = g_strdup_printf ("tcpclientsrc host=127.0.0.1 port=%d ! gdpdepay "
                         "! fakesink name=out sync=false",
        port);
    l->recv = launch (r);
    gst_element_set_state (l->recv, GST_STATE_PLAYING);
    wait_for (snk, "num-handles");
    gst_object_unref (snk);
    gst_element_set_state (l->send, GST_STATE_PLAYING);
  } else if (g_str_has_prefix (kind, "rtp")) {
    guint port = free_udp_port ();

    r = g_strdup_printf (
        "udpsrc address=127.0.0.1 port=%u buffer-size=4194304 "
        "caps=application/x-rtp,media=application,clock-rate=90000,"
        "encoding-name=X-GST ! rtpgstdepay ! fakesink name=out sync=false",
        port);
    l->recv = launch (r);
    gst_element_set_state (l->recv, GST_STATE_PLAYING);
    s = g_strdup_printf (
        "%srtpgstpay ! udpsink host=127.0.0.1 port=%u sync=false", head, port);
    l->send = launch (s);
    gst_element_set_state (l->send, GST_STATE_PLAYING);
  } else {
    gchar *path = g_build_filename (dir, caps[0] == 't' ? "t" : "v", NULL);

    s = g_strdup_printf ("%sgdppay ! shmsink socket-path=%s "
                         "wait-for-connection=true sync=false",
        head, path);
    l->send = launch (s);
    gst_element_set_state (l->send, GST_STATE_PLAYING);
    for (gint i = 0; i < 500 && !g_file_test (path, G_FILE_TEST_EXISTS); i++)
      g_usleep (10000);
    r = g_strdup_printf ("shmsrc socket-path=%s is-live=true ! gdpdepay "
                         "! fakesink name=out sync=false",
        path);
    l->recv = launch (r);
    gst_element_set_state (l->recv, GST_STATE_PLAYING);
    g_free (path);
  }
  l->src = gst_bin_get_by_name (GST_BIN (l->send), "in");
  out = gst_bin_get_by_name (GST_BIN (l->recv), "out");
  pad = gst_element_get_static_pad (out, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, arrived, l, NULL);
  gst_object_unref (pad);
  gst_object_unref (out);
  g_free (s);
  g_free (r);
  g_free (head);
}

static void
link_close (Link *l)
{
  gst_element_set_state (l->send, GST_STATE_NULL);
  gst_element_set_state (l->recv, GST_STATE_NULL);
  gst_object_unref (l->src);
  gst_object_unref (l->send);
  gst_object_unref (l->recv);
  g_mutex_clear (&l->lock);
  g_cond_clear (&l->cond);
}

/* Seconds for n buffers, one in flight at a time; lost counts those that
 * did not arrive within a second. */
static double
link_run (Link *l, GstBuffer *frame, guint n, guint *lost)
{
  static GstClockTime pts;
  double t0 = bench_now ();

  for (guint i = 0; i < n; i++) {
    GstBuffer *b = gst_buffer_copy (frame); /* shares the memory */
    guint64 want;
    gint64 end = g_get_monotonic_time () + G_TIME_SPAN_SECOND;
    GstFlowReturn ret;

    GST_BUFFER_PTS (b) = pts;
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    pts += GST_SECOND / 30;
    g_mutex_lock (&l->lock);
    want = l->got + 1;
    g_mutex_unlock (&l->lock);
    g_signal_emit_by_name (l->src, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    if (ret != GST_FLOW_OK) {
      fprintf (stderr, "push-buffer: %s\n", gst_flow_get_name (ret));
      exit (1);
    }
    g_mutex_lock (&l->lock);
    while (l->got < want)
      if (!g_cond_wait_until (&l->cond, &l->lock, end)) {
        (*lost)++;
        break;
      }
    g_mutex_unlock (&l->lock);
  }
  return bench_now () - t0;
}

int
main (int argc, char **argv)
{
  gchar *dir = g_dir_make_tmp ("bench-transport-XXXXXX", NULL);
  GstAllocator *alloc;
  GstBuffer *frame;
  GstMapInfo map;

  gst_init (&argc, &argv);
  alloc = gst_allocator_find (NULL);
  frame = gst_buffer_new_allocate (alloc, FRAME, NULL);
  gst_object_unref (alloc);
  gst_buffer_map (frame, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < FRAME; i++)
    map.data[i] = (guint8) (i * 37 + 11);
  gst_buffer_unmap (frame, &map);

  printf ("bench_transport: us/buffer, one 921600-byte buffer in flight, "
          "median of %d interleaved rounds of %d buffers\n",
      RUNS, BUFFERS);
  printf ("%-10s %12s %12s %8s %6s\n", "transport", "tensor", "video", "ratio",
      "lost");
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
    Link links[2];
    double t[2][RUNS];
    guint lost = 0;

    if (argc > 1 && !g_str_equal (argv[1], kinds[k]))
      continue;
    for (guint c = 0; c < 2; c++) {
      link_open (&links[c], kinds[k], caps_of[c], dir);
      /* Warm up: the connection, the caps, the first allocations. */
      link_run (&links[c], frame, 5, &lost);
    }
    lost = 0;
    /* Tensor first in even rounds, video first in odd ones. */
    for (guint r = 0; r < RUNS; r++)
      for (guint j = 0; j < 2; j++) {
        guint c = (j + r) % 2;

        t[c][r] = link_run (&links[c], frame, BUFFERS, &lost) / BUFFERS * 1e6;
      }
    {
      double ratio = bench_ratio (t[0], t[1], RUNS);

      printf ("%-10s %12.1f %12.1f %8.2f %6u\n", kinds[k],
          bench_median (t[0], RUNS), bench_median (t[1], RUNS), ratio, lost);
    }
    for (guint c = 0; c < 2; c++) {
      if (links[c].wrong_size)
        fprintf (stderr, "%s: %" G_GUINT64_FORMAT " buffers of another size\n",
            kinds[k], links[c].wrong_size);
      link_close (&links[c]);
    }
  }
  g_rmdir (dir);
  g_free (dir);
  gst_buffer_unref (frame);
  return 0;
}
