/** \file
 * CUDA C test kernels in the style the CUDA printer emits (TVM v0.6 rules, spec section 7), used by
 * the emulator tests and compiled with nvcc/ptxas by test_emulator_ptxas.cc when CUDA is present.
 */
#pragma once

#include <string>
#include <vector>

namespace minitvm_test {

inline const char* const kVectorAdd = R"(extern "C" __global__ void __launch_bounds__(64) vadd_kernel0( float* __restrict__ C,  float* __restrict__ A,  float* __restrict__ B, int n) {
  if (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < n) {
    C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] + B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))]);
  }
}

)";

}  // namespace minitvm_test
