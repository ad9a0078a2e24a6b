// relay::frontend::from_onnx: ONNX ModelProto -> graph function (see relay/frontend.h).
//
// Values are either graph expressions (float32 relay Exprs) or import-time constants (Const:
// int64 or float). Nodes whose inputs are all constants and whose op is in the folding set are
// evaluated here (torch's static Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains); the
// others map to relay builders. Every attribute of a node is checked against the op's list before
// the node is translated.
#include "minitvm/relay/frontend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "minitvm/relay/op.h"
#include "minitvm/support/checked_math.h"
#include "minitvm/support/error.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace minitvm::relay::frontend {

#ifndef MINITVM_HAVE_ONNX

Imported from_onnx(const std::string& path, const ShapeDict&) {
  MINITVM_USER_ERROR << "relay::frontend::from_onnx(" << path
                     << "): minitvm was built without ONNX support";
  return {};
}
Imported from_onnx_bytes(const std::string&, const ShapeDict&) {
  MINITVM_USER_ERROR << "relay::frontend::from_onnx_bytes: minitvm was built without ONNX support";
  return {};
}
std::vector<std::string> onnx_supported_ops() {
  return {};
}
std::vector<OnnxInput> onnx_graph_inputs(const std::string&) {
  throw CompileError("from_onnx: minitvm was built without ONNX support (libonnx-dev)");
}

#else

namespace {

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

Const make_ints(Shape shape, std::vector<int64_t> v) {
  Const c;
  c.shape = std::move(shape);
  c.is_int = true;
  c.i = std::move(v);
  return c;
}

struct Value {
  Expr e;                  // graph expression (float32)
  std::optional<Const> c;  // import-time constant
  bool param = false;      // a float initializer: bound through params when used as a tensor
};

Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (int k = int(s.size()) - 2; k >= 0; --k) st[k] = st[k + 1] * s[k + 1];
  return st;
}

const std::map<std::string, std::set<std::string> >& op_attrs() {
  static const std::map<std::string, std::set<std::string> > m{
      {"Conv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"BatchNormalization",
       {"consumed_inputs", "epsilon", "is_test", "momentum", "spatial", "training_mode"}},
      {"Relu", {}},
      {"Sigmoid", {}},
      {"Clip", {"min", "max"}},
      {"HardSigmoid", {"alpha", "beta"}},
      {"HardSwish", {}},
      {"Add", {"axis", "broadcast"}},
      {"Sub", {"axis", "broadcast"}},
      {"Mul", {"axis", "broadcast"}},
      {"Div", {"axis", "broadcast"}},
      {"MaxPool",
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}},
      {"AveragePool",
       {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads",
        "strides"}},
      {"GlobalAveragePool", {}},
      {"GlobalMaxPool", {}},
      {"Gemm", {"alpha", "beta", "broadcast", "transA", "transB"}},
      {"MatMul", {}},
      {"Flatten", {"axis"}},
      {"Reshape", {"allowzero", "shape"}},
      {"Transpose", {"perm"}},
      {"Concat", {"axis"}},
      {"Split", {"axis", "split", "num_outputs"}},
      {"Softmax", {"axis"}},
      {"ReduceMean", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"Dropout", {"ratio", "seed", "is_test"}},
      {"Identity", {}},
      {"Constant", {"value", "value_float", "value_floats", "value_int", "value_ints"}},
      {"Pad", {"mode", "pads", "value"}},
      {"Squeeze", {"axes"}},
      {"Unsqueeze", {"axes"}},
      {"Slice", {"axes", "ends", "starts", "steps"}},
      {"Shape", {"start", "end"}},
      {"Gather", {"axis"}},
      {"Cast", {"to", "saturate"}},
      {"LRN", {"alpha", "beta", "bias", "size"}},
  };
  return m;
}

// Ops evaluated at import when every input is a constant.
const std::set<std::string>& foldable() {
  static const std::set<std::string> s{"Add",     "Sub",       "Mul",     "Div",      "Concat",
                                       "Gather",  "Unsqueeze", "Squeeze", "Slice",    "Cast",
                                       "Reshape", "Identity",  "Flatten", "Transpose"};
  return s;
}

Const const_from_proto(const ::onnx::TensorProto& t, const std::string& what) {
  Const c;
  c.shape.assign(t.dims().begin(), t.dims().end());
  for (size_t k = 0; k < c.shape.size(); ++k)
    MINITVM_USER_CHECK(c.shape[k] >= 0)
        << what << ": dims[" << k << "] = " << c.shape[k] << " is negative";
  std::optional<int64_t> n = checked_product(c.shape);
  MINITVM_USER_CHECK(n) << what << ": the product of its dims overflows int64";
  const std::string& raw = t.raw_data();
  auto from_raw = [&](auto tag, bool is_int) {
    using T = decltype(tag);
    MINITVM_USER_CHECK(raw.size() == size_t(*n) * sizeof(T))
        << what << ": raw_data has " << raw.size() << " bytes, its dims need " << *n
        << " elements of " << sizeof(T);
    c.is_int = is_int;
    for (int64_t k = 0; k < *n; ++k) {
      T v;
      std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));
      if (is_int)
        c.i.push_back(int64_t(v));
      else
        c.f.push_back(double(v));
    }
  };
  auto from_field = [&](const auto& field, bool is_int) {
    MINITVM_USER_CHECK(int64_t(field.size()) == *n)
        << what << " holds " << field.size() << " values for " << *n << " elements";
    c.is_int = is_int;
    for (auto v : field) {
      if (is_int)
        c.i.push_back(int64_t(v));
      else
        c.f.push_back(double(v));
    }
  };
  switch (t.data_type()) {
    case ::onnx::TensorProto_DataType_FLOAT:
      if (!raw.empty())
        from_raw(float{}, false);
      else
        from_field(t.float_data(), false);
      break;
    case ::onnx::TensorProto_DataType_DOUBLE:
      if (!raw.empty())
        from_raw(double{}, false);
      else
        from_field(t.double_data(), false);
      break;
    case ::onnx::TensorProto_DataType_INT64:
      if (!raw.empty())
        from_raw(int64_t{}, true);
      else
        from_field(t.int64_data(), true);
      break;
    case ::onnx::TensorProto_DataType_INT32:
      if (!raw.empty())
        from_raw(int32_t{}, true);
      else
        from_field(t.int32_data(), true);
      break;
    case ::onnx::TensorProto_DataType_BOOL:
      if (!raw.empty())
        from_raw(uint8_t{}, true);
      else
        from_field(t.int32_data(), true);
      break;
    default:
      MINITVM_USER_ERROR << what << " has unsupported element type " << t.data_type()
                         << " (float, double, int64, int32 and bool tensors are supported)";
  }
  return c;
}

