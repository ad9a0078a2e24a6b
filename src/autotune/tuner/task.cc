// Template registry, Task and network task extraction.
#include "minitvm/autotune/task.h"

#include <algorithm>
#include <mutex>

#include "minitvm/autotune/dispatch.h"
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

// The config of the template call running on this thread (get_config), innermost call last.
thread_local std::vector<std::pair<ConfigEntity*, const Target*>> tl_calls;

struct CallBinding {
  CallBinding(ConfigEntity& cfg, const Target& t) { tl_calls.emplace_back(&cfg, &t); }
  ~CallBinding() { tl_calls.pop_back(); }
  CallBinding(const CallBinding&) = delete;
  CallBinding& operator=(const CallBinding&) = delete;
};

TemplateResult invoke(const TemplateFn& fn, ConfigEntity& cfg, const Json& args,
                      const Target& target) {
  CallBinding bind(cfg, target);
  return fn(cfg, args);
}

std::string registered_names() {
  std::string known;
  for (const auto& n : template_names()) known += (known.empty() ? "" : ", ") + n;
  return known.empty() ? "none" : known;
}

// Spaces of registered templates for check_record, per (task, args, target). Bounded: a log holds
// few distinct tasks; past the bound the cache starts over.
struct SpaceCache {
  std::mutex mu;
  std::map<std::string, std::pair<std::optional<ConfigSpace>, std::string>> entries;
};

std::optional<ConfigSpace> registered_space(const Record& r, std::string& error) {
  if (!find_template(r.input.task_name)) return std::nullopt;
  static SpaceCache* cache = new SpaceCache();
  const std::string key =
      r.input.task_name + '\x1f' + r.input.args.dump() + '\x1f' + r.input.target_str;
  {
    std::lock_guard<std::mutex> lock(cache->mu);
    if (auto it = cache->entries.find(key); it != cache->entries.end()) {
      error = it->second.second;
      return it->second.first;
    }
  }
  std::optional<ConfigSpace> space;
  std::string err;
  try {
    space = Task(r.input.task_name, r.input.args, r.input.target_str).config_space();
  } catch (const CompileError& e) {
    err = "the arguments do not fit template " + r.input.task_name + ": " + e.what();
  }
  std::lock_guard<std::mutex> lock(cache->mu);
  if (cache->entries.size() >= 512) cache->entries.clear();
  cache->entries.emplace(key, std::make_pair(space, err));
  error = err;
  return space;
}

const bool provider_installed = (set_record_space_provider(registered_space), true);

}  // namespace

ConfigEntity& get_config() {
  MINITVM_USER_CHECK(!tl_calls.empty()) << "get_config() called outside a template call (only a "
                                           "registered template run by a Task, a tuner or "
                                           "apply_template has a config)";
  return *tl_calls.back().first;
}

const Target& template_target() {
  MINITVM_USER_CHECK(!tl_calls.empty()) << "template_target() called outside a template call";
  return *tl_calls.back().second;
}

bool register_template(const std::string& name, ArgsTemplateFn fn) {
  MINITVM_USER_CHECK(!name.empty() && fn) << "register_template: empty name or function";
  return register_template(
      name, TemplateFn([fn = std::move(fn)](ConfigEntity&, const Json& args) { return fn(args); }));
}

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
    : name_(std::move(name)),
      args_(std::move(args)),
      target_str_(target),
      target_(parse_target(target)) {
  MINITVM_USER_CHECK(args_.is_array()) << "task " << name_ << ": args must be a JSON array";
  fn_ = find_template(name_);
  if (!fn_)
    MINITVM_USER_ERROR << "unknown tuning template '" << name_
                       << "' (registered: " << registered_names() << ")";
  workload_ = workload_v02(name_, args_);
  FallbackConfigEntity cfg;
  TemplateResult r = invoke(*fn_, cfg, args_, target_);
  space_ = cfg.space();
  flop_ = r.flop;
  bytes_ = r.bytes;
  MINITVM_USER_CHECK(space_.size() >= 1) << "task " << name_ << ": empty config space";
}

std::string Task::workload_key() const {
  return autotune::workload_key(workload_);
}

double Task::throughput(double seconds) const {
  if (!(seconds > 0) || seconds >= 1e9) return 0;
  double work = flop_ > 0 ? flop_ : bytes_;
  return work / seconds / 1e9;
}

