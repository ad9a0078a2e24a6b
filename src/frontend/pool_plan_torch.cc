// PyTorch 1.13 pooling parameters -> PoolPlan. The checks run in the order PyTorch runs them, so
// the first failing check decides the message and kind (PyTorch 1.13's order; docs/POOLING.md):
//   1-d ops: checkDimRange(2..3), check1d on each list, then the 2-d path on input.unsqueeze(-2);
//   2-d: list arity, (avg: divisor, size(-3)), pooling_output_shape per axis (stride != 0,
//        pad >= 0, pad <= k/2), pool2d_shape_check (k > 0, s > 0, d > 0, dims, output >= 1);
//   3-d: list arity, rank, (avg: divisor), pooling_output_shape, pool3d_shape_check (avg also
//        checks input >= kernel).
#include <algorithm>
#include <sstream>

#include "minitvm/frontend/pool_plan.h"

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

[[noreturn]] void fail(PoolErrorKind kind, const std::string& msg) {
  throw PoolParamError(kind, msg);
}

std::string sizes_str(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

const char* count_word(int rank) {
  return rank == 1 ? "one" : rank == 2 ? "two" : "three";
}

// The input shape in PyTorch's logical (channels-first) order.
std::vector<int64_t> logical_shape(const PoolInput& in, int rank) {
  std::vector<int64_t> s = in.shape;
  int nd = static_cast<int>(s.size());
  if (in.layout == PoolLayout::ChannelsLast && nd >= rank + 1) {
    // (N,) spatial..., C  ->  (N,) C, spatial...
    int64_t c = s.back();
    s.pop_back();
    s.insert(s.end() - rank, c);
  }
  return s;
}

// PyTorch tensors cannot have negative sizes; a PoolInput can, and is refused before any check
// computes with it.
void check_no_negative_dims(const std::string& op, const std::vector<int64_t>& shape) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      fail(PoolErrorKind::Other, op + ": input dimension " + std::to_string(i) +
                                     " is negative (input shape " + sizes_str(shape) + ")");
}

std::vector<int64_t> expand(const std::vector<int64_t>& v, int rank) {
  if (v.size() == 1) return std::vector<int64_t>(rank, v[0]);
  return v;
}

// 1-d ops: PyTorch's checkDimRange(2, 4) and check1d.
void check_1d_rank(const std::string& fn, const std::vector<int64_t>& shape) {
  int nd = static_cast<int>(shape.size());
  if (nd < 2 || nd > 3)
    fail(PoolErrorKind::BadInputRank, "Expected 2 to 3 dimensions, but got " + std::to_string(nd) +
                                          "-dimensional tensor for argument #1 'self' (while "
                                          "checking arguments for " +
                                          fn + ")");
}
void check_1d_list(const std::string& fn, const char* arg, const std::vector<int64_t>& v) {
  if (v.size() != 1)
    fail(PoolErrorKind::BadArgArity, fn + "() argument '" + arg + "' should contain one int (got " +
                                         std::to_string(v.size()) + ")");
}

// pooling_output_shape's checks and result for one axis.
int64_t checked_output_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  if (s == 0) fail(PoolErrorKind::StrideZero, "stride should not be zero");
  if (pad < 0)
    fail(PoolErrorKind::PadNegative,
         "pad must be non-negative, but got pad: " + std::to_string(pad));
  // 1.13 compares with the raw kernel, not the dilated one (C++ truncating division).
  if (pad > k / 2)
    fail(PoolErrorKind::PadGtHalfKernel,
         "pad should be at most half of kernel size, but got pad=" + std::to_string(pad) +
             " and kernel_size=" + std::to_string(k));
  return pool_output_size(in, k, s, pad, pad, d, ceil);
}

// Raw window parameters of a 2-d or 3-d max/avg call after arity checks, before the shape checks.
struct WindowArgs {
  std::vector<int64_t> k, s, p, d;
  bool ceil = false;
};

