/* GStreamer tensor plugin: typefinder for NumPy .npy files.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "elements.h"

static GstStaticCaps npy_caps = GST_STATIC_CAPS ("application/x-npy");

/* The static caps keep their own reference for the life of the process;
 * registration takes none, so hand over a borrowed pointer. */
static GstCaps *
npy_type_find_caps (void)
{
  GstCaps *caps = gst_static_caps_get (&npy_caps);

  gst_caps_unref (caps);
  return caps;
}

/* "\x93NUMPY" then the major version byte: 1, 2 and 3 exist. */
static void
npy_type_find (GstTypeFind *tf, gpointer user_data)
{
  const guint8 *data = gst_type_find_peek (tf, 0, 8);

  if (data == NULL || memcmp (data, "\x93NUMPY", 6) != 0)
    return;
  if (data[6] < 1 || data[6] > 3)
    return;
  gst_type_find_suggest (tf, GST_TYPE_FIND_MAXIMUM, npy_type_find_caps ());
}

GST_TYPE_FIND_REGISTER_DEFINE (npy, "application/x-npy", GST_RANK_PRIMARY,
    npy_type_find, "npy", npy_type_find_caps (), NULL, NULL);
