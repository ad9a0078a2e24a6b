/** \file
 * Internal: where the CUDA toolkit lives at run time (never needed at build time).
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minitvm::runtime::cuda {

/** Candidate toolkit roots, in order: $CUDA_HOME, $CUDA_PATH, nvcc's parent on PATH,
 * /usr/local/cuda. */
std::vector<std::string> cuda_roots();
/** Full path of an executable found on PATH, or "". */
std::string find_on_path(const std::string& name);

}  // namespace minitvm::runtime::cuda
