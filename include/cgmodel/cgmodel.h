/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libcgmodel: predict and run Conjugate Gradient on sparse SPD matrices. */
#pragma once

#include "cgmodel/export.h"

#include "cgmodel/status.h"
#include "cgmodel/sparse.h"
#include "cgmodel/solver.h"
