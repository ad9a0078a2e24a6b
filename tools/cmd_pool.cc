// `minitvm pool-conformance FILE.jsonl... [--target llvm|"cuda -emulate"]` and
// `minitvm onnx-test DIR... [--target ...] [--skip-unsupported]`: run PyTorch golden pooling cases
// / ONNX backend node tests through compiled kernels, one line per failure, then "N passed, N
// failed". onnx-test runs a model through relay (relay::frontend::run_onnx_test_dir) when from_onnx
// maps it, otherwise through the pooling interpreter (frontend::onnx::run_node_test: pooling via
// CompiledPoolExecutor, tensor ops via onnx_ops). Exit code 0 only when nothing failed.
#include <iostream>

#include "cli.h"
#include "commands.h"
#include "minitvm/devtools/onnx_test.h"
#include "minitvm/devtools/pool_conformance.h"
#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/relay/frontend.h"

namespace {

// The options both commands share: the positional inputs, --target (default llvm), --channels-last.
std::unique_ptr<CLI::App> pool_app(const std::string& name, const std::string& description,
                                   const std::string& usage, const std::string& what,
                                   std::vector<std::string>& pos, std::string& target,
                                   bool* channels_last) {
  auto app = minitvm::cli::make_app(name, description, usage);
  target = "llvm";
  app->add_option("inputs", pos, what)->required();
  app->add_option("--target", target, "llvm (default) or \"cuda -emulate\"")
      ->check(minitvm::cli::BuildTarget());
  if (channels_last)
    app->add_flag("--channels-last", *channels_last, "run the cases in channels-last layout");
  return app;
}

int run_pool_conformance(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string target;
  bool cl = false;
  auto app = pool_app(
      "minitvm pool-conformance",
      "Run PyTorch golden pooling cases through compiled kernels: one line per failure, then "
      "\"N passed, N failed\".",
      "usage: minitvm pool-conformance FILE.jsonl... [--target llvm|\"cuda -emulate\"] "
      "[--channels-last]",
      "golden case files (.jsonl)", files, target, &cl);
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  using namespace minitvm::frontend;
  using minitvm::topi::PoolLayout;
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
  bool skip_unsupported = false;
  auto app = pool_app(
      "minitvm onnx-test",
      "Run ONNX backend node-test directories (model.onnx + test_data_set_*) through compiled "
      "kernels: relay (from_onnx, relay::build, GraphExecutor) for models whose ops it maps, the "
      "pooling interpreter for the others (LpPool, MaxUnpool, MaxPool indices ...); one line per "
      "failure, then \"N passed, N failed\".",
      "usage: minitvm onnx-test DIR... [--target llvm|\"cuda -emulate\"] [--skip-unsupported]",
      "node-test directories", dirs, target, nullptr);
  app->add_flag("--skip-unsupported", skip_unsupported,
                "count directories with ops neither path supports as skipped instead of failed");
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  using namespace minitvm::frontend;
  using minitvm::topi::PoolLayout;
  namespace rf = minitvm::relay::frontend;
  if (!onnx::available()) {
    std::cout << "minitvm was built without ONNX support (libonnx-dev)\n0 passed, " << dirs.size()
              << " failed\n";
    return 1;
  }
  CompiledPoolExecutor exec(target);
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& d : dirs) {
    rf::OnnxTestResult r = rf::run_onnx_test_dir(d, target);
    if (r.status == rf::OnnxTestResult::Status::Passed) {
      ++passed;
      continue;
    }
    if (r.status == rf::OnnxTestResult::Status::Failed) {
      ++failed;
      std::cout << d << ": " << r.reason << "\n";
      continue;
    }
    // Not for relay: the pooling interpreter, when it loads the model.
    bool loads = false;
    try {
      onnx::load_model(d + "/model.onnx");
      loads = true;
    } catch (const std::exception&) {
    }
    if (!loads) {
      if (skip_unsupported) {
        ++skipped;
      } else {
        ++failed;
        std::cout << d << ": unsupported: " << r.reason << "\n";
      }
      continue;
    }
    onnx::NodeTestResult p = onnx::run_node_test(d, exec);
    if (p.passed) {
      ++passed;
      continue;
    }
    ++failed;
    for (const auto& line : p.failures) std::cout << line << "\n";
    if (p.failures.empty()) std::cout << d << ": failed\n";
  }
  std::cout << passed << " passed, " << failed << " failed";
  if (skip_unsupported) std::cout << ", " << skipped << " skipped (unsupported op)";
  std::cout << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

MINITVM_COMMAND("pool-conformance",
                "run PyTorch golden pooling cases (.jsonl) through compiled kernels",
                run_pool_conformance);
MINITVM_COMMAND("onnx-test",
                "run ONNX backend node-test directories through compiled kernels (relay, or the "
                "pooling interpreter)",
                run_onnx_test);
