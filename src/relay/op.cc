// Operator registry: patterns, attribute defaults and type rules; the op builders.
#include "minitvm/relay/op.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>

#include "minitvm/support/error.h"
#include "relay/attr_util.h"
#include "relay/layout.h"
#include "relay/op_rules.h"

namespace minitvm::relay {

using namespace op_rules;

namespace {

std::vector<OpDef> make_registry() {
  std::vector<OpDef> r;
  auto add = [&](std::string name, OpPattern p, int n, Json defaults, TypeRule rule) {
    r.push_back({std::move(name), p, n, std::move(defaults), std::move(rule)});
  };
  using P = OpPattern;
  Json none = Json::object();
  // The window attributes every convolution has (Relay's Conv2DAttrs), then the op's own.
  auto conv_attrs = [](Json own) {
    Json at = {{"strides", {1, 1}}, {"padding", {0, 0}}, {"dilation", {1, 1}},
               {"groups", 1},       {"channels", 0},     {"kernel_size", Json::array()}};
    at.update(own);
    return at;
  };
  add("nn.conv2d", P::kOutEWiseFusable, 2,
      conv_attrs({{"data_layout", "NCHW"}, {"kernel_layout", "OIHW"}, {"out_dtype", ""}}),
      conv2d_rule);
  add("nn.batch_norm", P::kOpaque, 5,
      {{"axis", 1}, {"epsilon", 1e-5}, {"center", true}, {"scale", true}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "nn.batch_norm";
        const auto& x = ttype(op, a[0], "data");
        float_only(op, a[0], "data");
        int64_t ax = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), op);
        at["axis"] = ax;
        const char* roles[] = {"gamma", "beta", "moving_mean", "moving_var"};
        for (int i = 1; i < 5; ++i) {
          const auto& t = ttype(op, a[i], roles[i - 1]);
          MINITVM_USER_CHECK(t.shape == Shape{x.shape[ax]} && t.dtype == x.dtype)
              << op << ": " << roles[i - 1] << " must be Tensor[(" << x.shape[ax] << ",), "
              << x.dtype.str() << "] (channels of axis " << ax << " of data " << describe(a[0])
              << "), got " << describe(a[i]);
        }
        TensorType c{{x.shape[ax]}, x.dtype};
        return {{x, c, c}, true};
      });
  add("nn.relu", P::kElemWise, 1, none,
      [](const std::vector<Expr>& a, Json&) -> TypeResult { return {{unary("nn.relu", a)}}; });
  add("nn.max_pool2d", P::kOutEWiseFusable, 1,
      {{"pool_size", {1, 1}},
       {"strides", {1, 1}},
       {"padding", {0, 0}},
       {"layout", "NCHW"},
       {"ceil_mode", false}},
      [](const std::vector<Expr>& a, Json& at) { return pool_rule("nn.max_pool2d", a, at); });
  add("nn.avg_pool2d", P::kOutEWiseFusable, 1,
      {{"pool_size", {1, 1}},
       {"strides", {1, 1}},
       {"padding", {0, 0}},
       {"layout", "NCHW"},
       {"ceil_mode", false},
       {"count_include_pad", false}},
      [](const std::vector<Expr>& a, Json& at) { return pool_rule("nn.avg_pool2d", a, at); });
  add("nn.global_avg_pool2d", P::kOutEWiseFusable, 1, {{"layout", "NCHW"}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        pool_block("nn.global_avg_pool2d", a[0], at);
        auto s = a[0]->types[0].shape;
        s[2] = s[3] = 1;
        return {{TensorType{s, a[0]->types[0].dtype}}};
      });
  add("nn.dense", P::kOutEWiseFusable, 2, {{"units", 0}, {"out_dtype", ""}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "nn.dense";
        rank(op, a[0], "data", 2);
        rank(op, a[1], "weight", 2);
        same_dtype(op, a[0], a[1], "data", "weight");
        const Shape& d = a[0]->types[0].shape;
        const Shape& w = a[1]->types[0].shape;
        MINITVM_USER_CHECK(d[1] == w[1])
            << op << ": data " << describe(a[0]) << " has " << d[1] << " features but weight "
            << describe(a[1]) << " expects " << w[1];
        int64_t u = at["units"].get<int64_t>();
        MINITVM_USER_CHECK(u == 0 || u == w[0]) << op << ": units=" << u << " but weight "
                                                << describe(a[1]) << " has " << w[0] << " rows";
        at["units"] = w[0];
        return {{TensorType{{d[0], w[0]}, a[0]->types[0].dtype}}};
      });
  // TVM's nn.contrib_dense_pack (x86): data (M, K), weight packed to (N / b, K, b) -> (M, N).
  add("nn.contrib_dense_pack", P::kOutEWiseFusable, 2, none,
      [](const std::vector<Expr>& a, Json&) -> TypeResult {
        const std::string op = "nn.contrib_dense_pack";
        rank(op, a[0], "data", 2);
        rank(op, a[1], "weight", 3);
        same_dtype(op, a[0], a[1], "data", "weight");
        float_only(op, a[0], "data");
        const Shape& d = a[0]->types[0].shape;
        const Shape& w = a[1]->types[0].shape;
        MINITVM_USER_CHECK(d[1] == w[1])
            << op << ": data " << describe(a[0]) << " has " << d[1] << " features but weight "
            << describe(a[1]) << " expects " << w[1];
        return {{TensorType{{d[0], w[0] * w[2]}, a[0]->types[0].dtype}}};
      });
  // TVM's nn.batch_matmul (transpose_b): x (B, M, K) times y (B, N, K) transposed -> (B, M, N); a
  // batch of 1 on either side broadcasts.
  add("nn.batch_matmul", P::kOutEWiseFusable, 2, none,
      [](const std::vector<Expr>& a, Json&) -> TypeResult {
        const std::string op = "nn.batch_matmul";
        rank(op, a[0], "x", 3);
        rank(op, a[1], "y", 3);
        same_dtype(op, a[0], a[1], "x", "y");
        float_only(op, a[0], "x");
        const Shape& x = a[0]->types[0].shape;
        const Shape& y = a[1]->types[0].shape;
        MINITVM_USER_CHECK(x[0] == y[0] || x[0] == 1 || y[0] == 1)
            << op << ": batches of x " << describe(a[0]) << " and y " << describe(a[1])
            << " differ and neither is 1";
        MINITVM_USER_CHECK(x[2] == y[2]) << op << ": x " << describe(a[0]) << " has " << x[2]
                                         << " columns but y " << describe(a[1]) << " has " << y[2];
        return {{TensorType{{std::max(x[0], y[0]), x[1], y[1]}, a[0]->types[0].dtype}}};
      });
  add("image.resize2d", P::kInjective, 1,
      {{"size", Json::array()},
       {"scale", {0.0, 0.0}},
       {"method", "linear"},
       {"coordinate_transformation_mode", "half_pixel"},
       {"rounding_method", "round_prefer_floor"},
       {"cubic_alpha", -0.75},
       {"cubic_exclude", false},
       {"layout", "NCHW"}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "image.resize2d";
        rank(op, a[0], "data", 4);
        float_only(op, a[0], "data");
        MINITVM_USER_CHECK(at["layout"] == "NCHW")
            << op << ": layout " << at["layout"].dump() << " is not supported (NCHW only)";
        const Json& sz = at["size"];
        bool int_pair = sz.is_array() && sz.size() == 2 && sz[0].is_number_integer() &&
                        sz[1].is_number_integer();
        auto size = int_pair ? detail::attr_ints(sz) : Shape{};
        MINITVM_USER_CHECK(int_pair && size[0] >= 1 && size[1] >= 1)
            << op << ": size must be 2 positive integers (height, width), got "
            << at["size"].dump();
        const Json& sc = at["scale"];
        MINITVM_USER_CHECK(sc.is_array() && sc.size() == 2 && sc[0].is_number() &&
                           sc[1].is_number())
            << op << ": scale must be 2 numbers (height, width), got " << sc.dump();
        for (int i = 0; i < 2; ++i) {
          double s = sc[i].get<double>();
          MINITVM_USER_CHECK(std::isfinite(s) && s >= 0)
              << op << ": scale " << sc.dump() << " must be finite and >= 0 (0: output / input)";
        }
        auto one_of = [&](const char* k, std::initializer_list<const char*> ok) {
          MINITVM_USER_CHECK(at[k].is_string()) << op << ": " << k << " must be a string";
          std::string v = at[k].get<std::string>();
          std::string all;
          for (const char* o : ok) {
            if (v == o) return;
            all += std::string(all.empty() ? "" : ", ") + "'" + o + "'";
          }
          MINITVM_USER_ERROR << op << ": " << k << " '" << v << "' is not supported (" << all
                             << ")";
        };
        one_of("method", {"nearest_neighbor", "linear", "cubic"});
        one_of("coordinate_transformation_mode",
               {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                "tf_half_pixel_for_nn", "half_pixel_symmetric"});
        if (at["rounding_method"] == "") at["rounding_method"] = "round_prefer_floor";
        one_of("rounding_method",
               {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"});
        MINITVM_USER_CHECK(at["cubic_alpha"].is_number() &&
                           std::isfinite(at["cubic_alpha"].get<double>()))
            << op << ": cubic_alpha must be a finite number, got " << at["cubic_alpha"].dump();
        MINITVM_USER_CHECK(at["cubic_exclude"].is_boolean())
            << op << ": cubic_exclude must be a boolean, got " << at["cubic_exclude"].dump();
        Shape out = a[0]->types[0].shape;
        out[2] = size[0];
        out[3] = size[1];
        return {{TensorType{out, a[0]->types[0].dtype}}};
      });
  add("nn.bias_add", P::kBroadcast, 2, {{"axis", 1}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "nn.bias_add";
        const auto& x = ttype(op, a[0], "data");
        int64_t ax = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), op);
        at["axis"] = ax;
        rank(op, a[1], "bias", 1);
        same_dtype(op, a[0], a[1], "data", "bias");
        MINITVM_USER_CHECK(a[1]->types[0].shape[0] == x.shape[ax])
            << op << ": bias " << describe(a[1]) << " must have " << x.shape[ax]
            << " elements (axis " << ax << " of data " << describe(a[0]) << ")";
        return {{x}};
      });
  add("nn.batch_flatten", P::kInjective, 1, none,
      [](const std::vector<Expr>& a, Json&) -> TypeResult {
        const auto& x = ttype("nn.batch_flatten", a[0], "data");
        MINITVM_USER_CHECK(!x.shape.empty())
            << "nn.batch_flatten: data must have a batch axis, got " << describe(a[0]);
        int64_t rest = 1;
        for (size_t i = 1; i < x.shape.size(); ++i) rest *= x.shape[i];
        return {{TensorType{{x.shape[0], rest}, x.dtype}}};
      });
  add("nn.softmax", P::kOpaque, 1, {{"axis", -1}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("nn.softmax", a[0], "data");
        float_only("nn.softmax", a[0], "data");
        at["axis"] = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), "nn.softmax");
        return {{x}};
      });
  add("nn.lrn", P::kOpaque, 1,
      {{"size", 5}, {"axis", 1}, {"bias", 2.0}, {"alpha", 1e-4}, {"beta", 0.75}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "nn.lrn";
        const auto& x = ttype(op, a[0], "data");
        float_only(op, a[0], "data");
        MINITVM_USER_CHECK(!x.shape.empty())
            << op << ": data must have rank >= 1, got " << describe(a[0]);
        at["axis"] = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), op);
        MINITVM_USER_CHECK(at["size"].is_number_integer() && at["size"].get<int64_t>() >= 1)
            << op << ": size must be a positive integer, got " << at["size"].dump();
        for (const char* k : {"bias", "alpha", "beta"})
          MINITVM_USER_CHECK(at[k].is_number() && std::isfinite(at[k].get<double>()))
              << op << ": " << k << " must be a finite number, got " << at[k].dump();
        return {{x}};
      });
  add("nn.dropout", P::kOpaque, 1, {{"rate", 0.5}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("nn.dropout", a[0], "data");
        double rate = at["rate"].get<double>();
        MINITVM_USER_CHECK(rate >= 0 && rate < 1)
            << "nn.dropout: rate " << rate << " must be in [0, 1)";
        return {{x, x}, true};
      });
  add("nn.pad", P::kInjective, 1,
      {{"pad_width", Json::array()}, {"pad_value", 0.0}, {"pad_mode", "constant"}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("nn.pad", a[0], "data");
        const Json& mode = at["pad_mode"];
        MINITVM_USER_CHECK(mode == "constant" || mode == "edge" || mode == "reflect")
            << "nn.pad: pad_mode " << mode.dump() << " is not supported (constant, edge, reflect)";
        const Json& pw = at["pad_width"];
        MINITVM_USER_CHECK(pw.is_array() && pw.size() == x.shape.size())
            << "nn.pad: pad_width needs one (before, after) pair per axis of " << describe(a[0])
            << ", got " << pw.dump();
        Shape out = x.shape;
        for (size_t i = 0; i < out.size(); ++i) {
          auto p = ints(pw[i]);
          MINITVM_USER_CHECK(p.size() == 2 && p[0] >= 0 && p[1] >= 0)
              << "nn.pad: pad_width[" << i << "] must be a non-negative (before, after) pair, got "
              << pw[i].dump();
          // edge repeats the border element, reflect mirrors about it (not repeating it).
          const bool padded = p[0] > 0 || p[1] > 0;
          MINITVM_USER_CHECK(mode == "constant" || !padded || x.shape[i] >= 1)
              << "nn.pad: axis " << i << " of " << describe(a[0]) << " is empty; " << mode.dump()
              << " padding needs an element to repeat";
          MINITVM_USER_CHECK(mode != "reflect" || (p[0] < x.shape[i] && p[1] < x.shape[i]))
              << "nn.pad: reflect padding " << pw[i].dump() << " of axis " << i << " of "
              << describe(a[0]) << " must be less than its extent";
          out[i] += p[0] + p[1];
        }
        return {{TensorType{out, x.dtype}}};
      });
  for (const char* name : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "power"})
    add(name, P::kBroadcast, 2, none, [n = std::string(name)](const std::vector<Expr>& a, Json&) {
      return broadcast_rule(n, a);
    });
  add("concatenate", P::kInjective, -1, {{"axis", 0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "concatenate";
        const auto& x = ttype(op, a[0], "input 0");
        int64_t ax = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), op);
        at["axis"] = ax;
        Shape out = x.shape;
        for (size_t i = 1; i < a.size(); ++i) {
          const auto& y = ttype(op, a[i], "input");
          same_dtype(op, a[0], a[i], "input 0", "a later input");
          bool ok = y.shape.size() == x.shape.size();
          for (size_t k = 0; ok && k < x.shape.size(); ++k)
            ok = k == static_cast<size_t>(ax) || y.shape[k] == x.shape[k];
          MINITVM_USER_CHECK(ok) << op << ": input " << i << " " << describe(a[i])
                                 << " does not match input 0 " << describe(a[0]) << " outside axis "
                                 << ax;
          out[ax] += y.shape[ax];
        }
        return {{TensorType{out, x.dtype}}};
      });
  add("clip", P::kElemWise, 1, {{"a_min", 0.0}, {"a_max", 0.0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        MINITVM_USER_CHECK(at["a_min"].get<double>() <= at["a_max"].get<double>())
            << "clip: a_min " << at["a_min"] << " > a_max " << at["a_max"];
        return {{unary("clip", a)}};
      });
  add("sigmoid", P::kElemWise, 1, none, [](const std::vector<Expr>& a, Json&) -> TypeResult {
    float_only("sigmoid", a[0], "data");
    return {{unary("sigmoid", a)}};
  });
  add("sqrt", P::kElemWise, 1, none, [](const std::vector<Expr>& a, Json&) -> TypeResult {
    float_only("sqrt", a[0], "data");
    return {{unary("sqrt", a)}};
  });
  add("negative", P::kElemWise, 1, none,
      [](const std::vector<Expr>& a, Json&) -> TypeResult { return {{unary("negative", a)}}; });
  // Elementwise functions of float values (relay.tanh, exp, log, erf, abs, floor, ceil).
  for (const char* name : {"tanh", "exp", "log", "erf", "abs", "floor", "ceil"})
    add(name, P::kElemWise, 1, none,
        [n = std::string(name)](const std::vector<Expr>& a, Json&) -> TypeResult {
          float_only(n, a[0], "data");
          return {{unary(n, a)}};
        });
  add("nn.leaky_relu", P::kElemWise, 1, {{"alpha", 0.01}},
      [](const std::vector<Expr>& a, Json&) -> TypeResult {
        float_only("nn.leaky_relu", a[0], "data");
        return {{unary("nn.leaky_relu", a)}};
      });
  add("reshape", P::kInjective, 1, {{"newshape", Json::array()}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("reshape", a[0], "data");
        Shape ns = ints(at["newshape"]), out;
        int infer = -1;
        int64_t known = 1;
        for (size_t i = 0; i < ns.size(); ++i) {
          int64_t v = ns[i];
          if (v == 0) {
            MINITVM_USER_CHECK(i < x.shape.size())
                << "reshape: newshape[" << i << "] = 0 copies a dimension that " << describe(a[0])
                << " does not have";
            v = x.shape[i];
          } else if (v == -1) {
            MINITVM_USER_CHECK(infer < 0)
                << "reshape: more than one -1 in newshape " << shape_str(ns);
            infer = static_cast<int>(i);
            out.push_back(1);
            continue;
          }
          MINITVM_USER_CHECK(v >= 1)
              << "reshape: unsupported newshape value " << v << " (supported: > 0, 0, -1)";
          out.push_back(v);
          known *= v;
        }
        if (infer >= 0) {
          MINITVM_USER_CHECK(known > 0 && x.numel() % known == 0)
              << "reshape: cannot infer -1 of " << shape_str(ns) << " for " << describe(a[0]);
          out[infer] = x.numel() / known;
        }
        TensorType t{out, x.dtype};
        MINITVM_USER_CHECK(t.numel() == x.numel())
            << "reshape: newshape " << shape_str(ns) << " gives " << t.numel() << " elements, data "
            << describe(a[0]) << " has " << x.numel();
        at["newshape"] = ns;
        return {{t}};
      });
  add("reverse", P::kInjective, 1, {{"axis", 0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("reverse", a[0], "data");
        MINITVM_USER_CHECK(at["axis"].is_number_integer())
            << "reverse: axis must be an integer, got " << at["axis"].dump();
        at["axis"] = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), "reverse");
        return {{x}};
      });
  add("nn.dilate", P::kInjective, 1, {{"strides", Json::array()}, {"dilation_value", 0.0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("nn.dilate", a[0], "data");
        Shape st = per_axis_ints("nn.dilate", at, "strides", a[0]);
        MINITVM_USER_CHECK(at["dilation_value"].is_number() &&
                           std::isfinite(at["dilation_value"].get<double>()))
            << "nn.dilate: dilation_value must be a finite number, got "
            << at["dilation_value"].dump();
        Shape out = x.shape;
        for (size_t i = 0; i < st.size(); ++i) {
          MINITVM_USER_CHECK(st[i] >= 1 && st[i] <= (int64_t(1) << 20))
              << "nn.dilate: stride " << st[i] << " of axis " << i << " must be in [1, 2^20]";
          if (out[i] > 0) out[i] = (out[i] - 1) * st[i] + 1;
        }
        return {{TensorType{out, x.dtype}}};
      });
  add("tile", P::kInjective, 1, {{"reps", Json::array()}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("tile", a[0], "data");
        Shape reps = per_axis_ints("tile", at, "reps", a[0]);
        Shape out = x.shape;
        for (size_t i = 0; i < reps.size(); ++i) {
          MINITVM_USER_CHECK(reps[i] >= 0 && reps[i] <= (int64_t(1) << 31))
              << "tile: reps[" << i << "] = " << reps[i] << " must be in [0, 2^31]";
          MINITVM_USER_CHECK(out[i] == 0 || reps[i] <= (int64_t(1) << 40) / out[i])
              << "tile: axis " << i << " of " << describe(a[0]) << " times " << reps[i]
              << " is too large";
          out[i] *= reps[i];
        }
        return {{TensorType{out, x.dtype}}};
      });
  // TVM's strided_slice with a begin, end and positive stride for every axis (end exclusive,
  // in bounds): out[d] = ceil((end - begin) / stride).
  add("strided_slice", P::kInjective, 1,
      {{"begin", Json::array()}, {"end", Json::array()}, {"strides", Json::array()}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("strided_slice", a[0], "data");
        Shape b = ints(at["begin"]), e = ints(at["end"]), st = ints(at["strides"]);
        const size_t n = x.shape.size();
        MINITVM_USER_CHECK(b.size() == n && e.size() == n && st.size() == n)
            << "strided_slice: begin " << at["begin"].dump() << ", end " << at["end"].dump()
            << " and strides " << at["strides"].dump() << " need one value per axis of "
            << describe(a[0]);
        Shape out(n);
        for (size_t d = 0; d < n; ++d) {
          MINITVM_USER_CHECK(st[d] >= 1 && b[d] >= 0 && b[d] < e[d] && e[d] <= x.shape[d])
              << "strided_slice: axis " << d << " [" << b[d] << ", " << e[d] << ") step " << st[d]
              << " is not a non-empty range with a positive step within " << describe(a[0]);
          out[d] = (e[d] - b[d] + st[d] - 1) / st[d];
        }
        return {{TensorType{out, x.dtype}}};
      });
  add("transpose", P::kInjective, 1, {{"axes", Json::array()}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("transpose", a[0], "data");
        Shape axes = ints(at["axes"]);
        size_t n = x.shape.size();
        if (axes.empty())
          for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(n - 1 - i));
        MINITVM_USER_CHECK(axes.size() == n)
            << "transpose: axes " << shape_str(axes) << " is not a permutation of the " << n
            << " axes of " << describe(a[0]);
        std::vector<bool> used(n);
        Shape out;
        for (auto& v : axes) {
          v = norm_axis(v, n, "transpose");
          MINITVM_USER_CHECK(!used[v])
              << "transpose: axis " << v << " repeated in " << at["axes"].dump();
          used[v] = true;
          out.push_back(x.shape[v]);
        }
        at["axes"] = axes;
        return {{TensorType{out, x.dtype}}};
      });
  add("split", P::kInjective, 1, {{"indices_or_sections", 1}, {"axis", 0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("split", a[0], "data");
        int64_t ax = norm_axis(at["axis"].get<int64_t>(), x.shape.size(), "split");
        at["axis"] = ax;
        Shape idx;
        if (at["indices_or_sections"].is_number_integer()) {
          int64_t s = at["indices_or_sections"].get<int64_t>();
          MINITVM_USER_CHECK(s >= 1 && x.shape[ax] % s == 0)
              << "split: " << s << " sections do not divide axis " << ax << " of "
              << describe(a[0]);
          for (int64_t i = 1; i < s; ++i) idx.push_back(i * (x.shape[ax] / s));
        } else {
          idx = ints(at["indices_or_sections"]);
        }
        TypeResult r{{}, true};
        int64_t begin = 0;
        idx.push_back(x.shape[ax]);
        for (int64_t e : idx) {
          MINITVM_USER_CHECK(e >= begin && e <= x.shape[ax])
              << "split: split points " << at["indices_or_sections"].dump()
              << " are not increasing within axis " << ax << " of " << describe(a[0]);
          Shape s = x.shape;
          s[ax] = e - begin;
          r.types.push_back(TensorType{s, x.dtype});
          begin = e;
        }
        return r;
      });
  add("expand_dims", P::kBroadcast, 1, {{"axis", 0}, {"num_newaxis", 1}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("expand_dims", a[0], "data");
        int64_t n = static_cast<int64_t>(x.shape.size()), ax = at["axis"].get<int64_t>();
        int64_t k = at["num_newaxis"].get<int64_t>();
        MINITVM_USER_CHECK(ax >= -n - 1 && ax <= n)
            << "expand_dims: axis " << ax << " out of range for " << describe(a[0]);
        MINITVM_USER_CHECK(k >= 0) << "expand_dims: num_newaxis " << k << " < 0";
        if (ax < 0) ax += n + 1;
        at["axis"] = ax;
        Shape out(x.shape.begin(), x.shape.begin() + ax);
        out.insert(out.end(), k, 1);
        out.insert(out.end(), x.shape.begin() + ax, x.shape.end());
        return {{TensorType{out, x.dtype}}};
      });
  add("squeeze", P::kInjective, 1, {{"axis", nullptr}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("squeeze", a[0], "data");
        std::vector<bool> drop(x.shape.size());
        if (at["axis"].is_null() || at["axis"].empty()) {
          for (size_t i = 0; i < x.shape.size(); ++i) drop[i] = x.shape[i] == 1;
        } else {
          for (int64_t v : ints(at["axis"])) {
            v = norm_axis(v, x.shape.size(), "squeeze");
            MINITVM_USER_CHECK(x.shape[v] == 1)
                << "squeeze: axis " << v << " of " << describe(a[0]) << " is not 1";
            drop[v] = true;
          }
        }
        Shape out;
        for (size_t i = 0; i < x.shape.size(); ++i)
          if (!drop[i]) out.push_back(x.shape[i]);
        return {{TensorType{out, x.dtype}}};
      });
  // relay.mean, sum, max, min, prod: over `axis` (null: all), keepdims, exclude.
  for (const char* name : {"mean", "sum", "max", "min", "prod"})
    add(name, P::kCommReduce, 1, {{"axis", nullptr}, {"keepdims", false}, {"exclude", false}},
        [n = std::string(name)](const std::vector<Expr>& a, Json& at) -> TypeResult {
          const auto& x = ttype(n, a[0], "data");
          size_t rank = x.shape.size();
          std::vector<bool> red(rank, at["axis"].is_null());
          if (!at["axis"].is_null()) {
            Shape axes;
            for (int64_t v : ints(at["axis"])) axes.push_back(norm_axis(v, rank, n));
            for (int64_t v : axes) red[v] = true;
            at["axis"] = axes;
          }
          if (at["exclude"].get<bool>())
            for (size_t i = 0; i < rank; ++i) red[i] = !red[i];
          Shape out;
          for (size_t i = 0; i < rank; ++i)
            if (!red[i])
              out.push_back(x.shape[i]);
            else if (at["keepdims"].get<bool>())
              out.push_back(1);
          return {{TensorType{out, x.dtype}}};
        });
  add("layout_transform", P::kInjective, 1, {{"src_layout", ""}, {"dst_layout", ""}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const std::string op = "layout_transform";
        const auto& x = ttype(op, a[0], "data");
        MINITVM_USER_CHECK(at["src_layout"].is_string() && at["dst_layout"].is_string())
            << op << ": src_layout and dst_layout must be strings";
        auto src = detail::Layout::parse(at["src_layout"].get<std::string>(), op);
        auto dst = detail::Layout::parse(at["dst_layout"].get<std::string>(), op);
        MINITVM_USER_CHECK(src.axes.size() == x.shape.size())
            << op << ": src_layout " << src.name << " has " << src.axes.size() << " axes but data "
            << describe(a[0]) << " has " << x.shape.size();
        std::map<char, int64_t> full;
        try {
          full = src.full_extents(x.shape);
        } catch (const CompileError& e) {
          MINITVM_USER_ERROR << op << ": data " << describe(a[0]) << " does not have layout "
                             << src.name << ": " << e.what();
        }
        return {{TensorType{dst.shape_of(full, op + " to " + dst.name), x.dtype}}};
      });
  // TVM's nn.contrib_conv2d_NCHWc: data NCHW[x]c, kernel OIHW[x]i[y]o, output NCHW[y]c; what
  // alter_op_layout makes of nn.conv2d on llvm (groups 1).
  // data_channels (minitvm's, 0: all): the input channels that hold data, the rest zero padding
  // whose weights are zero (alter_op_layout's padded channels); the kernel may leave them out.
  add("nn.contrib_conv2d_NCHWc", P::kOutEWiseFusable, 2,
      conv_attrs({{"data_layout", ""},
                  {"kernel_layout", ""},
                  {"out_layout", ""},
                  {"out_dtype", ""},
                  {"data_channels", 0}}),
      [](const std::vector<Expr>& a, Json& at) {
        return conv2d_nchwc_rule("nn.contrib_conv2d_NCHWc", a, at, false);
      });
  // TVM's nn.contrib_depthwise_conv2d_NCHWc: data NCHW[x]c, kernel OIHW1i[x]o (one input channel
  // per output channel), output NCHW[x]c.
  add("nn.contrib_depthwise_conv2d_NCHWc", P::kOutEWiseFusable, 2,
      conv_attrs(
          {{"data_layout", ""}, {"kernel_layout", ""}, {"out_layout", ""}, {"out_dtype", ""}}),
      [](const std::vector<Expr>& a, Json& at) {
        return conv2d_nchwc_rule("nn.contrib_depthwise_conv2d_NCHWc", a, at, true);
      });
  // TVM's winograd ops (CUDA alter layout at opt level 3, the weight transform folded at build).
  add("nn.contrib_conv2d_winograd_weight_transform", P::kOutEWiseFusable, 1, {{"tile_size", 0}},
      winograd_weight_transform_rule);
  add("nn.contrib_conv2d_winograd_without_weight_transform", P::kOutEWiseFusable, 2,
      conv_attrs(
          {{"tile_size", 0}, {"data_layout", "NCHW"}, {"kernel_layout", ""}, {"out_dtype", ""}}),
      winograd_conv2d_rule);
  // Winograd F(m, 3) on the blocked layouts (llvm's alter_op_layout for 3x3 stride-1 layers; the
  // weight transform folded at build).
  add("nn.contrib_conv2d_winograd_NCHWc_weight_transform", P::kOutEWiseFusable, 1,
      {{"tile_size", 0}, {"ic_block", 0}, {"oc_block", 0}}, winograd_nchwc_weight_transform_rule);
  add("nn.contrib_conv2d_winograd_NCHWc", P::kOutEWiseFusable, 2,
      conv_attrs({{"tile_size", 0}, {"data_layout", ""}, {"out_layout", ""}, {"out_dtype", ""}}),
      winograd_nchwc_conv2d_rule);
  return r;
}

