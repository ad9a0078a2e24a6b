// Host tools: the helpers shared by the modules that run host programs (the CUDA emulator's
// compiler, ptxas, the system linker of export_library), write temporary files, hash cache keys
// and quote sources in error messages. Internal (not installed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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

/** `source` with each line prefixed by its 1-based number: "   1 | first line". */
std::string with_line_numbers(const std::string& source);

/** Runs `argv` (argv[0] looked up on PATH; no shell) with stdout and stderr written to `log_path`
 *  and waits for it. Returns its exit status, or -1 when it could not start or did not exit. */
int run_process(const std::vector<std::string>& argv, const std::filesystem::path& log_path);

/** Reads a whole file ("" when it cannot be read). */
std::string read_text_file(const std::filesystem::path& path);

}  // namespace minitvm::support
