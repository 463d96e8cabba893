/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sorted path of the Matrix Market reader. A general coordinate file whose entries come row by
 * row, columns increasing, one a line (a CSR written entry by entry: our writer's, SciPy's mmwrite)
 * is already its CSR: each chunk of lines, once counted, is parsed straight into its place instead
 * of into buckets sorted later. Anything doubtful (a comment in the body, a line outside the strict
 * grammar, an entry out of order, a bad value) answers "not sorted": the general path reads the
 * file instead, so this one never reports an error. */
#define _POSIX_C_SOURCE 200809L

#include "sparse/mm_sorted.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sparse/mm_number.h"

typedef struct {
  const char *s, *e;       /* whole lines */
  int64_t lines;           /* '\n' in [s, e) */
  int64_t off;             /* entries before the chunk */
  uint64_t fi, fj, li, lj; /* first and last entry (1-based) */
  bool bad;                /* not a sorted chunk of the strict grammar */
} chunk;

static inline const char *skip_spaces(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* An index of at most 10 digits, 1..max; NULL when p holds none such. */
static inline const char *index_at(const char *p, uint64_t max, uint64_t *out) {
  const char *s = p;
  uint64_t v = 0;
  while (mm_is_digit((unsigned char)*p) && p - s < 11) v = v * 10 + (uint64_t)(*p++ - '0');
  if (p == s || p - s > 10 || v < 1 || v > max) return NULL;
  *out = v;
  return p;
}

/* Where the chunks go, and a flag that stops them all. */
typedef struct {
  const mm_sorted_shape *sh;
  cgm_csr *A;
  _Atomic bool *stop;
} target;

static void count_lines(void *ch, void *unused) {
  chunk *c = ch;
  c->lines = mm_count_newlines(c->s, c->e);
}

/* Parses chunk ch into the CSR at its offset: bad at the first line that is not "[ \t]*I[ \t]+J([
 * \t]+VALUE)?[blanks]\n" with I, J in range and (I, J) after the line before it. */
static void parse_chunk(void *ch, void *target_) {
  chunk *c = ch;
  const target *tg = target_;
  const mm_sorted_shape *sh = tg->sh;
  int64_t *const rowptr = tg->A->rowptr;
  int32_t *const colidx = tg->A->colidx;
  double *const val = tg->A->val;
  _Atomic bool *stop = tg->stop;
  const char *p = c->s;
  uint64_t pi = 0, pj = 0;
  int64_t k = c->off;
  for (int64_t line = 0; p < c->e; line++) {
    if ((line & 8191) == 0 && atomic_load_explicit(stop, memory_order_relaxed)) goto bad;
    const char *ls = p;
    uint64_t i, j;
    p = index_at(skip_spaces(p), sh->rows, &i);
    if (!p || (*p != ' ' && *p != '\t')) goto bad;
    p = index_at(skip_spaces(p), sh->cols, &j);
    if (!p) goto bad;
    double v = 1.0;
    if (sh->values) {
      if (*p != ' ' && *p != '\t') goto bad;
      p = skip_spaces(p);
      const char *ve;
      bool frac = false;
      if (mm_parse_number(p, c->e, &ve, &v, &frac) != CGM_NUM_OK || !isfinite(v) ||
          (sh->integer && frac) || !mm_is_tok_end((unsigned char)*ve) || *ve == '\0')
        goto bad;
      p = ve;
    }
    while (mm_is_blank((unsigned char)*p)) p++;
    if (*p != '\n' || (size_t)(p - ls) >= MM_LINE_MAX) goto bad;
    p++;
    if (k == c->off) {
      c->fi = i, c->fj = j;
    } else if (i < pi || (i == pi && j <= pj)) {
      goto bad;
    } else {
      /* the rows from the one before to this one start here */
      for (uint64_t r = pi; r < i; r++) rowptr[r] = k;
    }
    colidx[k] = (int32_t)(j - 1);
    val[k] = v;
    pi = i, pj = j;
    k++;
  }
  c->li = pi, c->lj = pj;
  return;
bad:
  c->bad = true;
  atomic_store_explicit(stop, true, memory_order_relaxed);
}

int mm_sorted_csr(mm_source *src, const char *s, const char *e, const mm_sorted_shape *sh,
                  int threads, cgm_csr *A) {
  memset(A, 0, sizeof *A);
  const int64_t L = sh->entries, len = e - s;
  if (L < 1 || len < 1 || sh->rows < 1 || sh->cols < 1 || sh->rows > INT32_MAX ||
      sh->cols > INT32_MAX)
    return 0;
  if (threads < 1) threads = 1;
  /* a few chunks a thread, at least 64 KiB each */
  int64_t nch = threads > 1 ? 4 * (int64_t)threads : 1;
  if (len / nch < ((int64_t)64 << 10)) nch = len / ((int64_t)64 << 10) + 1;
  chunk *ch = calloc((size_t)nch, sizeof *ch);
  if (!ch) return -1;
  int64_t n = 0;
  _Atomic bool stop = false;
  for (const char *p = s; p < e && n < nch; n++) {
    const char *t = n == nch - 1 || e - p <= len / nch ? e : p + len / nch;
    const char *ce = t == e ? e : mm_source_line_end(src, t, e);
    if (!ce) stop = true;
    ch[n].s = p;
    ch[n].e = p = ce ? ce : e;
  }
  /* one entry a line: the lines are the entries, and give each chunk its place */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (n > 1)
  for (int64_t c = 0; c < n; c++)
    if (!mm_source_guard(src, count_lines, &ch[c], NULL)) atomic_store(&stop, true);
  int64_t total = 0;
  for (int64_t c = 0; c < n; c++) ch[c].off = total, total += ch[c].lines;
  int go = total == L && !atomic_load(&stop); /* 0: not sorted */
  if (go && cgm_csr_alloc(A, (int32_t)sh->rows, (int32_t)sh->cols, L, NULL)) go = -1;
  if (go < 1) {
    free(ch);
    return go;
  }
  int64_t *const rowptr = A->rowptr;
  target tg = {sh, A, &stop};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (n > 1)
  for (int64_t c = 0; c < n; c++)
    if (!mm_source_guard(src, parse_chunk, &ch[c], &tg)) atomic_store(&stop, true);
  bool ok = !atomic_load(&stop);
  /* each chunk after the last entry of the one before; the rows between
   * two chunks, and after the last, start at the next entry */
  for (int64_t c = 0; ok && c < n; c++) {
    ok = c == 0 || ch[c].fi > ch[c - 1].li || (ch[c].fi == ch[c - 1].li && ch[c].fj > ch[c - 1].lj);
    for (uint64_t r = c > 0 ? ch[c - 1].li : 0; ok && r < ch[c].fi; r++) rowptr[r] = ch[c].off;
  }
  for (uint64_t r = ch[n - 1].li; ok && r <= (uint64_t)sh->rows; r++) rowptr[r] = L;
  free(ch);
  if (!ok) cgm_csr_free(A);
  return ok;
}
