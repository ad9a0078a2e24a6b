// libFuzzer target: the graph-level ONNX importer (relay::frontend::from_onnx_bytes) on arbitrary
// model bytes. Every input must either be rejected with a CompileError naming the problem or
// import. A model that imports with small float32 inputs is then run twice, on the reference
// executor (reference_run) and built for llvm through the GraphExecutor; both may only reject with
// a CompileError, and where both run their outputs must agree (same shapes; values within a loose
// tolerance wherever both are finite, when the parameters are moderate): a disagreement is a
// silently wrong result. Anything else (a crash, a sanitizer report, an InternalError, a raw std::
// exception) is a finding.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "minitvm/relay/build.h"
#include "minitvm/relay/frontend.h"
#include "minitvm/relay/reference.h"
#include "minitvm/runtime/graph_executor.h"

using namespace minitvm;
using namespace minitvm::relay;

namespace {

constexpr int64_t kMaxInputElems = 4096;  // per model, all inputs together
constexpr size_t kMaxGraphNodes = 64;     // imported graph size worth compiling

/** Deterministic inputs for every parameter not bound by the model's initializers; false when an
 *  input is not float32 or the inputs are too large to run quickly. */
bool make_inputs(const frontend::Imported& imp, Params* out) {
  int64_t total = 0;
  for (const Expr& p : imp.mod.params) {
    if (imp.params.count(p->name)) continue;
    const TensorType& t = p->type();
    if (t.dtype != DataType::Float(32)) return false;
    int64_t n = t.numel();
    if (n < 0 || n > kMaxInputElems - total) return false;
    total += n;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7 + 3) % 23 - 11) / 8.0f;
    (*out)[p->name] = runtime::NDArray::from_vector<float>(v, t.shape);
  }
  return true;
}

/** Whether every float parameter is finite and at most 1e4 in magnitude. Mutated raw data easily
 *  hold values near FLT_MAX; then float32 kernels overflow in intermediate sums (inf - inf = NaN,
 *  relu(NaN) = 0) where the reference accumulates in double, and the values cannot be compared. */
bool moderate_params(const Params& params) {
  for (const auto& [name, v] : params) {
    if (v.dtype() != DataType::Float(32)) continue;
    for (float x : v.to_vector<float>())
      if (!(std::fabs(x) <= 1e4f)) return false;
  }
  return true;
}

void compare(const std::vector<runtime::NDArray>& ref, const std::vector<runtime::NDArray>& got,
             bool values) {
  if (ref.size() != got.size())
    fuzz::finding("reference gives " + std::to_string(ref.size()) + " outputs, the build " +
                  std::to_string(got.size()));
  for (size_t k = 0; k < ref.size(); ++k) {
    if (ref[k].shape() != got[k].shape() || ref[k].dtype() != got[k].dtype())
      fuzz::finding("output " + std::to_string(k) +
                    ": shape or dtype differs between the reference "
                    "and the build");
    if (!values || ref[k].dtype() != DataType::Float(32)) continue;
    auto r = ref[k].to_vector<float>();
    auto g = got[k].to_vector<float>();
    double scale = 0;
    for (float x : r)
      if (std::isfinite(x)) scale = std::max(scale, std::fabs(double(x)));
    for (size_t i = 0; i < r.size(); ++i) {
      if (!std::isfinite(r[i]) || !std::isfinite(g[i])) continue;
      double tol = 1e-3 * (1.0 + scale);
      if (std::fabs(double(r[i]) - double(g[i])) > tol)
        fuzz::finding("output " + std::to_string(k) + "[" + std::to_string(i) + "]: reference " +
                      std::to_string(r[i]) + ", llvm build " + std::to_string(g[i]));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  frontend::Imported imp;
  if (!fuzz::accepts("from_onnx_bytes", [&] { imp = frontend::from_onnx_bytes(bytes); })) return 0;
  if (!imp.mod.body) fuzz::finding("from_onnx_bytes returned a function without a body");
  Params inputs;
  if (post_order(imp.mod.body).size() > kMaxGraphNodes || !make_inputs(imp, &inputs)) return 0;

  std::vector<runtime::NDArray> ref;
  bool ref_ok =
      fuzz::accepts("reference_run", [&] { ref = reference_run(imp.mod, inputs, imp.params); });
  Built built;
  if (!fuzz::accepts("build", [&] { built = build(imp.mod, "llvm", imp.params); })) return 0;
  std::vector<runtime::NDArray> got;
  bool run_ok = fuzz::accepts("run", [&] {
    runtime::GraphExecutor ex(built, Device::cpu());
    for (auto& [name, v] : inputs) ex.set_input(name, v);
    ex.run();
    for (int k = 0; k < ex.get_num_outputs(); ++k)
      got.push_back(ex.get_output(k).copy_to(Device::cpu()));
  });
  if (ref_ok && run_ok) compare(ref, got, moderate_params(imp.params));
  return 0;
}
