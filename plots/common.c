/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plots' plumbing: output names, the data files next to the picture,
 * the script FILE.gp (a header of variables + the template), and gnuplot. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
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

bool cgm_plot_writes(const char *out, const char *path) {
  if (!out || !path || !*out || !*path) return false;
  if (cgm_path_aliases(out, path)) return true;
  const char *slash = strrchr(out, '/');
  const char *b = slash ? slash + 1 : out;
  const char *dot = strrchr(b, '.');
  size_t nb = dot ? (size_t)(dot - b) : strlen(b);
  const char *ps = strrchr(path, '/');
  const char *name = ps ? ps + 1 : path;
  size_t nn = strlen(name);
  /* FILE.gp, or FILE-<anything>.dat */
  bool script = nn == nb + 3 && !strncmp(name, b, nb) && !strcmp(name + nb, ".gp");
  bool data =
      nn > nb + 5 && !strncmp(name, b, nb) && name[nb] == '-' && !strcmp(name + nn - 4, ".dat");
  if (!script && !data) return false;
  /* the same name: the same file when it lies in the picture's directory */
  size_t nd = slash ? (size_t)(slash - out) + 1 : 0;
  char *cand = malloc(nd + nn + 1);
  if (!cand) return true; /* out of memory: refusing is the safe answer */
  memcpy(cand, out, nd);
  memcpy(cand + nd, name, nn + 1);
  bool same = cgm_path_aliases(cand, path);
  free(cand);
  return same;
}

cgm_status cgm_plot_find_gnuplot(const char *search_path, char *path, size_t size, cgm_error *err) {
  const char *p = search_path && *search_path ? search_path : "/usr/bin:/bin";
  const char *s = p;
  while (*s) {
    const char *e = strchr(s, ':');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char cand[1024];
    if (n == 0)
      snprintf(cand, sizeof cand, "./gnuplot");
    else
      snprintf(cand, sizeof cand, "%.*s/gnuplot", (int)(n < 1000 ? n : 1000), s);
    struct stat sb;
    if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) {
      snprintf(path, size, "%s", cand);
      return CGM_OK;
    }
    if (!e) break;
    s = e + 1;
  }
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

static bool find_template(const char *dirs, const char *name, char *out, size_t size) {
  if (!dirs) return false;
  const char *s = dirs;
  while (*s) {
    const char *e = strchr(s, ':');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n > 0) {
      snprintf(out, size, "%.*s/%s", (int)(n < 900 ? n : 900), s, name);
      if (access(out, R_OK) == 0) return true;
    }
    if (!e) break;
    s = e + 1;
  }
  return false;
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
  if (!find_template(o->scripts_dir, name, j->tmpl, sizeof j->tmpl))
    return cgm_fail(err, CGM_ERUNTIME,
                    "the gnuplot script %s was not found in %s (set CGMODEL_PLOTS_DIR to the "
                    "directory holding cgmodel's plots/*.gp)",
                    name, o->scripts_dir && *o->scripts_dir ? o->scripts_dir : "(no directory)");
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
  int k;
  if (!strcmp(j->dir, ".") && j->picture[0] != '.')
    k = snprintf(out, n, "%s", rel);
  else
    k = snprintf(out, n, "%s/%s", j->dir, rel);
  if (k < 0 || (size_t)k >= n) out[0] = 0; /* cannot happen: plot_begin limits the path */
}

FILE *plot_data_open(plot_job *j, const char *suffix, char *rel, size_t nrel, cgm_error *err) {
  snprintf(rel, nrel, "%s-%s", j->base, suffix);
  char full[1024];
  full_path(j, rel, full, sizeof full);
  FILE *f = fopen(full, "w");
  if (!f) {
    cgm_fail(err, CGM_ERUNTIME, "cannot write %s: %s", full, strerror(errno));
    return NULL;
  }
  cgm_plot_files *fs = j->files;
  if (fs->ndata < (int)(sizeof fs->data / sizeof fs->data[0]))
    snprintf(fs->data[fs->ndata++], sizeof fs->data[0], "%s", full);
  return f;
}

cgm_status plot_data_close(plot_job *j, FILE *f, const char *rel, cgm_error *err) {
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) {
    char full[1024];
    full_path(j, rel, full, sizeof full);
    return cgm_fail(err, CGM_ERUNTIME, "cannot write %s", full);
  }
  return CGM_OK;
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

FILE *plot_script_open(plot_job *j, const char *what, cgm_error *err) {
  char rel[600];
  snprintf(rel, sizeof rel, "%s.gp", j->base);
  full_path(j, rel, j->files->script, sizeof j->files->script);
  FILE *f = fopen(j->files->script, "w");
  if (!f) {
    cgm_fail(err, CGM_ERUNTIME, "cannot write %s: %s", j->files->script, strerror(errno));
    return NULL;
  }
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
  /* the picture's own name, its extension's case kept (FILE.PNG too) */
  const char *slash = strrchr(j->picture, '/');
  gp_var(f, "out", slash ? slash + 1 : j->picture);
  fprintf(f, "set output out\n");
  return f;
}

cgm_status plot_script_finish(plot_job *j, FILE *f, cgm_error *err) {
  FILE *t = fopen(j->tmpl, "r");
  if (!t) {
    fclose(f);
    return cgm_fail(err, CGM_ERUNTIME, "cannot read %s: %s", j->tmpl, strerror(errno));
  }
  fprintf(f, "\n# ---------------------------------------------------------------- template ---\n");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, t)) > 0) fwrite(buf, 1, n, f);
  fclose(t);
  fprintf(f, "\nset output\n");
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad) return cgm_fail(err, CGM_ERUNTIME, "cannot write %s", j->files->script);
  return CGM_OK;
}

cgm_status plot_run(plot_job *j, cgm_error *err) {
  char script[600];
  snprintf(script, sizeof script, "%s.gp", j->base);
  unlink(j->picture); /* a failed run must not leave an older picture behind */
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
    char *argv[] = {"gnuplot", script, NULL};
    execv(j->gnuplot, argv);
    _exit(127);
  }
  close(pfd[1]);
  /* gnuplot's messages: keep the last ones for the error. */
  char msg[2048];
  size_t len = 0;
  char buf[1024];
  ssize_t n;
  while ((n = read(pfd[0], buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (ssize_t i = 0; i < n; i++) {
      if (len == sizeof msg - 1) {
        memmove(msg, msg + 512, len - 512);
        len -= 512;
      }
      msg[len++] = buf[i];
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
  if (stat(j->picture, &sb) != 0 || sb.st_size == 0)
    return cgm_fail(err, CGM_ERUNTIME, "gnuplot wrote no picture %s%s%s", j->picture,
                    *tail ? ": " : "", tail);
  return CGM_OK;
}

/* The decades, else 1-2-5, else 1, 1.5, 2..9 times a power of ten, whichever
 * first gives 4 (at most 10 decades: every k-th over a wide range) and,
 * with `split`, tics either side of 1; a range too narrow for those, 5
 * tics evenly spaced in log. */
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

/* The fewest significant digits, from 3, that print every tic differently. */
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
