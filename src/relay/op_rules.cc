// The type rules of relay's operator registry (see op_rules.h).
#include "relay/op_rules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "minitvm/support/error.h"
#include "relay/attr_util.h"
#include "relay/layout.h"

namespace minitvm::relay::op_rules {

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

Shape per_axis_ints(const std::string& op, const Json& at, const char* key, const Expr& x) {
  const Json& j = at[key];
  bool ok = j.is_array() && j.size() == x->types[0].shape.size();
  for (size_t i = 0; ok && i < j.size(); ++i) ok = j[i].is_number_integer();
  MINITVM_USER_CHECK(ok) << op << ": " << key << " " << j.dump()
                         << " needs one integer per axis of " << describe(x);
  return ints(j);
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
    MINITVM_USER_CHECK(at["groups"].is_number_integer() && at["groups"].get<int64_t>() >= 1)
        << op << ": groups must be a positive integer, got " << at["groups"].dump();
    const int64_t groups = at["groups"].get<int64_t>();
    MINITVM_USER_CHECK(w[4] == ib && w[1] * w[4] * groups == C)
        << op << ": weight " << describe(a[1]) << " expects " << w[1] * w[4] << " input channels"
        << (groups > 1 ? " per group (" + std::to_string(groups) + " groups)" : std::string())
        << " in blocks of " << w[4] << ", data " << describe(a[0]) << " has " << C
        << " in blocks of " << ib;
    MINITVM_USER_CHECK(w[0] % groups == 0)
        << op << ": the " << w[0] << " output channel blocks of weight " << describe(a[1])
        << " do not divide into " << groups << " groups";
    if (at.contains("data_channels"))
      MINITVM_USER_CHECK(at["data_channels"].is_number_integer() &&
                         at["data_channels"].get<int64_t>() >= 0 &&
                         at["data_channels"].get<int64_t>() <= C)
          << op << ": data_channels must be an integer from 0 to the data's " << C
          << " channels, got " << at["data_channels"].dump();
  }
  at["channels"] = O;
  at["kernel_size"] = Shape{w[2], w[3]};
  auto [oh, ow] = conv_window(op, a[0], w[2], w[3], at);
  return {{TensorType{Shape{d[0], w[0], oh, ow, ob}, a[0]->types[0].dtype}}};
}

TypeResult winograd_weight_transform_rule(const std::vector<Expr>& a, Json& at) {
  const std::string op = "nn.contrib_conv2d_winograd_weight_transform";
  rank(op, a[0], "weight", 4);
  float_only(op, a[0], "weight");
  const Shape& w = a[0]->types[0].shape;
  MINITVM_USER_CHECK(at["tile_size"].is_number_integer())
      << op << ": tile_size must be an integer, got " << at["tile_size"].dump();
  int64_t m = at["tile_size"].get<int64_t>();
  MINITVM_USER_CHECK(w[2] == w[3] && w[2] >= 3 && w[2] <= 7)
      << op << ": weight " << describe(a[0]) << " must have a square kernel of 3 to 7";
  MINITVM_USER_CHECK(m >= 2 && m <= 8 && m + w[2] - 2 <= 9)
      << op << ": tile_size " << m << " is not supported for a " << w[2] << "x" << w[3]
      << " kernel (2 <= m <= 8, m + r - 2 <= 9)";
  const int64_t alpha = m + w[2] - 1;
  return {{TensorType{Shape{alpha, alpha, w[0], w[1]}, a[0]->types[0].dtype}}};
}

TypeResult winograd_conv2d_rule(const std::vector<Expr>& a, Json& at) {
  const std::string op = "nn.contrib_conv2d_winograd_without_weight_transform";
  rank(op, a[0], "data", 4);
  rank(op, a[1], "weight", 4);
  same_dtype(op, a[0], a[1], "data", "weight");
  float_only(op, a[0], "data");
  const Shape& d = a[0]->types[0].shape;
  const Shape& w = a[1]->types[0].shape;  // (alpha, alpha, CI, CO)
  MINITVM_USER_CHECK(at["tile_size"].is_number_integer())
      << op << ": tile_size must be an integer, got " << at["tile_size"].dump();
  const int64_t m = at["tile_size"].get<int64_t>(), r = w[0] - m + 1;
  MINITVM_USER_CHECK(w[0] == w[1] && m >= 2 && r >= 3 && r <= 7 && m + r - 2 <= 9)
      << op << ": weight " << describe(a[1]) << " is not a transformed (alpha, alpha, CI, CO) "
      << "kernel for tile_size " << m;
  MINITVM_USER_CHECK(w[2] == d[1]) << op << ": weight " << describe(a[1]) << " expects " << w[2]
                                   << " input channels, data " << describe(a[0]) << " has " << d[1];
  MINITVM_USER_CHECK(at["groups"] == 1) << op << ": groups must be 1, got " << at["groups"].dump();
  int64_t ch = at["channels"].get<int64_t>();
  MINITVM_USER_CHECK(ch == 0 || ch == w[3])
      << op << ": channels=" << ch << " but the weight " << describe(a[1]) << " has " << w[3]
      << " output channels";
  at["channels"] = w[3];
  at["kernel_size"] = Shape{r, r};
  auto [oh, ow] = conv_window(op, a[0], r, r, at);
  for (auto& k : {"strides", "dilation"})
    for (auto& v : at[k])
      MINITVM_USER_CHECK(v == 1) << op << ": " << k << " must be 1, got " << at[k].dump();
  const auto& p = at["padding"];
  MINITVM_USER_CHECK(p.size() == 4 && p[0] == p[2] && p[1] == p[3])
      << op << ": padding must be symmetric, got " << p.dump();
  return {{TensorType{Shape{d[0], w[3], oh, ow}, a[0]->types[0].dtype}}};
}

