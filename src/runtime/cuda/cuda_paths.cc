#include "runtime/cuda/cuda_paths.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace minitvm::runtime::cuda {

namespace fs = std::filesystem;

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

std::vector<std::string> cuda_roots() {
  std::vector<std::string> roots;
  auto add = [&](const std::string& r) {
    if (r.empty()) return;
    for (const auto& x : roots)
      if (x == r) return;
    roots.push_back(r);
  };
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env)) add(v);
  std::string nvcc = find_on_path("nvcc");
  if (!nvcc.empty()) add(fs::path(nvcc).parent_path().parent_path().string());
  add("/usr/local/cuda");
  return roots;
}

}  // namespace minitvm::runtime::cuda
