// The ONNX importer of relay::frontend (internal): the Importer class whose methods are spread over
// onnx.cc (the driver: graph inputs, node dispatch, attribute checks), onnx_fold.cc (import-time
// constants: torch's static shape chains folded, reshape/slice/squeeze arithmetic) and
// onnx_convert.cc (one relay builder call per tensor op).
#pragma once

#ifdef MINITVM_HAVE_ONNX

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/relay/frontend.h"
#include "minitvm/relay/op.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/support/error.h"

namespace minitvm::relay::frontend::onnx_detail {

using Shape = std::vector<int64_t>;

// An import-time constant: int64 (also bool/int32 casts) or float values, row-major.
struct Const {
  Shape shape;
  bool is_int = false;
  std::vector<int64_t> i;
  std::vector<double> f;
  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  double at(int64_t k) const { return is_int ? double(i[k]) : f[k]; }
  int64_t iat(int64_t k) const { return is_int ? i[k] : int64_t(f[k]); }
  void push(const Const& src, int64_t k) {
    if (is_int)
      i.push_back(src.iat(k));
    else
      f.push_back(src.at(k));
  }
};

struct Value {
  Expr e;                  // graph expression (float32)
  std::optional<Const> c;  // import-time constant
  bool param = false;      // a float initializer: bound through params when used as a tensor
};

Const make_ints(Shape shape, std::vector<int64_t> v);
Shape strides_of(const Shape& s);
const std::map<std::string, std::set<std::string> >& op_attrs();
// Ops evaluated at import when every input is a constant.
const std::set<std::string>& foldable();
Const const_from_proto(const ::onnx::TensorProto& t, const std::string& what);
runtime::NDArray to_ndarray(const Const& c, const std::string& what);

class Importer {
 public:
  Importer(const ::onnx::ModelProto& m, const ShapeDict& shapes) : model_(m), shapes_(shapes) {}

  Imported run();

 private:
  static std::string fmt_shape(const Shape& s) {
    std::ostringstream os;
    os << "(";
    for (size_t k = 0; k < s.size(); ++k)
      os << (k ? ", " : "") << (s[k] < 0 ? std::string("?") : std::to_string(s[k]));
    os << ")";
    return os.str();
  }

  // ---- per-node context -----------------------------------------------------------------------
  const ::onnx::NodeProto* n_ = nullptr;
  bool lift1d_ = false;      // a 1-D Conv: 1-element spatial attributes describe the W axis
  size_t spatial_rank_ = 2;  // 3 for a 3-D Conv (op_conv3d): spatial attributes of 3 values
  std::string label_;
  std::map<std::string, const ::onnx::AttributeProto*> attrs_;

  template <typename... A>
  [[noreturn]] void fail(const A&... parts) {
    std::ostringstream os;
    os << "from_onnx: " << label_ << ": ";
    (os << ... << parts);
    throw CompileError(os.str());
  }
  void check(bool cond, const std::string& msg) {
    if (!cond) fail(msg);
  }

  const ::onnx::AttributeProto* attr(const std::string& k,
                                     ::onnx::AttributeProto_AttributeType type) {
    auto it = attrs_.find(k);
    if (it == attrs_.end()) return nullptr;
    if (it->second->type() != type)
      fail("attribute '", k, "' has type ", int(it->second->type()), ", expected ", int(type));
    return it->second;
  }
  int64_t geti(const std::string& k, int64_t d) {
    auto* a = attr(k, ::onnx::AttributeProto_AttributeType_INT);
    return a ? a->i() : d;
  }
  double getf(const std::string& k, double d) {
    auto* a = attr(k, ::onnx::AttributeProto_AttributeType_FLOAT);
    return a ? a->f() : d;
  }
  std::string gets(const std::string& k, const std::string& d) {
    auto* a = attr(k, ::onnx::AttributeProto_AttributeType_STRING);
    return a ? a->s() : d;
  }
  std::optional<Shape> getints(const std::string& k) {
    auto* a = attr(k, ::onnx::AttributeProto_AttributeType_INTS);
    if (!a) return std::nullopt;
    return Shape(a->ints().begin(), a->ints().end());
  }
  bool has(const std::string& k) const { return attrs_.count(k) > 0; }

