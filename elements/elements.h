/* Every element and typefinder of the plugin, for plugin.c. */
#ifndef GST_TENSOR_ELEMENTS_H
#define GST_TENSOR_ELEMENTS_H

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (tensorsrc);
GST_ELEMENT_REGISTER_DECLARE (tensordebug);
GST_ELEMENT_REGISTER_DECLARE (tensorop);
GST_ELEMENT_REGISTER_DECLARE (npydec);
GST_ELEMENT_REGISTER_DECLARE (npyenc);
GST_ELEMENT_REGISTER_DECLARE (tensormatmul);
GST_ELEMENT_REGISTER_DECLARE (tensorreduce);
GST_TYPE_FIND_REGISTER_DECLARE (npy);

G_END_DECLS

#endif
