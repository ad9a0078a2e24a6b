// relay::Built's report: kernels, tuning-log coverage per op family and memory, as text and JSON.
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "minitvm/autotune/record.h"
#include "minitvm/relay/build.h"

namespace minitvm::relay {

namespace {
std::string mb(int64_t b) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << static_cast<double>(b) / (1024.0 * 1024.0) << " MiB";
  return os.str();
}
}  // namespace

int Built::num_fallbacks() const {
  int n = 0;
  for (auto& k : kernels) n += k.is_fallback ? 1 : 0;
  return n;
}

namespace {
// Tunable layers and distinct workload keys per op family ("conv2d", "depthwise_conv2d", "dense").
struct WorkloadCount {
  int layers = 0;
  std::set<std::string> keys, fallback;
};
std::string family_of(const KernelInfo& k, const std::string& key) {
  if (k.master_op == "nn.dense" || k.master_op == "nn.contrib_dense_pack") return "dense";
  if (key.find("depthwise") != std::string::npos) return "depthwise_conv2d";
  return key.find("group_conv2d") != std::string::npos ? "group_conv2d" : "conv2d";
}
std::map<std::string, WorkloadCount> count_workloads(const std::vector<KernelInfo>& kernels) {
  std::map<std::string, WorkloadCount> counts;
  for (auto& k : kernels) {
    if (!k.workload.is_array()) continue;
    std::string key = autotune::workload_key(k.workload);
    WorkloadCount& c = counts[family_of(k, key)];
    c.layers += k.num_nodes;
    c.keys.insert(key);
    if (k.is_fallback) c.fallback.insert(key);
  }
  return counts;
}
}  // namespace

std::string Built::report() const {
  std::ostringstream os;
  int nodes = 0;
  for (auto& k : kernels) nodes += k.num_nodes;
  os << "relay::build for " << target << ": " << kernels.size() << " kernels, " << nodes
     << " kernel nodes\n";
  size_t w = 30;
  for (auto& k : kernels) w = std::max(w, k.func_name.size() + 2);
  os << std::left << std::setw(static_cast<int>(w)) << "kernel" << std::setw(7) << "nodes"
     << "schedule / workload\n";
  for (auto& k : kernels) {
    os << std::left << std::setw(static_cast<int>(w)) << k.func_name << std::setw(7) << k.num_nodes
       << k.template_key;
    if (k.workload.is_array()) {
      os << " " << autotune::workload_key(k.workload);
      if (k.is_fallback)
        os << " fallback";
      else
        os << " config " << k.config_index << " from log";
    }
    os << "  [";
    for (size_t i = 0; i < k.ops.size(); ++i) os << (i ? " " : "") << k.ops[i];
    os << "]\n";
  }
  for (auto& [name, c] : count_workloads(kernels))
    os << c.layers << " " << name << " layers, " << c.keys.size()
       << " workloads: " << c.keys.size() - c.fallback.size() << " from log, " << c.fallback.size()
       << " fallback\n";
  os << "memory: activations " << mb(memory.planned_bytes) << " planned (all intermediates "
     << mb(memory.intermediate_bytes) << " unshared), params and inputs " << mb(memory.param_bytes)
     << "\n";
  return os.str();
}

Json Built::report_json() const {
  Json r = Json::object();
  r["target"] = target;
  int total = 0, fallback = 0, layers = 0;
  Json by_op = Json::object();
  for (auto& [name, c] : count_workloads(kernels)) {
    total += static_cast<int>(c.keys.size());
    fallback += static_cast<int>(c.fallback.size());
    layers += c.layers;
    by_op[name] = {{"layers", c.layers},
                   {"total", c.keys.size()},
                   {"from_log", c.keys.size() - c.fallback.size()},
                   {"fallback", c.fallback.size()}};
  }
  r["workloads"] = {{"total", total},
                    {"from_log", total - fallback},
                    {"fallback", fallback},
                    {"layers", layers},
                    {"by_op", by_op}};
  Json ks = Json::array();
  for (auto& k : kernels) {
    Json j = {{"name", k.func_name},
              {"ops", k.ops},
              {"master_op", k.master_op},
              {"schedule", k.template_key},
              {"nodes", k.num_nodes}};
    j["workload"] =
        k.workload.is_array() ? Json(autotune::workload_key(k.workload)) : Json(nullptr);
    j["config_index"] =
        k.workload.is_array() && !k.is_fallback ? Json(k.config_index) : Json(nullptr);
    j["config"] = k.config.empty() ? Json(nullptr) : Json(k.config);
    j["fallback"] = k.is_fallback;
    ks.push_back(std::move(j));
  }
  r["kernels"] = std::move(ks);
  r["peak_bytes"] = memory.planned_bytes;
  r["intermediate_bytes"] = memory.intermediate_bytes;
  r["param_bytes"] = memory.param_bytes;
  return r;
}

}  // namespace minitvm::relay
