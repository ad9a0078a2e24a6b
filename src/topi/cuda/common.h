// Pieces shared by the CUDA templates.
#pragma once

#include "minitvm/topi/cuda_schedule.h"

namespace minitvm::topi::cuda {

/** Cooperative fetch with factor splits from the inside: fused -> (.., tz, ty, tx). */
void coop_fetch_factor(te::Schedule& s, const te::Tensor& load, int64_t nz, int64_t ny, int64_t nx);
/** The reduction tiling of TVM's direct and grouped conv templates: split rc/ry/rx of the local
 *  accumulator `ol` (leaf axes n, f, y, x, rc, ry, rx) by tile_rc/tile_ry/tile_rx, put the outer
 *  reduction loops outermost, and attach the shared loads `AA`, `WW` at the outer rx. */
void tile_conv_reduction(te::Schedule& s, te::Stage ol, const te::Tensor& AA, const te::Tensor& WW,
                         const ConfigEntity& cfg);
/** The unroll pragmas of a template on its kernel-scope axis. */
void unroll_pragmas(te::Stage os, const IterVar& scope, const ConfigEntity& cfg);

/** Steps 1-2 of TVM's conv templates (topi/cuda/conv2d_direct.py): find the conv op by tag,
 * inline the elementwise ops and the padding, and make the local accumulator (a cache_write when
 * the conv is the output, else the conv itself in local scope under a fused epilogue). */
struct ConvStages {
  te::Schedule s;
  te::Operation conv, output;
  te::Tensor pad_data, kernel, OL;
};
ConvStages prepare_conv_stages(const std::vector<te::Tensor>& outs, const char* tag,
                               const char* template_name);

}  // namespace minitvm::topi::cuda
