// relay::frontend::run_onnx_test_dir: an ONNX backend test directory through from_onnx,
// relay::build, GraphExecutor and reference_run (see minitvm/devtools/onnx_test.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "minitvm/devtools/onnx_test.h"
#include "minitvm/relay/build.h"
#include "minitvm/relay/frontend.h"
#include "minitvm/relay/reference.h"
#include "minitvm/runtime/graph_executor.h"
#include "minitvm/support/error.h"

#ifdef MINITVM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace minitvm::relay::frontend {

#ifndef MINITVM_HAVE_ONNX

OnnxTestResult run_onnx_test_dir(const std::string& dir, const std::string&,
                                 const OnnxTestOptions&) {
  OnnxTestResult r;
  r.dir = dir;
  r.status = OnnxTestResult::Status::Unsupported;
  r.reason = "minitvm was built without ONNX support (libonnx-dev)";
  return r;
}

#else

namespace {

namespace fs = std::filesystem;
using Status = OnnxTestResult::Status;

// A failure of the test (not of minitvm's API use): becomes the result's reason.
struct TestError {
  Status status;
  std::string reason;
};
[[noreturn]] void fail(Status s, const std::string& why) {
  throw TestError{s, why};
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f.good()) fail(Status::Failed, "cannot read " + p.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

::onnx::TensorProto read_tensor(const fs::path& p) {
  ::onnx::TensorProto t;
  if (!t.ParseFromString(read_file(p)))
    fail(Status::Failed, p.filename().string() + " is not a TensorProto");
  return t;
}

std::vector<int64_t> dims(const ::onnx::TensorProto& t) {
  return {t.dims().begin(), t.dims().end()};
}

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Float32 values of a recorded tensor (raw_data or float_data).
std::vector<float> floats_of(const ::onnx::TensorProto& t, const std::string& what) {
  int64_t n = numel(dims(t));
  std::vector<float> v;
  if (!t.raw_data().empty()) {
    if (t.raw_data().size() != size_t(n) * 4)
      fail(Status::Failed, what + ": raw_data size does not match its dims");
    v.resize(size_t(n));
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
    if (int64_t(v.size()) != n)
      fail(Status::Failed, what + ": float_data size does not match its dims");
  }
  return v;
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(7);
  os << v;
  return os.str();
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "(";
  for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
  return r + ")";
}

// The graph inputs the data sets feed: the graph's inputs that are not initializers, in order.
std::vector<int> fed_inputs(const ::onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::vector<int> r;
  for (int k = 0; k < g.input_size(); ++k)
    if (!inits.count(g.input(k).name())) r.push_back(k);
  return r;
}

// Whether the value info declares exactly the static shape `s`.
bool static_shape_is(const ::onnx::ValueInfoProto& vi, const std::vector<int64_t>& s) {
  const auto& tt = vi.type().tensor_type();
  if (!tt.has_shape() || tt.shape().dim_size() != int(s.size())) return false;
  for (int k = 0; k < tt.shape().dim_size(); ++k)
    if (!tt.shape().dim(k).has_dim_value() || tt.shape().dim(k).dim_value() != s[k]) return false;
  return true;
}

// "... (input 1 'min') must be a constant or initializer": the name, or "".
std::string needs_constant(const std::string& msg) {
  size_t e = msg.find("') must be a constant or initializer");
  if (e == std::string::npos) return "";
  size_t b = msg.rfind('\'', e - 1);
  if (b == std::string::npos) return "";
  return msg.substr(b + 1, e - b - 1);
}

// One compiled import of the model for a set of constant-ified inputs and input shapes.
struct Compiled {
  Imported imp;
  Built built;
  std::unique_ptr<runtime::GraphExecutor> ex;
};

class Runner {
 public:
  Runner(const fs::path& dir, const std::string& target, const OnnxTestOptions& o)
      : dir_(dir), target_(target), opt_(o) {}

  OnnxTestResult run() {
    OnnxTestResult r;
    r.dir = dir_.string();
    try {
      body(r);
      r.status = Status::Passed;
      r.reason.clear();
    } catch (const TestError& e) {
      r.status = e.status;
      r.reason = e.reason;
    } catch (const std::exception& e) {
      r.status = Status::Failed;
      r.reason = e.what();
    }
    return r;
  }

 private:
  void body(OnnxTestResult& r) {
    if (!fs::is_regular_file(dir_ / "model.onnx")) fail(Status::Failed, "no model.onnx");
    if (!model_.ParseFromString(read_file(dir_ / "model.onnx")))
      fail(Status::Failed, "model.onnx is not an ONNX ModelProto");
    auto ops = onnx_supported_ops();
    std::set<std::string> sup(ops.begin(), ops.end());
    for (const auto& n : model_.graph().node()) {
      if (!n.domain().empty() && n.domain() != "ai.onnx")
        fail(Status::Unsupported, "op domain '" + n.domain() + "'");
      if (!sup.count(n.op_type())) fail(Status::Unsupported, "op " + n.op_type());
    }
    for (const auto& i : model_.graph().input())
      if (!i.type().has_tensor_type())
        fail(Status::Unsupported,
             "graph input '" + i.name() + "' is not a tensor (sequence, optional or map)");
    for (const auto& o : model_.graph().output()) {
      if (!o.type().has_tensor_type())
        fail(Status::Unsupported,
             "graph output '" + o.name() + "' is not a tensor (sequence, optional or map)");
      int et = o.type().tensor_type().elem_type();
      if (et != 0 && et != ::onnx::TensorProto_DataType_FLOAT)
        fail(Status::Unsupported, "graph output '" + o.name() + "' has element type " +
                                      std::to_string(et) + " (only float32 outputs)");
    }
    std::vector<fs::path> sets;
    for (auto& e : fs::directory_iterator(dir_))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) fail(Status::Failed, "no test_data_set_* directories");
    for (size_t k = 0; k < sets.size(); ++k) {
      run_set(sets[k], "data set " + sets[k].filename().string().substr(14), r);
      ++r.data_sets;
    }
  }

  void run_set(const fs::path& set, const std::string& label, OnnxTestResult& r) {
    const auto& g = model_.graph();
    std::vector<int> fed = fed_inputs(g);
    std::vector< ::onnx::TensorProto> ins;
    for (size_t k = 0; k < fed.size(); ++k) {
      fs::path p = set / ("input_" + std::to_string(k) + ".pb");
      if (!fs::exists(p))
        fail(Status::Failed, label + ": " + p.filename().string() + " is missing");
      ins.push_back(read_tensor(p));
    }
    std::vector< ::onnx::TensorProto> want;
    for (int k = 0;; ++k) {
      fs::path p = set / ("output_" + std::to_string(k) + ".pb");
      if (!fs::exists(p)) break;
      want.push_back(read_tensor(p));
    }
    if (int(want.size()) != g.output_size())
      fail(Status::Failed, label + ": " + std::to_string(want.size()) + " recorded outputs for " +
                               std::to_string(g.output_size()) + " graph outputs");
    for (size_t k = 0; k < want.size(); ++k)
      if (want[k].data_type() != ::onnx::TensorProto_DataType_FLOAT)
        fail(Status::Unsupported, "output " + std::to_string(k) + " has element type " +
                                      std::to_string(want[k].data_type()) +
                                      " (only float32 outputs are compared)");

    // Which fed inputs stay graph inputs: float32 ones, unless the importer wants them constant.
    Params inputs;
    Compiled* c = nullptr;
    for (int attempt = 0;; ++attempt) {
      std::string key;
      ::onnx::ModelProto m = model_;
      auto* mg = m.mutable_graph();
      ::google::protobuf::RepeatedPtrField< ::onnx::ValueInfoProto> kept;
      ShapeDict shapes;
      inputs.clear();
      std::set<int> fed_set(fed.begin(), fed.end());
      for (int k = 0; k < g.input_size(); ++k)
        if (!fed_set.count(k))
          *kept.Add() = g.input(k);  // initializer-backed inputs (old IR) stay listed
      for (size_t k = 0; k < fed.size(); ++k) {
        const auto& vi = g.input(fed[k]);
        const auto& t = ins[k];
        bool graph_input =
            t.data_type() == ::onnx::TensorProto_DataType_FLOAT && !constant_.count(vi.name());
        if (graph_input) {
          *kept.Add() = vi;
          if (!static_shape_is(vi, dims(t)))
            shapes[vi.name()] = dims(t);  // the model's when it matches
          inputs[vi.name()] = runtime::NDArray::from_vector<float>(
              floats_of(t, label + " input " + std::to_string(k)), dims(t));
          key += "I" + vi.name() + shape_str(dims(t));
        } else {
          ::onnx::TensorProto init = t;
          init.set_name(vi.name());
          key += "C" + vi.name() + ":" + init.SerializeAsString();
          *mg->add_initializer() = std::move(init);
        }
      }
      mg->mutable_input()->Swap(&kept);
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        c = it->second.get();
        break;
      }
      auto comp = std::make_unique<Compiled>();
      try {
        comp->imp = from_onnx_bytes(m.SerializeAsString(), shapes);
      } catch (const CompileError& e) {
        std::string name = needs_constant(e.what());
        if (!name.empty() && inputs.count(name) && !constant_.count(name)) {
          constant_.insert(name);
          continue;
        }
        fail(Status::Unsupported, std::string("import: ") + e.what());
      }
      try {
        comp->built = build(comp->imp.mod, target_, comp->imp.params);
      } catch (const std::exception& e) {
        fail(Status::Failed, "build for " + target_ + ": " + e.what());
      }
      try {
        Device dev = target_ == "cuda" ? Device::cuda(0) : Device::cpu();
        comp->ex = std::make_unique<runtime::GraphExecutor>(comp->built, dev);
      } catch (const std::exception& e) {
        fail(Status::Failed, std::string("GraphExecutor: ") + e.what());
      }
      c = comp.get();
      cache_[key] = std::move(comp);
      if (r.data_sets == 0) r.kernels = int(c->built.kernels.size());
      break;
    }

    if (opt_.check_reference) {
      std::vector<runtime::NDArray> ref;
      try {
        ref = reference_run(c->imp.mod, inputs, c->imp.params);
      } catch (const std::exception& e) {
        fail(Status::Failed, label + ": reference executor: " + e.what());
      }
      compare(ref, want, label + ", reference executor");
    }
    std::vector<runtime::NDArray> got;
    try {
      for (auto& [name, v] : inputs) c->ex->set_input(name, v);
      c->ex->run();
      for (int k = 0; k < c->ex->get_num_outputs(); ++k)
        got.push_back(c->ex->get_output(k).copy_to(Device::cpu()));
    } catch (const std::exception& e) {
      fail(Status::Failed, label + ": run on " + target_ + ": " + e.what());
    }
    compare(got, want, label + ", " + target_);
  }