// Fills plan.axes/batch/channels/layout for window pooling on a logical (N?, C, spatial...) shape.
PoolPlan make_window_plan(const std::string& op, PoolMode mode, const PoolInput& input, int rank,
                          const std::vector<int64_t>& logical, const WindowArgs& w,
                          const std::vector<int64_t>& out) {
  PoolPlan plan;
  plan.op = op;
  plan.mode = mode;
  plan.dtype = input.dtype;
  plan.layout = input.layout;
  int nd = static_cast<int>(logical.size());
  plan.batched = nd == rank + 2;
  plan.batch = plan.batched ? logical[0] : 1;
  plan.channels = logical[nd - rank - 1];
  int offset = static_cast<int>(w.k.size()) - rank;  // 1 for 1-d ops run as 2-d
  for (int i = 0; i < rank; ++i) {
    PoolAxis a;
    a.in = logical[nd - rank + i];
    a.out = out[offset + i];
    a.kernel = w.k[offset + i];
    a.stride = w.s[offset + i];
    a.pad_begin = a.pad_end = w.p[offset + i];
    a.dilation = w.d[offset + i];
    plan.axes.push_back(a);
  }
  check_plan_limits(plan, op);
  for (int i = 0; i < rank && !plan.has_empty_window; ++i)
    plan.has_empty_window = plan.first_empty_window(i) >= 0;
  return plan;
}

void check_dtype(const std::string& op, DataType dt, bool allow_int64) {
  if (dt.is_floating() || (allow_int64 && dt == DataType::Int(64))) return;
  fail(PoolErrorKind::Unsupported, "\"" + op + "\" not implemented for '" + dt.str() + "'");
}

// max_pool2d / avg_pool2d after the arity checks (shapes in logical order, 1-d already unsqueezed).
std::vector<int64_t> shape_checks_2d(const std::string& op, bool is_avg,
                                     const std::vector<int64_t>& shape, const WindowArgs& w) {
  int nd = static_cast<int>(shape.size());
  if (!is_avg && nd != 3 && nd != 4)
    fail(PoolErrorKind::BadInputRank, "non-empty 3D or 4D (batch mode) tensor expected for input");
  if (is_avg && nd < 3)  // avg_pool2d reads input.size(-3) first
    fail(PoolErrorKind::BadInputRank, "Dimension out of range (expected to be in range of [" +
                                          std::to_string(-std::max(nd, 1)) + ", " +
                                          std::to_string(std::max(nd, 1) - 1) + "], but got -3)");
  int64_t ih = shape[nd - 2], iw = shape[nd - 1];
  int64_t oh = checked_output_size(ih, w.k[0], w.p[0], w.s[0], w.d[0], w.ceil);
  int64_t ow = checked_output_size(iw, w.k[1], w.p[1], w.s[1], w.d[1], w.ceil);
  // pool2d_shape_check
  if (w.k[0] <= 0 || w.k[1] <= 0)
    fail(PoolErrorKind::KernelNonpositive,
         "kernel size should be greater than zero, but got kH: " + std::to_string(w.k[0]) +
             " kW: " + std::to_string(w.k[1]));
  if (w.s[0] <= 0 || w.s[1] <= 0)
    fail(PoolErrorKind::StrideNonpositive,
         "stride should be greater than zero, but got dH: " + std::to_string(w.s[0]) +
             " dW: " + std::to_string(w.s[1]));
  if (w.d[0] <= 0 || w.d[1] <= 0)
    fail(PoolErrorKind::DilationNonpositive,
         "dilation should be greater than zero, but got dilationH: " + std::to_string(w.d[0]) +
             " dilationW: " + std::to_string(w.d[1]));
  bool ok = (nd == 3 && shape[0] != 0 && shape[1] != 0 && shape[2] != 0) ||
            (nd == 4 && shape[1] != 0 && shape[2] != 0 && shape[3] != 0);
  if (!ok)
    fail(
        nd == 3 || nd == 4 ? PoolErrorKind::EmptyInput : PoolErrorKind::BadInputRank,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" +
            sizes_str(shape));
  if (oh < 1 || ow < 1) {
    std::string c = std::to_string(shape[nd - 3]);
    fail(PoolErrorKind::OutputTooSmall, "Given input size: (" + c + "x" + std::to_string(ih) + "x" +
                                            std::to_string(iw) + "). Calculated output size: (" +
                                            c + "x" + std::to_string(oh) + "x" +
                                            std::to_string(ow) + "). Output size is too small");
  }
  return {oh, ow};
}

