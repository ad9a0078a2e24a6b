// Host compilation of CUDA sources for the emulator: rewrite, write the prelude and stand-in
// headers next to the source, run the system C++ compiler, dlopen, cache by source hash.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/emulator/abi.h"
#include "runtime/emulator/prelude.h"
#include "support/host_tools.h"

namespace minitvm::runtime::emulator {

/** Compiled objects currently loaded (dlopen'ed and not yet closed). */
static std::atomic<int64_t> g_loaded_objects{0};

namespace {

namespace fs = std::filesystem;

const char* const kCompileFlags[] = {"-std=c++17",           "-O1",     "-fPIC",          "-w",
                                     "-fno-strict-aliasing", "-fwrapv", "-fno-math-errno"};

std::vector<std::string> compiler_command() {
  std::string cxx = "c++";
  if (const char* env = std::getenv("CXX"); env && *env) cxx = env;
  std::vector<std::string> words;
  std::istringstream is(cxx);
  for (std::string w; is >> w;) words.push_back(w);
  return words;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw EmulatorError("CUDA emulator: cannot write " + p.string());
}

/** The stubs appended to the rewritten source: one entry point per kernel. */
std::string make_stubs(const RewrittenSource& rw) {
  std::ostringstream os;
  os << "\n#line 1 \"<emulator stubs>\"\n";
  for (const KernelInfo& k : rw.kernels) {
    os << "extern \"C\" __attribute__((visibility(\"default\"))) void __emu_stub_" << k.name
       << "(void* const* a) {\n  " << k.name << "(";
    for (size_t i = 0; i < k.params.size(); ++i) {
      const KernelParam& p = k.params[i];
      if (i) os << ", ";
      if (p.is_pointer)
        os << "__emu_gptr<" << p.c_type << " >(a[" << i << "])";
      else
        os << "__emu_scalar_arg<" << p.c_type << " >::get(a[" << i << "])";
    }
    os << ");\n  __emu_win_flush();\n}\n";
    os << "extern \"C\" __attribute__((visibility(\"default\"))) const long long __emu_psize_"
       << k.name << "[] = {";
    for (const KernelParam& p : k.params) {
      if (p.is_pointer)
        os << "(long long)sizeof(" << p.c_type << "), ";
      else
        os << "0, ";
    }
    os << "-1};\n";
  }
  return os.str();
}

std::string prelude_text() {
  return std::string(detail::kPreludeCore) + detail::kPreludeMath;
}

/**
 * The prelude and stand-in headers with a precompiled prelude when the compiler can make one (it
 * halves the per-kernel compile time). Shared by all processes of this user: the directory
 * $TMPDIR/minitvm-emu-<uid>-<hash of the prelude, compiler and flags> is built under a temporary
 * name and renamed into place, so it is either complete or absent; it is never modified after.
 */
struct IncludeDir {
  fs::path path;
  IncludeDir();
};

const IncludeDir& include_dir() {
  static IncludeDir dir;
  return dir;
}

/** Compiles `text` into `so_path` in `dir`; throws EmulatorError with the log on failure. */
void host_compile(const fs::path& dir, const std::string& text, const fs::path& so_path,
                  const std::string& cuda_source) {
  const fs::path inc = include_dir().path;
  write_file(dir / "kernel.cc", text);
  std::vector<std::string> cmd = compiler_command();
  for (const char* f : kCompileFlags) cmd.push_back(f);
  cmd.push_back("-shared");
  cmd.push_back("-I" + inc.string());
  cmd.push_back("-include");
  cmd.push_back((inc / "minitvm_emu_prelude.h").string());
  cmd.push_back((dir / "kernel.cc").string());
  cmd.push_back("-o");
  cmd.push_back(so_path.string());
  const int rc = support::run_process(cmd, dir / "log.txt");
  if (rc != 0) {
    std::string cmdline;
    for (const auto& w : cmd) cmdline += (cmdline.empty() ? "" : " ") + w;
    std::string log = rc == -1 && !fs::exists(dir / "log.txt")
                          ? "(could not run the compiler)"
                          : support::read_text_file(dir / "log.txt");
    throw EmulatorError("CUDA emulator: host compilation of the CUDA source failed (exit " +
                        std::to_string(rc) + ", `" + cmdline + "`):\n" + log +
                        "--- CUDA source ---\n" + support::with_line_numbers(cuda_source));
  }
}

IncludeDir::IncludeDir() {
  std::string key =
      prelude_text() + detail::kFp16Header + detail::kBf16Header + detail::kMathConstantsHeader;
  for (const auto& w : compiler_command()) key += "\n" + w;
  for (const char* f : kCompileFlags) key += std::string("\n") + f;
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(support::fnv1a(key)));
  const char* tmp = std::getenv("TMPDIR");
  const fs::path root = tmp && *tmp ? tmp : "/tmp";
  const fs::path final_path = root / ("minitvm-emu-" + std::to_string(getuid()) + "-" + hex);
  std::error_code ec;
  if (fs::exists(final_path / "ready", ec)) {
    path = final_path;
    return;
  }
  std::string templ = final_path.string() + ".tmp-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw EmulatorError("CUDA emulator: cannot create a temporary directory in " + templ);
  const fs::path work = buf.data();
  write_file(work / "minitvm_emu_prelude.h", prelude_text());
  write_file(work / "cuda_fp16.h", std::string("#pragma once\n") + detail::kFp16Header);
  write_file(work / "cuda_bf16.h", detail::kBf16Header);
  write_file(work / "math_constants.h", detail::kMathConstantsHeader);
  write_file(work / "cuda_runtime.h", "#pragma once\n");
  write_file(work / "sm_61_intrinsics.h", "#pragma once\n");
  // Precompiled prelude; when it cannot be built or used the compiler reads the header instead.
  std::vector<std::string> cmd = compiler_command();
  for (const char* f : kCompileFlags) cmd.push_back(f);
  cmd.push_back("-x");
  cmd.push_back("c++-header");
  cmd.push_back((work / "minitvm_emu_prelude.h").string());
  cmd.push_back("-o");
  cmd.push_back((work / "minitvm_emu_prelude.h.gch").string());
  if (support::run_process(cmd, work / "pch.log") != 0)
    fs::remove(work / "minitvm_emu_prelude.h.gch", ec);
  write_file(work / "ready", "");
  fs::rename(work, final_path, ec);
  if (ec) {
    if (fs::exists(final_path / "ready")) {  // another process won the race
      fs::remove_all(work, ec);
      path = final_path;
    } else {
      path = work;  // unusual; use the private copy (left behind)
    }
    return;
  }
  path = final_path;
}

std::shared_ptr<CompiledKernels> load(const fs::path& so_path, const std::string& source,
                                      RewrittenSource rw) {
  auto ck = std::make_shared<CompiledKernels>();
  ck->source = source;
  ck->rewritten = std::move(rw);
  ck->handle = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!ck->handle) {
    const char* err = dlerror();
    throw EmulatorError(std::string("CUDA emulator: cannot load the compiled kernels: ") +
                        (err ? err : "?"));
  }
  g_loaded_objects.fetch_add(1);
  auto* ver = static_cast<const int*>(dlsym(ck->handle, "__emu_abi_version"));
  ck->rt = static_cast<detail::Rt*>(dlsym(ck->handle, "__emu_rt"));
  if (!ver || *ver != detail::kAbiVersion || !ck->rt)
    throw EmulatorError("CUDA emulator: compiled object " + so_path.string() +
                        " has a different ABI version");
  for (const KernelInfo& k : ck->rewritten.kernels) {
    CompiledKernels::Entry e;
    e.stub = reinterpret_cast<detail::StubFn>(dlsym(ck->handle, ("__emu_stub_" + k.name).c_str()));
    e.param_elem_bytes =
        static_cast<const long long*>(dlsym(ck->handle, ("__emu_psize_" + k.name).c_str()));
    if (!e.stub || !e.param_elem_bytes)
      throw EmulatorError("CUDA emulator: kernel " + k.name + " missing from the compiled object");
    ck->entries.push_back(e);
  }
  return ck;
}

}  // namespace

