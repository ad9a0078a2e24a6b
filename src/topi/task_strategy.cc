// TVM's op strategies for autotune::extract_tasks: which templates a network layer's op becomes
// on each target kind (CUDA: conv2d direct + winograd where it applies, depthwise, dense small +
// large batch; llvm: conv2d as the x86 NCHWc template), and the canonical arguments of those
// templates' tasks. Registered with autotune from static initialisation.
#include <string>
#include <utility>
#include <vector>

#include "minitvm/autotune/task.h"

namespace minitvm::topi {
namespace {

using autotune::Json;
using Picks = std::vector<std::pair<std::string, Json>>;

// An int or a list of ints as a list (empty when neither).
std::vector<int64_t> ints_of(const Json& v) {
  std::vector<int64_t> out;
  if (v.is_number_integer()) return {v.get<int64_t>()};
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number_integer())
        out.push_back(x.get<int64_t>());
      else
        return {};
  return out;
}

Json int_json(const std::vector<int64_t>& v) {
  Json a = Json::array();
  for (auto x : v) a.push_back(x);
  return a;
}

// TVM's CUDA conv tasks carry strides and dilation as pairs and the padding as (top, left, bottom,
// right), as relay normalises them (and as topi::conv2d_workloads keys its 0.2 workloads).
Json cuda_conv_args(const Json& args) {
  if (!args.is_array() || args.size() != 6) return args;
  Json a = args;
  auto pair = [](std::vector<int64_t> v) {
    if (v.size() == 1) v.push_back(v[0]);
    return v;
  };
  std::vector<int64_t> st = pair(ints_of(args[2])), pad = ints_of(args[3]),
                       dil = pair(ints_of(args[4]));
  if (pad.size() == 1)
    pad = {pad[0], pad[0], pad[0], pad[0]};
  else if (pad.size() == 2)
    pad = {pad[0], pad[1], pad[0], pad[1]};
  if (st.size() == 2) a[2] = int_json(st);
  if (pad.size() == 4) a[3] = int_json(pad);
  if (dil.size() == 2) a[4] = int_json(dil);
  return a;
}

// TVM v0.7 conv2d_strategy_cuda adds the winograd implementation for 2 < kh == kw < 8, stride 1,
// dilation 1 (ours also needs symmetric padding).
bool cuda_winograd_applies(const Json& a) {
  if (!a.is_array() || a.size() != 6 || !a[1].is_array() || a[1].size() != 3 || !a[1][1].is_array())
    return false;
  std::vector<int64_t> ks = ints_of(a[1][1]), st = ints_of(a[2]), pad = ints_of(a[3]),
                       dil = ints_of(a[4]);
  return ks.size() == 4 && ks[2] == ks[3] && ks[2] > 2 && ks[2] < 8 &&
         st == std::vector<int64_t>{1, 1} && dil == std::vector<int64_t>{1, 1} && pad.size() == 4 &&
         pad[0] == pad[2] && pad[1] == pad[3];
}

int64_t dense_batch(const Json& a) {
  if (!a.is_array() || a.empty() || !a[0].is_array() || a[0].size() != 3) return 0;
  std::vector<int64_t> s = ints_of(a[0][1]);
  return s.empty() ? 0 : s[0];
}

// conv2d: CUDA's direct template always and winograd where it applies; on CPUs TVM tunes conv2d as
// its x86 NCHWc template (src/topi/cpu/conv2d_nchwc.cc), whose layer args are conv2d_nchw's (data,
// kernel, strides, padding, dilation, dtype); other kinds: conv2d_nchw.<kind>.
Picks conv2d_strategy(const std::string& kind, const Json& args) {
  Picks picks;
  if (kind == "cuda") {
    Json a = cuda_conv_args(args);
    picks.emplace_back("conv2d_nchw.cuda", a);
    if (cuda_winograd_applies(a)) picks.emplace_back("conv2d_nchw_winograd.cuda", a);
  } else if (kind == "llvm") {
    picks.emplace_back("conv2d_NCHWc.x86", args);
  } else {
    picks.emplace_back("conv2d_nchw." + kind, args);
  }
  return picks;
}

// TVM's CUDA dense strategy: small batch always, large batch from batch 32 on.
Picks dense_strategy(const std::string& kind, const Json& args) {
  Picks picks;
  if (kind == "cuda") {
    picks.emplace_back("dense_small_batch.cuda", args);
    if (dense_batch(args) >= 32) picks.emplace_back("dense_large_batch.cuda", args);
  } else {
    picks.emplace_back("dense." + kind, args);
  }
  return picks;
}

bool register_strategies() {
  autotune::register_op_strategy("conv2d", conv2d_strategy);
  autotune::register_op_strategy("dense", dense_strategy);
  for (std::string op : {"depthwise_conv2d", "depthwise_conv2d_nchw"})
    autotune::register_op_strategy(op, [op](const std::string& kind, const Json& args) {
      return kind == "cuda" ? Picks{{"depthwise_conv2d_nchw.cuda", cuda_conv_args(args)}}
                            : Picks{{op + "." + kind, args}};
    });
  // The x86 task's workload also names the layouts, as build_conv2d queries it.
  autotune::register_task_args("conv2d_NCHWc.x86", [](const Json& a) {
    if (a.is_array() && a.size() == 6)
      return Json::array({a[0], a[1], a[2], a[3], a[4], "NCHW", "NCHW", a[5]});
    return a;
  });
  for (const char* tpl :
       {"conv2d_nchw.cuda", "conv2d_nchw_winograd.cuda", "depthwise_conv2d_nchw.cuda"})
    autotune::register_task_args(tpl, cuda_conv_args);
  return true;
}

const bool strategies_registered = register_strategies();

}  // namespace
}  // namespace minitvm::topi
