// Local TopHub: index of package files, context(), reference logs.
#include "minitvm/autotune/tophub.h"

#include <dlfcn.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune::tophub {

namespace fs = std::filesystem;

namespace {

// The file holding this code: libminitvm.so.* for programs linked with the shared library, the
// executable itself for programs linked with the static module archives (the tests).
std::string own_binary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_binary), &info) == 0 || !info.dli_fname ||
      !*info.dli_fname)
    return "";
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  if (ec) {  // dli_fname of the main program may be relative to the start directory
    p = fs::canonical("/proc/self/exe", ec);
    if (ec) return "";
  }
  return p.string();
}

// The source tree's tophub/ (CMake passes its path; __FILE__ is relative under ccache's base_dir).
std::string source_tree_root() {
#ifdef MINITVM_SOURCE_TOPHUB
  return MINITVM_SOURCE_TOPHUB;
#else
  fs::path p(__FILE__);  // <source>/src/autotune/tophub.cc when compiled by absolute path
  if (!p.is_absolute()) return "";
  return (p.parent_path().parent_path().parent_path() / "tophub").string();
#endif
}

// Whether `file` lies in the build tree this library was compiled in (an uninstalled build).
bool in_build_tree(const std::string& file) {
#ifdef MINITVM_BINARY_DIR
  std::error_code ec;
  fs::path b = fs::weakly_canonical(MINITVM_BINARY_DIR, ec);
  if (ec || b.empty()) return false;
  std::string bs = b.string();
  if (bs.back() != '/') bs += '/';
  return file.rfind(bs, 0) == 0;
#else
  (void)file;
  return false;
#endif
}

std::string lookup_root() {
  if (const char* env = std::getenv("MINITVM_TOPHUB_ROOT"); env && *env) {
    if (std::string(env) == "NONE") return "";
    std::error_code ec;
    if (!fs::is_directory(env, ec))
      log_warning(
          std::string("MINITVM_TOPHUB_ROOT is '") + env +
          "', which is not a folder: TopHub has no records (set it to a folder with index.json, "
          "or NONE to disable TopHub)");
    return env;
  }
  std::string bin = own_binary();
  std::error_code ec;
  if (!bin.empty()) {
    // Installed: <prefix>/<libdir>/libminitvm.so.0 (libdir "lib" or a multiarch
    // "lib/x86_64-linux-gnu") or <prefix>/bin/<program> for static links, and the data in
    // <prefix>/share/minitvm/tophub.
    fs::path dir = fs::path(bin).parent_path();
    for (int up = 1; up <= 2 && !dir.empty(); ++up) {
      dir = dir.parent_path();
      fs::path installed = dir / "share" / "minitvm" / "tophub";
      if (fs::exists(installed / "index.json", ec)) return installed.string();
    }
    if (!in_build_tree(bin)) {
      log_warning(
          "TopHub not found next to " + bin + " (expected " +
          (fs::path(bin).parent_path().parent_path() / "share" / "minitvm" / "tophub").string() +
          "): TopHub has no records; set MINITVM_TOPHUB_ROOT to a TopHub folder");
      return "";
    }
  }
  return source_tree_root();  // an uninstalled build: the checked-in tophub/ of its source tree
}

std::mutex& mu() {
  static std::mutex m;
  return m;
}

// index.json of a root, cached.
const Json& index_of(const std::string& r) {
  static std::map<std::string, Json> cache;
  std::lock_guard<std::mutex> lock(mu());
  auto it = cache.find(r);
  if (it != cache.end()) return it->second;
  Json j = Json::object();
  std::ifstream in(fs::path(r) / "index.json");
  if (in.good()) {
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    j = Json::parse(text, nullptr, false);
    MINITVM_USER_CHECK(!j.is_discarded() && j.is_object())
        << "malformed " << (fs::path(r) / "index.json").string();
  }
  return cache.emplace(r, std::move(j)).first->second;
}

}  // namespace

std::string root() {
  // Looked up once per value of MINITVM_TOPHUB_ROOT (tests change it), so a warning is given once.
  static std::mutex m;
  static std::map<std::string, std::string> cache;
  const char* env = std::getenv("MINITVM_TOPHUB_ROOT");
  std::string key = env ? std::string("=") + env : std::string();
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, lookup_root()).first;
  return it->second;
}

