// relay::extract_tasks: a network's tuning tasks from the workloads its build queries.
#include <map>
#include <set>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/target.h"
#include "minitvm/autotune/task_scheduler.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/relay/build.h"
#include "minitvm/support/error.h"

namespace minitvm::relay {

namespace {

// "conv2d_NCHWc.x86 1x64x56x56 * 64x64x1x1 s[1,1] p[0,0,0,0]": the template and its shapes.
std::string task_label(const Json& workload) {
  std::ostringstream os;
  os << workload.at(0).get<std::string>();
  bool first_tensor = true;
  for (size_t i = 1; i < workload.size(); ++i) {
    const Json& a = workload[i];
    if (a.is_array() && a.size() == 3 && a[0].is_string() && a[0].get<std::string>() == "TENSOR") {
      os << (first_tensor ? " " : " * ");
      first_tensor = false;
      const Json& shape = a[1];
      for (size_t k = 0; k < shape.size(); ++k) os << (k ? "x" : "") << shape[k].dump();
    }
  }
  return os.str();
}

bool tunable_family(const std::string& op) {
  return op == "nn.conv2d" || op == "nn.dense" || op == "nn.contrib_conv2d_NCHWc" ||
         op == "nn.contrib_depthwise_conv2d_NCHWc" ||
         op == "nn.contrib_conv2d_winograd_without_weight_transform";
}

}  // namespace

std::vector<autotune::WeightedTask> extract_tasks(const Function& f, const std::string& target,
                                                  const Params& params,
                                                  std::vector<std::string>* untunable) {
  autotune::check_tuning_target(target);
  BuildOptions bo;
  bo.workloads_only = true;
  // The fallback answers every query (the workload keys do not depend on the configs; the blocks
  // alter_op_layout picks do, but the x86 task's key is the unblocked layer).
  autotune::FallbackContext fb;
  fb.silent = true;
  autotune::DispatchScope scope(fb);
  Built b = build(f, target, params, bo);

  std::vector<autotune::WeightedTask> out;
  std::map<std::string, size_t> index;  // workload key -> position in out
  const std::string kind = autotune::parse_target(target).name;
  for (const KernelInfo& k : b.kernels) {
    if (k.tuning_workloads.empty()) {
      if (untunable && tunable_family(k.master_op))
        untunable->push_back(k.func_name + ": " + k.master_op + " has no tuning template for " +
                             kind);
      continue;
    }
    for (const Json& w : k.tuning_workloads) {
      std::string key = autotune::workload_key(w);
      auto it = index.find(key);
      if (it != index.end()) {
        out[it->second].weight += k.num_nodes;
        continue;
      }
      Json args = Json::array();
      for (size_t i = 1; i < w.size(); ++i) args.push_back(w[i]);
      try {
        autotune::WeightedTask t{autotune::Task(w.at(0).get<std::string>(), args, target),
                                 static_cast<double>(k.num_nodes), task_label(w)};
        index.emplace(key, out.size());
        out.push_back(std::move(t));
      } catch (const std::exception& e) {
        // A template that rejects the layer (a winograd task for a shape it does not support).
        if (untunable) untunable->push_back(k.func_name + ": " + key + ": " + e.what());
      }
    }
  }
  return out;
}

std::vector<std::string> llvm_winograd_workloads(const Function& f,
                                                 const std::vector<autotune::WeightedTask>& tasks,
                                                 const Params& params) {
  autotune::FallbackContext fb;
  fb.silent = true;
  autotune::DispatchScope scope(fb);
  BuildOptions bo;
  bo.workloads_only = true;
  bo.workloads_with_winograd = true;
  std::set<std::string> direct;  // the conv2d_NCHWc workloads still queried with Winograd on
  for (const KernelInfo& k : build(f, "llvm", params, bo).kernels)
    for (const Json& w : k.tuning_workloads) direct.insert(autotune::workload_key(w));
  std::vector<std::string> out;
  for (const auto& t : tasks)
    if (!direct.count(t.task.workload_key())) out.push_back(t.task.workload_key());
  return out;
}

}  // namespace minitvm::relay
