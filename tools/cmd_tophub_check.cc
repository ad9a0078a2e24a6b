// `minitvm tophub check FILE... [--emulate] [--limit N]`: our CUDA templates over every workload of
// tuning logs (see include/minitvm/topi/sweep.h). Reached through `minitvm tophub check`.
#include <iostream>
#include <string>
#include <vector>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/topi/sweep.h"

namespace minitvm::tools {

int run_tophub_check(const std::vector<std::string>& args) {
  topi::sweep::SweepOptions opt;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    try {
      if (a == "--emulate") opt.check.emulate = true;
      else if (a == "--limit") opt.limit = std::stoi(value());
      else if (a == "--arch") opt.check.arch = value();
      else if (a == "--max-emulate-macs") opt.check.max_emulate_macs = std::stoll(value());
      else if (a == "-v" || a == "--verbose") opt.verbose = true;
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else files.push_back(a);
    } catch (const std::exception& e) {
      std::cerr << "minitvm tophub check: " << e.what() << "\n";
      return 2;
    }
  }
  if (files.empty()) {
    std::cerr << "usage: minitvm tophub check FILE... [--emulate] [--limit N] [--arch sm_90]\n"
                 "                            [--max-emulate-macs N] [-v]\n";
    return 2;
  }
  autotune::root_fallback_context().silent = true;
  try {
    auto sum = topi::sweep::run_sweep(files, opt, std::cout);
    return sum.failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "minitvm tophub check: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace minitvm::tools
