/* NumPy .npy files: header parsing and writing (format 1.0, 2.0, 3.0), and
 * the one loader and saver of whole files as tn_arrays. */
#ifndef TN_NPY_H
#define TN_NPY_H

#include "api.h"

#include <stdbool.h>
#include <stddef.h>

#include "array.h"
#include "view.h"

typedef struct {
  int major, minor; /* format version */
  tn_dtype dtype;
  bool big_endian; /* items need a byte swap on this (LE) machine */
  bool fortran;    /* column-major: data is a strided view */
  int rank;
  int64_t dims[TN_MAX_RANK];
  size_t data_offset; /* bytes from the start of the file to the data */
  size_t data_size;   /* bytes of data the header promises */
} tn_npy;

/* Parses the magic and header from the first len bytes of a file.  Returns
 * 0 on success, 1 if more bytes are needed to read the header (and sets
 * *need to the total needed, and e to a sentence a caller at end of file
 * can report), -1 on a malformed header.  Never reads past buf[len - 1].
 * data_offset + data_size < 2^63; whether the data is all there is the
 * caller's check. */
TN_API int tn_npy_parse (
    tn_npy *h, const void *buf, size_t len, size_t *need, tn_err *e);
/* The view of the data (starting at data_offset) as the header describes
 * it: dense for C order, transposed strides for Fortran order. */
TN_API void tn_npy_view (const tn_npy *h, tn_view *v);
/* Byte-swaps n items of size itemsize in place. */
TN_API void tn_npy_swap (void *data, size_t itemsize, size_t n);

/* The bytes of a .npy array of dtype t (not bfloat16) and dims as its
 * header's bound counts them: extents of 0 count as 1, as NumPy's do (an
 * empty array must have representable strides).  UINT64_MAX past 2^63
 * bytes (or SIZE_MAX), the most a header takes. */
TN_API uint64_t tn_npy_bytes (tn_dtype t, const int64_t *dims, int rank);

/* Writes a version 1.0 header (2.0 if the header needs more than 65535
 * bytes) for a little-endian C-order array, padded so the data starts at a
 * multiple of 64.  Returns the header length, or 0 if cap is too small
 * (or for bfloat16, a rank outside 0..8, a negative extent or more than
 * 2^63 bytes).  bfloat16 has no NumPy type: callers store it widened to
 * float32. */
TN_API size_t tn_npy_header (
    char *buf, size_t cap, tn_dtype t, const int64_t *dims, int rank);

/* The one .npy loader: a whole file (format 1.0 to 3.0, either byte order,
 * C or Fortran order) into a dense native-order C-order array, which the
 * caller clears.  bfloat16 has no NumPy type, so a file never holds one.
 * Returns 0; -1 with e saying what is wrong and where (the path, and the
 * byte of the header or the count of data bytes); -2 when the file
 * cannot be opened at all, with errno saying why (a caller for which the
 * path was only one reading of its text can then say so).  On failure a
 * is left empty. */
TN_API int tn_array_load_npy (const char *path, tn_array *a, tn_err *e);
/* The same from the len bytes of a file already in memory; the messages
 * are the loader's without the path.  Bytes after the data are ignored. */
TN_API int tn_array_decode_npy (
    const void *buf, size_t len, tn_array *a, tn_err *e);
/* Writes a as a version 1.0 (or 2.0) little-endian C-order file that
 * NumPy reads back as it was; bfloat16 is written widened to float32, which
 * holds it exactly.  Returns 0, or -1 with e naming the path (a partly
 * written file is removed). */
TN_API int tn_array_save_npy (const char *path, const tn_array *a, tn_err *e);

#endif
