// build_cuda: the device build pipeline of one lowered function (thread_sync, split_host_device,
// CodeGenCUDA), the launch-limit and ptxas resource checks, and the runtime module.
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/codegen/codegen_cuda.h"
#include "minitvm/codegen/func_info.h"
#include "minitvm/ir/functor.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/cuda_emulator.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/transform/pipeline.h"

namespace minitvm::codegen {

CudaBuildOptions CudaBuildOptions::from_target(const Target& target) {
  MINITVM_USER_CHECK(target.is_cuda()) << "not a CUDA target: '" << target.str() << "'";
  check_build_target(target);
  CudaBuildOptions o;
  o.arch = target.arch;
  o.emulate = target.emulate;
  o.checked = target.checked;
  return o;
}

CudaBuildOptions CudaBuildOptions::from_target(const std::string& target) {
  return from_target(parse_target(target));
}

std::string codegen_cuda(const std::vector<ir::PrimFunc>& kernels,
                         const CudaBuildOptions& options) {
  CodeGenCUDA cg;
  cg.set_restrict(options.restricted);
  for (const auto& k : kernels) cg.add_function(k);
  return cg.finish();
}

namespace {

// CUDA's per-launch limits (compute capability 5.0 and later; the same on every sm_XY NVRTC
// targets today): threads per block, block and grid dimensions, static shared memory per block,
// registers per block and per thread.
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxBlockDim[3] = {1024, 1024, 64};
constexpr int64_t kMaxGridDim[3] = {2147483647, 65535, 65535};
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
constexpr int64_t kMaxRegistersPerBlock = 64 * 1024;
constexpr int64_t kMaxRegistersPerThread = 255;

std::string dims(const std::array<int64_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

/** Static shared memory of a kernel: its constant-size `shared` allocations, in bytes. */
int64_t static_shared_bytes(const ir::PrimFunc& kernel, std::string* largest) {
  int64_t total = 0, big = -1;
  ir::post_order_visit(kernel->body, [&](const ir::Ref<ir::Object>& n) {
    auto* a = n.as<ir::AllocateNode>();
    if (!a || a->scope != ir::StorageScope::Shared) return;
    int64_t c = a->constant_size();
    if (c < 0) return;
    int64_t bytes = c * a->dtype.bytes();
    total += bytes;
    if (bytes > big) {
      big = bytes;
      *largest = a->buffer_var.name() + " (" + std::to_string(c) + " x " + a->dtype.str() + ")";
    }
  });
  return total;
}

/** Launch dimensions and static shared memory of each kernel against CUDA's limits. */
void check_launch_limits(const CudaBuildResult& r) {
  for (size_t k = 0; k < r.info.launches.size(); ++k) {
    const runtime::KernelLaunch& l = r.info.launches[k];
    const std::string head =
        "build_cuda: kernel " + l.kernel + " (function " + r.info.signature.name + "): ";
    static const char* const axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      MINITVM_USER_CHECK(l.block[i] <= kMaxBlockDim[i])
          << head << "threadIdx." << axis[i] << " has extent " << l.block[i]
          << ", over CUDA's limit of " << kMaxBlockDim[i] << " for block dimension " << axis[i]
          << " (block " << dims(l.block) << ")";
      MINITVM_USER_CHECK(l.grid[i] <= kMaxGridDim[i])
          << head << "blockIdx." << axis[i] << " has extent " << l.grid[i]
          << ", over CUDA's limit of " << kMaxGridDim[i] << " for grid dimension " << axis[i]
          << " (grid " << dims(l.grid) << ")";
    }
    const int64_t threads = l.block[0] * l.block[1] * l.block[2];
    MINITVM_USER_CHECK(threads <= kMaxThreadsPerBlock)
        << head << threads << " threads per block (block " << dims(l.block)
        << "), over CUDA's limit of " << kMaxThreadsPerBlock;
    if (k < r.kernels.size()) {
      std::string largest;
      const int64_t shared = static_shared_bytes(r.kernels[k], &largest);
      MINITVM_USER_CHECK(shared <= kMaxStaticSharedBytes)
          << head << shared << " bytes of static shared memory (largest: " << largest
          << "), over CUDA's limit of " << kMaxStaticSharedBytes << " bytes (48 KiB) per block";
    }
  }
}

/** ptxas's report (registers, shared memory) against the limits of each launch. */
void check_ptxas_resources(const CudaModuleBuild& b, const runtime::PtxasReport& rep) {
  for (const auto& f : b.functions) {
    for (const auto& l : f.launches) {
      const runtime::PtxasKernelInfo* k = nullptr;
      for (const auto& x : rep.kernels)
        if (x.name == l.kernel) k = &x;
      if (!k) continue;
      const std::string head = "build_cuda: kernel " + l.kernel + " (function " + f.signature.name +
                               ", ptxas -arch=" + rep.arch + "): ";
      const int64_t threads = l.block[0] * l.block[1] * l.block[2];
      MINITVM_USER_CHECK(k->registers <= kMaxRegistersPerThread)
          << head << k->registers << " registers per thread, over CUDA's limit of "
          << kMaxRegistersPerThread;
      MINITVM_USER_CHECK(int64_t(k->registers) * threads <= kMaxRegistersPerBlock)
          << head << k->registers << " registers per thread x " << threads
          << " threads = " << int64_t(k->registers) * threads
          << " registers per block, over CUDA's limit of " << kMaxRegistersPerBlock;
      MINITVM_USER_CHECK(k->shared_bytes <= kMaxStaticSharedBytes)
          << head << k->shared_bytes << " bytes of static shared memory, over CUDA's limit of "
          << kMaxStaticSharedBytes << " bytes (48 KiB) per block";
    }
  }
}

/**
 * Which signature buffers the kernels of one function write, in launch order and, within a kernel,
 * statement order (a Store's value and index are read before it writes): those whose first access
 * is a write are outputs (the emulator's checked mode poisons them), those read first and written
 * later are updated in place.
 */
class WriteOrder : public ir::IRVisitor {
 public:
  std::unordered_map<const ir::VarNode*, int> arg_of;  // kernel parameter -> launch argument
  std::map<int, bool> first_is_write;                  // launch argument -> its first access
  std::set<int> written;

