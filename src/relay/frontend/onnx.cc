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

#include "frontend/onnx_external_data.h"
#include "relay/frontend/onnx_importer.h"

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

namespace onnx_detail {

Const make_ints(Shape shape, std::vector<int64_t> v) {
  Const c;
  c.shape = std::move(shape);
  c.is_int = true;
  c.i = std::move(v);
  return c;
}

Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (int k = int(s.size()) - 2; k >= 0; --k) st[k] = st[k + 1] * s[k + 1];
  return st;
}

const std::map<std::string, std::set<std::string> >& op_attrs() {
  static const std::map<std::string, std::set<std::string> > m{
      {"Conv", {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"ConvTranspose",
       {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads",
        "strides"}},
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
      {"LogSoftmax", {"axis"}},
      {"Tile", {}},
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
      {"Resize",
       {"antialias", "axes", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
        "extrapolation_value", "keep_aspect_ratio_policy", "mode", "nearest_mode"}},
      {"Upsample", {"mode", "scales"}},
      {"Tanh", {}},
      {"Exp", {}},
      {"Log", {}},
      {"Erf", {}},
      {"Abs", {}},
      {"Neg", {}},
      {"Sqrt", {}},
      {"Floor", {}},
      {"Ceil", {}},
      {"Reciprocal", {}},
      {"LeakyRelu", {"alpha"}},
      {"Elu", {"alpha"}},
      {"Selu", {"alpha", "gamma"}},
      {"Softplus", {}},
      {"PRelu", {}},
      {"Pow", {}},
      {"Max", {}},
      {"Min", {}},
      {"Sum", {}},
      {"Mean", {}},
      {"LayerNormalization", {"axis", "epsilon", "stash_type"}},
      {"Expand", {}},
      {"InstanceNormalization", {"epsilon"}},
      {"Gelu", {"approximate"}},
      {"Mish", {}},
      {"Softsign", {}},
      {"Celu", {"alpha"}},
      {"ReduceSum", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMax", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMin", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceProd", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceL1", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceL2", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceSumSquare", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceLogSum", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceLogSumExp", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"Size", {}},
      {"ConstantOfShape", {"value"}},
      {"Equal", {}},
      {"Less", {}},
      {"Greater", {}},
      {"LessOrEqual", {}},
      {"GreaterOrEqual", {}},
      {"Not", {}},
      {"And", {}},
      {"Or", {}},
      {"Xor", {}},
      {"Where", {}},
      {"Mod", {"fmod"}},
      {"Range", {}},
      {"ScatterND", {"reduction"}},
      {"Einsum", {"equation"}},
      {"GatherND", {"batch_dims"}},
  };
  return m;
}

// Ops evaluated at import when every input is a constant.
const std::set<std::string>& foldable() {
  static const std::set<std::string> s{
      "Add",     "Sub",   "Mul",     "Div",         "Concat",         "Gather",    "Unsqueeze",
      "Squeeze", "Slice", "Cast",    "Reshape",     "Identity",       "Flatten",   "Transpose",
      "Equal",   "Less",  "Greater", "LessOrEqual", "GreaterOrEqual", "Not",       "And",
      "Or",      "Xor",   "Where",   "Mod",         "Range",          "ScatterND", "Neg",
      "Abs",     "Sqrt",  "Floor",   "Ceil",        "Reciprocal",     "Pow",       "Max",
      "Min"};
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
  MINITVM_USER_CHECK(!::minitvm::frontend::is_external(t))
      << what << " keeps its data in the external file '"
      << ::minitvm::frontend::external_location(t)
      << "'; import the model from its path (from_onnx) so that the file can be read";
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

Imported Importer::run() {
  for (const auto& op : model_.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = op.version();
  MINITVM_USER_CHECK(opset_ > 0)
      << "from_onnx: the model declares no opset for the default ONNX domain";
  const auto& g = model_.graph();
  std::set<std::string> init_names;
  for (const auto& t : g.initializer()) {
    MINITVM_USER_CHECK(!t.name().empty()) << "from_onnx: an initializer has no name";
    MINITVM_USER_CHECK(!init_names.count(t.name()))
        << "from_onnx: two initializers are named '" << t.name() << "'";
    Value v;
    v.c = const_from_proto(t, "from_onnx: initializer '" + t.name() + "'");
    v.param = !v.c->is_int;
    values_[t.name()] = std::move(v);
    init_names.insert(t.name());
  }
  std::set<std::string> input_names;
  for (const auto& in : g.input()) {
    if (init_names.count(in.name())) continue;
    MINITVM_USER_CHECK(!in.name().empty()) << "from_onnx: a graph input has no name";
    // Two Vars of one name would take one value by name in one executor and two in another.
    MINITVM_USER_CHECK(input_names.insert(in.name()).second)
        << "from_onnx: graph input '" << in.name() << "' is declared twice";
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
        MINITVM_USER_CHECK(agree) << "from_onnx: the shape given for input '" << in.name() << "' "
                                  << fmt_shape(s) << " disagrees with the model's "
                                  << fmt_shape(model_shape);
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

Expr Importer::tensor(const std::string& name, const std::string& what) {
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

void Importer::convert(const ::onnx::NodeProto& n, int idx) {
  n_ = &n;
  lift1d_ = false;
  spatial_rank_ = 2;
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
  // ONNX graphs are in SSA form: a name is defined once (graph input, initializer or one output).
  for (int k = 0; k < n.output_size(); ++k)
    for (int j = 0; j < k; ++j)
      if (!n.output(k).empty() && n.output(k) == n.output(j))
        fail("outputs ", j, " and ", k, " are both named '", n.output(k), "'");
  for (const auto& o : n.output())
    if (!o.empty() && values_.count(o))
      fail("output '", o,
           "' is already defined (by a graph input, an initializer or an earlier "
           "node); ONNX names are assigned once");
  const std::string& op = n.op_type();
  if (op == "Constant") return op_constant();
  if (op == "Shape") return op_shape();
  if (op == "Size") return op_size();
  if (op == "ConstantOfShape") return op_constant_of_shape();
  bool all_const = n.input_size() > 0;
  for (int k = 0; k < n.input_size(); ++k)
    if (has_input(k) && !is_const(k)) all_const = false;
  if (all_const && foldable().count(op)) return fold(op);
  // Ops on integer/bool tensors (shape logic, masks) exist only as import-time constants.
  static const std::set<std::string> const_only{
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not",      "And",
      "Or",    "Xor",  "Where",   "Mod",         "Range",          "ScatterND"};
  if (const_only.count(op)) {
    for (int k = 0; k < n.input_size(); ++k)
      if (has_input(k)) cin(k, "input (" + op + " is evaluated at import only)");
  }
  if (op == "Conv") return op_conv();
  if (op == "ConvTranspose") return op_conv_transpose();
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
  if (op == "Einsum") return op_einsum();
  if (op == "GatherND") return op_gather_nd();
  if (op == "Flatten") return op_flatten_graph();
  if (op == "Reshape")
    return only_outputs(1), set_out(0, reshape(in(0), reshape_target(shape_of(0))));
  if (op == "Transpose") return op_transpose();
  if (op == "Concat") return op_concat();
  if (op == "Split") return op_split();
  if (op == "Softmax" || op == "LogSoftmax") return op_softmax(op == "LogSoftmax");
  if (op == "Tile") return op_tile();
  if (op.rfind("Reduce", 0) == 0) return op_reduce(op);
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
  if (op == "Resize" || op == "Upsample") return op_resize(op == "Upsample");
  if (op == "Tanh" || op == "Exp" || op == "Log" || op == "Erf" || op == "Abs" || op == "Neg" ||
      op == "Sqrt" || op == "Floor" || op == "Ceil" || op == "Reciprocal" || op == "Softplus")
    return op_unary(op);
  if (op == "LeakyRelu" || op == "Elu" || op == "Selu" || op == "PRelu") return op_rectifier(op);
  if (op == "Pow") return op_pow();
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") return op_variadic(op);
  if (op == "LayerNormalization") return op_layer_norm();
  if (op == "Expand") return op_expand();
  if (op == "InstanceNormalization") return op_instance_norm();
  if (op == "Gelu" || op == "Mish" || op == "Softsign" || op == "Celu") return op_smooth(op);
  fail("op ", op, " is not supported");  // listed but not mapped
}

Shape Importer::padding(const Shape& in_hw, const Shape& k, const Shape& s, const Shape& dil) {
  std::string ap = gets("auto_pad", "NOTSET");
  const size_t n = in_hw.size();
  Shape p(2 * n, 0);
  if (ap == "NOTSET") {
    if (auto v = getints("pads")) {
      if (lift1d_ && v->size() == 2) v = Shape{0, (*v)[0], 0, (*v)[1]};
      if (v->size() != 2 * n)
        fail("attribute 'pads' has ", v->size(), " values; expected ", 2 * n, " (", n, "-D)");
      for (auto x : *v)
        if (x < 0) fail("attribute 'pads' has a negative value ", x);
      p = *v;
    }
  } else if (ap == "VALID") {
    check(!has("pads"), "attributes 'pads' and auto_pad = VALID cannot both be given");
  } else if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    check(!has("pads"), "attributes 'pads' and auto_pad = " + ap + " cannot both be given");
    for (size_t i = 0; i < n; ++i) {
      int64_t out = (in_hw[i] + s[i] - 1) / s[i];
      int64_t ek = (k[i] - 1) * dil[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + ek - in_hw[i]);
      int64_t small = total / 2, big = total - small;
      p[i] = ap == "SAME_UPPER" ? small : big;
      p[i + n] = ap == "SAME_UPPER" ? big : small;
    }
  } else {
    fail("attribute 'auto_pad' = '", ap, "' is not supported");
  }
  return p;
}

void Importer::legacy_broadcast(const Shape& as, Expr& b) {
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

}  // namespace onnx_detail

using namespace onnx_detail;

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
    ::minitvm::frontend::load_external_data(m, path);
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
