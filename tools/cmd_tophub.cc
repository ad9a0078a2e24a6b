// `minitvm tophub inspect ...`: summaries of TVM tuning logs and the configs ApplyHistoryBest
// picks.
#include <iostream>

#include "cli.h"
#include "commands.h"
#include "minitvm/devtools/inspect.h"

namespace minitvm::tools {
int run_tophub_check(const std::vector<std::string>& args);  // tools/cmd_tophub_check.cc
}

namespace {

const char* kTophubUsage =
    "usage: minitvm tophub inspect FILE_OR_DIR... [--best TARGET [--json]] [--strict]\n"
    "       minitvm tophub check FILE... [--emulate] [--limit N]\n";

int run_tophub_inspect(const std::vector<std::string>& args) {
  auto app = minitvm::cli::make_app(
      "minitvm tophub inspect",
      "Records, formats, targets, tasks and workloads of each log; with --best, the config "
      "ApplyHistoryBest "
      "picks per workload for TARGET.",
      "usage: minitvm tophub inspect FILE_OR_DIR... [--best TARGET [--json]] [--strict]");
  std::vector<std::string> paths;
  std::string best;
  bool json = false, strict = false;
  app->add_option("paths", paths, "tuning logs, or folders of *.log files")->required();
  auto* best_opt =
      app->add_option("--best", best, "list the best record per workload for this target");
  app->add_flag("--json", json, "the --best list as JSON")->needs(best_opt);
  app->add_flag("--strict", strict, "a malformed line is an error, not a skipped line");
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  // The options are checked; the library reads the same spellings.
  return minitvm::autotune::tophub_inspect(args, std::cout, std::cerr);
}

int run_tophub(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "check")
    return minitvm::tools::run_tophub_check({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "inspect")
    return run_tophub_inspect({args.begin() + 1, args.end()});
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::cout << kTophubUsage
              << "\nrun 'minitvm tophub inspect --help' or 'minitvm tophub check --help' for the "
                 "options\n";
    return 0;
  }
  if (!args.empty()) std::cerr << "minitvm tophub: unknown subcommand '" << args[0] << "'\n";
  std::cerr << kTophubUsage;
  return 2;
}

}  // namespace

MINITVM_COMMAND("tophub", "inspect TVM tuning logs (records, workloads, best configs)", run_tophub);