CompiledKernels::~CompiledKernels() {
  if (handle) {
    dlclose(handle);
    g_loaded_objects.fetch_sub(1);
  }
}

const std::vector<KernelInfo>& kernels(const CompiledKernels& c) {
  return c.rewritten.kernels;
}
const std::string& source(const CompiledKernels& c) {
  return c.source;
}

std::shared_ptr<const CompiledKernels> compile(const std::string& cuda_source) {
  // The cache does not own the objects: each one is unloaded (dlclose) when the last module using
  // it dies, and a later compile of the same source builds it again (or copies it from the disk
  // cache). Expired entries are dropped whenever their key is looked up or stored again.
  static std::mutex mu;
  static std::map<uint64_t, std::vector<std::weak_ptr<CompiledKernels>>> cache;
  RewrittenSource rw = rewrite_cuda_source(cuda_source);
  if (rw.kernels.empty())
    throw EmulatorError("CUDA emulator: the source defines no __global__ function");
  const std::string text = "#line 1 \"kernel.cu\"\n" + rw.text + make_stubs(rw);
  std::string key_text = prelude_text() + detail::kFp16Header + detail::kBf16Header +
                         detail::kMathConstantsHeader + text;
  for (const auto& w : compiler_command()) key_text += "\n" + w;
  for (const char* f : kCompileFlags) key_text += std::string("\n") + f;
  const uint64_t key = support::fnv1a(key_text);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) {
      for (const auto& w : it->second)
        if (auto c = w.lock(); c && c->source == cuda_source) return c;
    }
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  std::shared_ptr<CompiledKernels> ck;
  const char* cache_dir = std::getenv("MINITVM_EMULATOR_CACHE_DIR");
  fs::path cached;
  if (cache_dir && *cache_dir) {
    cached = fs::path(cache_dir) / (std::string("emu-") + hex + ".so");
    std::error_code ec;
    if (fs::exists(cached, ec)) {
      // Load a private copy: dlopen of one path twice would share the object's global state.
      support::TempDir dir("minitvm-emu-", "CUDA emulator");
      fs::copy_file(cached, dir.path() / "kernel.so", ec);
      try {
        if (!ec) ck = load(dir.path() / "kernel.so", cuda_source, rw);
      } catch (const EmulatorError&) {
        ck.reset();
      }
    }
  }
  if (!ck) {
    support::TempDir dir("minitvm-emu-", "CUDA emulator");
    const fs::path so = dir.path() / "kernel.so";
    host_compile(dir.path(), text, so, cuda_source);
    if (!cached.empty()) {
      std::error_code ec;
      fs::create_directories(cached.parent_path(), ec);
      const fs::path tmp = cached.string() + ".tmp" + std::to_string(getpid());
      fs::copy_file(so, tmp, fs::copy_options::overwrite_existing, ec);
      if (!ec) fs::rename(tmp, cached, ec);
    }
    ck = load(so, cuda_source, std::move(rw));
  }
  std::lock_guard<std::mutex> lock(mu);
  auto& entries = cache[key];
  std::erase_if(entries, [](const std::weak_ptr<CompiledKernels>& w) { return w.expired(); });
  for (const auto& w :
       entries)  // another thread compiled the same source meanwhile: share its object
    if (auto c = w.lock(); c && c->source == cuda_source) return c;
  entries.push_back(ck);
  // Keys whose objects all died (one per distinct source ever compiled) are swept now and then.
  if (cache.size() > 256)
    std::erase_if(cache, [](const auto& kv) {
      for (const auto& w : kv.second)
        if (!w.expired()) return false;
      return true;
    });
  return ck;
}

int64_t loaded_objects() {
  return g_loaded_objects.load();
}

}  // namespace minitvm::runtime::emulator