runtime::NDArray to_ndarray(const Const& c, const std::string& what) {
  MINITVM_USER_CHECK(!c.is_int)
      << what << " is an integer tensor; only float32 tensors can enter the graph";
  std::vector<float> v(c.f.begin(), c.f.end());
  return runtime::NDArray::from_vector<float>(v, c.shape);
}

class Importer {
 public:
  Importer(const ::onnx::ModelProto& m, const ShapeDict& shapes) : model_(m), shapes_(shapes) {}

  Imported run() {
    for (const auto& op : model_.opset_import())
      if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = op.version();
    MINITVM_USER_CHECK(opset_ > 0)
        << "from_onnx: the model declares no opset for the default ONNX domain";
    const auto& g = model_.graph();
    std::set<std::string> init_names;
    for (const auto& t : g.initializer()) {
      MINITVM_USER_CHECK(!t.name().empty()) << "from_onnx: an initializer has no name";
      Value v;
      v.c = const_from_proto(t, "from_onnx: initializer '" + t.name() + "'");
      v.param = !v.c->is_int;
      values_[t.name()] = std::move(v);
      init_names.insert(t.name());
    }
    std::set<std::string> input_names;
    for (const auto& in : g.input()) {
      if (init_names.count(in.name())) continue;
      input_names.insert(in.name());
      const auto& tt = in.type().tensor_type();
      MINITVM_USER_CHECK(tt.elem_type() == ::onnx::TensorProto_DataType_FLOAT)
          << "from_onnx: graph input '" << in.name() << "' has element type " << tt.elem_type()
          << "; only float32 inputs are supported";
      Shape model_shape;
      bool is_static = tt.has_shape();
      for (const auto& d : tt.shape().dim()) {
        model_shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
        if (!d.has_dim_value()) is_static = false;
      }
      Shape s;
      auto it = shapes_.find(in.name());
      if (it != shapes_.end()) {
        s = it->second;
        for (auto d : s)
          MINITVM_USER_CHECK(d >= 1)
              << "from_onnx: the shape given for input '" << in.name() << "' has dim " << d;
        if (tt.has_shape()) {
          bool agree = model_shape.size() == s.size();
          for (size_t k = 0; agree && k < s.size(); ++k)
            agree = model_shape[k] < 0 || model_shape[k] == s[k];
          MINITVM_USER_CHECK(agree)
              << "from_onnx: the shape given for input '" << in.name() << "' " << fmt_shape(s)
              << " disagrees with the model's " << fmt_shape(model_shape);
        }
      } else {
        MINITVM_USER_CHECK(is_static) << "from_onnx: no shape given for graph input '" << in.name()
                                      << "' and its shape in the model " << fmt_shape(model_shape)
                                      << " is not static; pass it in the shape dict";
        s = model_shape;
      }
      Value v;
      v.e = var(in.name(), TensorType{s, DataType::Float(32)});
      inputs_.push_back(v.e);
      values_[in.name()] = std::move(v);
    }
    for (const auto& [name, s] : shapes_)
      MINITVM_USER_CHECK(input_names.count(name)) << "from_onnx: a shape is given for '" << name
                                                  << "', which is not a graph input of the model";
    int idx = 0;
    for (const auto& n : g.node()) {
      try {
        convert(n, idx++);
      } catch (const CompileError& e) {
        // relay's type rules name the op and argument; add the ONNX node
        std::string msg = e.what();
        if (msg.rfind("from_onnx", 0) == 0) throw;
        throw CompileError("from_onnx: " + label_ + ": " + msg);
      }
    }
    std::vector<Expr> outs;
    for (const auto& o : g.output()) outs.push_back(tensor(o.name(), "graph output"));
    MINITVM_USER_CHECK(!outs.empty()) << "from_onnx: the graph has no outputs";
    std::vector<Expr> fparams = inputs_;
    for (auto& p : param_vars_) fparams.push_back(p);
    Imported r;
    r.mod = Function(fparams, outs.size() == 1 ? outs[0] : tuple(outs));
    r.params = std::move(params_);
    return r;
  }

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
  bool lift1d_ = false;  // a 1-D Conv: 1-element spatial attributes describe the W axis
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

  Expr tensor(const std::string& name, const std::string& what) {
    auto it = values_.find(name);
    MINITVM_USER_CHECK(it != values_.end())
        << "from_onnx: " << what << " '" << name << "' is never produced";
    Value& v = it->second;
    if (v.e) return v.e;
    if (v.param) {
      v.e = var(name, TensorType{v.c->shape, DataType::Float(32)});
      params_[name] = to_ndarray(*v.c, "from_onnx: initializer '" + name + "'");
      param_vars_.push_back(v.e);
      return v.e;
    }
    v.e = constant(to_ndarray(*v.c, "from_onnx: " + what + " '" + name + "'"));
    return v.e;
  }

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
  void convert(const ::onnx::NodeProto& n, int idx) {
    n_ = &n;
    lift1d_ = false;
    label_ = "node " + std::to_string(idx) + " '" + n.name() + "' (" + n.op_type() + ")";
    attrs_.clear();
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail("op domain '", n.domain(), "' is not supported");
    auto it = op_attrs().find(n.op_type());
    if (it == op_attrs().end()) fail("op ", n.op_type(), " is not supported");
    for (const auto& a : n.attribute()) {
      if (!it->second.count(a.name()))
        fail("attribute '", a.name(), "' of ", n.op_type(), " is not supported");
      attrs_[a.name()] = &a;
    }
    const std::string& op = n.op_type();
    if (op == "Constant") return op_constant();
    if (op == "Shape") return op_shape();
    bool all_const = n.input_size() > 0;
    for (int k = 0; k < n.input_size(); ++k)
      if (has_input(k) && !is_const(k)) all_const = false;
    if (all_const && foldable().count(op)) return fold(op);
    if (op == "Conv") return op_conv();
    if (op == "BatchNormalization") return op_bn();
    if (op == "Relu") return only_outputs(1), set_out(0, nn::relu(in(0)));
    if (op == "Sigmoid") return only_outputs(1), set_out(0, sigmoid(in(0)));
    if (op == "Clip") return op_clip();
    if (op == "HardSigmoid" || op == "HardSwish") return op_hard(op == "HardSwish");
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return op_binary(op);
    if (op == "MaxPool" || op == "AveragePool") return op_pool(op == "MaxPool");
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
      return op_global_pool(op == "GlobalMaxPool");
    if (op == "Gemm") return op_gemm();
    if (op == "MatMul") return op_matmul();
    if (op == "Flatten") return op_flatten_graph();
    if (op == "Reshape")
      return only_outputs(1), set_out(0, reshape(in(0), reshape_target(shape_of(0))));
    if (op == "Transpose") return op_transpose();
    if (op == "Concat") return op_concat();
    if (op == "Split") return op_split();
    if (op == "Softmax") return op_softmax();
    if (op == "ReduceMean") return op_reduce_mean();
    if (op == "Dropout") return op_dropout();
    if (op == "Identity") return only_outputs(1), set_out(0, in(0));
    if (op == "Pad") return op_pad();
    if (op == "Squeeze")
      return only_outputs(1), set_out(0, squeeze(in(0), squeeze_axes(shape_of(0))));
    if (op == "Unsqueeze") return op_unsqueeze_graph();
    if (op == "Slice") return op_slice_graph();
    if (op == "Gather") return op_gather_graph();
    if (op == "Cast") return op_cast_graph();
    if (op == "LRN") return op_lrn();
    fail("op ", op, " is not supported");  // listed but not mapped
  }

