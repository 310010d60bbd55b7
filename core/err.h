/* Error reporting for core/: a sentence with the numbers in it. */
#ifndef TN_ERR_H
#define TN_ERR_H

#include "api.h"

/* Every fallible core function takes a tn_err * (may be NULL) and returns
 * 0 on success, -1 on failure with e->msg set to a full sentence. */
typedef struct {
  char msg[256];
} tn_err;

TN_API void tn_err_set (tn_err *e, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif
