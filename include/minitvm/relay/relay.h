/** \file
 * relay: the graph level (TVM Relay, v0.6 era). Dependency rule: relay depends on topi and the
 * modules below it (autotune, codegen, transform, runtime, te, ir, support); nothing below depends
 * on relay.
 *
 *   auto [mod, params] = relay::testing::resnet(50, 1);
 *   auto best = autotune::tophub::context("cuda");
 *   autotune::DispatchScope scope(*best);
 *   relay::Built lib = relay::build(mod, "cuda", params);
 *   std::cout << lib.report();
 *
 * expr.h: the IR and its text form; op.h: operators and their builders; reference.h: the naive
 * executor; transform.h: the graph passes; build.h: relay::build; testing.h: the network zoo.
 */
#pragma once

#include "minitvm/relay/build.h"
#include "minitvm/relay/expr.h"
#include "minitvm/relay/op.h"
#include "minitvm/relay/reference.h"
#include "minitvm/relay/testing.h"
#include "minitvm/relay/transform.h"