std::vector<int64_t> shape_checks_3d(const std::string& fn, bool is_avg,
                                     const std::vector<int64_t>& shape, const WindowArgs& w) {
  int nd = static_cast<int>(shape.size());
  std::vector<int64_t> out(3);
  for (int i = 0; i < 3; ++i)
    out[i] = checked_output_size(shape[nd - 3 + i], w.k[i], w.p[i], w.s[i], w.d[i], w.ceil);
  auto triple = [&](const char* a, const char* b, const char* c, const std::vector<int64_t>& v) {
    return std::string(a) + std::to_string(v[0]) + b + std::to_string(v[1]) + c +
           std::to_string(v[2]);
  };
  if (w.k[0] <= 0 || w.k[1] <= 0 || w.k[2] <= 0)
    fail(PoolErrorKind::KernelNonpositive, "kernel size should be greater than zero, but got " +
                                               triple("kT: ", " kH: ", " kW: ", w.k));
  if (w.s[0] <= 0 || w.s[1] <= 0 || w.s[2] <= 0)
    fail(PoolErrorKind::StrideNonpositive,
         "stride should be greater than zero, but got " + triple("dT: ", " dH: ", " dW: ", w.s));
  if (w.d[0] <= 0 || w.d[1] <= 0 || w.d[2] <= 0)
    fail(PoolErrorKind::DilationNonpositive,
         "dilation should be greater than zero, but got " +
             triple("dilationT: ", " dilationH: ", " dilationW: ", w.d));
  for (int i = 0; i < nd; ++i) {
    if (nd == 5 && i == 0) continue;  // the batch may be empty
    if (shape[i] <= 0)
      fail(PoolErrorKind::EmptyInput,
           fn +
               ": Expected input's non-batch dimensions to have positive "
               "length, but input has a shape of " +
               sizes_str(shape) + " and non-batch dimension " + std::to_string(shape[i]) +
               " has length zero!");
  }
  std::vector<int64_t> in(shape.end() - 3, shape.end());
  if (is_avg && (in[0] < w.k[0] || in[1] < w.k[1] || in[2] < w.k[2]))
    fail(PoolErrorKind::InputSmallerThanKernel,
         "input image " + triple("(T: ", " H: ", " W: ", in) + ") smaller than kernel size " +
             triple("(kT: ", " kH: ", " kW: ", w.k) + ")");
  if (out[0] < 1 || out[1] < 1 || out[2] < 1) {
    std::string c = std::to_string(shape[nd - 4]);
    fail(PoolErrorKind::OutputTooSmall, "Given input size: (" + c + "x" + triple("", "x", "x", in) +
                                            "). Calculated output size: (" + c + "x" +
                                            triple("", "x", "x", out) +
                                            "). Output size is too small");
  }
  return out;
}

void check_arity(const std::string& op, int rank, const char* what, const std::vector<int64_t>& v,
                 bool may_be_empty, const std::string& msg) {
  if (v.size() == 1 || static_cast<int>(v.size()) == rank || (may_be_empty && v.empty())) return;
  fail(PoolErrorKind::BadArgArity, msg);
}

void check_rank_arg(int rank) {
  if (rank < 1 || rank > 3)
    throw PoolParamError(PoolErrorKind::Unsupported,
                         "pooling: spatial rank must be 1, 2 or 3, got " + std::to_string(rank));
}

}  // namespace

