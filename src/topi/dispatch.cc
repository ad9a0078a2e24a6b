// Workload keys of topi layers and the dispatch-context query (topi/dispatch.h).
#include "minitvm/topi/dispatch.h"

#include "minitvm/autotune/record.h"

namespace minitvm::topi {

namespace {

Json tensor_arg(const std::vector<int64_t>& shape, DataType t) {
  return Json::array({"TENSOR", Json(shape), t.str()});
}

Json pair_json(const std::vector<int64_t>& v) {
  return v.size() == 1 ? Json::array({v[0], v[0]}) : Json(v);
}

// v0.1 padding as TVM v0.6 relay passes it: 2 values when symmetric, else 4.
Json pad_v01(const std::vector<int64_t>& p) {
  auto t = nn::get_pad_tuple(p);
  if (t[0] == t[2] && t[1] == t[3]) return Json::array({t[0], t[1]});
  return Json::array({t[0], t[1], t[2], t[3]});
}
Json pad_v02(const std::vector<int64_t>& p) {
  auto t = nn::get_pad_tuple(p);
  return Json::array({t[0], t[1], t[2], t[3]});
}

}  // namespace

Workloads conv2d_workloads(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                           const nn::Conv2dAttrs& a) {
  DataType f32 = DataType::Float(32);
  Json args01 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v01(a.padding), pair_json(a.dilation), "NCHW", a.out_dtype.str()});
  Json args02 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v02(a.padding), pair_json(a.dilation), a.out_dtype.str()});
  Workloads w;
  w.v01 = autotune::workload_v01("conv2d", args01);
  w.v02 = {autotune::workload_v02("conv2d_nchw.cuda", args02),
           autotune::workload_v02("conv2d_nchw_winograd.cuda", args02)};
  return w;
}

Workloads depthwise_workloads(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                              const nn::Conv2dAttrs& a) {
  DataType f32 = DataType::Float(32);
  Json args01 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v01(a.padding), pair_json(a.dilation), a.out_dtype.str()});
  Json args02 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v02(a.padding), pair_json(a.dilation), a.out_dtype.str()});
  Workloads w;
  w.v01 = autotune::workload_v01("depthwise_conv2d_nchw", args01);
  w.v02 = {autotune::workload_v02("depthwise_conv2d_nchw.cuda", args02)};
  return w;
}

Workloads group_conv2d_workloads(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                                 const nn::Conv2dAttrs& a, int64_t groups) {
  DataType f32 = DataType::Float(32);
  Json args01 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v01(a.padding), pair_json(a.dilation), groups, a.out_dtype.str()});
  Json args02 = Json::array({tensor_arg(ds, f32), tensor_arg(ks, f32), pair_json(a.stride),
                             pad_v02(a.padding), pair_json(a.dilation), groups, a.out_dtype.str()});
  Workloads w;
  w.v01 = autotune::workload_v01("group_conv2d_nchw", args01);
  w.v02 = {autotune::workload_v02("group_conv2d_nchw.cuda", args02)};
  return w;
}

Workloads dense_workloads(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias,
                          DataType out_dtype) {
  DataType f32 = DataType::Float(32);
  Json b = bias ? tensor_arg({out_dim}, f32) : Json(nullptr);
  Json args = Json::array(
      {tensor_arg({batch, in_dim}, f32), tensor_arg({out_dim, in_dim}, f32), b, out_dtype.str()});
  Json args02 = Json::array(
      {tensor_arg({batch, in_dim}, f32), tensor_arg({out_dim, in_dim}, f32), b, out_dtype.str()});
  Workloads w;
  w.v01 = autotune::workload_v01("dense", args);
  w.v02 = {autotune::workload_v02(batch < 32 ? "dense_small_batch.cuda" : "dense_large_batch.cuda",
                                  args02)};
  return w;
}

Dispatched dispatch(const autotune::Target& target, const Workloads& wl) {
  std::vector<Json> keys{wl.v01};
  keys.insert(keys.end(), wl.v02.begin(), wl.v02.end());
  Dispatched d;
  // The innermost context that holds a record for any key answers with that key.
  for (autotune::DispatchContext* ctx = &autotune::DispatchContext::current(); ctx;
       ctx = ctx->outer()) {
    auto* best = dynamic_cast<autotune::ApplyHistoryBest*>(ctx);
    if (!best) {
      if (dynamic_cast<autotune::ApplyConfig*>(ctx)) break;  // answers every key
      continue;
    }
    const autotune::Record* chosen = nullptr;
    Json chosen_key;
    for (auto& k : keys) {
      const autotune::Record* r = best->best_record(target, k);
      if (r && (!chosen || r->result.mean_cost() < chosen->result.mean_cost())) {
        chosen = r;
        chosen_key = k;
      }
      if (chosen && &k == &keys[0]) break;  // a 0.1 record wins outright
    }
    if (chosen) {
      d.workload = chosen_key;
      d.record = chosen;
      break;
    }
  }
  if (!d.workload.is_array()) d.workload = wl.v01;
  d.cfg = autotune::DispatchContext::current().query(target, d.workload);
  std::string task = d.workload.at(0).get<std::string>();
  if (task.find("winograd") != std::string::npos)
    d.template_key = "winograd";
  else if (d.cfg && d.cfg->template_key == "winograd")
    d.template_key = "winograd";
  else
    d.template_key = "direct";
  return d;
}

}  // namespace minitvm::topi
