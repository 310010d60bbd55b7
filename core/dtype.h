/* The 13 dtypes: tags with a name, an item size and a kind. */
#ifndef TN_DTYPE_H
#define TN_DTYPE_H

#include "api.h"

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define TN_MAX_RANK 8

typedef enum {
  TN_BOOL,
  TN_INT8,
  TN_UINT8,
  TN_INT16,
  TN_UINT16,
  TN_INT32,
  TN_UINT32,
  TN_INT64,
  TN_UINT64,
  TN_FLOAT16,
  TN_BFLOAT16,
  TN_FLOAT32,
  TN_FLOAT64,
  TN_NDTYPES
} tn_dtype;

typedef enum { TN_KIND_BOOL, TN_KIND_INT, TN_KIND_UINT, TN_KIND_FLOAT } tn_kind;

/* X(ENUM, name, storage C type, kind): the one list every per-dtype kernel
 * is generated from.  float16 and bfloat16 are stored as their bits. */
#define TN_FOREACH_DTYPE(X)                                                    \
  X (TN_BOOL, bool, uint8_t, TN_KIND_BOOL)                                     \
  X (TN_INT8, int8, int8_t, TN_KIND_INT)                                       \
  X (TN_UINT8, uint8, uint8_t, TN_KIND_UINT)                                   \
  X (TN_INT16, int16, int16_t, TN_KIND_INT)                                    \
  X (TN_UINT16, uint16, uint16_t, TN_KIND_UINT)                                \
  X (TN_INT32, int32, int32_t, TN_KIND_INT)                                    \
  X (TN_UINT32, uint32, uint32_t, TN_KIND_UINT)                                \
  X (TN_INT64, int64, int64_t, TN_KIND_INT)                                    \
  X (TN_UINT64, uint64, uint64_t, TN_KIND_UINT)                                \
  X (TN_FLOAT16, float16, uint16_t, TN_KIND_FLOAT)                             \
  X (TN_BFLOAT16, bfloat16, uint16_t, TN_KIND_FLOAT)                           \
  X (TN_FLOAT32, float32, float, TN_KIND_FLOAT)                                \
  X (TN_FLOAT64, float64, double, TN_KIND_FLOAT)

/* GStreamer's names ("float32", "uint8", ...); NULL for an invalid tag. */
TN_API const char *tn_dtype_name (tn_dtype t);
/* 0 and *out set when name is one of the 13 names, else -1 with a message
 * that lists the valid names. */
TN_API int tn_dtype_from_name (const char *name, tn_dtype *out, tn_err *e);
TN_API size_t tn_dtype_size (tn_dtype t);
TN_API tn_kind tn_dtype_kind (tn_dtype t);
TN_API int tn_dtype_valid (int t);

#endif
