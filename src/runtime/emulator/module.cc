// The "cuda-emulator" runtime module: functions taking CPU NDArrays that run a CUDA host
// function's kernel launches on the emulator.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "minitvm/runtime/cuda_emulator.h"
#include "runtime/emulator/abi.h"
#include "runtime/prepared_call.h"

namespace minitvm::runtime::emulator {
namespace {

/** Checked mode (see EmulatorModuleOptions::checked): poison the outputs, run, find what kept the
 *  poison; confirm with a second poison so that a kernel writing the first pattern is not blamed.
 */
template <class Run>
void checked_call(const Run& run, const runtime::CudaFunctionInfo& info,
                  const std::vector<int>& outputs, const std::vector<int>& updated,
                  const std::vector<runtime::ArgValue>& args) {
  auto nd = [&](int a) -> const runtime::NDArray& {
    return std::get<runtime::NDArray>(args[static_cast<size_t>(a)]);
  };
  std::vector<std::vector<unsigned char>> saved;
  for (int a : updated) {
    const auto* p = static_cast<const unsigned char*>(nd(a).data());
    saved.emplace_back(p, p + nd(a).nbytes());
  }
  auto poison = [&](unsigned char byte) {
    for (int a : outputs) std::memset(nd(a).data(), byte, static_cast<size_t>(nd(a).nbytes()));
  };
  // Elements of output `o` whose bytes all equal `byte`.
  auto still = [&](int a, unsigned char byte, std::vector<char>& mark, bool refine) {
    const auto* p = static_cast<const unsigned char*>(nd(a).data());
    const int64_t eb = std::max(1, info.signature.args[static_cast<size_t>(a)].dtype.bytes());
    const int64_t n = nd(a).nbytes() / eb;
    if (!refine) mark.assign(static_cast<size_t>(n), 0);
    int64_t count = 0;
    for (int64_t e = 0; e < n; ++e) {
      if (refine && !mark[static_cast<size_t>(e)]) continue;
      bool all = true;
      for (int64_t b = 0; b < eb && all; ++b) all = p[e * eb + b] == byte;
      mark[static_cast<size_t>(e)] = all;
      count += all;
    }
    return count;
  };
  poison(0xff);
  run(args);
  std::vector<std::vector<char>> marks(outputs.size());
  bool suspicious = false;
  for (size_t i = 0; i < outputs.size(); ++i)
    suspicious |= still(outputs[i], 0xff, marks[i], false) > 0;
  if (!suspicious) return;
  for (size_t i = 0; i < updated.size(); ++i)
    std::memcpy(nd(updated[i]).data(), saved[i].data(), saved[i].size());
  poison(0x00);
  run(args);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int64_t count = still(outputs[i], 0x00, marks[i], true);
    if (count == 0) continue;
    const int64_t first = std::find(marks[i].begin(), marks[i].end(), 1) - marks[i].begin();
    const auto& spec = info.signature.args[static_cast<size_t>(outputs[i])];
    std::string kernels;
    for (const auto& l : info.launches) kernels += (kernels.empty() ? "" : ", ") + l.kernel;
    std::string shape;
    for (int64_t d : spec.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    throw EmulatorError("CUDA emulator (checked): function " + info.signature.name + ": output '" +
                        spec.name + "' [" + shape + "]: " + std::to_string(count) + " of " +
                        std::to_string(marks[i].size()) +
                        " elements were never written by its kernels (" + kernels +
                        "); first unwritten element: flat index " + std::to_string(first));
  }
}

class CudaEmulatorModuleNode : public runtime::ModuleNode, public runtime::PreparedCallProvider {
 public:
  CudaEmulatorModuleNode(std::string source, std::vector<runtime::CudaFunctionInfo> functions,
                         const EmulatorModuleOptions& options)
      : functions_(std::move(functions)), options_(options) {
    if (const char* env = std::getenv("MINITVM_EMULATOR_CHECKED");
        env && *env && std::string(env) != "0")
      options_.checked = true;
    options_.outputs.resize(functions_.size());
    options_.updated.resize(functions_.size());
    for (size_t i = 0; i < functions_.size(); ++i)
      for (const auto* list : {&options_.outputs[i], &options_.updated[i]})
        for (int a : *list)
          MINITVM_RUNTIME_CHECK(
              a >= 0 && static_cast<size_t>(a) < functions_[i].signature.args.size() &&
              functions_[i].signature.args[a].kind == runtime::ArgSpec::Kind::Buffer)
              << "cuda-emulator module: " << functions_[i].signature.name << ": output index " << a
              << " is not a buffer argument";
    compiled_ = compile(source);
    for (const auto& f : functions_) {
      for (const auto& l : f.launches) {
        const auto& ks = kernels(*compiled_);
        auto it = std::find_if(ks.begin(), ks.end(),
                               [&](const KernelInfo& k) { return k.name == l.kernel; });
        MINITVM_RUNTIME_CHECK(it != ks.end())
            << "cuda-emulator module: function " << f.signature.name << " launches kernel "
            << l.kernel << ", which the CUDA source does not define";
        MINITVM_RUNTIME_CHECK(it->params.size() == l.args.size())
            << "cuda-emulator module: kernel " << l.kernel << " has " << it->params.size()
            << " parameters but " << f.signature.name << " passes " << l.args.size();
        const size_t n_args = f.signature.args.size() + f.temporaries.size();
        for (int a : l.args)
          MINITVM_RUNTIME_CHECK(a >= 0 && static_cast<size_t>(a) < n_args)
              << "cuda-emulator module: kernel " << l.kernel << " takes argument " << a << " of "
              << f.signature.name << ", which has " << f.signature.args.size() << " arguments and "
              << f.temporaries.size() << " temporaries";
      }
      for (const auto& t : f.temporaries)
        MINITVM_RUNTIME_CHECK(t.elements >= 0 && t.dtype.bytes() > 0 &&
                              t.elements <= (int64_t(1) << 40) / t.dtype.bytes())
            << "cuda-emulator module: " << f.signature.name << ": temporary '" << t.name
            << "' has an invalid size (" << t.elements << " x " << t.dtype.str() << ")";
    }
  }

