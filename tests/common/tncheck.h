/* Helpers shared by the GstCheck suites. */
#ifndef TN_CHECK_H
#define TN_CHECK_H

#include <string.h>

#include <glib/gstdio.h>

#include <gst/check/gstcheck.h>

#include <gst/tensor/gsttensor.h>

#include "npyread.h"

/* The allocator doubles as a leak detector: after a test has dropped every
 * buffer and pool, no block may still be handed out.  Streaming threads drop
 * their last references (a pad, and through it what it held) just after a
 * state change to NULL returns, so join them first. */
static inline void
tn_check_no_outstanding (void)
{
  GstAllocator *alloc = gst_tn_allocator_get ();
  GstTnAllocatorStats s;

  gst_task_cleanup_all ();

  gst_tn_allocator_get_stats (alloc, &s);
  gst_object_unref (alloc);
  fail_unless_equals_int64 (s.outstanding, 0);
}

/* Path of a file in tests/data (g_free it). */
static inline gchar *
tn_test_data (const gchar *name)
{
  return npy_data_path (name);
}

/* The bytes of a file in tests/data (g_free them). */
static inline void
tn_load_data (const gchar *name, guint8 **data, gsize *len)
{
  gchar *path = tn_test_data (name);
  GError *err = NULL;

  fail_unless (g_file_get_contents (path, (gchar **) data, len, &err),
      "cannot read %s: %s", path, err ? err->message : "?");
  g_free (path);
}

/* Fixed tensor caps, untimed, as a string (g_free it). */
static inline gchar *
tn_tensor_caps (const gchar *type, const gchar *dims)
{
  return g_strdup_printf ("tensor/x-raw, type=(string)%s, dims=(int)%s, "
                          "dims-order=(string)row-major, "
                          "framerate=(fraction)0/1",
      type, dims);
}

/* The text of the next ERROR (or WARNING) message on bus, or NULL
 * (g_free it). */
