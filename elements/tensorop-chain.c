/* tensorop's chain properties: ops, or op and value, made into one
 * elementwise chain (core/ewise.h), or into the error that names the
 * property at fault.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "tensorop-chain.h"

void
gst_tensor_op_chain_clear (GstTensorOpChain *c)
{
  g_free (c->ops_set);
  g_free (c->op);
  g_free (c->value);
  g_free (c->ops);
  tn_ewise_chain_free (c->chain);
  g_free (c->bad_text);
  g_free (c->error);
  memset (c, 0, sizeof *c);
}

static void
gst_tensor_op_chain_fail (
    GstTensorOpChain *c, const gchar *prop, const gchar *text, gchar *error)
{
  c->bad_prop = prop;
  c->bad_text = g_strdup (text ? text : "");
  c->error = error;
}

/* ops and the shorthand op[:value] are two ways to say the same thing:
 * both set is a mistake to report, not a race that the property set last
 * wins. */
void
gst_tensor_op_chain_build (GstTensorOpChain *c)
{
  gboolean shorthand = c->op || (c->value && *c->value);
  tn_err e;

  if (c->ops_set && shorthand) {
    c->ops = g_strdup (c->ops_set);
    gst_tensor_op_chain_fail (c, "ops", c->ops_set,
        g_strdup_printf ("op=\"%s\" value=\"%s\" is set too; set either "
                         "ops or op and value",
            c->op ? c->op : "", c->value ? c->value : ""));
  } else if (c->ops_set) {
    c->ops = g_strdup (c->ops_set);
    if (tn_ewise_chain_parse (c->ops, &c->chain, &e) < 0)
      gst_tensor_op_chain_fail (c, "ops", c->ops, g_strdup (e.msg));
  } else if (!shorthand) {
    c->ops = g_strdup (GST_TENSOR_OP_DEFAULT_OPS);
    tn_ewise_chain_parse (c->ops, &c->chain, NULL);
  } else if (c->op == NULL) {
    c->ops = g_strdup ("");
    c->incomplete = TRUE;
    gst_tensor_op_chain_fail (c, "value", c->value,
        g_strdup ("op is not set; set op to the name of a step, or use ops"));
  } else if (!tn_ewise_step_known (c->op)) {
    c->ops = g_strdup ("");
    gst_tensor_op_chain_fail (c, "op", c->op,
        g_strdup_printf ("'%s' is not a step; the steps are %s", c->op,
            tn_ewise_step_names ()));
  } else {
    c->ops = c->value && *c->value ? g_strdup_printf ("%s:%s", c->op, c->value)
                                   : g_strdup (c->op);
    c->incomplete = c->value == NULL;
    if (tn_ewise_chain_parse (c->ops, &c->chain, &e) < 0)
      gst_tensor_op_chain_fail (c, c->value ? "value" : "op",
          c->value ? c->value : c->op,
          g_strdup_printf ("op=%s value=%s does not make a step: %s", c->op,
              c->value ? c->value : "(not set)", e.msg));
  }
}
