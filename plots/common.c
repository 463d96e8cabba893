/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plots' plumbing (plot_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmodel/status.h"
#include "common/outfile.h"
#include "plots/plot_internal.h"

cgm_status cgm_plot_format_of(const char *path, cgm_plot_format *fmt, cgm_error *err) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  const char *dot = path ? strrchr(slash ? slash : path, '.') : NULL;
  if (dot && !strcasecmp(dot, ".png"))
    *fmt = CGM_PLOT_PNG;
  else if (dot && !strcasecmp(dot, ".svg"))
    *fmt = CGM_PLOT_SVG;
  else
    return cgm_fail(err, CGM_EINPUT, "-o %s: the picture must end in .png or .svg",
                    path && *path ? path : "''");
  if (dot == path || dot[-1] == '/')
    return cgm_fail(err, CGM_EINPUT, "-o %s: the picture needs a name before its extension", path);
  return CGM_OK;
}

/* Every data file a picture may have beside it, FILE-<name>.dat: the list
 * cgm_plot_writes checks and plot_data_open accepts. */
static const char *const data_names[] = {"grid",    "contour", "isolines", "isolabels", "marks",
                                         "samples", "curves",  "fits",     "solves",    "worst"};
enum { NDATA = sizeof data_names / sizeof *data_names };

bool cgm_plot_writes(const char *out, const char *path) {
  if (!out || !path || !*out || !*path) return false;
  if (cgm_path_aliases(out, path)) return true;
  const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
  if (!dot || (slash && dot < slash)) return false; /* no picture name: nothing beside it */
  for (int k = -1; k < NDATA; k++) {                /* FILE.gp, then FILE-<name>.dat */
    char cand[1200];
    int n = snprintf(cand, sizeof cand, "%.*s%s%s%s", (int)(dot - out), out, k < 0 ? ".gp" : "-",
                     k < 0 ? "" : data_names[k], k < 0 ? "" : ".dat");
    if (n < 0 || (size_t)n >= sizeof cand || cgm_path_aliases(cand, path)) return true;
  }
  return false;
}

/* The first DIR/name of a ':'-separated list of directories that is a regular file, readable, or
 * executable with `exec` (then an empty entry is the current directory, $PATH's rule). */
static bool search(const char *dirs, const char *name, bool exec, char *out, size_t size) {
  for (const char *s = dirs ? dirs : "";;) {
    const char *e = strchr(s, ':');
    const int n = (int)(e ? (size_t)(e - s) : strlen(s));
    struct stat sb;
    if ((n > 0 || exec) &&
        snprintf(out, size, "%.*s/%s", n ? (n < 900 ? n : 900) : 1, n ? s : ".", name) > 0 &&
        !stat(out, &sb) && S_ISREG(sb.st_mode) && !access(out, exec ? X_OK : R_OK))
      return true;
    if (!e) return false;
    s = e + 1;
  }
}

cgm_status cgm_plot_find_gnuplot(const char *search_path, char *path, size_t size, cgm_error *err) {
  if (search(search_path && *search_path ? search_path : "/usr/bin:/bin", "gnuplot", true, path,
             size))
    return CGM_OK;
  return cgm_fail(
      err, CGM_ERUNTIME,
      "gnuplot is not installed (not found on PATH): the pictures are drawn by gnuplot; "
      "install it (Debian/Ubuntu: apt-get install gnuplot-nox, or scripts/deps.sh)");
}