  std::string type_key() const override { return "cuda-emulator"; }

  runtime::PackedFunc get_function(const std::string& name) override {
    for (size_t fi = 0; fi < functions_.size(); ++fi) {
      const auto& f = functions_[fi];
      if (f.signature.name != name) continue;
      std::shared_ptr<const CompiledKernels> compiled = compiled_;
      const runtime::CudaFunctionInfo info = f;
      auto run = [compiled, info](const std::vector<runtime::ArgValue>& args) {
        // Temporaries live for this call only. They start filled with 0xff bytes (NaN for floats,
        // -1 for integers) so that a kernel reading what no kernel wrote shows up in the results.
        std::vector<std::vector<unsigned char>> temps;
        for (const auto& t : info.temporaries)
          temps.emplace_back(static_cast<size_t>(t.elements * t.dtype.bytes()),
                             static_cast<unsigned char>(0xff));
        const size_t n_sig = info.signature.args.size();
        for (const auto& l : info.launches) {
          std::vector<EmuArg> kargs;
          for (int a : l.args) {
            if (static_cast<size_t>(a) >= n_sig) {
              auto& buf = temps[static_cast<size_t>(a) - n_sig];
              kargs.push_back(EmuArg::buffer(buf.data(), static_cast<int64_t>(buf.size())));
              continue;
            }
            const runtime::ArgValue& v = args[static_cast<size_t>(a)];
            if (const auto* nd = std::get_if<runtime::NDArray>(&v)) {
              kargs.push_back(EmuArg::buffer(nd->data(), nd->nbytes()));
            } else if (const auto* i = std::get_if<int64_t>(&v)) {
              kargs.push_back(EmuArg::scalar_int(*i));
            } else {
              kargs.push_back(EmuArg::scalar_float(std::get<double>(v)));
            }
          }
          LaunchOptions opt;
          opt.dynamic_shared_bytes = l.dynamic_shared_bytes;
          launch(*compiled, l.kernel, l.grid, l.block, kargs, opt);
        }
      };
      if (!options_.checked || options_.outputs[fi].empty()) {
        auto body = [run, info](const std::vector<runtime::ArgValue>& args) {
          runtime::check_arguments(info.signature, args, Device::cpu());
          run(args);
        };
        return runtime::PackedFunc(body, f.signature);
      }
      auto body = [run, info, outputs = options_.outputs[fi],
                   updated = options_.updated[fi]](const std::vector<runtime::ArgValue>& args) {
        runtime::check_arguments(info.signature, args, Device::cpu());
        checked_call(run, info, outputs, updated, args);
      };
      return runtime::PackedFunc(body, f.signature);
    }
    return {};
  }

  // Checked once here (so a graph's mismatches surface at setup) and again by every call.
  std::function<void()> prepare_call(const std::string& name,
                                     const std::vector<runtime::ArgValue>& args) override {
    runtime::PackedFunc f = get_function(name);
    if (!f) return {};
    runtime::check_arguments(f.signature(), args, Device::cpu());
    return [f, args] { f.call(args); };
  }

  std::string get_source(const std::string& format) const override {
    if (format.empty() || format == "cuda" || format == "cu") return source(*compiled_);
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
  EmulatorModuleOptions options_;
  std::shared_ptr<const CompiledKernels> compiled_;
};

}  // namespace

runtime::Module make_cuda_emulator_module(std::string cuda_source,
                                          std::vector<runtime::CudaFunctionInfo> functions,
                                          const EmulatorModuleOptions& options) {
  return runtime::Module(std::make_shared<CudaEmulatorModuleNode>(std::move(cuda_source),
                                                                  std::move(functions), options));
}

}  // namespace minitvm::runtime::emulator
