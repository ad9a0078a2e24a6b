/** \file
 * Operator computes (TVM's `topi.nn`): NCHW conv2d (direct and Winograd F(m, r)), depthwise conv2d,
 * dense and the elementwise ops a network needs around them.
 *
 * Tensor, tag and axis names follow TOPI so lowered IR reads like TVM's: conv2d pads into
 * `pad_temp` and computes `compute` (tag `conv2d_nchw`, axes nn/ff/yy/xx, reduce rc/ry/rx);
 * depthwise pads into `PaddedInput` and computes `DepthwiseConv2d` (tag `depthwise_conv2d_nchw`,
 * reduce di/dj); grouped conv2d pads into `pad_temp` and computes `compute` (tag
 * `group_conv2d_nchw`, axes nn/ff/yy/xx, reduce rc/ry/rx over one group's input channels); dense
 * computes `T_dense` (tag `dense`, reduce k). Injective ops carry the tags `elemwise` / `broadcast`
 * / `injective` so schedules can inline them.
 *
 * Shapes must be constant; every shape mismatch raises CompileError naming the operator.
 *
 *   auto data = te::placeholder({1, 64, 56, 56});
 *   auto kernel = te::placeholder({64, 64, 3, 3});
 *   auto out = topi::nn::conv2d_nchw(data, kernel, {1, 1}, {1, 1}, {1, 1});
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/te/tensor.h"

namespace minitvm::topi::nn {

using te::Tensor;

/** Padding (top, left, bottom, right) from 1 value (all sides), 2 values (pad_h, pad_w on both
 *  sides, TVM v0.6 `get_pad_tuple`) or 4 values (top, left, bottom, right). */
std::array<int64_t, 4> get_pad_tuple(const std::vector<int64_t>& padding);

/** Constant shape of a tensor (CompileError if a dimension is not a constant). */
std::vector<int64_t> const_shape(const Tensor& t);

/** Zero-pad (or `pad_value`) `t`: `before[i]`/`after[i]` elements on each side of axis i.
 *  Always creates a compute (tag `injective,pad`), as TOPI's pad does. */
Tensor pad(const Tensor& t, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
           double pad_value = 0.0, const std::string& name = "PadInput");

/** Geometry shared by the conv computes. */
struct Conv2dAttrs {
  std::vector<int64_t> stride{1, 1};
  std::vector<int64_t> padding{0, 0};  ///< 1, 2 or 4 values, see get_pad_tuple
  std::vector<int64_t> dilation{1, 1};
  DataType out_dtype = DataType::Float(32);
};

/** Output size of one spatial dim: (in + pad_before + pad_after - ((k-1)*dil + 1)) / stride + 1. */
int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad_before, int64_t pad_after,
                      int64_t dil);

/** conv2d NCHW: data (N, CI, H, W), kernel (CO, CI, KH, KW) -> (N, CO, OH, OW). */
Tensor conv2d_nchw(const Tensor& data, const Tensor& kernel, const std::vector<int64_t>& stride,
                   const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                   DataType out_dtype = DataType::Float(32));
inline Tensor conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dAttrs& a) {
  return conv2d_nchw(data, kernel, a.stride, a.padding, a.dilation, a.out_dtype);
}

/** depthwise conv2d NCHW: data (N, C, H, W), kernel (C, M, KH, KW) -> (N, C*M, OH, OW). */
Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& kernel,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation,
                             DataType out_dtype = DataType::Float(32));

/** grouped conv2d NCHW (TVM `topi.nn.group_conv2d_nchw`): data (N, CI, H, W), kernel
 *  (CO, CI / groups, KH, KW) -> (N, CO, OH, OW); output channel ff reads the input channels
 *  (ff / (CO / groups)) * (CI / groups) + rc. groups must be >= 1 and divide CI and CO
 *  (CompileError naming the value otherwise); groups == 1 is a plain conv2d, groups == CI == CO a
 *  depthwise one (both computed here with this op's tag). */
Tensor group_conv2d_nchw(const Tensor& data, const Tensor& kernel,
                         const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& dilation, int64_t groups,
                         DataType out_dtype = DataType::Float(32));

/** Winograd transform matrices A (alpha x m), B (alpha x alpha), G (alpha x r) in double, by the
 *  Cook-Toom construction TVM uses (winograd_util.py). Requires 1 < m < 9, 2 < r < 8, m + r - 2
 * <= 9. */
struct WinogradMatrices {
  int m = 0, r = 0, alpha = 0;
  std::vector<std::vector<double>> A, B, G;
};
WinogradMatrices winograd_transform_matrices(int m, int r);

/** A constant matrix as a compute (TOPI `const_matrix`): nested selects on (i, j). */
Tensor const_matrix(const std::vector<std::vector<double>>& mat, DataType dtype,
                    const std::string& name);

/** The intermediate tensors of a Winograd conv (for schedules). */
struct WinogradTensors {
  Tensor data_pad, d, data_pack, kernel_pack, bgemm, inverse, output;
  Tensor A, B, G;  ///< G is undefined when the kernel comes transformed
  int64_t m = 0, alpha = 0, P = 0, nH = 0, nW = 0;
  /** kernel_pack is the operator's kernel argument (already transformed), not a compute. */
  bool pre_computed = false;
};

