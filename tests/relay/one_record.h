/** \file
 * A tuning log of one record for the relay tests: the first config of a task's space that a
 * predicate accepts, made into the history a DispatchScope answers from (as `minitvm tune` would
 * have measured it).
 */
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task.h"

namespace relay_test {

/** The index of the first config of `task`'s space that `accept` takes, or -1. */
inline int64_t find_config(
    const minitvm::autotune::Task& task,
    const std::function<bool(const minitvm::autotune::ConfigEntity&)>& accept) {
  for (int64_t i = 0; i < task.config_space().size(); ++i)
    if (accept(task.config_space().get(i))) return i;
  return -1;
}

/** A history whose one record is config `index` of `task`, measured at 10 us. */
inline minitvm::autotune::ApplyHistoryBest one_record(const minitvm::autotune::Task& task,
                                                      int64_t index) {
  minitvm::autotune::MeasureResult res;
  res.costs = {1e-5};
  return minitvm::autotune::ApplyHistoryBest(std::vector<minitvm::autotune::Record>{
      minitvm::autotune::make_record(task, task.config(index), res)});
}

}  // namespace relay_test
