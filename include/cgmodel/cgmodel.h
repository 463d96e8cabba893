/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libcgmodel: predict and run Conjugate Gradient on sparse SPD matrices. */
#ifndef CGMODEL_CGMODEL_H
#define CGMODEL_CGMODEL_H

#include "cgmodel/export.h"

#include "cgmodel/status.h"
#include "cgmodel/sparse.h"
#include "cgmodel/solver.h"

#endif