PoolPlan plan_max_pool(int rank, const PoolInput& input, const MaxPoolParams& params) {
  check_rank_arg(rank);
  std::string op = "max_pool" + std::to_string(rank) + "d";
  std::vector<int64_t> shape = logical_shape(input, rank);
  check_no_negative_dims(op, input.shape);
  WindowArgs w;
  w.ceil = params.ceil_mode;
  std::vector<int64_t> out;
  if (rank == 1) {
    std::vector<int64_t> stride = params.stride.empty() ? params.kernel_size : params.stride;
    check_1d_rank(op, shape);
    check_1d_list(op, "kernel_size", params.kernel_size);
    check_1d_list(op, "stride", stride);
    check_1d_list(op, "padding", params.padding);
    check_1d_list(op, "dilation", params.dilation);
    w.k = {1, params.kernel_size[0]};
    w.s = {1, stride[0]};
    w.p = {0, params.padding[0]};
    w.d = {1, params.dilation[0]};
    std::vector<int64_t> s2 = shape;
    s2.insert(s2.end() - 1, 1);
    out = shape_checks_2d("max_pool2d", false, s2, w);
  } else {
    std::string n = count_word(rank);
    check_arity(op, rank, "kernel_size", params.kernel_size, false,
                op + ": kernel_size must either be a single int, or a tuple of " + n + " ints");
    check_arity(op, rank, "stride", params.stride, true,
                op + ": stride must either be omitted, a single int, or a tuple of " + n + " ints");
    check_arity(op, rank, "padding", params.padding, false,
                op + ": padding must either be a single int, or a tuple of " + n + " ints");
    check_arity(op, rank, "dilation", params.dilation, false,
                op + ": dilation must be either a single int, or a tuple of " + n + " ints");
    w.k = expand(params.kernel_size, rank);
    w.s = params.stride.empty() ? w.k : expand(params.stride, rank);
    w.p = expand(params.padding, rank);
    w.d = expand(params.dilation, rank);
    int nd = static_cast<int>(shape.size());
    if (rank == 2) {
      out = shape_checks_2d(op, false, shape, w);
    } else {
      if (nd != 4 && nd != 5)
        fail(PoolErrorKind::BadInputRank,
             "non-empty 4D or 5D (batch mode) tensor expected for input");
      out = shape_checks_3d("max_pool3d_with_indices_out_frame()", false, shape, w);
    }
  }
  check_dtype(op, input.dtype, false);
  PoolPlan plan = make_window_plan(op, PoolMode::Max, input, rank, shape, w, out);
  plan.return_indices = params.return_indices;
  plan.index_base = IndexBase::PerPlane;
  return plan;
}

PoolPlan plan_avg_pool(int rank, const PoolInput& input, const AvgPoolParams& params) {
  check_rank_arg(rank);
  std::string op = "avg_pool" + std::to_string(rank) + "d";
  std::vector<int64_t> shape = logical_shape(input, rank);
  check_no_negative_dims(op, input.shape);
  WindowArgs w;
  w.ceil = params.ceil_mode;
  std::vector<int64_t> out;
  if (rank == 1) {
    if (params.divisor_override)
      fail(PoolErrorKind::Unsupported,
           "avg_pool1d() got an unexpected keyword argument 'divisor_override'");
    std::vector<int64_t> stride = params.stride.empty() ? params.kernel_size : params.stride;
    check_1d_rank(op, shape);
    check_1d_list(op, "kernel_size", params.kernel_size);
    check_1d_list(op, "stride", stride);
    check_1d_list(op, "padding", params.padding);
    w.k = {1, params.kernel_size[0]};
    w.s = {1, stride[0]};
    w.p = {0, params.padding[0]};
    w.d = {1, 1};
    std::vector<int64_t> s2 = shape;
    s2.insert(s2.end() - 1, 1);
    out = shape_checks_2d("avg_pool2d", true, s2, w);
  } else {
    std::string n = count_word(rank);
    if (rank == 2) {
      check_arity(op, rank, "kernel_size", params.kernel_size, false,
                  op + ": kernel_size must either be a single int, or a tuple of two ints");
      check_arity(op, rank, "stride", params.stride, true,
                  op + ": stride must either be omitted, a single int, or a tuple of two ints");
      check_arity(op, rank, "padding", params.padding, false,
                  op + ": padding must either be a single int, or a tuple of two ints");
    } else {
      check_arity(op, rank, "kernel_size", params.kernel_size, false,
                  op + ": kernel_size must be a single int, or a tuple of three ints");
      check_arity(op, rank, "stride", params.stride, true,
                  op + ": stride must be omitted, a single int, or a tuple of three ints");
      check_arity(op, rank, "padding", params.padding, false,
                  op + ": padding must be a single int, or a tuple of three ints");
    }
    w.k = expand(params.kernel_size, rank);
    w.s = params.stride.empty() ? w.k : expand(params.stride, rank);
    w.p = expand(params.padding, rank);
    w.d = std::vector<int64_t>(rank, 1);
    int nd = static_cast<int>(shape.size());
    if (rank == 3 && nd != 4 && nd != 5)
      fail(PoolErrorKind::BadInputRank,
           "non-empty 4D or 5D (batch mode) tensor expected for input");
    if (params.divisor_override && *params.divisor_override == 0)
      fail(PoolErrorKind::DivisorZero, "divisor must be not zero");
    out = rank == 2 ? shape_checks_2d(op, true, shape, w)
                    : shape_checks_3d("avg_pool3d()", true, shape, w);
  }
  check_dtype(op, input.dtype, rank <= 2);
  PoolPlan plan = make_window_plan(op, PoolMode::Avg, input, rank, shape, w, out);
  if (params.divisor_override) {
    plan.divisor_rule = DivisorRule::Override;
    plan.divisor_override = *params.divisor_override;
  } else {
    plan.divisor_rule =
        params.count_include_pad ? DivisorRule::CountIncludePad : DivisorRule::CountExcludePad;
  }
  return plan;
}

