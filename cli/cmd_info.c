/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel info A.mtx [--json]: the features of a matrix. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/output.h"

static const cli_opt opts[] = {CLI_JSON, {0}};

static void print_human(const char *path, const cgm_features *f, const cgm_mm_info *mm) {
  char name[4096];
  printf("matrix        %s\n", cli_escape(path, name, sizeof name));
  printf("dimension x   %d\n", f->x);
  printf("nonzeros      %lld (%lld entries in the file, %s, %s%s)\n", (long long)f->nnz,
         (long long)mm->entries_in_file, json_field_name(mm->field),
         mm->symmetry == CGM_MM_SYMMETRIC ? "symmetric" : "general",
         mm->duplicates_summed ? ", duplicates summed" : "");
  printf("row length    min %d, max %d, avg %.2f, cv %.3f, empty rows %d\n", f->row_min, f->row_max,
         f->row_avg, f->row_cv, f->empty_rows);
  printf("symmetric     %s\n", f->symmetric ? "yes" : "no");
  if (f->positive_diagonal)
    printf("diagonal      all entries present and > 0\n");
  else
    printf("diagonal      row %d has a missing or non-positive diagonal: not SPD\n",
           f->first_bad_diagonal + 1);
  printf("\n%3s %12s %14s %7s %14s %10s %9s %4s %14s %8s\n", "N", "blocks", "e_N", "d_N",
         "padded e_N", "padding", "max/row", "B_x", "x bytes (fp64)", "x loc.");
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    const cgm_block_features *bf = &f->block[b];
    double pad = bf->elements ? (double)bf->padded_elements / (double)bf->elements - 1.0 : 0.0;
    printf("%3d %12lld %14lld %7.3f %14lld %9.1f%% %9d %4d %14lld %8.2f\n", bf->n,
           (long long)bf->blocks, (long long)bf->elements, bf->density,
           (long long)bf->padded_elements, 100.0 * pad, bf->max_blocks_per_row, bf->bx,
           32LL * (long long)bf->x_sectors[0], bf->x_locality[0]);
  }
}

static int body(const cli_parsed *p) {
  if (p->npos != 1) return cli_error("info", 2, "expected one matrix file (cgmodel info --help)");
  const char *path = cli_input_path(p->pos[0]);
  if (cli_parse_only) return 0;
  cgm_error err = {0};
  cgm_mm_info mm;
  cgm_features f;
  if (cgm_matrix_features(path, &f, &mm, &err)) return cli_report("info", &err);
  if (cli_true(p->local, "json")) return cli_print_json(cgm_info_json(path, &f, &mm));
  print_human(path, &f, &mm);
  return 0;
}

const cli_command cli_info = {"info", "A.mtx", NULL, "the features of a matrix that the model uses",
                              opts,   NULL,    body, NULL};
