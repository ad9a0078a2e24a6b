// `minitvm pool-conformance FILE.jsonl... [--target llvm|"cuda -emulate"]` and
// `minitvm onnx-test DIR... [--target ...]`: run PyTorch golden pooling cases / ONNX backend node
// tests through compiled kernels (pooling via CompiledPoolExecutor, tensor ops via onnx_ops), one line per failure, then
// "N passed, N failed". Exit code 0 only when nothing failed.
#include <iostream>

#include "commands.h"
#include "minitvm/frontend/onnx_loader.h"
#include "minitvm/frontend/pool_compiled.h"
#include "minitvm/frontend/pool_conformance.h"

namespace {

// Splits args into positional ones and --target (default llvm); returns false on a bad option.
bool parse_args(const std::vector<std::string>& args, std::vector<std::string>& pos, std::string& target,
                bool& channels_last) {
  target = "llvm";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--target" && i + 1 < args.size()) {
      target = args[++i];
    } else if (a.rfind("--target=", 0) == 0) {
      target = a.substr(9);
    } else if (a == "--channels-last") {
      channels_last = true;
    } else if (a.rfind("--", 0) == 0) {
      std::cerr << "unknown option " << a << "\n";
      return false;
    } else {
      pos.push_back(a);
    }
  }
  return !pos.empty();
}

int run_pool_conformance(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string target;
  bool cl = false;
  if (!parse_args(args, files, target, cl)) {
    std::cerr << "usage: minitvm pool-conformance FILE.jsonl... [--target llvm|\"cuda -emulate\"] [--channels-last]\n";
    return 2;
  }
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
  bool cl = false;
  if (!parse_args(args, dirs, target, cl)) {
    std::cerr << "usage: minitvm onnx-test DIR... [--target llvm|\"cuda -emulate\"]\n";
    return 2;
  }
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
