// Synthetic spaces and cost functions for the tuner tests: deterministic, no compilation.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner.h"

namespace minitvm::autotune::testing {

/** A fresh path in the test temp folder (removed if present): PREFIX + name. */
inline std::string temp_path(const std::string& name,
                             const std::string& prefix = "minitvm_tuner_") {
  std::string p = ::testing::TempDir() + prefix + name;
  std::remove(p.c_str());
  return p;
}

/** The lines of a text file. */
inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  return lines;
}

/** Knobs: tile_x (split of 64, 2 parts: 7 candidates), tile_y (split of 32: 6), unroll [0, 1, 2].
 *  126 configs. */
inline void define_synthetic_space(SpaceDefiner& cfg) {
  SplitOptions o;
  cfg.define_split("tile_x", 64, o);
  cfg.define_split("tile_y", 32, o);
  cfg.define_knob("unroll", {Json(0), Json(1), Json(2)});
}

inline ConfigSpace synthetic_space() {
  ConfigSpace s;
  define_synthetic_space(s);
  return s;
}

/** Seconds for a config: a smooth bowl with its minimum at tile_x inner 8, tile_y inner 4,
 *  unroll 1 (1 ms there). Configs with both inner sizes 1 are invalid (nullopt). */
inline std::optional<double> synthetic_cost(const ConfigEntity& c) {
  double x = std::log2(double(c.split("tile_x").size[1]));
  double y = std::log2(double(c.split("tile_y").size[1]));
  int64_t u = c.knob_int("unroll");
  if (x == 0 && y == 0) return std::nullopt;
  return 1e-3 * (1.0 + 0.3 * (x - 3) * (x - 3) + 0.2 * (y - 2) * (y - 2) +
                 (u == 1 ? 0.0 : 0.5 + 0.1 * u) + 0.05 * x * y / 10);
}

/** Measurer evaluating synthetic_cost; records every index it measured. */
class SyntheticMeasurer : public Measurer {
 public:
  std::vector<MeasureOutcome> measure(const std::vector<ConfigEntity>& configs) override {
    std::vector<MeasureOutcome> out;
    for (const auto& c : configs) {
      ++measured_count[c.index];
      order.push_back(c.index);
      MeasureOutcome o;
      o.config = c;
      auto cost = synthetic_cost(c);
      if (cost) {
        o.result.costs = {*cost};
      } else {
        o.result.error_no = static_cast<int>(MeasureErrorNo::InstantiationError);
        o.result.costs = {1e9};
        o.error = "invalid";
      }
      o.result.all_cost = 0.5;
      o.result.timestamp = 1700000000.0 + static_cast<double>(order.size());
      out.push_back(o);
    }
    return out;
  }
  std::map<int64_t, int> measured_count;
  std::vector<int64_t> order;
};

/** Best synthetic cost over the whole space (brute force). */
inline double synthetic_optimum(const ConfigSpace& s) {
  double best = 1e30;
  for (int64_t i = 0; i < s.size(); ++i) {
    auto c = synthetic_cost(s.get(i));
    if (c) best = std::min(best, *c);
  }
  return best;
}

}  // namespace minitvm::autotune::testing
