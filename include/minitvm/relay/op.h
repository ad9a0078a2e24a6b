/** \file
 * Operators of the graph IR: a registry (name, TVM's OpPatternKind, type rule) and one C++ builder
 * per operator with Relay's names and attributes.
 *
 * `call(op, args, attrs)` is the generic constructor every builder and pass uses: it fills missing
 * attributes with Relay's defaults and runs the op's type rule; a bad call throws CompileError
 * "<op>: <argument> ...: <mismatch>" naming the argument by its var name or producing op.
 * Layouts are NCHW / OIHW, except the blocked ops alter_op_layout makes (layout_transform,
 * nn.contrib_conv2d_NCHWc, nn.contrib_depthwise_conv2d_NCHWc, pools with layout NCHW[x]c) and the
 * winograd pair of its cuda rules (nn.contrib_conv2d_winograd_weight_transform: OIHW ->
 * (alpha, alpha, O, I); nn.contrib_conv2d_winograd_without_weight_transform: NCHW data, weight
 * (alpha, alpha, I, O), attribute tile_size); padding
 * attributes are normalised to 4 values (top, left, bottom, right). `concatenate` takes its inputs
 * as separate arguments (Relay: one Tuple).
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/relay/expr.h"

namespace minitvm::relay {

/** TVM's OpPatternKind (values as TVM; comparisons on them are meaningful). */
enum class OpPattern : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};

/** Registered op names, in registration order. */
std::vector<std::string> registered_ops();
bool is_registered_op(const std::string& name);
/** Fusion pattern of an op (CompileError for an unknown op). */
OpPattern op_pattern(const std::string& name);

/** Make a call (types inferred, attributes defaulted). */
Expr call(const std::string& op, const std::vector<Expr>& args, const Json& attrs = Json::object());

// ---- builders ----------------------------------------------------------------------------------

struct Conv2DAttrs {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0};  ///< 1, 2 or 4 values
  std::vector<int64_t> dilation{1, 1};
  int64_t groups = 1;
  int64_t channels = 0;                ///< 0: from the weight
  std::vector<int64_t> kernel_size{};  ///< empty: from the weight
  std::string data_layout = "NCHW", kernel_layout = "OIHW";
};
struct Pool2DAttrs {
  std::vector<int64_t> pool_size{1, 1};
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> padding{0, 0};
  bool ceil_mode = false;
  bool count_include_pad = false;  ///< avg_pool2d only
  std::string layout = "NCHW";
};

namespace nn {
Expr conv2d(const Expr& data, const Expr& weight, const Conv2DAttrs& a = {});
/** Returns the 3-field tuple (out, new mean, new var); take field 0 for inference. */
Expr batch_norm(const Expr& data, const Expr& gamma, const Expr& beta, const Expr& mean,
                const Expr& var, int axis = 1, double epsilon = 1e-5, bool center = true,
                bool scale = true);
Expr relu(const Expr& x);
/** x for x > 0, alpha * x otherwise (relay.nn.leaky_relu). */
Expr leaky_relu(const Expr& x, double alpha = 0.01);
Expr max_pool2d(const Expr& x, const Pool2DAttrs& a);
Expr avg_pool2d(const Expr& x, const Pool2DAttrs& a);
Expr global_avg_pool2d(const Expr& x);
Expr dense(const Expr& data, const Expr& weight, int64_t units = 0);
/** x (B, M, K) times y (B, N, K) transposed: (B, M, N); a batch of 1 broadcasts (TVM's). */
Expr batch_matmul(const Expr& x, const Expr& y);
Expr bias_add(const Expr& x, const Expr& bias, int axis = 1);
Expr batch_flatten(const Expr& x);
Expr softmax(const Expr& x, int axis = -1);
/** Local response normalization across `axis` (TVM's attrs and defaults). The window of channel c
 * is [c - floor((size-1)/2), c + ceil((size-1)/2)] (ONNX's; equal to TVM's for odd sizes), and
 * y = x / (bias + alpha / size * square_sum)^beta. */
Expr lrn(const Expr& x, int64_t size = 5, int axis = 1, double bias = 2.0, double alpha = 1e-4,
         double beta = 0.75);
/** Field 0 of nn.dropout (Relay's python `relay.nn.dropout`); the call itself is a 2-tuple. */
Expr dropout(const Expr& x, double rate = 0.5);
/** pad_width: one (before, after) pair per axis. pad_mode (TVM's): "constant" (pad_value), "edge"
 *  (the border element repeated), "reflect" (mirrored about the border, which is not repeated;
 *  each pad less than the axis). */
Expr pad(const Expr& x, const std::vector<std::pair<int64_t, int64_t>>& pad_width,
         double pad_value = 0.0, const std::string& pad_mode = "constant");
/** TVM's nn.dilate: stride - 1 copies of dilation_value between neighbours along each axis
 *  (extent (n - 1) * stride + 1). */
Expr dilate(const Expr& x, const std::vector<int64_t>& strides, double dilation_value = 0.0);
}  // namespace nn

