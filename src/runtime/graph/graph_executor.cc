// The graph executor: storage planning by storage_id, prepared node closures, inputs/outputs and
// params (see include/minitvm/runtime/graph_executor.h; the JSON reader is graph_json.cc).
#include "minitvm/runtime/graph_executor.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "minitvm/runtime/cuda.h"
#include "minitvm/support/error.h"
#include "runtime/graph/graph_internal.h"
#include "runtime/prepared_call.h"

namespace minitvm::runtime {

namespace {
std::string node_label(size_t i, const std::string& name) {
  return "node " + std::to_string(i) + (name.empty() ? std::string() : " '" + name + "'");
}

struct ViewCtx {
  NDArray base;
  std::vector<int64_t> shape;
  DLManagedTensor tensor;
};

NDArray make_view(const NDArray& base, const std::vector<int64_t>& shape, DataType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  MINITVM_ICHECK(base.is_contiguous() && n * dtype.bytes() <= base.nbytes())
      << "view of " << describe_array(dtype, shape) << " does not fit in " << base.str();
  auto* ctx = new ViewCtx{base, shape, {}};
  DLTensor& t = ctx->tensor.dl_tensor;
  t.data = base.data();
  t.device.device_type = base.device().is_cpu() ? kDLCPU : kDLCUDA;
  t.device.device_id = base.device().id;
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype.code =
      static_cast<uint8_t>(dtype.code());  // DataType codes are DLPack's; bool is (uint, 1)
  t.dtype.bits = static_cast<uint8_t>(dtype.bits());
  t.dtype.lanes = static_cast<uint16_t>(dtype.lanes());
  t.shape = ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  ctx->tensor.manager_ctx = ctx;
  ctx->tensor.deleter = [](DLManagedTensor* m) { delete static_cast<ViewCtx*>(m->manager_ctx); };
  return NDArray::from_dlpack(&ctx->tensor);
}

}  // namespace

std::function<void()> prepare_call(const Module& m, const std::string& name,
                                   const std::vector<ArgValue>& args) {
  if (auto* p = dynamic_cast<PreparedCallProvider*>(m.node())) {
    if (std::function<void()> call = p->prepare_call(name, args)) return call;
    m.get_function(name);  // throws, listing the functions the module has
  }
  PackedFunc f = m.get_function(name);
  return [f, args] { f.call(args); };
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe_array(DataType t, const std::vector<int64_t>& shape) {
  return t.str() + shape_str(shape);
}

// ---------------------------------------------------------------------------------------------
struct GraphExecutor::Impl {
  ParsedGraph g;
  Module lib;
  Device dev;
  std::vector<NDArray> pools;
  std::vector<NDArray> entries;  // one view per entry id
  std::vector<int> input_nodes;  // arg_nodes
  std::vector<std::string> input_names;
  std::vector<bool> input_is_param;
  std::map<std::string, int> input_index;
  std::vector<int64_t> output_entries;
  struct Op {
    int node = -1;
    std::function<void()> call;        // empty for __nop
    std::vector<int64_t> arg_entries;  // inputs then outputs
    std::string func;                  // kernels only: what set_input_zero_copy re-prepares
    std::vector<ArgValue> args;
    bool flatten = false;
  };
  std::vector<Op> ops;

  int64_t entry_id(int64_t node, int64_t index) const {
    return g.node_row_ptr[static_cast<size_t>(node)] + index;
  }

  void setup(const std::map<std::string, NDArray>& params) {
    // An empty Module is fine for a graph without kernels (its outputs are inputs or params).
    const std::string key = lib ? lib.type_key() : "";
    if (key == "cuda") {
      MINITVM_RUNTIME_CHECK(dev.is_cuda())
          << "GraphExecutor: the module is \"cuda\" and runs on a CUDA device, got " << dev;
    } else if (key == "llvm" || key == "cuda-emulator") {
      MINITVM_RUNTIME_CHECK(dev.is_cpu()) << "GraphExecutor: the module is \"" << key
                                          << "\" and runs on cpu (host arrays), got " << dev;
    }
    if (!g.device_index.empty()) {
      for (size_t e = 0; e < g.device_index.size(); ++e)
        MINITVM_RUNTIME_CHECK(g.device_index[e] == g.device_index[0])
            << "graph JSON: attrs.device_index differs between entries (" << g.device_index[0]
            << " and " << g.device_index[e] << " at entry " << e
            << "): heterogeneous graphs are not supported";
    }
    // Storage: pool size per storage id = max bytes over its entries (v0.6 SetupStorage).
    const size_t num_entries = g.shapes.size();
    std::vector<int64_t> pool_bytes;
    for (size_t e = 0; e < num_entries; ++e) {
      int64_t n = 1;
      for (int64_t d : g.shapes[e]) n *= d;
      const int64_t bytes = n * g.dtypes[e].bytes();
      const size_t sid = static_cast<size_t>(g.storage_ids[e]);
      if (sid >= pool_bytes.size()) pool_bytes.resize(sid + 1, -1);
      pool_bytes[sid] = std::max(pool_bytes[sid], bytes);
    }
    pools.resize(pool_bytes.size());
    for (size_t s = 0; s < pool_bytes.size(); ++s)
      if (pool_bytes[s] >= 0)
        pools[s] = NDArray::empty({(pool_bytes[s] + 3) / 4}, DataType::Float(32), dev);
    entries.resize(num_entries);
    for (size_t e = 0; e < num_entries; ++e)
      entries[e] =
          make_view(pools[static_cast<size_t>(g.storage_ids[e])], g.shapes[e], g.dtypes[e]);

    // Inputs.
    for (int64_t a : g.arg_nodes) {
      const int node = static_cast<int>(a);
      const std::string& name = g.nodes[static_cast<size_t>(node)].name;
      input_index.emplace(name, static_cast<int>(input_nodes.size()));
      input_nodes.push_back(node);
      input_names.push_back(name);
      input_is_param.push_back(false);
    }
    for (const auto& [name, value] : params) {
      auto it = input_index.find(name);
      MINITVM_RUNTIME_CHECK(it != input_index.end())
          << "GraphExecutor: parameter '" << name << "' is not an input of the graph";
      set_input(it->second, value,
                "GraphExecutor");  // "GraphExecutor::GraphExecutor('p0'): expected ..."
      input_is_param[static_cast<size_t>(it->second)] = true;
    }
    for (const GraphEntryRef& h : g.heads) output_entries.push_back(entry_id(h.node, h.index));

    // Node closures.
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const GraphNode& n = g.nodes[i];
      if (n.op == "null") continue;
      const std::string label = node_label(i, n.name);
      Op op;
      op.node = static_cast<int>(i);
      for (const GraphEntryRef& in : n.inputs)
        op.arg_entries.push_back(entry_id(in.node, in.index));
      for (int64_t k = 0; k < n.num_outputs; ++k)
        op.arg_entries.push_back(entry_id(static_cast<int64_t>(i), k));
      if (n.op != "tvm_op")
        throw RuntimeError("graph JSON: " + label + ": op '" + n.op +
                           "' is not supported (tvm_op or null)");
      if (auto a = n.attrs.find("num_inputs");
          a != n.attrs.end() && a->second != std::to_string(n.inputs.size()))
        throw RuntimeError("graph JSON: " + label + ": num_inputs = \"" + a->second +
                           "\" but the node has " + std::to_string(n.inputs.size()) + " inputs");
      auto fa = n.attrs.find("func_name");
      if (fa == n.attrs.end())
        throw RuntimeError("graph JSON: " + label + ": tvm_op without attr func_name");
      const std::string& func = fa->second;
      if (func == "__nop") {
        ops.push_back(std::move(op));
        continue;
      }
      if (func == "__copy") {
        MINITVM_RUNTIME_CHECK(n.inputs.size() == 1 && n.num_outputs == 1)
            << "graph JSON: " << label << ": __copy needs one input and one output";
        NDArray src = entries[static_cast<size_t>(op.arg_entries[0])];
        NDArray dst = entries[static_cast<size_t>(op.arg_entries[1])];
        MINITVM_RUNTIME_CHECK(src.nbytes() == dst.nbytes())
            << "graph JSON: " << label << ": __copy from " << src.str() << " to " << dst.str();
        if (dev.is_cpu()) {
          const size_t bytes = static_cast<size_t>(src.nbytes());
          op.call = [src, dst, bytes] { std::memmove(dst.data(), src.data(), bytes); };
        } else {
          NDArray s1 = make_view(src, {src.nbytes()}, DataType::UInt(8));
          NDArray d1 = make_view(dst, {dst.nbytes()}, DataType::UInt(8));
          op.call = [s1, d1]() mutable { d1.copy_from(s1); };
        }
        ops.push_back(std::move(op));
        continue;
      }
      bool flatten = false;
      if (auto f = n.attrs.find("flatten_data"); f != n.attrs.end()) flatten = f->second == "1";
      std::vector<ArgValue> args;
      for (int64_t e : op.arg_entries) {
        NDArray a = entries[static_cast<size_t>(e)];
        if (flatten) a = make_view(a, {a.size()}, a.dtype());
        args.emplace_back(a);
      }
      op.func = func;
      op.args = std::move(args);
      op.flatten = flatten;
      prepare(op);
      ops.push_back(std::move(op));
    }
  }

  void prepare(Op& op) {
    if (!lib) {
      const GraphNode& n = g.nodes[static_cast<size_t>(op.node)];
      throw RuntimeError("GraphExecutor: " + node_label(static_cast<size_t>(op.node), n.name) +
                         " calls kernel '" + op.func + "' but the Module is empty");
    }
    try {
      op.call = prepare_call(lib, op.func, op.args);
    } catch (const RuntimeError& e) {
      const GraphNode& n = g.nodes[static_cast<size_t>(op.node)];
      throw RuntimeError("GraphExecutor: " + node_label(static_cast<size_t>(op.node), n.name) +
                         " (func_name " + op.func + "): " + e.what());
    }
  }

  // TVM's SetInputZeroCopy: the kernels reading input `index` take `value` itself from now on.
  void set_input_zero_copy(int index, const NDArray& value) {
    check_input_index(index, "set_input_zero_copy");
    const std::string& name = input_names[static_cast<size_t>(index)];
    const std::string prefix = "GraphExecutor::set_input_zero_copy('" + name + "'): ";
    NDArray cur = input_entry(index);
    MINITVM_RUNTIME_CHECK(value.defined()) << prefix << "undefined array";
    MINITVM_RUNTIME_CHECK(value.dtype() == cur.dtype() && value.shape() == cur.shape() &&
                          value.device() == dev)
        << prefix << "expected " << describe_array(cur.dtype(), cur.shape()) << " on " << dev
        << ", got " << describe_array(value.dtype(), value.shape()) << " on " << value.device();
    MINITVM_RUNTIME_CHECK(value.is_contiguous()) << prefix << "the array is a strided view";
    const int64_t eid = entry_id(input_nodes[static_cast<size_t>(index)], 0);
    for (Op& op : ops) {
      if (op.func.empty()) continue;
      bool uses = false;
      for (size_t k = 0; k < op.arg_entries.size(); ++k)
        if (op.arg_entries[k] == eid) {
          op.args[k] = op.flatten ? make_view(value, {value.size()}, value.dtype()) : value;
          uses = true;
        }
      if (uses) prepare(op);
    }
  }

  void check_input_index(int index, const char* what) const {
    MINITVM_RUNTIME_CHECK(index >= 0 && index < static_cast<int>(input_nodes.size()))
        << "GraphExecutor::" << what << ": input index " << index << " out of range (the graph has "
        << input_nodes.size() << " inputs)";
  }

  int index_of(const std::string& name, const char* what) const {
    auto it = input_index.find(name);
    if (it != input_index.end()) return it->second;
    std::ostringstream os;
    os << "GraphExecutor::" << what << ": no input named '" << name << "'; inputs are: ";
    for (size_t i = 0; i < input_names.size(); ++i) os << (i ? ", " : "") << input_names[i];
    throw RuntimeError(os.str());
  }

  NDArray input_entry(int index) const {
    return entries[static_cast<size_t>(entry_id(input_nodes[static_cast<size_t>(index)], 0))];
  }

  // `what` names the caller in messages: set_input, load_params, or the constructor's params.
  void set_input(int index, const NDArray& value, const char* what = "set_input") {
    check_input_index(index, what);
    NDArray dst = input_entry(index);
    const std::string& name = input_names[static_cast<size_t>(index)];
    const std::string prefix = std::string("GraphExecutor::") + what + "('" + name + "'): ";
    MINITVM_RUNTIME_CHECK(value.defined()) << prefix << "undefined array";
    MINITVM_RUNTIME_CHECK(value.dtype() == dst.dtype() && value.shape() == dst.shape())
        << prefix << "expected " << describe_array(dst.dtype(), dst.shape()) << ", got "
        << describe_array(value.dtype(), value.shape());
    dst.copy_from(value);
  }

  void check_output_index(int index) const {
    MINITVM_RUNTIME_CHECK(index >= 0 && index < static_cast<int>(output_entries.size()))
        << "GraphExecutor::get_output: output index " << index << " out of range (the graph has "
        << output_entries.size() << " outputs)";
  }
};

GraphExecutor::GraphExecutor(const CompiledGraph& g, Device dev)
    : GraphExecutor(g.graph_json, g.lib, dev, g.params) {}

GraphExecutor::GraphExecutor(const std::string& graph_json, Module lib, Device dev,
                             const std::map<std::string, NDArray>& params)
    : impl_(std::make_unique<Impl>()) {
  impl_->g = parse_graph_json(graph_json);
  impl_->lib = std::move(lib);
  impl_->dev = dev;
  impl_->setup(params);
}

GraphExecutor::~GraphExecutor() = default;

void GraphExecutor::set_input(const std::string& name, const NDArray& value) {
  impl_->set_input(impl_->index_of(name, "set_input"), value);
}
void GraphExecutor::set_input(int index, const NDArray& value) {
  impl_->set_input(index, value);
}
void GraphExecutor::set_input(const std::string& name, DLManagedTensor* value) {
  MINITVM_RUNTIME_CHECK(value) << "GraphExecutor::set_input('" << name
                               << "'): null DLManagedTensor";
  NDArray a = NDArray::from_dlpack(value);
  set_input(name, a);
}
void GraphExecutor::set_input(int index, DLManagedTensor* value) {
  MINITVM_RUNTIME_CHECK(value) << "GraphExecutor::set_input(" << index << "): null DLManagedTensor";
  NDArray a = NDArray::from_dlpack(value);
  set_input(index, a);
}

void GraphExecutor::set_input_zero_copy(const std::string& name, const NDArray& value) {
  impl_->set_input_zero_copy(impl_->index_of(name, "set_input_zero_copy"), value);
}
void GraphExecutor::set_input_zero_copy(int index, const NDArray& value) {
  impl_->set_input_zero_copy(index, value);
}

int GraphExecutor::get_input_index(const std::string& name) const {
  auto it = impl_->input_index.find(name);
  return it == impl_->input_index.end() ? -1 : it->second;
}

NDArray GraphExecutor::get_input(int index) const {
  impl_->check_input_index(index, "get_input");
  return impl_->input_entry(index);
}
NDArray GraphExecutor::get_input(const std::string& name) const {
  return get_input(impl_->index_of(name, "get_input"));
}

void GraphExecutor::run() {
  for (const Impl::Op& op : impl_->ops)
    if (op.call) op.call();
}

NDArray GraphExecutor::get_output(int index) const {
  impl_->check_output_index(index);
  return impl_->entries[static_cast<size_t>(impl_->output_entries[static_cast<size_t>(index)])];
}

void GraphExecutor::get_output(int index, NDArray& out) const {
  NDArray src = get_output(index);
  MINITVM_RUNTIME_CHECK(out.defined())
      << "GraphExecutor::get_output(" << index << ", out): undefined array";
  MINITVM_RUNTIME_CHECK(out.dtype() == src.dtype() && out.shape() == src.shape())
      << "GraphExecutor::get_output(" << index << ", out): output is "
      << describe_array(src.dtype(), src.shape()) << ", out is "
      << describe_array(out.dtype(), out.shape());
  out.copy_from(src);
}

int GraphExecutor::get_num_inputs() const {
  return static_cast<int>(impl_->input_nodes.size());
}
int GraphExecutor::get_num_outputs() const {
  return static_cast<int>(impl_->output_entries.size());
}
const std::vector<std::string>& GraphExecutor::input_names() const {
  return impl_->input_names;
}
bool GraphExecutor::is_param(int index) const {
  impl_->check_input_index(index, "is_param");
  return impl_->input_is_param[static_cast<size_t>(index)];
}

std::vector<std::string> GraphExecutor::output_names() const {
  std::vector<std::string> out;
  for (const GraphEntryRef& h : impl_->g.heads) {
    const GraphNode& n = impl_->g.nodes[static_cast<size_t>(h.node)];
    out.push_back(n.num_outputs == 1 ? n.name : n.name + ":" + std::to_string(h.index));
  }
  return out;
}

std::vector<int64_t> GraphExecutor::input_shape(int index) const {
  return get_input(index).shape();
}
DataType GraphExecutor::input_dtype(int index) const {
  return get_input(index).dtype();
}
std::vector<int64_t> GraphExecutor::output_shape(int index) const {
  return get_output(index).shape();
}
DataType GraphExecutor::output_dtype(int index) const {
  return get_output(index).dtype();
}

void GraphExecutor::load_params(const std::string& bytes) {
  for (const auto& [name, value] : load_param_dict(bytes)) {
    auto it = impl_->input_index.find(name);
    MINITVM_RUNTIME_CHECK(it != impl_->input_index.end())
        << "GraphExecutor::load_params: parameter '" << name << "' is not an input of the graph";
    impl_->set_input(it->second, value, "load_params");
    impl_->input_is_param[static_cast<size_t>(it->second)] = true;
  }
}

std::string GraphExecutor::save_params() const {
  std::map<std::string, NDArray> params;
  for (size_t i = 0; i < impl_->input_nodes.size(); ++i)
    if (impl_->input_is_param[i])
      params[impl_->input_names[i]] = impl_->input_entry(static_cast<int>(i));
  return save_param_dict(params);
}

ProfileReport GraphExecutor::profile(int runs, int warmup) {
  MINITVM_RUNTIME_CHECK(runs >= 1)
      << "GraphExecutor::profile: runs must be at least 1, got " << runs;
  MINITVM_RUNTIME_CHECK(warmup >= 0)
      << "GraphExecutor::profile: warmup must be non-negative, got " << warmup;
  Impl& m = *impl_;
  const bool cuda = m.dev.is_cuda();
  auto sync = [&] {
    if (cuda) cuda_synchronize(m.dev);
  };
  for (int w = 0; w < warmup; ++w) run();
  sync();
  // Everything the report needs is gathered before timing; the timed loop only reads the clock.
  std::vector<ProfileCall> proto;
  std::vector<const Impl::Op*> timed;
  const std::string dev_name = std::string(cuda ? "cuda" : "cpu") + std::to_string(m.dev.id);
  for (const Impl::Op& op : m.ops) {
    if (!op.call) continue;  // __nop
    const GraphNode& n = m.g.nodes[static_cast<size_t>(op.node)];
    ProfileCall c;
    c.node = op.node;
    c.node_name = n.name;
    c.func_name = n.attrs.at("func_name");
    if (auto a = n.attrs.find("ops"); a != n.attrs.end()) c.ops = a->second;
    c.op_type = profile_op_type(n.attrs, c.func_name);
    for (size_t k = 0; k < op.arg_entries.size(); ++k) {
      const size_t e = static_cast<size_t>(op.arg_entries[k]);
      c.arg_shapes += (k ? ", " : "") + describe_array(m.g.dtypes[e], m.g.shapes[e]);
    }
    c.num_inputs = static_cast<int>(n.inputs.size());
    c.num_outputs = static_cast<int>(n.num_outputs);
    for (int64_t k = 0; k < n.num_outputs; ++k)
      c.output_shapes.push_back(m.g.shapes[static_cast<size_t>(m.entry_id(op.node, k))]);
    c.device = dev_name;
    proto.push_back(std::move(c));
    timed.push_back(&op);
  }
  using clock = std::chrono::steady_clock;
  std::vector<clock::time_point> stamps(static_cast<size_t>(runs) * timed.size() * 2);
  const clock::time_point begin = clock::now();
  size_t s = 0;
  for (int r = 0; r < runs; ++r)
    for (const Impl::Op* op : timed) {
      stamps[s++] = clock::now();
      op->call();
      sync();
      stamps[s++] = clock::now();
    }
  const clock::time_point end = clock::now();
  auto us = [&](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
  };
  ProfileReport rep;
  rep.runs = runs;
  rep.wall_us = us(begin, end);
  s = 0;
  for (int r = 0; r < runs; ++r)
    for (size_t k = 0; k < timed.size(); ++k) {
      ProfileCall c = proto[k];
      c.run = r;
      c.start_us = us(begin, stamps[s]);
      c.duration_us = us(stamps[s], stamps[s + 1]);
      s += 2;
      rep.calls.push_back(std::move(c));
    }
  return rep;
}

Device GraphExecutor::device() const {
  return impl_->dev;
}

int64_t GraphExecutor::storage_bytes() const {
  int64_t n = 0;
  for (const NDArray& p : impl_->pools)
    if (p.defined()) n += p.nbytes();
  return n;
}

int GraphExecutor::num_nodes() const {
  return static_cast<int>(impl_->g.nodes.size());
}

}  // namespace minitvm::runtime
