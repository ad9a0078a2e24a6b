// Dispatch context stack, ApplyHistoryBest best-record rule and the fallback root context.
#include "minitvm/autotune/dispatch.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {

namespace {
thread_local DispatchContext* tl_current = nullptr;

std::string map_key(const std::string& k, const std::string& wkey) {
  return k + '\x1f' + wkey;
}
}  // namespace

FallbackContext& root_fallback_context() {
  static FallbackContext root;
  return root;
}

DispatchContext& DispatchContext::current() {
  return tl_current ? *tl_current : root_fallback_context();
}

ConfigPtr DispatchContext::query(const Target& target, const Json& workload) {
  const std::string wkey = workload_key(workload);
  for (DispatchContext* c = this; c != nullptr;) {
    if (ConfigPtr r = c->query_inside(target, workload, wkey)) return r;
    DispatchContext* root = &root_fallback_context();
    c = c->outer_ ? c->outer_ : (c == root ? nullptr : root);
  }
  MINITVM_INTERNAL_ERROR << "the root FallbackContext did not answer";
  return nullptr;
}

DispatchScope::DispatchScope(DispatchContext& ctx) : ctx_(ctx) {
  MINITVM_USER_CHECK(!ctx.entered_) << "dispatch context entered twice";
  MINITVM_USER_CHECK(&ctx != &root_fallback_context())
      << "the root FallbackContext cannot be entered";
  ctx.outer_ = &DispatchContext::current();
  ctx.entered_ = true;
  tl_current = &ctx;
}

DispatchScope::~DispatchScope() {
  DispatchContext* outer = ctx_.outer_;
  tl_current = outer == &root_fallback_context() ? nullptr : outer;
  ctx_.entered_ = false;
  ctx_.outer_ = nullptr;
}

// ---- ApplyHistoryBest --------------------------------------------------------------------------

void ApplyHistoryBest::load(const std::string& path, const LoadOptions& opt,
                            std::vector<LoadReport>* reports) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file() && e.path().extension() == ".log") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  strict = strict || opt.strict;
  for (const auto& f : files) {
    LoadReport rep;
    auto recs = load_records(f, opt, &rep);
    load_checked(recs, opt.check_index);  // the loader already ran check_record on each
    if (reports) reports->push_back(std::move(rep));
  }
}

void ApplyHistoryBest::offer(std::unordered_map<std::string, Ranked>& map, const std::string& key,
                             const Entry& e, bool is_key) {
  auto [it, inserted] = map.try_emplace(key);
  if (inserted && is_key) key_order_.push_back(key);
  Ranked& r = it->second;
  // After every entry with a mean <= e.mean: ties keep the earlier record first.
  auto pos = std::upper_bound(r.begin(), r.end(), e.mean,
                              [](double m, const Entry& x) { return m < x.mean; });
  r.insert(pos, e);
}

void ApplyHistoryBest::load(const std::vector<Record>& records) {
  load_checked(records, false);
}

void ApplyHistoryBest::load_checked(const std::vector<Record>& records, bool checked) {
  for (const auto& r : records) {
    if (r.result.error_no != 0) continue;
    auto rec = std::make_shared<const Record>(r);
    records_.push_back(rec);
    if (checked) {
      std::lock_guard<std::mutex> lock(verdict_mu_);
      verdicts_.emplace(rec.get(), "");
    }
    Entry e{rec, std::make_shared<ConfigEntity>(rec->input.config), rec->result.mean_cost()};
    const std::string wkey = workload_key(rec->input.workload);
    for (const auto& k : rec->input.target.keys)
      offer(best_by_targetkey_, map_key(k, wkey), e, true);
    const std::string model = rec->input.target.model();
    auto mk = map_key(model, wkey);
    if (best_by_model_.count(mk) || model != "unknown") offer(best_by_model_, mk, e, false);
  }
}

bool ApplyHistoryBest::fits(const Record& rec) const {
  {
    std::lock_guard<std::mutex> lock(verdict_mu_);
    if (auto it = verdicts_.find(&rec); it != verdicts_.end()) return it->second.empty();
  }
  std::string why;
  try {
    why = check_record(rec);
  } catch (const CompileError& e) {
    why = e.what();
  }
  const std::string where = (rec.source.empty() ? std::string("<in-memory>") : rec.source) + ":" +
                            std::to_string(rec.line);
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(verdict_mu_);
    first = verdicts_.emplace(&rec, why).second;
  }
  if (!why.empty()) {
    MINITVM_USER_CHECK(!strict) << "tuning record at " << where
                                << " does not fit its template: " << why;
    if (first) log_warning("skipping tuning record at " + where + ": " + why);
  }
  return why.empty();
}

