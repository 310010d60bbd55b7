/* The export macro of libgsttensor-1.0.
 *
 * The library is built with hidden visibility: a function is part of the
 * ABI only if its declaration in an installed header carries
 * GST_TENSOR_API (tests/lib/symbols.py holds the library to that). */
#ifndef GST_TENSOR_PRELUDE_H
#define GST_TENSOR_PRELUDE_H

#include <gst/gst.h>

#ifdef BUILDING_GST_TENSOR
#define GST_TENSOR_API GST_API_EXPORT
#else
#define GST_TENSOR_API GST_API_IMPORT
#endif

#endif
