// CompiledPoolExecutor: host arrays in, compiled topi pool kernels in the middle, host arrays out.
// Unbatched plans run as N = 1 (same bytes); results are reshaped back to the plan's shapes.
#include "minitvm/frontend/pool_compiled.h"

#include "minitvm/runtime/ndarray.h"

namespace minitvm {
namespace frontend {

using topi::IndexBase;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

runtime::NDArray to_device(const HostArray& a, const std::vector<int64_t>& shape) {
  runtime::NDArray nd = runtime::NDArray::empty(shape, a.dtype(), Device::cpu());
  nd.copy_from_bytes(a.raw(), a.nbytes());
  return nd;
}

HostArray to_host(const runtime::NDArray& nd, const std::vector<int64_t>& shape) {
  HostArray h(nd.dtype(), shape);
  nd.copy_to_bytes(h.raw(), h.nbytes());
  return h;
}

void check_array(const PoolPlan& plan, const HostArray& a, DataType dt,
                 const std::vector<int64_t>& shape, const char* what) {
  MINITVM_USER_CHECK(a.dtype() == dt) << plan.op << ": " << what << " has dtype " << a.dtype().str()
                                      << ", the plan expects " << dt.str();
  MINITVM_USER_CHECK(a.shape() == shape)
      << plan.op << ": " << what << " shape does not match the plan (" << plan.str() << ")";
}

}  // namespace

namespace {
std::string kernel_key(const std::string& target, const PoolPlan& plan, topi::PoolDirection dir,
                       bool with_indices) {
  return target + "|" + (with_indices ? "i|" : "-|") + topi::pool_workload(plan, dir).dump();
}
bool empty_plan(const PoolPlan& plan) {
  return plan.output_plane_size() == 0 || plan.input_plane_size() == 0 ||
         plan.channels * plan.batch == 0;
}
}  // namespace

CompiledPoolExecutor::CompiledPoolExecutor(std::string target) : target_(std::move(target)) {}

std::string CompiledPoolExecutor::name() const {
  std::string n = target_;
  for (auto& ch : n)
    if (ch == ' ') ch = '-';
  if (n == "cuda--emulate") n = "cuda-emulate";
  return n;
}

const topi::PooledKernel& CompiledPoolExecutor::kernel(const PoolPlan& plan,
                                                       topi::PoolDirection dir, bool with_indices) {
  std::string key = kernel_key(target_, plan, dir, with_indices);
  auto it = cache_.find(key);
  if (it != cache_.end()) return *it->second;
  topi::BuildPoolOptions opt;
  opt.with_indices = with_indices;
  auto k = std::make_unique<topi::PooledKernel>(topi::build_pool(plan, target_, dir, opt));
  return *cache_.emplace(key, std::move(k)).first->second;
}

size_t CompiledPoolExecutor::precompile(const std::vector<PoolPlan>& plans, bool backward,
                                        size_t batch) {
  struct Want {
    PoolPlan owned;
    topi::PoolDirection dir;
    bool idx;
  };
  std::vector<Want> wants;
  std::map<std::string, bool> seen;
  auto want = [&](const PoolPlan& p, topi::PoolDirection dir, bool idx) {
    std::string key = kernel_key(target_, p, dir, idx);
    if (cache_.count(key) || seen.count(key)) return;
    seen[key] = true;
    wants.push_back(Want{p, dir, idx});
  };
  for (const PoolPlan& plan : plans) {
    if (empty_plan(plan)) continue;
    bool want_idx = plan.mode == PoolMode::Max && plan.return_indices;
    want(plan, topi::PoolDirection::Forward, want_idx);
    if (!backward || !plan.dtype.is_floating()) continue;
    try {
      check_backward(plan);
    } catch (const CompileError&) {
      continue;
    }
    want(plan, topi::PoolDirection::Backward, false);
    if (plan.mode == PoolMode::Max) {  // the backward may recompute its indices
      PoolPlan p = plan;
      p.return_indices = true;
      if (p.index_base != IndexBase::WindowTap) p.index_base = IndexBase::PerPlane;
      want(p, topi::PoolDirection::Forward, true);
    }
  }
  size_t compiled = 0;
  for (size_t b = 0; b < wants.size(); b += batch) {
    std::vector<std::pair<std::string, std::unique_ptr<topi::PooledKernel>>> group;
    for (size_t i = b; i < std::min(wants.size(), b + batch); ++i) {
      const Want& w = wants[i];
      topi::BuildPoolOptions opt;
      opt.with_indices = w.idx;
      opt.func_name = "pool_k" + std::to_string(i);
      try {
        auto k =
            std::make_unique<topi::PooledKernel>(topi::lower_pool(w.owned, target_, w.dir, opt));
        group.emplace_back(kernel_key(target_, w.owned, w.dir, w.idx), std::move(k));
      } catch (const CompileError&) {
        // reported when the plan runs
      }
    }
    std::vector<topi::PooledKernel*> ks;
    for (auto& g : group) ks.push_back(g.second.get());
    topi::build_pool_batch(ks, target_);
    for (auto& g : group) cache_.emplace(g.first, std::move(g.second));
    compiled += group.size();
  }
  return compiled;
}

PoolForwardResult CompiledPoolExecutor::forward(const PoolPlan& plan, const HostArray& input) {
  check_plan_limits(plan, plan.op);
  check_array(plan, input, plan.dtype, plan.input_shape(), "input");
  bool want_idx = plan.mode == PoolMode::Max && plan.return_indices;
  if (plan.output_plane_size() == 0 || plan.input_plane_size() == 0 ||
      plan.channels * plan.batch == 0) {
    PoolForwardResult r;  // nothing to compute (adaptive output 0 is a valid forward)
    r.output = HostArray(plan.dtype, plan.output_shape());
    if (want_idx) r.indices = HostArray(topi::pool_index_dtype(plan), plan.output_shape());
    return r;
  }
  const topi::PooledKernel& k = kernel(plan, topi::PoolDirection::Forward, want_idx);
  std::vector<int64_t> oshape = plan.batched_output_shape();
  runtime::NDArray x = to_device(input, plan.batched_input_shape());
  runtime::NDArray y = runtime::NDArray::empty(oshape, plan.dtype, Device::cpu());
  runtime::NDArray idx;
  std::vector<runtime::ArgValue> args{x, y};
  if (want_idx) {
    idx = runtime::NDArray::empty(oshape, topi::pool_index_dtype(plan), Device::cpu());
    args.push_back(idx);
  }
  k.module.get_function(k.func_name).call(args);
  PoolForwardResult r;
  r.output = to_host(y, plan.output_shape());
  if (want_idx) r.indices = to_host(idx, plan.output_shape());
  return r;
}

HostArray CompiledPoolExecutor::backward(const PoolPlan& plan, const HostArray& input,
                                         const HostArray& grad_output, const HostArray* indices) {
  check_backward(plan);
  check_plan_limits(plan, plan.op);
  check_array(plan, input, plan.dtype, plan.input_shape(), "input");
  check_array(plan, grad_output, plan.dtype, plan.output_shape(), "grad_output");
  MINITVM_USER_CHECK(plan.dtype.is_floating())
      << plan.op << ": no gradient for " << plan.dtype.str() << " input";
  if (plan.output_plane_size() == 0 || plan.input_plane_size() == 0 ||
      plan.channels * plan.batch == 0)
    return HostArray(plan.dtype, plan.input_shape());
  const topi::PooledKernel& k = kernel(plan, topi::PoolDirection::Backward, false);
  std::vector<int64_t> oshape = plan.batched_output_shape();
  std::vector<runtime::ArgValue> args{to_device(grad_output, oshape)};
  if (plan.mode == PoolMode::Lp) args.push_back(to_device(input, plan.batched_input_shape()));
  if (plan.mode == PoolMode::Max) {
    // The kernel reads per-plane indices, or window taps when the plan says so (then only
    // those: other numberings are recomputed from the input).
    const bool taps = plan.index_base == IndexBase::WindowTap;
    HostArray idx;
    if (indices && indices->defined() && (plan.index_base == IndexBase::PerPlane || taps)) {
      idx = *indices;
    } else {
      PoolPlan p = plan;
      p.return_indices = true;
      if (!taps) p.index_base = IndexBase::PerPlane;
      idx = forward(p, input).indices;
    }
    check_array(plan, idx, topi::pool_index_dtype(plan), plan.output_shape(), "indices");
    args.push_back(to_device(idx, oshape));
  }
  runtime::NDArray gx =
      runtime::NDArray::empty(plan.batched_input_shape(), plan.dtype, Device::cpu());
  args.push_back(gx);
  k.module.get_function(k.func_name).call(args);
  return to_host(gx, plan.input_shape());
}

}  // namespace frontend
}  // namespace minitvm
