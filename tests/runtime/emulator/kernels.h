/** \file
 * CUDA C test kernels in the style the CUDA printer emits (TVM v0.6 rules; docs/CUDA.md), used by
 * the emulator tests and compiled with nvcc/ptxas by test_emulator_ptxas.cc when CUDA is present.
 */
#pragma once

#include <string>
#include <vector>

namespace minitvm_test {

/** C = A + B over n elements; grid (ceil(n/64)), block (64). */
inline const char* const kVectorAdd =
    R"(extern "C" __global__ void __launch_bounds__(64) vadd_kernel0( float* __restrict__ C,  float* __restrict__ A,  float* __restrict__ B, int n) {
  if (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < n) {
    C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] + B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))]);
  }
}

)";

/** Row sums of X[rows, 1000] through a shared-memory tree; grid (rows), block (128). */
inline const char* const kRowSum =
    R"(extern "C" __global__ void __launch_bounds__(128) rowsum_kernel0( float* __restrict__ X,  float* __restrict__ Y) {
  float acc_local[1];
  __shared__ float red_buf[128];
  acc_local[0] = 0.000000e+00f;
  for (int k_outer = 0; k_outer < 8; ++k_outer) {
    if (((k_outer * 128) + ((int)threadIdx.x)) < 1000) {
      acc_local[0] = (acc_local[0] + X[(((((int)blockIdx.x) * 1000) + (k_outer * 128)) + ((int)threadIdx.x))]);
    }
  }
  red_buf[((int)threadIdx.x)] = acc_local[0];
  __syncthreads();
  for (int s = 0; s < 7; ++s) {
    if (((int)threadIdx.x) < (64 >> s)) {
      red_buf[((int)threadIdx.x)] = (red_buf[((int)threadIdx.x)] + red_buf[(((int)threadIdx.x) + (64 >> s))]);
    }
    __syncthreads();
  }
  if (((int)threadIdx.x) == 0) {
    Y[((int)blockIdx.x)] = red_buf[0];
  }
}

)";

/**
 * C[M,N] = A[M,K] * B[K,N] with 16x16 shared tiles loaded cooperatively, 2x2 outputs per thread;
 * grid (N/16, M/16), block (8, 8).
 */
