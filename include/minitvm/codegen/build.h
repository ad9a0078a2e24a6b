/** \file
 * `build()`: lower a schedule and compile it for a target, returning a runtime::Module.
 *
 * Targets: "llvm" (CPU, LLVM ORC JIT), "cuda" (CUDA C via NVRTC, run through the driver),
 * "cuda -emulate" (the same CUDA C run by the CPU emulator; functions take CPU NDArrays).
 * The string is parsed once into a Target (support/target.h) and checked by check_build_target:
 * `cuda -arch=sm_80` compiles for sm_80 (NVRTC, ptxas, the saved module), `llvm -mcpu=X -mattr=+f`
 * drive the JIT; unknown options and invalid values are CompileErrors naming them.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/support/target.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/lower.h"

namespace minitvm {

runtime::Module build(te::Schedule sch, const std::vector<te::Tensor>& args,
                      const std::string& target = "llvm",
                      const std::string& name = "default_function",
                      const LowerOptions& options = {});

/** Compile already-lowered functions for a target. */
runtime::Module build(const std::vector<ir::PrimFunc>& funcs, const std::string& target);
/** As above for a parsed target. */
runtime::Module build(const std::vector<ir::PrimFunc>& funcs, const Target& target);

}  // namespace minitvm