  void op_constant() {
    only_outputs(1);
    check(attrs_.size() == 1, "needs exactly one value attribute");
    Const c;
    if (auto* a = attr("value", ::onnx::AttributeProto_AttributeType_TENSOR)) {
      c = const_from_proto(a->t(), "from_onnx: " + label_ + ": attribute 'value'");
    } else if (has("value_float")) {
      c.f = {getf("value_float", 0)};
    } else if (auto v = getints("value_ints")) {
      c = make_ints({int64_t(v->size())}, *v);
    } else if (has("value_int")) {
      c = make_ints({}, {geti("value_int", 0)});
    } else if (auto* a = attr("value_floats", ::onnx::AttributeProto_AttributeType_FLOATS)) {
      c.shape = {a->floats_size()};
      for (float f : a->floats()) c.f.push_back(f);
    }
    set_out_const(0, std::move(c));
  }

  void op_shape() {
    only_outputs(1);
    Shape s = shape_of(0);
    int64_t r = int64_t(s.size());
    int64_t b = geti("start", 0), e = geti("end", r);
    if (b < 0) b += r;
    if (e < 0) e += r;
    b = std::clamp<int64_t>(b, 0, r);
    e = std::clamp<int64_t>(e, 0, r);
    Shape v(s.begin() + b, s.begin() + std::max(b, e));
    set_out_const(0, make_ints({int64_t(v.size())}, v));
  }

  // -- import-time evaluation
  static Shape broadcast(const Shape& a, const Shape& b, bool& ok) {
    size_t r = std::max(a.size(), b.size());
    Shape o(r);
    ok = true;
    for (size_t k = 0; k < r; ++k) {
      int64_t x = k < r - a.size() ? 1 : a[k - (r - a.size())];
      int64_t y = k < r - b.size() ? 1 : b[k - (r - b.size())];
      if (x != y && x != 1 && y != 1) ok = false;
      o[k] = std::max(x, y);
    }
    return o;
  }
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