std::string alias(const std::string& backend) {
  std::string r = root();
  if (!r.empty()) {
    const Json& idx = index_of(r);
    if (auto a = idx.find("alias");
        a != idx.end() && a->is_object() && a->contains(backend) && (*a)[backend].is_string())
      return (*a)[backend].get<std::string>();
  }
  static const std::map<std::string, std::string> builtin = {{"vtacpu", "vta"},
                                                             {"metal", "opencl"},
                                                             {"vulkan", "opencl"},
                                                             {"nvptx", "cuda"},
                                                             {"webgpu", "opencl"}};
  auto it = builtin.find(backend);
  return it == builtin.end() ? backend : it->second;
}

std::string package_file(const std::string& backend, const std::string& tvm_version) {
  std::string r = root();
  if (r.empty()) return "";
  const Json& idx = index_of(r);
  auto v = idx.find("tvm_versions");
  if (v == idx.end() || !v->is_object() || !v->contains(tvm_version)) return "";
  const Json& table = (*v)[tvm_version];
  std::string b = alias(backend);
  if (!table.is_object() || !table.contains(b) || !table[b].is_string()) return "";
  return table[b].get<std::string>();
}

std::unique_ptr<ApplyHistoryBest> context(const std::vector<Target>& targets,
                                          const std::vector<std::string>& extra_files,
                                          const Options& opt) {
  auto best = std::make_unique<ApplyHistoryBest>();
  std::string r = root();
  if (r.empty())
    return best;  // TopHub disabled: empty context (extra files are ignored too, as TVM)
  std::error_code ec;
  for (const auto& t : targets) {
    std::vector<std::string> candidates;
    for (const auto& o : t.options)
      if (o.rfind("-device", 0) == 0 && o.size() > 8) candidates.push_back(alias(o.substr(8)));
    candidates.push_back(alias(t.name));
    for (const auto& c : candidates) {
      std::string file = package_file(c, opt.tvm_version);
      if (file.empty()) continue;
      fs::path p = fs::path(r) / file;
      if (!fs::exists(p, ec)) continue;  // TVM would download it; we never do
      best->load(p.string(), opt.load);
      // minitvm's own packages for this backend (e.g. tuned pooling configs), listed in index.json
      // under "extra_packages"; TVM's files never contain those workloads, so nothing is shadowed.
      const Json& idx = index_of(r);
      if (auto x = idx.find("extra_packages");
          x != idx.end() && x->is_object() && x->contains(c) && (*x)[c].is_array()) {
        for (const auto& f : (*x)[c]) {
          if (!f.is_string()) continue;
          fs::path extra = fs::path(r) / f.get<std::string>();
          if (fs::exists(extra, ec)) best->load(extra.string(), opt.load);
        }
      }
      break;  // one TVM package file per target
    }
  }
  if (opt.include_seed_logs && fs::is_directory(fs::path(r) / "seed", ec))
    best->load((fs::path(r) / "seed").string(), opt.load);
  for (const auto& f : extra_files) best->load(f, opt.load);
  return best;
}

std::unique_ptr<ApplyHistoryBest> context(const std::string& target,
                                          const std::vector<std::string>& extra_files,
                                          const Options& opt) {
  return context(std::vector<Target>{parse_target(target)}, extra_files, opt);
}

std::vector<Record> load_reference_log(const std::string& backend, const std::string& model,
                                       const std::string& workload_name,
                                       const std::string& template_key, const Options& opt) {
  std::string r = root();
  if (r.empty()) return {};
  std::string file = package_file(backend, opt.tvm_version);
  if (file.empty()) return {};
  fs::path p = fs::path(r) / file;
  std::string key = p.string() + '\x1f' + model + '\x1f' + workload_name + '\x1f' + template_key +
                    '\x1f' + std::to_string(static_cast<int>(opt.reference_rule));
  static std::map<std::string, std::vector<Record>> cache;
  {
    std::lock_guard<std::mutex> lock(mu());
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  std::error_code ec;
  std::vector<Record> out;
  if (fs::exists(p, ec)) {
    // Parse each package file once per process (its skipped lines warn once).
    static std::map<std::string, std::shared_ptr<const std::vector<Record>>> files;
    std::shared_ptr<const std::vector<Record>> all;
    {
      std::lock_guard<std::mutex> lock(mu());
      if (auto it = files.find(p.string()); it != files.end()) all = it->second;
    }
    if (!all) {
      LoadOptions lo = opt.load;
      lo.strict = false;
      all = std::make_shared<const std::vector<Record>>(load_records(p.string(), lo));
      std::lock_guard<std::mutex> lock(mu());
      files.emplace(p.string(), all);
    }
    out = select_reference_records(*all, model, workload_name, template_key, opt.reference_rule);
  }
  std::lock_guard<std::mutex> lock(mu());
  cache.emplace(key, out);
  return out;
}

}  // namespace minitvm::autotune::tophub
