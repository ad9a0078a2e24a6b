// cuDNN convolution and cuBLAS SGEMM through dlopen, typed from their headers (see vendor.h).
#include "vendor.h"

#include <sstream>
#include <stdexcept>

#include "../vendor_libs.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/time_evaluator.h"
#include "minitvm/topi/nn.h"

#if MINITVM_BENCH_HAVE_CUDNN_H
#include <cudnn.h>
#endif
#if MINITVM_BENCH_HAVE_CUBLAS_H
#include <cublas_v2.h>
#endif

namespace minitvm::bench {

namespace {

int to_int(int64_t v, const char* what) {
  if (v < 0 || v > (int64_t{1} << 31) - 1)
    throw std::runtime_error(std::string("conv_params: ") + what + " " + std::to_string(v) +
                             " out of int range");
  return static_cast<int>(v);
}

// A PackedFunc that times a library call with time_evaluator (no arguments).
runtime::PackedFunc timed_call(std::function<void()> body, const char* name) {
  return runtime::PackedFunc([body](const std::vector<runtime::ArgValue>&) { body(); },
                             runtime::FunctionSignature{name, {}});
}

}  // namespace

// ---- ConvParams ----------------------------------------------------------------------------

std::string ConvParams::str() const {
  std::ostringstream os;
  os << "x " << n << "x" << c << "x" << h << "x" << w << " w " << k << "x" << c_per_group << "x"
     << kh << "x" << kw << " g" << groups << " pad " << pad_h << "," << pad_w << " stride "
     << stride_h << "," << stride_w << " dil " << dil_h << "," << dil_w << " -> " << out[0] << "x"
     << out[1] << "x" << out[2] << "x" << out[3];
  return os.str();
}

ConvParams conv_params(const topi::sweep::SweepWorkload& wl) {
  using topi::sweep::OpKind;
  if (wl.op == OpKind::Dense)
    throw std::runtime_error("conv_params: " + wl.describe() + " is a dense workload");
  if (wl.data_shape.size() != 4 || wl.kernel_shape.size() != 4 || wl.attrs.stride.empty() ||
      wl.attrs.dilation.empty())
    throw std::runtime_error("conv_params: malformed workload " + wl.describe());
  const auto& ds = wl.data_shape;
  const auto& ks = wl.kernel_shape;
  ConvParams p;
  p.n = to_int(ds[0], "batch");
  p.c = to_int(ds[1], "channels");
  p.h = to_int(ds[2], "height");
  p.w = to_int(ds[3], "width");
  p.kh = to_int(ks[2], "kernel height");
  p.kw = to_int(ks[3], "kernel width");
  if (wl.op == OpKind::Depthwise) {
    // TOPI's depthwise kernel (C, M, KH, KW) is cuDNN's grouped filter (C*M, 1, KH, KW), groups C:
    // output channel c*M + m reads input channel c in both.
    p.k = to_int(ks[0] * ks[1], "output channels");
    p.c_per_group = 1;
    p.groups = p.c;
    if (ks[0] != ds[1])
      throw std::runtime_error("conv_params: depthwise kernel has " + std::to_string(ks[0]) +
                               " channels, data " + std::to_string(ds[1]));
  } else {
    p.k = to_int(ks[0], "output channels");
    p.c_per_group = to_int(ks[1], "kernel channels");
    p.groups = 1;
  }
  auto pad = topi::nn::get_pad_tuple(wl.attrs.padding);  // top, left, bottom, right
  p.stride_h = to_int(wl.attrs.stride[0], "stride");
  p.stride_w =
      to_int(wl.attrs.stride.size() > 1 ? wl.attrs.stride[1] : wl.attrs.stride[0], "stride");
  p.dil_h = to_int(wl.attrs.dilation[0], "dilation");
  p.dil_w = to_int(wl.attrs.dilation.size() > 1 ? wl.attrs.dilation[1] : wl.attrs.dilation[0],
                   "dilation");
  p.pad_h = to_int(pad[0], "padding");
  p.pad_w = to_int(pad[1], "padding");
  if (pad[0] != pad[2] || pad[1] != pad[3])
    p.unsupported = "asymmetric padding (top,left,bottom,right " + std::to_string(pad[0]) + "," +
                    std::to_string(pad[1]) + "," + std::to_string(pad[2]) + "," +
                    std::to_string(pad[3]) + ")";
  p.out = {ds[0], p.k, topi::nn::conv_out_size(ds[2], ks[2], p.stride_h, pad[0], pad[2], p.dil_h),
           topi::nn::conv_out_size(ds[3], ks[3], p.stride_w, pad[1], pad[3], p.dil_w)};
  return p;
}

// ---- cuDNN ---------------------------------------------------------------------------------

#if MINITVM_BENCH_HAVE_CUDNN_H

struct CudnnConv::Impl {
  DynLib lib;
  std::string why;
  bool loaded = false;
  cudnnHandle_t handle = nullptr;
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetErrorString) error_string = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) set_tensor4d = nullptr;
  decltype(&cudnnCreateFilterDescriptor) create_filter = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) set_filter4d = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) create_conv = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_conv = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) set_conv2d = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) set_groups = nullptr;
  decltype(&cudnnSetConvolutionMathType) set_math = nullptr;
  decltype(&cudnnGetConvolution2dForwardOutputDim) output_dim = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) get_algorithms = nullptr;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) workspace_size = nullptr;
  decltype(&cudnnConvolutionForward) forward = nullptr;

  std::string status(cudnnStatus_t s) const {
    return error_string ? std::string(error_string(s))
                        : "cuDNN status " + std::to_string(static_cast<int>(s));
  }
  bool check(cudnnStatus_t s, const char* what, std::string* err) const {
    if (s == CUDNN_STATUS_SUCCESS) return true;
    if (err) *err = std::string(what) + ": " + status(s);
    return false;
  }
};

