// frontend::onnx: ONNX model and TensorProto loading through libonnx-dev's protobuf classes, the
// node -> PoolPlan mapping, and the node-test runner. Compiled to stubs without MINITVM_HAVE_ONNX.
#include "minitvm/frontend/onnx_loader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "minitvm/support/checked_math.h"
#include "frontend/onnx_external_data.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace minitvm {
namespace frontend {

using topi::PoolPlan;

namespace onnx {

#ifndef MINITVM_HAVE_ONNX

namespace {
[[noreturn]] void no_onnx() {
  throw CompileError(
      "frontend::onnx: minitvm was built without ONNX support (libonnx-dev and protobuf; see "
      "cmake/onnx.cmake)");
}
}  // namespace

bool available() {
  return false;
}
Model load_model(const std::string&) {
  no_onnx();
}
HostArray load_tensor(const std::string&) {
  no_onnx();
}
std::vector<HostArray> run_model(const Model&, const std::vector<HostArray>&, PoolExecutor&) {
  no_onnx();
}
NodeTestResult run_node_test(const std::string& dir, PoolExecutor&) {
  NodeTestResult r;
  r.dir = dir;
  r.failures.push_back(dir + ": built without ONNX support");
  return r;
}

#else

namespace {

namespace fs = std::filesystem;

DataType dtype_of(int32_t t, const std::string& what) {
  switch (t) {
    case ::onnx::TensorProto_DataType_FLOAT:
      return DataType::Float(32);
    case ::onnx::TensorProto_DataType_DOUBLE:
      return DataType::Float(64);
    case ::onnx::TensorProto_DataType_FLOAT16:
      return DataType::Float(16);
    case ::onnx::TensorProto_DataType_BFLOAT16:
      return DataType::BFloat(16);
    case ::onnx::TensorProto_DataType_INT64:
      return DataType::Int(64);
    case ::onnx::TensorProto_DataType_INT32:
      return DataType::Int(32);
    case ::onnx::TensorProto_DataType_INT8:
      return DataType::Int(8);
    case ::onnx::TensorProto_DataType_UINT8:
      return DataType::UInt(8);
    default:
      break;
  }
  MINITVM_USER_ERROR << "frontend::onnx: " << what << " has unsupported element type " << t;
  return {};
}

HostArray tensor_from_proto(const ::onnx::TensorProto& t) {
  const std::string what = "frontend::onnx: tensor '" + t.name() + "'";
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  DataType dt = dtype_of(t.data_type(), "tensor '" + t.name() + "'");
  // Everything is checked against the data present before anything is allocated: a few bytes of
  // dims must not make the loader allocate gigabytes.
  for (size_t i = 0; i < shape.size(); ++i)
    MINITVM_USER_CHECK(shape[i] >= 0)
        << what << ": dims[" << i << "] = " << shape[i] << " is negative";
  std::optional<int64_t> numel = checked_product(shape);
  MINITVM_USER_CHECK(numel) << what << ": the product of its dims overflows int64";
  MINITVM_USER_CHECK(!is_external(t))
      << what << " keeps its data in the external file '" << external_location(t)
      << "' (external data is not supported here)";
  if (!t.raw_data().empty()) {
    std::optional<int64_t> bytes = checked_mul(*numel, dt.bytes());
    MINITVM_USER_CHECK(bytes && static_cast<uint64_t>(*bytes) == t.raw_data().size())
        << what << " raw_data has " << t.raw_data().size() << " bytes, its dims need " << *numel
        << " elements of " << dt.bytes() << " bytes";
    HostArray a(dt, shape);
    std::memcpy(a.raw(), t.raw_data().data(), a.nbytes());
    return a;
  }
  auto fill = [&](const auto& field) {
    MINITVM_USER_CHECK(static_cast<int64_t>(field.size()) == *numel)
        << what << " holds " << field.size() << " values for " << *numel << " elements";
    HostArray a(dt, shape);
    for (int64_t i = 0; i < a.numel(); ++i) {
      auto v = field.Get(static_cast<int>(i));
      if constexpr (std::is_integral_v<decltype(v)>) {
        if (dt.bits() < 64) {  // int8/uint8 values travel in int32_data
          int64_t lo = dt.is_int() ? -(int64_t{1} << (dt.bits() - 1)) : 0;
          int64_t hi =
              dt.is_int() ? (int64_t{1} << (dt.bits() - 1)) - 1 : (int64_t{1} << dt.bits()) - 1;
          MINITVM_USER_CHECK(v >= lo && v <= hi)
              << what << ": value " << v << " at element " << i << " does not fit in " << dt.str();
        }
        a.set_int(i, static_cast<int64_t>(v));
      } else {
        a.set(i, static_cast<double>(v));
      }
    }
    return a;
  };
  if (dt == DataType::Float(32)) return fill(t.float_data());
  if (dt == DataType::Float(64)) return fill(t.double_data());
  if (dt == DataType::Int(64)) return fill(t.int64_data());
  if (dt == DataType::Int(32) || dt == DataType::Int(8) || dt == DataType::UInt(8))
    return fill(t.int32_data());
  MINITVM_USER_ERROR << what << " of " << dt.str() << " needs raw_data";
  return {};
}

ValueInfo value_info(const ::onnx::ValueInfoProto& v) {
  ValueInfo info;
  info.name = v.name();
  const auto& tt = v.type().tensor_type();
  info.dtype = dtype_of(tt.elem_type(), "graph value '" + v.name() + "'");
  for (const auto& d : tt.shape().dim())
    info.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return info;
}

std::string node_label(const ::onnx::NodeProto& n, int index) {
  return "node '" + (n.name().empty() ? "#" + std::to_string(index) : n.name()) + "' (" +
         n.op_type() + ")";
}

const std::map<std::string, std::set<std::string> >& allowed_attributes() {
  static const std::map<std::string, std::set<std::string> > m = {
      {"MaxPool",
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"}},
      {"AveragePool",
       {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads",
        "strides"}},
      {"LpPool", {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"}},
      {"GlobalMaxPool", {}},
      {"GlobalAveragePool", {}},
      {"GlobalLpPool", {"p"}},
      {"MaxUnpool", {"kernel_shape", "pads", "strides"}},
  };
  return m;
}

// How many inputs and outputs each supported operator takes (ONNX operator schemas; optional
// ones may be given as ""). A node outside these bounds is refused when it is loaded, before
// anything indexes its input or output lists.
struct Arity {
  int min_in, max_in, min_out, max_out;
};
const std::map<std::string, Arity>& op_arity() {
  static const std::map<std::string, Arity> m = {
      {"MaxPool", {1, 1, 1, 2}},
      {"AveragePool", {1, 1, 1, 1}},
      {"LpPool", {1, 1, 1, 1}},
      {"GlobalMaxPool", {1, 1, 1, 1}},
      {"GlobalAveragePool", {1, 1, 1, 1}},
      {"GlobalLpPool", {1, 1, 1, 1}},
      {"MaxUnpool", {2, 3, 1, 1}},
      {"Conv", {2, 3, 1, 1}},
      {"Gemm", {2, 3, 1, 1}},
      {"Relu", {1, 1, 1, 1}},
      {"Add", {2, 2, 1, 1}},
      {"Flatten", {1, 1, 1, 1}},
      {"BatchNormalization", {5, 5, 1, 3}},
  };
  return m;
}

std::string count(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string range(const char* what, int lo, int hi) {
  return lo == hi ? count(lo, what) : std::to_string(lo) + " to " + count(hi, what);
}

// The node's input and output counts against its operator's schema; `label` names the node.
void check_arity(const std::string& label, const std::string& op_type,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  auto it = op_arity().find(op_type);
  MINITVM_ICHECK(it != op_arity().end()) << "no arity for " << op_type;
  const Arity& a = it->second;
  const int ni = static_cast<int>(inputs.size()), no = static_cast<int>(outputs.size());
  MINITVM_USER_CHECK(ni >= a.min_in && ni <= a.max_in)
      << "frontend::onnx: " << label << ": takes " << range("input", a.min_in, a.max_in) << ", got "
      << ni;
  MINITVM_USER_CHECK(no >= a.min_out && no <= a.max_out)
      << "frontend::onnx: " << label << ": has " << range("output", a.min_out, a.max_out)
      << ", got " << no;
  for (int k = 0; k < a.min_in; ++k)
    MINITVM_USER_CHECK(!inputs[k].empty())
        << "frontend::onnx: " << label << ": input " << k << " is required";
  MINITVM_USER_CHECK(!outputs[0].empty())
      << "frontend::onnx: " << label << ": output 0 has no name";
}

// Tensor ops (onnx_ops.h): attributes kept by kind for run_tensor_op.
Node parse_tensor_op_node(const ::onnx::NodeProto& n, int index, const std::string& label) {
  Node node;
  node.name = n.name().empty() ? "#" + std::to_string(index) : n.name();
  node.op_type = n.op_type();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  check_arity(label, node.op_type, node.inputs, node.outputs);
  const auto& allowed = tensor_op_attribute_names(n.op_type());
  for (const auto& at : n.attribute()) {
    const std::string& k = at.name();
    MINITVM_USER_CHECK(allowed.count(k))
        << "frontend::onnx: " << label << ": unsupported attribute '" << k << "'";
    switch (at.type()) {
      case ::onnx::AttributeProto_AttributeType_INT:
        node.op_attrs.ints[k] = at.i();
        break;
      case ::onnx::AttributeProto_AttributeType_FLOAT:
        node.op_attrs.floats[k] = at.f();
        break;
      case ::onnx::AttributeProto_AttributeType_STRING:
        node.op_attrs.strings[k] = at.s();
        break;
      case ::onnx::AttributeProto_AttributeType_INTS:
        node.op_attrs.int_lists[k].assign(at.ints().begin(), at.ints().end());
        break;
      default:
        MINITVM_USER_ERROR << "frontend::onnx: " << label << ": attribute '" << k
                           << "' has an unsupported type";
    }
  }
  return node;
}

Node parse_node(const ::onnx::NodeProto& n, int index) {
  const std::string label = node_label(n, index);
  if ((n.domain().empty() || n.domain() == "ai.onnx") && is_tensor_op(n.op_type()))
    return parse_tensor_op_node(n, index, label);
  auto it = allowed_attributes().find(n.op_type());
  MINITVM_USER_CHECK(it != allowed_attributes().end() &&
                     (n.domain().empty() || n.domain() == "ai.onnx"))
      << "frontend::onnx: " << label << ": unsupported operator '" << n.op_type() << "'"
      << (n.domain().empty() ? "" : " in domain '" + n.domain() + "'");
  Node node;
  node.name = n.name().empty() ? "#" + std::to_string(index) : n.name();
  node.op_type = n.op_type();
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  check_arity(label, node.op_type, node.inputs, node.outputs);
  OnnxPoolAttrs& a = node.attrs;
  a.op_type = n.op_type();
  a.node_name = node.name;
  for (const auto& at : n.attribute()) {
    const std::string& k = at.name();
    MINITVM_USER_CHECK(it->second.count(k))
        << "frontend::onnx: " << label << ": unsupported attribute '" << k << "'";
    auto ints = [&] {
      MINITVM_USER_CHECK(at.type() == ::onnx::AttributeProto_AttributeType_INTS)
          << "frontend::onnx: " << label << ": attribute '" << k << "' must be a list of ints";
      return std::vector<int64_t>(at.ints().begin(), at.ints().end());
    };
    auto one_int = [&] {
      MINITVM_USER_CHECK(at.type() == ::onnx::AttributeProto_AttributeType_INT)
          << "frontend::onnx: " << label << ": attribute '" << k << "' must be an int";
      return static_cast<int64_t>(at.i());
    };
    if (k == "auto_pad")
      a.auto_pad = at.s();
    else if (k == "kernel_shape")
      a.kernel_shape = ints();
    else if (k == "strides")
      a.strides = ints();
    else if (k == "pads")
      a.pads = ints();
    else if (k == "dilations")
      a.dilations = ints();
    else if (k == "ceil_mode")
      a.ceil_mode = one_int();
    else if (k == "count_include_pad")
      a.count_include_pad = one_int();
    else if (k == "storage_order")
      a.storage_order = one_int();
    else if (k == "p") {
      if (at.type() == ::onnx::AttributeProto_AttributeType_FLOAT) {  // LpPool-1 had a float p
        MINITVM_USER_CHECK(at.f() == std::floor(at.f()) && at.f() > 0)
            << "frontend::onnx: " << label << ": attribute 'p' = " << at.f()
            << " is not a positive integer";
        a.p = static_cast<int64_t>(at.f());
      } else {
        a.p = one_int();
      }
    }
  }
  a.want_indices = n.op_type() == "MaxPool" && node.outputs.size() > 1 && !node.outputs[1].empty();
  return node;
}

// ONNX MaxUnpool: zeros of the unpooled shape, then Y.flat[I[j]] = X[j]. Every attribute and
// shape is checked before it is used: kernel_shape/strides/pads against the spatial rank, their
// signs, the unpooled shape's arithmetic, and the explicit output_shape against the size limit.
HostArray max_unpool(const Node& n, const HostArray& x, const HostArray& idx,
                     const HostArray* out_shape) {
  const std::string label = "frontend::onnx: node '" + n.name + "' (MaxUnpool)";
  const auto& xs = x.shape();
  int rank = static_cast<int>(xs.size()) - 2;
  MINITVM_USER_CHECK(rank >= 1) << label << ": input X must have rank >= 3, got " << xs.size();
  const OnnxPoolAttrs& at = n.attrs;
  MINITVM_USER_CHECK(static_cast<int>(at.kernel_shape.size()) == rank)
      << label << ": attribute 'kernel_shape' must have " << rank << " values, got "
      << at.kernel_shape.size();
  MINITVM_USER_CHECK(at.strides.empty() || static_cast<int>(at.strides.size()) == rank)
      << label << ": attribute 'strides' must have " << rank << " values, got "
      << at.strides.size();
  MINITVM_USER_CHECK(at.pads.empty() || static_cast<int>(at.pads.size()) == 2 * rank)
      << label << ": attribute 'pads' must have " << 2 * rank << " values, got " << at.pads.size();
  MINITVM_USER_CHECK(idx.dtype() == DataType::Int(64))
      << label << ": input I must be int64, got " << idx.dtype().str();
  MINITVM_USER_CHECK(idx.shape() == xs) << label << ": inputs I and X must have the same shape";
  // Indices address the inferred unpooled shape; an explicit output_shape keeps each element's
  // coordinates (ONNX's with_output_shape node test places them top-left in the larger output).
  std::vector<int64_t> inferred = {xs[0], xs[1]};
  for (int i = 0; i < rank; ++i) {
    int64_t k = at.kernel_shape[i];
    int64_t s = at.strides.empty() ? 1 : at.strides[i];
    int64_t pb = at.pads.empty() ? 0 : at.pads[i];
    int64_t pe = at.pads.empty() ? 0 : at.pads[rank + i];
    MINITVM_USER_CHECK(k > 0) << label << ": attribute 'kernel_shape' must be positive, got " << k;
    MINITVM_USER_CHECK(s > 0) << label << ": attribute 'strides' must be positive, got " << s;
    MINITVM_USER_CHECK(pb >= 0 && pe >= 0)
        << label << ": attribute 'pads' must be non-negative, got " << (pb < 0 ? pb : pe);
    // (in - 1) * stride - pads + kernel, without overflow
    std::optional<int64_t> len = checked_mul(xs[2 + i] - 1, s);
    if (len) len = checked_add(*len, k);
    if (len) len = checked_sub(*len, pb);
    if (len) len = checked_sub(*len, pe);
    MINITVM_USER_CHECK(len) << label << ": the unpooled length of axis " << i << " overflows int64";
    MINITVM_USER_CHECK(*len > 0) << label << ": the unpooled length of axis " << i << " is " << *len
                                 << " (attribute 'pads' removes the whole axis)";
    inferred.push_back(*len);
  }
  std::optional<int64_t> inferred_numel = checked_product(inferred);
  const int64_t allowance = pool_output_allowance(x.numel());
  MINITVM_USER_CHECK(inferred_numel && *inferred_numel <= allowance)
      << label << ": the unpooled shape would hold more than " << allowance << " elements for "
      << x.numel() << " input elements (at most " << kPoolOutputRatio << " times X, or "
      << kPoolOutputBudget << ")";
  std::vector<int64_t> shape = inferred;
  if (out_shape) {
    MINITVM_USER_CHECK(out_shape->dtype().is_integral())
        << label << ": input output_shape must be an integer tensor, got "
        << out_shape->dtype().str();
    shape.clear();
    for (int64_t i = 0; i < out_shape->numel() && i <= static_cast<int64_t>(inferred.size()); ++i)
      shape.push_back(out_shape->get_int(i));
    MINITVM_USER_CHECK(out_shape->numel() == static_cast<int64_t>(inferred.size()))
        << label << ": output_shape has " << out_shape->numel() << " values, expected "
        << inferred.size();
    for (size_t d = 0; d < shape.size(); ++d)
      MINITVM_USER_CHECK(shape[d] >= 0)
          << label << ": output_shape[" << d << "] = " << shape[d] << " is negative";
    std::optional<int64_t> numel = checked_product(shape);
    MINITVM_USER_CHECK(numel && *numel <= allowance)
        << label << ": output_shape would hold more than " << allowance << " elements for "
        << x.numel() << " input elements (at most " << kPoolOutputRatio << " times X, or "
        << kPoolOutputBudget << ")";
  }
  auto remap = [&](int64_t flat) {
    int64_t out = 0, scale = 1;
    for (int d = static_cast<int>(inferred.size()) - 1; d >= 0; --d) {
      int64_t c = flat % inferred[d];
      flat /= inferred[d];
      MINITVM_USER_CHECK(c < shape[d])
          << label << ": output_shape is smaller than the unpooled shape at axis " << d;
      out += c * scale;
      scale *= shape[d];
    }
    return out;
  };
  HostArray y(x.dtype(), shape);
  for (int64_t j = 0; j < x.numel(); ++j) {
    int64_t i = idx.get_int(j);
    MINITVM_USER_CHECK(i >= 0 && i < *inferred_numel)
        << label << ": index " << i << " (element " << j << " of I) is outside the unpooled shape";
    y.set(remap(i), x.get(j));
  }
  return y;
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  MINITVM_USER_CHECK(fs::is_directory(dir, ec))
      << "frontend::onnx: " << dir.string() << " is not a directory";
  // input_10 after input_9: order by the number after the prefix (digits only, at most 9).
  std::vector<std::pair<long, fs::path> > files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) != 0) continue;
    std::string s = e.path().stem().string().substr(prefix.size());
    MINITVM_USER_CHECK(s.size() <= 9 &&
                       std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        << "frontend::onnx: " << e.path().string()
        << ": expected a number (at most 9 digits) after '" << prefix << "'";
    files.emplace_back(s.empty() ? 0L : std::stol(s), e.path());
  }
  MINITVM_USER_CHECK(!ec) << "frontend::onnx: cannot list " << dir.string() << ": " << ec.message();
  std::sort(files.begin(), files.end());
  std::vector<fs::path> out;
  for (auto& f : files) out.push_back(std::move(f.second));
  return out;
}

}  // namespace

bool available() {
  return true;
}

Model load_model(const std::string& path) {
  ::onnx::ModelProto proto;
  std::ifstream in(path, std::ios::binary);
  MINITVM_USER_CHECK(in.good()) << "frontend::onnx: cannot open model " << path;
  MINITVM_USER_CHECK(proto.ParseFromIstream(&in))
      << "frontend::onnx: " << path << " is not an ONNX ModelProto";
  Model m;
  for (const auto& o : proto.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") m.opset = o.version();
  const auto& g = proto.graph();
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  MINITVM_USER_CHECK(g.initializer_size() == 0)
      << "frontend::onnx: " << path
      << ": graph initializers are not supported (pooling graphs have none)";
  for (const auto& v : g.input())
    if (!inits.count(v.name())) m.inputs.push_back(value_info(v));
  for (const auto& v : g.output()) m.outputs.push_back(value_info(v));
  for (int i = 0; i < g.node_size(); ++i) m.nodes.push_back(parse_node(g.node(i), i));
  return m;
}

HostArray load_tensor(const std::string& path) {
  ::onnx::TensorProto t;
  std::ifstream in(path, std::ios::binary);
  MINITVM_USER_CHECK(in.good()) << "frontend::onnx: cannot open tensor " << path;
  MINITVM_USER_CHECK(t.ParseFromIstream(&in))
      << "frontend::onnx: " << path << " is not a TensorProto";
  return tensor_from_proto(t);
}

std::vector<HostArray> run_model(const Model& model, const std::vector<HostArray>& inputs,
                                 PoolExecutor& exec) {
  MINITVM_USER_CHECK(inputs.size() == model.inputs.size())
      << "frontend::onnx: the model has " << model.inputs.size() << " inputs, " << inputs.size()
      << " given";
  std::map<std::string, HostArray> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[model.inputs[i].name] = inputs[i];
  auto get = [&](const Node& n, size_t k) -> const HostArray& {
    MINITVM_USER_CHECK(k < n.inputs.size() && values.count(n.inputs[k]))
        << "frontend::onnx: node '" << n.name << "' (" << n.op_type << "): input " << k
        << " is not available";
    return values.at(n.inputs[k]);
  };
  for (const Node& n : model.nodes) {
    // Models may be built in memory too: the same arity checks as load_model.
    const std::string label = "node '" + n.name + "' (" + n.op_type + ")";
    MINITVM_USER_CHECK(op_arity().count(n.op_type))
        << "frontend::onnx: " << label << ": unsupported operator";
    check_arity(label, n.op_type, n.inputs, n.outputs);
    if (is_tensor_op(n.op_type)) {
      std::vector<const HostArray*> ins;
      for (size_t k = 0; k < n.inputs.size(); ++k)
        ins.push_back(n.inputs[k].empty() ? nullptr : &get(n, k));
      auto outs = run_tensor_op(n.name, n.op_type, n.op_attrs, ins);
      for (size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) values[n.outputs[k]] = outs[k];
      continue;
    }
    if (n.op_type == "MaxUnpool") {
      const HostArray* shape = n.inputs.size() > 2 && !n.inputs[2].empty() ? &get(n, 2) : nullptr;
      values[n.outputs[0]] = max_unpool(n, get(n, 0), get(n, 1), shape);
      continue;
    }
    const HostArray& x = get(n, 0);
    PoolPlan plan = plan_onnx_pool(n.attrs, x.shape(), x.dtype());
    PoolForwardResult r = exec.forward(plan, x);
    values[n.outputs[0]] = r.output;
    if (plan.return_indices && n.outputs.size() > 1 && !n.outputs[1].empty())
      values[n.outputs[1]] = r.indices;
  }
  std::vector<HostArray> outs;
  for (const auto& o : model.outputs) {
    MINITVM_USER_CHECK(values.count(o.name))
        << "frontend::onnx: graph output '" << o.name << "' is never produced";
    outs.push_back(values.at(o.name));
  }
  return outs;
}

NodeTestResult run_node_test(const std::string& dir, PoolExecutor& exec) {
  NodeTestResult r;
  r.dir = dir;
  std::string name = fs::path(dir).filename().string();
  try {
    Model m = load_model((fs::path(dir) / "model.onnx").string());
    auto sets = sorted_files(dir, "test_data_set_");
    if (sets.empty()) r.failures.push_back(name + ": no test_data_set_* directory");
    for (const auto& set : sets) {
      std::vector<HostArray> ins, want;
      for (const auto& f : sorted_files(set, "input_")) ins.push_back(load_tensor(f.string()));
      for (const auto& f : sorted_files(set, "output_")) want.push_back(load_tensor(f.string()));
      std::vector<HostArray> got = run_model(m, ins, exec);
      std::string where = name + ": " + set.filename().string();
      if (got.size() != want.size()) {
        r.failures.push_back(where + ": " + std::to_string(got.size()) + " outputs, expected " +
                             std::to_string(want.size()));
        continue;
      }
      for (size_t k = 0; k < got.size(); ++k) {
        const HostArray &g = got[k], &w = want[k];
        std::string out = where + " output " + std::to_string(k);
        if (g.dtype() != w.dtype() || g.shape() != w.shape()) {
          r.failures.push_back(out + ": got " + g.dtype().str() + " of " +
                               std::to_string(g.shape().size()) + "-d shape, expected " +
                               w.dtype().str() + " (shape or dtype differs)");
          continue;
        }
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < g.numel(); ++i) {
          double a = g.get(i), b = w.get(i);
          bool ok = w.dtype().is_floating() ? ((std::isnan(a) && std::isnan(b)) || a == b ||
                                               std::abs(a - b) <= 1e-7 + 1e-3 * std::abs(b))
                                            : g.get_int(i) == w.get_int(i);
          if (!ok && bad++ == 0) first = i;
        }
        if (bad)
          r.failures.push_back(out + " differs at index " + std::to_string(first) + ": got " +
                               fmt(g.get(first)) + ", expected " + fmt(w.get(first)) + " (" +
                               std::to_string(bad) + " of " + std::to_string(g.numel()) +
                               " differ)");
      }
    }
  } catch (const std::exception& e) {
    r.failures.push_back(name + ": " + e.what());
  }
  r.passed = r.failures.empty();
  return r;
}

#endif  // MINITVM_HAVE_ONNX

}  // namespace onnx
}  // namespace frontend
}  // namespace minitvm
