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

namespace minitvm::relay {

namespace {

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

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  if (s.size() == 1) os << ",";
  os << ")";
  return os.str();
}

// How an argument is named in messages: its var name, "constant", or the op producing it.
std::string describe(const Expr& e) {
  std::string what;
  switch (e->kind) {
    case ExprKind::Var:
      what = "%" + e->name;
      break;
    case ExprKind::Constant:
      what = "a constant";
      break;
    case ExprKind::Call:
      what = "the output of " + e->name;
      break;
    case ExprKind::Tuple:
      what = "a tuple";
      break;
    case ExprKind::TupleGetItem:
      what = "field " + std::to_string(e->index) + " of a tuple";
      break;
  }
  return what + (e->tuple_typed ? "" : " " + e->types[0].str());
}

std::vector<int64_t> ints(const Json& j) {
  return detail::attr_ints(j);
}

int64_t norm_axis(int64_t axis, size_t ndim, const std::string& op) {
  int64_t n = static_cast<int64_t>(ndim);
  MINITVM_USER_CHECK(axis >= -n && axis < n)
      << op << ": axis " << axis << " out of range for a " << n << "-D input";
  return axis < 0 ? axis + n : axis;
}

Shape pair_attr(const Json& j, const std::string& op, const char* what) {
  Shape v = ints(j);
  if (v.size() == 1) v = {v[0], v[0]};
  MINITVM_USER_CHECK(v.size() == 2)
      << op << ": " << what << " needs 1 or 2 values, got " << v.size();
  return v;
}
Shape pad4(const Json& j, const std::string& op) {
  Shape p = ints(j);
  if (p.size() == 1)
    p = {p[0], p[0], p[0], p[0]};
  else if (p.size() == 2)
    p = {p[0], p[1], p[0], p[1]};
  MINITVM_USER_CHECK(p.size() == 4) << op << ": padding needs 1, 2 or 4 values, got " << p.size();
  for (int64_t v : p) MINITVM_USER_CHECK(v >= 0) << op << ": negative padding " << v;
  return p;
}

const TensorType& ttype(const std::string& op, const Expr& e, const char* role) {
  MINITVM_USER_CHECK(!e->tuple_typed) << op << ": argument '" << role << "' is a tuple ("
                                      << describe(e) << "); take a field with TupleGetItem";
  return e->types[0];
}

void same_dtype(const std::string& op, const Expr& a, const Expr& b, const char* ra,
                const char* rb) {
  MINITVM_USER_CHECK(a->types[0].dtype == b->types[0].dtype)
      << op << ": dtype mismatch: " << ra << " is " << describe(a) << ", " << rb << " is "
      << describe(b);
}

void rank(const std::string& op, const Expr& e, const char* role, size_t r) {
  MINITVM_USER_CHECK(ttype(op, e, role).shape.size() == r)
      << op << ": " << role << " must be " << r << "-D, got " << describe(e);
}

void float_only(const std::string& op, const Expr& e, const char* role) {
  MINITVM_USER_CHECK(ttype(op, e, role).dtype.is_float())
      << op << ": " << role << " must be a float tensor, got " << describe(e);
}

TensorType unary(const std::string& op, const std::vector<Expr>& a) {
  return ttype(op, a[0], "data");
}

TypeResult broadcast_rule(const std::string& op, const std::vector<Expr>& a) {
  const auto& x = ttype(op, a[0], "lhs");
  const auto& y = ttype(op, a[1], "rhs");
  same_dtype(op, a[0], a[1], "lhs", "rhs");
  size_t n = std::max(x.shape.size(), y.shape.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t dx = i < n - x.shape.size() ? 1 : x.shape[i - (n - x.shape.size())];
    int64_t dy = i < n - y.shape.size() ? 1 : y.shape[i - (n - y.shape.size())];
    MINITVM_USER_CHECK(dx == dy || dx == 1 || dy == 1)
        << op << ": shapes do not broadcast at output axis " << i << " (" << dx << " vs " << dy
        << "): lhs is " << describe(a[0]) << ", rhs is " << describe(a[1]);
    out[i] = dx == 1 ? dy : dx;
  }
  return {{TensorType{out, x.dtype}}};
}

// The convolutions' window attributes (normalised in `at`) and the output height and width of
// data `x` (H, W at axes 2, 3) under a kh x kw kernel.
std::pair<int64_t, int64_t> conv_window(const std::string& op, const Expr& x, int64_t kh,
                                        int64_t kw, Json& at) {
  auto strides = pair_attr(at["strides"], op, "strides");
  auto dil = pair_attr(at["dilation"], op, "dilation");
  auto pad = pad4(at["padding"], op);
  at["strides"] = strides;
  at["dilation"] = dil;
  at["padding"] = pad;
  for (int64_t s : strides) MINITVM_USER_CHECK(s >= 1) << op << ": stride " << s << " must be >= 1";
  for (int64_t d : dil) MINITVM_USER_CHECK(d >= 1) << op << ": dilation " << d << " must be >= 1";
  const Shape& d = x->types[0].shape;
  int64_t k[2] = {kh, kw}, out[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t eff = (k[i] - 1) * dil[i] + 1;
    int64_t padded = d[2 + i] + pad[i] + pad[i + 2];
    MINITVM_USER_CHECK(padded >= eff)
        << op << ": the " << (i ? "width" : "height") << " of data " << describe(x) << " padded to "
        << padded << " is smaller than the kernel extent " << eff;
    out[i] = (padded - eff) / strides[i] + 1;
  }
  return {out[0], out[1]};
}

TypeResult conv2d_rule(const std::vector<Expr>& a, Json& at) {
  const std::string op = "nn.conv2d";
  rank(op, a[0], "data", 4);
  rank(op, a[1], "weight", 4);
  same_dtype(op, a[0], a[1], "data", "weight");
  MINITVM_USER_CHECK(at["data_layout"] == "NCHW" && at["kernel_layout"] == "OIHW")
      << op << ": only data_layout NCHW and kernel_layout OIHW are supported, got "
      << at["data_layout"] << " / " << at["kernel_layout"];
  const Shape& d = a[0]->types[0].shape;
  const Shape& w = a[1]->types[0].shape;
  int64_t groups = at["groups"].get<int64_t>();
  MINITVM_USER_CHECK(groups >= 1 && d[1] % groups == 0 && w[0] % groups == 0)
      << op << ": groups=" << groups << " must divide the data channels " << d[1]
      << " and the output channels " << w[0] << " (weight " << describe(a[1]) << ")";
  MINITVM_USER_CHECK(w[1] * groups == d[1])
      << op << ": weight " << describe(a[1]) << " has " << w[1]
      << " input channels per group, but data " << describe(a[0]) << " has " << d[1]
      << " channels and groups=" << groups;
  int64_t ch = at["channels"].get<int64_t>();
  MINITVM_USER_CHECK(ch == 0 || ch == w[0])
      << op << ": channels=" << ch << " but the weight " << describe(a[1]) << " has " << w[0]
      << " output channels";
  auto ks = ints(at["kernel_size"]);
  MINITVM_USER_CHECK(ks.empty() || (ks.size() == 2 && ks[0] == w[2] && ks[1] == w[3]))
      << op << ": kernel_size " << shape_str(ks) << " does not match the weight " << describe(a[1]);
  at["channels"] = w[0];
  at["kernel_size"] = Shape{w[2], w[3]};
  auto [oh, ow] = conv_window(op, a[0], w[2], w[3], at);
  return {{TensorType{Shape{d[0], w[0], oh, ow}, a[0]->types[0].dtype}}};
}

// The block of a pooling layout: 0 for NCHW, k for NCHW{k}c (the data then 5-D, k its last axis).
int64_t pool_block(const std::string& op, const Expr& data, const Json& at) {
  MINITVM_USER_CHECK(at["layout"].is_string())
      << op << ": layout must be a string, got " << at["layout"].dump();
  std::string l = at["layout"].get<std::string>();
  if (l == "NCHW") {
    rank(op, data, "data", 4);
    return 0;
  }
  detail::Layout lay = detail::Layout::parse(l, op);
  int64_t k = lay.factor_of('C');
  MINITVM_USER_CHECK(k > 0 && l == detail::Layout::blocked("NCHW", 'C', k))
      << op << ": only layouts NCHW and NCHW[x]c are supported, got " << at["layout"];
  rank(op, data, "data", 5);
  MINITVM_USER_CHECK(data->types[0].shape[4] == k)
      << op << ": data " << describe(data) << " does not have layout " << l << " (last axis " << k
      << ")";
  return k;
}

TypeResult pool_rule(const std::string& op, const std::vector<Expr>& a, Json& at) {
  pool_block(op, a[0], at);
  auto k = pair_attr(at["pool_size"], op, "pool_size");
  auto s = pair_attr(at["strides"], op, "strides");
  auto p = pad4(at["padding"], op);
  at["pool_size"] = k;
  at["strides"] = s;
  at["padding"] = p;
  const Shape& d = a[0]->types[0].shape;
  bool ceil = at["ceil_mode"].get<bool>();
  Shape out = d;
  for (int i = 0; i < 2; ++i) {
    MINITVM_USER_CHECK(k[i] >= 1 && s[i] >= 1) << op << ": pool_size and strides must be >= 1";
    int64_t padded = d[2 + i] + p[i] + p[i + 2];
    MINITVM_USER_CHECK(padded >= k[i]) << op << ": data " << describe(a[0]) << " padded to "
                                       << padded << " is smaller than pool_size " << k[i];
    // TVM topi: ceil_mode pads the end by stride - 1.
    out[2 + i] = (padded - k[i] + (ceil ? s[i] - 1 : 0)) / s[i] + 1;
  }
  return {{TensorType{out, a[0]->types[0].dtype}}};
}

// The blocked convolutions: layouts named in the attributes, shapes checked against them; the
// unblocked (NCHW / OIHW) geometry is checked as nn.conv2d's.
TypeResult conv2d_nchwc_rule(const std::string& op, const std::vector<Expr>& a, Json& at,
                             bool depthwise) {
  rank(op, a[0], "data", 5);
  rank(op, a[1], "weight", 6);
  same_dtype(op, a[0], a[1], "data", "weight");
  const Shape& d = a[0]->types[0].shape;
  const Shape& w = a[1]->types[0].shape;
  int64_t ib = d[4], ob = w[5];
  auto str = [&](const char* k) {
    MINITVM_USER_CHECK(at[k].is_string())
        << op << ": " << k << " must be a string, got " << at[k].dump();
    return at[k].get<std::string>();
  };
  std::string dl = str("data_layout"), kl = str("kernel_layout"), ol = str("out_layout");
  if (dl.empty()) dl = detail::Layout::blocked("NCHW", 'C', ib);
  if (kl.empty()) kl = "OIHW" + std::to_string(w[4]) + "i" + std::to_string(ob) + "o";
  if (ol.empty()) ol = detail::Layout::blocked("NCHW", 'C', ob);
  MINITVM_USER_CHECK(dl == detail::Layout::blocked("NCHW", 'C', ib))
      << op << ": data " << describe(a[0]) << " does not have data_layout " << dl;
  MINITVM_USER_CHECK(kl == "OIHW" + std::to_string(w[4]) + "i" + std::to_string(ob) + "o")
      << op << ": weight " << describe(a[1]) << " does not have kernel_layout " << kl;
  MINITVM_USER_CHECK(ol == detail::Layout::blocked("NCHW", 'C', ob))
      << op << ": out_layout " << ol << " must block the output channels as the weight does (NCHW"
      << ob << "c)";
  at["data_layout"] = dl;
  at["kernel_layout"] = kl;
  at["out_layout"] = ol;
  int64_t C = d[1] * ib, O = w[0] * ob;
  if (depthwise) {
    MINITVM_USER_CHECK(w[1] == 1 && w[4] == 1 && ob == ib && O == C)
        << op << ": weight " << describe(a[1]) << " must be OIHW1i" << ib << "o with " << C
        << " output channels for data " << describe(a[0]);
    at["groups"] = C;
  } else {
    MINITVM_USER_CHECK(w[4] == ib && w[1] * w[4] == C)
        << op << ": weight " << describe(a[1]) << " expects " << w[1] * w[4]
        << " input channels in blocks of " << w[4] << ", data " << describe(a[0]) << " has " << C
        << " in blocks of " << ib;
    MINITVM_USER_CHECK(at["groups"] == 1)
        << op << ": groups must be 1, got " << at["groups"].dump();
  }
  at["channels"] = O;
  at["kernel_size"] = Shape{w[2], w[3]};
  auto [oh, ow] = conv_window(op, a[0], w[2], w[3], at);
  return {{TensorType{Shape{d[0], w[0], oh, ow, ob}, a[0]->types[0].dtype}}};
}

std::vector<OpDef> make_registry() {
  std::vector<OpDef> r;
  auto add = [&](std::string name, OpPattern p, int n, Json defaults, TypeRule rule) {
    r.push_back({std::move(name), p, n, std::move(defaults), std::move(rule)});
  };
  using P = OpPattern;
  Json none = Json::object();
  add("nn.conv2d", P::kOutEWiseFusable, 2,
      {{"strides", {1, 1}},
       {"padding", {0, 0}},
       {"dilation", {1, 1}},
       {"groups", 1},
       {"channels", 0},
       {"kernel_size", Json::array()},
       {"data_layout", "NCHW"},
       {"kernel_layout", "OIHW"},
       {"out_dtype", ""}},
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
  add("nn.pad", P::kInjective, 1, {{"pad_width", Json::array()}, {"pad_value", 0.0}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("nn.pad", a[0], "data");
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
          out[i] += p[0] + p[1];
        }
        return {{TensorType{out, x.dtype}}};
      });
  for (const char* name : {"add", "subtract", "multiply", "divide"})
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
  add("mean", P::kCommReduce, 1, {{"axis", nullptr}, {"keepdims", false}, {"exclude", false}},
      [](const std::vector<Expr>& a, Json& at) -> TypeResult {
        const auto& x = ttype("mean", a[0], "data");
        size_t n = x.shape.size();
        std::vector<bool> red(n, at["axis"].is_null());
        if (!at["axis"].is_null()) {
          Shape axes;
          for (int64_t v : ints(at["axis"])) axes.push_back(norm_axis(v, n, "mean"));
          for (int64_t v : axes) red[v] = true;
          at["axis"] = axes;
        }
        if (at["exclude"].get<bool>())
          for (size_t i = 0; i < n; ++i) red[i] = !red[i];
        Shape out;
        for (size_t i = 0; i < n; ++i)
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
  add("nn.contrib_conv2d_NCHWc", P::kOutEWiseFusable, 2,
      {{"strides", {1, 1}},
       {"padding", {0, 0}},
       {"dilation", {1, 1}},
       {"groups", 1},
       {"channels", 0},
       {"kernel_size", Json::array()},
       {"data_layout", ""},
       {"kernel_layout", ""},
       {"out_layout", ""},
       {"out_dtype", ""}},
      [](const std::vector<Expr>& a, Json& at) {
        return conv2d_nchwc_rule("nn.contrib_conv2d_NCHWc", a, at, false);
      });
  // TVM's nn.contrib_depthwise_conv2d_NCHWc: data NCHW[x]c, kernel OIHW1i[x]o (one input channel
  // per output channel), output NCHW[x]c.
  add("nn.contrib_depthwise_conv2d_NCHWc", P::kOutEWiseFusable, 2,
      {{"strides", {1, 1}},
       {"padding", {0, 0}},
       {"dilation", {1, 1}},
       {"groups", 1},
       {"channels", 0},
       {"kernel_size", Json::array()},
       {"data_layout", ""},
       {"kernel_layout", ""},
       {"out_layout", ""},
       {"out_dtype", ""}},
      [](const std::vector<Expr>& a, Json& at) {
        return conv2d_nchwc_rule("nn.contrib_depthwise_conv2d_NCHWc", a, at, true);
      });
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
