/** \file
 * ONNX pooling attributes (MaxPool, AveragePool, LpPool, GlobalMaxPool, GlobalAveragePool,
 * GlobalLpPool) mapped onto the same PoolPlan as the PyTorch functions.
 *
 * ONNX differs from PyTorch: strides default to 1, count_include_pad defaults to 0, pads may be
 * asymmetric ([x1_begin, x2_begin, ..., x1_end, x2_end, ...]) and larger than half the kernel,
 * auto_pad computes the padding, Indices are offsets into the whole input (storage_order 1:
 * column-major spatial part), and LpPool takes |x|. Output sizes follow onnx/defs/nn/defs.cc shape
 * inference, including the ceil_mode rule that drops a window starting in the end padding.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/frontend/pool_plan.h"

namespace minitvm {
namespace frontend {

/** The attributes of one ONNX pooling node (absent attribute = empty list / default). */
struct OnnxPoolAttrs {
  std::string op_type;    ///< "MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", ...
  std::string node_name;  ///< for messages; may be empty
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;    ///< empty: 1 on every axis
  std::vector<int64_t> pads;       ///< empty: 0; else 2 * spatial rank values, begins then ends
  std::vector<int64_t> dilations;  ///< empty: 1 on every axis
  int64_t ceil_mode = 0;
  int64_t count_include_pad = 0;
  int64_t storage_order = 0;
  int64_t p = 2;              ///< LpPool / GlobalLpPool norm
  bool want_indices = false;  ///< the MaxPool node uses its Indices output
};

/** Resolve an ONNX pooling node for an input of `input_shape` (N, C, D1, ..., Dn) and `dtype`.
 * Throws PoolParamError naming the node and attribute where ONNX rejects the node, and for the
 * cases this frontend rejects on purpose (a window lying entirely in padding, spatial rank > 3). */
topi::PoolPlan plan_onnx_pool(const OnnxPoolAttrs& attrs, const std::vector<int64_t>& input_shape,
                              DataType dtype);

}  // namespace frontend
}  // namespace minitvm
