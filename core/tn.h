/* gst-tensor core: plain C11, no GStreamer, no GLib. */
#ifndef TN_H
#define TN_H

#include "array.h"
#include "cast.h"
#include "dtype.h"
#include "err.h"
#include "half.h"
#include "npy.h"
#include "shape.h"
#include "view.h"

#endif
