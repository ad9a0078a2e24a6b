/** \file
 * Target strings as TVM v0.6 parses them for AutoTVM (`Target::Create`, §1.5 of the spec):
 * `cuda -model=titanx` has keys ["cuda", "gpu"] and model "titanx"; `llvm -mcpu=skylake-avx512`
 * has keys ["cpu"]; `opencl -device=mali` has keys ["mali", "mali", "opencl", "gpu"] (TVM pushes
 * the device key twice). str() gives back the name and options in their original order.
 */
#pragma once

#include <string>
#include <vector>

namespace minitvm::autotune {

struct Target {
  std::string name;                  ///< first token: cuda, llvm, opencl, ...
  std::vector<std::string> options;  ///< remaining tokens verbatim, in order
  std::vector<std::string> keys;     ///< dispatch keys in TVM's order
  std::vector<std::string> libs;     ///< from -libs=a,b
  std::string device_name;           ///< from -device=X
  int max_num_threads = 1;
  int thread_warp_size = 1;

  /** Value of the first `-model=` option, else "unknown" (TVM's Python property). */
  std::string model() const;
  /** Value of the first `-NAME=` option, or "" when absent. */
  std::string option_value(const std::string& name) const;
  /** `str(target)`: name followed by each option, space separated. */
  std::string str() const;
};

/** Parse a target string. Throws CompileError for an empty string. A `-target=` option is kept
 *  verbatim (TVM v0.7 rewrites it to -mtriple with a warning; we only read it). */
Target parse_target(const std::string& s);

}  // namespace minitvm::autotune
