// Pieces shared by the CUDA templates.
#pragma once

#include "minitvm/topi/cuda_schedule.h"

namespace minitvm::topi::cuda {

/** Cooperative fetch with factor splits from the inside: fused -> (.., tz, ty, tx). */
void coop_fetch_factor(te::Schedule& s, const te::Tensor& load, int64_t nz, int64_t ny, int64_t nx);
/** The unroll pragmas of a template on its kernel-scope axis. */
void unroll_pragmas(te::Stage os, const IterVar& scope, const ConfigEntity& cfg);

}  // namespace minitvm::topi::cuda
