// Where TopHub is looked up (tophub::root): MINITVM_TOPHUB_ROOT, the install prefix, the source
// tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/autotune/tophub.h"
#include "minitvm/support/logging.h"

namespace {

using namespace minitvm;
namespace at = minitvm::autotune;
namespace fs = std::filesystem;

// MINITVM_TOPHUB_ROOT naming a missing folder used to give 0 records silently.
TEST(TophubRoot, MissingEnvFolderWarnsNamingIt) {
  std::string missing = testing::TempDir() + "/no_such_tophub_folder";
  fs::remove_all(missing);
  setenv("MINITVM_TOPHUB_ROOT", missing.c_str(), 1);
  WarningCapture w;
  EXPECT_EQ(at::tophub::root(), missing);
  EXPECT_EQ(at::tophub::context("llvm")->num_records(), 0u);
  unsetenv("MINITVM_TOPHUB_ROOT");
  ASSERT_GE(w.messages().size(), 1u);
  EXPECT_NE(w.messages()[0].find("MINITVM_TOPHUB_ROOT is '" + missing + "'"), std::string::npos)
      << w.messages()[0];
}

// This test links the library of its build tree: the source tree's tophub/ serves it.
TEST(TophubRoot, UninstalledBuildUsesTheSourceTree) {
  unsetenv("MINITVM_TOPHUB_ROOT");
  WarningCapture w;
  EXPECT_EQ(fs::weakly_canonical(at::tophub::root()),
            fs::weakly_canonical(std::string(MINITVM_SOURCE_DIR) + "/tophub"));
  EXPECT_TRUE(w.messages().empty());
}

}  // namespace
