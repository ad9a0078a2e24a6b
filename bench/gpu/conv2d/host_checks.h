/** \file
 * bench/gpu/conv2d: host-side helpers and the checks of one built workload (host_checks.cc).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "minitvm/devtools/sweep.h"
#include "minitvm/runtime/module.h"
#include "minitvm/topi/layer.h"

namespace minitvm::bench {

namespace sweep = minitvm::topi::sweep;

/** Run fn(begin, end) over [0, n) in chunks on up to hardware_concurrency threads. */
void parallel_chunks(size_t n, const std::function<void(size_t, size_t)>& fn);
/** Deterministic uniform [-1, 1) values, a hash of (seed, index): the same at any thread count. */
std::vector<float> uniform(size_t n, uint64_t seed);
/** The sweep's max relative error, computed in parallel; NaN or infinity sticks. */
double max_rel_error(const std::vector<float>& got, const std::vector<float>& ref);
/** The sweep's naive references, split over the batch (conv) or rows (dense) on several threads. */
std::vector<float> naive_reference(const sweep::SweepWorkload& w, int64_t batch,
                                   const std::vector<std::vector<float>>& in, size_t out_size);

int64_t batch_of(const sweep::SweepWorkload& w);
std::string shape_str(const std::vector<int64_t>& s);
/** The shapes our layer's arguments must have: data, kernel/weight, [bias], output. */
std::vector<std::vector<int64_t>> expected_shapes(const sweep::SweepWorkload& w);
/** "" when the layer's arguments have the expected shapes, else what differs. */
std::string check_arg_shapes(const sweep::SweepWorkload& w, const topi::LayerBuild& L);
/** Launch dimensions of a built "cuda" module within the hardware limits (from its saved JSON). */
std::string check_launches(const runtime::Module& m, const std::string& tag);

}  // namespace minitvm::bench
