#include "support/temp_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "minitvm/support/error.h"

namespace minitvm::support {

std::filesystem::path temp_root() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

TempDir::TempDir(const std::string& prefix, const std::string& who) {
  std::string tmpl = (temp_root() / (prefix + "XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw RuntimeError(who + ": cannot create a temporary directory " + tmpl + ": " +
                       std::strerror(errno));
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace minitvm::support
