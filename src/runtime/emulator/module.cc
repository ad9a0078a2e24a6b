// The "cuda-emulator" runtime module: functions taking CPU NDArrays that run a CUDA host
// function's kernel launches on the emulator.
#include <algorithm>

#include "minitvm/codegen/cuda_emulator.h"
#include "runtime/emulator/abi.h"
#include "runtime/prepared_call.h"

namespace minitvm::codegen {
namespace {

class CudaEmulatorModuleNode : public runtime::ModuleNode, public runtime::PreparedCallProvider {
 public:
  CudaEmulatorModuleNode(std::string source, std::vector<runtime::CudaFunctionInfo> functions)
      : functions_(std::move(functions)) {
    compiled_ = emulator::compile(source);
    for (const auto& f : functions_) {
      for (const auto& l : f.launches) {
        const auto& ks = emulator::kernels(*compiled_);
        auto it = std::find_if(ks.begin(), ks.end(), [&](const emulator::KernelInfo& k) { return k.name == l.kernel; });
        MINITVM_RUNTIME_CHECK(it != ks.end())
            << "cuda-emulator module: function " << f.signature.name << " launches kernel " << l.kernel
            << ", which the CUDA source does not define";
        MINITVM_RUNTIME_CHECK(it->params.size() == l.args.size())
            << "cuda-emulator module: kernel " << l.kernel << " has " << it->params.size() << " parameters but "
            << f.signature.name << " passes " << l.args.size();
        const size_t n_args = f.signature.args.size() + f.temporaries.size();
        for (int a : l.args)
          MINITVM_RUNTIME_CHECK(a >= 0 && static_cast<size_t>(a) < n_args)
              << "cuda-emulator module: kernel " << l.kernel << " takes argument " << a << " of " << f.signature.name
              << ", which has " << f.signature.args.size() << " arguments and " << f.temporaries.size()
              << " temporaries";
      }
      for (const auto& t : f.temporaries)
        MINITVM_RUNTIME_CHECK(t.elements >= 0 && t.dtype.bytes() > 0 &&
                              t.elements <= (int64_t(1) << 40) / t.dtype.bytes())
            << "cuda-emulator module: " << f.signature.name << ": temporary '" << t.name << "' has an invalid size ("
            << t.elements << " x " << t.dtype.str() << ")";
    }
  }

  std::string type_key() const override { return "cuda-emulator"; }

  runtime::PackedFunc get_function(const std::string& name) override {
    for (const auto& f : functions_) {
      if (f.signature.name != name) continue;
      std::shared_ptr<const emulator::CompiledKernels> compiled = compiled_;
      const runtime::CudaFunctionInfo info = f;
      auto body = [compiled, info](const std::vector<runtime::ArgValue>& args) {
        runtime::check_arguments(info.signature, args, Device::cpu());
        // Temporaries live for this call only. They start filled with 0xff bytes (NaN for floats,
        // -1 for integers) so that a kernel reading what no kernel wrote shows up in the results.
        std::vector<std::vector<unsigned char>> temps;
        for (const auto& t : info.temporaries)
          temps.emplace_back(static_cast<size_t>(t.elements * t.dtype.bytes()), static_cast<unsigned char>(0xff));
        const size_t n_sig = info.signature.args.size();
        for (const auto& l : info.launches) {
          std::vector<emulator::EmuArg> kargs;
          for (int a : l.args) {
            if (static_cast<size_t>(a) >= n_sig) {
              auto& buf = temps[static_cast<size_t>(a) - n_sig];
              kargs.push_back(emulator::EmuArg::buffer(buf.data(), static_cast<int64_t>(buf.size())));
              continue;
            }
            const runtime::ArgValue& v = args[static_cast<size_t>(a)];
            if (const auto* nd = std::get_if<runtime::NDArray>(&v)) {
              kargs.push_back(emulator::EmuArg::buffer(nd->data(), nd->nbytes()));
            } else if (const auto* i = std::get_if<int64_t>(&v)) {
              kargs.push_back(emulator::EmuArg::scalar_int(*i));
            } else {
              kargs.push_back(emulator::EmuArg::scalar_float(std::get<double>(v)));
            }
          }
          emulator::LaunchOptions opt;
          opt.dynamic_shared_bytes = l.dynamic_shared_bytes;
          emulator::launch(*compiled, l.kernel, l.grid, l.block, kargs, opt);
        }
      };
      return runtime::PackedFunc(body, f.signature);
    }
    return {};
  }

  // Checked once here (so a graph's mismatches surface at setup) and again by every call.
  std::function<void()> prepare_call(const std::string& name, const std::vector<runtime::ArgValue>& args) override {
    runtime::PackedFunc f = get_function(name);
    if (!f) return {};
    runtime::check_arguments(f.signature(), args, Device::cpu());
    return [f, args] { f.call(args); };
  }

  std::string get_source(const std::string& format) const override {
    if (format.empty() || format == "cuda" || format == "cu") return emulator::source(*compiled_);
    if (format == "emulator") return compiled_->rewritten.text;
    return "";
  }

  std::vector<std::string> function_names() const override {
    std::vector<std::string> names;
    for (const auto& f : functions_) names.push_back(f.signature.name);
    return names;
  }

 private:
  std::vector<runtime::CudaFunctionInfo> functions_;
  std::shared_ptr<const emulator::CompiledKernels> compiled_;
};

}  // namespace

runtime::Module make_cuda_emulator_module(std::string cuda_source,
                                          std::vector<runtime::CudaFunctionInfo> functions) {
  return runtime::Module(std::make_shared<CudaEmulatorModuleNode>(std::move(cuda_source), std::move(functions)));
}

}  // namespace minitvm::codegen
