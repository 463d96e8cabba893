/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The text of a Matrix Market file, handed out as pieces of whole lines, each ending with '\n' so
 * that the scanners need no end checks inside a line. A regular file is mapped (its reads run under
 * mm_source_guard); a stream (standard input, /dev/fd/N) is read, and a gzip file inflated, into
 * pieces of a few MiB freed once parsed. Another file that is not regular (a FIFO, a device) is
 * refused, never waited on. */
#pragma once

#include "cgmodel/status.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Longest line accepted: a stream stops at a line this long, so that a pipe
 * without newlines cannot fill the memory. */
#define MM_LINE_MAX ((size_t)64 << 20)

typedef enum { MM_SRC_MAP, MM_SRC_READ, MM_SRC_GZIP } mm_src_kind;

typedef struct mm_source {
  int fd;
  mm_src_kind kind;
  int64_t fsize;        /* size of a regular file read as text; -1 for pipes and gzip */
  int64_t nread;        /* bytes of the file read (mapped: the file size) */
  struct stat st;       /* the file when it was opened */
  _Atomic bool changed; /* a guarded read faulted: the file shrank */
  size_t piece_bytes;   /* size of a stream's pieces, at most */
  size_t next_cap;      /* size of its next piece (they double up to piece_bytes) */
  bool eof;             /* no more input (or a stream stopped at a line longer than MM_LINE_MAX) */

  /* a mapped file (holding the SIGBUS handler of mm_source_guard) */
  char *map;
  size_t map_len;
  int map_stage;

  /* streams: the first bytes (gzip's magic), then the rest of the last line
   * the previous piece did not hold */
  unsigned char pre[16];
  size_t pre_len, pre_off;
  char *carry;
  size_t carry_len, carry_cap;
  void *z;            /* z_stream */
  unsigned char *zin; /* compressed input buffer (a pipe) */
  size_t zin_cap;
  bool in_eof; /* the file's bytes are all read */

  /* the pieces handed out that this source allocated and still holds */
  char **owned;
  int nowned, owned_cap;
  size_t map_piece_len; /* the mapped piece handed out */

  /* a stream that failed (read error, corrupt gzip): the message, without the path and the line */
  bool failed;
  cgm_status fail_code;
  char fail_msg[512];
} mm_source;

/* Opens path ("PATH: ..." errors), maps a regular file or reads a stream's first bytes, and
 * recognises gzip. piece_bytes: a stream's pieces (0: the default). */
cgm_status mm_source_open(mm_source *s, const char *path, size_t piece_bytes, cgm_error *err);

/* The next piece of whole lines, [*p, *p + *len): 1, 0 at the end, -1 when the stream failed
 * (s->fail_code, s->fail_msg). Valid until mm_source_drop or mm_source_release_text. */
int mm_source_next(mm_source *s, char **p, size_t *len);

/* Frees a piece of mm_source_next (nothing for the mapped one, or NULL). */
void mm_source_drop(mm_source *s, const char *piece);

/* Runs fn(a, b); a fault reading a mapped file (SIGBUS: another process truncated it) ends it
 * there: false, and s->changed set. fn writes only what the caller drops on failure, nothing a jump
 * could leave half done. Nests, on any number of threads at once. */
bool mm_source_guard(mm_source *s, void (*fn)(void *, void *), void *a, void *b);

/* The end of the line that holds t[-1] (s's text, t in (.., e]), read under
 * the guard; NULL when it faulted. */
const char *mm_source_line_end(mm_source *s, const char *t, const char *e);

/* Whether the file changed while it was read: a guarded read faulted, or a
 * regular file's size or times differ from those at the open. */
bool mm_source_changed(mm_source *s);

/* The '\n' in [s, e). */
int64_t mm_count_newlines(const char *s, const char *e);

/* Unmaps and frees the text; the counters stay. */
void mm_source_release_text(mm_source *s);

/* Releases everything (safe after a failed open, and twice). */
void mm_source_close(mm_source *s);
