/** \file
 * Target strings, parsed once for every module that needs them: build() and the code generators,
 * AutoTVM dispatch and records, topi (`autotune::Target` / `autotune::parse_target` are aliases).
 *
 * Keys and model follow TVM v0.6's `Target::Create`: `cuda
 * -model=titanx` has keys ["cuda", "gpu"] and model "titanx"; `llvm -mcpu=skylake-avx512` has keys
 * ["cpu"]; `opencl -device=mali` has keys ["mali", "mali", "opencl", "gpu"] (TVM pushes the device
 * key twice). str() gives back the name and options in their original order.
 *
 * parse_target() reads any target a tuning log may carry (opencl, rocm, unknown options are kept
 * verbatim), but the options minitvm interprets must have valid values:
 *   cuda/nvptx: `-arch=sm_XY` (NVRTC's --gpu-architecture, ptxas -arch, the saved module's "arch"),
 *               `-emulate` (run on the CPU emulator), `-checked` (emulator only: report output
 *               elements no kernel wrote);
 *   llvm/c/cpu: `-mcpu=NAME`, `-mattr=+a,-b` (the JIT's CPU and features), `-mtriple=`/`-target=`.
 * check_build_target() is the stricter check build() applies: a kind minitvm can compile and only
 * options that kind understands (plus the dispatch-only -model/-device/-libs/-keys).
 */
#pragma once

#include <string>
#include <vector>

namespace minitvm {

struct Target {
  std::string name;                  ///< first token: cuda, llvm, opencl, ...
  std::vector<std::string> options;  ///< remaining tokens verbatim, in order
  std::vector<std::string> keys;     ///< dispatch keys in TVM's order
  std::vector<std::string> libs;     ///< from -libs=a,b
  std::string device_name;           ///< from -device=X
  int max_num_threads = 1;
  int thread_warp_size = 1;

  // Options interpreted by the code generators (parsed and checked by parse_target).
  std::string arch;                ///< cuda: "sm_80" from -arch=, "" = the device's / sm_90
  bool emulate = false;            ///< cuda: -emulate
  bool checked = false;            ///< cuda: -checked (emulator's unwritten-output check)
  std::string mcpu;                ///< llvm: -mcpu=
  std::vector<std::string> mattr;  ///< llvm: -mattr=, each "+feature" or "-feature"
  std::string mtriple;             ///< llvm: -mtriple= (or TVM v0.7's -target=)

  bool is_cuda() const { return name == "cuda" || name == "nvptx"; }
  bool is_llvm() const { return name == "llvm" || name == "cpu" || name == "c"; }

  /** Value of the first `-model=` option, else "unknown" (TVM's Python property). */
  std::string model() const;
  /** Value of the first `-NAME=` option, or "" when absent. */
  std::string option_value(const std::string& name) const;
  /** `str(target)`: name followed by each option, space separated. */
  std::string str() const;
};

/** Parse a target string (see the file comment). CompileError for an empty string or an invalid
 *  value of an interpreted option, naming the target, the option and the value. */
Target parse_target(const std::string& s);

/** build()'s check: CompileError unless `t` is llvm/c/cpu or cuda/nvptx and every option is one
 *  that kind uses, naming the option. (Whether NVRTC knows the -arch is checked where NVRTC is.) */
void check_build_target(const Target& t);

/** Whether `arch` has the form sm_XY (two or three digits, optional 'a'/'f' suffix). */
bool is_cuda_arch_syntax(const std::string& arch);

}  // namespace minitvm
