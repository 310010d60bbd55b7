/* The tests' one .npy reader: the oracle that golden files are read with
 * and that core's loader (core/npy.c) is checked against.  It shares no
 * code with core/npy.c on purpose, so that a bug in the loader cannot hide
 * itself in the check.  It reads what NumPy writes (format 1.0 to 3.0,
 * either byte order, C or Fortran order) the plain way: the files are
 * ours, so any surprise in one is a failed test, not a message.  GLib
 * only, for the GLib and the GstCheck suites alike. */
#ifndef TN_NPYREAD_H
#define TN_NPYREAD_H

#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "core/dtype.h"

typedef struct {
  gchar *file;        /* the whole file */
  const guint8 *data; /* its items, as stored */
  gsize offset;       /* of data in file */
  gsize size;         /* bytes of items: count * itemsize */
  gchar descr[8];     /* as written: "<f4", "|b1", ... */
  tn_dtype dtype;     /* of descr; see npy_load for bfloat16 */
  gsize itemsize;
  gboolean big_endian, fortran;
  gint major; /* format version */
  gint rank;
  gint64 dims[TN_MAX_RANK];
  gint64 count;
} Npy;

/* descr (byte order aside) of each dtype NumPy has; bfloat16 has none. */
static const gchar *const npy_kinds[TN_NDTYPES] = { "b1", "i1", "u1", "i2",
  "u2", "i4", "u4", "i8", "u8", "f2", NULL, "f4", "f8" };

/* The text after "'key': " in the header dict. */
static inline const gchar *
npy_field (const gchar *dict, const gchar *key, const gchar *path)
{
  gchar *pat = g_strdup_printf ("'%s': ", key);
  const gchar *p = strstr (dict, pat);

  if (p == NULL)
    g_error ("%s: header %s has no %s", path, dict, pat);
  p += strlen (pat);
  g_free (pat);
  return p;
}

/* Reads the len bytes of a whole .npy file, which a takes (npy_clear
 * frees them); aborts the test with a sentence naming path (what the bytes
 * are) if they are not a complete .npy file. */
static inline void
npy_parse (Npy *a, gpointer file, gsize len, const gchar *path)
{
  const gchar *p;
  gchar *dict, *end;
  gsize start, hlen;
  gint t;

  memset (a, 0, sizeof *a);
  a->file = file;
  if (len < 12 || memcmp (a->file, "\x93NUMPY", 6) != 0)
    g_error ("%s is not a .npy file", path);
  a->major = (guint8) a->file[6];
  if (a->major < 1 || a->major > 3 || a->file[7] != 0)
    g_error ("%s: format %d.%d", path, a->major, a->file[7]);
  start = a->major == 1 ? 10 : 12;
  hlen = (guint8) a->file[8] | (gsize) (guint8) a->file[9] << 8;
  if (a->major > 1)
    hlen |= (gsize) (guint8) a->file[10] << 16
            | (gsize) (guint8) a->file[11] << 24;
  if (len < start + hlen)
    g_error ("%s: %" G_GSIZE_FORMAT " bytes, header says %" G_GSIZE_FORMAT,
        path, len, start + hlen);
  dict = g_strndup (a->file + start, hlen);

  p = npy_field (dict, "descr", path);
  if (sscanf (p, "'%7[^']'", a->descr) != 1)
    g_error ("%s: descr in %s", path, dict);
  for (t = 0; t < TN_NDTYPES; t++)
    if (npy_kinds[t] && strcmp (a->descr + 1, npy_kinds[t]) == 0)
      break;
  if (t == TN_NDTYPES || !strchr ("<>|", a->descr[0]))
    g_error ("%s: descr '%s' is none of ours", path, a->descr);
  a->dtype = (tn_dtype) t;
  a->itemsize = a->descr[2] - '0';
  a->big_endian = a->descr[0] == '>';

  p = npy_field (dict, "fortran_order", path);
  a->fortran = g_str_has_prefix (p, "True");
  if (!a->fortran && !g_str_has_prefix (p, "False"))
    g_error ("%s: fortran_order in %s", path, dict);

  p = npy_field (dict, "shape", path);
  if (*p++ != '(')
    g_error ("%s: shape in %s", path, dict);
  a->count = 1;
  while (*p != ')') {
    if (a->rank == TN_MAX_RANK)
      g_error ("%s: rank above %d in %s", path, TN_MAX_RANK, dict);
    a->dims[a->rank] = g_ascii_strtoll (p, &end, 10);
    if (end == p || a->dims[a->rank] < 0)
      g_error ("%s: shape in %s", path, dict);
    /* the wide test files have extents near 2^63 beside a 0 */
    a->count = a->count == 0 || a->dims[a->rank] == 0
                   ? 0
                   : a->count * a->dims[a->rank];
    a->rank++;
    for (p = end; *p == ',' || *p == ' ';)
      p++;
  }
  g_free (dict);

  a->size = (gsize) a->count * a->itemsize;
  a->offset = start + hlen;
  a->data = (const guint8 *) a->file + a->offset;
  if (len != start + hlen + a->size)
    g_error ("%s: %" G_GSIZE_FORMAT " bytes of data, expected %" G_GSIZE_FORMAT,
        path, len - start - hlen, a->size);
}

/* npy_parse of the file at path. */
static inline void
npy_read (Npy *a, const gchar *path)
{
  GError *err = NULL;
  gchar *file;
  gsize len;

  if (!g_file_get_contents (path, &file, &len, &err))
    g_error ("cannot read %s: %s", path, err->message);
  npy_parse (a, file, len, path);
}

/* The path of a file in tests/data (g_free it). */
static inline gchar *
npy_data_path (const gchar *name)
{
  const gchar *dir = g_getenv ("GST_TENSOR_TESTDATA");

  if (dir == NULL)
    g_error ("GST_TENSOR_TESTDATA is not set");
  return g_build_filename (dir, name, NULL);
}

/* As npy_read, a golden file of tests/data, which must be in C order and
 * little-endian (its items are then used as they are); FALSE if there is
 * none of that name.  tests/data stores bfloat16 as its uint16 bits
 * ('<u2') in files whose name says bfloat16; those read as TN_BFLOAT16
 * (descr stays as written). */
static inline gboolean
npy_try_load (Npy *a, const gchar *name)
{
  gchar *path = npy_data_path (name);

  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    memset (a, 0, sizeof *a);
    return FALSE;
  }
  npy_read (a, path);
  if (a->fortran || a->big_endian)
    g_error ("%s is %s: a golden file is C order, little-endian", path,
        a->fortran ? "in Fortran order" : "big-endian");
  g_free (path);
  if (strstr (name, "bfloat16") && a->dtype == TN_UINT16)
    a->dtype = TN_BFLOAT16;
  return TRUE;
}

static inline void
npy_load (Npy *a, const gchar *name)
{
  if (!npy_try_load (a, name))
    g_error ("no %s in GST_TENSOR_TESTDATA", name);
}

/* npy_load of a file whose element type must be descr (as written, such
 * as "<u2" for a bfloat16 file). */
static inline void
npy_load_descr (Npy *a, const gchar *name, const gchar *descr)
{
  npy_load (a, name);
  if (strcmp (a->descr, descr) != 0)
    g_error ("%s: descr '%s', expected '%s'", name, a->descr, descr);
}

static inline void
npy_clear (Npy *a)
{
  g_free (a->file);
  memset (a, 0, sizeof *a);
}

#endif
