// Gradient-boosted regression trees, knob features, and the model-based tuner.
#include "minitvm/autotune/tuner_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "minitvm/support/error.h"

namespace minitvm::autotune {
namespace {

/** Features contributed by one candidate of a knob. */
std::vector<double> entity_features(const KnobSpace& knob, size_t pos) {
  std::vector<double> f;
  const Entity& e = knob.entities[pos];
  if (const auto* sp = std::get_if<SplitEntity>(&e)) {
    for (size_t k = 1; k < sp->size.size(); ++k)
      f.push_back(std::log2(static_cast<double>(std::max<int64_t>(1, sp->size[k]))));
    if (sp->size.size() <= 1) f.push_back(static_cast<double>(pos));
    return f;
  }
  f.push_back(static_cast<double>(pos));
  if (const auto* ot = std::get_if<OtherOptionEntity>(&e)) {
    double v = 0;
    if (ot->val.is_number())
      v = ot->val.get<double>();
    else if (ot->val.is_boolean())
      v = ot->val.get<bool>() ? 1 : 0;
    f.push_back(v);
  }
  return f;
}

/** Per knob, per candidate: its features (all candidates of a knob give the same length). */
std::vector<std::vector<std::vector<double>>> feature_table(const ConfigSpace& space) {
  std::vector<std::vector<std::vector<double>>> t;
  for (const auto& knob : space.knobs()) {
    std::vector<std::vector<double>> rows;
    size_t width = 0;
    for (size_t p = 0; p < knob.size(); ++p) {
      rows.push_back(entity_features(knob, p));
      width = std::max(width, rows.back().size());
    }
    for (auto& r : rows) r.resize(width, 0.0);
    t.push_back(std::move(rows));
  }
  return t;
}

std::vector<double> features_from_table(const std::vector<std::vector<std::vector<double>>>& table,
                                        int64_t index) {
  std::vector<double> f;
  for (const auto& knob : table) {
    int64_t d = index % static_cast<int64_t>(knob.size());
    index /= static_cast<int64_t>(knob.size());
    f.insert(f.end(), knob[d].begin(), knob[d].end());
  }
  return f;
}

}  // namespace

std::vector<double> knob_features(const ConfigSpace& space, int64_t index) {
  MINITVM_USER_CHECK(index >= 0 && index < space.size())
      << "knob_features: index " << index << " out of range";
  return features_from_table(feature_table(space), index);
}

// ---- Gbdt ----------------------------------------------------------------------------------

int Gbdt::build(Tree& t, const std::vector<std::vector<double>>& x, const std::vector<double>& g,
                std::vector<size_t>& rows, int depth, const GbdtOptions& opt) {
  double sum = 0;
  for (size_t r : rows) sum += g[r];
  int id = static_cast<int>(t.size());
  t.push_back(Node{});
  t[id].value = sum / (static_cast<double>(rows.size()) + opt.lambda);
  if (depth >= opt.max_depth || static_cast<int>(rows.size()) < 2 * opt.min_samples_leaf) return id;

  const double n = static_cast<double>(rows.size());
  const double parent = sum * sum / (n + opt.lambda);
  double best_gain = 1e-12;
  int best_f = -1;
  double best_thr = 0;
  size_t nf = x[rows[0]].size();
  std::vector<size_t> order = rows;
  for (size_t f = 0; f < nf; ++f) {
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a][f] < x[b][f]; });
    double left = 0;
    for (size_t k = 0; k + 1 < order.size(); ++k) {
      left += g[order[k]];
      double xa = x[order[k]][f], xb = x[order[k + 1]][f];
      if (xa == xb) continue;
      double nl = static_cast<double>(k + 1), nr = n - nl;
      if (nl < opt.min_samples_leaf || nr < opt.min_samples_leaf) continue;
      double right = sum - left;
      double gain = left * left / (nl + opt.lambda) + right * right / (nr + opt.lambda) - parent;
      if (gain > best_gain) {
        best_gain = gain;
        best_f = static_cast<int>(f);
        best_thr = 0.5 * (xa + xb);
      }
    }
  }
  if (best_f < 0) return id;
  std::vector<size_t> lrows, rrows;
  for (size_t r : rows) (x[r][best_f] < best_thr ? lrows : rrows).push_back(r);
  t[id].feature = best_f;
  t[id].threshold = best_thr;
  int l = build(t, x, g, lrows, depth + 1, opt);
  int r = build(t, x, g, rrows, depth + 1, opt);
  t[id].left = l;
  t[id].right = r;
  return id;
}