namespace {

// Shared by adaptive avg and max. Returns the plan with axes filled.
PoolPlan plan_adaptive(PoolMode mode, int rank, const PoolInput& input,
                       const AdaptivePoolParams& params) {
  check_rank_arg(rank);
  bool is_max = mode == PoolMode::Max;
  std::string op =
      std::string(is_max ? "adaptive_max_pool" : "adaptive_avg_pool") + std::to_string(rank) + "d";
  std::vector<int64_t> shape = logical_shape(input, rank);
  check_no_negative_dims(op, input.shape);
  int nd = static_cast<int>(shape.size());
  size_t nsz = params.output_size.size();
  std::string inner = op;  // name of the op that does the checks (1-d runs the 2-d one)
  int inner_rank = rank;
  if (rank == 1) {
    check_1d_rank(op, shape);
    if (nsz != 1)
      fail(PoolErrorKind::BadArgArity,
           op + "() argument 'output_size' should contain one int (got " + std::to_string(nsz) +
               ")");
    shape.insert(shape.end() - 1, 1);
    nd += 1;
    inner = is_max ? "adaptive_max_pool2d" : "adaptive_avg_pool2d";
    inner_rank = 2;
  } else if (nd <= static_cast<int>(nsz)) {
    // torch.nn.functional's _list_with_default
    fail(PoolErrorKind::BadInputRank,
         "Input dimension should be at least " + std::to_string(nsz + 1));
  }
  std::vector<int64_t> osz;
  for (size_t i = 0; i < nsz; ++i) {
    const auto& v = params.output_size[i];
    osz.push_back(v ? *v : shape[nd - nsz + i]);
  }
  if (rank == 1) osz.insert(osz.begin(), 1);
  std::string dims_word = inner_rank == 2 ? "3D or 4D" : "4D or 5D";
  auto check_rank_and_empty = [&] {
    if (nd != inner_rank + 1 && nd != inner_rank + 2)
      fail(PoolErrorKind::BadInputRank, inner + "(): Expected " + dims_word + " tensor, but got" +
                                            (is_max ? ": " : " ") + sizes_str(shape));
    for (int i = 1; i < nd; ++i)
      if (shape[i] == 0)
        fail(PoolErrorKind::EmptyInput,
             inner +
                 "(): Expected input to have non-zero size for non-batch "
                 "dimensions, but input has sizes " +
                 sizes_str(shape) + " with dimension " + std::to_string(i) + " being empty");
  };
  auto sizes_braced = [&] {
    std::string s = "{";
    for (size_t i = 0; i < osz.size(); ++i) s += (i ? ", " : "") + std::to_string(osz[i]);
    return s + "}";
  };
  bool mean_path = false;
  if (is_max) {
    check_rank_and_empty();
    if (static_cast<int>(osz.size()) != inner_rank)
      fail(PoolErrorKind::BadArgArity,
           inner + "(): internal error: output_size.size() must be " + std::to_string(inner_rank));
    for (int64_t v : osz)
      if (v < 0) {
        std::vector<int64_t> full(shape.begin(), shape.end() - inner_rank);
        full.insert(full.end(), osz.begin(), osz.end());
        fail(PoolErrorKind::OutputSizeNegative, "Trying to create tensor with negative dimension " +
                                                    std::to_string(v) + ": " + sizes_str(full));
      }
  } else {
    if (static_cast<int>(osz.size()) != inner_rank)
      fail(PoolErrorKind::BadArgArity,
           inner + ": output_size must be " + std::to_string(inner_rank));
    for (int64_t v : osz)
      if (v < 0)
        fail(PoolErrorKind::OutputSizeNegative,
             inner +
                 ": elements of output_size must be greater than or "
                 "equal to 0 but received " +
                 sizes_braced());
    mean_path = std::all_of(osz.begin(), osz.end(), [](int64_t v) { return v == 1; });
    // PyTorch's mean() path skips the rank/empty checks; we keep them (documented deviation).
    check_rank_and_empty();
  }
  check_dtype(op, input.dtype, false);
  PoolPlan plan;
  plan.op = op;
  plan.mode = mode;
  plan.dtype = input.dtype;
  plan.layout = input.layout;
  plan.batched = nd == inner_rank + 2;
  plan.batch = plan.batched ? shape[0] : 1;
  plan.channels = shape[nd - inner_rank - 1];
  for (int i = inner_rank - rank; i < inner_rank; ++i) {
    PoolAxis a;
    a.adaptive = true;
    a.in = shape[nd - inner_rank + i];
    a.out = osz[i];
    plan.axes.push_back(a);
  }
  plan.return_indices = is_max && params.return_indices;
  plan.divisor_rule = mean_path ? DivisorRule::Mean : DivisorRule::AdaptiveEachAxis;
  check_plan_limits(plan, op);
  return plan;
}

}  // namespace

