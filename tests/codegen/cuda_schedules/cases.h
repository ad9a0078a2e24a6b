/** \file
 * The CUDA kernels of the tests/codegen/cuda_schedules suite, each a te schedule plus host data and
 * a naive C++ reference, shared by the emulator tests (test_cuda_emulate.cc), the GPU tests
 * (test_cuda_gpu.cc) and the GPU benchmark (bench/gpu/). Every case is built through the public
 * API: `build(sch, args, target, name)`.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"

namespace minitvm::cuda_tests {

/** One kernel: schedule, arguments, host data and the expected outputs. */
struct CudaCase {
  std::string name;
  te::Schedule sch;
  std::vector<te::Tensor> args;
  std::vector<runtime::NDArray> host;         ///< one CPU array per argument (inputs filled)
  std::vector<int> outputs;                   ///< indices of the output arguments
  std::vector<std::vector<double>> expected;  ///< per output, from a naive C++ loop nest
  /// Per output, a second result each element may equal instead (empty: none). For float16
  /// `a * b + c`, which NVRTC (--fmad=true by default, as in TVM's builds) may contract to one
  /// rounding while the emulator and the reference round twice.
  std::vector<std::vector<double>> expected_alt;
  double rtol = 1e-5, atol = 1e-5;
  double flops = 0;  ///< floating point operations of one call
};

/** Names accepted by make_case, in test order. */
std::vector<std::string> case_names();
/** Build a fresh case (a new schedule each call). Throws std::out_of_range for unknown names. */
CudaCase make_case(const std::string& name);

/** Tiled TVM-style matmul C[n,n] = A[n,n] B[n,n] (float32), used by the tests and the benchmark. */
CudaCase make_tiled_matmul(int n, bool with_reference = true);

/** Elements of an array as doubles (float32, float16, int32 supported). */
std::vector<double> to_doubles(const runtime::NDArray& a);

/** First mismatch of `got` against `want` under rtol/atol as a message, "" when all match. With
 *  `alt` (same size as `want`), an element also matches when it matches alt's. */
std::string compare(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                    double atol, const std::vector<double>* alt = nullptr);

}  // namespace minitvm::cuda_tests
