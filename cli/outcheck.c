/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "cli/outcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.h"
#include "common/outfile.h"

/* Before any work: the folder the output goes to is there and a file can be made in it (tried:
 * access() lets root through to /proc or a read-only file system), and the output is no folder
 * (found out only after a solve, the solution was lost). A target that is there and no regular file
 * (/dev/null, a pipe) is written in place: its folder is not asked. */
static int refuse_unwritable(const char *cmd, const char *opt, const char *out) {
  struct stat s;
  char dir[4096], probe[4200];
  const char *slash = strrchr(out, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + (slash == out) : 1,
           slash ? out : ".");
  const bool there = !stat(out, &s);
  if (there && S_ISDIR(s.st_mode))
    return cli_error(cmd, 2, "%s %s is a directory: name a file", opt, out);
  if (there && !S_ISREG(s.st_mode)) return 0;
  if (stat(dir, &s) || !S_ISDIR(s.st_mode))
    return cli_error(cmd, 2, "%s %s: the directory %s does not exist", opt, out, dir);
  snprintf(probe, sizeof probe, "%s/.cgmodel-XXXXXX", dir);
  const int fd = mkstemp(probe);
  if (fd < 0) return cli_error(cmd, 2, "%s %s: the directory %s is not writable", opt, out, dir);
  close(fd);
  unlink(probe);
  return 0;
}

int cli_refuse_alias(const char *cmd, const char *opt, const char *out, cli_writes_fn writes,
                     const cli_input *in, int n) {
  if (!out) return 0;
  if (!*out) return cli_error(cmd, 2, "%s: no file name given", opt);
  if (!strcmp(out, "-")) /* where a reader takes "-" for standard input, a file named - surprises */
    return cli_error(cmd, 2, "%s -: standard output carries this command's report: name a file",
                     opt);
  int rc = refuse_unwritable(cmd, opt, out);
  if (rc) return rc;
  if (!writes) writes = cgm_path_aliases;
  for (int i = 0; i < n; i++)
    if (in[i].path && *in[i].path && writes(out, in[i].path))
      return cli_error(
          cmd, 2, "%s %s would overwrite %s %s (the same file%s): choose another output file", opt,
          out, in[i].role, in[i].path,
          writes == cgm_path_aliases ? "" : " as the picture, its script or a data file beside it");
  return 0;
}
