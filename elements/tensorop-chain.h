/* tensorop's three chain properties (ops, and the shorthand op and
 * value) turned into one elementwise chain, or into the error to report
 * against the property at fault.  No element state: tensorop.c keeps the
 * result under its object lock. */
#ifndef GST_TENSOR_OP_CHAIN_H
#define GST_TENSOR_OP_CHAIN_H

#include <gst/gst.h>

#include "core/ewise.h"

G_BEGIN_DECLS

/* The chain when none of the three properties is set. */
#define GST_TENSOR_OP_DEFAULT_OPS ""

/* What a set of the three chain properties makes. */
typedef struct {
  gchar *ops_set, *op, *value; /* as set */
  gchar *ops;                  /* the effective chain as text */
  tn_ewise_chain *chain;       /* NULL: error says why */
  const gchar *bad_prop;
  gchar *bad_text, *error;
  gboolean incomplete; /* a shorthand still waiting for op or value */
} GstTensorOpChain;

/* Builds the chain of c's settings (ops_set, op, value), outside the
 * object lock (parsing may read a .npy file): fills ops and chain, or
 * bad_prop, bad_text and error. */
void gst_tensor_op_chain_build (GstTensorOpChain *c);
/* Frees everything c holds and zeroes it. */
void gst_tensor_op_chain_clear (GstTensorOpChain *c);

G_END_DECLS

#endif
