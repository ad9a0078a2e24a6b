/** \file
 * CUDA C code generation (TVM v0.6 style, see docs/ARCHITECTURE.md "CUDA codegen").
 *
 * `build_cuda(lowered)` runs thread_sync("shared") and split_host_device on a lowered function and
 * prints every kernel with CodeGenCUDA:
 *
 *   extern "C" __global__ void __launch_bounds__(64) add_kernel0( float* __restrict__ C,  float*
 * __restrict__ A, ...) { C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[...] + B[...]);
 *   }
 *
 * Text rules: handle parameters are printed TVM-style (leading space, double space after commas);
 * `__launch_bounds__(threads)` is printed when the block has more than one thread (TVM v0.8);
 * thread variables print as `((int)threadIdx.x)`; shared allocations `__shared__ float X[N];`,
 * local ones `float X[N];` (with `__align__(16)` when accessed with vector types); barriers
 * `__syncthreads();`; Unrolled loops get `#pragma unroll`; aligned stride-1 vector accesses of 2/4
 * lanes print `((float4*)(A + i))[0]`.
 *
 * Types: int64 is `long long` (no <stdint.h> needed under NVRTC); float16 is `half`, with
 * `#include <cuda_fp16.h>` prepended on demand. Half arithmetic and comparisons use cuda_fp16's
 * operators; conversions go through `__float2half_rn` / `__half2float`; math functions on half are
 * computed in float; ±inf/NaN half literals are `__ushort_as_half(0x7C00)` style bit patterns;
 * float ±inf/NaN are `__int_as_float(0x7f800000)` style (no math_constants.h needed).
 * bfloat16 is `__nv_bfloat16` (`__nv_bfloat162` for 2 lanes), with `#include <cuda_bf16.h>` on
 * demand, following the same rules through cuda_bf16's operators and `__float2bfloat16_rn` /
 * `__bfloat162float`; every conversion into bfloat16 rounds once (`__double2bfloat16`,
 * `__int2bfloat16_rn`, `__ll2bfloat16_rn`, ... rather than through float), and literals are
 * rounded to bfloat16 by the printer (`__float2bfloat16_rn(<exact float>)`, ±inf/NaN as
 * `__ushort_as_bfloat16(0x7F80)` style bit patterns).
 *
 * min/max: integers use CUDA's `min(a, b)` / `max(a, b)`. Floating point (float, double, half,
 * bfloat16) use helper functions `mtvm_min` / `mtvm_max` defined in the preamble, which PROPAGATE
 * NaN (like PyTorch's max pooling and `torch.maximum`): `(a > b || isnan(a)) ? a : b`. This differs
 * from TVM, whose `max(a, b)` is `fmaxf` (NaN-ignoring). It also avoids the ambiguous `max(half,
 * half)` overload (and `__hmax`, which ignores NaN).
 *
 * Math: float32 uses the accurate libdevice functions (`expf`, `logf`, `sqrtf`, `tanhf`, `powf`,
 * `erff`, ...), not TVM's fast `__expf`; float64 the plain names (`exp`, `sqrt`).
 */
#pragma once

#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/codegen/codegen_c.h"
#include "minitvm/runtime/module.h"
#include "minitvm/support/target.h"

namespace minitvm::codegen {

/** Prints device kernels (output of split_host_device) as one CUDA C translation unit. */
class CodeGenCUDA : public CodeGenC {
 public:
  CodeGenCUDA();

 protected:
  void print_type(DataType t, std::ostream& os) override;
  void print_func_prefix(const ir::PrimFunc& f, std::ostream& os) override;
  void print_func_attrs(const ir::PrimFunc& f, std::ostream& os) override;
  void print_storage_scope(ir::StorageScope scope, std::ostream& os) override;
  void bind_thread_index(const ir::IterVar& iv) override;
  void print_storage_sync(const ir::CallNode* op) override;
  bool supports_vector_access(DataType t) const override;
  void print_vec_construct(DataType t, const std::vector<std::string>& lanes,
                           std::ostream& os) override;
  void print_float_const(DataType t, double v, std::ostream& os) override;
  void print_min_max(bool is_max, const ir::Expr& a, const ir::Expr& b, std::ostream& os) override;
  void print_math_call(const ir::CallNode* op, std::ostream& os) override;
  void print_cast(DataType to, const ir::Expr& value, std::ostream& os) override;
  void print_unroll_hint() override;
  void print_alloc_alignment(const ir::AllocateNode* op, std::ostream& os) override;
  std::string preamble() override;

