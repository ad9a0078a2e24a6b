/** \file
 * Checks applied to every kernel of the tests/codegen/cuda_schedules suite: NVRTC (sm_90) compiles
 * the module's CUDA source, ptxas accepts the PTX within the sm_90 limits (registers <= 255, static
 * shared memory <= 227 KB; spills are reported), and the module's function reproduces the
 * reference.
 */
#pragma once

#include <string>

#include "cases.h"
#include "minitvm/runtime/ptxas.h"

namespace minitvm::cuda_tests {

/** What check_compiles found; `checked` is false when NVRTC or ptxas is missing (with `why`). */
struct CompileCheck {
  bool checked = false;
  std::string why;
  std::string ptx;
  runtime::PtxasReport report;
};

/** NVRTC + ptxas on `m.get_source("cuda")` with gtest assertions on the limits. */
CompileCheck check_compiles(const runtime::Module& m);

/**
 * Calls `c.name` of `m` with the case's arrays copied to `dev`, copies the outputs back and
 * compares them with the reference (gtest failures). Returns the device arguments (for timing).
 */
std::vector<runtime::ArgValue> run_and_compare(const runtime::Module& m, const CudaCase& c,
                                               Device dev);

}  // namespace minitvm::cuda_tests
