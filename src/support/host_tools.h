// Internal helpers shared by the modules that write temporary files (the CUDA emulator's compiler,
// ptxas checks, export_library) and hash cache keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace minitvm::support {

/** A private directory under $TMPDIR (or /tmp) named `<prefix>XXXXXX`, removed with everything in
 * it at destruction. RuntimeError naming `who`, the template and the reason when it cannot be made.
 */
class TempDir {
 public:
  TempDir(const std::string& prefix, const std::string& who);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/** $TMPDIR, or /tmp when unset or empty. */
std::filesystem::path temp_root();

/** 64-bit FNV-1a of `data` (offset basis 14695981039346656037, prime 1099511628211). */
inline uint64_t fnv1a(const std::string& data, uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace minitvm::support
