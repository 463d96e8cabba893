/* Opening the database for a step, and reading a calibration with its
 * device. Only calibrate creates the database: a step that reads (predict,
 * validate, the maps) or a solve's --auto finds no file and says how to
 * make one, instead of creating an empty database that would then hold
 * nothing to predict with. */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "pipeline/steps.h"

cgm_status cgm_open_database(const char *path, bool create, cgm_db **db, cgm_error *err) {
  struct stat sb;
  *db = NULL;
  if (!create && stat(path, &sb) != 0)
    return cgm_fail(err, CGM_EINPUT,
                    "no calibration yet: %s does not exist; run 'cgmodel calibrate' first", path);
  return cgm_db_open(path, create, db, err);
}

cgm_status pipeline_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_db_device *d,
                                    cgm_error *err) {
  cgm_status st = cgm_db_calibration_get(db, id, c, err);
  return st ? st : cgm_db_device_get(db, c->device_id, d, err);
}
