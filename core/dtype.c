#include "dtype.h"

#include <string.h>

#define NAME_ENTRY(e, name, ct, kind) [e] = #name,
#define SIZE_ENTRY(e, name, ct, kind) [e] = sizeof (ct),
#define KIND_ENTRY(e, name, ct, kind) [e] = kind,
#define LIST_ENTRY(e, name, ct, kind) ", " #name

static const char *const dtype_names[TN_NDTYPES]
    = { TN_FOREACH_DTYPE (NAME_ENTRY) };

static const size_t dtype_sizes[TN_NDTYPES] = { TN_FOREACH_DTYPE (SIZE_ENTRY) };

static const tn_kind dtype_kinds[TN_NDTYPES]
    = { TN_FOREACH_DTYPE (KIND_ENTRY) };

/* ", bool, int8, ..." : skip the leading ", " when printing. */
static const char dtype_list[] = TN_FOREACH_DTYPE (LIST_ENTRY);

int
tn_dtype_valid (int t)
{
  return t >= 0 && t < TN_NDTYPES;
}

const char *
tn_dtype_name (tn_dtype t)
{
  return tn_dtype_valid ((int) t) ? dtype_names[t] : NULL;
}

int
tn_dtype_from_name (const char *name, tn_dtype *out, tn_err *e)
{
  int i;

  if (name == NULL) {
    tn_err_set (e, "No dtype name was given; expected one of the %d names %s.",
        TN_NDTYPES, dtype_list + 2);
    return -1;
  }
  for (i = 0; i < TN_NDTYPES; i++) {
    if (strcmp (name, dtype_names[i]) == 0) {
      if (out)
        *out = (tn_dtype) i;
      return 0;
    }
  }
  /* The bad name is cut at 40 bytes so the list of valid ones still fits. */
  tn_err_set (e, "Unknown dtype \"%.40s\"%s: expected one of the %d names %s.",
      name, strlen (name) > 40 ? "..." : "", TN_NDTYPES, dtype_list + 2);
  return -1;
}

/* An invalid tag has size 0, which no caller can mistake for a real size. */
size_t
tn_dtype_size (tn_dtype t)
{
  return tn_dtype_valid ((int) t) ? dtype_sizes[t] : 0;
}

tn_kind
tn_dtype_kind (tn_dtype t)
{
  return tn_dtype_valid ((int) t) ? dtype_kinds[t] : TN_KIND_BOOL;
}
