/* CG on several GPUs of one node: the issue that builds it replaces this. */
#include "solver/cuda/cg_cuda.h"

extern "C" cgm_status cgm_cuda_cg_multi(const cgm_problem *pb, cgm_solve_result *res,
                                        cgm_error *err) {
  return cgm_fail(err, CGM_EINPUT, "--gpus %d: several GPUs are not supported yet",
                  pb->opts.gpus);
}
