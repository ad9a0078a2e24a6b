// frontend::onnx tensor ops (Conv, Gemm, Relu, Add, Flatten, BatchNormalization): attribute
// resolution, then a topi compute + CPU schedule built for llvm and run on the node's inputs.
#include "minitvm/frontend/onnx_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "minitvm/codegen/build.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/support/checked_math.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/nn.h"

namespace minitvm {
namespace frontend {
namespace onnx {

namespace {

using te::Tensor;

const std::map<std::string, std::set<std::string>>& op_attributes() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"Conv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"Gemm", {"alpha", "beta", "transA", "transB"}},
      {"Relu", {}},
      {"Add", {}},
      {"Flatten", {"axis"}},
      {"BatchNormalization", {"epsilon", "momentum", "training_mode"}},
  };
  return m;
}

// The kind each attribute must have: i(nt), l(ist of ints), f(loat), s(tring) (ONNX schemas).
char attribute_kind(const std::string& name) {
  static const std::map<std::string, char> m = {
      {"auto_pad", 's'}, {"dilations", 'l'},     {"group", 'i'}, {"kernel_shape", 'l'},
      {"pads", 'l'},     {"strides", 'l'},       {"alpha", 'f'}, {"beta", 'f'},
      {"transA", 'i'},   {"transB", 'i'},        {"axis", 'i'},  {"epsilon", 'f'},
      {"momentum", 'f'}, {"training_mode", 'i'},
  };
  auto it = m.find(name);
  return it == m.end() ? '?' : it->second;
}

// Every attribute of the node is one `op` accepts, of the kind it must have: a wrong kind would
// otherwise be ignored in favour of the default (strides given as an int, group as a float).
void check_attribute_kinds(const std::string& label, const std::string& op,
                           const TensorOpAttrs& a) {
  const auto& allowed = op_attributes().at(op);
  auto check = [&](const std::string& k, char kind) {
    MINITVM_USER_CHECK(allowed.count(k))
        << "frontend::onnx: " << label << ": unsupported attribute '" << k << "'";
    char want = attribute_kind(k);
    static const std::map<char, const char*> names = {
        {'i', "an int"}, {'l', "a list of ints"}, {'f', "a float"}, {'s', "a string"}};
    MINITVM_USER_CHECK(want == kind)
        << "frontend::onnx: " << label << ": attribute '" << k << "' must be " << names.at(want)
        << ", got " << names.at(kind);
  };
  for (const auto& kv : a.ints) check(kv.first, 'i');
  for (const auto& kv : a.int_lists) check(kv.first, 'l');
  for (const auto& kv : a.floats) check(kv.first, 'f');
  for (const auto& kv : a.strings) check(kv.first, 's');
}

std::vector<Expr> exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

// The compiled kernels index with int32 (TVM's shapes), so every dimension and every tensor's
// element count must fit in it.
constexpr int64_t kMaxExtent = INT32_MAX;

std::string shape_str(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

// A tensor of `shape` (an input or an output of node `label`) fits the compiled kernels' indexing.
void check_extent(const std::string& label, const std::string& what,
                  const std::vector<int64_t>& shape) {
  for (int64_t d : shape)
    MINITVM_USER_CHECK(d >= 0 && d <= kMaxExtent)
        << "frontend::onnx: " << label << ": " << what << " has shape " << shape_str(shape)
        << " (each dimension must be in [0, " << kMaxExtent << "])";
  std::optional<int64_t> n = checked_product(shape);
  MINITVM_USER_CHECK(n && *n <= kMaxExtent)
      << "frontend::onnx: " << label << ": " << what << " of shape " << shape_str(shape)
      << " has more than " << kMaxExtent << " elements";
}

// A HostArray with the same bytes and another (equal-sized) shape.
HostArray reshaped(const HostArray& a, const std::vector<int64_t>& shape) {
  HostArray r(a.dtype(), shape);
  MINITVM_ICHECK(r.nbytes() == a.nbytes());
  if (a.nbytes() > 0)
    std::memcpy(r.raw(), a.raw(), a.nbytes());  // an empty array's raw() may be null
  return r;
}

// Build `s` over placeholders `ph` (bound to `ins`) and output `out` for llvm, run it, return out.
HostArray run_built(const std::string& label, te::Schedule s, const std::vector<Tensor>& ph,
                    const std::vector<HostArray>& ins, const Tensor& out, const std::string& name) {
  std::vector<Tensor> args = ph;
  args.push_back(out);
  runtime::Module mod = build(s, args, "llvm", name);
  std::vector<runtime::ArgValue> vals;
  for (const HostArray& h : ins) {
    runtime::NDArray a = runtime::NDArray::empty(h.shape(), h.dtype());
    a.copy_from_bytes(h.raw(), h.nbytes());
    vals.push_back(a);
  }
  std::vector<int64_t> os;
  for (const Expr& e : out.shape()) os.push_back(*ir::as_const_int(e));
  check_extent(label, "the output", os);
  runtime::NDArray o = runtime::NDArray::empty(os, out.dtype());
  vals.push_back(o);
  mod.get_function(name).call(vals);
  HostArray r(out.dtype(), os);
  o.copy_to_bytes(r.raw(), r.nbytes());
  return r;
}

Tensor placeholder_for(const HostArray& h, const std::string& name) {
  return te::placeholder(exprs(h.shape()), h.dtype(), name);
}

// ONNX multidirectional broadcasting of shapes (right-aligned; 1 stretches).
std::vector<int64_t> broadcast_shape(const std::string& label, std::vector<int64_t> a,
                                     std::vector<int64_t> b) {
  size_t r = std::max(a.size(), b.size());
  a.insert(a.begin(), r - a.size(), 1);
  b.insert(b.begin(), r - b.size(), 1);
  std::vector<int64_t> o(r);
  for (size_t i = 0; i < r; ++i) {
    MINITVM_USER_CHECK(a[i] == b[i] || a[i] == 1 || b[i] == 1)
        << "frontend::onnx: " << label << ": shapes do not broadcast at axis " << i << " (" << a[i]
        << " vs " << b[i] << ")";
    o[i] = std::max(a[i], b[i]);
  }
  return o;
}

// Read `t` (rank <= out rank, right-aligned) at output indices `v` with broadcasting.
Expr bcast_read(const Tensor& t, const std::vector<Var>& v) {
  size_t r = t.shape().size(), off = v.size() - r;
  std::vector<Expr> idx;
  for (size_t i = 0; i < r; ++i) {
    const int64_t* d = ir::as_const_int(t.shape()[i]);
    idx.push_back(d && *d == 1 && v.size() > 0 ? Expr(0) : Expr(v[off + i]));
  }
  return t.read(idx);
}

Tensor bcast_compute(const std::vector<int64_t>& shape,
                     const std::function<Expr(const std::vector<Var>&)>& f,
                     const std::string& name) {
  std::vector<Expr> se = exprs(shape);
  return te::compute(se, te::FCompute([&](const std::vector<Var>& v) { return f(v); }), name,
                     "broadcast");
}

int64_t int_attr(const TensorOpAttrs& a, const std::string& k, int64_t def) {
  auto it = a.ints.find(k);
  return it == a.ints.end() ? def : it->second;
}
double float_attr(const TensorOpAttrs& a, const std::string& k, double def) {
  auto it = a.floats.find(k);
  return it == a.floats.end() ? def : it->second;
}
std::vector<int64_t> list_attr(const TensorOpAttrs& a, const std::string& k,
                               std::vector<int64_t> def) {
  auto it = a.int_lists.find(k);
  return it == a.int_lists.end() ? def : it->second;
}

// One int attribute list of a Conv: `n` values (default `def`), each in [lo, kMaxExtent].
std::vector<int64_t> conv_list(const std::string& label, const TensorOpAttrs& a, const char* name,
                               size_t n, int64_t def, int64_t lo) {
  std::vector<int64_t> v = list_attr(a, name, std::vector<int64_t>(n, def));
  MINITVM_USER_CHECK(v.size() == n) << "frontend::onnx: " << label << ": attribute '" << name
                                    << "' must have " << n << " values, got " << v.size();
  for (int64_t x : v)
    MINITVM_USER_CHECK(x >= lo && x <= kMaxExtent)
        << "frontend::onnx: " << label << ": attribute '" << name << "' must be "
        << (lo > 0 ? "positive" : "non-negative") << " (at most " << kMaxExtent << "), got " << x;
  return v;
}

// Conv: every attribute is checked (count, sign, size) before any arithmetic uses it; all values
// are then in [0, 2^31), so the output-size arithmetic below cannot overflow int64.
HostArray run_conv(const std::string& label, const TensorOpAttrs& a,
                   const std::vector<const HostArray*>& in) {
  MINITVM_USER_CHECK(in.size() >= 2 && in[0] && in[1])
      << "frontend::onnx: " << label << ": needs inputs X and W";
  const HostArray &x = *in[0], &w = *in[1];
  MINITVM_USER_CHECK(x.shape().size() == 4 && w.shape().size() == 4)
      << "frontend::onnx: " << label << ": only 2-D convolution (4-D X and W) is supported";
  const int64_t group = int_attr(a, "group", 1);
  MINITVM_USER_CHECK(group >= 1) << "frontend::onnx: " << label
                                 << ": attribute 'group' must be positive, got " << group;
  auto st = conv_list(label, a, "strides", 2, 1, 1);
  auto dil = conv_list(label, a, "dilations", 2, 1, 1);
  std::string ap = a.strings.count("auto_pad") ? a.strings.at("auto_pad") : "NOTSET";
  MINITVM_USER_CHECK(ap == "NOTSET" || ap == "SAME_UPPER" || ap == "SAME_LOWER" || ap == "VALID")
      << "frontend::onnx: " << label << ": attribute 'auto_pad' = '" << ap
      << "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID";
  MINITVM_USER_CHECK(ap == "NOTSET" || !a.int_lists.count("pads"))
      << "frontend::onnx: " << label << ": attribute 'pads' cannot be used with auto_pad = '" << ap
      << "'";
  for (int i = 0; i < 4; ++i) {
    MINITVM_USER_CHECK(x.shape()[i] >= 1 && x.shape()[i] <= kMaxExtent)
        << "frontend::onnx: " << label << ": input X has shape " << shape_str(x.shape())
        << " (each dimension must be in [1, " << kMaxExtent << "])";
    MINITVM_USER_CHECK(w.shape()[i] >= 1 && w.shape()[i] <= kMaxExtent)
        << "frontend::onnx: " << label << ": input W has shape " << shape_str(w.shape())
        << " (each dimension must be in [1, " << kMaxExtent << "])";
  }
  MINITVM_USER_CHECK(x.dtype() == w.dtype()) << "frontend::onnx: " << label << ": X is "
                                             << x.dtype().str() << " but W is " << w.dtype().str();
  int64_t C = x.shape()[1], M = w.shape()[0], kh = w.shape()[2], kw = w.shape()[3];
  auto ks = list_attr(a, "kernel_shape", {kh, kw});
  MINITVM_USER_CHECK(ks.size() == 2 && ks[0] == kh && ks[1] == kw)
      << "frontend::onnx: " << label << ": attribute 'kernel_shape' " << shape_str(ks)
      << " does not match W " << shape_str(w.shape());
  std::vector<int64_t> pads(4, 0);  // top, left, bottom, right (ONNX begins then ends)
  if (ap == "NOTSET") {
    pads = conv_list(label, a, "pads", 4, 0, 0);
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    for (int d = 0; d < 2; ++d) {
      int64_t in_d = x.shape()[2 + d], k = (ks[d] - 1) * dil[d] + 1,
              out = (in_d + st[d] - 1) / st[d];
      int64_t total = std::max<int64_t>(0, (out - 1) * st[d] + k - in_d);
      int64_t small = total / 2, big = total - small;
      pads[d] = ap == "SAME_UPPER" ? small : big;
      pads[d + 2] = ap == "SAME_UPPER" ? big : small;
    }
  }
  for (int d = 0; d < 2; ++d) {
    int64_t padded = x.shape()[2 + d] + pads[d] + pads[d + 2], k = (ks[d] - 1) * dil[d] + 1;
    MINITVM_USER_CHECK(padded >= k)
        << "frontend::onnx: " << label << ": the dilated kernel (" << k
        << ") is larger than the padded input (" << padded << ") on spatial axis " << d;
    MINITVM_USER_CHECK(padded <= kMaxExtent)
        << "frontend::onnx: " << label << ": the padded input length " << padded
        << " of spatial axis " << d << " exceeds " << kMaxExtent;
  }
  Tensor X = placeholder_for(x, "data");
  std::vector<HostArray> ins{x};
  Tensor out;
  Tensor Wt;
  bool depthwise = group != 1;
  if (group == 1) {
    MINITVM_USER_CHECK(w.shape()[1] == C) << "frontend::onnx: " << label << ": W has "
                                          << w.shape()[1] << " input channels, X has " << C;
    Wt = placeholder_for(w, "placeholder");
    ins.push_back(w);
    out = topi::nn::conv2d_nchw(X, Wt, st, pads, dil);
  } else {
    MINITVM_USER_CHECK(group == C && w.shape()[1] == 1 && M % C == 0)
        << "frontend::onnx: " << label << ": attribute 'group' = " << group
        << " is unsupported (only 1, or the channel count " << C << " for depthwise convolution)";
    HostArray wd =
        reshaped(w, {C, M / C, kh, kw});  // (C*mult, 1, kh, kw) -> (C, mult, kh, kw): same order
    Wt = placeholder_for(wd, "placeholder");
    ins.push_back(wd);
    out = topi::nn::depthwise_conv2d_nchw(X, Wt, st, pads, dil);
  }
  std::vector<Tensor> ph{X, Wt};
  if (in.size() > 2 && in[2]) {
    MINITVM_USER_CHECK(in[2]->shape() == std::vector<int64_t>{M} && in[2]->dtype() == x.dtype())
        << "frontend::onnx: " << label << ": input B must be a 1-D " << x.dtype().str()
        << " tensor of " << M << " values, got " << in[2]->dtype().str()
        << shape_str(in[2]->shape());
    Tensor B = placeholder_for(*in[2], "bias");
    ph.push_back(B);
    ins.push_back(*in[2]);
    out = topi::nn::bias_add(out, B, 1);
  }
  te::Schedule s = depthwise ? topi::cpu::schedule_depthwise_conv2d_nchw({out})
                             : topi::cpu::schedule_conv2d_nchw({out});
  return run_built(label, s, ph, ins, out, "onnx_conv");
}

HostArray transpose2d(const HostArray& a) {
  int64_t r = a.shape()[0], c = a.shape()[1];
  HostArray t(a.dtype(), {c, r});
  size_t es = a.nbytes() / std::max<int64_t>(1, a.numel());
  const char* src = static_cast<const char*>(a.raw());
  char* dst = static_cast<char*>(t.raw());
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) std::memcpy(dst + (j * r + i) * es, src + (i * c + j) * es, es);
  return t;
}

HostArray run_gemm(const std::string& label, const TensorOpAttrs& a,
                   const std::vector<const HostArray*>& in) {
  MINITVM_USER_CHECK(in.size() >= 2 && in[0] && in[1])
      << "frontend::onnx: " << label << ": needs inputs A and B";
  MINITVM_USER_CHECK(in[0]->shape().size() == 2 && in[1]->shape().size() == 2)
      << "frontend::onnx: " << label << ": A and B must be 2-D";
  double alpha = float_attr(a, "alpha", 1.0), beta = float_attr(a, "beta", 1.0);
  for (const char* k : {"transA", "transB"})
    MINITVM_USER_CHECK(int_attr(a, k, 0) == 0 || int_attr(a, k, 0) == 1)
        << "frontend::onnx: " << label << ": attribute '" << k << "' must be 0 or 1, got "
        << int_attr(a, k, 0);
  MINITVM_USER_CHECK(in[0]->dtype() == in[1]->dtype() &&
                     (in.size() < 3 || !in[2] || in[2]->dtype() == in[0]->dtype()))
      << "frontend::onnx: " << label << ": inputs A, B and C must have the same type";
  // dense wants data (M, K) and weight (N, K): transpose on the host where the layout differs.
  HostArray A = int_attr(a, "transA", 0) ? transpose2d(*in[0]) : *in[0];
  HostArray W = int_attr(a, "transB", 0) ? *in[1] : transpose2d(*in[1]);
  MINITVM_USER_CHECK(A.shape()[1] == W.shape()[1])
      << "frontend::onnx: " << label << ": inner dimensions differ (" << A.shape()[1] << " vs "
      << W.shape()[1] << ")";
  std::vector<int64_t> os{A.shape()[0], W.shape()[0]};
  Tensor At = placeholder_for(A, "data"), Wt = placeholder_for(W, "placeholder");
  Tensor d = topi::nn::dense(At, Wt);
  std::vector<Tensor> ph{At, Wt};
  std::vector<HostArray> ins{A, W};
  Tensor Ct;
  if (in.size() > 2 && in[2]) {
    auto bs = broadcast_shape(label, in[2]->shape(), os);
    MINITVM_USER_CHECK(bs == os) << "frontend::onnx: " << label
                                 << ": C does not broadcast to (M, N)";
    Ct = placeholder_for(*in[2], "C");
    ph.push_back(Ct);
    ins.push_back(*in[2]);
  }
  DataType dt = d.dtype();
  Tensor out = bcast_compute(
      os,
      [&](const std::vector<Var>& v) {
        Expr y = d(v[0], v[1]) * ir::make_const(dt, alpha);
        if (Ct.defined()) y = y + bcast_read(Ct, v) * ir::make_const(dt, beta);
        return y;
      },
      "T_gemm");
  return run_built(label, topi::cpu::schedule_dense({out}), ph, ins, out, "onnx_gemm");
}

HostArray run_injective(const std::string& label, const std::vector<Tensor>& ph,
                        const std::vector<HostArray>& ins, const Tensor& out,
                        const std::string& name) {
  return run_built(label, topi::cpu::schedule_injective({out}), ph, ins, out, name);
}

}  // namespace

bool is_tensor_op(const std::string& op_type) {
  return op_attributes().count(op_type) > 0;
}

const std::set<std::string>& tensor_op_attribute_names(const std::string& op_type) {
  auto it = op_attributes().find(op_type);
  MINITVM_ICHECK(it != op_attributes().end()) << op_type << " is not a tensor op";
  return it->second;
}

std::vector<HostArray> run_tensor_op(const std::string& node_name, const std::string& op,
                                     const TensorOpAttrs& a,
                                     const std::vector<const HostArray*>& in) {
  const std::string label = "node '" + node_name + "' (" + op + ")";
  MINITVM_USER_CHECK(is_tensor_op(op)) << "frontend::onnx: " << label << ": unsupported operator";
  check_attribute_kinds(label, op, a);
  MINITVM_USER_CHECK(!in.empty() && in[0]) << "frontend::onnx: " << label << ": missing input 0";
  for (size_t k = 0; k < in.size(); ++k)
    if (in[k]) check_extent(label, "input " + std::to_string(k), in[k]->shape());
  if (op == "Conv") return {run_conv(label, a, in)};
  if (op == "Gemm") return {run_gemm(label, a, in)};
  const HostArray& x = *in[0];
  if (op == "Relu") {
    Tensor X = placeholder_for(x, "data");
    return {run_injective(label, {X}, {x}, topi::nn::relu(X), "onnx_relu")};
  }
  if (op == "Add") {
    MINITVM_USER_CHECK(in.size() == 2 && in[1])
        << "frontend::onnx: " << label << ": needs inputs A and B";
    const HostArray& y = *in[1];
    MINITVM_USER_CHECK(x.dtype() == y.dtype())
        << "frontend::onnx: " << label << ": A and B have different types";
    auto os = broadcast_shape(label, x.shape(), y.shape());
    Tensor A = placeholder_for(x, "A"), B = placeholder_for(y, "B");
    Tensor out =
        x.shape() == y.shape()
            ? topi::nn::add(A, B)
            : bcast_compute(
                  os,
                  [&](const std::vector<Var>& v) { return bcast_read(A, v) + bcast_read(B, v); },
                  "T_add");
    return {run_injective(label, {A, B}, {x, y}, out, "onnx_add")};
  }
  if (op == "Flatten") {
    int64_t r = static_cast<int64_t>(x.shape().size()), axis = int_attr(a, "axis", 1);
    if (axis < 0) axis += r;
    MINITVM_USER_CHECK(axis >= 0 && axis <= r)
        << "frontend::onnx: " << label << ": attribute 'axis' out of range";
    // topi flatten keeps axis 0: view X as (prod(dims[:axis]), dims[axis:]...) first (same bytes).
    std::vector<int64_t> v{
        checked_product({x.shape().begin(), x.shape().begin() + axis}).value_or(-1)};
    MINITVM_USER_CHECK(v[0] >= 0 && v[0] <= kMaxExtent)
        << "frontend::onnx: " << label << ": the dimensions before attribute 'axis' = " << axis
        << " have more than " << kMaxExtent << " elements";
    for (int64_t i = axis; i < r; ++i) v.push_back(x.shape()[i]);
    if (v.size() == 1) v.push_back(1);
    HostArray xv = reshaped(x, v);
    Tensor X = placeholder_for(xv, "data");
    return {run_injective(label, {X}, {xv}, topi::nn::flatten(X), "onnx_flatten")};
  }
  if (op == "BatchNormalization") {
    MINITVM_USER_CHECK(int_attr(a, "training_mode", 0) == 0)
        << "frontend::onnx: " << label
        << ": attribute 'training_mode' = " << int_attr(a, "training_mode", 0)
        << " is unsupported (inference only)";
    const double eps = float_attr(a, "epsilon", 1e-5);
    MINITVM_USER_CHECK(std::isfinite(eps) && eps >= 0)
        << "frontend::onnx: " << label
        << ": attribute 'epsilon' must be finite and non-negative, got " << eps;
    MINITVM_USER_CHECK(in.size() == 5 && in[1] && in[2] && in[3] && in[4])
        << "frontend::onnx: " << label << ": needs inputs X, scale, B, mean, var";
    std::vector<Tensor> ph;
    std::vector<HostArray> ins;
    const char* names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
    for (int i = 0; i < 5; ++i) {
      MINITVM_USER_CHECK(in[i]->dtype() == x.dtype())
          << "frontend::onnx: " << label << ": input " << i << " is " << in[i]->dtype().str()
          << ", X is " << x.dtype().str();
      ph.push_back(placeholder_for(*in[i], names[i]));
      ins.push_back(*in[i]);
    }
    Tensor out = topi::nn::batch_norm_inference(ph[0], ph[1], ph[2], ph[3], ph[4], eps);
    return {run_injective(label, ph, ins, out, "onnx_batch_norm")};
  }
  MINITVM_USER_ERROR << "frontend::onnx: " << label << ": unsupported operator";
  return {};
}

}  // namespace onnx
}  // namespace frontend
}  // namespace minitvm
