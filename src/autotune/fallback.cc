// Reference-log fallback (TVM fallback_with_reference_log / fallback_split).
#include "minitvm/autotune/fallback.h"

#include <algorithm>
#include <map>

#include "minitvm/support/error.h"

namespace minitvm::autotune {

std::vector<int64_t> fallback_split(int64_t length, const std::vector<int64_t>& constraint) {
  MINITVM_USER_CHECK(length >= 1) << "fallback_split: axis length " << length << " is not positive";
  std::vector<int64_t> size(constraint.size(), 1);
  int64_t now = length;
  for (size_t ii = constraint.size(); ii-- > 0;) {
    int64_t bound = constraint[ii] == -1 ? INT64_MAX : constraint[ii];
    MINITVM_USER_CHECK(bound >= 1)
        << "fallback_split: cannot fit part " << ii << " under bound " << constraint[ii];
    int64_t best = 1;
    for (int64_t f : get_factors(now))
      if (f <= bound) best = f;
    size[ii] = best;
    now /= best;
  }
  return size;
}

static int64_t size_product(const SplitEntity& e) {
  int64_t p = 1;
  for (size_t i = 0; i < e.size.size(); ++i) {
    if (i == 0 && e.size[i] == -1) continue;
    if (e.size[i] < 1 || p > (int64_t{1} << 40) / e.size[i]) return 0;
    p *= e.size[i];
  }
  return p;
}

double reference_score(const ConfigSpace& space, const ConfigEntity& ref) {
  double score = 0;
  for (const auto& k : space.knobs()) {
    if (k.kind != "sp" || k.axis_length < 1) continue;
    if (!ref.has(k.name)) continue;
    const auto* e = std::get_if<SplitEntity>(&ref.get(k.name));
    if (!e) continue;
    int64_t p = size_product(*e);
    if (p < 1) continue;
    auto fl = get_factors(k.axis_length);
    auto fr = get_factors(p);
    std::vector<int64_t> common;
    std::set_intersection(fl.begin(), fl.end(), fr.begin(), fr.end(), std::back_inserter(common));
    score += static_cast<double>(common.size()) / static_cast<double>(fl.size());
  }
  return score;
}

const Record* fallback_with_reference_log(ConfigEntity& cfg, const std::vector<Record>& ref_log) {
  const ConfigSpace& space = cfg.space();
  const Record* best = nullptr;
  double best_score = 0;
  for (const auto& r : ref_log) {
    double s = reference_score(space, r.input.config);
    if (s > best_score) {
      best_score = s;
      best = &r;
    }
  }
  if (!best) return nullptr;
  const ConfigEntity& ref = best->input.config;
  for (const auto& k : space.knobs()) {
    if (!ref.has(k.name)) continue;
    const Entity& re = ref.get(k.name);
    if (k.kind == "sp") {
      const auto* se = std::get_if<SplitEntity>(&re);
      if (!se || k.axis_length < 1 || static_cast<int>(se->size.size()) != k.num_outputs) continue;
      std::vector<int64_t> c = se->size;
      c[0] = -1;
      cfg.set(k.name, SplitEntity{fallback_split(k.axis_length, c)});
    } else {
      cfg.set(k.name, re);
    }
  }
  return best;
}

std::vector<Record> select_reference_records(const std::vector<Record>& log,
                                             const std::string& model,
                                             const std::string& workload_name,
                                             const std::string& template_key,
                                             ReferenceModelRule rule) {
  std::string use = model;
  bool found = std::any_of(log.begin(), log.end(),
                           [&](const Record& r) { return r.input.target.model() == model; });
  if (!found && !log.empty()) {
    if (rule == ReferenceModelRule::LastRecord) {
      use = log.back().input.target.model();
    } else {
      std::vector<std::pair<std::string, int>> counts;  // insertion ordered, like a Python dict
      for (const auto& r : log) {
        auto m = r.input.target.model();
        auto it = std::find_if(counts.begin(), counts.end(), [&](auto& p) { return p.first == m; });
        if (it == counts.end())
          counts.emplace_back(m, 1);
        else
          ++it->second;
      }
      auto best = counts.begin();
      for (auto it = counts.begin(); it != counts.end(); ++it)
        if (it->second > best->second) best = it;
      use = best->first;
    }
  }
  std::vector<Record> out;
  for (const auto& r : log) {
    if (r.input.target.model() != use) continue;
    const Json& w = r.input.workload;
    if (w.empty() || !w[0].is_string() || w[0].get<std::string>() != workload_name) continue;
    if (!template_key.empty() && r.input.config.template_key != template_key) continue;
    out.push_back(r);
  }
  return out;
}

}  // namespace minitvm::autotune
