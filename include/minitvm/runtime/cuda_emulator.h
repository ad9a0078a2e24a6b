/** \file
 * CUDA CPU emulator: runs emitted CUDA C kernels on the host with CUDA semantics.
 *
 * The exact CUDA C text (as printed by the CUDA codegen) is compiled with the system C++ compiler
 * into a shared object, together with a prelude that supplies CUDA's keywords, built-in variables,
 * vector types, math functions and `__syncthreads()`. Only declarations are rewritten (kernel
 * pointer parameters, `__shared__` arrays, local arrays become checked objects); kernel bodies are
 * compiled as emitted. A launch runs every block of the grid in order and every thread of a block
 * as a fiber, so `__syncthreads()` is a real barrier. It reports, as EmulatorError:
 *   - out-of-bounds global, shared or local accesses (kernel, variable, index, block, thread),
 *   - misaligned vector accesses (`((float4*)(A + i))[0]` with `i` not a multiple of 4),
 *   - data races on shared memory between two barriers (two threads of a block, one writing),
 *   - a `__syncthreads()` not reached by all threads of a block,
 *   - faults (SIGSEGV, SIGFPE, ...) inside kernel code, and invalid launch configurations.
 * docs/EMULATOR.md describes the rewrite and the checks exactly.
 */
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/support/error.h"

namespace minitvm::runtime::emulator {

/** An error found while emulating a kernel (or compiling it for emulation). */
class EmulatorError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/** One parameter of an emitted kernel, as parsed from its signature. */
struct KernelParam {
  std::string name;
  std::string c_type;  ///< element type for pointers ("float"), else the scalar type ("int")
  bool is_pointer = false;
};

/** A `__shared__` array declared by a kernel. */
struct SharedDecl {
  std::string name;
  std::string c_type;
  int64_t count = 0;  ///< elements; -1 for `extern __shared__ T name[];` (dynamic)
};

/** What the emulator learned about one `__global__` function of the source. */
struct KernelInfo {
  std::string name;
  std::vector<KernelParam> params;
  int64_t launch_bounds = 0;  ///< from `__launch_bounds__(N)`, 0 if absent
  std::vector<SharedDecl> shared;
  int first_line = 0;  ///< line of the signature in the CUDA source (1-based)
};

/** The result of rewriting a CUDA source for host compilation. */
struct RewrittenSource {
  std::string text;  ///< same line count as the input
  std::vector<KernelInfo> kernels;
  bool uses_barrier = false;  ///< `__syncthreads` appears anywhere in the source
};

/**
 * Rewrites the declarations of a CUDA source (see docs/EMULATOR.md) and parses its kernels.
 * Throws EmulatorError when a construct cannot be emulated (e.g. a 2-D `__shared__` array).
 */
RewrittenSource rewrite_cuda_source(const std::string& cuda_source);

/** A CUDA source compiled for emulation (a loaded shared object). Thread-safe to launch from. */
class CompiledKernels;

/**
 * Compiles a CUDA source for emulation. Results are cached by a hash of the source within the
 * process (and on disk under $MINITVM_EMULATOR_CACHE_DIR when that is set). The C++ compiler is
 * $CXX, else `c++`. Throws EmulatorError with the compiler log and the numbered source on failure.
 */
std::shared_ptr<const CompiledKernels> compile(const std::string& cuda_source);

/** The kernels of a compiled source. */
const std::vector<KernelInfo>& kernels(const CompiledKernels& compiled);
/** The CUDA source a CompiledKernels was built from. */
const std::string& source(const CompiledKernels& compiled);

/** An argument of a launch: a host buffer (for a pointer parameter) or a scalar. */
struct EmuArg {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  void* data = nullptr;  ///< Buffer: host memory
  int64_t nbytes = 0;    ///< Buffer: size in bytes (accesses beyond it are reported)
  int64_t i = 0;         ///< Int
  double f = 0;          ///< Float

  static EmuArg buffer(void* data, int64_t nbytes) {
    EmuArg a;
    a.kind = Kind::Buffer;
    a.data = data;
    a.nbytes = nbytes;
    return a;
  }
  template <typename T>
  static EmuArg buffer(std::vector<T>& v) {
    return buffer(v.data(), static_cast<int64_t>(v.size() * sizeof(T)));
  }
  static EmuArg scalar_int(int64_t v) {
    EmuArg a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
  }
  static EmuArg scalar_float(double v) {
    EmuArg a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
  }
};

using Dim3 = std::array<int64_t, 3>;

/** Options of one launch. */
struct LaunchOptions {
  int64_t dynamic_shared_bytes = 0;  ///< size of `extern __shared__` arrays
};

/**
 * Runs kernel `kernel` of `compiled` over `grid` x `block` with `args` (one per kernel parameter,
 * in order). Runs in the calling thread; returns when all blocks finished. Throws EmulatorError
 * naming the kernel, variable, indices, block and thread on any violation listed in the file
 * comment; buffers may then hold partial results.
 */
void launch(const CompiledKernels& compiled, const std::string& kernel, Dim3 grid, Dim3 block,
            const std::vector<EmuArg>& args, const LaunchOptions& options = {});

/** Options of an emulator module. */
struct EmulatorModuleOptions {
  /**
   * Checked mode (`cuda -emulate -checked`, or MINITVM_EMULATOR_CHECKED=1 for every emulator
   * module): before a call, each output buffer is filled with 0xff bytes (as temporaries always
   * are); after the launches, an element still holding that pattern is re-checked by running the
   * call again with 0x00 bytes (buffers updated in place restored first), and an element that kept
   * the poison both times is reported as EmulatorError naming the function, the buffer, the number
   * of unwritten elements and the first unwritten index.
   */
  bool checked = false;
  /** Per function (parallel to `functions`): signature arguments the kernels write before reading
   *  (outputs; build() fills this in). Only these are poisoned and checked. */
  std::vector<std::vector<int>> outputs;
  /** Per function: signature arguments read and later written (saved and restored for the rerun).
   */
  std::vector<std::vector<int>> updated;
};

/**
 * A runtime module (type key "cuda-emulator") whose functions take CPU NDArrays and scalars per
 * `functions[i].signature` and run `functions[i].launches` in order on the emulator.
 * `get_source("")`/`get_source("cuda")` return the CUDA source; `get_source("emulator")` the
 * rewritten host source. Compiles the source eagerly (throws EmulatorError if it does not compile).
 * The compiled object is unloaded when the last module (or function) using it is destroyed.
 */
runtime::Module make_cuda_emulator_module(std::string cuda_source,
                                          std::vector<runtime::CudaFunctionInfo> functions,
                                          const EmulatorModuleOptions& options = {});

/** Number of compiled emulator objects currently loaded in this process (tests). */
int64_t loaded_objects();

}  // namespace minitvm::runtime::emulator