void plot_note(cgm_plot_files *files, const char *fmt, ...) {
  size_t l = strlen(files->note);
  if (l + 3 >= sizeof files->note) return;
  if (l) {
    snprintf(files->note + l, sizeof files->note - l, "; ");
    l += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(files->note + l, sizeof files->note - l, fmt, ap);
  va_end(ap);
}

cgm_status plot_begin(plot_job *j, const cgm_plot_opts *o, const char *name, cgm_plot_files *files,
                      cgm_error *err) {
  memset(j, 0, sizeof *j);
  memset(files, 0, sizeof *files);
  j->files = files;
  if (!o || !o->out || !*o->out)
    return cgm_fail(err, CGM_EINPUT, "no output picture (-o FILE.png|FILE.svg)");
  if (strlen(o->out) >= 900) return cgm_fail(err, CGM_EINPUT, "-o: the path is too long");
  cgm_status st = cgm_plot_format_of(o->out, &j->fmt, err);
  if (st) return st;
  j->width = o->width > 0 ? o->width : CGM_PLOT_WIDTH;
  j->height = o->height > 0 ? o->height : CGM_PLOT_HEIGHT;
  if (j->width < 200 || j->height < 150 || j->width > 20000 || j->height > 20000)
    return cgm_fail(err, CGM_EINPUT, "picture size %dx%d: width 200..20000, height 150..20000",
                    j->width, j->height);
  if ((st = cgm_plot_find_gnuplot(o->search_path, j->gnuplot, sizeof j->gnuplot, err))) return st;
  if (!search(o->scripts_dir, name, false, j->tmpl, sizeof j->tmpl))
    return cgm_fail(err, CGM_ERUNTIME,
                    "the gnuplot script %s was not found in %s (set CGMODEL_PLOTS_DIR to the "
                    "directory holding cgmodel's plots/*.gp)",
                    name, o->scripts_dir && *o->scripts_dir ? o->scripts_dir : "(no directory)");
  if (cgm_plot_writes(o->out, j->tmpl))
    return cgm_fail(err, CGM_EINPUT,
                    "-o %s would overwrite the gnuplot template %s (the picture, its script or a "
                    "data file is the same file): choose another output file",
                    o->out, j->tmpl);
  snprintf(j->picture, sizeof j->picture, "%s", o->out);
  const char *slash = strrchr(o->out, '/');
  if (slash)
    snprintf(j->dir, sizeof j->dir, "%.*s", (int)(slash - o->out == 0 ? 1 : slash - o->out),
             o->out);
  else
    snprintf(j->dir, sizeof j->dir, ".");
  const char *b = slash ? slash + 1 : o->out;
  const char *dot = strrchr(b, '.');
  snprintf(j->base, sizeof j->base, "%.*s", (int)(dot - b), b);
  struct stat sb;
  if (stat(j->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return cgm_fail(err, CGM_EINPUT, "-o %s: the directory %s does not exist", o->out, j->dir);
  snprintf(files->picture, sizeof files->picture, "%s", o->out);
  return CGM_OK;
}

static void full_path(const plot_job *j, const char *rel, char *out, size_t n) {
  const bool here = !strcmp(j->dir, ".") && j->picture[0] != '.';
  const int k = snprintf(out, n, "%s%s%s", here ? "" : j->dir, here ? "" : "/", rel);
  if (k < 0 || (size_t)k >= n) out[0] = 0; /* cannot happen: plot_begin limits the path */
}

/* A file of the job (the data and the script) opened beside its name. */
static cgm_status job_open(plot_job *j, const char *full, FILE **f, cgm_error *err) {
  *f = NULL;
  if (j->nout == PLOT_MAX_FILES) return cgm_fail(err, CGM_ERUNTIME, "%s: too many files", full);
  cgm_outfile *o = &j->out[j->nout];
  cgm_status st = cgm_outfile_open_derived(o, full, err);
  if (st) return st;
  j->nout++;
  if (!(*f = cgm_outfile_stream(o))) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory", full);
  return CGM_OK;
}

cgm_status plot_data_open(plot_job *j, const char *what, FILE **f, cgm_error *err) {
  int k = 0;
  while (k < NDATA && strcmp(data_names[k], what)) k++;
  if (k == NDATA) /* a name cgm_plot_writes would not check */
    return cgm_fail(err, CGM_ERUNTIME, "internal: FILE-%s.dat is not a known data file", what);
  char rel[600], full[1024];
  snprintf(rel, sizeof rel, "%s-%s.dat", j->base, what);
  full_path(j, rel, full, sizeof full);
  cgm_status st = job_open(j, full, f, err);
  cgm_plot_files *fs = j->files;
  if (!st && fs->ndata < (int)(sizeof fs->data / sizeof fs->data[0]))
    snprintf(fs->data[fs->ndata++], sizeof fs->data[0], "%s", full);
  return st;
}

void plot_data_var(FILE *gp, const plot_job *j, const char *what, bool present) {
  char rel[600] = "";
  if (present) snprintf(rel, sizeof rel, "%s-%s.dat", j->base, what);
  gp_var(gp, what, rel);
}

cgm_status plot_file_close(plot_job *j, FILE *f, cgm_error *err) {
  for (int k = 0; k < j->nout; k++)
    if (j->out[k].stream == f && j->out[k].path) return cgm_outfile_commit(&j->out[k], true, err);
  return cgm_fail(err, CGM_ERUNTIME, "internal: closing a file the plot did not open");
}

void plot_end(plot_job *j) {
  for (int k = 0; k < j->nout; k++)
    if (j->out[k].path) cgm_outfile_abort(&j->out[k]);
  j->nout = 0;
}

void gp_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if (*s == '\n') {
      fputs("\\n", f);
      continue;
    }
    fputc(*s, f);
  }
  fputc('"', f);
}

void gp_var(FILE *f, const char *name, const char *value) {
  fprintf(f, "%s = ", name);
  gp_string(f, value);
  fputc('\n', f);
}

void gp_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.9g", v);
  else
    fputs("NaN", f);
}

