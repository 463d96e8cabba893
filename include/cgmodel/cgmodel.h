/* libcgmodel: predict and run Conjugate Gradient on sparse SPD matrices. */
#ifndef CGMODEL_CGMODEL_H
#define CGMODEL_CGMODEL_H

#include "cgmodel/status.h"
#include "cgmodel/sparse.h"
#include "cgmodel/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0"; also embedded in the database next to every calibration. */
const char *cgm_version(void);

#ifdef __cplusplus
}
#endif
#endif
