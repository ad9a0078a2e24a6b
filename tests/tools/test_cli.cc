// The `minitvm` command line and the benchmarks' arguments, run as the user runs them (a shell
// command per case): --help answers with the usage and exit 0 without doing the work, usage errors
// name the option and exit 2, runtime failures exit 1.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace minitvm::testutil;

std::string tmp(const std::string& name) {
  return testing::TempDir() + "/" + name;
}

// The subcommands `minitvm --help` lists ("  NAME   help").
std::vector<std::string> listed_commands(const std::string& usage) {
  std::vector<std::string> names;
  std::istringstream is(usage.substr(usage.find("commands:")));
  std::string line;
  std::getline(is, line);
  while (std::getline(is, line)) {
    if (line.rfind("  ", 0) != 0) continue;
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    names.push_back(name);
  }
  return names;
}

const std::set<std::string> kCommands = {
    "compile", "demo",   "inspect", "onnx-test", "pool-conformance", "profile",
    "run",     "tophub", "tune",    "tune-best", "tune-plot",        "tune-tasks"};

TEST(Cli, NoArgumentsListsTheCommandsAndExits2) {
  Result r = run_minitvm({});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto names = listed_commands(r.err);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kCommands) << r.err;
}

TEST(Cli, UnknownCommandListsTheCommandsAndExits2) {
  Result r = run_minitvm({"frobnicate", "--help"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'frobnicate'")) << r.err;
  auto names = listed_commands(r.err);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kCommands) << r.err;
  r = run_minitvm({"help", "frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'frobnicate'")) << r.err;
}

TEST(Cli, TopLevelHelpExits0) {
  for (auto a : {"--help", "-h", "help"}) {
    Result r = run_minitvm({a});
    EXPECT_EQ(r.code, 0) << a;
    auto names = listed_commands(r.out);
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kCommands) << a << "\n" << r.out;
  }
}

// Every listed subcommand (and tophub's two) answers --help, -h and `minitvm help SUB` alike.
TEST(Cli, EverySubcommandAnswersHelp) {
  Result top = run_minitvm({"--help"});
  std::vector<std::vector<std::string>> subs;
  for (const auto& n : listed_commands(top.out)) subs.push_back({n});
  subs.push_back({"tophub", "inspect"});
  subs.push_back({"tophub", "check"});
  ASSERT_EQ(subs.size(), kCommands.size() + 2);
  for (const auto& sub : subs) {
    std::string name = sub[0] + (sub.size() > 1 ? " " + sub[1] : "");
    std::vector<std::string> args = sub;
    args.push_back("--help");
    Result r = run_minitvm(args);
    EXPECT_EQ(r.code, 0) << name << "\n" << r.err;
    EXPECT_EQ(r.out.rfind("usage: minitvm " + name, 0), 0u) << name << ":\n" << r.out;
    EXPECT_TRUE(r.err.empty()) << name << ":\n" << r.err;
    args.back() = "-h";
    EXPECT_EQ(run_minitvm(args).out, r.out) << name;
    std::vector<std::string> help_args{"help"};
    help_args.insert(help_args.end(), sub.begin(), sub.end());
    Result h = run_minitvm(help_args);
    EXPECT_EQ(h.code, 0) << "help " << name;
    EXPECT_EQ(h.out, r.out) << "help " << name;
  }
}

