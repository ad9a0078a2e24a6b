// A sweep workload's layer built with the best record of a log (shared by check_workload and the
// GPU benchmark bench/gpu/conv2d).
#include "minitvm/autotune/target.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/support/error.h"
#include "minitvm/topi/cuda_schedule.h"

namespace minitvm::topi::sweep {

namespace {

// The workload keys our layer builds query for these shapes.
cuda::Workloads our_keys(const SweepWorkload& w) {
  switch (w.op) {
    case OpKind::Conv2d:
      return cuda::conv2d_workloads(w.data_shape, w.kernel_shape, w.attrs);
    case OpKind::Depthwise:
      return cuda::depthwise_workloads(w.data_shape, w.kernel_shape, w.attrs);
    case OpKind::Dense:
      return cuda::dense_workloads(w.batch, w.in_dim, w.out_dim, w.bias);
  }
  return {};
}

}  // namespace

std::string first_line(const std::string& s, size_t max) {
  size_t b = s.find_first_not_of(" \n");
  std::string r = b == std::string::npos ? s : s.substr(b);
  size_t e = r.find('\n');
  if (e != std::string::npos) r = r.substr(0, e);
  if (r.size() > max) r = r.substr(0, max) + "...";
  return r;
}

std::string record_template(const autotune::Record& rec) {
  bool winograd = rec.input.task_name.find("winograd") != std::string::npos ||
                  rec.input.config.template_key == "winograd";
  return winograd ? "winograd" : "direct";
}

LayerBuild build_layer(const SweepWorkload& w, int64_t batch, const std::string& target,
                       const std::string& template_key) {
  LayerOptions opt;
  opt.force_template = w.op == OpKind::Conv2d ? template_key : "";
  if (batch <= 0) batch = w.op == OpKind::Dense ? w.batch : w.data_shape[0];
  if (w.op == OpKind::Dense) return build_dense(batch, w.in_dim, w.out_dim, w.bias, target, opt);
  auto ds = w.data_shape;
  ds[0] = batch;
  if (w.op == OpKind::Conv2d) return build_conv2d(ds, w.kernel_shape, w.attrs, target, opt);
  return build_depthwise_conv2d(ds, w.kernel_shape, w.attrs, target, opt);
}

BestBuild build_with_best_record(const SweepWorkload& w, const autotune::ApplyHistoryBest& best,
                                 const std::string& target, int64_t batch) {
  BestBuild r;
  auto fail = [&](std::string stage, const std::string& reason) {
    r.stage = std::move(stage);
    r.reason = first_line(reason);
    r.layer = LayerBuild{};
    return r;
  };
  r.record = best.best_record(autotune::parse_target("cuda"), w.workload);
  if (!r.record)
    return fail("key", "no record answers target cuda for " + autotune::workload_key(w.workload));
  // The record only reaches our template if our layer queries the same key.
  std::string key = autotune::workload_key(w.workload);
  auto ours = our_keys(w);
  bool found = autotune::workload_key(ours.v01) == key;
  for (auto& k : ours.v02) found = found || autotune::workload_key(k) == key;
  if (!found)
    return fail("key",
                "our layer queries " + autotune::workload_key(ours.v01) + ", the log has " + key);
  r.template_key = record_template(*r.record);
  // ApplyConfig answers every query of this thread while the scope lives (contexts are per thread).
  autotune::ApplyConfig ctx(r.record->input.config);
  autotune::DispatchScope scope(ctx);
  try {
    r.layer = build_layer(w, batch, target, r.template_key);
  } catch (const runtime::NvrtcError& e) {
    return fail("nvrtc", e.status() + ": " + first_line(e.log()));
  } catch (const InvalidConfig& e) {
    // The record's config does not fit the template (knob missing, wrong number of split parts...):
    // a malformed record, not a failed build.
    return fail("config", e.what());
  } catch (const std::exception& e) {
    return fail("build", e.what());
  }
  if (r.layer.is_fallback) return fail("build", "the record's config was not applied (fallback)");
  return r;
}

}  // namespace minitvm::topi::sweep
