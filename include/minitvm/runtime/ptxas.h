/** \file
 * Check PTX with NVIDIA's `ptxas` and read its resource usage.
 *
 * ptxas_check(ptx, "sm_90") runs `ptxas -arch=sm_90 -v <file> -o <tmp cubin>` as a subprocess
 * (ptxas from PATH, else $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin) and parses, per entry
 * function, the `-v` report:
 *   ptxas info    : Compiling entry function 'k' for 'sm_90'
 *   ptxas info    : Function properties for k
 *       0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
 *   ptxas info    : Used 30 registers, 4096 bytes smem, 380 bytes cmem[0]
 * When ptxas rejects the PTX it throws CompileError with ptxas's output and the PTX with line
 * numbers.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minitvm::runtime {

/** Resource usage of one kernel as reported by `ptxas -v`. */
struct PtxasKernelInfo {
  std::string name;
  int registers = 0;
  int64_t shared_bytes = 0;  ///< static shared memory (smem)
  int64_t stack_bytes = 0;
  int64_t spill_stores = 0;  ///< bytes
  int64_t spill_loads = 0;   ///< bytes
  int64_t constant_bytes = 0;
};

/** Everything ptxas said about a PTX module. */
struct PtxasReport {
  std::string arch;
  std::vector<PtxasKernelInfo> kernels;
  std::string output;  ///< ptxas's raw -v output
  /** The kernel's entry; throws CompileError when there is no such kernel. */
  const PtxasKernelInfo& kernel(const std::string& name) const;
  /** Any kernel spills registers to local memory. */
  bool has_spills() const;
};

/** Full path of ptxas, or "" when not found. */
std::string find_ptxas();
/** Assemble `ptx` for `arch` and report resource usage; see the file comment. */
PtxasReport ptxas_check(const std::string& ptx, const std::string& arch = "sm_90");

}  // namespace minitvm::runtime
