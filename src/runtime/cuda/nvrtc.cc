// NVRTC through dlopen: one wrapper with RAII, full error reports and a compile cache.
#include "minitvm/runtime/nvrtc.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "minitvm/support/target.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cuda_paths.h"
#include "support/host_tools.h"

namespace minitvm::runtime {

namespace fs = std::filesystem;

namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct NvrtcApi {
  const char* (*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int*, int*);
  nvrtcResult (*GetNumSupportedArchs)(int*);
  nvrtcResult (*GetSupportedArchs)(int*);
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*);
  nvrtcResult (*DestroyProgram)(nvrtcProgram*);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetPTX)(nvrtcProgram, char*);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*);
  std::string library;  // path that was loaded
};

// Candidate library paths: versioned sonames first (libnvrtc.so is only a dev symlink).
std::vector<std::string> nvrtc_candidates() {
  std::vector<std::string> out;
  for (const auto& root : cuda::cuda_roots()) {
    fs::path dir = fs::path(root) / "lib64";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<std::string> versioned;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string n = e.path().filename().string();
      if (n.rfind("libnvrtc.so.", 0) == 0) versioned.push_back(e.path().string());
    }
    std::sort(versioned.rbegin(), versioned.rend());  // newest major first
    out.insert(out.end(), versioned.begin(), versioned.end());
    out.push_back((dir / "libnvrtc.so").string());
  }
  for (int major = 13; major >= 11; --major) out.push_back("libnvrtc.so." + std::to_string(major));
  out.push_back("libnvrtc.so");
  return out;
}

const NvrtcApi* load_nvrtc(std::string* why) {
  static std::once_flag once;
  static NvrtcApi* api = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    std::string tried;
    for (const auto& cand : nvrtc_candidates()) {
      void* lib = dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        const char* e = dlerror();
        tried += "\n  " + cand + ": " + (e ? e : "?");
        continue;
      }
      auto* a = new NvrtcApi();
      bool ok = true;
      auto bind = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        if (!fn) ok = false;
      };
      bind(a->GetErrorString, "nvrtcGetErrorString");
      bind(a->Version, "nvrtcVersion");
      bind(a->GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
      bind(a->GetSupportedArchs, "nvrtcGetSupportedArchs");
      bind(a->CreateProgram, "nvrtcCreateProgram");
      bind(a->DestroyProgram, "nvrtcDestroyProgram");
      bind(a->CompileProgram, "nvrtcCompileProgram");
      bind(a->GetPTXSize, "nvrtcGetPTXSize");
      bind(a->GetPTX, "nvrtcGetPTX");
      bind(a->GetProgramLogSize, "nvrtcGetProgramLogSize");
      bind(a->GetProgramLog, "nvrtcGetProgramLog");
      if (!ok) {
        tried += "\n  " + cand + ": missing NVRTC symbols";
        delete a;
        dlclose(lib);
        continue;
      }
      a->library = cand;
      api = a;
      return;
    }
    failure = "NVRTC not found (libnvrtc could not be loaded); tried:" + tried;
  });
  if (!api && why) *why = failure;
  return api;
}

const NvrtcApi& nvrtc() {
  std::string why;
  const NvrtcApi* a = load_nvrtc(&why);
  if (!a) throw RuntimeError(why);
  return *a;
}

std::string status_name(const NvrtcApi& api, nvrtcResult r) {
  const char* s = api.GetErrorString(r);
  return s ? s : "NVRTC error " + std::to_string(r);
}