// --help anywhere on the line stops before the work: nothing run, read or written.
TEST(Cli, HelpDoesNotDoTheWork) {
  Result r = run_minitvm({"demo", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(has(r.out, "== part")) << r.out;

  r = run_minitvm({"tune-tasks", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(has(r.out + r.err, "cannot read")) << r.out << r.err;

  std::string dir = tmp("help_no_work");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log = dir + "/t.log";
  r = run_minitvm(
      {"tune", "matmul.llvm", "16", "16", "16", "--trials", "1", "--log", log, "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(fs::exists(log));
  EXPECT_FALSE(has(r.out + r.err, "task matmul.llvm"));

  { std::ofstream(log) << "\n"; }
  r = run_minitvm({"tune-plot", log, "-o", dir + "/p.svg", "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(fs::exists(dir + "/p.svg"));
  r = run_minitvm({"tune-best", log, "-o", dir + "/b.log", "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(fs::exists(dir + "/b.log"));
  r = run_minitvm({"tophub", "check", log, "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(has(r.out, "0 passed")) << r.out;
  r = run_minitvm({"pool-conformance", log, "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(has(r.out, "0 passed")) << r.out;
  r = run_minitvm({"onnx-test", dir, "--help"}, dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(has(r.out, "0 passed")) << r.out;
}

// A bad value is a usage error (exit 2) naming the option and the value; before CLI11 `--trials
// abc` said "stoi" and `--trials -3` was accepted.
TEST(Cli, BadNumbersAreUsageErrorsNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option, value;
  };
  std::string log = tmp("bad_numbers.log");
  std::vector<Case> cases = {
      {{"tune", "matmul.llvm", "16", "16", "16", "--trials", "abc", "--log", log},
       "--trials",
       "abc"},
      {{"tune", "matmul.llvm", "16", "16", "16", "--trials", "-3", "--log", log}, "--trials", "-3"},
      {{"tune", "matmul.llvm", "16", "16", "16", "--trials", "1.5", "--log", log},
       "--trials",
       "1.5"},
      {{"tune", "matmul.llvm", "16", "16", "16", "--seed", "-1", "--log", log}, "--seed", "-1"},
      {{"tune", "matmul.llvm", "16", "16", "16", "--min-repeat-ms", "fast", "--log", log},
       "--min-repeat-ms",
       "fast"},
      {{"tune", "matmul.llvm", "16", "16", "16", "--tuner", "best", "--log", log},
       "--tuner",
       "best"},
      {{"tophub", "check", log, "--limit", "x"}, "--limit", "x"},
      {{"tophub", "check", log, "--max-emulate-macs", "4e9"}, "--max-emulate-macs", "4e9"},
      {{"inspect", "conv2d", "1x3x8x8", "4x3x3x3", "--stride", "0", "--target", "llvm"},
       "--stride",
       "0"},
      {{"inspect", "conv2d", "1x3x8x8", "4x3x3x3", "--pad", "1,x", "--target", "llvm"},
       "--pad",
       "x"},
      {{"inspect", "conv2d", "1xAx8x8", "4x3x3x3", "--target", "llvm"}, "shapes", "1xAx8x8"},
  };
  for (const auto& c : cases) {
    Result r = run_minitvm(c.args);
    std::string line = c.args[0] + " " + c.option + " " + c.value;
    EXPECT_EQ(r.code, 2) << line << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.option)) << line << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.value)) << line << "\n" << r.err;
    EXPECT_FALSE(has(r.err, "stoi") || has(r.err, "stoll")) << r.err;
    EXPECT_TRUE(r.out.empty()) << line << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(log));
}

TEST(Cli, UnknownOptionsAndMissingArgumentsAreUsageErrors) {
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"pool-conformance", "x.jsonl", "--bogus"},
                                             {"onnx-test", "dir", "--bogus"},
                                             {"demo", "--bogus"},
                                             {"tune-best", "in.log", "-o", "out.log", "--bogus"},
                                             {"tophub", "inspect", "x.log", "--bogus"}}) {
    Result r = run_minitvm(args);
    EXPECT_EQ(r.code, 2) << args[0] << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "--bogus")) << args[0] << "\n" << r.err;
  }
  Result r = run_minitvm({"tune-best", "in.log"});  // -o missing
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "-o")) << r.err;
  r = run_minitvm({"tophub", "inspect", "x.log", "--json"});  // --json needs --best
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--best")) << r.err;
  r = run_minitvm({"tophub", "frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "unknown subcommand 'frobnicate'")) << r.err;
  // A runtime failure (a file that cannot be read) is exit 1, not a usage error.
  r = run_minitvm({"tune-tasks", tmp("no_such_network.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.err, "cannot read")) << r.err;
}

// The spellings the docs use still parse (values interleaved with options, --target=, --list).
TEST(Cli, ExistingSpellingsStillWork) {
  Result r = run_minitvm({"tune", "--list"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "matmul.llvm\n")) << r.out;
  EXPECT_TRUE(has(r.out, "conv2d_NCHWc.x86\n")) << r.out;
  r = run_minitvm({"pool-conformance", "--target=llvm", tmp("missing.jsonl")});
  EXPECT_EQ(r.code, 1);  // the file is missing: a failed case, not a usage error
  EXPECT_TRUE(has(r.out, "0 passed, 1 failed")) << r.out << r.err;
}

// An unknown target is refused before any trial: no task line, no log written.
TEST(CliTune, UnknownTargetIsAnErrorBeforeAnyTrial) {
  std::string log = tmp("unknown_target.log");
  fs::remove(log);
  Result r = run_minitvm(
      {"tune", "matmul.llvm", "16", "16", "16", "--target", "foo", "--trials", "2", "--log", log});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--target")) << r.err;
  EXPECT_TRUE(has(r.err, "target 'foo'")) << r.err;
  EXPECT_FALSE(has(r.err, "task matmul.llvm")) << r.err;
  EXPECT_FALSE(fs::exists(log));
}

// Candidates that all fail: the summary says why, and --verbose prints each failed candidate.
TEST(CliTune, FailuresComeWithTheirReason) {
  std::string log = tmp("all_fail.log");
  fs::remove(log);
  // matmul.llvm binds no thread axes: every candidate fails to build for CUDA.
  Result r =
      run_minitvm({"tune", "matmul.llvm", "16", "16", "16", "--target", "cuda -emulate", "--trials",
                   "2", "--tuner", "grid", "--quiet", "--verbose", "--log", log});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "measured 2 (2 failed)")) << r.out;
  EXPECT_TRUE(has(r.out, "no successful measurement")) << r.out;
  EXPECT_TRUE(has(r.out, "failures by kind:")) << r.out;
  // One summary line per kind with the count and the first message.
  EXPECT_TRUE(has(r.out, "2 x COMPILE_HOST (2): ")) << r.out;
  // --verbose: one line per failed candidate on stderr.
  size_t lines = 0;
  for (size_t p = r.err.find(": COMPILE_HOST (2): "); p != std::string::npos;
       p = r.err.find(": COMPILE_HOST (2): ", p + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << r.err;
}

// Every benchmark answers --help without running (each prints its usage; none times anything).
TEST(CliBench, EveryBenchmarkAnswersHelp) {
  std::vector<std::string> benches = {MINITVM_BENCH_PATHS};
  if (benches.empty())
    GTEST_SKIP() << "configured without the benchmarks (MINITVM_BUILD_BENCH=OFF)";
  for (const auto& b : benches) {
    std::string name = fs::path(b).filename().string();
    Result r = run(b, {"--help"});
    EXPECT_EQ(r.code, 0) << name << "\n" << r.err;
    EXPECT_EQ(r.out.rfind("usage: " + name, 0), 0u) << name << ":\n" << r.out;
    // Nothing after the options list: a benchmark that went on would print its rows (or SKIP) at
    // the start of a line.
    size_t opts = r.out.find("\nOptions:\n");
    ASSERT_NE(opts, std::string::npos) << name << ":\n" << r.out;
    std::istringstream rest(r.out.substr(opts + 10));
    for (std::string line; std::getline(rest, line);)
      EXPECT_TRUE(line.empty() || line.rfind("  ", 0) == 0)
          << name << " printed after its help: " << line;
    Result bad = run(b, {"--bogus"});
    EXPECT_EQ(bad.code, 2) << name;
    EXPECT_TRUE(has(bad.err, "--bogus")) << name << "\n" << bad.err;
  }
}

std::string bench_path(const std::string& name) {
  for (const std::string& b : std::vector<std::string>{MINITVM_BENCH_PATHS})
    if (fs::path(b).filename() == name) return b;
  return "";
}

TEST(CliBench, BadNumbersAreUsageErrors) {
  if (std::vector<std::string>{MINITVM_BENCH_PATHS}.empty())
    GTEST_SKIP() << "configured without the benchmarks";
  struct Case {
    std::string bench;
    std::vector<std::string> args;
    std::string option;
  };
  for (const auto& c :
       std::vector<Case>{{"minitvm-bench-pool", {"--repeats", "0"}, "--repeats"},
                         {"minitvm-bench-pool", {"--dump", "3"}, "--dump"},
                         {"minitvm-bench-conv2d", {"--layer", "abc"}, "--layer"},
                         {"minitvm-bench-gpu-conv2d", {"--limit", "ten"}, "--limit"}}) {
    std::string path = bench_path(c.bench);
    ASSERT_FALSE(path.empty()) << c.bench << " is not among the benchmarks built";
    Result r = run(path, c.args);
    EXPECT_EQ(r.code, 2) << c.bench << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.option)) << c.bench << "\n" << r.err;
  }
}

}  // namespace

// `minitvm onnx-test` on a few libonnx-testdata directories: relay models (LRN, a graph with no
// kernels, a pytorch-operator export), a pooling-interpreter model (MaxUnpool), an unsupported op
// (failed, or skipped with --skip-unsupported) and a corrupted recorded output (a failure line).
TEST(CliOnnxTest, RelayAndPoolingPathsUnsupportedAndFailures) {
  const std::string data = "/usr/share/libonnx-testdata/data";
  if (!fs::is_directory(data + "/node"))
    GTEST_SKIP() << data << " not found (Debian libonnx-testdata)";
  const std::string node = data + "/node/";
  std::vector<std::string> good = {node + "test_lrn", node + "test_identity",
                                   node + "test_maxunpool_export_without_output_shape",
                                   data + "/pytorch-operator/test_operator_flatten"};
  for (auto& d : good)
    if (!fs::is_directory(d)) GTEST_SKIP() << d << " not found";
  std::vector<std::string> args = {"onnx-test"};
  args.insert(args.end(), good.begin(), good.end());
  Result r = run_minitvm(args);
  if (has(r.out, "without ONNX support")) GTEST_SKIP() << "built without ONNX support";
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "4 passed, 0 failed\n");

  const std::string nms = node + "test_nonmaxsuppression_center_point_box_format";
  r = run_minitvm({"onnx-test", node + "test_lrn", nms});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.out, nms + ": unsupported: op NonMaxSuppression\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\n1 passed, 1 failed\n")) << r.out;
  r = run_minitvm({"onnx-test", node + "test_lrn", nms, "--skip-unsupported"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "1 passed, 0 failed, 1 skipped (unsupported op)\n");

  // test_relu with its input recorded as the expected output: relu(x) != x for negative x.
  std::string bad = tmp("onnx_cli_bad_relu_" + std::to_string(::getpid()));
  fs::remove_all(bad);
  fs::copy(node + "test_relu", bad, fs::copy_options::recursive);
  fs::copy_file(bad + "/test_data_set_0/input_0.pb", bad + "/test_data_set_0/output_0.pb",
                fs::copy_options::overwrite_existing);
  r = run_minitvm({"onnx-test", bad, node + "test_relu"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.out, bad + ": data set 0, reference executor: output 0 differs at index "))
      << r.out;
  EXPECT_TRUE(has(r.out, "\n1 passed, 1 failed\n")) << r.out;
  fs::remove_all(bad);
}
