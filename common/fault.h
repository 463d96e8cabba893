/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fault injection for the tests: the K-th checked CUDA call of the process
 * fails, so that every error path of the CUDA code runs on a real device.
 * Off unless armed by cgm_fault_arm (the command line's CGMODEL_FAULT_CUDA). */
#pragma once

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

/* Called by every checked CUDA call: nonzero when this call is the armed
 * one, which then fails without being made. */
int cgm_fault_hit(void);
/* Arms the k-th checked call from now (k <= 0: disarmed). */
void cgm_fault_arm(long k);
/* Checked calls counted since the last cgm_fault_arm. */
long cgm_fault_count(void);

CGM_END_DECLS
