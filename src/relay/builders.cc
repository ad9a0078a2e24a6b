// The op builders: Relay's names and attributes over call().
#include "minitvm/relay/op.h"
#include "minitvm/support/error.h"

namespace minitvm::relay {

// ---- builders ----------------------------------------------------------------------------------

namespace nn {

Expr conv2d(const Expr& data, const Expr& weight, const Conv2DAttrs& a) {
  return call("nn.conv2d", {data, weight},
              {{"strides", a.strides},
               {"padding", a.padding},
               {"dilation", a.dilation},
               {"groups", a.groups},
               {"channels", a.channels},
               {"kernel_size", a.kernel_size},
               {"data_layout", a.data_layout},
               {"kernel_layout", a.kernel_layout}});
}
Expr batch_norm(const Expr& data, const Expr& gamma, const Expr& beta, const Expr& mean,
                const Expr& var, int axis, double epsilon, bool center, bool scale) {
  return call("nn.batch_norm", {data, gamma, beta, mean, var},
              {{"axis", axis}, {"epsilon", epsilon}, {"center", center}, {"scale", scale}});
}
Expr relu(const Expr& x) {
  return call("nn.relu", {x});
}
Expr leaky_relu(const Expr& x, double alpha) {
  return call("nn.leaky_relu", {x}, {{"alpha", alpha}});
}
Expr max_pool2d(const Expr& x, const Pool2DAttrs& a) {
  return call("nn.max_pool2d", {x},
              {{"pool_size", a.pool_size},
               {"strides", a.strides},
               {"padding", a.padding},
               {"layout", a.layout},
               {"ceil_mode", a.ceil_mode}});
}
Expr avg_pool2d(const Expr& x, const Pool2DAttrs& a) {
  return call("nn.avg_pool2d", {x},
              {{"pool_size", a.pool_size},
               {"strides", a.strides},
               {"padding", a.padding},
               {"layout", a.layout},
               {"ceil_mode", a.ceil_mode},
               {"count_include_pad", a.count_include_pad}});
}
Expr global_avg_pool2d(const Expr& x) {
  return call("nn.global_avg_pool2d", {x});
}
Expr batch_matmul(const Expr& x, const Expr& y) {
  return call("nn.batch_matmul", {x, y});
}
Expr dense(const Expr& data, const Expr& weight, int64_t units) {
  return call("nn.dense", {data, weight}, {{"units", units}});
}
Expr bias_add(const Expr& x, const Expr& bias, int axis) {
  return call("nn.bias_add", {x, bias}, {{"axis", axis}});
}
Expr batch_flatten(const Expr& x) {
  return call("nn.batch_flatten", {x});
}
Expr softmax(const Expr& x, int axis) {
  return call("nn.softmax", {x}, {{"axis", axis}});
}
Expr lrn(const Expr& x, int64_t size, int axis, double bias, double alpha, double beta) {
  return call("nn.lrn", {x},
              {{"size", size}, {"axis", axis}, {"bias", bias}, {"alpha", alpha}, {"beta", beta}});
}
Expr dropout(const Expr& x, double rate) {
  return tuple_get_item(call("nn.dropout", {x}, {{"rate", rate}}), 0);
}
Expr dilate(const Expr& x, const std::vector<int64_t>& strides, double dilation_value) {
  return call("nn.dilate", {x}, {{"strides", strides}, {"dilation_value", dilation_value}});
}
Expr pad(const Expr& x, const std::vector<std::pair<int64_t, int64_t>>& pw, double pad_value,
         const std::string& pad_mode) {
  Json j = Json::array();
  for (auto& [b, e] : pw) j.push_back({b, e});
  return call("nn.pad", {x}, {{"pad_width", j}, {"pad_value", pad_value}, {"pad_mode", pad_mode}});
}

}  // namespace nn

Expr add(const Expr& a, const Expr& b) {
  return call("add", {a, b});
}
Expr subtract(const Expr& a, const Expr& b) {
  return call("subtract", {a, b});
}
Expr multiply(const Expr& a, const Expr& b) {
  return call("multiply", {a, b});
}
Expr divide(const Expr& a, const Expr& b) {
  return call("divide", {a, b});
}
Expr concatenate(const std::vector<Expr>& xs, int axis) {
  return call("concatenate", xs, {{"axis", axis}});
}
Expr clip(const Expr& x, double a_min, double a_max) {
  return call("clip", {x}, {{"a_min", a_min}, {"a_max", a_max}});
}
Expr sigmoid(const Expr& x) {
  return call("sigmoid", {x});
}
Expr sqrt(const Expr& x) {
  return call("sqrt", {x});
}
Expr negative(const Expr& x) {
  return call("negative", {x});
}
Expr tanh(const Expr& x) {
  return call("tanh", {x});
}
Expr exp(const Expr& x) {
  return call("exp", {x});
}
Expr log(const Expr& x) {
  return call("log", {x});
}
Expr erf(const Expr& x) {
  return call("erf", {x});
}
Expr abs(const Expr& x) {
  return call("abs", {x});
}
Expr floor(const Expr& x) {
  return call("floor", {x});
}
Expr ceil(const Expr& x) {
  return call("ceil", {x});
}
Expr maximum(const Expr& a, const Expr& b) {
  return call("maximum", {a, b});
}
Expr minimum(const Expr& a, const Expr& b) {
  return call("minimum", {a, b});
}
Expr power(const Expr& a, const Expr& b) {
  return call("power", {a, b});
}
Expr reshape(const Expr& x, const std::vector<int64_t>& ns) {
  return call("reshape", {x}, {{"newshape", ns}});
}
Expr tile(const Expr& x, const std::vector<int64_t>& reps) {
  return call("tile", {x}, {{"reps", reps}});
}
Expr reverse(const Expr& x, int axis) {
  return call("reverse", {x}, {{"axis", axis}});
}
Expr transpose(const Expr& x, const std::vector<int64_t>& axes) {
  return call("transpose", {x}, {{"axes", axes}});
}
Expr split(const Expr& x, int64_t sections, int axis) {
  return call("split", {x}, {{"indices_or_sections", sections}, {"axis", axis}});
}
Expr split_at(const Expr& x, const std::vector<int64_t>& indices, int axis) {
  return call("split", {x}, {{"indices_or_sections", indices}, {"axis", axis}});
}
Expr strided_slice(const Expr& x, const std::vector<int64_t>& begin,
                   const std::vector<int64_t>& end, const std::vector<int64_t>& strides) {
  return call("strided_slice", {x}, {{"begin", begin}, {"end", end}, {"strides", strides}});
}
Expr expand_dims(const Expr& x, int axis, int num_newaxis) {
  return call("expand_dims", {x}, {{"axis", axis}, {"num_newaxis", num_newaxis}});
}
Expr squeeze(const Expr& x, const std::vector<int64_t>& axes) {
  return call("squeeze", {x}, {{"axis", axes.empty() ? Json(nullptr) : Json(axes)}});
}
Expr mean(const Expr& x, const std::vector<int64_t>& axes, bool keepdims, bool exclude) {
  return reduce("mean", x, axes, keepdims, exclude);
}
Expr reduce(const std::string& op, const Expr& x, const std::vector<int64_t>& axes, bool keepdims,
            bool exclude) {
  return call(op, {x},
              {{"axis", axes.empty() ? Json(nullptr) : Json(axes)},
               {"keepdims", keepdims},
               {"exclude", exclude}});
}

Expr scalar(double v, DataType dtype) {
  MINITVM_USER_CHECK(dtype == DataType::Float(32))
      << "relay::scalar: only float32 scalars, got " << dtype.str();
  return constant(runtime::NDArray::from_vector(std::vector<float>{static_cast<float>(v)}, {}));
}

namespace image {
Expr resize2d(const Expr& x, const Resize2DAttrs& a) {
  return call("image.resize2d", {x},
              {{"size", a.size},
               {"scale", a.scale},
               {"method", a.method},
               {"coordinate_transformation_mode", a.coordinate_transformation_mode},
               {"rounding_method", a.rounding_method},
               {"cubic_alpha", a.cubic_alpha},
               {"cubic_exclude", a.cubic_exclude},
               {"layout", a.layout}});
}
}  // namespace image

Expr layout_transform(const Expr& x, const std::string& src, const std::string& dst) {
  return call("layout_transform", {x}, {{"src_layout", src}, {"dst_layout", dst}});
}

}  // namespace minitvm::relay