const ApplyHistoryBest::Entry* ApplyHistoryBest::first_valid(const Ranked& r) const {
  for (const auto& e : r)
    if (!e.rec || fits(*e.rec)) return &e;
  return nullptr;
}

void ApplyHistoryBest::update(const Target& target, const Json& workload, ConfigEntity cfg) {
  const std::string wkey = workload_key(workload);
  Entry e{nullptr, std::make_shared<ConfigEntity>(std::move(cfg)), 0};
  user_defined_[map_key(target.model(), wkey)] = e;
  for (const auto& k : target.keys) user_defined_[map_key(k, wkey)] = e;
}

const ApplyHistoryBest::Entry* ApplyHistoryBest::lookup(const Target& target,
                                                        const std::string& wkey) const {
  auto find_user = [&](const std::string& k) -> const Entry* {
    auto it = user_defined_.find(map_key(k, wkey));
    return it == user_defined_.end() ? nullptr : &it->second;
  };
  auto find_best = [&](const std::unordered_map<std::string, Ranked>& m,
                       const std::string& k) -> const Entry* {
    auto it = m.find(map_key(k, wkey));
    return it == m.end() ? nullptr : first_valid(it->second);
  };
  const std::string model = target.model();
  if (auto* e = find_user(model)) return e;
  if (auto* e = find_best(best_by_model_, model)) return e;
  for (const auto& k : target.keys) {
    if (auto* e = find_user(k)) return e;
    if (auto* e = find_best(best_by_targetkey_, k)) return e;
  }
  return nullptr;
}

ConfigPtr ApplyHistoryBest::query_inside(const Target& target, const Json&,
                                         const std::string& wkey) {
  const Entry* e = lookup(target, wkey);
  return e ? e->cfg : nullptr;
}

const Record* ApplyHistoryBest::best_record(const Target& target, const Json& workload) const {
  const Entry* e = lookup(target, workload_key(workload));
  return e ? e->rec.get() : nullptr;
}

std::vector<std::string> ApplyHistoryBest::workloads_for_key(const std::string& key) const {
  std::vector<std::string> out;
  const std::string prefix = key + '\x1f';
  for (const auto& k : key_order_)
    if (k.rfind(prefix, 0) == 0 && first_valid(best_by_targetkey_.at(k)))
      out.push_back(k.substr(prefix.size()));
  return out;
}

const Record* ApplyHistoryBest::best_for_key(const std::string& key,
                                             const std::string& wkey) const {
  auto it = best_by_targetkey_.find(map_key(key, wkey));
  if (it == best_by_targetkey_.end()) return nullptr;
  const Entry* e = first_valid(it->second);
  return e ? e->rec.get() : nullptr;
}

// ---- FallbackContext ---------------------------------------------------------------------------

std::string fallback_warning_text(const Target& target, const Json& workload) {
  return "Cannot find config for target=" + target.str() + ", workload=" + workload_key(workload) +
         ". A fallback configuration is used, which may bring great performance regression.";
}

ConfigPtr FallbackContext::query_inside(const Target& target, const Json& workload,
                                        const std::string& wkey) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = map_key(target.str(), wkey);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  bool first = warned_.insert(key).second;
  if (first) fell_back_.push_back(target.str() + " | " + wkey);
  if (first && !silent) log_warning(fallback_warning_text(target, workload));
  auto cfg = std::make_shared<FallbackConfigEntity>();
  cache_.emplace(key, cfg);
  return cfg;
}

void FallbackContext::update(const Target& target, const Json& workload, ConfigEntity cfg) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_[map_key(target.str(), workload_key(workload))] =
      std::make_shared<ConfigEntity>(std::move(cfg));
}

void FallbackContext::clear_fallback_cache(const Target& target, const Json& workload) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.erase(map_key(target.str(), workload_key(workload)));
}

size_t FallbackContext::fallback_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fell_back_.size();
}

void FallbackContext::print_summary(std::ostream& os) const {
  std::lock_guard<std::mutex> lock(mu_);
  os << fell_back_.size() << " workload(s) used a fallback configuration";
  if (fell_back_.empty()) {
    os << "\n";
    return;
  }
  os << ":\n";
  for (const auto& w : fell_back_) os << "  " << w << "\n";
}

void FallbackContext::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.clear();
  warned_.clear();
  fell_back_.clear();
}

}  // namespace minitvm::autotune