namespace {

int64_t nchwc_winograd_tile(const std::string& op, Json& at) {
  MINITVM_USER_CHECK(at["tile_size"].is_number_integer())
      << op << ": tile_size must be an integer, got " << at["tile_size"].dump();
  const int64_t m = at["tile_size"].get<int64_t>();
  MINITVM_USER_CHECK(m == 2 || m == 4) << op << ": tile_size must be 2 or 4, got " << m;
  return m;
}

}  // namespace

TypeResult winograd_nchwc_weight_transform_rule(const std::vector<Expr>& a, Json& at) {
  const std::string op = "nn.contrib_conv2d_winograd_NCHWc_weight_transform";
  rank(op, a[0], "weight", 4);
  float_only(op, a[0], "weight");
  const Shape& w = a[0]->types[0].shape;
  const int64_t m = nchwc_winograd_tile(op, at);
  MINITVM_USER_CHECK(w[2] == 3 && w[3] == 3)
      << op << ": weight " << describe(a[0]) << " must be a 3x3 OIHW kernel";
  for (const char* k : {"ic_block", "oc_block"})
    MINITVM_USER_CHECK(at[k].is_number_integer() && at[k].get<int64_t>() >= 1)
        << op << ": " << k << " must be a positive integer, got " << at[k].dump();
  const int64_t ib = at["ic_block"].get<int64_t>(), ob = at["oc_block"].get<int64_t>();
  MINITVM_USER_CHECK(w[1] % ib == 0 && w[0] % ob == 0)
      << op << ": blocks " << ib << "/" << ob << " do not divide the weight " << describe(a[0]);
  return {{TensorType{Shape{m + 2, m + 2, w[0] / ob, w[1] / ib, ib, ob}, a[0]->types[0].dtype}}};
}

TypeResult winograd_nchwc_conv2d_rule(const std::vector<Expr>& a, Json& at) {
  const std::string op = "nn.contrib_conv2d_winograd_NCHWc";
  rank(op, a[0], "data", 5);
  rank(op, a[1], "weight", 6);
  same_dtype(op, a[0], a[1], "data", "weight");
  float_only(op, a[0], "data");
  const Shape& d = a[0]->types[0].shape;
  const Shape& w = a[1]->types[0].shape;  // (alpha, alpha, O/ob, I/ib, ib, ob)
  const int64_t m = nchwc_winograd_tile(op, at), ib = d[4], ob = w[5];
  if (!at.contains("groups")) at["groups"] = 1;
  MINITVM_USER_CHECK(at["groups"].is_number_integer() && at["groups"].get<int64_t>() >= 1)
      << op << ": groups must be a positive integer, got " << at["groups"].dump();
  // A group's channels are whole blocks: groups divide the input and output channel blocks.
  const int64_t groups = at["groups"].get<int64_t>();
  MINITVM_USER_CHECK(d[1] % groups == 0 && w[2] % groups == 0)
      << op << ": groups=" << groups << " must divide the " << d[1]
      << " input channel blocks of data " << describe(a[0]) << " and the " << w[2]
      << " output channel blocks of weight " << describe(a[1]);
  MINITVM_USER_CHECK(w[0] == m + 2 && w[1] == m + 2 && w[3] * groups == d[1] && w[4] == ib)
      << op << ": weight " << describe(a[1]) << " is not an F(" << m
      << ", 3) transformed weight for data " << describe(a[0]) << " and groups=" << groups
      << " (expected (" << m + 2 << ", " << m + 2 << ", O/ob, " << d[1] / groups << ", " << ib
      << ", ob))";
  at["channels"] = w[2] * ob;
  at["kernel_size"] = Shape{3, 3};
  at["data_layout"] = detail::Layout::blocked("NCHW", 'C', ib);
  at["out_layout"] = detail::Layout::blocked("NCHW", 'C', ob);
  auto [oh, ow] = conv_window(op, a[0], 3, 3, at);
  for (auto& k : {"strides", "dilation"})
    for (auto& v : at[k])
      MINITVM_USER_CHECK(v == 1) << op << ": " << k << " must be 1, got " << at[k].dump();
  return {{TensorType{Shape{d[0], w[2], oh, ow, ob}, a[0]->types[0].dtype}}};
}

}  // namespace minitvm::relay::op_rules