TemplateResult Task::instantiate(ConfigEntity& cfg) const {
  MINITVM_USER_CHECK(fn_) << "Task::instantiate on an empty task";
  return invoke(*fn_, cfg, args_, target_);
}

AppliedTemplate apply_template(const std::string& name, const Json& args,
                               const std::string& target) {
  const TemplateFn* fn = find_template(name);
  if (!fn)
    MINITVM_USER_ERROR << "unknown tuning template '" << name
                       << "' (registered: " << registered_names() << ")";
  MINITVM_USER_CHECK(args.is_array()) << "template " << name << ": args must be a JSON array";
  Target t = parse_target(target);
  AppliedTemplate out;
  out.workload = workload_v02(name, args);
  ConfigPtr answer = DispatchContext::current().query(t, out.workload);
  if (!answer || answer->is_fallback()) {
    // A fresh fallback (the root context caches one per workload; the template must not fill a
    // shared object): every knob its first candidate, as TVM's FallbackConfigEntity.
    FallbackConfigEntity fb;
    out.result = invoke(*fn, fb, args, t);
    out.config = fb;
    out.is_fallback = true;
    return out;
  }
  ConfigEntity cfg = *answer;
  Task task(name, args, target);
  require_config_fits(cfg, task.config_space(), "template " + name);
  out.result = invoke(*fn, cfg, args, t);
  out.config = cfg;
  return out;
}

Json parse_cli_arg(const std::string& text) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Json(text);
  return j;
}

namespace {

// Op strategies and argument rules of extract_tasks (filled by topi from static init).
struct StrategyRegistry {
  std::mutex mu;
  std::map<std::string, OpStrategyFn> strategies;  // by op
  std::map<std::string, TaskArgsFn> args_rules;    // by template name
};

StrategyRegistry& strategy_registry() {
  static StrategyRegistry* r = new StrategyRegistry();  // never destroyed, as the templates'
  return *r;
}

}  // namespace

bool register_op_strategy(const std::string& op, OpStrategyFn fn) {
  MINITVM_USER_CHECK(!op.empty() && fn) << "register_op_strategy: empty op or function";
  StrategyRegistry& r = strategy_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.strategies[op] = std::move(fn);
  return true;
}

bool register_task_args(const std::string& template_name, TaskArgsFn fn) {
  MINITVM_USER_CHECK(!template_name.empty() && fn)
      << "register_task_args: empty template name or function";
  StrategyRegistry& r = strategy_registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.args_rules[template_name] = std::move(fn);
  return true;
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
    Json args = layer.value("args", Json::array());
    // (template, args) of each task of the layer, in TVM's order.
    std::vector<std::pair<std::string, Json>> picks;
    if (layer.contains("template")) {
      MINITVM_USER_CHECK(layer["template"].is_string())
          << "network layer " << idx << ": \"template\" must be a string";
      picks.emplace_back(layer["template"].get<std::string>(), args);
    } else {
      MINITVM_USER_CHECK(layer.contains("op") && layer["op"].is_string())
          << "network layer " << idx << ": needs \"op\" or \"template\"";
      std::string op = layer["op"].get<std::string>();
      OpStrategyFn strategy;
      {
        StrategyRegistry& r = strategy_registry();
        std::lock_guard<std::mutex> lock(r.mu);
        if (auto it = r.strategies.find(op); it != r.strategies.end()) strategy = it->second;
      }
      if (strategy)
        picks = strategy(kind, args);
      else
        picks.emplace_back(op + "." + kind, args);
    }
    for (auto& [tpl, a] : picks) {
      TaskArgsFn rule;
      {
        StrategyRegistry& r = strategy_registry();
        std::lock_guard<std::mutex> lock(r.mu);
        if (auto it = r.args_rules.find(tpl); it != r.args_rules.end()) rule = it->second;
      }
      if (rule) a = rule(a);
      std::string key = tpl + "|" + a.dump();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      if (!find_template(tpl)) {
        log_warning("extract_tasks: no template '" + tpl + "' registered; layer " +
                    std::to_string(idx) + " skipped");
        if (skipped) skipped->push_back(tpl);
        continue;
      }
      tasks.emplace_back(tpl, a, target);
    }
  }
  return tasks;
}

}  // namespace minitvm::autotune