  int num_inputs() const { return n_->input_size(); }
  bool has_input(int k) const { return k < n_->input_size() && !n_->input(k).empty(); }
  const std::string& input_name(int k) const { return n_->input(k); }
  Value& value(int k) {
    check(has_input(k), "input " + std::to_string(k) + " is missing");
    auto it = values_.find(n_->input(k));
    if (it == values_.end())
      fail("input ", k, " '", n_->input(k), "' is not produced by any earlier node or graph input");
    return it->second;
  }
  // A graph tensor for input k.
  Expr in(int k) {
    value(k);  // present and produced
    return tensor(n_->input(k), "input " + std::to_string(k) + " of " + label_);
  }
  // Input k, which the op computes on in float32 only.
  Expr float_in(int k) {
    Expr x = in(k);
    if (x->type().dtype != DataType::Float(32))
      fail("input ", k, " of type ", x->type().dtype.str(), " is not supported (float32 only)");
    return x;
  }
  bool is_const(int k) { return value(k).c.has_value(); }
  const Const& cin(int k, const std::string& what) {
    Value& v = value(k);
    if (!v.c) fail(what, " (input ", k, " '", n_->input(k), "') must be a constant or initializer");
    return *v.c;
  }
  Shape cints(int k, const std::string& what) {
    const Const& c = cin(k, what);
    if (!c.is_int) fail(what, " (input ", k, ") must be an integer tensor");
    return c.i;
  }
  double cscalar(int k, const std::string& what) {
    const Const& c = cin(k, what);
    if (c.numel() != 1) fail(what, " (input ", k, ") must be a single value, got ", c.numel());
    return c.at(0);
  }
  Shape shape_of(int k) {
    Value& v = value(k);
    return v.c ? v.c->shape : v.e->type().shape;
  }

  Expr tensor(const std::string& name, const std::string& what);

  void set_out(int k, Expr e) {
    if (k < n_->output_size() && !n_->output(k).empty()) {
      Value v;
      v.e = std::move(e);
      values_[n_->output(k)] = std::move(v);
    }
  }
  void set_out_const(int k, Const c) {
    if (k < n_->output_size() && !n_->output(k).empty()) {
      Value v;
      v.c = std::move(c);
      values_[n_->output(k)] = std::move(v);
    }
  }
  void only_outputs(int k) {
    for (int j = k; j < n_->output_size(); ++j)
      if (!n_->output(j).empty()) fail("output ", j, " ('", n_->output(j), "') is not supported");
  }
  int64_t norm_axis(int64_t a, int64_t rank, const std::string& what) {
    if (a < -rank || a >= rank) fail(what, " ", a, " is out of range for rank ", rank);
    return a < 0 ? a + rank : a;
  }

  // ---- translation ------------------------------------------------------------------------------
  void convert(const ::onnx::NodeProto& n, int idx);

  void op_constant();

  void op_shape();
  void op_size();
  void op_expand();

  // -- import-time evaluation
  static Shape broadcast(const Shape& a, const Shape& b, bool& ok);
  // Element index of `src` (broadcast to `out`) for output element `k`.
  static int64_t bidx(const Shape& src, const Shape& out, int64_t k) {
    Shape ost = strides_of(out), sst = strides_of(src);
    int64_t idx = 0, off = int64_t(out.size() - src.size());
    for (size_t d = 0; d < out.size(); ++d) {
      int64_t c = (k / ost[d]) % out[d];
      if (int64_t(d) >= off && src[d - off] != 1) idx += c * sst[d - off];
    }
    return idx;
  }

  void fold(const std::string& op);
  Const fold_pointwise(const std::string& op);
  Const fold_range();
  Const fold_scatter_nd();
  void op_constant_of_shape();

  // -- shared attribute logic
  Shape reshape_target(const Shape& in_shape);
  Shape resolve_reshape(const Shape& in_shape, const Shape& target);
  int64_t flatten_axis(const Shape& s) {
    int64_t r = int64_t(s.size());
    int64_t ax = geti("axis", 1);
    if (ax < -r || ax > r) fail("attribute 'axis' = ", ax, " is out of range for rank ", r);
    return ax < 0 ? ax + r : ax;
  }
  Shape axes_attr_or_input(int input, const std::string& what);
  Shape unsqueeze_shape(const Shape& s);
  Shape squeeze_axes(const Shape& s);
  Shape transpose_perm(size_t rank);
  struct SliceParams {
    Shape start, step, out;
  };
  SliceParams slice_params(const Shape& s);

  // -- graph ops
  std::vector<int64_t> spatial_ints(const std::string& k, int64_t def) {
    auto v = getints(k);
    if (!v) return std::vector<int64_t>(spatial_rank_, def);
    if (lift1d_ && v->size() == 1) return {1, (*v)[0]};
    if (v->size() != spatial_rank_)
      fail("attribute '", k, "' has ", v->size(), " values; expected ", spatial_rank_, " (",
           spatial_rank_, "-D)");
    return *v;
  }
  // Explicit padding from pads / auto_pad: the begins of the in_hw.size() spatial axes, then
  // their ends ((top, left, bottom, right) in 2-D).
  Shape padding(const Shape& in_hw, const Shape& k, const Shape& s, const Shape& dil);
  void positive(const Shape& v, const std::string& what) {
    for (auto x : v)
      if (x < 1) fail("attribute '", what, "' has a value ", x, " < 1");
  }

