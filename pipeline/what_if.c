/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What-if: the calibrated GPUs priced on more GPUs than this machine has or their calibrations
 * measured together, the exchange by an interconnect profile (docs/model.md, "What-if"). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmodel/pipeline.h"
#include "pipeline/steps.h"

typedef struct {
  const char *name, *host; /* the profile of that name; else the newest of this host */
  int64_t id, staged;      /* ... of several GPUs; of one GPU's host-staged exchange */
} find_ctx;

static int find_profile(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  find_ctx *f = ctx;
  int64_t *id = f->name || pipeline_calibration_gpus(c->options) > 1 ? &f->id : &f->staged;
  if (c->complete && c->interconnect[0] && !*id &&
      !strcmp(f->name ? c->interconnect : d->host, f->name ? f->name : f->host))
    *id = c->id;
  return f->id != 0; /* newest first: the first found */
}

cgm_status cgm_what_if(cgm_db *db, const char *interconnect, int gpus, const cgm_host *h,
                       cgm_tuner_device *devs, int ndev, cgm_error *err) {
  char host[128] = "";
  find_ctx f = {interconnect, host, 0, 0};
  const bool builtin = interconnect && !strcmp(interconnect, CGM_PCIE_HOST);
  cgm_status st = CGM_OK;
  if (!builtin && (interconnect || gpus > 1) && !gethostname(host, sizeof host - 1))
    st = cgm_db_calibrations(db, find_profile, &f, err);
  if (!f.id) f.id = f.staged;
  if (!st && interconnect && !builtin && !f.id)
    return cgm_fail(err, CGM_EINPUT,
                    "interconnect '%s': no calibration in %s measured it ('cgmodel db list' names "
                    "the interconnects measured; the built-in one is %s)",
                    interconnect, cgm_db_path(db), CGM_PCIE_HOST);
  cgm_tuner_device *prof = f.id && !st ? malloc(sizeof *prof) : NULL;
  if (f.id && !st)
    st = prof ? cgm_load_calibration(db, f.id, CGM_FIT_REL, prof, err)
              : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int i = 0; i < ndev && !st; i++) {
    cgm_tuner_device *d = &devs[i];
    /* a device's own profile first, unless another is named or it is one
     * GPU's and this machine measured several */
    const bool own =
        d->interconnect[0] && (interconnect ? prof && prof->calibration_id == d->calibration_id
                                            : d->gpus > 1 || !prof || prof->gpus <= 1);
    const cgm_tuner_device *p = own ? d : prof;
    const int present = h->gpus > 0 && !strcmp(h->gpu, d->name) ? h->gpus : 0;
    cgm_tuner_what_if(d, gpus, present, p, p ? p->interconnect : CGM_PCIE_HOST);
  }
  free(prof);
  return st;
}