// Owns an nvrtcProgram: destroyed on every path out of nvrtc_compile.
class Program {
 public:
  Program(const NvrtcApi& api, const std::string& source, const std::string& name) : api_(api) {
    nvrtcResult r = api_.CreateProgram(&prog_, source.c_str(), name.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS)
      throw RuntimeError("nvrtcCreateProgram failed: " + status_name(api_, r));
  }
  ~Program() {
    if (prog_) api_.DestroyProgram(&prog_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return prog_; }
  std::string log() const {
    size_t n = 0;
    if (api_.GetProgramLogSize(prog_, &n) != NVRTC_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (api_.GetProgramLog(prog_, s.data()) != NVRTC_SUCCESS) return {};
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n')) s.pop_back();
    return s;
  }

 private:
  const NvrtcApi& api_;
  nvrtcProgram prog_ = nullptr;
};

// The device's architecture, clamped to what this NVRTC supports (like jitify); "" without a GPU.
std::string device_arch(const NvrtcApi& api) {
  if (!cuda::CudaDriver::available()) return {};
  auto& drv = cuda::CudaDriver::get();
  if (drv.device_count() == 0) return {};
  auto [major, minor] = drv.compute_capability(0);
  int cc = major * 10 + minor;
  int n = 0;
  if (api.GetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
    std::vector<int> archs(static_cast<size_t>(n));
    if (api.GetSupportedArchs(archs.data()) == NVRTC_SUCCESS) {
      int best = archs.front();
      for (int a : archs)
        if (a <= cc) best = std::max(best, a);
      cc = best;
    }
  }
  return "sm_" + std::to_string(cc);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::mutex g_cache_mu;
std::map<std::string, NvrtcResult> g_cache;

}  // namespace

NvrtcError::NvrtcError(std::string status, std::string log, std::vector<std::string> options,
                       std::string numbered_source)
    : CompileError("NVRTC compilation failed: " + status + "\noptions: " + join(options, " ") +
                   "\nlog:\n" + log + "\nsource:\n" + numbered_source),
      status_(std::move(status)),
      log_(std::move(log)),
      options_(std::move(options)),
      source_(std::move(numbered_source)) {}

std::string with_line_numbers(const std::string& source) {
  return support::with_line_numbers(source);
}

std::string find_cuda_include_dir() {
  for (const auto& root : cuda::cuda_roots()) {
    fs::path dir = fs::path(root) / "include";
    std::error_code ec;
    if (fs::is_regular_file(dir / "cuda_fp16.h", ec)) return dir.string();
  }
  return {};
}

bool nvrtc_available() {
  return load_nvrtc(nullptr) != nullptr;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtc().Version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

void nvrtc_clear_memory_cache() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  g_cache.clear();
}

std::vector<std::string> nvrtc_supported_archs() {
  const NvrtcApi& api = nvrtc();
  std::vector<std::string> out;
  int n = 0;
  if (api.GetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return out;
  std::vector<int> archs(static_cast<size_t>(n));
  if (api.GetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return out;
  for (int a : archs) out.push_back("sm_" + std::to_string(a));
  return out;
}

void check_nvrtc_arch(const std::string& arch, const std::string& what) {
  MINITVM_USER_CHECK(is_cuda_arch_syntax(arch))
      << what << ": invalid CUDA architecture '" << arch << "' (expected sm_XY, e.g. sm_80)";
  if (!nvrtc_available()) return;
  std::vector<std::string> archs = nvrtc_supported_archs();
  if (archs.empty()) return;  // this NVRTC cannot tell; it will say itself
  std::string base = arch;
  if (base.back() == 'a' || base.back() == 'f') base.pop_back();
  if (std::find(archs.begin(), archs.end(), base) != archs.end()) return;
  MINITVM_USER_ERROR << what << ": architecture '" << arch << "' is not supported by NVRTC "
                     << nvrtc_version() << " (supported: " << join(archs, ", ") << ")";
}

NvrtcResult nvrtc_compile(const std::string& source, const NvrtcOptions& opts) {
  const NvrtcApi& api = nvrtc();
  std::string arch = opts.arch;
  if (arch.empty()) arch = device_arch(api);
  if (arch.empty()) arch = "sm_90";
  check_nvrtc_arch(arch, "nvrtc_compile");

  std::vector<std::string> options = {"--gpu-architecture=compute_" + arch.substr(3)};
  std::string include = find_cuda_include_dir();
  if (!include.empty()) options.push_back("-I" + include);
  options.insert(options.end(), opts.extra_options.begin(), opts.extra_options.end());

  // The key covers everything that changes the PTX, including the NVRTC version.
  std::string key_text = source + '\0' + join(options, "\n") + '\0' + arch + '\0' + nvrtc_version();
  char key[17];
  std::snprintf(key, sizeof(key), "%016llx",
                static_cast<unsigned long long>(support::fnv1a(key_text)));
  fs::path disk_file =
      opts.cache_dir.empty() ? fs::path() : fs::path(opts.cache_dir) / (std::string(key) + ".ptx");

  if (opts.use_cache) {
    std::lock_guard<std::mutex> lock(g_cache_mu);
    auto it = g_cache.find(key);
    if (it != g_cache.end()) {
      NvrtcResult r = it->second;
      r.from_cache = true;
      return r;
    }
    std::error_code ec;
    if (!disk_file.empty() && fs::is_regular_file(disk_file, ec)) {
      std::ifstream in(disk_file, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      NvrtcResult r{ss.str(), arch, options, "", false};
      g_cache[key] = r;
      r.from_cache = true;
      return r;
    }
  }

  Program prog(api, source, opts.program_name);
  std::vector<const char*> copts;
  for (const auto& o : options) copts.push_back(o.c_str());
  nvrtcResult rc = api.CompileProgram(prog.get(), static_cast<int>(copts.size()), copts.data());
  std::string log = prog.log();  // fetched before looking at rc: warnings matter on success too
  if (rc != NVRTC_SUCCESS)
    throw NvrtcError(status_name(api, rc), log, options, with_line_numbers(source));

  size_t n = 0;
  rc = api.GetPTXSize(prog.get(), &n);
  if (rc != NVRTC_SUCCESS) throw RuntimeError("nvrtcGetPTXSize failed: " + status_name(api, rc));
  std::string ptx(n, '\0');
  rc = api.GetPTX(prog.get(), ptx.data());
  if (rc != NVRTC_SUCCESS) throw RuntimeError("nvrtcGetPTX failed: " + status_name(api, rc));
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();

  NvrtcResult result{ptx, arch, options, log, false};
  if (opts.use_cache) {
    std::lock_guard<std::mutex> lock(g_cache_mu);
    g_cache[key] = result;
    if (!disk_file.empty()) {
      std::error_code ec;
      fs::create_directories(disk_file.parent_path(), ec);
      // Write then rename, so a concurrent reader never sees a partial file.
      fs::path tmp = disk_file;
      tmp += ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(&result));
      std::ofstream out(tmp, std::ios::binary);
      out << ptx;
      out.close();
      if (out)
        fs::rename(tmp, disk_file, ec);
      else
        fs::remove(tmp, ec);
    }
  }
  return result;
}

}  // namespace minitvm::runtime
