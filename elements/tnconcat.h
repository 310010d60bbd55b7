/* What tensorstack and tensorconcat share: GstTnConcat, the abstract
 * GstTnAggregator of NumPy's np.stack and np.concatenate, with their
 * negotiation rules, the axis property and the copy of each input into
 * its slab of the output.  The two elements are final subclasses that
 * only say which one they are.  Not installed. */
#ifndef GST_TN_CONCAT_H
#define GST_TN_CONCAT_H

#include "tnagg.h"

G_BEGIN_DECLS

#define GST_TYPE_TN_CONCAT (gst_tn_concat_get_type ())
G_DECLARE_DERIVABLE_TYPE (
    GstTnConcat, gst_tn_concat, GST, TN_CONCAT, GstTnAggregator)

struct _GstTnConcatClass {
  GstTnAggregatorClass parent_class;

  /* TRUE: np.stack (equal dims, a new axis); FALSE: np.concatenate
   * (equal dims but along the axis).  Set in class_init. */
  gboolean new_axis;
};

/* For class_init: installs the property "axis" (an int, default 0,
 * negative counting from the end; settable in NULL and READY) with the
 * subclass's blurb.  A value outside [-8, 7] is an element error when the
 * element starts, one that does not fit the inputs' rank a negotiation
 * error. */
void gst_tn_concat_class_install_axis (
    GstTnConcatClass *klass, const gchar *blurb);

G_END_DECLS

#endif
