// export_library (graph_library.h): LLVM object -> shared object with the system compiler, or the
// CUDA module's PTX + launch JSON, packed with the graph JSON and params into one file. Needs the
// full runtime (LLVM); the loading side is load.cc.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/runtime/graph_library.h"
#include "minitvm/support/error.h"
#include "runtime/cpu/jit_object.h"
#include "runtime/graph/graph_internal.h"
#include "support/host_tools.h"

namespace minitvm::runtime {

namespace {

namespace fs = std::filesystem;

// Linked into every exported shared object. The generated code calls minitvm_parallel_for; the
// stub's hidden definition binds those calls inside the object and forwards them to the pointer
// the loader installs, so the object never depends on how the loading process exports symbols.
constexpr const char* kRuntimeStub = R"(// minitvm export_library runtime stub
#include <cstdint>
#include <cstdlib>
extern "C" {
typedef void (*minitvm_parallel_body)(int64_t task, void* closure);
typedef int32_t (*minitvm_parallel_for_fn)(int64_t, minitvm_parallel_body, void*);
static minitvm_parallel_for_fn g_parallel_for = nullptr;
__attribute__((visibility("hidden"))) int32_t minitvm_parallel_for(int64_t n, minitvm_parallel_body body,
                                                                   void* closure) {
  if (!g_parallel_for) {  // not installed: run serially
    for (int64_t i = 0; i < n; ++i) body(i, closure);
    return 0;
  }
  return g_parallel_for(n, body, closure);
}
__attribute__((visibility("default"))) void __minitvm_set_runtime(minitvm_parallel_for_fn f) { g_parallel_for = f; }
typedef void* (*minitvm_workspace_alloc_fn)(int64_t);
typedef void (*minitvm_workspace_free_fn)(void*);
static minitvm_workspace_alloc_fn g_ws_alloc = nullptr;
static minitvm_workspace_free_fn g_ws_free = nullptr;
__attribute__((visibility("hidden"))) void* minitvm_workspace_alloc(int64_t bytes) {
  if (!g_ws_alloc) return std::aligned_alloc(64, (static_cast<size_t>(bytes) + 63) & ~size_t{63});
  return g_ws_alloc(bytes);
}
__attribute__((visibility("hidden"))) void minitvm_workspace_free(void* p) {
  if (!g_ws_free) return std::free(p);
  g_ws_free(p);
}
__attribute__((visibility("default"))) void __minitvm_set_workspace(minitvm_workspace_alloc_fn a,
                                                                    minitvm_workspace_free_fn f) {
  g_ws_alloc = a;
  g_ws_free = f;
}
}
)";

void write_file(const fs::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  MINITVM_RUNTIME_CHECK(out) << "export_library: cannot write " << path.string();
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  MINITVM_RUNTIME_CHECK(out.good()) << "export_library: error writing " << path.string();
}

std::vector<FunctionSignature> signatures_of(const Module& lib) {
  std::vector<FunctionSignature> sigs;
  for (const std::string& name : lib.function_names())
    sigs.push_back(lib.get_function(name).signature());
  return sigs;
}

}  // namespace

void export_library(const CompiledGraph& g, const std::string& path, const ExportOptions& options) {
  MINITVM_USER_CHECK(g.lib) << "export_library: the CompiledGraph has no module";
  parse_graph_json(g.graph_json);  // a file that cannot load is not written
  std::vector<std::pair<std::string, std::string>> sections = {
      {"target", g.target}, {"graph_json", g.graph_json}, {"params", save_param_dict(g.params)}};
  if (!g.metadata.empty()) sections.push_back({"metadata", g.metadata});
  const std::string type = g.lib.type_key();
  support::TempDir tmp("minitvm_export_", "export_library");
  std::vector<Module> llvm_parts;
  if (type == "llvm") {
    llvm_parts = {g.lib};
  } else if (auto* multi = dynamic_cast<const CombinedModule*>(g.lib.node())) {
    for (const Module& part : multi->parts()) {
      MINITVM_USER_CHECK(part.type_key() == "llvm")
          << "export_library: a combined module can be exported when all its parts are llvm "
             "modules; one is '"
          << part.type_key() << "'";
      llvm_parts.push_back(part);
    }
  }
  if (!llvm_parts.empty()) {
    std::string ir;
    std::vector<std::string> objects;
    for (size_t i = 0; i < llvm_parts.size(); ++i) {
      const std::string text = llvm_parts[i].get_source("ll");
      ir += (i ? "\n" : "") + text;
      objects.push_back((tmp.path() / ("lib" + std::to_string(i) + ".o")).string());
      write_file(objects.back(), cpu::jit_emit_object(text));
    }
    write_file(tmp.path() / "runtime_stub.cc", kRuntimeStub);
    std::vector<std::string> cmd;
    {
      std::istringstream is(options.cc);
      for (std::string w; is >> w;) cmd.push_back(w);
    }
    MINITVM_USER_CHECK(!cmd.empty()) << "export_library: empty compiler command";
    for (const char* f : {"-shared", "-fPIC", "-O2", "-Wl,-z,defs", "-o"}) cmd.push_back(f);
    cmd.push_back((tmp.path() / "lib.so").string());
    for (const auto& o : objects) cmd.push_back(o);
    cmd.push_back((tmp.path() / "runtime_stub.cc").string());
    cmd.push_back("-lm");
    for (const auto& f : options.flags) cmd.push_back(f);
    const std::string log = (tmp.path() / "log.txt").string();
    const int rc = support::run_process(cmd, log);
    if (rc != 0) {
      std::string cmdline;
      for (const auto& w : cmd) cmdline += (cmdline.empty() ? "" : " ") + w;
      std::string text = fs::exists(log) ? read_binary_file(log, "export_library")
                                         : "(could not run the compiler)";
      throw RuntimeError("export_library: linking the shared object failed (exit " +
                         std::to_string(rc) + ", `" + cmdline + "`):\n" + text);
    }
    sections.push_back({"lib_type", "llvm"});
    sections.push_back(
        {"lib_so", read_binary_file((tmp.path() / "lib.so").string(), "export_library")});
    sections.push_back({"lib_functions", signatures_to_json(signatures_of(g.lib))});
    sections.push_back({"lib_ll", ir});
  } else if (type == "cuda") {
    const std::string ptx = (tmp.path() / "lib.ptx").string();
    g.lib.save(ptx);
    sections.push_back({"lib_type", "cuda"});
    sections.push_back({"cuda_ptx", read_binary_file(ptx, "export_library")});
    sections.push_back({"cuda_json", read_binary_file(ptx + ".json", "export_library")});
  } else {
    throw CompileError(
        "export_library: a module of type '" + type +
        "' cannot be exported (llvm and cuda modules can; build for \"cuda\" instead of \"cuda "
        "-emulate\")");
  }
  write_file(path, pack_sections(sections));
}

}  // namespace minitvm::runtime
