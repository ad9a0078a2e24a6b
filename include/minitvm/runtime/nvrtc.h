/** \file
 * CUDA C -> PTX with NVRTC, loaded at run time (dlopen), plus the `ptxas` resource check.
 *
 * nvrtc_compile() is the one place minitvm calls NVRTC:
 * - libnvrtc is searched in $CUDA_HOME/lib64, $CUDA_PATH/lib64, the directory of `nvcc` on PATH
 *   (../lib64), /usr/local/cuda/lib64, then the default loader path; versioned sonames
 *   (libnvrtc.so.13, .12, ...) are tried as well as libnvrtc.so.
 * - the program is always destroyed and the log always fetched (RAII), success or failure;
 * - on failure it throws NvrtcError (a CompileError) whose message and fields carry the NVRTC
 *   status name, the log, the options and the source with line numbers;
 * - the architecture is the device's compute capability when a CUDA driver and device exist and
 *   NvrtcOptions::arch is empty; otherwise NvrtcOptions::arch, defaulting to "sm_90". PTX is
 *   generated for the virtual architecture (`--gpu-architecture=compute_90`);
 * - `-I<cuda include dir>` is added when a CUDA include directory holding cuda_fp16.h is found
 *   ($CUDA_HOME/include, $CUDA_PATH/include, nvcc's ../include, /usr/local/cuda/include), so
 * kernels may `#include <cuda_fp16.h>`;
 * - results are cached by a hash of (source, options, arch) in memory and, when
 *   NvrtcOptions::cache_dir is set, as `<cache_dir>/<hash>.ptx` files.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/support/error.h"

namespace minitvm::runtime {

/** Options of one NVRTC compilation. */
struct NvrtcOptions {
  /** "sm_90", "sm_80", ...; empty = the current device's, else "sm_90". */
  std::string arch;
  /** Extra NVRTC options, e.g. "-default-device", "--use_fast_math". */
  std::vector<std::string> extra_options;
  /** Directory for the on-disk cache (created if missing); empty = memory cache only. */
  std::string cache_dir;
  /** Look the result up in (and store it into) the caches. */
  bool use_cache = true;
  /** Name of the program in NVRTC messages. */
  std::string program_name = "minitvm_kernels.cu";
};

/** Result of nvrtc_compile. */
struct NvrtcResult {
  std::string ptx;
  std::string arch;                  ///< e.g. "sm_90"
  std::vector<std::string> options;  ///< exactly as passed to NVRTC
  std::string log;                   ///< compiler log (warnings), possibly empty
  bool from_cache = false;
};

/** NVRTC rejected a program. what() contains all fields, formatted for a terminal. */
class NvrtcError : public CompileError {
 public:
  NvrtcError(std::string status, std::string log, std::vector<std::string> options,
             std::string numbered_source);
  const std::string& status() const { return status_; }  ///< e.g. "NVRTC_ERROR_COMPILATION"
  const std::string& log() const { return log_; }
  const std::vector<std::string>& options() const { return options_; }
  const std::string& numbered_source() const { return source_; }

 private:
  std::string status_, log_;
  std::vector<std::string> options_;
  std::string source_;
};

/** Whether libnvrtc could be loaded. Never throws. */
bool nvrtc_available();
/** "13.0" for the loaded NVRTC; throws RuntimeError when NVRTC is not available. */
std::string nvrtc_version();
/** The architectures the loaded NVRTC compiles for (nvrtcGetSupportedArchs), as "sm_75", ...;
 *  RuntimeError when NVRTC is not available. */
std::vector<std::string> nvrtc_supported_archs();
/** CompileError unless `arch` is sm_XY with XY in nvrtc_supported_archs() (an 'a'/'f' suffix is
 *  allowed on a supported XY); the message names the value, `what` (e.g. "target 'cuda
 *  -arch=sm_999'") and the supported list. Without NVRTC only the sm_XY form is checked. */
void check_nvrtc_arch(const std::string& arch, const std::string& what);
/** Compile CUDA C to PTX; see the file comment. RuntimeError when NVRTC is missing; CompileError
 *  for an `arch` check_nvrtc_arch rejects. */
NvrtcResult nvrtc_compile(const std::string& source, const NvrtcOptions& options = {});
/** Drop the in-memory cache (tests). */
void nvrtc_clear_memory_cache();

/** `source` with each line prefixed by its 1-based number: "   1 | first line". */
std::string with_line_numbers(const std::string& source);

/** The CUDA include directory holding cuda_fp16.h, or "" when none is found. */
std::string find_cuda_include_dir();

}  // namespace minitvm::runtime
