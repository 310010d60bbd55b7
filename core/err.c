#include "err.h"

#include <stdarg.h>
#include <stdio.h>

void
tn_err_set (tn_err *e, const char *fmt, ...)
{
  va_list ap;

  if (!e)
    return;
  va_start (ap, fmt);
  vsnprintf (e->msg, sizeof e->msg, fmt, ap);
  va_end (ap);
}
