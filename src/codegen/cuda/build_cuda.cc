// build_cuda: the device build pipeline of one lowered function (thread_sync, split_host_device,
// CodeGenCUDA), and target-string parsing.
#include <sstream>
#include <unordered_set>

#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/codegen/cuda_emulator.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/transform/split_host_device.h"
#include "minitvm/transform/thread_sync.h"

namespace minitvm::codegen {

CudaBuildOptions CudaBuildOptions::from_target(const std::string& target) {
  CudaBuildOptions o;
  std::istringstream is(target);
  std::string tok;
  bool first = true;
  while (is >> tok) {
    if (first) {
      MINITVM_USER_CHECK(tok == "cuda") << "not a CUDA target: '" << target << "'";
      first = false;
    } else if (tok == "-emulate") {
      o.emulate = true;
    } else if (tok.rfind("-arch=", 0) == 0) {
      o.arch = tok.substr(6);
      MINITVM_USER_CHECK(o.arch.rfind("sm_", 0) == 0 && o.arch.size() > 3)
          << "target '" << target << "': -arch must look like sm_90";
    }
    // Other TVM target options (-model=..., -libs=...) do not affect code generation here.
  }
  MINITVM_USER_CHECK(!first) << "empty target string";
  return o;
}

std::string codegen_cuda(const std::vector<ir::PrimFunc>& kernels, const CudaBuildOptions& options) {
  CodeGenCUDA cg;
  cg.set_restrict(options.restricted);
  for (const auto& k : kernels) cg.add_function(k);
  return cg.finish();
}

CudaBuildResult build_cuda(const ir::PrimFunc& lowered, const CudaBuildOptions& options) {
  ir::PrimFunc synced = transform::thread_sync(lowered, ir::StorageScope::Shared);
  transform::HostDeviceSplit split = transform::split_host_device(synced);
  MINITVM_USER_CHECK(!split.kernels.empty())
      << "build_cuda: function " << lowered.name()
      << " has no thread_extent binding, so nothing runs on the GPU (bind an axis to blockIdx/threadIdx)";
  CudaBuildResult r;
  r.cuda_source = codegen_cuda(split.kernels, options);
  r.info = std::move(split.info);
  r.host = std::move(split.host);
  r.kernels = std::move(split.kernels);
  return r;
}

CudaModuleBuild build_cuda(const std::vector<ir::PrimFunc>& lowered, const CudaBuildOptions& options) {
  CudaModuleBuild out;
  std::vector<ir::PrimFunc> all_kernels;
  std::unordered_set<std::string> names;
  for (const auto& f : lowered) {
    MINITVM_USER_CHECK(names.insert(f.name()).second)
        << "build_cuda: two functions are named '" << f.name() << "'";
    CudaBuildResult r = build_cuda(f, options);
    all_kernels.insert(all_kernels.end(), r.kernels.begin(), r.kernels.end());
    out.functions.push_back(r.info);
    out.parts.push_back(std::move(r));
  }
  out.cuda_source = out.parts.size() == 1 ? out.parts[0].cuda_source : codegen_cuda(all_kernels, options);
  return out;
}

runtime::Module build_cuda_module(const std::vector<ir::PrimFunc>& lowered, const CudaBuildOptions& options) {
  CudaModuleBuild b = build_cuda(lowered, options);
  if (options.emulate) return make_cuda_emulator_module(std::move(b.cuda_source), std::move(b.functions));
  runtime::NvrtcOptions nv;
  nv.arch = options.arch;
  runtime::NvrtcResult ptx = runtime::nvrtc_compile(b.cuda_source, nv);
  return runtime::make_cuda_module(std::move(ptx.ptx), std::move(b.functions), std::move(b.cuda_source), ptx.arch);
}

}  // namespace minitvm::codegen
