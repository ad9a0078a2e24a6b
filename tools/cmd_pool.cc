// `minitvm pool-conformance FILE.jsonl... [--target llvm|"cuda -emulate"]` and
// `minitvm onnx-test DIR... [--target ...]`: run PyTorch golden pooling cases / ONNX backend node
// tests through compiled kernels (pooling via CompiledPoolExecutor, tensor ops via onnx_ops), one line per failure, then
// "N passed, N failed". Exit code 0 only when nothing failed.
#include <iostream>

#include "cli.h"
#include "commands.h"
#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_conformance.h"

namespace {

// The options both commands share: the positional inputs, --target (default llvm), --channels-last.
std::unique_ptr<CLI::App> pool_app(const std::string& name, const std::string& description, const std::string& usage,
                                   const std::string& what, std::vector<std::string>& pos, std::string& target,
                                   bool* channels_last) {
  auto app = minitvm::cli::make_app(name, description, usage);
  target = "llvm";
  app->add_option("inputs", pos, what)->required();
  app->add_option("--target", target, "llvm (default) or \"cuda -emulate\"")->check(minitvm::cli::BuildTarget());
  if (channels_last) app->add_flag("--channels-last", *channels_last, "run the cases in channels-last layout");
  return app;
}

int run_pool_conformance(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string target;
  bool cl = false;
  auto app = pool_app("minitvm pool-conformance",
                      "Run PyTorch golden pooling cases through compiled kernels: one line per failure, then "
                      "\"N passed, N failed\".",
                      "usage: minitvm pool-conformance FILE.jsonl... [--target llvm|\"cuda -emulate\"] [--channels-last]",
                      "golden case files (.jsonl)", files, target, &cl);
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  using namespace minitvm::frontend;
  CompiledPoolExecutor exec(target);
  ConformanceOptions opts;
  if (cl) opts.layout = PoolLayout::ChannelsLast;
  int passed = 0, failed = 0;
  for (const auto& f : files) {
    std::vector<GoldenCase> cases;
    try {
      cases = read_golden_file(f);
    } catch (const std::exception& e) {
      std::cout << f << ": " << e.what() << "\n";
      ++failed;
      continue;
    }
    ConformanceSummary s = run_pool_cases(cases, exec, opts, nullptr);
    for (const auto& r : s.failures)
      for (const auto& line : r.failures) std::cout << line << "\n";
    passed += s.passed;
    failed += s.failed;
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

int run_onnx_test(const std::vector<std::string>& args) {
  std::vector<std::string> dirs;
  std::string target;
  auto app = pool_app("minitvm onnx-test",
                      "Run ONNX backend node-test directories (model.onnx + test_data_set_*) through compiled "
                      "kernels: one line per failure, then \"N passed, N failed\".",
                      "usage: minitvm onnx-test DIR... [--target llvm|\"cuda -emulate\"]", "node-test directories",
                      dirs, target, nullptr);
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  using namespace minitvm::frontend;
  if (!onnx::available()) {
    std::cout << "minitvm was built without ONNX support (libonnx-dev)\n0 passed, " << dirs.size() << " failed\n";
    return 1;
  }
  CompiledPoolExecutor exec(target);
  int passed = 0, failed = 0;
  for (const auto& d : dirs) {
    onnx::NodeTestResult r = onnx::run_node_test(d, exec);
    if (r.passed) {
      ++passed;
      continue;
    }
    ++failed;
    for (const auto& line : r.failures) std::cout << line << "\n";
    if (r.failures.empty()) std::cout << d << ": failed\n";
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

MINITVM_COMMAND("pool-conformance", "run PyTorch golden pooling cases (.jsonl) through compiled kernels",
                run_pool_conformance);
MINITVM_COMMAND("onnx-test", "run ONNX backend node-test directories through compiled kernels (pooling and tensor ops)", run_onnx_test);