/** conv2d NCHW by Winograd F(m, r) (TVM `winograd_cuda`, kernel transform not pre-computed).
 *  m = tile_size > 0 ? tile_size : winograd_tile_size(H). Requires stride 1, dilation 1,
 *  KH == KW, symmetric padding. Output tag `conv2d_nchw_winograd`, name `output`. */
WinogradTensors conv2d_winograd_nchw(const Tensor& data, const Tensor& kernel,
                                     const std::vector<int64_t>& padding,
                                     DataType out_dtype = DataType::Float(32), int tile_size = 0);

/** TVM's `conv2d_winograd_weight_transform`: OIHW kernel (CO, CI, r, r) -> G k G^T per channel
 *  pair, shape (alpha, alpha, CO, CI) with alpha = tile_size + r - 1 (name `transform_weight`).
 *  relay's CUDA alter layout transposes it to (alpha, alpha, CI, CO) and folds both at build time.
 */
Tensor conv2d_winograd_weight_transform(const Tensor& kernel, int64_t tile_size,
                                        DataType out_dtype = DataType::Float(32));

/** TVM's `conv2d_nchw_winograd_without_weight_transform`: the Winograd conv on a kernel already
 *  transformed to (alpha, alpha, CI, CO); r = alpha - tile_size + 1. Same tensors and names as
 *  conv2d_winograd_nchw, with `kernel_pack` the kernel argument and `pre_computed` set. */
WinogradTensors conv2d_winograd_nchw_without_weight_transform(
    const Tensor& data, const Tensor& kernel, const std::vector<int64_t>& padding,
    int64_t tile_size, DataType out_dtype = DataType::Float(32));

/** dense: data (B, K), weight (N, K) -> T_dense (B, N); with a bias (N) adds it (tag broadcast). */
Tensor dense(const Tensor& data, const Tensor& weight, const Tensor& bias = Tensor(),
             DataType out_dtype = DataType::Float(32));

/** TVM's dense_pack: data (M, K), weight packed to (N / b, K, b) -> (M, N) (tag `dense_pack`,
 *  named T_dense_pack). When row_tile does not divide M the rows are padded with zeros to a
 *  multiple (T_dense_pack_rows) and the result cut back (T_dense_pack_unpad, injective);
 *  row_tile 0: 8 when no tile of 4 to 8 rows divides M, else no padding (the CPU schedule's). */
Tensor dense_pack(const Tensor& data, const Tensor& weight, int64_t row_tile = 0);

/** batch_matmul for the CPU: x (B, M, K) times y (B, N, K) transposed, with y first packed per
 *  call to (B, K, Np) (T_batch_matmul_yT, tag batch_matmul_pack) so the columns are contiguous;
 *  M padded to a multiple of row_tile and N of col_tile with zeros, the result (T_batch_matmul,
 *  tag batch_matmul) cut back (T_batch_matmul_unpad) when padded (row_tile 0: as dense_pack's).
 *  A batch of 1 broadcasts. */
Tensor batch_matmul_pack(const Tensor& x, const Tensor& y, int64_t row_tile, int64_t col_tile);

/** x (N, C, ...) + bias (C) broadcast along `axis` (default 1). */
Tensor bias_add(const Tensor& x, const Tensor& bias, int axis = 1);
/** max(x, 0) (tag elemwise). */
Tensor relu(const Tensor& x);
/** Elementwise a + b of equal shapes (tag elemwise). */
Tensor add(const Tensor& a, const Tensor& b);
/** Batch norm inference on axis 1: (x - mean) / sqrt(var + eps) * gamma + beta. */
Tensor batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                            const Tensor& mean, const Tensor& var, double epsilon = 1e-5);
/** Softmax over the last axis of a 2-D tensor (max-subtracted). */
Tensor softmax(const Tensor& x);
/** The sum, max or min of x's last axis (kept as 1 with keepdims), a row of 2 * lanes or more
 *  first reduced into `lanes` partials (`name`_part: lane l over the elements l, l + lanes, ...
 *  of the row's full chunks) that a CPU schedule keeps in one vector, then the partials and the
 *  row's tail (`name`); shorter rows directly. Both stages tagged `tag`. */
Tensor reduce_last_axis(const Tensor& x, const std::string& kind, int64_t lanes, bool keepdims,
                        const std::string& name, const std::string& tag = "comm_reduce");
/** softmax over the last axis of an N-D x: its max (T_softmax_maxelem) and the sum of exp(x - max)
 *  (T_softmax_exp, computed once) (T_softmax_expsum) by reduce_last_axis, the exps divided by the
 *  sum (T_softmax_norm). */
Tensor softmax_last_axis(const Tensor& x, int64_t lanes);
/** (N, d1, d2, ...) -> (N, d1*d2*...). */
Tensor flatten(const Tensor& x);

/** Whether an op tag marks an injective op (elemwise, broadcast, injective*). */
bool is_injective_tag(const std::string& tag);

}  // namespace minitvm::topi::nn
