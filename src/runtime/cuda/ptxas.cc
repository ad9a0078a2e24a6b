// Runs ptxas -v on PTX and parses its resource report.
#include "minitvm/runtime/ptxas.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "minitvm/runtime/nvrtc.h"
#include "minitvm/support/error.h"
#include "runtime/cuda/cuda_paths.h"
#include "support/host_tools.h"

namespace minitvm::runtime {

namespace fs = std::filesystem;

namespace {

int64_t to_i64(const std::string& s) {
  return std::strtoll(s.c_str(), nullptr, 10);
}

}  // namespace

std::string find_ptxas() {
  std::string p = cuda::find_on_path("ptxas");
  if (!p.empty()) return p;
  for (const auto& root : cuda::cuda_roots()) {
    fs::path cand = fs::path(root) / "bin" / "ptxas";
    std::error_code ec;
    if (fs::is_regular_file(cand, ec)) return cand.string();
  }
  return {};
}

const PtxasKernelInfo& PtxasReport::kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return k;
  std::string have;
  for (const auto& k : kernels) have += (have.empty() ? "" : ", ") + k.name;
  throw CompileError("ptxas report has no kernel '" + name + "' (kernels: " + have + ")");
}

bool PtxasReport::has_spills() const {
  for (const auto& k : kernels)
    if (k.spill_stores > 0 || k.spill_loads > 0) return true;
  return false;
}

PtxasReport ptxas_check(const std::string& ptx, const std::string& arch) {
  const std::string ptxas = find_ptxas();
  MINITVM_RUNTIME_CHECK(!ptxas.empty()) << "ptxas not found (looked on PATH and in $CUDA_HOME/bin, "
                                           "$CUDA_PATH/bin, /usr/local/cuda/bin)";
  MINITVM_USER_CHECK(std::regex_match(arch, std::regex("sm_[0-9]+[a-z]?")))
      << "ptxas_check: architecture must look like sm_90, got '" << arch << "'";
  support::TempDir dir("minitvm-ptxas-", "ptxas_check");
  const fs::path in = dir.path() / "module.ptx";
  const fs::path out = dir.path() / "module.cubin";
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
    MINITVM_RUNTIME_CHECK(f.good()) << "ptxas_check: cannot write " << in.string();
  }
  const fs::path log = dir.path() / "ptxas.log";
  const std::vector<std::string> cmd = {ptxas, "-arch=" + arch, "-v", in.string(),
                                        "-o",  out.string()};
  const int status = support::run_process(cmd, log);
  const std::string output = support::read_text_file(log);
  const bool ok = status == 0;
  if (!ok) {
    throw CompileError("ptxas -arch=" + arch + " rejected the PTX:\n" + output + "\nPTX:\n" +
                       with_line_numbers(ptx));
  }

  PtxasReport report;
  report.arch = arch;
  report.output = output;
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex frame_re(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs_re(R"(Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");
  PtxasKernelInfo* cur = nullptr;
  std::istringstream lines(output);
  std::string line;
  std::smatch m;
  auto find = [&](const std::string& name) -> PtxasKernelInfo* {
    for (auto& k : report.kernels)
      if (k.name == name) return &k;
    return nullptr;
  };
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, entry_re)) {
      report.kernels.push_back({});
      report.kernels.back().name = m[1];
      cur = &report.kernels.back();
    } else if (std::regex_search(line, m, props_re)) {
      cur = find(m[1]);  // device functions (not entries) are not reported
    } else if (cur && std::regex_search(line, m, frame_re)) {
      cur->stack_bytes = to_i64(m[1]);
      cur->spill_stores = to_i64(m[2]);
      cur->spill_loads = to_i64(m[3]);
    } else if (cur && std::regex_search(line, m, regs_re)) {
      cur->registers = static_cast<int>(to_i64(m[1]));
      if (std::regex_search(line, m, smem_re)) cur->shared_bytes = to_i64(m[1]);
      if (std::regex_search(line, m, cmem_re)) cur->constant_bytes = to_i64(m[1]);
    }
  }
  return report;
}

}  // namespace minitvm::runtime