Expr add(const Expr& a, const Expr& b);
Expr subtract(const Expr& a, const Expr& b);
Expr multiply(const Expr& a, const Expr& b);
Expr divide(const Expr& a, const Expr& b);
Expr concatenate(const std::vector<Expr>& xs, int axis = 0);
Expr clip(const Expr& x, double a_min, double a_max);
Expr sigmoid(const Expr& x);
Expr sqrt(const Expr& x);
Expr negative(const Expr& x);
/** Elementwise float functions (relay.tanh, exp, log, erf, abs, floor, ceil). */
Expr tanh(const Expr& x);
Expr exp(const Expr& x);
Expr log(const Expr& x);
Expr erf(const Expr& x);
Expr abs(const Expr& x);
Expr floor(const Expr& x);
Expr ceil(const Expr& x);
/** Broadcasting elementwise max, min and a to the power b (relay.maximum, minimum, power). */
Expr maximum(const Expr& a, const Expr& b);
Expr minimum(const Expr& a, const Expr& b);
Expr power(const Expr& a, const Expr& b);
/** Relay's newshape codes 0 (copy the dim) and -1 (infer one dim). */
Expr reshape(const Expr& x, const std::vector<int64_t>& newshape);
/** `x` repeated reps[i] times along each axis (relay.tile with one rep per axis). */
Expr tile(const Expr& x, const std::vector<int64_t>& reps);
/** The elements of `axis` in reverse order (relay.reverse). */
Expr reverse(const Expr& x, int axis);
/** Empty axes: reverse. */
Expr transpose(const Expr& x, const std::vector<int64_t>& axes = {});
/** sections > 0: equal sections; otherwise `indices` are split points. Returns the tuple. */
Expr split(const Expr& x, int64_t sections, int axis = 0);
Expr split_at(const Expr& x, const std::vector<int64_t>& indices, int axis = 0);
/** TVM's strided_slice: elements begin[d], begin[d] + strides[d], ... below end[d] of every axis
 *  (one value per axis, positive strides, non-empty ranges within the shape). */
Expr strided_slice(const Expr& x, const std::vector<int64_t>& begin,
                   const std::vector<int64_t>& end, const std::vector<int64_t>& strides);
Expr expand_dims(const Expr& x, int axis, int num_newaxis = 1);
/** Empty axes: every unit dimension. */
Expr squeeze(const Expr& x, const std::vector<int64_t>& axes = {});
/** Empty axes: all. */
Expr mean(const Expr& x, const std::vector<int64_t>& axes = {}, bool keepdims = false,
          bool exclude = false);
/** The other reductions of relay's reduce family, same arguments: "sum", "max", "min", "prod". */
Expr reduce(const std::string& op, const Expr& x, const std::vector<int64_t>& axes = {},
            bool keepdims = false, bool exclude = false);

/** image.resize2d's attributes (TVM's Resize2DAttrs, with ONNX Resize's coordinate scales). */
struct Resize2DAttrs {
  std::vector<int64_t> size;  ///< output (height, width)
  /** The (height, width) scales of the coordinate transform: x_in = f(x_out, scale). 0: out / in
   *  (TVM's); ONNX's Resize with `scales` gives them (then out = floor(in * scale), and
   *  align_corners divides by in * scale - 1, ONNX's length_resized, not by out - 1). */
  std::vector<double> scale{0.0, 0.0};
  std::string method = "linear";  ///< "nearest_neighbor", "linear", "cubic"
  /** "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
   *  "half_pixel_symmetric" (ONNX's formulas; tf_crop_and_resize is not supported). */
  std::string coordinate_transformation_mode = "half_pixel";
  /** Nearest neighbour only: "round_prefer_floor" (also ""), "round_prefer_ceil", "floor", "ceil";
   *  "simple" is ONNX Runtime's opset-10 rule (floor when upsampling, ceil when downsampling). */
  std::string rounding_method = "round_prefer_floor";
  double cubic_alpha = -0.75;
  bool cubic_exclude = false;
  std::string layout = "NCHW";
};
namespace image {
/** Resize the H and W axes of an NCHW tensor (relay.image.resize2d). Output coordinate x maps to
 *  x_in by the coordinate transformation mode; nearest rounds x_in, linear and cubic interpolate
 *  the 2 and 4 neighbours per axis, indices clamped to the edge (ONNX's Resize, roi unused). */
Expr resize2d(const Expr& x, const Resize2DAttrs& a);
}  // namespace image

/** Relay's layout_transform: `x` in layout `src` (NCHW, NCHW8c, OIHW8i16o, ...) rearranged to `dst`
 *  (the same primal axes; a sub-axis factor must divide its axis). */
Expr layout_transform(const Expr& x, const std::string& src, const std::string& dst);

/** A float32 scalar / filled constant. */
Expr scalar(double v, DataType dtype = DataType::Float(32));

}  // namespace minitvm::relay
