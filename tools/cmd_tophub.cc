// `minitvm tophub inspect ...`: summaries of TVM tuning logs and the configs ApplyHistoryBest picks.
#include <iostream>

#include "commands.h"
#include "minitvm/autotune/inspect.h"

namespace minitvm::tools {
int run_tophub_check(const std::vector<std::string>& args);  // tools/cmd_tophub_check.cc
}

static int run_tophub(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "check") return minitvm::tools::run_tophub_check({args.begin() + 1, args.end()});
  if (args.empty() || args[0] != "inspect") {
    std::cerr << "usage: minitvm tophub inspect FILE_OR_DIR... [--best TARGET [--json]] [--strict]\n"
                 "       minitvm tophub check FILE... [--emulate] [--limit N]\n";
    return 2;
  }
  return minitvm::autotune::tophub_inspect({args.begin() + 1, args.end()}, std::cout, std::cerr);
}

MINITVM_COMMAND("tophub", "inspect TVM tuning logs (records, workloads, best configs)", run_tophub);