void Gbdt::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
               const GbdtOptions& opt) {
  MINITVM_USER_CHECK(x.size() == y.size() && !x.empty())
      << "Gbdt::fit: need as many rows as targets (>= 1)";
  for (const auto& row : x)
    MINITVM_USER_CHECK(row.size() == x[0].size()) << "Gbdt::fit: rows of different lengths";
  trees_.clear();
  lr_ = opt.learning_rate;
  base_ = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  std::vector<double> pred(y.size(), base_), resid(y.size());
  for (int k = 0; k < opt.n_trees; ++k) {
    for (size_t i = 0; i < y.size(); ++i) resid[i] = y[i] - pred[i];
    std::vector<size_t> rows(y.size());
    std::iota(rows.begin(), rows.end(), 0);
    Tree t;
    build(t, x, resid, rows, 0, opt);
    for (size_t i = 0; i < y.size(); ++i) pred[i] += lr_ * eval(t, x[i]);
    trees_.push_back(std::move(t));
  }
  fitted_ = true;
}

double Gbdt::eval(const Tree& t, const std::vector<double>& x) {
  int n = 0;
  while (t[n].feature >= 0) n = x[t[n].feature] < t[n].threshold ? t[n].left : t[n].right;
  return t[n].value;
}

double Gbdt::predict(const std::vector<double>& x) const {
  double s = base_;
  for (const auto& t : trees_) s += lr_ * eval(t, x);
  return s;
}

// ---- ModelTuner ----------------------------------------------------------------------------

ModelTuner::ModelTuner(ConfigSpace space, uint64_t seed, int plan_size, double eps_greedy)
    : Tuner(std::move(space), seed), plan_size_(std::max(1, plan_size)), eps_(eps_greedy) {}

void ModelTuner::update(const std::vector<int64_t>& indices,
                        const std::vector<MeasureResult>& results) {
  auto table = feature_table(space_);
  for (size_t k = 0; k < indices.size(); ++k) {
    xs_.push_back(features_from_table(table, indices[k]));
    scores_.push_back(result_score(results[k]));
  }
  dirty_ = true;
}

// Targets: log of the score relative to the best (costs add up from knob effects, so the log
// scale is closer to additive than raw throughput); failed configs sit below the worst success.
// Empty when nothing succeeded.
static std::vector<double> log_score_targets(const std::vector<double>& scores) {
  if (scores.empty()) return {};
  double top = *std::max_element(scores.begin(), scores.end());
  if (!(top > 0)) return {};
  double worst = top;
  for (double s : scores)
    if (s > 0) worst = std::min(worst, s);
  std::vector<double> y;
  for (double s : scores) y.push_back(s > 0 ? std::log(s / top) : std::log(worst / top) - 0.5);
  return y;
}

void ModelTuner::set_transfer_data(std::vector<std::vector<double>> xs,
                                   std::vector<double> targets) {
  MINITVM_USER_CHECK(xs.size() == targets.size())
      << "set_transfer_data: " << xs.size() << " rows but " << targets.size() << " targets";
  const size_t width = knob_features(space_, 0).size();
  transfer_x_.clear();
  transfer_y_.clear();
  for (size_t k = 0; k < xs.size(); ++k) {
    if (xs[k].size() != width || !std::isfinite(targets[k])) continue;
    transfer_x_.push_back(std::move(xs[k]));
    transfer_y_.push_back(targets[k]);
  }
  dirty_ = true;
}

void ModelTuner::transfer_rows(std::vector<std::vector<double>>& xs,
                               std::vector<double>& targets) const {
  std::vector<double> y = log_score_targets(scores_);
  if (y.empty()) return;
  xs.insert(xs.end(), xs_.begin(), xs_.end());
  targets.insert(targets.end(), y.begin(), y.end());
}

