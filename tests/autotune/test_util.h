/** \file
 * Helpers shared by the autotune tests: paths of the shipped logs and fixtures.
 */
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace minitvm::autotune::testing {

inline std::string repo(const std::string& rel) {
  return std::string(MINITVM_SOURCE_DIR) + "/" + rel;
}

/** Sorted *.log files of a repository folder. */
inline std::vector<std::string> logs_in(const std::string& rel_dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(repo(rel_dir)))
    if (e.path().extension() == ".log") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace minitvm::autotune::testing
