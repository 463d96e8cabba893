/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common/outfile.h and common/parse.h: the alias test, the write beside
 * the target and rename, and the strict parser of numbers and lists. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmodel/plots.h"
#include "common/outfile.h"
#include "common/parse.h"
#include "test_util.h"

static char dir[256];

static void path_of(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/%s", dir, name);
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static bool holds(const char *path, const char *text) {
  char buf[256] = {0};
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return n == strlen(text) && !memcmp(buf, text, n);
}

/* Files in the directory (no temporary file may be left behind). */
static int entries(void) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

static void test_parse(void) {
  int64_t v = 7;
  CHECK(cgm_parse_int("12", 1, 100, &v) && v == 12);
  CHECK(cgm_parse_int("-3", -5, 5, &v) && v == -3);
  CHECK(cgm_parse_int("9223372036854775807", 1, INT64_MAX, &v) && v == INT64_MAX);
  static const char *const bad[] = {"",
                                    " 1",
                                    "1 ",
                                    "+1",
                                    "1x",
                                    "0x10",
                                    "1.0",
                                    "-",
                                    "--1",
                                    "99999999999999999999",
                                    "9223372036854775808"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_MSG(!cgm_parse_int(bad[i], INT64_MIN, INT64_MAX, &v), "'%s' accepted", bad[i]);
  CHECK(!cgm_parse_int("101", 1, 100, &v)); /* out of range: refused, not clamped */
  CHECK(!cgm_parse_int("0", 1, 100, &v));
  double d;
  CHECK(cgm_parse_real("1e-3", 0, 1, &d) && d == 1e-3);
  CHECK(!cgm_parse_real(" 1e-3", 0, 1, &d) && !cgm_parse_real("1e-3 ", 0, 1, &d));
  CHECK(!cgm_parse_real("nan", -1e300, 1e300, &d) && !cgm_parse_real("1e999", 0, 1e308, &d));
  CHECK(!cgm_parse_real("2", 0, 1, &d));

  cgm_item it[4];
  char why[160];
  CHECK(cgm_parse_list("cpu,cuda:0,1", it, 4, why, sizeof why) == 3);
  CHECK(cgm_item_is(it[0], "cpu") && cgm_item_is(it[1], "cuda:0") && cgm_item_is(it[2], "1"));
  CHECK(!cgm_item_is(it[0], "cp") && !cgm_item_is(it[0], "cpux"));
  static const char *const badl[] = {"",    ",",  ",,", "a,",    ",a",       "a,,b",
                                     "a,a", " a", "a ", "a,b c", "a,b,c,d,e"};
  for (size_t i = 0; i < sizeof badl / sizeof badl[0]; i++)
    CHECK_MSG(cgm_parse_list(badl[i], it, 4, why, sizeof why) < 0 && why[0], "'%s' accepted",
              badl[i]);
  CHECK(cgm_parse_list("a,a", it, 4, why, sizeof why) < 0 && strstr(why, "'a' is given twice"));
}

static void test_aliases(void) {
  char a[512], b[512], l[512], h[512], dotted[600], missing[512];
  path_of(a, sizeof a, "a.txt");
  path_of(b, sizeof b, "b.txt");
  path_of(l, sizeof l, "link");
  path_of(h, sizeof h, "hard");
  path_of(missing, sizeof missing, "missing");
  put(a, "a");
  put(b, "b");
  CHECK(symlink(a, l) == 0);
  CHECK(link(a, h) == 0);
  snprintf(dotted, sizeof dotted, "%s/./sub/../a.txt", dir);
  char sub[512];
  path_of(sub, sizeof sub, "sub");
  CHECK(mkdir(sub, 0777) == 0);
  CHECK(cgm_path_aliases(a, a) && cgm_path_aliases(l, a) && cgm_path_aliases(a, l));
  CHECK(cgm_path_aliases(h, a) && cgm_path_aliases(dotted, a));
  CHECK(!cgm_path_aliases(a, b) && !cgm_path_aliases(a, missing) && !cgm_path_aliases(missing, a));
  char missing2[600];
  snprintf(missing2, sizeof missing2, "%s/sub/../missing", dir);
  CHECK(cgm_path_aliases(missing, missing2)); /* neither there yet: the same name */
  CHECK(!cgm_path_aliases(NULL, a) && !cgm_path_aliases(a, "") && !cgm_path_aliases("", ""));

  /* a picture writes FILE.png, FILE.gp and FILE-*.dat */
  char pic[512], gp[512], dat[512], other[600];
  path_of(pic, sizeof pic, "pic.png");
  path_of(gp, sizeof gp, "pic.gp");
  path_of(dat, sizeof dat, "pic-grid.dat");
  put(gp, "g");
  put(dat, "d");
  CHECK(cgm_plot_writes(pic, gp) && cgm_plot_writes(pic, dat) && !cgm_plot_writes(pic, a));
  snprintf(other, sizeof other, "%s/sub/pic.png", dir);
  CHECK(!cgm_plot_writes(other, gp) && !cgm_plot_writes(other, dat));
  /* every data file's name, a symbolic or a hard link to an input: the
   * input would be written (by device and inode, whatever the names) */
  static const char *const side[] = {"pic.gp",           "pic-grid.dat",      "pic-contour.dat",
                                     "pic-isolines.dat", "pic-isolabels.dat", "pic-marks.dat",
                                     "pic-samples.dat",  "pic-curves.dat",    "pic-fits.dat",
                                     "pic-solves.dat",   "pic-worst.dat"};
  unlink(gp);
  unlink(dat);
  for (size_t k = 0; k < sizeof side / sizeof *side; k++) {
    char lk[600];
    path_of(lk, sizeof lk, side[k]);
    CHECK_MSG(symlink(a, lk) == 0 && cgm_plot_writes(pic, a), "symbolic link %s", side[k]);
    unlink(lk);
    CHECK_MSG(link(a, lk) == 0 && cgm_plot_writes(pic, a), "hard link %s", side[k]);
    unlink(lk);
  }
  CHECK(!cgm_plot_writes(pic, a));
  unlink(l);
  unlink(h);
  unlink(b);
  unlink(gp);
  unlink(dat);
  rmdir(sub);
}

static void test_outfile(void) {
  char a[512];
  path_of(a, sizeof a, "a.txt");
  int n0 = entries();
  cgm_outfile o;
  cgm_error e = {0};
  /* a failed write leaves the old file as it was, and no temporary file */
  CHECK(cgm_outfile_open(&o, a, &e) == CGM_OK);
  fputs("half", cgm_outfile_stream(&o));
  CHECK(cgm_outfile_commit(&o, false, &e) == CGM_ERUNTIME);
  CHECK(holds(a, "a") && entries() == n0);
  /* a good one replaces it whole, keeping its mode */
  CHECK(chmod(a, 0640) == 0);
  CHECK(cgm_outfile_open(&o, a, &e) == CGM_OK);
  CHECK(entries() == n0 + 1); /* the temporary file beside it */
  fputs("new", cgm_outfile_stream(&o));
  CHECK(holds(a, "a")); /* not yet */
  CHECK(cgm_outfile_commit(&o, true, &e) == CGM_OK);
  struct stat sb;
  CHECK(holds(a, "new") && entries() == n0 && stat(a, &sb) == 0 && (sb.st_mode & 0777) == 0640);
  /* abort */
  CHECK(cgm_outfile_open(&o, a, &e) == CGM_OK);
  cgm_outfile_abort(&o);
  CHECK(holds(a, "new") && entries() == n0);
  /* through a symbolic link: the file it names is replaced, the link kept */
  char l[512];
  path_of(l, sizeof l, "link");
  CHECK(symlink(a, l) == 0);
  CHECK(cgm_outfile_open(&o, l, &e) == CGM_OK);
  fputs("via", cgm_outfile_stream(&o));
  CHECK(cgm_outfile_commit(&o, true, &e) == CGM_OK);
  CHECK(lstat(l, &sb) == 0 && S_ISLNK(sb.st_mode) && holds(a, "via"));
  /* a derived file replaces its name: a symbolic link, a hard link or a
   * FIFO there is replaced, the file it led to kept as it was */
  char h[512];
  path_of(h, sizeof h, "hard");
  CHECK(link(a, h) == 0);
  const char *name[3] = {l, h, h};
  for (int k = 0; k < 3; k++) {
    if (k == 2) CHECK(unlink(h) == 0 && mkfifo(h, 0600) == 0);
    CHECK(cgm_outfile_open_derived(&o, name[k], &e) == CGM_OK);
    fputs("own", cgm_outfile_stream(&o));
    CHECK(cgm_outfile_commit(&o, true, &e) == CGM_OK);
    CHECK_MSG(lstat(name[k], &sb) == 0 && S_ISREG(sb.st_mode) && holds(name[k], "own") &&
                  holds(a, "via"),
              "derived file over %s",
              k == 0   ? "a symbolic link"
              : k == 1 ? "a hard link"
                       : "a FIFO");
  }
  CHECK(stat(a, &sb) == 0 && sb.st_nlink == 1);
  unlink(h);
  unlink(l);
  /* a missing directory: input error naming the path */
  char nodir[600];
  snprintf(nodir, sizeof nodir, "%s/nodir/x", dir);
  CHECK(cgm_outfile_open(&o, nodir, &e) == CGM_EINPUT && strstr(e.msg, nodir) &&
        strstr(e.msg, "cannot create"));
  CHECK(cgm_outfile_open(&o, dir, &e) == CGM_EINPUT); /* a directory */
  /* a device is written in place and never removed */
  if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
    CHECK(cgm_outfile_open(&o, "/dev/full", &e) == CGM_OK);
    fputs("x", cgm_outfile_stream(&o));
    CHECK(cgm_outfile_commit(&o, true, &e) == CGM_ERUNTIME && strstr(e.msg, "/dev/full"));
    CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
  }
  unlink(a);
}

/* mkdir -p: every missing directory made (doubled and trailing slashes
 * too), an existing one fine, a file in the way ENOTDIR with its path. */
static void test_mkdirs(void) {
  char p[512], at[512] = "", f[512], d[3][512];
  struct stat sb;
  path_of(p, sizeof p, "m/a//b/");
  CHECK(cgm_mkdirs(p, 0755, at, sizeof at) == 0 && !at[0]);
  path_of(d[0], sizeof d[0], "m/a/b"), path_of(d[1], sizeof d[1], "m/a");
  path_of(d[2], sizeof d[2], "m");
  CHECK(stat(d[0], &sb) == 0 && S_ISDIR(sb.st_mode));
  CHECK(cgm_mkdirs(d[0], 0755, NULL, 0) == 0); /* already there */
  path_of(f, sizeof f, "m/a/file");
  put(f, "x");
  path_of(p, sizeof p, "m/a/file/c/d");
  CHECK_MSG(cgm_mkdirs(p, 0755, at, sizeof at) == ENOTDIR && !strcmp(at, f), "at %s", at);
  CHECK(cgm_mkdirs(f, 0755, NULL, 0) == ENOTDIR && holds(f, "x"));
  CHECK(unlink(f) == 0);
  for (int i = 0; i < 3; i++) CHECK(rmdir(d[i]) == 0);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/cgm_test_outfile_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_parse();
  test_aliases();
  test_outfile();
  test_mkdirs();
  rmdir(dir);
  return cgm_test_failures;
}
