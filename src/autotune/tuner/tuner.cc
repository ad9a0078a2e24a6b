// Tuner base loop and the random, grid and genetic tuners.
#include "minitvm/autotune/tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "minitvm/autotune/tuner_model.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

double result_score(const MeasureResult& r) {
  if (r.error_no != 0 || r.costs.empty()) return 0;
  double c = r.mean_cost();
  return c > 0 && c < 1e9 ? 1.0 / c : 0;
}

Tuner::Tuner(ConfigSpace space, uint64_t seed)
    : space_(std::move(space)), rng_(seed), best_cost_(std::numeric_limits<double>::infinity()) {
  for (const auto& k : space_.knobs()) dims_.push_back(static_cast<int64_t>(k.size()));
  MINITVM_USER_CHECK(space_.size() >= 1) << "tuner: empty config space";
}

void Tuner::update(const std::vector<int64_t>&, const std::vector<MeasureResult>&) {}

void Tuner::record(int64_t index, const MeasureResult& r) {
  mark_visited(index);
  ++trials_;
  if (result_score(r) > 0) {
    double c = r.mean_cost();
    if (c < best_cost_) {
      best_cost_ = c;
      best_index_ = index;
      best_trial_ = trials_;
    }
  }
  curve_.push_back(best_cost_);
}

void Tuner::load_history(const std::vector<std::pair<int64_t, MeasureResult>>& history) {
  std::vector<int64_t> idx;
  std::vector<MeasureResult> res;
  for (const auto& [i, r] : history) {
    if (i < 0 || i >= space_.size() || visited(i)) continue;
    record(i, r);
    idx.push_back(i);
    res.push_back(r);
  }
  if (!idx.empty()) update(idx, res);
}

int Tuner::tune(Measurer& measurer, const TuneOptions& opt,
                const std::vector<TuneCallback>& callbacks) {
  int64_t budget = std::min<int64_t>(opt.n_trial, space_.size());
  planned_ = static_cast<int>(budget);
  int batch = opt.batch_size > 0 ? opt.batch_size : preferred_batch_size();
  int measured = 0;
  while (trials_ < budget && has_next()) {
    if (opt.early_stopping > 0 && best_trial_ > 0 && trials_ - best_trial_ >= opt.early_stopping)
      break;
    int n = static_cast<int>(std::min<int64_t>(batch, budget - trials_));
    std::vector<int64_t> idx = next_batch(n);
    if (idx.empty()) break;
    std::vector<ConfigEntity> cfgs;
    for (int64_t i : idx) cfgs.push_back(space_.get(i));
    std::vector<MeasureOutcome> outs = measurer.measure(cfgs);
    MINITVM_ICHECK(outs.size() == cfgs.size())
        << "measurer returned " << outs.size() << " results for " << cfgs.size() << " configs";
    std::vector<MeasureResult> res;
    for (size_t k = 0; k < idx.size(); ++k) {
      record(idx[k], outs[k].result);
      res.push_back(outs[k].result);
    }
    measured += static_cast<int>(idx.size());
    update(idx, res);
    for (const auto& cb : callbacks) cb(*this, outs);
  }
  return measured;
}

int64_t Tuner::random_unvisited() {
  std::uniform_int_distribution<int64_t> u(0, space_.size() - 1);
  for (int attempt = 0; attempt < 64; ++attempt) {
    int64_t i = u(rng_);
    if (!visited(i)) return i;
  }
  // Dense visits: scan from a random start.
  int64_t start = u(rng_);
  for (int64_t k = 0; k < space_.size(); ++k) {
    int64_t i = (start + k) % space_.size();
    if (!visited(i)) return i;
  }
  return -1;
}

std::vector<int64_t> Tuner::digits(int64_t index) const {
  std::vector<int64_t> d(dims_.size());
  for (size_t k = 0; k < dims_.size(); ++k) {
    d[k] = index % dims_[k];
    index /= dims_[k];
  }
  return d;
}

int64_t Tuner::index_of_digits(const std::vector<int64_t>& d) const {
  int64_t index = 0;
  for (size_t k = dims_.size(); k-- > 0;) index = index * dims_[k] + d[k];
  return index;
}

std::vector<int64_t> RandomTuner::next_batch(int n) {
  std::vector<int64_t> out;
  while (static_cast<int>(out.size()) < n && has_next()) {
    int64_t i = random_unvisited();
    mark_visited(i);  // reserved; tune() records it after measuring
    out.push_back(i);
  }
  return out;
}

