// The type rules of relay's operator registry (internal): the checks and shape arithmetic each
// op's rule is built from, and the rules shared by several ops (broadcast, conv2d, pooling). The
// registry itself, with one entry per op, is src/relay/op.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minitvm/relay/op.h"

namespace minitvm::relay::op_rules {

using Shape = std::vector<int64_t>;

struct TypeResult {
  std::vector<TensorType> types;
  bool tuple = false;
};
using TypeRule = std::function<TypeResult(const std::vector<Expr>&, Json&)>;

struct OpDef {
  std::string name;
  OpPattern pattern;
  int num_args;  // -1: variadic (>= 1)
  Json defaults;
  TypeRule rule;
};

std::string shape_str(const Shape& s);

// How an argument is named in messages: its var name, "constant", or the op producing it.
std::string describe(const Expr& e);

std::vector<int64_t> ints(const Json& j);
// Attribute `key`: one integer per axis of `x` (nn.dilate's strides, tile's reps); CompileError
// naming the op otherwise.
Shape per_axis_ints(const std::string& op, const Json& at, const char* key, const Expr& x);

int64_t norm_axis(int64_t axis, size_t ndim, const std::string& op);

Shape pair_attr(const Json& j, const std::string& op, const char* what);

Shape pad4(const Json& j, const std::string& op);

const TensorType& ttype(const std::string& op, const Expr& e, const char* role);

void same_dtype(const std::string& op, const Expr& a, const Expr& b, const char* ra,
                const char* rb);

void rank(const std::string& op, const Expr& e, const char* role, size_t r);

void float_only(const std::string& op, const Expr& e, const char* role);

TensorType unary(const std::string& op, const std::vector<Expr>& a);

TypeResult broadcast_rule(const std::string& op, const std::vector<Expr>& a);

// The convolutions' window attributes (normalised in `at`) and the output height and width of
// data `x` (H, W at axes 2, 3) under a kh x kw kernel.
std::pair<int64_t, int64_t> conv_window(const std::string& op, const Expr& x, int64_t kh,
                                        int64_t kw, Json& at);

TypeResult conv2d_rule(const std::vector<Expr>& a, Json& at);

// The block of a pooling layout: 0 for NCHW, k for NCHW{k}c (the data then 5-D, k its last axis).
int64_t pool_block(const std::string& op, const Expr& data, const Json& at);

TypeResult pool_rule(const std::string& op, const std::vector<Expr>& a, Json& at);

// The blocked convolutions: layouts named in the attributes, shapes checked against them; the
// unblocked (NCHW / OIHW) geometry is checked as nn.conv2d's.
TypeResult conv2d_nchwc_rule(const std::string& op, const std::vector<Expr>& a, Json& at,
                             bool depthwise);

// TVM's nn.contrib_conv2d_winograd_weight_transform: OIHW (CO, CI, r, r) -> (alpha, alpha, CO, CI).
TypeResult winograd_weight_transform_rule(const std::vector<Expr>& a, Json& at);
// TVM's nn.contrib_conv2d_winograd_without_weight_transform: NCHW data, (alpha, alpha, CI, CO)
// weight, stride and dilation 1, symmetric padding.
TypeResult winograd_conv2d_rule(const std::vector<Expr>& a, Json& at);
// The blocked Winograd F(m, 3) of llvm's alter_op_layout: the weight transform OIHW (O, I, 3, 3) ->
// (alpha, alpha, O/oc_bn, I/ic_bn, ic_bn, oc_bn), and the convolution of NCHW[ib]c data with it
// (stride and dilation 1, any padding) to NCHW[ob]c.
TypeResult winograd_nchwc_weight_transform_rule(const std::vector<Expr>& a, Json& at);
TypeResult winograd_nchwc_conv2d_rule(const std::vector<Expr>& a, Json& at);

}  // namespace minitvm::relay::op_rules