  void fold(const std::string& op) {
    only_outputs(1);
    const Const& a = cin(0, "input");
    Const r;
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
      if (has("axis"))
        fail("attribute 'axis' (opset < 7 broadcasting) on constants is not supported");
      const Const& b = cin(1, "input");
      bool ok;
      r.shape = broadcast(a.shape, b.shape, ok);
      if (!ok)
        fail("shapes ", fmt_shape(a.shape), " and ", fmt_shape(b.shape), " do not broadcast");
      r.is_int = a.is_int && b.is_int;
      int64_t n = r.numel();
      for (int64_t k = 0; k < n; ++k) {
        int64_t ia = bidx(a.shape, r.shape, k), ib = bidx(b.shape, r.shape, k);
        if (r.is_int) {
          int64_t x = a.i[ia], y = b.i[ib], v = 0;
          if (op == "Add")
            v = x + y;
          else if (op == "Sub")
            v = x - y;
          else if (op == "Mul")
            v = x * y;
          else {
            if (y == 0) fail("integer division by zero at element ", k);
            v = x / y;
          }
          r.i.push_back(v);
        } else {
          double x = a.at(ia), y = b.at(ib);
          double v = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
          r.f.push_back(double(float(v)));
        }
      }
    } else if (op == "Identity") {
      r = a;
    } else if (op == "Cast") {
      int64_t to = geti("to", -1);
      r.shape = a.shape;
      if (to == ::onnx::TensorProto_DataType_FLOAT || to == ::onnx::TensorProto_DataType_DOUBLE) {
        for (int64_t k = 0; k < a.numel(); ++k)
          r.f.push_back(to == 1 ? double(float(a.at(k))) : a.at(k));
      } else if (to == ::onnx::TensorProto_DataType_INT64 ||
                 to == ::onnx::TensorProto_DataType_INT32 ||
                 to == ::onnx::TensorProto_DataType_BOOL) {
        r.is_int = true;
        for (int64_t k = 0; k < a.numel(); ++k) {
          double v = a.at(k);
          r.i.push_back(to == ::onnx::TensorProto_DataType_BOOL ? int64_t(v != 0)
                                                                : int64_t(std::trunc(v)));
        }
      } else {
        fail("attribute 'to' = ", to, " is not supported (float, double, int64, int32, bool)");
      }
    } else if (op == "Reshape" || op == "Flatten") {
      r = a;
      if (op == "Reshape") {
        r.shape = resolve_reshape(a.shape, reshape_target(a.shape));
      } else {
        int64_t ax = flatten_axis(a.shape);
        int64_t p = 1;
        for (int64_t k = 0; k < ax; ++k) p *= a.shape[k];
        r.shape = {p, a.numel() / std::max<int64_t>(p, 1)};
        if (p == 0) r.shape[1] = 0;
      }
    } else if (op == "Unsqueeze") {
      r = a;
      r.shape = unsqueeze_shape(a.shape);
    } else if (op == "Squeeze") {
      r = a;
      auto axes = squeeze_axes(a.shape);
      std::set<int64_t> drop(axes.begin(), axes.end());
      r.shape.clear();
      for (size_t k = 0; k < a.shape.size(); ++k)
        if (!(axes.empty() ? a.shape[k] == 1 : drop.count(int64_t(k)) > 0))
          r.shape.push_back(a.shape[k]);
    } else if (op == "Transpose") {
      auto perm = transpose_perm(a.shape.size());
      r.is_int = a.is_int;
      for (auto p : perm) r.shape.push_back(a.shape[p]);
      Shape ist = strides_of(a.shape), ost = strides_of(r.shape);
      for (int64_t k = 0; k < a.numel(); ++k) {
        int64_t src = 0;
        for (size_t d = 0; d < perm.size(); ++d) src += ((k / ost[d]) % r.shape[d]) * ist[perm[d]];
        r.push(a, src);
      }
    } else if (op == "Concat") {
      check(has("axis"), "attribute 'axis' is required");
      int64_t rank = int64_t(a.shape.size());
      int64_t ax = norm_axis(geti("axis", 0), rank, "axis");
      r.shape = a.shape;
      r.shape[ax] = 0;
      r.is_int = true;
      std::vector<const Const*> parts;
      for (int k = 0; k < num_inputs(); ++k) {
        const Const& c = cin(k, "input");
        if (int64_t(c.shape.size()) != rank)
          fail("input ", k, " has rank ", c.shape.size(), ", input 0 has ", rank);
        for (int64_t d = 0; d < rank; ++d)
          if (d != ax && c.shape[d] != a.shape[d])
            fail("input ", k, " ", fmt_shape(c.shape), " does not match input 0 ",
                 fmt_shape(a.shape), " off axis ", ax);
        r.shape[ax] += c.shape[ax];
        r.is_int = r.is_int && c.is_int;
        parts.push_back(&c);
      }
      int64_t outer = 1;
      for (int64_t d = 0; d < ax; ++d) outer *= a.shape[d];
      for (int64_t o = 0; o < outer; ++o)
        for (auto* c : parts) {
          int64_t inner = c->numel() / std::max<int64_t>(outer, 1);
          for (int64_t k = 0; k < inner; ++k) r.push(*c, o * inner + k);
        }
    } else if (op == "Gather") {
      const Const& ind = cin(1, "indices");
      if (!ind.is_int) fail("indices must be integers");
      int64_t rank = int64_t(a.shape.size());
      if (rank == 0) fail("data must have rank >= 1");
      int64_t ax = norm_axis(geti("axis", 0), rank, "axis");
      r.is_int = a.is_int;
      r.shape.assign(a.shape.begin(), a.shape.begin() + ax);
      r.shape.insert(r.shape.end(), ind.shape.begin(), ind.shape.end());
      r.shape.insert(r.shape.end(), a.shape.begin() + ax + 1, a.shape.end());
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < ax; ++d) outer *= a.shape[d];
      for (int64_t d = ax + 1; d < rank; ++d) inner *= a.shape[d];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < ind.numel(); ++j) {
          int64_t t = ind.i[j];
          if (t < -a.shape[ax] || t >= a.shape[ax])
            fail("index ", t, " is out of range for axis ", ax, " of size ", a.shape[ax]);
          if (t < 0) t += a.shape[ax];
          for (int64_t k = 0; k < inner; ++k) r.push(a, (o * a.shape[ax] + t) * inner + k);
        }
    } else if (op == "Slice") {
      auto sl = slice_params(a.shape);
      r.is_int = a.is_int;
      r.shape = sl.out;
      Shape ist = strides_of(a.shape), ost = strides_of(r.shape);
      int64_t n = r.numel();
      for (int64_t k = 0; k < n; ++k) {
        int64_t src = 0;
        for (size_t d = 0; d < r.shape.size(); ++d)
          src += (sl.start[d] + ((k / ost[d]) % r.shape[d]) * sl.step[d]) * ist[d];
        r.push(a, src);
      }
    } else {
      fail("op ", op, " cannot be evaluated at import");
    }
    set_out_const(0, std::move(r));
  }

  // -- shared attribute logic
  Shape reshape_target(const Shape& in_shape) {
    Shape target;
    if (opset_ < 5 || has("shape")) {
      auto s = getints("shape");
      check(s.has_value(), "attribute 'shape' is required (opset < 5)");
      target = *s;
    } else {
      target = cints(1, "shape");
    }
    if (geti("allowzero", 0) != 0)
      for (auto d : target) check(d != 0, "allowzero = 1 with a 0 in the shape is not supported");
    int minus = 0;
    for (size_t k = 0; k < target.size(); ++k) {
      if (target[k] == -1)
        ++minus;
      else if (target[k] < -1)
        fail("shape ", fmt_shape(target), " has a negative dim ", target[k]);
      else if (target[k] == 0 && k >= in_shape.size())
        fail("shape ", fmt_shape(target), " copies dim ", k, " (0) beyond the input rank ",
             in_shape.size());
    }
    if (minus > 1) fail("shape ", fmt_shape(target), " has more than one -1");
    resolve_reshape(in_shape, target);  // validate
    return target;
  }
  Shape resolve_reshape(const Shape& in_shape, const Shape& target) {
    Shape o = target;
    int64_t total = 1, known = 1;
    for (auto d : in_shape) total *= d;
    int minus_at = -1;
    for (size_t k = 0; k < o.size(); ++k) {
      if (o[k] == 0) o[k] = in_shape[k];
      if (o[k] == -1)
        minus_at = int(k);
      else
        known *= o[k];
    }
    if (minus_at >= 0) {
      if (known == 0 || total % known != 0)
        fail("shape ", fmt_shape(target), " cannot reshape ", fmt_shape(in_shape));
      o[minus_at] = total / known;
    } else if (known != total) {
      fail("shape ", fmt_shape(target), " has ", known, " elements, the input ",
           fmt_shape(in_shape), " has ", total);
    }
    return o;
  }
  int64_t flatten_axis(const Shape& s) {
    int64_t r = int64_t(s.size());
    int64_t ax = geti("axis", 1);
    if (ax < -r || ax > r) fail("attribute 'axis' = ", ax, " is out of range for rank ", r);
    return ax < 0 ? ax + r : ax;
  }
  Shape axes_attr_or_input(int input, const std::string& what) {
    if (opset_ >= 13 || (!has("axes") && has_input(input))) {
      check(!has("axes"), "attribute 'axes' is not allowed from opset 13 (axes is an input)");
      if (!has_input(input)) return {};
      return cints(input, what);
    }
    auto a = getints("axes");
    return a ? *a : Shape{};
  }
  Shape unsqueeze_shape(const Shape& s) {
    Shape axes = axes_attr_or_input(1, "axes");
    check(!axes.empty(), "needs axes");
    int64_t r = int64_t(s.size() + axes.size());
    std::set<int64_t> ins;
    for (auto a : axes) {
      int64_t x = norm_axis(a, r, "axis");
      if (!ins.insert(x).second) fail("axis ", a, " is repeated");
    }
    Shape o;
    size_t j = 0;
    for (int64_t k = 0; k < r; ++k) o.push_back(ins.count(k) ? 1 : s[j++]);
    return o;
  }
  Shape squeeze_axes(const Shape& s) {
    Shape axes = axes_attr_or_input(1, "axes");
    int64_t r = int64_t(s.size());
    for (auto& a : axes) {
      a = norm_axis(a, r, "axis");
      if (s[a] != 1) fail("cannot squeeze axis ", a, " of size ", s[a]);
    }
    std::sort(axes.begin(), axes.end());
    return axes;
  }
  Shape transpose_perm(size_t rank) {
    auto p = getints("perm");
    Shape perm;
    if (!p) {
      for (size_t k = 0; k < rank; ++k) perm.push_back(int64_t(rank - 1 - k));
      return perm;
    }
    if (p->size() != rank) fail("attribute 'perm' has ", p->size(), " entries for rank ", rank);
    std::set<int64_t> seen;
    for (auto a : *p) {
      if (a < 0 || a >= int64_t(rank) || !seen.insert(a).second)
        fail("attribute 'perm' is not a permutation of 0..", rank - 1);
      perm.push_back(a);
    }
    return perm;
  }
  struct SliceParams {
    Shape start, step, out;
  };
  SliceParams slice_params(const Shape& s) {
    int64_t r = int64_t(s.size());
    Shape starts, ends, axes, steps;
    if (opset_ < 10) {
      auto a = getints("starts"), b = getints("ends");
      check(a && b, "attributes 'starts' and 'ends' are required (opset < 10)");
      starts = *a;
      ends = *b;
      if (auto c = getints("axes")) axes = *c;
    } else {
      starts = cints(1, "starts");
      ends = cints(2, "ends");
      if (has_input(3)) axes = cints(3, "axes");
      if (has_input(4)) steps = cints(4, "steps");
    }
    if (starts.size() != ends.size()) fail("starts and ends have different lengths");
    if (axes.empty())
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size())
      fail("starts, ends, axes and steps have different lengths");
    SliceParams p;
    p.start.assign(r, 0);
    p.step.assign(r, 1);
    p.out = s;
    std::set<int64_t> seen;
    for (size_t k = 0; k < starts.size(); ++k) {
      int64_t ax = norm_axis(axes[k], r, "axis");
      if (!seen.insert(ax).second) fail("axis ", axes[k], " is repeated");
      int64_t d = s[ax], st = steps[k];
      if (st == 0) fail("steps[", k, "] is 0");
      int64_t b = starts[k], e = ends[k];
      if (b < 0) b += d;
      if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += d;
      if (st > 0) {
        b = std::clamp<int64_t>(b, 0, d);
        e = std::clamp<int64_t>(e, 0, d);
        p.out[ax] = e > b ? (e - b + st - 1) / st : 0;
      } else {
        b = std::clamp<int64_t>(b, 0, d - 1);
        e = std::clamp<int64_t>(e, -1, d - 1);
        p.out[ax] = b > e ? (b - e + (-st) - 1) / (-st) : 0;
      }
      p.start[ax] = b;
      p.step[ax] = st;
    }
    return p;
  }

  // -- graph ops
  std::vector<int64_t> spatial_ints(const std::string& k, int64_t def) {
    auto v = getints(k);
    if (!v) return {def, def};
    if (lift1d_ && v->size() == 1) return {1, (*v)[0]};
    if (v->size() != 2)
      fail("attribute '", k, "' has ", v->size(), " values; only 2-D (NCHW) is supported");
    return *v;
  }
  // Explicit (top, left, bottom, right) padding from pads / auto_pad.
  Shape padding(const Shape& in_hw, const Shape& k, const Shape& s, const Shape& dil) {
    std::string ap = gets("auto_pad", "NOTSET");
    Shape p{0, 0, 0, 0};
    if (ap == "NOTSET") {
      if (auto v = getints("pads")) {
        if (lift1d_ && v->size() == 2) v = Shape{0, (*v)[0], 0, (*v)[1]};
        if (v->size() != 4) fail("attribute 'pads' has ", v->size(), " values; expected 4 (2-D)");
        for (auto x : *v)
          if (x < 0) fail("attribute 'pads' has a negative value ", x);
        p = *v;
      }
    } else if (ap == "VALID") {
      check(!has("pads"), "attributes 'pads' and auto_pad = VALID cannot both be given");
    } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      check(!has("pads"), "attributes 'pads' and auto_pad = " + ap + " cannot both be given");
      for (int i = 0; i < 2; ++i) {
        int64_t out = (in_hw[i] + s[i] - 1) / s[i];
        int64_t ek = (k[i] - 1) * dil[i] + 1;
        int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + ek - in_hw[i]);
        int64_t small = total / 2, big = total - small;
        p[i] = ap == "SAME_UPPER" ? small : big;
        p[i + 2] = ap == "SAME_UPPER" ? big : small;
      }
    } else {
      fail("attribute 'auto_pad' = '", ap, "' is not supported");
    }
    return p;
  }
  void positive(const Shape& v, const std::string& what) {
    for (auto x : v)
      if (x < 1) fail("attribute '", what, "' has a value ", x, " < 1");
  }

  void op_conv() {
    only_outputs(1);
    Expr x = in(0), w = in(1);
    Shape xs = x->type().shape;
    Shape ws = w->type().shape;
    // 1-D: a 2-D convolution over (N, C, 1, L) with a (O, C/g, 1, K) weight.
    lift1d_ = xs.size() == 3 && ws.size() == 3;
    if (lift1d_) {
      xs.insert(xs.begin() + 2, 1);
      ws.insert(ws.begin() + 2, 1);
      x = reshape(x, xs);
      w = reshape(w, ws);
    }
    if (xs.size() != 4 || ws.size() != 4)
      fail("only 1-D and 2-D convolutions (3-D or 4-D data and weight) are supported, got data ",
           fmt_shape(xs), " weight ", fmt_shape(ws));
    int64_t group = geti("group", 1);
    if (group < 1) fail("attribute 'group' = ", group, " must be >= 1");
    auto strides = spatial_ints("strides", 1), dil = spatial_ints("dilations", 1);
    positive(strides, "strides");
    positive(dil, "dilations");
    Shape kshape{ws[2], ws[3]};
    if (auto ks = getints("kernel_shape"))
      if (*ks != kshape && !(lift1d_ && *ks == Shape{ws[3]}))
        fail("attribute 'kernel_shape' ", fmt_shape(*ks), " does not match the weight ",
             fmt_shape(ws));
    Conv2DAttrs a;
    a.strides = strides;
    a.dilation = dil;
    a.groups = group;
    a.padding = padding({xs[2], xs[3]}, kshape, strides, dil);
    Expr y = nn::conv2d(x, w, a);
    if (has_input(2)) y = nn::bias_add(y, in(2), 1);
    if (lift1d_) {
      Shape ys = y->type().shape;
      y = reshape(y, {ys[0], ys[1], ys[3]});
    }
    set_out(0, y);
  }
  void op_bn() {
    only_outputs(1);
    if (geti("training_mode", 0) != 0)
      fail("attribute 'training_mode' = 1 is not supported (inference only)");
    if (opset_ < 7 && geti("is_test", 0) != 1)
      fail("attribute 'is_test' = 0 (training mode, opset < 7) is not supported");
    if (geti("spatial", 1) != 1) fail("attribute 'spatial' = 0 is not supported");
    double eps = getf("epsilon", 1e-5);
    if (!(eps >= 0)) fail("attribute 'epsilon' = ", eps, " must be >= 0");
    set_out(0, tuple_get_item(nn::batch_norm(in(0), in(1), in(2), in(3), in(4), 1, eps), 0));
  }
  void op_clip() {
    only_outputs(1);
    double lo = -std::numeric_limits<float>::infinity(),
           hi = std::numeric_limits<float>::infinity();
    if (opset_ < 11) {
      lo = getf("min", lo);
      hi = getf("max", hi);
    } else {
      check(!has("min") && !has("max"),
            "attributes 'min'/'max' are not allowed from opset 11 (they are inputs)");
      if (has_input(1)) lo = cscalar(1, "min");
      if (has_input(2)) hi = cscalar(2, "max");
    }
    if (lo > hi) fail("min ", lo, " > max ", hi, " is not supported");
    set_out(0, clip(in(0), lo, hi));
  }
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
  void legacy_broadcast(const Shape& as, Expr& b) {
    if (!has("axis") && !has("broadcast")) return;
    if (opset_ >= 7) fail("attributes 'axis'/'broadcast' are not allowed from opset 7");
    Shape bs = b->type().shape;
    if (geti("broadcast", 0) == 0) {
      if (as != bs)
        fail("broadcast = 0 needs equal shapes, got ", fmt_shape(as), " and ", fmt_shape(bs));
      return;
    }
    if (!has("axis")) return;
    int64_t r = int64_t(as.size());
    int64_t ax = norm_axis(geti("axis", 0), r, "axis");
    if (ax + int64_t(bs.size()) > r)
      fail("B ", fmt_shape(bs), " does not fit A ", fmt_shape(as), " from axis ", ax);
    Shape t = bs;
    t.resize(size_t(r - ax), 1);
    if (t != bs) b = reshape(b, t);
  }
  void op_binary(const std::string& op) {
    only_outputs(1);
    Expr a = in(0), b = in(1);
    legacy_broadcast(a->type().shape, b);
    Expr y = op == "Add"   ? add(a, b)
             : op == "Sub" ? subtract(a, b)
             : op == "Mul" ? multiply(a, b)
                           : divide(a, b);
    set_out(0, y);
  }
  void op_pool(bool is_max) {
    only_outputs(1);
    Expr x = in(0);
    const auto& xs = x->type().shape;
    if (xs.size() != 4) fail("only 2-D pooling (4-D data) is supported, got ", fmt_shape(xs));
    auto ks = getints("kernel_shape");
    check(ks.has_value(), "attribute 'kernel_shape' is required");
    if (ks->size() != 2)
      fail("attribute 'kernel_shape' has ", ks->size(), " values; only 2-D is supported");
    positive(*ks, "kernel_shape");
    auto strides = spatial_ints("strides", 1), dil = spatial_ints("dilations", 1);
    positive(strides, "strides");
    if (dil != Shape{1, 1})
      fail("attribute 'dilations' ", fmt_shape(dil), " is not supported (only 1)");
    if (geti("storage_order", 0) != 0) fail("attribute 'storage_order' = 1 is not supported");
    int64_t ceil = geti("ceil_mode", 0), cip = geti("count_include_pad", 0);
    if (ceil != 0 && ceil != 1) fail("attribute 'ceil_mode' = ", ceil, " must be 0 or 1");
    if (cip != 0 && cip != 1) fail("attribute 'count_include_pad' = ", cip, " must be 0 or 1");
    Shape p = padding({xs[2], xs[3]}, *ks, strides, dil);
    for (int i = 0; i < 2; ++i)
      if (p[i] >= (*ks)[i] || p[i + 2] >= (*ks)[i])
        fail("pads ", fmt_shape(p), " must be smaller than kernel_shape ", fmt_shape(*ks));
    if (ceil) {
      // ONNX/PyTorch: ceil the output size but drop a window that starts in the end padding;
      // expressed as extra end padding with floor rounding.
      for (int i = 0; i < 2; ++i) {
        int64_t padded = xs[2 + i] + p[i] + p[i + 2];
        if (padded < (*ks)[i]) break;
        int64_t out = (padded - (*ks)[i] + strides[i] - 1) / strides[i] + 1;
        if ((out - 1) * strides[i] >= xs[2 + i] + p[i]) --out;
        int64_t extra = (out - 1) * strides[i] + (*ks)[i] - padded;
        if (extra > 0 && !is_max && cip)
          fail(
              "ceil_mode = 1 with count_include_pad = 1 and a partial last window is not "
              "supported");
        p[i + 2] += std::max<int64_t>(extra, 0);
      }
    }
    Pool2DAttrs a;
    a.pool_size = *ks;
    a.strides = strides;
    a.padding = p;
    a.count_include_pad = cip != 0;
    set_out(0, is_max ? nn::max_pool2d(x, a) : nn::avg_pool2d(x, a));
  }
  void op_global_pool(bool is_max) {
    only_outputs(1);
    Expr x = in(0);
    const auto& xs = x->type().shape;
    if (xs.size() != 4) fail("only 4-D (NCHW) data is supported, got ", fmt_shape(xs));
    if (!is_max) return set_out(0, nn::global_avg_pool2d(x));
    Pool2DAttrs a;
    a.pool_size = {xs[2], xs[3]};
    set_out(0, nn::max_pool2d(x, a));
  }
  void op_gemm() {
    only_outputs(1);
    Expr a = in(0), b = in(1);
    int64_t ta = geti("transA", 0), tb = geti("transB", 0);
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
      fail("attributes 'transA'/'transB' must be 0 or 1");
    double alpha = getf("alpha", 1.0), beta = getf("beta", 1.0);
    if (!std::isfinite(alpha) || !std::isfinite(beta)) fail("alpha and beta must be finite");
    if (a->type().shape.size() != 2 || b->type().shape.size() != 2)
      fail("A ", fmt_shape(a->type().shape), " and B ", fmt_shape(b->type().shape), " must be 2-D");
    if (ta) a = transpose(a, {1, 0});
    if (!tb) b = transpose(b, {1, 0});
    Expr y = nn::dense(a, b);
    if (alpha != 1.0) y = multiply(y, scalar(alpha));
    if (has_input(2) && beta != 0.0) {
      Expr c = in(2);
      if (beta != 1.0) c = multiply(c, scalar(beta));
      y = add(y, c);
    }
    set_out(0, y);
  }
  void op_matmul() {
    only_outputs(1);
    Expr a = in(0), b = in(1);
    Shape as = a->type().shape, bs = b->type().shape;
    if (bs.size() != 2) fail("only a 2-D B is supported, got ", fmt_shape(bs));
    if (as.empty()) fail("A must have rank >= 1");
    if (as.back() != bs[0]) fail("A ", fmt_shape(as), " and B ", fmt_shape(bs), " do not multiply");
    Expr a2 = as.size() == 2 ? a : reshape(a, {-1, as.back()});
    Expr y = nn::dense(a2, transpose(b, {1, 0}));
    if (as.size() != 2) {
      Shape o = as;
      o.back() = bs[1];
      y = reshape(y, o);
    }
    set_out(0, y);
  }
  void op_flatten_graph() {
    only_outputs(1);
    Expr x = in(0);
    Shape s = x->type().shape;
    int64_t ax = flatten_axis(s);
    int64_t p = 1, q = 1;
    for (int64_t k = 0; k < int64_t(s.size()); ++k) (k < ax ? p : q) *= s[k];
    set_out(0, reshape(x, {p, q}));
  }
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
  void op_split() {
    Expr x = in(0);
    Shape s = x->type().shape;
    int64_t ax = norm_axis(geti("axis", 0), int64_t(s.size()), "axis");
    Shape sizes;
    if (auto v = getints("split"))
      sizes = *v;
    else if (opset_ >= 13 && has_input(1))
      sizes = cints(1, "split");
    int64_t nout = n_->output_size();
    if (has("num_outputs")) {
      int64_t no = geti("num_outputs", 0);
      if (no != nout)
        fail("attribute 'num_outputs' = ", no, " but the node has ", nout, " outputs");
    }
    if (sizes.empty()) {
      // ceil-sized parts, the last one smaller (opset 18); equal parts when they divide
      int64_t part = (s[ax] + nout - 1) / nout;
      for (int64_t k = 0; k < nout; ++k) sizes.push_back(std::min(part, s[ax] - k * part));
    }
    if (int64_t(sizes.size()) != nout)
      fail("split has ", sizes.size(), " sizes for ", nout, " outputs");
    int64_t total = 0;
    Shape idx;
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] < 0) fail("split size ", sizes[k], " is negative");
      total += sizes[k];
      if (k + 1 < sizes.size()) idx.push_back(total);
    }
    if (total != s[ax]) fail("split sizes add up to ", total, ", axis ", ax, " has ", s[ax]);
    Expr t = split_at(x, idx, int(ax));
    for (int64_t k = 0; k < nout; ++k) set_out(int(k), tuple_get_item(t, int(k)));
  }
  void op_softmax() {
    only_outputs(1);
    Expr x = in(0);
    Shape s = x->type().shape;
    int64_t r = int64_t(s.size());
    int64_t ax = norm_axis(geti("axis", opset_ >= 13 ? -1 : 1), r, "axis");
    if (opset_ >= 13 || ax == r - 1) return set_out(0, nn::softmax(x, int(ax)));
    // opset < 13: softmax over the flattened dims [axis, rank)
    int64_t p = 1, q = 1;
    for (int64_t k = 0; k < r; ++k) (k < ax ? p : q) *= s[k];
    set_out(0, reshape(nn::softmax(reshape(x, {p, q}), -1), s));
  }
  void op_reduce_mean() {
    only_outputs(1);
    Expr x = in(0);
    int64_t r = int64_t(x->type().shape.size());
    Shape axes = opset_ >= 18 ? (has_input(1) ? cints(1, "axes") : Shape{})
                              : (getints("axes") ? *getints("axes") : Shape{});
    int64_t keep = geti("keepdims", 1);
    if (keep != 0 && keep != 1) fail("attribute 'keepdims' = ", keep, " must be 0 or 1");
    if (axes.empty() && geti("noop_with_empty_axes", 0)) return set_out(0, x);
    for (auto& a : axes) a = norm_axis(a, r, "axis");
    set_out(0, mean(x, axes, keep != 0));
  }
  void op_dropout() {
    only_outputs(1);
    if (has_input(2)) {
      double t = cscalar(2, "training_mode");
      if (t != 0) fail("training_mode = true is not supported (inference only)");
    }
    set_out(0, in(0));
  }
  void op_pad() {
    only_outputs(1);
    Expr x = in(0);
    Shape s = x->type().shape;
    int64_t r = int64_t(s.size());
    std::string mode = gets("mode", "constant");
    if (mode != "constant")
      fail("attribute 'mode' = '", mode, "' is not supported (only constant)");
    Shape pads;
    double value = 0;
    if (opset_ < 11) {
      auto p = getints("pads");
      check(p.has_value(), "attribute 'pads' is required (opset < 11)");
      pads = *p;
      value = getf("value", 0.0);
    } else {
      pads = cints(1, "pads");
      if (has_input(2)) value = cscalar(2, "constant_value");
    }
    Shape axes;
    if (has_input(3))
      axes = cints(3, "axes");
    else
      for (int64_t k = 0; k < r; ++k) axes.push_back(k);
    if (pads.size() != 2 * axes.size())
      fail("pads has ", pads.size(), " values for ", axes.size(), " axes");
    std::vector<std::pair<int64_t, int64_t> > pw(r, {0, 0});
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t ax = norm_axis(axes[k], r, "axis");
      int64_t b = pads[k], e = pads[k + axes.size()];
      if (b < 0 || e < 0) fail("negative pads (cropping) are not supported: ", b, ", ", e);
      pw[ax] = {b, e};
    }
    set_out(0, nn::pad(x, pw, value));
  }
  void op_unsqueeze_graph() {
    only_outputs(1);
    Expr x = in(0);
    set_out(0, reshape(x, unsqueeze_shape(x->type().shape)));
  }
  void op_slice_graph() {
    only_outputs(1);
    Expr x = in(0);
    Shape s = x->type().shape;
    auto sl = slice_params(s);
    Expr y = x;
    for (size_t d = 0; d < s.size(); ++d) {
      if (sl.out[d] == s[d] && sl.step[d] == 1) continue;
      if (sl.step[d] != 1)
        fail("steps other than 1 on a graph tensor are not supported (axis ", d, " step ",
             sl.step[d], ")");
      if (sl.out[d] == 0) fail("an empty slice on axis ", d, " is not supported");
      Shape pts;
      int64_t b = sl.start[d], e = sl.start[d] + sl.out[d];
      int part = 0;
      if (b > 0) pts.push_back(b), part = 1;
      if (e < s[d]) pts.push_back(e);
      y = tuple_get_item(split_at(y, pts, int(d)), part);
    }
    set_out(0, y);
  }
  void op_gather_graph() {
    only_outputs(1);
    Expr x = in(0);
    Shape s = x->type().shape;
    int64_t ax = norm_axis(geti("axis", 0), int64_t(s.size()), "axis");
    const Const& ind = cin(1, "indices");
    if (!ind.is_int) fail("indices must be integers");
    if (ind.numel() != 1 || ind.shape.size() > 1)
      fail("only a single (scalar or 1-element) index is supported on a graph tensor, got indices ",
           fmt_shape(ind.shape));
    int64_t t = ind.i[0];
    if (t < -s[ax] || t >= s[ax])
      fail("index ", t, " is out of range for axis ", ax, " of size ", s[ax]);
    if (t < 0) t += s[ax];
    Shape pts;
    int part = 0;
    if (t > 0) pts.push_back(t), part = 1;
    if (t + 1 < s[ax]) pts.push_back(t + 1);
    Expr y = pts.empty() ? x : tuple_get_item(split_at(x, pts, int(ax)), part);
    if (ind.shape.empty()) y = squeeze(y, {ax});
    set_out(0, y);
  }
  void op_lrn() {
    only_outputs(1);
    Expr x = in(0);
    if (x->type().shape.size() < 2)
      fail("data must have rank >= 2 (N, C, ...), got ", fmt_shape(x->type().shape));
    check(has("size"), "attribute 'size' is required");
    int64_t size = geti("size", 0);
    if (size < 1) fail("attribute 'size' = ", size, " must be >= 1");
    double alpha = getf("alpha", 1e-4), beta = getf("beta", 0.75), bias = getf("bias", 1.0);
    if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias))
      fail("alpha, beta and bias must be finite");
    set_out(0, nn::lrn(x, size, 1, bias, alpha, beta));
  }
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

}  // namespace