std::vector<int64_t> GridSearchTuner::next_batch(int n) {
  std::vector<int64_t> out;
  while (static_cast<int>(out.size()) < n && counter_ < space_.size()) {
    int64_t i = counter_++;
    if (visited(i)) continue;
    mark_visited(i);
    out.push_back(i);
  }
  return out;
}

GATuner::GATuner(ConfigSpace space, uint64_t seed, int pop_size, int elite_num,
                 double mutation_prob)
    : Tuner(std::move(space), seed), elite_num_(elite_num), mutation_prob_(mutation_prob) {
  pop_size_ = static_cast<int>(std::min<int64_t>(pop_size, space_.size()));
  elite_num_ = std::min(elite_num_, pop_size_);
}

void GATuner::update(const std::vector<int64_t>& indices,
                     const std::vector<MeasureResult>& results) {
  for (size_t k = 0; k < indices.size(); ++k)
    scored_.push_back({result_score(results[k]), indices[k]});
}

void GATuner::next_generation() {
  // Parents: the best pop_size measured configs.
  std::vector<std::pair<double, int64_t>> pop = scored_;
  std::stable_sort(pop.begin(), pop.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (static_cast<int>(pop.size()) > pop_size_) pop.resize(pop_size_);
  std::vector<int64_t> next;
  auto push_unvisited = [&](int64_t i) {
    if (i < 0 || visited(i) || std::find(next.begin(), next.end(), i) != next.end()) return false;
    next.push_back(i);
    return true;
  };
  if (pop.empty()) {
    while (static_cast<int>(next.size()) < pop_size_ && has_next()) {
      int64_t i = random_unvisited();
      mark_visited(i);
      next.push_back(i);
    }
    for (int64_t i : next) pending_.push_back(i);
    return;
  }
  double total = 0;
  for (const auto& p : pop) total += p.first;
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  auto pick_parent = [&]() -> int64_t {
    if (total <= 0)
      return pop[std::uniform_int_distribution<size_t>(0, pop.size() - 1)(rng_)].second;
    double r = u01(rng_) * total;
    for (const auto& p : pop) {
      r -= p.first;
      if (r <= 0) return p.second;
    }
    return pop.back().second;
  };
  // Elites are already measured: they stay parents (via scored_) rather than being re-measured.
  int attempts = 0;
  while (static_cast<int>(next.size()) < pop_size_ && has_next() && attempts < pop_size_ * 50) {
    ++attempts;
    std::vector<int64_t> a = digits(pick_parent()), b = digits(pick_parent());
    size_t point =
        dims_.size() > 1 ? std::uniform_int_distribution<size_t>(1, dims_.size() - 1)(rng_) : 0;
    std::vector<int64_t> child(a.begin(), a.begin() + static_cast<long>(point));
    child.insert(child.end(), b.begin() + static_cast<long>(point), b.end());
    for (size_t k = 0; k < child.size(); ++k)
      if (u01(rng_) < mutation_prob_)
        child[k] = std::uniform_int_distribution<int64_t>(0, dims_[k] - 1)(rng_);
    push_unvisited(index_of_digits(child));
  }
  // Converged population: fill with random configs so a batch is never short.
  while (static_cast<int>(next.size()) < pop_size_ &&
         static_cast<int64_t>(next.size()) + static_cast<int64_t>(0) < space_.size()) {
    bool any = false;
    for (int tries = 0; tries < 8 && !any; ++tries) any = push_unvisited(random_unvisited());
    if (!any) break;
  }
  for (int64_t i : next) {
    mark_visited(i);
    pending_.push_back(i);
  }
}

std::vector<int64_t> GATuner::next_batch(int n) {
  std::vector<int64_t> out;
  while (static_cast<int>(out.size()) < n) {
    if (pending_.empty()) {
      next_generation();
      if (pending_.empty()) break;
    }
    out.push_back(pending_.front());
    pending_.erase(pending_.begin());
  }
  return out;
}

std::unique_ptr<Tuner> make_tuner(const std::string& name, const ConfigSpace& space,
                                  uint64_t seed) {
  if (name == "random") return std::make_unique<RandomTuner>(space, seed);
  if (name == "grid" || name == "gridsearch") return std::make_unique<GridSearchTuner>(space, seed);
  if (name == "ga") return std::make_unique<GATuner>(space, seed);
  if (name == "xgb" || name == "model") return std::make_unique<ModelTuner>(space, seed);
  MINITVM_USER_ERROR << "unknown tuner '" << name << "' (expected xgb, ga, random or grid)";
  return nullptr;
}

}  // namespace minitvm::autotune
