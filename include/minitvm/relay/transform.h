/** \file
 * Graph passes, one file each under src/relay/transform/ (TVM v0.6 semantics).
 * Each takes a Function and returns a new one (the same object when nothing changed); none
 * mutates its input.
 *
 * - bind_params: Vars named in `params` become Constants (TVM BindParamsByName); the remaining
 *   parameters stay inputs. A param whose shape/dtype differs from its Var is a CompileError.
 * - simplify_inference: TupleGetItem(nn.batch_norm(x, g, b, m, v), 0) -> x * scale + shift with
 *   scale = g / sqrt(v + eps) (1 / sqrt(v + eps) without `scale`), shift = -m * scale (+ b with
 *   `center`), both expanded to (C, 1, 1...) with expand_dims; nn.dropout field 0 -> its input.
 *   Other uses of batch_norm / dropout fields are left alone.
 * - fold_constant: a call whose arguments are all constants is evaluated (reference executor) and
 *   replaced by a Constant (tuple-typed calls stay; TupleGetItem(Tuple(...), i) is projected).
 * - eliminate_common_subexpr: TVM's EliminateCommonSubexpr. Two calls of one operator with equal
 *   attributes on the same arguments (and equal tuples / field projections) become one node, so
 *   that it is computed once; ONNX Slice pairs that take both halves of a tensor (torch's chunk)
 *   import as two equal splits and share one this way. Constants are compared by identity.
 * - sink_reshape: op(reshape(x), c...) -> reshape(op(x, c...)) for an elementwise or broadcast op
 *   when the reshape keeps x's last axis and every other operand is either a reshape of a tensor
 *   of x's shape to the same shape (replaced by that tensor) or a constant that broadcasts along
 *   the last axis only (a scalar, a bias (n) or (1, ..., 1, n): given as (n)); then
 *   reshape(reshape(x)) -> reshape(x) and a reshape to x's own shape -> x. An ONNX MatMul of a
 *   3-D input imports as reshape -> dense -> reshape, and its bias and activation followed the
 *   reshape, where fuse_ops cannot take them into the dense as its epilogue.
 * - fold_scale_axis: TVM's backward FoldScaleAxis restricted to its net effect on conv nets:
 *   multiply(conv2d(x, W), s) where the conv output has exactly one use, W is a constant OIHW
 *   weight (any group count: output channel o reads only W[o]; TVM folds groups 1 and depthwise
 *   only), and the constant s broadcasts along the output channel axis only
 *   (shape (C, 1, 1), (1, C, 1, 1) or a scalar) becomes conv2d(x, W * s[o]); run fold_constant
 *   afterwards to materialise the new weight.
 * - drop_padding_taps: an nn.conv2d (NCHW / OIHW, constant weight, any groups) whose first or last
 *   kernel rows / columns read only zero padding for every output position (atrous convs whose
 *   dilation reaches past the input: DeepLabV3's ASPP at rates 24 and 36 on a 14x14 map is a 1x1
 *   conv) gets the weight strided_slice'd to the rows and columns that read the input, the padding
 *   shrunk by the cut taps times the dilation, and dilation 1 along an axis left with one tap. The
 *   output is the same (the cut taps multiply zeros only); run fold_constant afterwards. Not a TVM
 *   pass: ONNX Runtime's NCHWc convolution skips the padding taps inside its kernel.
 * - alter_op_layout: TVM's AlterOpLayout. On cuda (AlterLayoutOptions::winograd_tile): winograd
 *   convs get their weight transformed at build time. On x86, with its layout propagation: every
 *   nn.conv2d with groups 1 and a constant weight becomes nn.contrib_conv2d_NCHWc on NCHW[ic]c
 *   data with the weight packed OIHW[ic]i[oc]o (a layout_transform of the constant; fold_constant
 *   materialises it), depthwise convs nn.contrib_depthwise_conv2d_NCHWc, with the blocks the
 *   options choose (relay::build: the dispatch context's conv2d_NCHWc.x86 config). Activations stay
 *   blocked through elementwise ops, broadcasts (constants and (N, C, ...) operands are transformed
 *   to match, channel-wise ones blocked, others reshaped), bias_add, max/avg/global pooling and
 *   channel concatenation; a layout_transform back to NCHW is inserted where any other op or the
 *   output needs NCHW (once per value), and between two block sizes.
 * - fuse_ops: TVM's FuseOps (OpPatternKind table, post-dominator tree, three-phase partition),
 *   naming `fused_nn_conv2d_add_nn_relu`. Tuple / TupleGetItem nodes are never
 *   fused (they stay graph plumbing).
 * - plan_memory: TVM's GraphPlanMemory on the fused graph.
 *
 * Printing: with PassOptions::print_after_each_pass (or MINITVM_PRINT_IR=1, to stderr) the
 * pipeline of relay::build prints the graph after every pass, "(unchanged)" when it did nothing,
 * as lower() does for loop nests.
 */
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/relay/expr.h"
#include "minitvm/relay/op.h"

