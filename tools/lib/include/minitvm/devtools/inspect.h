/** \file
 * `minitvm tophub inspect FILE_OR_DIR... [--best TARGET [--json]] [--strict]`: summary of tuning
 * logs (records, format versions, targets, models, tasks, distinct workloads, skipped lines with
 * reasons) and, with --best, the config ApplyHistoryBest picks for every workload. Kept in the
 * library so that it can be tested without the command-line tool.
 */
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace minitvm::autotune {

/** Run the inspect subcommand (args exclude "tophub inspect"); returns the exit code. */
int tophub_inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace minitvm::autotune
