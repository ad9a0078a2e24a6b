/** \file
 * bench/gpu/conv2d: the vendor side of the comparison. cuDNN runs conv2d and depthwise layers
 * (cudnnConvolutionForward, NCHW float32, FMA math so no TF32), cuBLAS runs dense layers (SGEMM);
 * both are opened with dlopen (bench/gpu/vendor_libs.h) and typed from their headers (cudnn.h,
 * cublas_v2.h) when the build found them (MINITVM_BENCH_HAVE_CUDNN_H / _CUBLAS_H); without a
 * header that library's column is left out.
 *
 * ConvParams is the pure C++ part: a sweep workload turned into cuDNN's descriptor parameters
 * (groups for depthwise, symmetric padding), with the output shape computed the way TOPI does; the
 * dry run checks it against our built layer's output shape and against
 * cudnnGetConvolution2dForwardOutputDim, which needs no GPU.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/devtools/sweep.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm::bench {

/** cuDNN descriptor parameters of a conv2d / depthwise workload (batch = the workload's own). */
struct ConvParams {
  int n = 0, c = 0, h = 0, w = 0;              ///< input (NCHW)
  int k = 0, c_per_group = 0, kh = 0, kw = 0;  ///< filter (K, C / groups, KH, KW)
  int groups = 1;                              ///< 1 for conv2d, C for depthwise
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  std::array<int64_t, 4> out{};  ///< output (N, K, OH, OW) as TOPI computes it
  std::string unsupported;       ///< why cuDNN cannot run it ("" when it can)
  /** "x 1x64x56x56 w 64x64x3x3 g1 pad 1,1 stride 1,1 dil 1,1" */
  std::string str() const;
};

/** Descriptor parameters of a conv2d or depthwise workload; throws for dense or malformed shapes.
 */
ConvParams conv_params(const topi::sweep::SweepWorkload& w);

/** How a library call was timed (both sides use the same time_evaluator settings). */
struct Timing {
  int number = 1, repeat = 5;
  double min_repeat_ms = 3.0;
};

/** Result of a vendor run: its time and whether its output can serve as the reference. */
struct VendorRun {
  bool ran = false;       ///< output written and timed
  double seconds = 0;     ///< time_evaluator median
  std::string algo;       ///< what was timed, e.g. "IMPLICIT_PRECOMP_GEMM", "sgemm"
  std::string reference;  ///< what wrote the output, e.g. "IMPLICIT_GEMM"
  std::string error;      ///< why it did not run
};

/** cuDNN's convolution forward. */
class CudnnConv {
 public:
  CudnnConv();
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  /** dlopen the library and resolve every entry point; no GPU needed. */
  bool load();
  /** Create the cuDNN handle (needs a GPU; call after the device is in use). */
  bool create_handle();
  bool loaded() const;
  bool ready() const;  ///< loaded and handle created
  /** Library name and version, or why it is not there. */
  std::string describe() const;

  /** cuDNN's output dims for `p` (descriptors only, no GPU); false with `why` on a cuDNN error. */
  bool output_dims(const ConvParams& p, std::array<int64_t, 4>* dims, std::string* why) const;

  /**
   * Run and time `p` on the GPU: the algorithm cuDNN's heuristics rank first
   * (cudnnGetConvolutionForwardAlgorithm_v7; the first that runs with at most `max_workspace`
   * bytes of workspace) is timed, then CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM writes the
   * reference output into `y` (if it cannot run, `y` keeps the timed algorithm's output).
   * `x`, `wt`, `y` are cuda NDArrays of p's shapes.
   */
  VendorRun run(const ConvParams& p, const runtime::NDArray& x, const runtime::NDArray& wt,
                const runtime::NDArray& y, Device dev, const Timing& timing,
                size_t max_workspace) const;

  struct Impl;  ///< the library's entry points (vendor.cc)

 private:
  Impl* impl_;
};

/** cuBLAS SGEMM for dense layers: y[b][n] = sum_k x[b][k] * w[n][k] (no bias: add it on the host).
 */
class CublasDense {
 public:
  CublasDense();
  ~CublasDense();
  CublasDense(const CublasDense&) = delete;
  CublasDense& operator=(const CublasDense&) = delete;

  bool load();
  bool create_handle();
  bool loaded() const;
  bool ready() const;
  std::string describe() const;

  /** Run and time y = x w^T (x: batch x in_dim, w: out_dim x in_dim, y: batch x out_dim, cuda). */
  VendorRun run(int64_t batch, int64_t in_dim, int64_t out_dim, const runtime::NDArray& x,
                const runtime::NDArray& w, const runtime::NDArray& y, Device dev,
                const Timing& timing) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace minitvm::bench
