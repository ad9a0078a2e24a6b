/** \file
 * Running a program as the user runs it, for the command-line tests: `run(program, args, cwd)` is
 * one shell command (arguments quoted) in a fresh temporary folder by default, with stdout, stderr
 * and the exit code (128 + signal when killed) collected. ctest runs tests in parallel processes:
 * the folders and output files carry the process id.
 */
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace minitvm::testutil {

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string quote(const std::string& a) {
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `program args...` in `cwd` (a fresh temporary folder by default). ctest runs each test in
// its own process, several at once: the folder and the output files carry the process id.
inline Result run(const std::string& program, const std::vector<std::string>& args,
                  const std::string& cwd = "") {
  static int n = 0;
  const std::string pid = std::to_string(::getpid());
  std::string dir =
      cwd.empty() ? ::testing::TempDir() + "/cli_run_" + pid + "_" + std::to_string(++n) : cwd;
  std::filesystem::create_directories(dir);
  std::string cmd = "cd " + quote(dir) + " && " + quote(program);
  for (const auto& a : args) cmd += " " + quote(a);
  std::string o = ::testing::TempDir() + "/cli_stdout_" + pid + ".txt",
              e = ::testing::TempDir() + "/cli_stderr_" + pid + ".txt";
  cmd += " >" + quote(o) + " 2>" + quote(e) + " </dev/null";
  int st = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

inline bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

/** A fresh, empty folder per test and process (ctest runs tests in parallel processes). */
inline std::string fresh_folder(const std::string& prefix, const std::string& name) {
  std::string d =
      ::testing::TempDir() + "/" + prefix + "_" + std::to_string(::getpid()) + "_" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

#ifdef MINITVM_CLI_PATH
inline Result run_minitvm(const std::vector<std::string>& args, const std::string& cwd = "") {
  return run(MINITVM_CLI_PATH, args, cwd);
}
#endif

}  // namespace minitvm::testutil
