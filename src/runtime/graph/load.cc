// load_compiled_graph and the section container of export_library files (graph_library.h). Runtime
// only: no LLVM, no NVRTC (part of minitvm_runtime_lite).
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/runtime/workspace.h"
#include "minitvm/support/error.h"
#include "runtime/cpu/jit.h"
#include "runtime/graph/graph_internal.h"

namespace minitvm::runtime {

namespace {

constexpr char kMagic[8] = {'M', 'T', 'V', 'M', 'G', 'L', 'I', 'B'};
constexpr uint32_t kVersion = 1;

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

// A dlopen'ed shared object as the JIT-module interface of the "llvm" module.
class DsoModule final : public cpu::JitModule {
 public:
  explicit DsoModule(void* handle) : handle_(handle) {}
  ~DsoModule() override { dlclose(handle_); }
  void* lookup(const std::string& name) override { return dlsym(handle_, name.c_str()); }

 private:
  void* handle_;
};

std::string temp_path(const std::string& stem) {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/" + stem + "_XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  MINITVM_RUNTIME_CHECK(fd >= 0) << "cannot create a temporary file " << tmpl << ": "
                                 << std::strerror(errno);
  close(fd);
  return std::string(buf.data());
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  MINITVM_RUNTIME_CHECK(out) << "cannot write " << path;
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  MINITVM_RUNTIME_CHECK(out.good()) << "error writing " << path;
}

}  // namespace

std::string read_binary_file(const std::string& path, const std::string& who) {
  std::ifstream in(path, std::ios::binary);
  MINITVM_RUNTIME_CHECK(in) << who << ": cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string pack_sections(const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string out(kMagic, sizeof kMagic);
  put<uint32_t>(out, kVersion);
  put<uint32_t>(out, static_cast<uint32_t>(sections.size()));
  for (const auto& [name, data] : sections) {
    put<uint64_t>(out, name.size());
    out += name;
    put<uint64_t>(out, data.size());
    out += data;
  }
  return out;
}

std::map<std::string, std::string> unpack_sections(const std::string& bytes,
                                                   const std::string& origin) {
  size_t pos = 0;
  auto need = [&](uint64_t n, const char* what) {
    MINITVM_RUNTIME_CHECK(n <= bytes.size() - pos)
        << origin << ": truncated at byte " << pos << " reading " << what;
  };
  auto get64 = [&](const char* what) {
    need(8, what);
    uint64_t v;
    std::memcpy(&v, bytes.data() + pos, 8);
    pos += 8;
    return v;
  };
  MINITVM_RUNTIME_CHECK(bytes.size() >= 16 && std::memcmp(bytes.data(), kMagic, 8) == 0)
      << origin << ": not a minitvm graph library (export_library file)";
  uint32_t version, count;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&count, bytes.data() + 12, 4);
  MINITVM_RUNTIME_CHECK(version == kVersion) << origin << ": graph library version " << version
                                             << ", this minitvm reads version " << kVersion;
  pos = 16;
  std::map<std::string, std::string> out;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t name_len = get64("a section name length");
    need(name_len, "a section name");
    std::string name = bytes.substr(pos, name_len);
    pos += name_len;
    const uint64_t len = get64("a section length");
    need(len, ("section '" + name + "'").c_str());
    out[name] = bytes.substr(pos, len);
    pos += len;
  }
  MINITVM_RUNTIME_CHECK(pos == bytes.size())
      << origin << ": " << bytes.size() - pos << " trailing bytes";
  return out;
}

std::string signatures_to_json(const std::vector<FunctionSignature>& sigs) {
  nlohmann::json funcs = nlohmann::json::array();
  for (const auto& sig : sigs) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& a : sig.args) {
      nlohmann::json j = {{"name", a.name},
                          {"kind", a.kind == ArgSpec::Kind::Buffer ? "buffer" : "scalar"},
                          {"dtype", a.dtype.str()}};
      if (a.kind == ArgSpec::Kind::Buffer) j["shape"] = a.shape;
      args.push_back(j);
    }
    funcs.push_back({{"name", sig.name}, {"args", args}});
  }
  return funcs.dump();
}