PoolPlan plan_adaptive_avg_pool(int rank, const PoolInput& input,
                                const AdaptivePoolParams& params) {
  return plan_adaptive(PoolMode::Avg, rank, input, params);
}

PoolPlan plan_adaptive_max_pool(int rank, const PoolInput& input,
                                const AdaptivePoolParams& params) {
  return plan_adaptive(PoolMode::Max, rank, input, params);
}

PoolPlan plan_lp_pool(int rank, const PoolInput& input, const LpPoolParams& params) {
  if (rank != 1 && rank != 2)
    fail(PoolErrorKind::Unsupported,
         "lp_pool" + std::to_string(rank) + "d does not exist in PyTorch 1.13");
  // lp_pool is avg_pool(x^p, kernel, stride, padding=0, ceil_mode) in torch.nn.functional.
  AvgPoolParams avg;
  avg.kernel_size = params.kernel_size;
  avg.stride = params.stride;
  avg.padding = {0};
  avg.ceil_mode = params.ceil_mode;
  avg.count_include_pad = true;
  PoolPlan plan = plan_avg_pool(rank, input, avg);
  if (!input.dtype.is_floating())
    check_dtype("lp_pool" + std::to_string(rank) + "d", input.dtype, false);
  plan.op = "lp_pool" + std::to_string(rank) + "d";
  plan.mode = PoolMode::Lp;
  plan.lp_rule = LpRule::Torch;
  plan.lp_norm = params.norm_type;
  return plan;
}

PoolPlan plan_global_pool(PoolMode mode, int rank, const PoolInput& input) {
  if (mode == PoolMode::Lp) fail(PoolErrorKind::Unsupported, "global Lp pooling is not supported");
  check_rank_arg(rank);  // before rank sizes a list
  AdaptivePoolParams p;
  p.output_size.assign(rank, int64_t{1});
  PoolPlan plan = mode == PoolMode::Max ? plan_adaptive_max_pool(rank, input, p)
                                        : plan_adaptive_avg_pool(rank, input, p);
  plan.op = std::string(mode == PoolMode::Max ? "global_max_pool" : "global_avg_pool") +
            std::to_string(rank) + "d";
  plan.divisor_rule = DivisorRule::Mean;
  return plan;
}

void check_backward(const PoolPlan& plan) {
  bool adaptive = !plan.axes.empty() && plan.axes[0].adaptive;
  if (!adaptive) return;
  std::vector<int64_t> shape = plan.output_shape();
  int nd = static_cast<int>(shape.size());
  for (int i = 1; i < nd; ++i) {
    if (shape[i] != 0) continue;
    std::string fn =
        plan.mode == PoolMode::Max
            ? "adaptive_max_pooling" + std::to_string(std::max(2, plan.spatial_rank())) +
                  "d_backward"
            : "adaptive_avg_pool" + std::to_string(std::max(2, plan.spatial_rank())) + "d_backward";
    fail(PoolErrorKind::OutputTooSmall,
         fn +
             "(): Expected grad_output to have non-zero size for non-batch "
             "dimensions, but grad_output has sizes " +
             sizes_str(shape) + " with dimension " + std::to_string(i) + " being empty");
  }
}

}  // namespace frontend
}  // namespace minitvm
