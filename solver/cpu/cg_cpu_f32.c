/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Single-precision instance of the CPU Jacobi-PCG (cg_cpu_impl.h). */
#define REAL float
#define SFX _f32
#include "solver/cpu/cg_cpu_impl.h"