  void compare(const std::vector<runtime::NDArray>& got,
               const std::vector< ::onnx::TensorProto>& want, const std::string& label) {
    if (got.size() != want.size())
      fail(Status::Failed, label + ": " + std::to_string(got.size()) + " outputs, " +
                               std::to_string(want.size()) + " recorded");
    for (size_t k = 0; k < want.size(); ++k) {
      std::string what = label + ": output " + std::to_string(k);
      auto shape = dims(want[k]);
      if (got[k].shape() != shape)
        fail(Status::Failed,
             what + " has shape " + shape_str(got[k].shape()) + ", expected " + shape_str(shape));
      if (got[k].dtype() != DataType::Float(32))
        fail(Status::Failed, what + " is " + got[k].dtype().str());
      auto w = floats_of(want[k], what);
      auto v = got[k].to_vector<float>();
      for (size_t i = 0; i < v.size(); ++i) {
        double x = v[i], y = w[i];
        bool ok = std::isnan(y)   ? std::isnan(x)
                  : std::isinf(y) ? x == y
                                  : std::abs(x - y) <= opt_.atol + opt_.rtol * std::abs(y);
        if (!ok)
          fail(Status::Failed, what + " differs at index " + std::to_string(i) + ": got " + fmt(x) +
                                   ", expected " + fmt(y));
      }
    }
  }

  fs::path dir_;
  std::string target_;
  OnnxTestOptions opt_;
  ::onnx::ModelProto model_;
  std::set<std::string> constant_;  // fed float inputs the importer needs as initializers
  std::map<std::string, std::unique_ptr<Compiled> > cache_;
};

}  // namespace

OnnxTestResult run_onnx_test_dir(const std::string& dir, const std::string& target,
                                 const OnnxTestOptions& options) {
  return Runner(dir, target, options).run();
}

#endif  // MINITVM_HAVE_ONNX

}  // namespace minitvm::relay::frontend
