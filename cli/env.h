/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CGMODEL_* environment variables: the one place that reads them (the
 * library never does). Each sets an option of the library (docs/cli.md).
 * Also linked by the benchmarks, which take the same variables. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cgmodel/solver.h"

/* The GPU solver's options from CGMODEL_CG (cgg | classic), CGMODEL_GRAPHS,
 * CGMODEL_PDL, CGMODEL_LATE, CGMODEL_LL, CGMODEL_BALANCE (0: off),
 * CGMODEL_SYNC (events: no flags) and CGMODEL_EXCHANGE_TIMEOUT (seconds), over
 * the defaults; CGMODEL_FAULT_CUDA=K makes the K-th checked CUDA call fail
 * (tests). Returns 0, or 2 with msg naming the variable and its bad value. */
int cli_env_gpu_opts(cgm_gpu_opts *g, char *msg, size_t n);

/* The matrix cache's default directory: $XDG_CACHE_HOME/cgmodel (an absolute XDG_CACHE_HOME only,
 * as the XDG spec says), else $HOME/.cache/cgmodel. Returns 0, or -1 when neither is set. */
int cli_env_cache_dir(char *buf, size_t n);

/* The database when none is given: $CGMODEL_DB, else $XDG_DATA_HOME/cgmodel/cgmodel.db (an absolute
 * XDG_DATA_HOME only), else $HOME/.local/share/cgmodel/cgmodel.db; "" when none is set or buf is
 * too small. Returns buf. */
const char *cli_env_db_path(char *buf, size_t n);

/* CGMODEL_DB_READONLY set and not `0`: the database is opened read-only
 * (CGM_DB_READONLY) whatever its permissions, which root ignores. */
bool cli_env_db_readonly(void);

/* libgomp spins GOMP_SPINCOUNT rounds (300,000: milliseconds) at a barrier before it sleeps, and
 * reads it when it loads. cli_env_keep_argv keeps main's argv; cli_env_spin_default says whether
 * neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY is set; cli_env_restart_bounded sets GOMP_SPINCOUNT to
 * CLI_SPINCOUNT and starts this program again with that argv (execv of /proc/self/exe; where that
 * fails it returns, the setting withdrawn). `how` (n bytes) says the setting libgomp read:
 * "GOMP_SPINCOUNT=10000", from the environment the process started with. */
#define CLI_SPINCOUNT "10000"
void cli_env_keep_argv(char **argv);
bool cli_env_spin_default(void);
void cli_env_restart_bounded(void);
const char *cli_env_openmp_wait_said(char *how, size_t n);

/* Whether this process was started by an MPI launcher (mpirun, mpiexec, srun): Open MPI's
 * OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK of the process managers, is set. */
int cli_env_under_mpi(void);