inline std::string matmul_source(int M, int N, int K) {
  std::string s =
      R"(extern "C" __global__ void __launch_bounds__(64) matmul_kernel0( float* __restrict__ A,  float* __restrict__ B,  float* __restrict__ C) {
   float C_local[4];
  __shared__ float A_shared[256];
  __shared__ float B_shared[256];
  for (int i_c_init = 0; i_c_init < 2; ++i_c_init) {
    for (int j_c_init = 0; j_c_init < 2; ++j_c_init) {
      C_local[((i_c_init * 2) + j_c_init)] = 0.000000e+00f;
    }
  }
  for (int k_outer = 0; k_outer < @KO@; ++k_outer) {
    __syncthreads();
    #pragma unroll
    for (int ax0_ax1_fused_outer = 0; ax0_ax1_fused_outer < 4; ++ax0_ax1_fused_outer) {
      A_shared[(((ax0_ax1_fused_outer * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x))] = A[(((((((int)blockIdx.y) * 16) + ((((ax0_ax1_fused_outer * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x)) >> 4)) * @K@) + (k_outer * 16)) + ((((ax0_ax1_fused_outer * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x)) & 15))];
    }
    #pragma unroll
    for (int ax0_ax1_fused_outer1 = 0; ax0_ax1_fused_outer1 < 4; ++ax0_ax1_fused_outer1) {
      B_shared[(((ax0_ax1_fused_outer1 * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x))] = B[(((((k_outer * 16) + ((((ax0_ax1_fused_outer1 * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x)) >> 4)) * @N@) + (((int)blockIdx.x) * 16)) + ((((ax0_ax1_fused_outer1 * 64) + (((int)threadIdx.y) * 8)) + ((int)threadIdx.x)) & 15))];
    }
    __syncthreads();
    for (int k_inner = 0; k_inner < 16; ++k_inner) {
      for (int i_c = 0; i_c < 2; ++i_c) {
        for (int j_c = 0; j_c < 2; ++j_c) {
          C_local[((i_c * 2) + j_c)] = (C_local[((i_c * 2) + j_c)] + (A_shared[((((((int)threadIdx.y) * 2) + i_c) * 16) + k_inner)] * B_shared[(((k_inner * 16) + (((int)threadIdx.x) * 2)) + j_c)]));
        }
      }
    }
  }
  for (int i_inner_inner = 0; i_inner_inner < 2; ++i_inner_inner) {
    for (int j_inner_inner = 0; j_inner_inner < 2; ++j_inner_inner) {
      C[(((((((((int)blockIdx.y) * 16) + (((int)threadIdx.y) * 2)) + i_inner_inner) * @N@) + (((int)blockIdx.x) * 16)) + (((int)threadIdx.x) * 2)) + j_inner_inner)] = C_local[((i_inner_inner * 2) + j_inner_inner)];
    }
  }
}

)";
  auto subst = [&s](const std::string& key, int v) {
    for (size_t p; (p = s.find(key)) != std::string::npos;)
      s.replace(p, key.size(), std::to_string(v));
  };
  subst("@KO@", K / 16);
  subst("@K@", K);
  subst("@N@", N);
  (void)M;
  return s;
}

/**
 * float4 loads/stores through global and shared memory: B gets A with the 4-float chunks of each
 * 256-float block reversed; C[b*64+t] = A[b*256] + A[b*256 + 4t + 1]. grid (blocks), block (64).
 */
inline const char* const kVectorCopy =
    R"(extern "C" __global__ void __launch_bounds__(64) vcopy_kernel0( float* __restrict__ B,  float* __restrict__ A,  float* __restrict__ C) {
  __shared__ float A_shared[256];
  ((float4*)(A_shared + (((int)threadIdx.x) * 4)))[0] = ((float4*)(A + ((((int)blockIdx.x) * 256) + (((int)threadIdx.x) * 4))))[0];
  __syncthreads();
  ((float4*)(B + ((((int)blockIdx.x) * 256) + (((int)threadIdx.x) * 4))))[0] = ((float4*)(A_shared + ((63 - ((int)threadIdx.x)) * 4)))[0];
  C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A_shared[0] + ((float2*)(A_shared + (((int)threadIdx.x) * 4)))[0].y);
}

)";

/** The fp16 header TVM v0.6 prints when a kernel uses half. */
inline const char* const kHalfHeader = R"(#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 530)
#include <cuda_fp16.h>
__device__ half max(half a, half b)
{
  return __hgt(__half(a), __half(b)) ? a : b;
}
__device__ half min(half a, half b)
{
  return __hlt(__half(a), __half(b)) ? a : b;
}
#endif
)";

/** fp16: C = max(A + B, 0) in half; grid (blocks), block (128). */
inline const char* const kHalfAddRelu =
    R"(extern "C" __global__ void __launch_bounds__(128) hadd_relu_kernel0( half* __restrict__ C,  half* __restrict__ A,  half* __restrict__ B) {
  C[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] = max((A[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] + B[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))]), __float2half_rn(0.000000e+00f));
}

)";

/** fp16 row means over 64 columns with float accumulation; grid (rows/32), block (32). */
inline const char* const kHalfMean =
    R"(extern "C" __global__ void __launch_bounds__(32) hmean_kernel0( half* __restrict__ out,  half* __restrict__ in) {
  float acc_local[1];
  acc_local[0] = 0.000000e+00f;
  for (int k = 0; k < 64; ++k) {
    acc_local[0] = (acc_local[0] + ((float)in[((((((int)blockIdx.x) * 32) + ((int)threadIdx.x)) * 64) + k)]));
  }
  out[((((int)blockIdx.x) * 32) + ((int)threadIdx.x))] = ((half)(acc_local[0] * 1.562500e-02f));
}

)";

/**
 * 2-D grid, int64 indices, scalar float/int64 parameters, math intrinsics:
 * Y = max(X * alpha, min(sqrtf(fabsf(X)), 0.5)) + __expf(X) * 0.125 for idx < n.
 * grid (8, 2), block (32, 8): 8192 positions.
 */
