// The cuda target of build(): NVRTC + driver module, or the CPU emulator with "-emulate".
#include "minitvm/codegen/build.h"
#include "minitvm/codegen/codegen_cuda.h"

namespace minitvm {
runtime::Module build_cuda_target(const std::vector<ir::PrimFunc>& funcs, const Target& target) {
  return codegen::build_cuda_module(funcs, codegen::CudaBuildOptions::from_target(target));
}
}  // namespace minitvm