  void conv_operands_2d(Expr& x, Expr& w, Shape& xs, Shape& ws, const char* what);
  Shape kernel_hw(const Shape& ws);
  // Conv's and ConvTranspose's group (>= 1), strides and dilations (each >= 1).
  struct ConvWindow {
    int64_t group;
    Shape strides, dilations;
  };
  ConvWindow conv_window_attrs();
  void set_conv_out(Expr y);
  void op_conv();
  void op_conv3d(Expr x, Expr w);
  Expr pool3d_as_frames(Expr x, const Shape& k, const Shape& st, const Shape& p, bool is_max,
                        bool count_include_pad);
  void op_conv_transpose();
  void op_bn();
  void op_clip();
  void op_hard(bool swish) {
    only_outputs(1);
    double alpha = swish ? 1.0 / 6 : getf("alpha", 0.2), beta = swish ? 0.5 : getf("beta", 0.5);
    if (!std::isfinite(alpha) || !std::isfinite(beta)) fail("alpha and beta must be finite");
    Expr x = in(0);
    Expr h = clip(add(multiply(x, scalar(alpha)), scalar(beta)), 0.0, 1.0);
    set_out(0, swish ? multiply(x, h) : h);
  }
  // opset < 7 broadcasting: broadcast = 1 aligns B with A's dims from `axis` on (trailing dims by
  // default, as numpy's); broadcast = 0 needs equal shapes.
  void legacy_broadcast(const Shape& as, Expr& b);
  void op_binary(const std::string& op);
  void op_unary(const std::string& op);
  void op_rectifier(const std::string& op);
  void op_pow();
  void op_variadic(const std::string& op);
  void op_layer_norm();
  // (x - mean) / sqrt(var + eps) over `axes` (biased variance); also the mean and 1/sqrt(var +
  // eps), with the axes kept as 1.
  struct Normalized {
    Expr y, mean, inv_std;
  };
  Normalized normalize(const Expr& x, const Shape& axes, double eps);
  void op_instance_norm();
  void op_smooth(const std::string& op);
  void op_pool(bool is_max);
  void op_global_pool(bool is_max);
  void op_gemm();
  void op_matmul();
  void op_batch_matmul(Expr a, Expr b);
  void op_einsum();
  void op_flatten_graph();
  void op_transpose() {
    only_outputs(1);
    Expr x = in(0);
    set_out(0, transpose(x, transpose_perm(x->type().shape.size())));
  }
  void op_concat() {
    only_outputs(1);
    check(has("axis"), "attribute 'axis' is required");
    std::vector<Expr> xs;
    for (int k = 0; k < num_inputs(); ++k) xs.push_back(in(k));
    int64_t ax = norm_axis(geti("axis", 0), int64_t(xs[0]->type().shape.size()), "axis");
    set_out(0, concatenate(xs, int(ax)));
  }
  void op_split();
  void op_softmax(bool log);
  void op_tile();
  void op_reduce(const std::string& op);
  void op_dropout() {
    only_outputs(1);
    if (has_input(2)) {
      double t = cscalar(2, "training_mode");
      if (t != 0) fail("training_mode = true is not supported (inference only)");
    }
    set_out(0, in(0));
  }
  void op_pad();
  void op_unsqueeze_graph() {
    only_outputs(1);
    Expr x = in(0);
    set_out(0, reshape(x, unsqueeze_shape(x->type().shape)));
  }
  Expr strided_range(Expr y, int d, int64_t b, int64_t k, int64_t n);
  void op_slice_graph();
  void op_gather_graph();
  Expr one_hot_gather(Expr x, int64_t ax, const std::vector<int64_t>& idx);
  void op_gather_nd();
  void op_lrn();
  void op_resize(bool upsample);
  void op_cast_graph() {
    only_outputs(1);
    int64_t to = geti("to", -1);
    if (to != ::onnx::TensorProto_DataType_FLOAT)
      fail("attribute 'to' = ", to, " on a float32 graph tensor is not supported (only float)");
    set_out(0, in(0));
  }

  const ::onnx::ModelProto& model_;
  const ShapeDict& shapes_;
  int64_t opset_ = 0;
  std::map<std::string, Value> values_;
  std::vector<Expr> inputs_, param_vars_;
  Params params_;
};

}  // namespace minitvm::relay::frontend::onnx_detail

#endif  // MINITVM_HAVE_ONNX
