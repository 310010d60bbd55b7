/* Runs every file of a corpus directory through the fuzz entry point, so
 * the corpus is a regression test in builds without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
run_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  uint8_t *buf;
  long n;

  if (!f)
    return -1;
  if (fseek (f, 0, SEEK_END) != 0 || (n = ftell (f)) < 0
      || fseek (f, 0, SEEK_SET) != 0) {
    fclose (f);
    return -1;
  }
  /* an exact-size copy, so a read past the end is an ASan error */
  buf = malloc (n > 0 ? (size_t) n : 1);
  if (!buf || fread (buf, 1, (size_t) n, f) != (size_t) n) {
    free (buf);
    fclose (f);
    return -1;
  }
  fclose (f);
  LLVMFuzzerTestOneInput (buf, (size_t) n);
  free (buf);
  return 0;
}

int
main (int argc, char **argv)
{
  DIR *d;
  struct dirent *ent;
  struct stat st;
  char path[4096];
  unsigned ran = 0, failed = 0;

  if (argc != 2) {
    fprintf (stderr, "usage: %s CORPUS-DIR\n", argv[0]);
    return 2;
  }
  d = opendir (argv[1]);
  if (!d) {
    fprintf (stderr, "cannot open the corpus directory %s\n", argv[1]);
    return 1;
  }
  while ((ent = readdir (d)) != NULL) {
    if (ent->d_name[0] == '.')
      continue;
    snprintf (path, sizeof path, "%s/%s", argv[1], ent->d_name);
    if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
      continue;
    /* named first, so the input that crashes is the last one named */
    fprintf (stderr, "replay %s\n", path);
    if (run_file (path) < 0) {
      fprintf (stderr, "cannot read %s\n", path);
      failed++;
      continue;
    }
    ran++;
  }
  closedir (d);
  printf ("ran %u corpus inputs from %s\n", ran, argv[1]);
  if (ran == 0) {
    fprintf (stderr, "the corpus directory %s holds no inputs\n", argv[1]);
    return 1;
  }
  return failed ? 1 : 0;
}