 protected:
  void note(const ir::VarNode* v, bool write) {
    auto it = arg_of.find(v);
    if (it == arg_of.end()) return;
    first_is_write.emplace(it->second, write);
    if (write) written.insert(it->second);
  }
  void visit(const ir::StoreNode* op) override {
    visit_expr(op->value);
    visit_expr(op->index);
    if (op->predicate.defined()) visit_expr(op->predicate);
    note(op->buffer_var.get(), true);
  }
  void visit(const ir::LoadNode* op) override {
    note(op->buffer_var.get(), false);
    visit_expr(op->index);
    if (op->predicate.defined()) visit_expr(op->predicate);
  }
  void visit(const ir::VarNode* op) override { note(op, false); }  // a pointer used any other way
};

void written_arguments(const CudaBuildResult& r, std::vector<int>* outputs,
                       std::vector<int>* updated) {
  WriteOrder w;
  for (size_t k = 0; k < r.kernels.size() && k < r.info.launches.size(); ++k) {
    w.arg_of.clear();
    const auto& params = r.kernels[k]->params;
    for (size_t i = 0; i < params.size() && i < r.info.launches[k].args.size(); ++i)
      w.arg_of[params[i].get()] = r.info.launches[k].args[i];
    w.visit_stmt(r.kernels[k]->body);
  }
  const int n_sig = static_cast<int>(r.info.signature.args.size());
  for (int a : w.written) {
    if (a >= n_sig) continue;  // a temporary
    (w.first_is_write[a] ? outputs : updated)->push_back(a);
  }
}

}  // namespace

CudaBuildResult build_cuda(const ir::PrimFunc& lowered, const CudaBuildOptions& options) {
  transform::PassLogger log(options.print_after_each_pass);
  transform::HostDeviceSplit split = transform::lower_device(lowered, log);
  MINITVM_USER_CHECK(!split.kernels.empty()) << "build_cuda: function " << lowered.name()
                                             << " has no thread_extent binding, so nothing runs on "
                                                "the GPU (bind an axis to blockIdx/threadIdx)";
  CudaBuildResult r;
  r.cuda_source = codegen_cuda(split.kernels, options);
  r.info = cuda_function_info(lowered, split);
  r.host = std::move(split.host);
  r.kernels = std::move(split.kernels);
  check_launch_limits(r);
  return r;
}

CudaModuleBuild build_cuda(const std::vector<ir::PrimFunc>& lowered,
                           const CudaBuildOptions& options) {
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
  out.cuda_source =
      out.parts.size() == 1 ? out.parts[0].cuda_source : codegen_cuda(all_kernels, options);
  return out;
}

runtime::Module build_cuda_module(const std::vector<ir::PrimFunc>& lowered,
                                  const CudaBuildOptions& options) {
  if (!options.arch.empty())
    runtime::check_nvrtc_arch(options.arch, "build_cuda: -arch=" + options.arch);
  MINITVM_USER_CHECK(!options.checked || options.emulate)
      << "build_cuda: -checked applies to the CPU emulator only (use \"cuda -emulate -checked\")";
  CudaModuleBuild b = build_cuda(lowered, options);
  if (options.emulate) {
    runtime::emulator::EmulatorModuleOptions eo;
    eo.checked = options.checked;
    for (const auto& part : b.parts) {
      eo.outputs.emplace_back();
      eo.updated.emplace_back();
      written_arguments(part, &eo.outputs.back(), &eo.updated.back());
    }
    return runtime::emulator::make_cuda_emulator_module(std::move(b.cuda_source),
                                                        std::move(b.functions), eo);
  }
  runtime::NvrtcOptions nv;
  nv.arch = options.arch;
  runtime::NvrtcResult ptx = runtime::nvrtc_compile(b.cuda_source, nv);
  if (options.ptxas_check && !runtime::find_ptxas().empty())
    check_ptxas_resources(b, runtime::ptxas_check(ptx.ptx, ptx.arch));
  return runtime::make_cuda_module(std::move(ptx.ptx), std::move(b.functions),
                                   std::move(b.cuda_source), ptx.arch);
}

}  // namespace minitvm::codegen
