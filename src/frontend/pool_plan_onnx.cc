// ONNX pooling attributes -> PoolPlan. Formulas from onnx/defs/nn/defs.cc (shape inference;
// docs/POOLING.md has the PyTorch counterparts):
//   NOTSET: O = floor((L + pb + pe - ke)/s) + 1, or with ceil_mode ceil(...)+1 minus one when the
//           last window would start at or beyond L + pb;
//   VALID:  pads 0, O = floor((L - ke)/s) + 1  (= ceil((L - ke + 1)/s));
//   SAME_*: O = ceil(L/s), total pad = max(0, (O-1)*s + ke - L), SAME_UPPER puts floor(total/2)
//           at the begin, SAME_LOWER ceil(total/2).
#include <algorithm>

#include "minitvm/frontend/onnx_pool_attrs.h"

namespace minitvm {
namespace frontend {

using topi::DivisorRule;
using topi::IndexBase;
using topi::LpRule;
using topi::PoolAxis;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

std::string where(const OnnxPoolAttrs& a) {
  return "ONNX " + a.op_type + " node '" +
         (a.node_name.empty() ? std::string("<unnamed>") : a.node_name) + "'";
}

[[noreturn]] void fail(PoolErrorKind kind, const OnnxPoolAttrs& a, const std::string& msg) {
  throw PoolParamError(kind, where(a) + ": " + msg);
}

std::vector<int64_t> per_axis(const OnnxPoolAttrs& a, const std::vector<int64_t>& v,
                              const char* name, int rank, int64_t dflt) {
  if (v.empty()) return std::vector<int64_t>(rank, dflt);
  if (static_cast<int>(v.size()) != rank)
    fail(PoolErrorKind::BadArgArity, a,
         std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
             " values, expected " + std::to_string(rank));
  return v;
}

void check_dtype(const OnnxPoolAttrs& a, DataType dt) {
  bool is_max = a.op_type == "MaxPool" || a.op_type == "GlobalMaxPool";
  bool ok = dt.is_floating() || (is_max && (dt == DataType::Int(8) || dt == DataType::UInt(8)));
  if (!ok) fail(PoolErrorKind::Unsupported, a, "input type " + dt.str() + " is not allowed");
}

}  // namespace

PoolPlan plan_onnx_pool(const OnnxPoolAttrs& a, const std::vector<int64_t>& input_shape,
                        DataType dtype) {
  const std::string& t = a.op_type;
  PoolMode mode;
  bool global = false;
  if (t == "MaxPool" || t == "GlobalMaxPool")
    mode = PoolMode::Max;
  else if (t == "AveragePool" || t == "GlobalAveragePool")
    mode = PoolMode::Avg;
  else if (t == "LpPool" || t == "GlobalLpPool")
    mode = PoolMode::Lp;
  else
    fail(PoolErrorKind::Unsupported, a, "not a pooling operator");
  global = t.rfind("Global", 0) == 0;

  int nd = static_cast<int>(input_shape.size());
  if (nd < 3)
    fail(PoolErrorKind::BadInputRank, a,
         "input must have rank >= 3 (N, C, D1, ...), got " + std::to_string(nd));
  int rank = nd - 2;
  if (rank > 3)
    fail(PoolErrorKind::Unsupported, a,
         std::to_string(rank) + "-d pooling is not supported (1-d to 3-d)");
  if (input_shape[0] < 0)
    fail(PoolErrorKind::Other, a,
         "input dimension 0 is negative (" + std::to_string(input_shape[0]) + ")");
  for (int i = 1; i < nd; ++i)
    if (input_shape[i] <= 0)
      fail(PoolErrorKind::EmptyInput, a, "input dimension " + std::to_string(i) + " is empty");
  for (int i = 0; i < nd; ++i)
    if (input_shape[i] > kPoolMaxDim)
      fail(PoolErrorKind::TooLarge, a,
           "input dimension " + std::to_string(i) + " = " + std::to_string(input_shape[i]) +
               " exceeds " + std::to_string(kPoolMaxDim));
  check_dtype(a, dtype);
  if (a.storage_order != 0 && a.storage_order != 1)
    fail(PoolErrorKind::Other, a,
         "attribute 'storage_order' must be 0 or 1, got " + std::to_string(a.storage_order));
  if (a.ceil_mode != 0 && a.ceil_mode != 1)
    fail(PoolErrorKind::Other, a,
         "attribute 'ceil_mode' must be 0 or 1, got " + std::to_string(a.ceil_mode));
  if (a.count_include_pad != 0 && a.count_include_pad != 1)
    fail(
        PoolErrorKind::Other, a,
        "attribute 'count_include_pad' must be 0 or 1, got " + std::to_string(a.count_include_pad));

  PoolPlan plan;
  plan.op = "onnx." + t;
  plan.mode = mode;
  plan.dtype = dtype;
  plan.layout = PoolLayout::ChannelsFirst;
  plan.batched = true;
  plan.batch = input_shape[0];
  plan.channels = input_shape[1];
  plan.return_indices = mode == PoolMode::Max && a.want_indices;
  plan.index_base = a.storage_order == 1 ? IndexBase::GlobalColMajor : IndexBase::GlobalRowMajor;
  plan.lp_rule = LpRule::Onnx;
  plan.lp_norm = static_cast<double>(a.p);
  if (mode == PoolMode::Lp && a.p <= 0)
    fail(PoolErrorKind::Other, a, "attribute 'p' must be positive");

  if (global) {
    for (int i = 0; i < rank; ++i) {
      PoolAxis ax;
      ax.adaptive = true;
      ax.in = input_shape[2 + i];
      ax.out = 1;
      plan.axes.push_back(ax);
    }
    plan.divisor_rule = DivisorRule::Mean;
    check_plan_limits(plan, where(a));
    return plan;
  }

  if (a.kernel_shape.empty())
    fail(PoolErrorKind::BadArgArity, a, "attribute 'kernel_shape' is required");
  std::vector<int64_t> k = per_axis(a, a.kernel_shape, "kernel_shape", rank, 1);
  std::vector<int64_t> s = per_axis(a, a.strides, "strides", rank, 1);
  std::vector<int64_t> d = per_axis(a, a.dilations, "dilations", rank, 1);
  for (int i = 0; i < rank; ++i) {
    if (k[i] <= 0)
      fail(PoolErrorKind::KernelNonpositive, a, "attribute 'kernel_shape' must be positive");
    if (s[i] <= 0)
      fail(s[i] == 0 ? PoolErrorKind::StrideZero : PoolErrorKind::StrideNonpositive, a,
           "attribute 'strides' must be positive");
    if (d[i] <= 0)
      fail(PoolErrorKind::DilationNonpositive, a, "attribute 'dilations' must be positive");
  }
  // Bounded values keep the output-size arithmetic below in int64 (each term < 2^62).
  auto bounded = [&](const char* name, const std::vector<int64_t>& v) {
    for (int64_t x : v)
      if (x > kPoolMaxDim)
        fail(PoolErrorKind::TooLarge, a,
             std::string("attribute '") + name + "' value " + std::to_string(x) + " exceeds " +
                 std::to_string(kPoolMaxDim));
  };
  bounded("kernel_shape", k);
  bounded("strides", s);
  bounded("dilations", d);
  bounded("pads", a.pads);
  const std::string& ap = a.auto_pad;
  if (ap != "NOTSET" && ap != "VALID" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
    fail(PoolErrorKind::Other, a, "attribute 'auto_pad' has invalid value '" + ap + "'");
  std::vector<int64_t> pads(2 * rank, 0);
  if (!a.pads.empty()) {
    if (ap != "NOTSET")
      fail(PoolErrorKind::Other, a, "attribute 'pads' cannot be used with auto_pad=" + ap);
    if (static_cast<int>(a.pads.size()) != 2 * rank)
      fail(PoolErrorKind::BadArgArity, a,
           "attribute 'pads' has " + std::to_string(a.pads.size()) + " values, expected " +
               std::to_string(2 * rank));
    pads = a.pads;
    for (int64_t p : pads)
      if (p < 0)
        fail(PoolErrorKind::PadNegative, a,
             "attribute 'pads' must be non-negative, got " + std::to_string(p));
  }
  for (int i = 0; i < rank; ++i) {
    PoolAxis ax;
    ax.in = input_shape[2 + i];
    ax.kernel = k[i];
    ax.stride = s[i];
    ax.dilation = d[i];
    int64_t ke = ax.effective_kernel();
    if (ap == "NOTSET") {
      ax.pad_begin = pads[i];
      ax.pad_end = pads[rank + i];
      ax.out = pool_output_size(ax.in, ax.kernel, ax.stride, ax.pad_begin, ax.pad_end, ax.dilation,
                                a.ceil_mode != 0);
    } else if (ap == "VALID") {
      ax.out = (ax.in - ke >= 0) ? (ax.in - ke) / ax.stride + 1 : 0;
    } else {
      ax.out = (ax.in + ax.stride - 1) / ax.stride;
      int64_t total = std::max<int64_t>(0, (ax.out - 1) * ax.stride + ke - ax.in);
      ax.pad_begin = ap == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
      ax.pad_end = total - ax.pad_begin;
    }
    if (ax.out < 1)
      fail(PoolErrorKind::OutputTooSmall, a,
           "axis " + std::to_string(i) + ": input length " + std::to_string(ax.in) +
               " gives output length " + std::to_string(ax.out) + " (effective kernel " +
               std::to_string(ke) + ")");
    plan.axes.push_back(ax);
  }
  check_plan_limits(plan, where(a));
  for (int i = 0; i < rank; ++i)
    if (int64_t o = plan.first_empty_window(i); o >= 0)
      fail(PoolErrorKind::EmptyWindow, a,
           "attribute 'pads'/'dilations': output " + std::to_string(o) + " of axis " +
               std::to_string(i) +
               " has a window with no input element "
               "(ONNX leaves it undefined; not supported)");
  if (mode == PoolMode::Avg)
    plan.divisor_rule =
        a.count_include_pad ? DivisorRule::CountIncludePad : DivisorRule::CountExcludePad;
  return plan;
}

}  // namespace frontend
}  // namespace minitvm
