/** \file
 * Extra parts of `minitvm demo`, registered by other tools/ files (CUDA, conv layer, pooling):
 *
 *   static bool run_my_part();  // prints what it does; returns whether its checks passed
 *   MINITVM_DEMO_PART(20, "pooling frontend", run_my_part);
 *
 * Parts run in order of their number after the built-in API tour and matmul.
 */
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace minitvm::tools {

struct DemoPart {
  int order;
  std::string title;
  std::function<bool()> run;
};

std::vector<DemoPart>& demo_parts();

struct DemoPartRegistrar {
  DemoPartRegistrar(int order, std::string title, std::function<bool()> run) {
    auto& p = demo_parts();
    p.push_back({order, std::move(title), std::move(run)});
    std::stable_sort(p.begin(), p.end(),
                     [](const DemoPart& a, const DemoPart& b) { return a.order < b.order; });
  }
};

}  // namespace minitvm::tools

#define MINITVM_DEMO_CONCAT2(a, b) a##b
#define MINITVM_DEMO_CONCAT(a, b) MINITVM_DEMO_CONCAT2(a, b)
#define MINITVM_DEMO_PART(order, title, fn)                                                     \
  static ::minitvm::tools::DemoPartRegistrar MINITVM_DEMO_CONCAT(minitvm_demo_part_, __LINE__)( \
      order, title, fn)
