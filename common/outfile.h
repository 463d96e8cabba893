/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Writing an output file safely: never onto one of the inputs, and never leaving a half-written
 * file in place of the old one. cgm_outfile writes a temporary file beside the target and renames
 * it over the target on success; a target that is not a regular file (/dev/null, a pipe) is written
 * in place. A derived file (a picture, its data and script) replaces its name whatever is there (a
 * link is never written through). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cgmodel/status.h"

/* mkdir -p (new directories with `mode`): 0, or an errno (ENOTDIR: a file in the way) with the
 * directory that could not be made in at (when given). */
int cgm_mkdirs(const char *dir, unsigned mode, char *at, size_t at_size);

/* True when writing `out` would write the file `in` names (the same inode,
 * or the same resolved directory and name); NULL or empty: false. */
bool cgm_path_aliases(const char *out, const char *in);

typedef struct cgm_outfile {
  char *path;   /* the target as given (messages) */
  char *final;  /* where the rename goes: the target, symbolic links resolved */
  char *tmp;    /* the temporary file; NULL when written in place */
  int fd;       /* -1 once closed */
  FILE *stream; /* after cgm_outfile_stream */
} cgm_outfile;

/* Creates the temporary file (or opens a non-regular target). Errors name `path`: CGM_EINPUT when
 * the directory is missing or not writable (the user's mistake), CGM_ERUNTIME otherwise. */
cgm_status cgm_outfile_open(cgm_outfile *o, const char *path, cgm_error *err);
/* The same for a derived file: written beside the name as given. */
cgm_status cgm_outfile_open_derived(cgm_outfile *o, const char *path, cgm_error *err);
/* A stdio stream over the open file (owned by o); NULL when out of memory. */
FILE *cgm_outfile_stream(cgm_outfile *o);
/* Flushes, closes and renames over the target. `ok` false (the caller's
 * write failed; its error kept) or a failure here: the temporary file is
 * removed, the target left as it was, CGM_ERUNTIME returned. */
cgm_status cgm_outfile_commit(cgm_outfile *o, bool ok, cgm_error *err);
/* Removes the temporary file and frees o (after an error before commit). */
void cgm_outfile_abort(cgm_outfile *o);
