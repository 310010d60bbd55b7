/* gst-tensor public API: one include for applications. */
#ifndef GST_TENSOR_H
#define GST_TENSOR_H

#include "core/tn.h"
#include "tensorallocator.h"
#include "tensorbuffer.h"
#include "tensorcheck.h"
#include "tensorinfo.h"
#include "tensorinit.h"
#include "tensormedia.h"
#include "tensormeta.h"
#include "tensorpool.h"

#endif
