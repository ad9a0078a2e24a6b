// CUDA target glue; replaced by the CUDA code generator's build when it lands.
#include "minitvm/codegen/build.h"

namespace minitvm {
runtime::Module build_cuda_target(const std::vector<ir::PrimFunc>& funcs, bool emulate) {
  MINITVM_USER_ERROR << "build: the cuda target is not available in this build yet";
  return {};
}
}  // namespace minitvm
