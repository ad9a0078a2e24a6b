// The "cuda" runtime module: PTX + launch metadata, loaded lazily per device; save/load files.
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minitvm/runtime/cuda.h"
#include "minitvm/support/error.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/prepared_call.h"

namespace minitvm::runtime {

namespace {

using nlohmann::json;
constexpr const char* kFormat = "minitvm-cuda-module";
constexpr int kVersion = 1;

/** check_arguments on the device of the first buffer argument (cuda:0 without one): all buffers
 *  must then be on that device, which is returned. */
Device check_arguments_on_device(const FunctionSignature& sig, const std::vector<ArgValue>& args) {
  Device dev = Device::cuda(0);
  for (const auto& a : args)
    if (const auto* nd = std::get_if<NDArray>(&a); nd && nd->defined()) {
      if (nd->device().is_cuda()) dev = nd->device();
      break;
    }
  check_arguments(sig, args, dev);
  return dev;
}

void validate(const CudaFunctionInfo& info, const std::string& origin) {
  const auto& sig = info.signature;
  MINITVM_RUNTIME_CHECK(!sig.name.empty()) << origin << ": CUDA function without a name";
  for (const auto& t : info.temporaries)
    MINITVM_RUNTIME_CHECK(t.elements >= 0 && t.dtype.bytes() > 0 &&
                          t.elements <= (int64_t(1) << 48) / t.dtype.bytes())
        << origin << ": " << sig.name << ": temporary '" << t.name << "' has an invalid size ("
        << t.elements << " x " << t.dtype.str() << ")";
  const size_t n_args = sig.args.size() + info.temporaries.size();
  for (const auto& l : info.launches) {
    MINITVM_RUNTIME_CHECK(!l.kernel.empty())
        << origin << ": " << sig.name << ": launch without a kernel name";
    for (int a : l.args)
      MINITVM_RUNTIME_CHECK(a >= 0 && static_cast<size_t>(a) < n_args)
          << origin << ": " << sig.name << ": kernel " << l.kernel << " uses argument index " << a
          << " but the function has " << sig.args.size() << " arguments and "
          << info.temporaries.size() << " temporaries";
    for (int d = 0; d < 3; ++d)
      MINITVM_RUNTIME_CHECK(l.grid[d] >= 1 && l.block[d] >= 1 && l.grid[d] <= 0x7fffffff &&
                            l.block[d] <= 1024)
          << origin << ": " << sig.name << ": kernel " << l.kernel
          << " has invalid launch dimensions";
    MINITVM_RUNTIME_CHECK(l.dynamic_shared_bytes >= 0)
        << origin << ": " << sig.name << ": negative dynamic shared memory";
  }
}

class CudaModuleNode final : public ModuleNode,
                             public PreparedCallProvider,
                             public std::enable_shared_from_this<CudaModuleNode> {
 public:
  CudaModuleNode(std::string ptx, std::vector<CudaFunctionInfo> functions, std::string source,
                 std::string arch)
      : ptx_(std::move(ptx)), source_(std::move(source)), arch_(std::move(arch)) {
    for (auto& f : functions) {
      validate(f, "make_cuda_module");
      const std::string name = f.signature.name;
      MINITVM_RUNTIME_CHECK(!functions_.count(name))
          << "make_cuda_module: duplicate function " << name;
      names_.push_back(name);
      functions_[name] = std::move(f);
    }
  }

  ~CudaModuleNode() override {
    if (loaded_.empty() && temps_.empty()) return;
    auto& drv = cuda::CudaDriver::get();  // non-empty only if the driver exists
    for (auto& [key, ptrs] : temps_)
      for (cuda::CUdeviceptr p : ptrs) drv.mem_free(p, key.second);
    for (auto& [dev, state] : loaded_) {
      try {
        drv.set_device(dev);
      } catch (...) {
      }
      drv.module_unload(state.module);
    }
  }

  std::string type_key() const override { return "cuda"; }

  PackedFunc get_function(const std::string& name) override {
    auto it = functions_.find(name);
    if (it == functions_.end()) return {};
    std::shared_ptr<CudaModuleNode> self = shared_from_this();
    const CudaFunctionInfo* info = &it->second;
    return PackedFunc([self, info](const std::vector<ArgValue>& args) { self->run(*info, args); },
                      info->signature);
  }

  // Everything a call needs is resolved here: the device, the kernel handles (the PTX is loaded),
  // the temporaries and the parameter pointers; the closure only launches.
  std::function<void()> prepare_call(const std::string& name,
                                     const std::vector<ArgValue>& args) override {
    auto it = functions_.find(name);
    if (it == functions_.end()) return {};
    const CudaFunctionInfo* info = &it->second;
    const FunctionSignature& sig = info->signature;
    const Device dev = check_arguments_on_device(sig, args);
    struct Bound {
      std::shared_ptr<CudaModuleNode> self;
      std::vector<ArgValue> args;
      std::vector<uint64_t> slots;
      std::vector<cuda::CUfunction> kernels;
      std::vector<std::vector<void*>> params;
    };
    auto b = std::make_shared<Bound>();
    b->self = shared_from_this();
    b->args = args;
    b->slots.resize(args.size() + info->temporaries.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (sig.args[i].kind == ArgSpec::Kind::Buffer) {
        b->slots[i] = reinterpret_cast<uintptr_t>(std::get<NDArray>(args[i]).data());
      } else {
        encode_scalar(sig.args[i], args[i], &b->slots[i]);
      }
    }
    if (!info->temporaries.empty()) {
      std::lock_guard<std::mutex> lock(temps_mu_);
      const std::vector<cuda::CUdeviceptr>& ptrs = temporaries(*info, dev.id);
      for (size_t t = 0; t < ptrs.size(); ++t)
        b->slots[args.size() + t] = static_cast<uint64_t>(ptrs[t]);
    }
    for (const KernelLaunch& l : info->launches) {
      b->kernels.push_back(kernel(dev.id, l.kernel));
      std::vector<void*> params;
      for (int a : l.args) params.push_back(&b->slots[static_cast<size_t>(a)]);
      b->params.push_back(std::move(params));
    }
    const int id = dev.id;
    return [b, info, id] {
      auto& drv = cuda::CudaDriver::get();
      // Shared temporaries: see run().
      std::unique_lock<std::mutex> lock(b->self->temps_mu_, std::defer_lock);
      if (!info->temporaries.empty()) lock.lock();
      drv.set_device(id);
      for (size_t k = 0; k < info->launches.size(); ++k) {
        const KernelLaunch& l = info->launches[k];
        drv.launch(b->kernels[k], l.grid, l.block, l.dynamic_shared_bytes, b->params[k].data(),
                   l.kernel);
      }
    };
  }

  std::string get_source(const std::string& format) const override {
    if (format.empty() || format == "cuda" || format == "cu") return source_;
    if (format == "ptx") return ptx_;
    throw RuntimeError("cuda module: unknown source format '" + format +
                       "' (use \"cuda\" or \"ptx\")");
  }

  std::vector<std::string> function_names() const override { return names_; }

  void save(const std::string& path) const override;

  /** Load the PTX on `dev` unless it is loaded (see cuda_module_load). */
  void load_on(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    module_on(dev);
  }

 private:
  struct Loaded {
    cuda::CUmodule module = nullptr;
    std::map<std::string, cuda::CUfunction> kernels;
  };

  // The module's state on `dev`, loading the PTX there first if needed; mu_ held.
  Loaded& module_on(int dev) {
    Loaded& st = loaded_[dev];
    if (!st.module) {
      try {
        st.module = cuda::CudaDriver::get().module_load(ptx_, dev);
      } catch (...) {
        loaded_.erase(dev);
        throw;
      }
    }
    return st;
  }

  cuda::CUfunction kernel(int dev, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& drv = cuda::CudaDriver::get();
    Loaded& st = module_on(dev);
    auto it = st.kernels.find(name);
    if (it != st.kernels.end()) return it->second;
    drv.set_device(dev);
    cuda::CUfunction f = drv.module_get_function(st.module, name);
    st.kernels[name] = f;
    return f;
  }

  void run(const CudaFunctionInfo& info, const std::vector<ArgValue>& args) {
    const FunctionSignature& sig = info.signature;
    const Device dev = check_arguments_on_device(sig, args);
    // Slots: the arguments, then the temporaries (KernelLaunch::args index both, see module.h).
    std::vector<uint64_t> slots(args.size() + info.temporaries.size());
    for (size_t i = 0; i < args.size(); ++i) {
      if (sig.args[i].kind == ArgSpec::Kind::Buffer) {
        slots[i] = reinterpret_cast<uintptr_t>(std::get<NDArray>(args[i]).data());
      } else {
        encode_scalar(sig.args[i], args[i], &slots[i]);
      }
    }
    auto& drv = cuda::CudaDriver::get();
    // Temporaries are allocated once per (function, device) and reused by every call. All launches
    // go to the legacy default stream, which orders them across host threads, so holding the lock
    // while one call enqueues its launches keeps calls from interleaving on shared temporaries.
    std::unique_lock<std::mutex> temps_lock(temps_mu_, std::defer_lock);
    if (!info.temporaries.empty()) {
      temps_lock.lock();
      const std::vector<cuda::CUdeviceptr>& ptrs = temporaries(info, dev.id);
      for (size_t t = 0; t < ptrs.size(); ++t)
        slots[args.size() + t] = static_cast<uint64_t>(ptrs[t]);
    }
    for (const KernelLaunch& l : info.launches) {
      cuda::CUfunction f = kernel(dev.id, l.kernel);
      std::vector<void*> params;
      for (int a : l.args) params.push_back(&slots[static_cast<size_t>(a)]);
      drv.set_device(dev.id);
      drv.launch(f, l.grid, l.block, l.dynamic_shared_bytes, params.data(), l.kernel);
    }
  }

  /** The device buffers of `info`'s temporaries on `dev` (allocated on first use); temps_mu_ held.
   */
  const std::vector<cuda::CUdeviceptr>& temporaries(const CudaFunctionInfo& info, int dev) {
    auto key = std::make_pair(info.signature.name, dev);
    auto it = temps_.find(key);
    if (it != temps_.end()) return it->second;
    auto& drv = cuda::CudaDriver::get();
    std::vector<cuda::CUdeviceptr> ptrs;
    try {
      for (const TempBuffer& t : info.temporaries) {
        size_t bytes = static_cast<size_t>(t.elements) * static_cast<size_t>(t.dtype.bytes());
        ptrs.push_back(drv.mem_alloc(bytes > 0 ? bytes : 1, dev));
      }
    } catch (...) {
      for (cuda::CUdeviceptr p : ptrs) drv.mem_free(p, dev);
      throw;
    }
    return temps_.emplace(key, std::move(ptrs)).first->second;
  }

  std::string ptx_, source_, arch_;
  std::vector<std::string> names_;
  std::map<std::string, CudaFunctionInfo> functions_;
  std::mutex mu_;
  std::map<int, Loaded> loaded_;
  std::mutex temps_mu_;
  std::map<std::pair<std::string, int>, std::vector<cuda::CUdeviceptr>> temps_;
};

json to_json(const CudaFunctionInfo& info) {
  json args = json::array();
  for (const auto& a : info.signature.args) {
    json j = {{"name", a.name},
              {"kind", a.kind == ArgSpec::Kind::Buffer ? "buffer" : "scalar"},
              {"dtype", a.dtype.str()}};
    if (a.kind == ArgSpec::Kind::Buffer) j["shape"] = a.shape;
    args.push_back(j);
  }
  json launches = json::array();
  for (const auto& l : info.launches) {
    launches.push_back({{"kernel", l.kernel},
                        {"args", l.args},
                        {"grid", l.grid},
                        {"block", l.block},
                        {"dynamic_shared_bytes", l.dynamic_shared_bytes}});
  }
  json j = {{"name", info.signature.name}, {"args", args}, {"launches", launches}};
  // Written only when there are temporaries, so files of functions without them are unchanged.
  if (!info.temporaries.empty()) {
    json temps = json::array();
    for (const auto& t : info.temporaries)
      temps.push_back({{"name", t.name}, {"dtype", t.dtype.str()}, {"elements", t.elements}});
    j["temporaries"] = temps;
  }
  return j;
}

CudaFunctionInfo from_json(const json& j) {
  CudaFunctionInfo info;
  info.signature.name = j.at("name").get<std::string>();
  for (const auto& a : j.at("args")) {
    ArgSpec s;
    s.name = a.at("name").get<std::string>();
    const std::string kind = a.at("kind").get<std::string>();
    MINITVM_RUNTIME_CHECK(kind == "buffer" || kind == "scalar")
        << "unknown argument kind '" << kind << "'";
    s.kind = kind == "buffer" ? ArgSpec::Kind::Buffer : ArgSpec::Kind::Scalar;
    s.dtype = DataType::parse(a.at("dtype").get<std::string>());
    if (s.kind == ArgSpec::Kind::Buffer) s.shape = a.at("shape").get<std::vector<int64_t>>();
    info.signature.args.push_back(std::move(s));
  }
  for (const auto& l : j.at("launches")) {
    KernelLaunch k;
    k.kernel = l.at("kernel").get<std::string>();
    k.args = l.at("args").get<std::vector<int>>();
    k.grid = l.at("grid").get<std::array<int64_t, 3>>();
    k.block = l.at("block").get<std::array<int64_t, 3>>();
    k.dynamic_shared_bytes = l.value("dynamic_shared_bytes", int64_t(0));
    info.launches.push_back(std::move(k));
  }
  // Optional (older files have none).
  if (j.contains("temporaries")) {
    for (const auto& t : j.at("temporaries")) {
      TempBuffer b;
      b.name = t.at("name").get<std::string>();
      b.dtype = DataType::parse(t.at("dtype").get<std::string>());
      b.elements = t.at("elements").get<int64_t>();
      info.temporaries.push_back(std::move(b));
    }
  }
  return info;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  MINITVM_RUNTIME_CHECK(in) << "load_cuda_module: cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void CudaModuleNode::save(const std::string& path) const {
  json funcs = json::array();
  for (const auto& n : names_) funcs.push_back(to_json(functions_.at(n)));
  json meta = {{"format", kFormat},
               {"version", kVersion},
               {"arch", arch_},
               {"cuda_source", source_},
               {"functions", funcs}};
  {
    std::ofstream out(path, std::ios::binary);
    MINITVM_RUNTIME_CHECK(out) << "cannot write " << path;
    out << ptx_;
    MINITVM_RUNTIME_CHECK(out.good()) << "error writing " << path;
  }
  std::ofstream out(path + ".json", std::ios::binary);
  MINITVM_RUNTIME_CHECK(out) << "cannot write " << path << ".json";
  out << meta.dump(2) << "\n";
  MINITVM_RUNTIME_CHECK(out.good()) << "error writing " << path << ".json";
}

}  // namespace

bool cuda_available() {
  return cuda_device_count() > 0;
}

int cuda_device_count() {
  if (!cuda::CudaDriver::available()) return 0;
  try {
    return cuda::CudaDriver::get().device_count();
  } catch (const RuntimeError&) {
    return 0;
  }
}

std::string cuda_unavailable_reason() {
  if (!cuda::CudaDriver::available()) return cuda::CudaDriver::unavailable_reason();
  return cuda_device_count() > 0 ? std::string()
                                 : std::string("the CUDA driver reports no devices");
}

std::pair<int, int> cuda_compute_capability(int device) {
  return cuda::CudaDriver::get().compute_capability(device);
}

void cuda_synchronize(Device dev) {
  MINITVM_USER_CHECK(dev.is_cuda()) << "cuda_synchronize: " << dev << " is not a CUDA device";
  cuda::CudaDriver::get().synchronize(dev.id);
}

void cuda_module_load(const Module& m, Device dev) {
  auto* node = dynamic_cast<CudaModuleNode*>(m.node());
  MINITVM_USER_CHECK(node) << "cuda_module_load: the module is "
                           << (m ? "of type '" + m.type_key() + "'" : std::string("empty"))
                           << ", not \"cuda\"";
  MINITVM_USER_CHECK(dev.is_cuda()) << "cuda_module_load: " << dev << " is not a CUDA device";
  node->load_on(dev.id);
}

Module make_cuda_module(std::string ptx, std::vector<CudaFunctionInfo> functions,
                        std::string cuda_source, std::string arch) {
  return Module(std::make_shared<CudaModuleNode>(std::move(ptx), std::move(functions),
                                                 std::move(cuda_source), std::move(arch)));
}

Module load_cuda_module(const std::string& path) {
  std::string ptx = read_file(path);
  std::string meta_text = read_file(path + ".json");
  json meta;
  try {
    meta = json::parse(meta_text);
  } catch (const json::exception& e) {
    throw RuntimeError("load_cuda_module: " + path + ".json is not valid JSON: " + e.what());
  }
  MINITVM_RUNTIME_CHECK(meta.is_object() && meta.value("format", "") == kFormat)
      << "load_cuda_module: " << path << ".json is not a minitvm CUDA module description";
  MINITVM_RUNTIME_CHECK(meta.value("version", 0) == kVersion)
      << "load_cuda_module: " << path << ".json has version " << meta.value("version", 0)
      << ", this minitvm reads version " << kVersion;
  std::vector<CudaFunctionInfo> funcs;
  try {
    for (const auto& f : meta.at("functions")) funcs.push_back(from_json(f));
  } catch (const json::exception& e) {
    throw RuntimeError("load_cuda_module: malformed " + path + ".json: " + e.what());
  } catch (const CompileError& e) {
    throw RuntimeError("load_cuda_module: malformed " + path + ".json: " + e.what());
  }
  for (const auto& f : funcs) validate(f, "load_cuda_module(" + path + ")");
  return make_cuda_module(std::move(ptx), std::move(funcs), meta.value("cuda_source", ""),
                          meta.value("arch", "sm_90"));
}

}  // namespace minitvm::runtime
