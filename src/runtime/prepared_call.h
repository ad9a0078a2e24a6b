/** \file
 * Internal: calls bound to fixed arguments ahead of time (the graph executor's node closures).
 *
 * Module nodes that can do better than calling their PackedFunc implement PreparedCallProvider:
 * "llvm" and "cuda" check the arguments once in prepare_call and return closures that neither
 * check nor allocate; the emulator checks once and then calls its (checked) PackedFunc.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"

namespace minitvm::runtime {

class PreparedCallProvider {
 public:
  virtual ~PreparedCallProvider() = default;
  /**
   * A call of `name` on exactly `args` (RuntimeError as a PackedFunc call when they do not fit the
   * signature). The closure keeps the arguments and the module alive. Empty when there is no such
   * function.
   */
  virtual std::function<void()> prepare_call(const std::string& name,
                                             const std::vector<ArgValue>& args) = 0;
};

/**
 * The provider's prepared call if `m`'s node is one, else a closure calling the PackedFunc.
 * RuntimeError like Module::get_function when there is no such function.
 */
std::function<void()> prepare_call(const Module& m, const std::string& name,
                                   const std::vector<ArgValue>& args);

}  // namespace minitvm::runtime
