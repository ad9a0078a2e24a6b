// relay::build of a seed network under TopHub (with the project's seed logs): the report lists
// every kernel, the workload each tunable one queried and whether the log answered, and memory.
//
//   ./build/examples/example_relay_resnet                       # resnet50, cuda, workloads only
//   ./build/examples/example_relay_resnet mobilenet_v2 "cuda -emulate" 1 build
// (set MINITVM_TOPHUB_ROOT=tophub when the binary cannot locate the source tree's tophub/ folder)
#include <minitvm/autotune/tophub.h>
#include <minitvm/minitvm.h>
#include <minitvm/relay/relay.h>

#include <iostream>
#include <string>

using namespace minitvm;

int main(int argc, char** argv) {
  std::string net = argc > 1 ? argv[1] : "resnet50";
  std::string target = argc > 2 ? argv[2] : "cuda";
  int64_t batch = argc > 3 ? std::stoll(argv[3]) : 1;
  bool compile = argc > 4 && std::string(argv[4]) == "build";
  relay::testing::Network n = net == "vgg16" ? relay::testing::vgg(16, batch)
                              : net == "mobilenet_v2"
                                  ? relay::testing::mobilenet_v2(batch)
                                  : relay::testing::resnet(std::stoi(net.substr(6)), batch);
  autotune::tophub::Options topt;
  topt.include_seed_logs = true;
  auto best = autotune::tophub::context(target, {}, topt);
  autotune::DispatchScope scope(*best);
  relay::BuildOptions opt;
  opt.workloads_only = !compile;
  relay::Built lib = relay::build(n.mod, target, n.params, opt);
  std::cout << lib.report();
  return lib.num_fallbacks() == 0 ? 0 : 1;
}
