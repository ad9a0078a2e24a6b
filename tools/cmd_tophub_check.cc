// `minitvm tophub check FILE... [--emulate] [--limit N]`: our CUDA templates over every workload of
// tuning logs (see include/minitvm/devtools/sweep.h). Reached through `minitvm tophub check`.
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "minitvm/autotune/dispatch.h"
#include "minitvm/devtools/sweep.h"

namespace minitvm::tools {

int run_tophub_check(const std::vector<std::string>& args) {
  auto app = cli::make_app(
      "minitvm tophub check",
      "Every distinct workload of the logs built with its best record and checked (docs/TOPI.md).",
      "usage: minitvm tophub check FILE... [--emulate] [--limit N] [--arch sm_90]\n"
      "                            [--max-emulate-macs N] [-v]");
  topi::sweep::SweepOptions opt;
  std::vector<std::string> files;
  app->add_option("files", files, "tuning logs (formats 0.1 and 0.2)")->required();
  app->add_flag("--emulate", opt.check.emulate,
                "run CUDA layers on the emulator against naive loops");
  app->add_option("--limit", opt.limit, "check only the first N workloads")->check(cli::Integer(0));
  app->add_option("--arch", opt.check.arch, "architecture for NVRTC and ptxas (default sm_90)");
  app->add_option("--max-emulate-macs", opt.check.max_emulate_macs,
                  "larger layers are built only, not emulated (default 4e9)")
      ->check(cli::Integer(0));
  app->add_flag("-v,--verbose", opt.verbose, "a PASS line per workload too");
  if (auto rc = cli::parse(*app, args)) return *rc;
  autotune::root_fallback_context().silent = true;
  try {
    auto sum = topi::sweep::run_sweep(files, opt, std::cout);
    return sum.failed == 0 && sum.malformed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "minitvm tophub check: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace minitvm::tools