static inline gchar *
tn_pop_text (GstBus *bus, GstMessageType type)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, type);
  GError *err = NULL;
  gchar *text;

  if (msg == NULL)
    return NULL;
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, NULL);
  else
    gst_message_parse_warning (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

/* A bus of its own for element e, to pop its messages from
 * (tn_pop_text); tn_bus_unwatch drops it. */
static inline GstBus *
tn_bus_watch (GstElement *e)
{
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (e, bus);
  return bus;
}

static inline void
tn_bus_unwatch (GstElement *e, GstBus *bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
}

/* The ERROR text of an element of factory, named name, whose property
 * prop is set from the text value (as gst-launch-1.0 sets it) and whose
 * state change to PAUSED must fail (g_free it). */
static inline gchar *
tn_start_error (const gchar *factory, const gchar *name, const gchar *prop,
    const gchar *value)
{
  GstElement *e = gst_element_factory_make (factory, name);
  GstBus *bus;
  gchar *text;

  fail_unless (e != NULL, "no element %s", factory);
  bus = tn_bus_watch (e);
  gst_util_set_object_arg (G_OBJECT (e), prop, value);
  fail_unless_equals_int (
      gst_element_set_state (e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  text = tn_pop_text (bus, GST_MESSAGE_ERROR);
  fail_unless (text != NULL, "%s %s=%s: no error", factory, prop, value);
  gst_element_set_state (e, GST_STATE_NULL);
  tn_bus_unwatch (e, bus);
  gst_object_unref (e);
  return text;
}

/* Address of the first byte of memory m: the same address downstream
 * means the bytes were passed on, not copied. */
static inline const guint8 *
tn_memory_address (GstMemory *m)
{
  GstMapInfo map;
  const guint8 *p;

  fail_unless (gst_memory_map (m, &map, GST_MAP_READ));
  p = map.data;
  gst_memory_unmap (m, &map);
  return p;
}

#define tn_assert_contains(text, needle)                                       \
  G_STMT_START                                                                 \
  {                                                                            \
    const gchar *tn_text_ = (text);                                            \
                                                                               \
    fail_unless (tn_text_ != NULL, "no text, expected '%s'", (needle));        \
    fail_unless (strstr (tn_text_, (needle)) != NULL, "'%s' lacks '%s'",       \
        tn_text_, (needle));                                                   \
  }                                                                            \
  G_STMT_END

/* Collects the WARNING messages of one debug category, a line each, from
 * tn_capture_warnings_start (category) to tn_capture_warnings_stop () (g_free
 * the text it returns).  Other threads may log meanwhile: a lock guards it. */
static inline GString **
tn_capture_text_ (void)
{
  static GString *text;

  return &text;
}

static inline GMutex *
tn_capture_lock_ (void)
{
  static GMutex lock;

  return &lock;
}

static inline void
tn_capture_log_ (GstDebugCategory *cat, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *msg,
    gpointer category)
{
  if (level != GST_LEVEL_WARNING
      || strcmp (gst_debug_category_get_name (cat), category) != 0)
    return;
  g_mutex_lock (tn_capture_lock_ ());
  g_string_append (*tn_capture_text_ (), gst_debug_message_get (msg));
  g_string_append_c (*tn_capture_text_ (), '\n');
  g_mutex_unlock (tn_capture_lock_ ());
}

static inline void
tn_capture_warnings_start (const gchar *category)
{
  *tn_capture_text_ () = g_string_new (NULL);
  gst_debug_set_threshold_for_name (category, GST_LEVEL_WARNING);
  gst_debug_add_log_function (
      tn_capture_log_, g_strdup (category), (GDestroyNotify) g_free);
}

static inline gchar *
tn_capture_warnings_stop (void)
{
  gst_debug_remove_log_function (tn_capture_log_);
  return g_string_free (*tn_capture_text_ (), FALSE);
}

/* The example launch lines of the SECTION block of elements/FILE, one
 * command a string, as a shell would see them: " * " dropped,
 * backslash-newlines joined (g_strfreev them). */
static inline gchar **
tn_doc_commands (const gchar *file)
{
  gchar *data = tn_test_data ("");
  gchar *path = g_build_filename (
      g_getenv ("GST_TENSOR_SRCDIR"), "elements", file, NULL);
  gchar *src, *sec, *end, **lines;
  GPtrArray *cmds = g_ptr_array_new ();
  GString *cmd = NULL;
  guint i;

  fail_unless (g_file_get_contents (path, &src, NULL, NULL), "no %s", path);
  sec = strstr (src, " * SECTION:element-");
  fail_unless (sec != NULL);
  end = strstr (sec, "*/");
  *end = '\0';
  lines = g_strsplit (sec, "\n", -1);
  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i];

    l += strncmp (l, " * ", 3) == 0 ? 3 : strncmp (l, " *", 2) == 0 ? 2 : 0;
    if (strcmp (l, "|[") == 0) {
      cmd = g_string_new (NULL);
    } else if (strcmp (l, "]|") == 0) {
      g_ptr_array_add (cmds, g_string_free (cmd, FALSE));
      cmd = NULL;
    } else if (cmd) {
      while (*l == ' ')
        l++;
      g_string_append (cmd, l);
      if (cmd->len && cmd->str[cmd->len - 1] == '\\')
        g_string_truncate (cmd, cmd->len - 1);
    }
  }
  fail_unless (cmd == NULL, "unclosed |[ in %s", path);
  g_ptr_array_add (cmds, NULL);
  g_strfreev (lines);
  g_free (src);
  g_free (path);
  g_free (data);
  return (gchar **) g_ptr_array_free (cmds, FALSE);
}

/* Back to cwd from the scratch folder dir a test worked in, which is
 * emptied and removed; frees both. */
static inline void
tn_tmp_dir_leave (gchar *dir, gchar *cwd)
{
  const gchar *name;
  GDir *gd;

  fail_unless (g_chdir (cwd) == 0);
  gd = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (gd)) != NULL) {
    gchar *f = g_build_filename (dir, name, NULL);

    g_unlink (f);
    g_free (f);
  }
  g_dir_close (gd);
  g_rmdir (dir);
  g_free (dir);
  g_free (cwd);
}

/* Plays p to EOS within secs seconds, failing the test on an ERROR (with
 * its text and what, the command) or a timeout, then sets it to NULL and
 * drops the reference. */
static inline void
tn_play_to_eos (GstElement *p, const gchar *what, guint secs)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (
      bus, secs * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s did not finish", what);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", what, err->message);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

#endif