namespace minitvm::relay::transform {

Function bind_params(const Function& f, const Params& params);
Function simplify_inference(const Function& f);
Function fold_constant(const Function& f);
Function eliminate_common_subexpr(const Function& f);
Function sink_reshape(const Function& f);
Function fold_scale_axis(const Function& f);
Function drop_padding_taps(const Function& f);

/** Channel blocks of a blocked conv2d (ic_bn divides the input channels, oc_bn the output). */
struct ConvBlocks {
  int64_t ic_bn = 1, oc_bn = 1;
  bool from_log = false;  ///< a tuned config's blocks (the layer is then not padded)
  /** The layer runs faster NCHW than on these blocks, but not by what re-blocking costs: it
   *  stays NCHW when its input is NCHW, and takes these blocks when its input is blocked. */
  bool nchw_on_nchw_input = false;
};
struct AlterLayoutOptions {
  /** The blocks of an nn.conv2d call (groups 1); nullopt keeps it NCHW. */
  std::function<std::optional<ConvBlocks>(const ExprNode& conv)> conv_blocks;
  /** Depthwise convs take their input's block when it divides the channels, else the largest
   *  divisor of the channels up to this (0: depthwise convs stay NCHW). */
  int64_t depthwise_block = 8;
  /** Blocks to pad to, largest first, the last a vector: the output channels of a conv2d
   *  (groups 1) that are not a multiple of the last are padded with zero channels up to a
   *  multiple of the first of these for which that adds at most a sixteenth, else an eighth
   *  (ONNX Runtime's NCHWc padding); the padding channels ride along the blocked layout and are
   *  cut off where a value leaves it (empty: no padding). conv_blocks is asked about the padded
   *  layer, unless its answer for the layer as it is comes from a log. */
  std::vector<int64_t> pad_channels;
  /** CUDA (TVM's `_alter_conv2d_layout` for cuda): the Winograd tile size m of an nn.conv2d call
   *  whose dispatched config is a winograd one (0 keeps it). Such a call becomes
   *  nn.contrib_conv2d_winograd_without_weight_transform(x, transpose(
   *  nn.contrib_conv2d_winograd_weight_transform(W, m), (0, 1, 3, 2))): fold_constant transforms
   *  the weight once, at build time, to (alpha, alpha, CI, CO). */
  std::function<int64_t(const ExprNode& conv)> winograd_tile;
  /** llvm: the Winograd tile size m of an nn.conv2d call that is to run as
   *  nn.contrib_conv2d_winograd_NCHWc on the blocks conv_blocks chose, or a grouped one on its
   *  group blocks (0: the direct nn.contrib_conv2d_NCHWc). Its weight becomes
   *  nn.contrib_conv2d_winograd_NCHWc_weight_transform(W, m, ic_block, oc_block), which
   *  fold_constant transforms once, at build time. */
  std::function<int64_t(const ExprNode& conv, const ConvBlocks& blocks)> cpu_winograd_tile;
  /** llvm: a grouped nn.conv2d (not depthwise) with a constant weight becomes
   *  nn.contrib_conv2d_NCHWc with `groups` when its groups' input and output channels are
   *  multiples of group_block: blocked by its input's block when that is wider and divides them,
   * else by group_block (ResNeXt-50's 16- and 32-channel groups; its 4- and 8-channel groups stay
   *  NCHW). 0: grouped convs stay NCHW. */
  int64_t group_block = 0;
  /** llvm (TVM's dense_alter_layout for x86): an nn.dense of more than dense_pack_min_rows rows
   *  whose units are a multiple of dense_pack_block (else of half or a quarter of it) becomes
   *  nn.contrib_dense_pack with its weight packed to (N / b, K, b) by a reshape and a transpose,
   *  which fold_constant evaluates once, at build time (0: dense stays). */
  int64_t dense_pack_block = 0;
  int64_t dense_pack_min_rows = 16;
};
Function alter_op_layout(const Function& f, const AlterLayoutOptions& opt);

/** One fused group: a primitive function of the fused graph. */
struct FusedGroup {
  std::vector<Expr> nodes;   ///< the group's calls, operands first
  Expr root;                 ///< the call whose value leaves the group
  Expr master;               ///< the call with the highest pattern (ties: the later one)
  std::vector<Expr> inputs;  ///< values from outside the group, first-use order (p0, p1, ...)
  std::string func_name;     ///< unique function name, shared by structurally equal groups
  std::string key;           ///< structural key (equal keys <=> same compiled function)
  OpPattern pattern = OpPattern::kElemWise;  ///< the group's combined pattern
};

struct FusedGraph {
  Function func;                   ///< the (unfused) function the groups partition
  std::vector<FusedGroup> groups;  ///< in operand-before-user order
  /** Group index of each call node. */
  std::map<const ExprNode*, int> group_of;
  std::string str() const;  ///< one line per group: `%k = fused_...(inputs) ty // ops`
};

/** fuse_opt_level 0: every op its own group (TVM opt_level 0). */
FusedGraph fuse_ops(const Function& f, int fuse_opt_level = 2);

/** Storage assignment of every value of a fused graph. */
struct MemoryPlan {
  /** storage id per graph value (calls of kernels: the root; vars; constants), per output field. */
  std::map<const ExprNode*, std::vector<int>> storage_ids;
  std::vector<int64_t> storage_bytes;  ///< size of each storage id
  std::vector<bool> storage_is_param;  ///< inputs and constants (never shared)
  int64_t intermediate_bytes = 0;      ///< sum over all kernel outputs (no sharing)
  int64_t planned_bytes = 0;           ///< sum of the shared activation storages (peak)
  int64_t param_bytes = 0;             ///< inputs and constants
};
MemoryPlan plan_memory(const FusedGraph& g);

}  // namespace minitvm::relay::transform
