/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli/outcheck.h"

#include "cli/output.h"
#include "common/outfile.h"

int cli_refuse_alias(const char *cmd, const char *opt, const char *out, cli_writes_fn writes,
                     const cli_input *in, int n) {
  if (!out || !*out) return 0;
  if (!writes) writes = cgm_path_aliases;
  for (int i = 0; i < n; i++)
    if (in[i].path && *in[i].path && writes(out, in[i].path))
      return cli_error(
          cmd, 2, "%s %s would overwrite %s %s (the same file%s): choose another output file", opt,
          out, in[i].role, in[i].path,
          writes == cgm_path_aliases ? "" : " as the picture, its script or a data file beside it");
  return 0;
}
