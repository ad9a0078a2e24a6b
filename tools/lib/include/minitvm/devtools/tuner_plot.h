/** \file
 * Tuning curves as a standalone SVG: best-so-far throughput against trial number, one polyline per
 * curve (e.g. per tuner), with axes, ticks and a legend. No external dependencies.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/record.h"

namespace minitvm::autotune {

struct TuningCurve {
  std::string label;
  /** Best-so-far value after each trial (0 before the first success). */
  std::vector<double> best;
};

/** SVG text of the curves; `y_label` names the unit (e.g. "best GFLOP/s"). */
std::string tuning_curves_svg(const std::vector<TuningCurve>& curves, const std::string& title,
                              const std::string& y_label);

/** Curve of a log: records in file order; value = work / mean cost / 1e9 where `work` is the
 *  task's flop (or bytes) when its template is registered, else 1 / mean cost (then `unit` is
 *  set to "1/s"). `unit` receives "GFLOP/s", "GB/s" or "1/s". */
TuningCurve curve_from_records(const std::vector<Record>& records, const std::string& label,
                               std::string* unit);

}  // namespace minitvm::autotune
