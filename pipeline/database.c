/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening the database for a step, picking the calibration a picture
 * draws, and reading a calibration with its device. Only calibrate creates the database: a step
 * that reads (predict, validate, the maps) or a solve's --auto finds no file and says how to make
 * one, instead of creating an empty database that would then hold nothing to predict with. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "pipeline/steps.h"

cgm_status cgm_open_database(const char *path, unsigned flags, cgm_db **db, cgm_error *err) {
  struct stat sb;
  *db = NULL;
  if (!(flags & CGM_DB_CREATE) && stat(path, &sb) != 0)
    return cgm_fail(err, CGM_EINPUT,
                    "no calibration yet: %s does not exist; run 'cgmodel calibrate' first", path);
  return cgm_db_open(path, flags, db, err);
}

typedef struct {
  const cgm_calibration_pick *p;
  int64_t found, found_cpu;
} pick_ctx;

/* Calibrations come newest first: the first that matches wins. */
static int pick_one(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  pick_ctx *P = ctx;
  if (!c->complete) return 0;
  const bool cuda = !strcmp(d->kind, "cuda"), cpu = !strcmp(d->kind, "cpu");
  const cgm_pick_kind k = P->p->kind;
  if (k == CGM_PICK_GPU_FIRST && cpu && !P->found_cpu) P->found_cpu = c->id;
  if (k == CGM_PICK_LATEST || (k == CGM_PICK_CPU && cpu) ||
      ((k == CGM_PICK_CUDA || k == CGM_PICK_GPU_FIRST) && cuda) ||
      (k == CGM_PICK_DEVICE && d->id == P->p->device_id))
    P->found = c->id;
  return P->found != 0;
}

cgm_status cgm_pick_calibration(cgm_db *db, const cgm_calibration_pick *p, int64_t *id,
                                cgm_error *err) {
  if (p->calibration_id > 0) {
    cgm_db_calibration c;
    cgm_status st = cgm_db_calibration_get(db, p->calibration_id, &c, err);
    if (!st) *id = p->calibration_id;
    return st;
  }
  pick_ctx P = {p, 0, 0};
  cgm_status st = cgm_db_calibrations(db, pick_one, &P, err);
  if (st) return st;
  if (!P.found) P.found = P.found_cpu;
  if (P.found) {
    *id = P.found;
    return CGM_OK;
  }
  if (p->kind == CGM_PICK_LATEST || p->kind == CGM_PICK_GPU_FIRST)
    return cgm_fail(err, CGM_EINPUT, "no calibration in %s: run 'cgmodel calibrate' first",
                    cgm_db_path(db));
  char which[32];
  snprintf(which, sizeof which, "%lld", (long long)p->device_id);
  return cgm_fail(err, CGM_EINPUT,
                  "no complete calibration of device %s in %s (see 'cgmodel db list')",
                  p->kind == CGM_PICK_CPU    ? "cpu"
                  : p->kind == CGM_PICK_CUDA ? "cuda"
                                             : which,
                  cgm_db_path(db));
}

cgm_status pipeline_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_db_device *d,
                                    cgm_error *err) {
  cgm_status st = cgm_db_calibration_get(db, id, c, err);
  return st ? st : cgm_db_device_get(db, c->device_id, d, err);
}