int plot_font_size(const plot_job *j) {
  /* Font sizes scale with the picture (10 pt at 1200 x 800). */
  const int h = j->font_height > 0 ? j->font_height : j->height;
  int fs = (int)(10.0 * sqrt((double)j->width * h / (1200.0 * 800.0)) + 0.5);
  return fs < 7 ? 7 : fs > 40 ? 40 : fs;
}

cgm_status plot_script_open(plot_job *j, const char *what, FILE **gp, cgm_error *err) {
  char rel[600];
  snprintf(rel, sizeof rel, "%s.gp", j->base);
  full_path(j, rel, j->files->script, sizeof j->files->script);
  cgm_status st = job_open(j, j->files->script, gp, err);
  if (st) return st;
  FILE *f = *gp;
  fprintf(f, "# %s, drawn by cgmodel %s. Draw it again (edit freely) with:\n", what, cgm_version());
  fprintf(f, "#   cd <the directory of this file> && gnuplot %s.gp\n", j->base);
  fprintf(f, "# The data files are next to the picture; the part after the variables is the\n");
  fprintf(f, "# template plots/%s of cgmodel.\n", strrchr(j->tmpl, '/') + 1);
  fprintf(f, "set encoding utf8\n");
  fprintf(f, "width = %d\nheight = %d\n", j->width, j->height);
  /* pngcairo draws a point as 4/3 pixels, svg as one: the same picture needs
   * 4/3 larger numbers in svg. */
  const int fs0 = plot_font_size(j);
  const int fs = j->fmt == CGM_PLOT_SVG ? (int)(fs0 * 4.0 / 3.0 + 0.5) : fs0;
  const int d = j->fmt == CGM_PLOT_SVG ? 3 : 2, d1 = 1;
  fprintf(f, "fs = %d\n", fs);
  /* Font macros for the templates (font options take no expressions): @Fm2 .. @Fp2, @Fb. */
  fprintf(f,
          "Fm2 = \"',%d'\"; Fm1 = \"',%d'\"; F0 = \"',%d'\"; Fp1 = \"',%d'\"; Fp2 = \"',%d'\"; "
          "Fb = \"',%d:Bold'\"\n",
          fs - d, fs - d1, fs, fs + d1, fs + d, fs);
  fprintf(f, "set terminal %s size %d,%d enhanced font 'Sans,%d' background rgb 'white'\n",
          j->fmt == CGM_PLOT_SVG ? "svg" : "pngcairo", j->width, j->height, fs);
  /* the picture's own name, its extension's case kept (FILE.PNG too); cgmodel
   * itself gives gnuplot a temporary name (-e), renamed over the picture */
  const char *slash = strrchr(j->picture, '/');
  fprintf(f, "if (!exists(\"out\")) ");
  gp_var(f, "out", slash ? slash + 1 : j->picture);
  fprintf(f, "set output out\n");
  return CGM_OK;
}

cgm_status plot_script_finish(plot_job *j, FILE *f, cgm_error *err) {
  FILE *t = fopen(j->tmpl, "r");
  if (!t) return cgm_fail(err, CGM_ERUNTIME, "cannot read %s: %s", j->tmpl, strerror(errno));
  fprintf(f, "\n# ---------------------------------------------------------------- template ---\n");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, t)) > 0) fwrite(buf, 1, n, f);
  fclose(t);
  fprintf(f, "\nset output\n");
  return plot_file_close(j, f, err);
}