 private:
  bool need_fp16_ = false, need_bf16_ = false;
  bool need_minmax_f32_ = false, need_minmax_f64_ = false, need_minmax_f16_ = false,
       need_minmax_bf16_ = false;
};

/** The nearest bfloat16 of `v` (ties to even, rounded once), as bits; NaN -> 0x7FFF. */
uint16_t bfloat16_bits(double v);

/** Threads per block of a kernel: the product of its threadIdx extents (constants), or 1. */
int64_t kernel_block_threads(const ir::PrimFunc& kernel);

/** Options of the CUDA backend. */
struct CudaBuildOptions {
  /** Architecture for NVRTC ("sm_90"); empty = the device's own when there is one, else sm_90. */
  std::string arch;
  /** `-emulate`: the module runs the kernels on the CPU emulator instead of a GPU. */
  bool emulate = false;
  /** `-checked` (with -emulate): the emulator reports output elements no kernel wrote. */
  bool checked = false;
  /** Print `__restrict__` on pointer parameters (TVM's restricted_func, default true). */
  bool restricted = true;
  /** Without `emulate`: assemble the PTX with `ptxas -v` (when ptxas is installed) and check its
   *  registers and shared memory against each launch's limits. */
  bool ptxas_check = true;
  /** Print the IR after each device pass (thread_sync, split_host_device) to this stream
   *  (nullptr: stderr when MINITVM_PRINT_IR is set, else off), as lower() does. */
  std::ostream* print_after_each_pass = nullptr;
  /** From a parsed CUDA target (CompileError for a target that is not cuda/nvptx). */
  static CudaBuildOptions from_target(const Target& target);
  /** Parse a target string such as "cuda", "cuda -emulate", "cuda -arch=sm_80" (parse_target +
   *  check_build_target). */
  static CudaBuildOptions from_target(const std::string& target);
};

/** What build_cuda produces. */
struct CudaBuildResult {
  std::string cuda_source;         ///< the whole translation unit (all kernels)
  runtime::CudaFunctionInfo info;  ///< signature + launches (grid/block from the IR)
  ir::PrimFunc host;               ///< host function (kernel regions replaced by tvm_call_packed)
  std::vector<ir::PrimFunc> kernels;  ///< device functions after thread_sync, as printed
};

/**
 * Device build of one lowered function: the device passes (transform::lower_device: thread_sync
 * of shared memory, split_host_device, through the pass logger), CodeGenCUDA.
 * Throws CompileError for IR the backend cannot express (non-constant launch extents, dynamic
 * allocations, unsupported types) and for kernels over CUDA's launch limits (threads per block
 * 1024, block dimensions 1024/1024/64, grid 2^31-1/65535/65535, static shared memory 48 KiB per
 * block), naming the kernel, the resource, the amount and the limit.
 */
CudaBuildResult build_cuda(const ir::PrimFunc& lowered, const CudaBuildOptions& options = {});

/** What build_cuda produces for several functions compiled into one module. */
struct CudaModuleBuild {
  std::string cuda_source;  ///< all kernels of all functions
  std::vector<runtime::CudaFunctionInfo> functions;
  std::vector<CudaBuildResult> parts;  ///< per function (each part's source alone)
};

/** build_cuda on each function, kernels of all functions in one source. Names must be unique. */
CudaModuleBuild build_cuda(const std::vector<ir::PrimFunc>& lowered,
                           const CudaBuildOptions& options = {});

/**
 * A runtime module for lowered functions: without `emulate`, NVRTC compiles the source to PTX and
 * runtime::make_cuda_module wraps it (a GPU is needed only to call functions); with `emulate`,
 * make_cuda_emulator_module runs the same CUDA C on the CPU emulator.
 */
runtime::Module build_cuda_module(const std::vector<ir::PrimFunc>& lowered,
                                  const CudaBuildOptions& options = {});

/** Print already split device kernels as one CUDA C source (no passes run). */
std::string codegen_cuda(const std::vector<ir::PrimFunc>& kernels,
                         const CudaBuildOptions& options = {});

}  // namespace minitvm::codegen
