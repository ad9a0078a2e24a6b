// Template registry, Task and network task extraction.
#include "minitvm/autotune/task.h"

#include <algorithm>
#include <mutex>

#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {
namespace {

struct Registry {
  std::mutex mu;
  // std::map nodes are stable, so pointers handed out by find_template stay valid.
  std::map<std::string, TemplateFn> fns;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: templates register from static init
  return *r;
}

}  // namespace

bool register_template(const std::string& name, TemplateFn fn) {
  MINITVM_USER_CHECK(!name.empty() && fn) << "register_template: empty name or function";
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fns[name] = std::move(fn);
  return true;
}

const TemplateFn* find_template(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.fns.find(name);
  return it == r.fns.end() ? nullptr : &it->second;
}

std::vector<std::string> template_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [k, v] : r.fns) out.push_back(k);
  return out;
}

Task::Task(std::string name, Json args, const std::string& target)
    : name_(std::move(name)), args_(std::move(args)), target_str_(target), target_(parse_target(target)) {
  MINITVM_USER_CHECK(args_.is_array()) << "task " << name_ << ": args must be a JSON array";
  fn_ = find_template(name_);
  if (!fn_) {
    std::string known;
    for (const auto& n : template_names()) known += (known.empty() ? "" : ", ") + n;
    MINITVM_USER_ERROR << "unknown tuning template '" << name_ << "' (registered: "
                       << (known.empty() ? "none" : known) << ")";
  }
  workload_ = workload_v02(name_, args_);
  FallbackConfigEntity cfg;
  TemplateResult r = (*fn_)(cfg, args_);
  space_ = cfg.space();
  flop_ = r.flop;
  bytes_ = r.bytes;
  MINITVM_USER_CHECK(space_.size() >= 1) << "task " << name_ << ": empty config space";
}

std::string Task::workload_key() const { return autotune::workload_key(workload_); }

double Task::throughput(double seconds) const {
  if (!(seconds > 0) || seconds >= 1e9) return 0;
  double work = flop_ > 0 ? flop_ : bytes_;
  return work / seconds / 1e9;
}

TemplateResult Task::instantiate(ConfigEntity& cfg) const {
  MINITVM_USER_CHECK(fn_) << "Task::instantiate on an empty task";
  return (*fn_)(cfg, args_);
}

Json parse_cli_arg(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Json(text);
  return j;
}

std::vector<Task> extract_tasks(const Json& network, const std::string& target,
                                std::vector<std::string>* skipped) {
  const Json* layers = &network;
  if (network.is_object()) {
    MINITVM_USER_CHECK(network.contains("layers") && network["layers"].is_array())
        << "network description: expected {\"layers\": [...]}";
    layers = &network["layers"];
  }
  MINITVM_USER_CHECK(layers->is_array()) << "network description: expected an array of layers";
  Target t = parse_target(target);
  std::string kind = t.name == "nvptx" ? "cuda" : t.name;
  std::vector<Task> tasks;
  std::vector<std::string> seen;
  int idx = 0;
  for (const Json& layer : *layers) {
    ++idx;
    MINITVM_USER_CHECK(layer.is_object()) << "network layer " << idx << ": expected an object";
    std::string tpl;
    if (layer.contains("template")) {
      tpl = layer["template"].get<std::string>();
    } else {
      MINITVM_USER_CHECK(layer.contains("op") && layer["op"].is_string())
          << "network layer " << idx << ": needs \"op\" or \"template\"";
      std::string op = layer["op"].get<std::string>();
      if (op == "conv2d") op = "conv2d_nchw";
      tpl = op + "." + kind;
      // On CPUs TVM tunes conv2d as its x86 NCHWc template (src/topi/cpu/conv2d_nchwc.cc).
      if (op == "conv2d_nchw" && kind == "llvm") tpl = "conv2d_NCHWc.x86";
    }
    Json args = layer.value("args", Json::array());
    // conv2d layers give conv2d_nchw's arguments (data, kernel, strides, padding, dilation, dtype);
    // the x86 task's workload also names the layouts, as build_conv2d queries it.
    if (tpl == "conv2d_NCHWc.x86" && args.is_array() && args.size() == 6)
      args = Json::array({args[0], args[1], args[2], args[3], args[4], "NCHW", "NCHW", args[5]});
    std::string key = tpl + "|" + args.dump();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    if (!find_template(tpl)) {
      log_warning("extract_tasks: no template '" + tpl + "' registered; layer " + std::to_string(idx) +
                  " skipped");
      if (skipped) skipped->push_back(tpl);
      continue;
    }
    tasks.emplace_back(tpl, args, target);
  }
  return tasks;
}

}  // namespace minitvm::autotune
