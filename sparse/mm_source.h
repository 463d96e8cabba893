/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The text of a Matrix Market file, handed out as pieces of whole lines
 * (sparse/mm_source.c). A regular file is mapped (one piece, and its last
 * line when that lacks a newline, copied with one); a pipe or other
 * non-regular file is read, and a gzip file (recognised by its magic bytes)
 * inflated, into pieces of a few MiB as the parser asks for them. Every
 * piece ends with '\n', so the scanners need no end checks inside a line.
 * Pieces stay valid until mm_source_release_text: the parser's error
 * messages quote them. Not part of the public API. */
#ifndef CGMODEL_SPARSE_MM_SOURCE_H
#define CGMODEL_SPARSE_MM_SOURCE_H

#include "cgmodel/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line accepted (bytes before its newline). A stream stops at a
 * line this long, so a pipe without newlines cannot fill the memory. */
#define MM_LINE_MAX ((size_t)64 << 20)

typedef enum { MM_SRC_MAP, MM_SRC_READ, MM_SRC_GZIP } mm_src_kind;

typedef struct mm_source {
  const char *path;
  int fd;
  mm_src_kind kind;
  bool gzip;          /* the file starts with the gzip magic bytes */
  int64_t fsize;      /* size of a regular file read as text; -1 for pipes and gzip */
  int64_t nread;      /* bytes of the file read (mapped: the file size) */
  int64_t text_bytes; /* bytes of text handed out, not counting added newlines */
  size_t piece_bytes; /* size of a stream's pieces, at most */
  size_t next_cap;    /* size of its next piece (they double up to piece_bytes) */
  bool eof;           /* no more input (or a stream stopped at a line longer than MM_LINE_MAX) */

  /* a mapped file, or a gzip file's mapped input */
  char *map;
  size_t map_len;
  int map_stage;

  /* streams: the first bytes (read to recognise gzip), then the part of the
   * last line read that the previous piece did not hold */
  unsigned char pre[16];
  size_t pre_len, pre_off;
  char *carry;
  size_t carry_len, carry_cap;
  void *z;            /* z_stream */
  unsigned char *zin; /* compressed input buffer (a pipe) */
  size_t zin_cap;
  int64_t zin_pos; /* compressed bytes consumed by inflate */
  bool in_eof;     /* the file's bytes are all read */

  /* every piece handed out that this source allocated (its buffer and the
   * length handed out), freed by mm_source_release_text */
  struct mm_piece {
    char *buf;
    size_t len;
  } * owned;
  size_t nowned, owned_cap;
  size_t map_piece_len; /* the mapped piece handed out */

  /* a stream that failed (read error, corrupt or truncated gzip): the
   * message, without the path and the line the reader puts before it */
  bool failed;
  cgm_status fail_code;
  char fail_msg[512];
} mm_source;

/* Opens path (cannot open, directory: CGM_EINPUT, "PATH: ..."), maps a
 * regular file or reads a stream's first bytes, and recognises gzip.
 * piece_bytes: the size of a stream's pieces (0: the default). */
cgm_status mm_source_open(mm_source *s, const char *path, size_t piece_bytes, cgm_error *err);

/* The next piece of whole lines, [*p, *p + *len), (*p)[*len - 1] == '\n'.
 * Returns 1, 0 at the end of the text, -1 when the stream failed
 * (s->failed, s->fail_code, s->fail_msg; the partial last line is dropped). */
int mm_source_next(mm_source *s, char **p, size_t *len);

/* The '\n' in [s, e). */
int64_t mm_count_newlines(const char *s, const char *e);

/* Newlines in the pieces handed out so far (the line a failed stream
 * stopped in is this + 1). */
int64_t mm_source_lines(const mm_source *s);

/* Unmaps and frees the text; the counters stay. */
void mm_source_release_text(mm_source *s);

/* Releases everything (safe after a failed open, and twice). */
void mm_source_close(mm_source *s);

/* Whether this build inflates gzip files (zlib). */
bool mm_source_have_gzip(void);

#endif