const std::vector<OpDef>& registry() {
  static const std::vector<OpDef> r = make_registry();
  return r;
}

const OpDef& find_op(const std::string& name) {
  for (auto& d : registry())
    if (d.name == name) return d;
  MINITVM_USER_ERROR << "relay: unknown operator '" << name << "'";
  throw;  // unreachable
}

}  // namespace

std::vector<std::string> registered_ops() {
  std::vector<std::string> r;
  for (auto& d : registry()) r.push_back(d.name);
  return r;
}

bool is_registered_op(const std::string& name) {
  for (auto& d : registry())
    if (d.name == name) return true;
  return false;
}

OpPattern op_pattern(const std::string& name) {
  return find_op(name).pattern;
}

Expr call(const std::string& op, const std::vector<Expr>& args, const Json& attrs) {
  const OpDef& d = find_op(op);
  if (d.num_args >= 0) {
    MINITVM_USER_CHECK(static_cast<int>(args.size()) == d.num_args)
        << op << ": expects " << d.num_args << " argument(s), got " << args.size();
  } else {
    MINITVM_USER_CHECK(!args.empty()) << op << ": expects at least one argument";
  }
  for (size_t i = 0; i < args.size(); ++i)
    MINITVM_USER_CHECK(args[i] != nullptr) << op << ": argument " << i << " is null";
  Json at = d.defaults;
  MINITVM_USER_CHECK(attrs.is_object()) << op << ": attributes must be a JSON object";
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    MINITVM_USER_CHECK(at.contains(it.key())) << op << ": unknown attribute '" << it.key() << "'";
    at[it.key()] = it.value();
  }
  TypeResult tr;
  try {
    tr = d.rule(args, at);
  } catch (const nlohmann::json::exception& e) {
    MINITVM_USER_ERROR << op << ": malformed attributes " << attrs.dump() << " (" << e.what()
                       << ")";
  }
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Call;
  n->name = op;
  n->args = args;
  n->attrs = std::move(at);
  n->types = std::move(tr.types);
  n->tuple_typed = tr.tuple;
  return n;
}

}  // namespace minitvm::relay
