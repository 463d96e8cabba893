/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Double-precision instance of the CPU Jacobi-PCG (cg_cpu_impl.h). */
#define REAL double
#define SFX _f64
#define CGM_CPU_COMPACT 1
#include "solver/cpu/cg_cpu_impl.h"
