/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sizes below which a host loop stays on the calling thread. Waking OpenMP's team costs
 * microseconds on an idle machine and milliseconds on a busy one (2026-12-02, 2 cores beside two
 * other jobs: a 100-byte Matrix Market file read in 30 us on one thread, 1.7 ms on two), more than
 * the loop's own work at these sizes. */
#ifndef CGM_COMMON_PAR_H
#define CGM_COMMON_PAR_H

#define CGM_PAR_MIN 4096      /* rows, block rows or slices */
#define CGM_PAR_MIN_NNZ 65536 /* stored entries */

#endif