std::vector<FunctionSignature> signatures_from_json(const std::string& text,
                                                    const std::string& origin) {
  std::vector<FunctionSignature> out;
  try {
    for (const auto& f : nlohmann::json::parse(text)) {
      FunctionSignature sig;
      sig.name = f.at("name").get<std::string>();
      for (const auto& a : f.at("args")) {
        ArgSpec s;
        s.name = a.at("name").get<std::string>();
        const std::string kind = a.at("kind").get<std::string>();
        MINITVM_RUNTIME_CHECK(kind == "buffer" || kind == "scalar")
            << origin << ": function " << sig.name << ": unknown argument kind '" << kind << "'";
        s.kind = kind == "buffer" ? ArgSpec::Kind::Buffer : ArgSpec::Kind::Scalar;
        s.dtype = DataType::parse(a.at("dtype").get<std::string>());
        if (s.kind == ArgSpec::Kind::Buffer) s.shape = a.at("shape").get<std::vector<int64_t>>();
        sig.args.push_back(std::move(s));
      }
      out.push_back(std::move(sig));
    }
  } catch (const nlohmann::json::exception& e) {
    throw RuntimeError(origin + ": malformed section 'lib_functions': " + e.what());
  } catch (const CompileError& e) {
    throw RuntimeError(origin + ": malformed section 'lib_functions': " + e.what());
  }
  return out;
}

CompiledGraph load_compiled_graph(const std::string& path) {
  const std::string origin = "load_compiled_graph(" + path + ")";
  const auto sections = unpack_sections(read_binary_file(path, "load_compiled_graph"), origin);
  auto section = [&](const std::string& name) -> const std::string& {
    auto it = sections.find(name);
    MINITVM_RUNTIME_CHECK(it != sections.end()) << origin << ": missing section '" << name << "'";
    return it->second;
  };
  CompiledGraph g;
  g.target = section("target");
  if (auto md = sections.find("metadata"); md != sections.end()) g.metadata = md->second;
  g.graph_json = section("graph_json");
  try {
    g.params = load_param_dict(section("params"));
  } catch (const RuntimeError& e) {
    throw RuntimeError(origin + ": section 'params': " + e.what());
  }
  const std::string& type = section("lib_type");
  if (type == "llvm") {
    const std::vector<FunctionSignature> sigs =
        signatures_from_json(section("lib_functions"), origin);
    const std::string so = temp_path("minitvm_lib");
    write_file(so, section("lib_so"));
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* err = handle ? nullptr : dlerror();
    std::remove(so.c_str());  // the mapping stays valid
    MINITVM_RUNTIME_CHECK(handle) << origin << ": dlopen of the module's shared object failed: "
                                  << (err ? err : "");
    auto dso = std::make_shared<DsoModule>(handle);
    using SetRuntime = void (*)(decltype(&minitvm_parallel_for));
    auto set_runtime = reinterpret_cast<SetRuntime>(dso->lookup("__minitvm_set_runtime"));
    MINITVM_RUNTIME_CHECK(set_runtime)
        << origin << ": the shared object has no __minitvm_set_runtime entry";
    set_runtime(&minitvm_parallel_for);
    // Files written before the workspace entry points call aligned_alloc/free themselves.
    using SetWorkspace =
        void (*)(decltype(&minitvm_workspace_alloc), decltype(&minitvm_workspace_free));
    if (auto set_ws = reinterpret_cast<SetWorkspace>(dso->lookup("__minitvm_set_workspace")))
      set_ws(&minitvm_workspace_alloc, &minitvm_workspace_free);
    for (const auto& sig : sigs)
      MINITVM_RUNTIME_CHECK(dso->lookup(sig.name))
          << origin << ": the shared object does not define function '" << sig.name << "'";
    auto ll = sections.find("lib_ll");
    g.lib = cpu::make_llvm_module(dso, sigs, ll == sections.end() ? std::string() : ll->second);
  } else if (type == "cuda") {
    const std::string ptx = temp_path("minitvm_cuda");
    write_file(ptx, section("cuda_ptx"));
    write_file(ptx + ".json", section("cuda_json"));
    try {
      g.lib = load_cuda_module(ptx);
    } catch (...) {
      std::remove(ptx.c_str());
      std::remove((ptx + ".json").c_str());
      throw;
    }
    std::remove(ptx.c_str());
    std::remove((ptx + ".json").c_str());
  } else {
    throw RuntimeError(origin + ": unknown lib_type '" + type + "' (llvm or cuda)");
  }
  return g;
}

}  // namespace minitvm::runtime