/* Runs gnuplot on FILE.gp, `setout` (-e) naming the temporary picture `tmp`. */
static cgm_status gnuplot(plot_job *j, char *setout, const char *tmp, cgm_error *err) {
  char script[600];
  snprintf(script, sizeof script, "%s.gp", j->base);
  int pfd[2];
  if (pipe(pfd) != 0) return cgm_fail(err, CGM_ERUNTIME, "pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(pfd[0]);
    close(pfd[1]);
    return cgm_fail(err, CGM_ERUNTIME, "cannot start gnuplot: %s", strerror(errno));
  }
  if (pid == 0) { /* child: only async-signal-safe calls */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
    dup2(pfd[1], 2);
    close(pfd[0]);
    if (chdir(j->dir) != 0) _exit(126);
    char *argv[] = {"gnuplot", "-e", setout, script, NULL};
    execv(j->gnuplot, argv);
    _exit(127);
  }
  close(pfd[1]);
  /* gnuplot's messages: keep the last ones for the error. */
  char msg[4096];
  size_t len = 0;
  for (ssize_t n; (n = read(pfd[0], msg + len, sizeof msg - 1 - len)) != 0;) {
    if (n < 0 && errno != EINTR) break;
    len += n > 0 ? (size_t)n : 0;
    if (len > sizeof msg - 1024) { /* full: keep the last kilobyte */
      memmove(msg, msg + len - 1024, 1024);
      len = 1024;
    }
  }
  msg[len] = 0;
  close(pfd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return cgm_fail(err, CGM_ERUNTIME, "waiting for gnuplot: %s", strerror(errno));
  while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' ')) msg[--len] = 0;
  const char *tail = len > 400 ? msg + len - 400 : msg;
  if (!WIFEXITED(status))
    return cgm_fail(err, CGM_ERUNTIME, "gnuplot was killed (signal %d) drawing %s",
                    WTERMSIG(status), j->picture);
  if (WEXITSTATUS(status) == 127)
    return cgm_fail(err, CGM_ERUNTIME, "cannot run %s (gnuplot)", j->gnuplot);
  if (WEXITSTATUS(status) == 126)
    return cgm_fail(err, CGM_ERUNTIME, "cannot enter %s to run gnuplot", j->dir);
  if (WEXITSTATUS(status) != 0)
    return cgm_fail(err, CGM_ERUNTIME, "gnuplot failed (exit %d) on %s: %s", WEXITSTATUS(status),
                    j->files->script, *tail ? tail : "no message");
  struct stat sb;
  if (stat(tmp, &sb) != 0 || sb.st_size == 0)
    return cgm_fail(err, CGM_ERUNTIME, "gnuplot wrote no picture %s%s%s", j->picture,
                    *tail ? ": " : "", tail);
  return CGM_OK;
}

cgm_status plot_run(plot_job *j, cgm_error *err) {
  cgm_outfile pic;
  cgm_status st = cgm_outfile_open_derived(&pic, j->picture, err);
  if (st) return st;
  char setout[1200] = ""; /* out = "<the temporary file's name>" */
  FILE *m = fmemopen(setout, sizeof setout - 1, "w");
  if (m) {
    gp_var(m, "out", strrchr(pic.tmp, '/') + 1);
    fclose(m);
  }
  st = m ? gnuplot(j, setout, pic.tmp, err) : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if (!st) return cgm_outfile_commit(&pic, true, err);
  cgm_outfile_abort(&pic);
  unlink(j->picture); /* a failed run must not leave an older picture behind */
  return st;
}

/* The decades, else 1-2-5, else 1, 1.5, 2..9 times a power of ten, whichever first gives 4 (at most
 * 10 decades: every k-th over a wide range) and, with `split`, tics either side of 1; a range too
 * narrow for those, 5 tics evenly spaced in log. */
int plot_log_tics(double lo, double hi, bool split, double v[PLOT_MAX_TICS]) {
  static const double steps[3][10] = {{1}, {1, 2, 5}, {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9}};
  static const int nsteps[3] = {1, 3, 10};
  int n = 0;
  bool below = false, above = false;
  for (int s = 0; s < 3 && (n < 4 || (split && !(below && above))); s++) {
    n = 0;
    below = above = false;
    const int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi));
    const int every = s == 0 && k1 - k0 > 10 ? (k1 - k0 + 9) / 10 : 1;
    for (int k = k0; k <= k1; k += every)
      for (int f = 0; f < nsteps[s] && n < PLOT_MAX_TICS; f++) {
        const double t = steps[s][f] * pow(10, k);
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) {
          v[n++] = t;
          below |= t < 1 - 1e-9;
          above |= t > 1 + 1e-9;
        }
      }
  }
  if (n < 4 || (split && !(below && above))) {
    n = 5;
    for (int i = 0; i < n; i++) v[i] = lo * pow(hi / lo, i / 4.0);
  }
  return n;
}

int plot_tic_digits(const double *v, int n) {
  int d = 3;
  for (; d < 9; d++) {
    bool distinct = true;
    for (int i = 1; i < n && distinct; i++) {
      char a[40], b[40];
      snprintf(a, sizeof a, "%.*g", d, v[i - 1]);
      snprintf(b, sizeof b, "%.*g", d, v[i]);
      distinct = strcmp(a, b) != 0;
    }
    if (distinct) break;
  }
  return d;
}