namespace {

const char* algo_name(int a) {
  static const char* const names[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return a >= 0 && a < 8 ? names[a] : "UNKNOWN";
}
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM == 0 &&
                  CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7,
              "algo_name follows cudnnConvolutionFwdAlgo_t");

// The descriptors of one layer, destroyed with it.
struct Descriptors {
  const CudnnConv::Impl& I;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descriptors(const CudnnConv::Impl& impl) : I(impl) {}
  ~Descriptors() {
    if (x) I.destroy_tensor(x);
    if (y) I.destroy_tensor(y);
    if (w) I.destroy_filter(w);
    if (conv) I.destroy_conv(conv);
  }
  // x, w and conv for p (FMA math: float32 without TF32 tensor cores); y too when with_output.
  bool setup(const ConvParams& p, bool with_output, std::string* err) {
    return I.check(I.create_tensor(&x), "cudnnCreateTensorDescriptor", err) &&
           I.check(I.set_tensor4d(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p.n, p.c, p.h, p.w),
                   "cudnnSetTensor4dDescriptor(x)", err) &&
           I.check(I.create_filter(&w), "cudnnCreateFilterDescriptor", err) &&
           I.check(I.set_filter4d(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p.k, p.c_per_group, p.kh,
                                  p.kw),
                   "cudnnSetFilter4dDescriptor", err) &&
           I.check(I.create_conv(&conv), "cudnnCreateConvolutionDescriptor", err) &&
           I.check(I.set_conv2d(conv, p.pad_h, p.pad_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w,
                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                   "cudnnSetConvolution2dDescriptor", err) &&
           I.check(I.set_groups(conv, p.groups), "cudnnSetConvolutionGroupCount", err) &&
           I.check(I.set_math(conv, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType(FMA)", err) &&
           (!with_output ||
            (I.check(I.create_tensor(&y), "cudnnCreateTensorDescriptor", err) &&
             I.check(I.set_tensor4d(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                    static_cast<int>(p.out[0]), static_cast<int>(p.out[1]),
                                    static_cast<int>(p.out[2]), static_cast<int>(p.out[3])),
                     "cudnnSetTensor4dDescriptor(y)", err)));
  }
};

}  // namespace

CudnnConv::CudnnConv() : impl_(new Impl) {}
CudnnConv::~CudnnConv() {
  if (impl_->handle) impl_->destroy(impl_->handle);
  delete impl_;
}

bool CudnnConv::load() {
  Impl& I = *impl_;
  if (!I.lib.open(kCudnnNames)) {
    I.why = "not loadable (" + I.lib.error + ")";
    return false;
  }
  bool ok = I.lib.sym(I.get_version, "cudnnGetVersion") &&
            I.lib.sym(I.error_string, "cudnnGetErrorString") &&
            I.lib.sym(I.create, "cudnnCreate") && I.lib.sym(I.destroy, "cudnnDestroy") &&
            I.lib.sym(I.create_tensor, "cudnnCreateTensorDescriptor") &&
            I.lib.sym(I.destroy_tensor, "cudnnDestroyTensorDescriptor") &&
            I.lib.sym(I.set_tensor4d, "cudnnSetTensor4dDescriptor") &&
            I.lib.sym(I.create_filter, "cudnnCreateFilterDescriptor") &&
            I.lib.sym(I.destroy_filter, "cudnnDestroyFilterDescriptor") &&
            I.lib.sym(I.set_filter4d, "cudnnSetFilter4dDescriptor") &&
            I.lib.sym(I.create_conv, "cudnnCreateConvolutionDescriptor") &&
            I.lib.sym(I.destroy_conv, "cudnnDestroyConvolutionDescriptor") &&
            I.lib.sym(I.set_conv2d, "cudnnSetConvolution2dDescriptor") &&
            I.lib.sym(I.set_groups, "cudnnSetConvolutionGroupCount") &&
            I.lib.sym(I.set_math, "cudnnSetConvolutionMathType") &&
            I.lib.sym(I.output_dim, "cudnnGetConvolution2dForwardOutputDim") &&
            I.lib.sym(I.get_algorithms, "cudnnGetConvolutionForwardAlgorithm_v7") &&
            I.lib.sym(I.workspace_size, "cudnnGetConvolutionForwardWorkspaceSize") &&
            I.lib.sym(I.forward, "cudnnConvolutionForward");
  if (!ok) {
    I.why = I.lib.name + " lacks an entry point of the legacy convolution API";
    return false;
  }
  I.loaded = true;
  return true;
}

bool CudnnConv::create_handle() {
  Impl& I = *impl_;
  if (!I.loaded) return false;
  if (I.handle) return true;
  cudnnStatus_t s = I.create(&I.handle);
  if (s != CUDNN_STATUS_SUCCESS) {
    I.handle = nullptr;
    I.why = "cudnnCreate failed: " + I.status(s);
    return false;
  }
  return true;
}

bool CudnnConv::loaded() const {
  return impl_->loaded;
}
bool CudnnConv::ready() const {
  return impl_->loaded && impl_->handle;
}

std::string CudnnConv::describe() const {
  const Impl& I = *impl_;
  if (!I.loaded || (!I.handle && !I.why.empty())) return I.why;
  return I.lib.name + " version " + std::to_string(I.get_version()) + " (headers " +
         std::to_string(CUDNN_VERSION) + ")";
}

bool CudnnConv::output_dims(const ConvParams& p, std::array<int64_t, 4>* dims,
                            std::string* why) const {
  const Impl& I = *impl_;
  if (!I.loaded) {
    *why = I.why;
    return false;
  }
  Descriptors d(I);
  if (!d.setup(p, /*with_output=*/false, why)) return false;
  int n = 0, c = 0, h = 0, w = 0;
  if (!I.check(I.output_dim(d.conv, d.x, d.w, &n, &c, &h, &w),
               "cudnnGetConvolution2dForwardOutputDim", why))
    return false;
  *dims = {n, c, h, w};
  return true;
}

VendorRun CudnnConv::run(const ConvParams& p, const runtime::NDArray& x, const runtime::NDArray& wt,
                         const runtime::NDArray& y, Device dev, const Timing& timing,
                         size_t max_workspace) const {
  const Impl& I = *impl_;
  VendorRun r;
  if (!ready()) {
    r.error = I.why.empty() ? "cuDNN handle not created" : I.why;
    return r;
  }
  if (!p.unsupported.empty()) {
    r.error = p.unsupported;
    return r;
  }
  Descriptors d(I);
  if (!d.setup(p, /*with_output=*/true, &r.error)) return r;
  const float alpha = 1.0f, beta = 0.0f;
  auto forward = [&](cudnnConvolutionFwdAlgo_t algo, const runtime::NDArray& ws) {
    return I.forward(I.handle, &alpha, d.x, x.data(), d.w, wt.data(), d.conv, algo,
                     ws.defined() ? ws.data() : nullptr,
                     ws.defined() ? static_cast<size_t>(ws.nbytes()) : 0, &beta, d.y, y.data());
  };
  auto workspace = [&](size_t bytes) {
    return bytes ? runtime::NDArray::empty({static_cast<int64_t>(bytes)}, DataType::UInt(8), dev)
                 : runtime::NDArray();
  };

  // Candidates: the heuristics' ranking (FMA math only), IMPLICIT_GEMM last as the fallback.
  std::vector<std::pair<cudnnConvolutionFwdAlgo_t, size_t>> candidates;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  std::string notes;
  if (I.check(I.get_algorithms(I.handle, d.x, d.w, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                               &returned, perf),
              "cudnnGetConvolutionForwardAlgorithm_v7", &notes)) {
    for (int i = 0; i < returned; ++i) {
      const auto& pf = perf[i];
      if (pf.status != CUDNN_STATUS_SUCCESS || pf.memory > max_workspace) continue;
      if (pf.mathType == CUDNN_TENSOR_OP_MATH ||
          pf.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        continue;
      candidates.emplace_back(pf.algo, pf.memory);
    }
  }
  candidates.emplace_back(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 0);
  cudnnConvolutionFwdAlgo_t timed = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  for (auto [algo, listed] : candidates) {
    size_t bytes = listed;
    if (!I.check(I.workspace_size(I.handle, d.x, d.w, d.conv, d.y, algo, &bytes),
                 "cudnnGetConvolutionForwardWorkspaceSize", &notes))
      continue;
    if (bytes > max_workspace) {
      notes =
          std::string(algo_name(algo)) + " needs " + std::to_string(bytes) + " bytes of workspace";
      continue;
    }
    runtime::NDArray ws = workspace(bytes);
    if (!I.check(forward(algo, ws),
                 (std::string("cudnnConvolutionForward(") + algo_name(algo) + ")").c_str(), &notes))
      continue;
    runtime::cuda_synchronize(dev);
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    auto f = timed_call(
        [&] {
          cudnnStatus_t s = forward(algo, ws);
          if (s != CUDNN_STATUS_SUCCESS) st = s;
        },
        "cudnn_conv_forward");
    r.seconds = runtime::time_evaluator(f, dev, timing.number, timing.repeat, timing.min_repeat_ms)
                    .call({})
                    .median;
    if (!I.check(st, "cudnnConvolutionForward (timed)", &notes)) continue;
    timed = algo;
    break;
  }
  if (timed == CUDNN_CONVOLUTION_FWD_ALGO_COUNT) {
    r.error = "no cuDNN algorithm ran: " + notes;
    return r;
  }
  r.ran = true;
  r.algo = r.reference = algo_name(timed);
  if (timed == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) return r;
  // The reference output: IMPLICIT_GEMM, the plainest algorithm (no transforms, FMA math).
  size_t bytes = 0;
  std::string why;
  if (I.check(I.workspace_size(I.handle, d.x, d.w, d.conv, d.y,
                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &bytes),
              "cudnnGetConvolutionForwardWorkspaceSize", &why) &&
      bytes <= max_workspace &&
      I.check(forward(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, workspace(bytes)), "IMPLICIT_GEMM",
              &why)) {
    runtime::cuda_synchronize(dev);
    r.reference = "IMPLICIT_GEMM";
  }
  return r;
}

#else  // no cudnn.h at build time

struct CudnnConv::Impl {};
CudnnConv::CudnnConv() : impl_(new Impl) {}
CudnnConv::~CudnnConv() {
  delete impl_;
}
bool CudnnConv::load() {
  return false;
}
bool CudnnConv::create_handle() {
  return false;
}
bool CudnnConv::loaded() const {
  return false;
}
bool CudnnConv::ready() const {
  return false;
}
std::string CudnnConv::describe() const {
  return "not used: cudnn.h was not found when this benchmark was built";
}
bool CudnnConv::output_dims(const ConvParams&, std::array<int64_t, 4>*, std::string* why) const {
  *why = describe();
  return false;
}
VendorRun CudnnConv::run(const ConvParams&, const runtime::NDArray&, const runtime::NDArray&,
                         const runtime::NDArray&, Device, const Timing&, size_t) const {
  VendorRun r;
  r.error = describe();
  return r;
}

#endif

// ---- cuBLAS --------------------------------------------------------------------------------

#if MINITVM_BENCH_HAVE_CUBLAS_H

struct CublasDense::Impl {
  DynLib lib;
  std::string why;
  bool loaded = false;
  cublasHandle_t handle = nullptr;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
};

CublasDense::CublasDense() : impl_(new Impl) {}
CublasDense::~CublasDense() {
  if (impl_->handle) impl_->destroy(impl_->handle);
  delete impl_;
}

bool CublasDense::load() {
  Impl& I = *impl_;
  if (!I.lib.open(kCublasNames)) {
    I.why = "not loadable (" + I.lib.error + ")";
    return false;
  }
  if (!(I.lib.sym(I.create, "cublasCreate_v2") && I.lib.sym(I.destroy, "cublasDestroy_v2") &&
        I.lib.sym(I.sgemm, "cublasSgemm_v2"))) {
    I.why = I.lib.name + " lacks cublasCreate_v2/cublasDestroy_v2/cublasSgemm_v2";
    return false;
  }
  I.loaded = true;
  return true;
}

bool CublasDense::create_handle() {
  Impl& I = *impl_;
  if (!I.loaded) return false;
  if (I.handle) return true;
  cublasStatus_t s = I.create(&I.handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    I.handle = nullptr;
    I.why = "cublasCreate failed with status " + std::to_string(static_cast<int>(s));
    return false;
  }
  return true;
}

bool CublasDense::loaded() const {
  return impl_->loaded;
}
bool CublasDense::ready() const {
  return impl_->loaded && impl_->handle;
}
std::string CublasDense::describe() const {
  const Impl& I = *impl_;
  if (!I.loaded || (!I.handle && !I.why.empty())) return I.why;
  return I.lib.name;
}

VendorRun CublasDense::run(int64_t batch, int64_t in_dim, int64_t out_dim,
                           const runtime::NDArray& x, const runtime::NDArray& w,
                           const runtime::NDArray& y, Device dev, const Timing& timing) const {
  const Impl& I = *impl_;
  VendorRun r;
  if (!ready()) {
    r.error = I.why.empty() ? "cuBLAS handle not created" : I.why;
    return r;
  }
  const float alpha = 1.0f, beta = 0.0f;
  const int m = static_cast<int>(out_dim), n = static_cast<int>(batch),
            k = static_cast<int>(in_dim);
  // Row-major y (batch x out) = x (batch x in) w^T is column-major y^T = (w as in x out)^T x^T.
  auto sgemm = [&] {
    return I.sgemm(I.handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha,
                   static_cast<const float*>(w.data()), k, static_cast<const float*>(x.data()), k,
                   &beta, static_cast<float*>(y.data()), m);
  };
  cublasStatus_t st = sgemm();
  if (st != CUBLAS_STATUS_SUCCESS) {
    r.error = "cublasSgemm failed with status " + std::to_string(static_cast<int>(st));
    return r;
  }
  runtime::cuda_synchronize(dev);
  auto f = timed_call(
      [&] {
        cublasStatus_t s = sgemm();
        if (s != CUBLAS_STATUS_SUCCESS) st = s;
      },
      "cublas_sgemm");
  r.seconds = runtime::time_evaluator(f, dev, timing.number, timing.repeat, timing.min_repeat_ms)
                  .call({})
                  .median;
  if (st != CUBLAS_STATUS_SUCCESS) {
    r.error = "cublasSgemm (timed) failed with status " + std::to_string(static_cast<int>(st));
    return r;
  }
  r.ran = true;
  r.algo = r.reference = "sgemm";
  return r;
}

#else  // no cublas_v2.h at build time

struct CublasDense::Impl {};
CublasDense::CublasDense() : impl_(new Impl) {}
CublasDense::~CublasDense() {
  delete impl_;
}
bool CublasDense::load() {
  return false;
}
bool CublasDense::create_handle() {
  return false;
}
bool CublasDense::loaded() const {
  return false;
}
bool CublasDense::ready() const {
  return false;
}
std::string CublasDense::describe() const {
  return "not used: cublas_v2.h was not found when this benchmark was built";
}
VendorRun CublasDense::run(int64_t, int64_t, int64_t, const runtime::NDArray&,
                           const runtime::NDArray&, const runtime::NDArray&, Device,
                           const Timing&) const {
  VendorRun r;
  r.error = describe();
  return r;
}

#endif

}  // namespace minitvm::bench