Imported from_onnx_bytes(const std::string& bytes, const ShapeDict& shapes) {
  ::onnx::ModelProto m;
  MINITVM_USER_CHECK(m.ParseFromString(bytes)) << "from_onnx: the bytes are not an ONNX ModelProto";
  return Importer(m, shapes).run();
}

namespace {
::onnx::ModelProto read_model(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  MINITVM_USER_CHECK(f.good()) << "from_onnx: cannot open " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  ::onnx::ModelProto m;
  MINITVM_USER_CHECK(m.ParseFromString(ss.str()) && m.has_graph())
      << "from_onnx: " << path << " is not an ONNX ModelProto";
  return m;
}
}  // namespace

std::vector<OnnxInput> onnx_graph_inputs(const std::string& path) {
  ::onnx::ModelProto m = read_model(path);
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<OnnxInput> r;
  for (const auto& in : m.graph().input()) {
    if (inits.count(in.name())) continue;
    OnnxInput o;
    o.name = in.name();
    const auto& tt = in.type().tensor_type();
    o.has_shape = tt.has_shape();
    for (const auto& d : tt.shape().dim())
      o.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
    r.push_back(std::move(o));
  }
  return r;
}

Imported from_onnx(const std::string& path, const ShapeDict& shapes) {
  ::onnx::ModelProto m = read_model(path);
  try {
    return Importer(m, shapes).run();
  } catch (const CompileError& e) {
    throw CompileError(path + ": " + e.what());
  }
}

std::vector<std::string> onnx_supported_ops() {
  std::vector<std::string> r;
  for (auto& [k, v] : op_attrs()) r.push_back(k);
  return r;
}

#endif  // MINITVM_HAVE_ONNX

}  // namespace minitvm::relay::frontend