inline const char* const kActivation =
    R"(extern "C" __global__ void __launch_bounds__(256) act_kernel0( float* __restrict__ Y,  float* __restrict__ X, float alpha, int64_t n) {
  for (int i_outer = 0; i_outer < 2; ++i_outer) {
    int64_t idx = ((((int64_t)((int)blockIdx.y)) * (int64_t)4096) + ((((int64_t)((int)blockIdx.x)) * (int64_t)512) + ((int64_t)((((i_outer * 256) + (((int)threadIdx.y) * 32)) + ((int)threadIdx.x))))));
    if (idx < n) {
      Y[idx] = (max((X[idx] * alpha), min(sqrtf(fabsf(X[idx])), 5.000000e-01f)) + (__expf(X[idx]) * 1.250000e-01f));
    }
  }
}

)";

/** The bfloat16 header, as the code generator includes it. */
inline const char* const kBf16Header = "#include <cuda_bf16.h>\n";

/** bfloat16: C = __hmax(A * B + A, 0) with cuda_bf16's operators; grid (blocks), block (128). */
inline const char* const kBf16MulAddRelu =
    R"(extern "C" __global__ void __launch_bounds__(128) bf16_madd_relu_kernel0( __nv_bfloat16* __restrict__ C,  __nv_bfloat16* __restrict__ A,  __nv_bfloat16* __restrict__ B) {
  C[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] = __hmax(((A[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] * B[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))]) + A[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))]), __float2bfloat16_rn(0.000000e+00f));
}

)";

/**
 * bfloat16 conversions and intrinsics, 8 results (bit patterns) per element: float, double, int
 * (the int64 truncated), int64 -> bfloat16; __hmax, __hmin, __hmax_nan of (a, b); (a + b) * a.
 * grid (n/64), block (64).
 */
inline const char* const kBf16Convert =
    R"(extern "C" __global__ void __launch_bounds__(64) bf16_conv_kernel0( unsigned short* __restrict__ out,  float* __restrict__ f,  double* __restrict__ d,  long long* __restrict__ ll,  __nv_bfloat16* __restrict__ a,  __nv_bfloat16* __restrict__ b) {
  int i = ((((int)blockIdx.x) * 64) + ((int)threadIdx.x));
  out[(i * 8)] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i]));
  out[((i * 8) + 1)] = __bfloat16_as_ushort(__double2bfloat16(d[i]));
  out[((i * 8) + 2)] = __bfloat16_as_ushort(__int2bfloat16_rn(((int)ll[i])));
  out[((i * 8) + 3)] = __bfloat16_as_ushort(__ll2bfloat16_rn(ll[i]));
  out[((i * 8) + 4)] = __bfloat16_as_ushort(__hmax(a[i], b[i]));
  out[((i * 8) + 5)] = __bfloat16_as_ushort(__hmin(a[i], b[i]));
  out[((i * 8) + 6)] = __bfloat16_as_ushort(__hmax_nan(a[i], b[i]));
  out[((i * 8) + 7)] = __bfloat16_as_ushort(((a[i] + b[i]) * a[i]));
}

)";

/**
 * float16 conversions, 4 results (bit patterns) per element: double, int (the int64 truncated),
 * int64, unsigned int (the int64 truncated) -> float16. grid (n/64), block (64).
 */
inline const char* const kHalfConvert =
    R"(extern "C" __global__ void __launch_bounds__(64) half_conv_kernel0( unsigned short* __restrict__ out,  double* __restrict__ d,  long long* __restrict__ ll) {
  int i = ((((int)blockIdx.x) * 64) + ((int)threadIdx.x));
  out[(i * 4)] = __half_as_ushort(__double2half(d[i]));
  out[((i * 4) + 1)] = __half_as_ushort(__int2half_rn(((int)ll[i])));
  out[((i * 4) + 2)] = __half_as_ushort(__ll2half_rn(ll[i]));
  out[((i * 4) + 3)] = __half_as_ushort(__uint2half_rn(((unsigned int)ll[i])));
}

)";

/** Every kernel above in one translation unit (names are unique), for the nvcc/ptxas check. */
inline std::string all_kernels_source() {
  return std::string(kHalfHeader) + kBf16Header + kVectorAdd + kRowSum + matmul_source(64, 64, 64) +
         kVectorCopy + kHalfAddRelu + kHalfMean + kActivation + kBf16MulAddRelu + kBf16Convert +
         kHalfConvert;
}

}  // namespace minitvm_test