void ModelTuner::replan() {
  plan_.clear();
  std::vector<double> y = log_score_targets(scores_);
  if (y.empty() && transfer_x_.empty()) return;  // nothing learned yet: stay random
  std::vector<std::vector<double>> x = transfer_x_;
  std::vector<double> yy = transfer_y_;
  if (!y.empty()) {
    x.insert(x.end(), xs_.begin(), xs_.end());
    yy.insert(yy.end(), y.begin(), y.end());
  }
  // A handful of rows (a network task's fallback trial alone) says nothing about the space: keep
  // the initial design until there are a few.
  constexpr size_t kMinRows = 4;
  if (x.size() < kMinRows && !model_.fitted()) return;
  model_.fit(x, yy, gbdt);

  auto table = feature_table(space_);
  std::unordered_map<int64_t, double> cache;
  auto score = [&](int64_t i) {
    auto it = cache.find(i);
    if (it != cache.end()) return it->second;
    double v = model_.predict(features_from_table(table, i));
    cache.emplace(i, v);
    return v;
  };
  // Best unvisited points seen: (score, index), kept to plan_size_ entries.
  std::set<std::pair<double, int64_t>> best;
  std::set<int64_t> in_best;
  const int plan_keep = 4 * plan_size_;
  auto offer = [&](int64_t i, double s) {
    if (visited(i) || in_best.count(i)) return false;
    if (static_cast<int>(best.size()) < plan_keep) {
      best.insert({s, i});
      in_best.insert(i);
      return true;
    }
    if (s <= best.begin()->first) return false;
    in_best.erase(best.begin()->second);
    best.erase(best.begin());
    best.insert({s, i});
    in_best.insert(i);
    return true;
  };
  std::uniform_int_distribution<int64_t> uidx(0, space_.size() - 1);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  int n_points = static_cast<int>(std::min<int64_t>(sa_parallel, space_.size()));
  std::vector<int64_t> points(n_points);
  std::vector<double> pscore(n_points);
  for (int p = 0; p < n_points; ++p) {
    points[p] = uidx(rng_);
    pscore[p] = score(points[p]);
    offer(points[p], pscore[p]);
  }
  int since_change = 0;
  for (int it = 0; it < sa_iters && since_change < 50; ++it) {
    double temp = 1.0 - static_cast<double>(it) / sa_iters;
    bool changed = false;
    for (int p = 0; p < n_points; ++p) {
      std::vector<int64_t> d = digits(points[p]);
      size_t k = std::uniform_int_distribution<size_t>(0, d.size() - 1)(rng_);
      if (dims_[k] <= 1) continue;
      d[k] = std::uniform_int_distribution<int64_t>(0, dims_[k] - 1)(rng_);
      int64_t q = index_of_digits(d);
      double s = score(q);
      changed |= offer(q, s);
      if (s >= pscore[p] ||
          (temp > 0 && u01(rng_) < std::exp((s - pscore[p]) / std::max(temp, 1e-9)))) {
        points[p] = q;
        pscore[p] = s;
      }
    }
    since_change = changed ? 0 : since_change + 1;
  }
  for (auto it = best.rbegin(); it != best.rend(); ++it) plan_.push_back(it->second);
}

std::vector<int64_t> ModelTuner::next_batch(int n) {
  if (dirty_) {
    replan();
    dirty_ = false;
  }
  // Diversity-aware pick (TVM's submodular pick over knob values): greedily take the plan entry
  // maximising predicted score + diversity_weight * (knob values it adds to this batch) / #knobs.
  std::vector<int64_t> cand;
  std::vector<double> pred;
  for (int64_t i : plan_)
    if (!visited(i)) cand.push_back(i);
  if (model_.fitted()) {
    auto table = feature_table(space_);
    for (int64_t i : cand) pred.push_back(model_.predict(features_from_table(table, i)));
  }
  std::vector<std::set<int64_t>> covered(dims_.size());
  std::vector<int64_t> out;
  if (!model_.fitted()) {
    // Initial design (Latin-hypercube style): knob j of the k-th config takes value perm_j[k mod
    // dim_j], so a batch at least as large as a knob covers all of that knob's values.
    std::vector<std::vector<int64_t>> perms;
    for (int64_t dim : dims_) {
      std::vector<int64_t> p(static_cast<size_t>(dim));
      std::iota(p.begin(), p.end(), 0);
      std::shuffle(p.begin(), p.end(), rng_);
      perms.push_back(std::move(p));
    }
    for (int k = 0; static_cast<int>(out.size()) < n && has_next() && k < 4 * n; ++k) {
      std::vector<int64_t> d(dims_.size());
      for (size_t j = 0; j < d.size(); ++j)
        d[j] = perms[j][static_cast<size_t>(k) % perms[j].size()];
      int64_t i = index_of_digits(d);
      if (visited(i)) continue;
      mark_visited(i);
      out.push_back(i);
    }
  }
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<bool> used(cand.size(), false);
  while (static_cast<int>(out.size()) < n && has_next()) {
    int64_t pick = -1;
    if (u01(rng_) >= eps_) {
      double best = -1e300;
      size_t best_k = 0;
      for (size_t k = 0; k < cand.size(); ++k) {
        if (used[k] || visited(cand[k])) continue;
        std::vector<int64_t> d = digits(cand[k]);
        int fresh = 0;
        for (size_t j = 0; j < d.size(); ++j) fresh += covered[j].count(d[j]) == 0;
        double v = (pred.empty() ? 0.0 : pred[k]) +
                   diversity_weight * fresh / std::max<size_t>(1, d.size());
        if (v > best) {
          best = v;
          best_k = k;
          pick = cand[k];
        }
      }
      if (pick >= 0) used[best_k] = true;
    }
    if (pick < 0) pick = random_unvisited();
    if (pick < 0) break;
    std::vector<int64_t> d = digits(pick);
    for (size_t j = 0; j < d.size(); ++j) covered[j].insert(d[j]);
    mark_visited(pick);
    out.push_back(pick);
  }
  return out;
}

}  // namespace minitvm::autotune
