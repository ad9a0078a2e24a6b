// Import-time constants of the ONNX importer: Constant/Shape nodes, torch's static shape chains
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) folded, and the shape arithmetic of
// Reshape, Flatten, Squeeze/Unsqueeze, Transpose and Slice (see onnx_importer.h).
#include "relay/frontend/onnx_importer.h"

#ifdef MINITVM_HAVE_ONNX

#include <algorithm>
#include <cmath>
#include <limits>

#include "minitvm/support/checked_math.h"

namespace minitvm::relay::frontend::onnx_detail {

void Importer::op_constant() {
  only_outputs(1);
  check(attrs_.size() == 1, "needs exactly one value attribute");
  Const c;
  if (auto* a = attr("value", ::onnx::AttributeProto_AttributeType_TENSOR)) {
    c = const_from_proto(a->t(), "from_onnx: " + label_ + ": attribute 'value'");
  } else if (has("value_float")) {
    c.f = {getf("value_float", 0)};
  } else if (auto v = getints("value_ints")) {
    c = make_ints({int64_t(v->size())}, *v);
  } else if (has("value_int")) {
    c = make_ints({}, {geti("value_int", 0)});
  } else if (auto* a = attr("value_floats", ::onnx::AttributeProto_AttributeType_FLOATS)) {
    c.shape = {a->floats_size()};
    for (float f : a->floats()) c.f.push_back(f);
  }
  set_out_const(0, std::move(c));
}

void Importer::op_shape() {
  only_outputs(1);
  Shape s = shape_of(0);
  int64_t r = int64_t(s.size());
  int64_t b = geti("start", 0), e = geti("end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = std::clamp<int64_t>(b, 0, r);
  e = std::clamp<int64_t>(e, 0, r);
  Shape v(s.begin() + b, s.begin() + std::max(b, e));
  set_out_const(0, make_ints({int64_t(v.size())}, v));
}

// Size: the element count of a static shape, an int64 scalar constant.
void Importer::op_size() {
  only_outputs(1);
  std::optional<int64_t> n = checked_product(shape_of(0));
  if (!n) fail("the element count of ", fmt_shape(shape_of(0)), " overflows int64");
  set_out_const(0, make_ints({}, {*n}));
}

// Expand: numpy broadcasting of the input and the constant `shape` (either may have the larger
// dims). A constant input is evaluated here; a graph value is added to zeros shaped like the output
// on the axes it does not already have (ViT's class token, expanded to the batch).
void Importer::op_expand() {
  only_outputs(1);
  Shape to = cints(1, "shape");
  for (auto d : to)
    if (d < 0) fail("shape ", fmt_shape(to), " has a negative dimension");
  const Shape xs = shape_of(0);
  bool ok = true;
  Shape out = broadcast(xs, to, ok);
  if (!ok) fail("input ", fmt_shape(xs), " does not broadcast to shape ", fmt_shape(to));
  if (!checked_product(out)) fail("the element count of ", fmt_shape(out), " overflows int64");
  if (is_const(0)) {
    const Const& x = cin(0, "input");
    Const c;
    c.shape = out;
    c.is_int = x.is_int;
    int64_t n = c.numel();
    for (int64_t k = 0; k < n; ++k) {
      int64_t s = bidx(xs, out, k);
      if (c.is_int)
        c.i.push_back(x.i[s]);
      else
        c.f.push_back(x.f[s]);
    }
    return set_out_const(0, c);
  }
  if (out == xs) return set_out(0, in(0));
  Shape zs(out.size(), 1);
  const size_t off = out.size() - xs.size();
  for (size_t k = 0; k < out.size(); ++k)
    if (k < off || xs[k - off] != out[k]) zs[k] = out[k];
  int64_t zn = 1;
  for (auto d : zs) zn *= d;
  set_out(0, add(float_in(0),
                 constant(runtime::NDArray::from_vector(std::vector<float>(zn, 0.f), zs))));
}

Shape Importer::broadcast(const Shape& a, const Shape& b, bool& ok) {
  size_t r = std::max(a.size(), b.size());
  Shape o(r);
  ok = true;
  for (size_t k = 0; k < r; ++k) {
    int64_t x = k < r - a.size() ? 1 : a[k - (r - a.size())];
    int64_t y = k < r - b.size() ? 1 : b[k - (r - b.size())];
    if (x != y && x != 1 && y != 1) ok = false;
    o[k] = std::max(x, y);
  }
  return o;
}

void Importer::fold(const std::string& op) {
  only_outputs(1);
  const Const& a = cin(0, "input");
  Const r;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (has("axis"))
      fail("attribute 'axis' (opset < 7 broadcasting) on constants is not supported");
    const Const& b = cin(1, "input");
    bool ok;
    r.shape = broadcast(a.shape, b.shape, ok);
    if (!ok) fail("shapes ", fmt_shape(a.shape), " and ", fmt_shape(b.shape), " do not broadcast");
    r.is_int = a.is_int && b.is_int;
    int64_t n = r.numel();
    for (int64_t k = 0; k < n; ++k) {
      int64_t ia = bidx(a.shape, r.shape, k), ib = bidx(b.shape, r.shape, k);
      if (r.is_int) {
        int64_t x = a.i[ia], y = b.i[ib], v = 0;
        if (op == "Add")
          v = x + y;
        else if (op == "Sub")
          v = x - y;
        else if (op == "Mul")
          v = x * y;
        else {
          if (y == 0) fail("integer division by zero at element ", k);
          v = x / y;
        }
        r.i.push_back(v);
      } else {
        double x = a.at(ia), y = b.at(ib);
        double v = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
        r.f.push_back(double(float(v)));
      }
    }
  } else if (op == "Identity") {
    r = a;
  } else if (op == "Cast") {
    int64_t to = geti("to", -1);
    r.shape = a.shape;
    if (to == ::onnx::TensorProto_DataType_FLOAT || to == ::onnx::TensorProto_DataType_DOUBLE) {
      for (int64_t k = 0; k < a.numel(); ++k)
        r.f.push_back(to == 1 ? double(float(a.at(k))) : a.at(k));
    } else if (to == ::onnx::TensorProto_DataType_INT64 ||
               to == ::onnx::TensorProto_DataType_INT32 ||
               to == ::onnx::TensorProto_DataType_BOOL) {
      r.is_int = true;
      for (int64_t k = 0; k < a.numel(); ++k) {
        double v = a.at(k);
        r.i.push_back(to == ::onnx::TensorProto_DataType_BOOL ? int64_t(v != 0)
                                                              : int64_t(std::trunc(v)));
      }
    } else {
      fail("attribute 'to' = ", to, " is not supported (float, double, int64, int32, bool)");
    }
  } else if (op == "Reshape" || op == "Flatten") {
    r = a;
    if (op == "Reshape") {
      r.shape = resolve_reshape(a.shape, reshape_target(a.shape));
    } else {
      int64_t ax = flatten_axis(a.shape);
      int64_t p = 1;
      for (int64_t k = 0; k < ax; ++k) p *= a.shape[k];
      r.shape = {p, a.numel() / std::max<int64_t>(p, 1)};
      if (p == 0) r.shape[1] = 0;
    }
  } else if (op == "Unsqueeze") {
    r = a;
    r.shape = unsqueeze_shape(a.shape);
  } else if (op == "Squeeze") {
    r = a;
    auto axes = squeeze_axes(a.shape);
    std::set<int64_t> drop(axes.begin(), axes.end());
    r.shape.clear();
    for (size_t k = 0; k < a.shape.size(); ++k)
      if (!(axes.empty() ? a.shape[k] == 1 : drop.count(int64_t(k)) > 0))
        r.shape.push_back(a.shape[k]);
  } else if (op == "Transpose") {
    auto perm = transpose_perm(a.shape.size());
    r.is_int = a.is_int;
    for (auto p : perm) r.shape.push_back(a.shape[p]);
    Shape ist = strides_of(a.shape), ost = strides_of(r.shape);
    for (int64_t k = 0; k < a.numel(); ++k) {
      int64_t src = 0;
      for (size_t d = 0; d < perm.size(); ++d) src += ((k / ost[d]) % r.shape[d]) * ist[perm[d]];
      r.push(a, src);
    }
  } else if (op == "Concat") {
    check(has("axis"), "attribute 'axis' is required");
    int64_t rank = int64_t(a.shape.size());
    int64_t ax = norm_axis(geti("axis", 0), rank, "axis");
    r.shape = a.shape;
    r.shape[ax] = 0;
    r.is_int = true;
    std::vector<const Const*> parts;
    for (int k = 0; k < num_inputs(); ++k) {
      const Const& c = cin(k, "input");
      if (int64_t(c.shape.size()) != rank)
        fail("input ", k, " has rank ", c.shape.size(), ", input 0 has ", rank);
      for (int64_t d = 0; d < rank; ++d)
        if (d != ax && c.shape[d] != a.shape[d])
          fail("input ", k, " ", fmt_shape(c.shape), " does not match input 0 ", fmt_shape(a.shape),
               " off axis ", ax);
      r.shape[ax] += c.shape[ax];
      r.is_int = r.is_int && c.is_int;
      parts.push_back(&c);
    }
    int64_t outer = 1;
    for (int64_t d = 0; d < ax; ++d) outer *= a.shape[d];
    for (int64_t o = 0; o < outer; ++o)
      for (auto* c : parts) {
        int64_t inner = c->numel() / std::max<int64_t>(outer, 1);
        for (int64_t k = 0; k < inner; ++k) r.push(*c, o * inner + k);
      }
  } else if (op == "Gather") {
    const Const& ind = cin(1, "indices");
    if (!ind.is_int) fail("indices must be integers");
    int64_t rank = int64_t(a.shape.size());
    if (rank == 0) fail("data must have rank >= 1");
    int64_t ax = norm_axis(geti("axis", 0), rank, "axis");
    r.is_int = a.is_int;
    r.shape.assign(a.shape.begin(), a.shape.begin() + ax);
    r.shape.insert(r.shape.end(), ind.shape.begin(), ind.shape.end());
    r.shape.insert(r.shape.end(), a.shape.begin() + ax + 1, a.shape.end());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < ax; ++d) outer *= a.shape[d];
    for (int64_t d = ax + 1; d < rank; ++d) inner *= a.shape[d];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < ind.numel(); ++j) {
        int64_t t = ind.i[j];
        if (t < -a.shape[ax] || t >= a.shape[ax])
          fail("index ", t, " is out of range for axis ", ax, " of size ", a.shape[ax]);
        if (t < 0) t += a.shape[ax];
        for (int64_t k = 0; k < inner; ++k) r.push(a, (o * a.shape[ax] + t) * inner + k);
      }
  } else if (op == "Slice") {
    auto sl = slice_params(a.shape);
    r.is_int = a.is_int;
    r.shape = sl.out;
    Shape ist = strides_of(a.shape), ost = strides_of(r.shape);
    int64_t n = r.numel();
    for (int64_t k = 0; k < n; ++k) {
      int64_t src = 0;
      for (size_t d = 0; d < r.shape.size(); ++d)
        src += (sl.start[d] + ((k / ost[d]) % r.shape[d]) * sl.step[d]) * ist[d];
      r.push(a, src);
    }
  } else if (op == "Range") {
    r = fold_range();
  } else if (op == "ScatterND") {
    r = fold_scatter_nd();
  } else {
    r = fold_pointwise(op);
  }
  set_out_const(0, std::move(r));
}

// ConstantOfShape: a tensor of the shape given by input 0 (1-D int64), filled with the one value
// of attribute 'value' (float 0 by default; an integer tensor keeps the integer type).
void Importer::op_constant_of_shape() {
  only_outputs(1);
  const Const& sh = cin(0, "shape");
  if (!sh.is_int) fail("shape (input 0) must be an integer tensor");
  if (sh.shape.size() != 1) fail("shape (input 0) must be 1-D, got ", fmt_shape(sh.shape));
  Const fill;
  fill.f = {0.0};
  if (auto* a = attr("value", ::onnx::AttributeProto_AttributeType_TENSOR)) {
    fill = const_from_proto(a->t(), "from_onnx: " + label_ + ": attribute 'value'");
    if (fill.numel() != 1) fail("attribute 'value' must hold one element, got ", fill.numel());
  }
  Const c;
  c.shape = sh.i;
  for (auto d : c.shape)
    if (d < 0) fail("shape ", fmt_shape(c.shape), " has a negative dimension");
  std::optional<int64_t> n = checked_product(c.shape);
  if (!n || *n > (int64_t(1) << 28))
    fail("shape ", fmt_shape(c.shape), " is too large for an import-time constant");
  c.is_int = fill.is_int;
  if (c.is_int)
    c.i.assign(size_t(*n), fill.i[0]);
  else
    c.f.assign(size_t(*n), fill.f[0]);
  set_out_const(0, std::move(c));
}

// Elementwise ops on constants with numpy broadcasting over every input: comparisons and logic
// give 0/1 integers (ONNX bool), Where picks from inputs 1 and 2, Mod follows ONNX's sign rules.
Const Importer::fold_pointwise(const std::string& op) {
  static const std::set<std::string> unary{"Neg",  "Abs", "Sqrt",      "Floor",
                                           "Ceil", "Not", "Reciprocal"};
  static const std::set<std::string> binary{
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
      "And",   "Or",   "Xor",     "Mod",         "Pow"};
  const int n_in = num_inputs();
  if (unary.count(op) && n_in != 1) fail("expects 1 input, got ", n_in);
  if (binary.count(op) && n_in != 2) fail("expects 2 inputs, got ", n_in);
  if (op == "Where" && n_in != 3) fail("expects 3 inputs, got ", n_in);
  if ((op == "Max" || op == "Min") && n_in < 1) fail("expects at least 1 input");
  if (!unary.count(op) && !binary.count(op) && op != "Where" && op != "Max" && op != "Min")
    fail("op ", op, " cannot be evaluated at import");
  std::vector<const Const*> xs;
  Shape out;
  for (int k = 0; k < n_in; ++k) {
    xs.push_back(&cin(k, "input"));
    bool ok = true;
    Shape b = k == 0 ? xs[0]->shape : broadcast(out, xs[k]->shape, ok);
    if (!ok)
      fail("input ", k, " ", fmt_shape(xs[k]->shape), " does not broadcast with ", fmt_shape(out));
    out = b;
  }
  const bool logic = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                     op == "GreaterOrEqual" || op == "Not" || op == "And" || op == "Or" ||
                     op == "Xor";
  bool all_int = true;
  for (size_t k = op == "Where" ? 1 : 0; k < xs.size(); ++k) all_int = all_int && xs[k]->is_int;
  const bool fmod = geti("fmod", 0) != 0;
  if (op == "Mod" && all_int && fmod) fail("attribute 'fmod' = 1 needs floating-point inputs");
  Const r;
  r.shape = out;
  r.is_int = logic || (all_int && op != "Sqrt" && op != "Reciprocal");
  std::optional<int64_t> total = checked_product(out);
  if (!total) fail("the element count of ", fmt_shape(out), " overflows int64");
  for (int64_t k = 0; k < *total; ++k) {
    auto x = [&](int j) { return xs[j]->at(bidx(xs[j]->shape, out, k)); };
    auto xi = [&](int j) { return xs[j]->iat(bidx(xs[j]->shape, out, k)); };
    double v = 0;
    int64_t vi = 0;
    if (op == "Where") {
      int j = xi(0) != 0 ? 1 : 2;
      v = x(j);
      vi = r.is_int ? xi(j) : 0;
    } else if (op == "Max" || op == "Min") {
      v = x(0);
      vi = r.is_int ? xi(0) : 0;
      for (int j = 1; j < n_in; ++j) {
        bool take = op == "Max" ? x(j) > v : x(j) < v;
        if (r.is_int) take = op == "Max" ? xi(j) > vi : xi(j) < vi;
        if (take) v = x(j), vi = r.is_int ? xi(j) : 0;
      }
    } else if (logic) {
      double a = x(0), b = n_in > 1 ? x(1) : 0;
      bool t = op == "Equal"            ? a == b
               : op == "Less"           ? a < b
               : op == "Greater"        ? a > b
               : op == "LessOrEqual"    ? a <= b
               : op == "GreaterOrEqual" ? a >= b
               : op == "Not"            ? a == 0
               : op == "And"            ? (a != 0 && b != 0)
               : op == "Or"             ? (a != 0 || b != 0)
                                        : ((a != 0) != (b != 0));
      if (all_int && op != "Not" && op != "And" && op != "Or" && op != "Xor") {
        int64_t ia = xi(0), ib = xi(1);
        t = op == "Equal"         ? ia == ib
            : op == "Less"        ? ia < ib
            : op == "Greater"     ? ia > ib
            : op == "LessOrEqual" ? ia <= ib
                                  : ia >= ib;
      }
      vi = t ? 1 : 0;
    } else if (op == "Mod") {
      if (r.is_int) {
        int64_t a = xi(0), b = xi(1);
        if (b == 0) fail("integer modulo by zero at element ", k);
        vi = a % b;
        if (vi != 0 && ((vi < 0) != (b < 0))) vi += b;  // the divisor's sign (Python's %)
      } else {
        double a = x(0), b = x(1);
        v = std::fmod(a, b);
        if (!fmod && v != 0 && ((v < 0) != (b < 0))) v += b;
      }
    } else if (r.is_int) {  // integer Neg, Abs, Floor, Ceil, Pow
      int64_t a = xi(0);
      if (op == "Neg")
        vi = -a;
      else if (op == "Abs")
        vi = a < 0 ? -a : a;
      else if (op == "Floor" || op == "Ceil")
        vi = a;
      else {  // Pow with a non-negative integer exponent
        int64_t e = xi(1);
        if (e < 0) fail("integer Pow with a negative exponent ", e, " at element ", k);
        vi = 1;
        for (int64_t t = 0; t < e; ++t) vi *= a;
      }
    } else {
      double a = x(0);
      v = op == "Neg"          ? -a
          : op == "Abs"        ? std::fabs(a)
          : op == "Sqrt"       ? std::sqrt(a)
          : op == "Floor"      ? std::floor(a)
          : op == "Ceil"       ? std::ceil(a)
          : op == "Reciprocal" ? 1.0 / a
                               : std::pow(a, x(1));
    }
    if (r.is_int)
      r.i.push_back(vi);
    else
      r.f.push_back(double(float(v)));
  }
  return r;
}

// Range(start, limit, delta): max(ceil((limit - start) / delta), 0) values start + k * delta.
Const Importer::fold_range() {
  if (num_inputs() != 3) fail("expects 3 inputs (start, limit, delta), got ", num_inputs());
  const Const &s = cin(0, "start"), &l = cin(1, "limit"), &d = cin(2, "delta");
  for (const Const* c : {&s, &l, &d})
    if (c->numel() != 1) fail("start, limit and delta must be scalars");
  Const r;
  r.is_int = s.is_int && l.is_int && d.is_int;
  if (d.at(0) == 0) fail("delta is 0");
  double count = std::ceil((l.at(0) - s.at(0)) / d.at(0));
  if (!(count <= double(int64_t(1) << 28))) fail("the range has too many elements");
  int64_t n = std::max<int64_t>(0, int64_t(count));
  if (r.is_int) {
    int64_t a = s.i[0], st = d.i[0];
    n = std::max<int64_t>(0, (l.i[0] - a + st + (st > 0 ? -1 : 1)) / st);
    for (int64_t k = 0; k < n; ++k) r.i.push_back(a + k * st);
  } else {
    for (int64_t k = 0; k < n; ++k) r.f.push_back(double(float(s.at(0) + double(k) * d.at(0))));
  }
  r.shape = {n};
  return r;
}

// ScatterND(data, indices, updates): a copy of data with the slices data[indices[j]] replaced
// by (or, with 'reduction', combined with) updates[j], in order.
Const Importer::fold_scatter_nd() {
  if (num_inputs() != 3) fail("expects 3 inputs (data, indices, updates), got ", num_inputs());
  const Const &data = cin(0, "data"), &ind = cin(1, "indices"), &upd = cin(2, "updates");
  if (!ind.is_int) fail("indices must be integers");
  std::string red = gets("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    fail("attribute 'reduction' = '", red, "' is not supported");
  if (ind.shape.empty()) fail("indices must have rank >= 1");
  const int64_t kdim = ind.shape.back();
  const int64_t r = int64_t(data.shape.size());
  if (kdim < 1 || kdim > r) fail("indices' last dimension ", kdim, " must be in [1, ", r, "]");
  Shape ushape(ind.shape.begin(), ind.shape.end() - 1);
  ushape.insert(ushape.end(), data.shape.begin() + kdim, data.shape.end());
  if (upd.shape != ushape)
    fail("updates ", fmt_shape(upd.shape), " must have shape ", fmt_shape(ushape));
  Const out = data;
  if (data.is_int && !upd.is_int) fail("updates must have the type of data");
  int64_t slice = 1;
  for (int64_t d = kdim; d < r; ++d) slice *= data.shape[d];
  Shape st = strides_of(data.shape);
  int64_t nidx = ind.numel() / kdim;
  for (int64_t j = 0; j < nidx; ++j) {
    int64_t off = 0;
    for (int64_t d = 0; d < kdim; ++d) {
      int64_t t = ind.i[j * kdim + d];
      if (t < -data.shape[d] || t >= data.shape[d])
        fail("index ", t, " of update ", j, " is out of range for axis ", d, " of size ",
             data.shape[d]);
      if (t < 0) t += data.shape[d];
      off += t * st[d];
    }
    for (int64_t e = 0; e < slice; ++e) {
      int64_t o = off + e, u = j * slice + e;
      if (out.is_int) {
        int64_t a = out.i[o], b = upd.i[u];
        out.i[o] = red == "none"  ? b
                   : red == "add" ? a + b
                   : red == "mul" ? a * b
                   : red == "max" ? std::max(a, b)
                                  : std::min(a, b);
      } else {
        double a = out.f[o], b = upd.at(u);
        out.f[o] = double(float(red == "none"  ? b
                                : red == "add" ? a + b
                                : red == "mul" ? a * b
                                : red == "max" ? std::max(a, b)
                                               : std::min(a, b)));
      }
    }
  }
  return out;
}

Shape Importer::reshape_target(const Shape& in_shape) {
  Shape target;
  if (opset_ < 5 || has("shape")) {
    auto s = getints("shape");
    check(s.has_value(), "attribute 'shape' is required (opset < 5)");
    target = *s;
  } else {
    target = cints(1, "shape");
  }
  if (geti("allowzero", 0) != 0)
    for (auto d : target) check(d != 0, "allowzero = 1 with a 0 in the shape is not supported");
  int minus = 0;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == -1)
      ++minus;
    else if (target[k] < -1)
      fail("shape ", fmt_shape(target), " has a negative dim ", target[k]);
    else if (target[k] == 0 && k >= in_shape.size())
      fail("shape ", fmt_shape(target), " copies dim ", k, " (0) beyond the input rank ",
           in_shape.size());
  }
  if (minus > 1) fail("shape ", fmt_shape(target), " has more than one -1");
  resolve_reshape(in_shape, target);  // validate
  return target;
}

Shape Importer::resolve_reshape(const Shape& in_shape, const Shape& target) {
  Shape o = target;
  int64_t total = 1, known = 1;
  for (auto d : in_shape) total *= d;
  int minus_at = -1;
  for (size_t k = 0; k < o.size(); ++k) {
    if (o[k] == 0) o[k] = in_shape[k];
    if (o[k] == -1)
      minus_at = int(k);
    else
      known *= o[k];
  }
  if (minus_at >= 0) {
    if (known == 0 || total % known != 0)
      fail("shape ", fmt_shape(target), " cannot reshape ", fmt_shape(in_shape));
    o[minus_at] = total / known;
  } else if (known != total) {
    fail("shape ", fmt_shape(target), " has ", known, " elements, the input ", fmt_shape(in_shape),
         " has ", total);
  }
  return o;
}

Shape Importer::axes_attr_or_input(int input, const std::string& what) {
  if (opset_ >= 13 || (!has("axes") && has_input(input))) {
    check(!has("axes"), "attribute 'axes' is not allowed from opset 13 (axes is an input)");
    if (!has_input(input)) return {};
    return cints(input, what);
  }
  auto a = getints("axes");
  return a ? *a : Shape{};
}

Shape Importer::unsqueeze_shape(const Shape& s) {
  Shape axes = axes_attr_or_input(1, "axes");
  check(!axes.empty(), "needs axes");
  int64_t r = int64_t(s.size() + axes.size());
  std::set<int64_t> ins;
  for (auto a : axes) {
    int64_t x = norm_axis(a, r, "axis");
    if (!ins.insert(x).second) fail("axis ", a, " is repeated");
  }
  Shape o;
  size_t j = 0;
  for (int64_t k = 0; k < r; ++k) o.push_back(ins.count(k) ? 1 : s[j++]);
  return o;
}

Shape Importer::squeeze_axes(const Shape& s) {
  Shape axes = axes_attr_or_input(1, "axes");
  int64_t r = int64_t(s.size());
  for (auto& a : axes) {
    a = norm_axis(a, r, "axis");
    if (s[a] != 1) fail("cannot squeeze axis ", a, " of size ", s[a]);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

Shape Importer::transpose_perm(size_t rank) {
  auto p = getints("perm");
  Shape perm;
  if (!p) {
    for (size_t k = 0; k < rank; ++k) perm.push_back(int64_t(rank - 1 - k));
    return perm;
  }
  if (p->size() != rank) fail("attribute 'perm' has ", p->size(), " entries for rank ", rank);
  std::set<int64_t> seen;
  for (auto a : *p) {
    if (a < 0 || a >= int64_t(rank) || !seen.insert(a).second)
      fail("attribute 'perm' is not a permutation of 0..", rank - 1);
    perm.push_back(a);
  }
  return perm;
}

Importer::SliceParams Importer::slice_params(const Shape& s) {
  int64_t r = int64_t(s.size());
  Shape starts, ends, axes, steps;
  if (opset_ < 10) {
    auto a = getints("starts"), b = getints("ends");
    check(a && b, "attributes 'starts' and 'ends' are required (opset < 10)");
    starts = *a;
    ends = *b;
    if (auto c = getints("axes")) axes = *c;
  } else {
    starts = cints(1, "starts");
    ends = cints(2, "ends");
    if (has_input(3)) axes = cints(3, "axes");
    if (has_input(4)) steps = cints(4, "steps");
  }
  if (starts.size() != ends.size()) fail("starts and ends have different lengths");
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    fail("starts, ends, axes and steps have different lengths");
  SliceParams p;
  p.start.assign(r, 0);
  p.step.assign(r, 1);
  p.out = s;
  std::set<int64_t> seen;
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t ax = norm_axis(axes[k], r, "axis");
    if (!seen.insert(ax).second) fail("axis ", axes[k], " is repeated");
    int64_t d = s[ax], st = steps[k];
    if (st == 0) fail("steps[", k, "] is 0");
    int64_t b = starts[k], e = ends[k];
    if (b < 0) b += d;
    if (e < 0 && e > std::numeric_limits<int64_t>::min() / 2) e += d;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      p.out[ax] = e > b ? (e - b + st - 1) / st : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      p.out[ax] = b > e ? (b - e + (-st) - 1) / (-st) : 0;
    }
    p.start[ax] = b;
    p.step[ax] = st;
  }
  return p;
}

void Importer::op_flatten_graph() {
  only_outputs(1);
  Expr x = in(0);
  Shape s = x->type().shape;
  int64_t ax = flatten_axis(s);
  int64_t p = 1, q = 1;
  for (int64_t k = 0; k < int64_t(s.size()); ++k) (k < ax ? p : q) *= s[k];
  set_out(0, reshape(x, {p, q}));
}

// Elements b, b + k, ..., b + k (n - 1) of axis d (k >= 1): the range holding them split off; for
// k > 1 the range padded to n * k, viewed as (n, k) and column 0 kept. All injective ops, which
// fuse into one loop nest.
Expr Importer::strided_range(Expr y, int d, int64_t b, int64_t k, int64_t n) {
  Shape s = y->type().shape, begin(s.size(), 0), step(s.size(), 1);
  begin[d] = b;
  step[d] = k;
  s[d] = b + k * (n - 1) + 1;
  return strided_slice(y, begin, s, step);
}

void Importer::op_slice_graph() {
  only_outputs(1);
  Expr x = in(0);
  Shape s = x->type().shape;
  auto sl = slice_params(s);
  Expr y = x;
  for (size_t d = 0; d < s.size(); ++d) {
    if (sl.out[d] == s[d] && sl.step[d] == 1) continue;
    int64_t k = sl.step[d], b = sl.start[d];
    const int64_t n = sl.out[d];
    if (n == 0) fail("an empty slice on axis ", d, " is not supported");
    if (k < 0) {  // a negative step: the same picks, counted from the end of the reversed axis
      y = reverse(y, int(d));
      b = s[d] - 1 - b;
      k = -k;
    }
    y = strided_range(y, int(d), b, k, n);
  }
  set_out(0, y);
}

// Gather of constant indices from a graph tensor. Indices that are an affine function of their
// position with positive strides which tile a contiguous block (torch's as_strided views, as the
// dynamo exporter writes them: a flat Reshape, then one Gather) become a strided range of the
// axis, a reshape and a transpose; other index lists of up to 64 entries concatenate one-element
// slices.
void Importer::op_gather_graph() {
  only_outputs(1);
  Expr x = in(0);
  Shape s = x->type().shape;
  int64_t ax = norm_axis(geti("axis", 0), int64_t(s.size()), "axis");
  const Const& ind = cin(1, "indices");
  if (!ind.is_int) fail("indices must be integers");
  const int64_t n = ind.numel();
  if (n == 0) fail("empty indices ", fmt_shape(ind.shape), " are not supported on a graph tensor");
  std::vector<int64_t> idx(ind.i);
  for (auto& t : idx) {
    if (t < -s[ax] || t >= s[ax])
      fail("index ", t, " is out of range for axis ", ax, " of size ", s[ax]);
    if (t < 0) t += s[ax];
  }
  Shape out(s.begin(), s.begin() + ax);
  out.insert(out.end(), ind.shape.begin(), ind.shape.end());
  out.insert(out.end(), s.begin() + ax + 1, s.end());
  // Affine: idx[k] = idx[0] + sum_d stride[d] * coord_d(k) over the index dims of size > 1.
  const Shape& is = ind.shape;
  Shape ist = strides_of(is);
  std::vector<int> dims;
  Shape stride;
  bool affine = true;
  for (size_t d = 0; d < is.size(); ++d)
    if (is[d] > 1) {
      dims.push_back(int(d));
      stride.push_back(idx[ist[d]] - idx[0]);
      if (stride.back() <= 0) affine = false;
    }
  for (int64_t k = 0; affine && k < n; ++k) {
    int64_t want = idx[0];
    for (size_t j = 0; j < dims.size(); ++j) want += stride[j] * ((k / ist[dims[j]]) % is[dims[j]]);
    affine = idx[k] == want;
  }
  // The strides, largest first, must each be the next one times its extent (a block of the axis
  // read in some order, with a step of the smallest stride).
  std::vector<size_t> order(dims.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stride[a] > stride[b]; });
  for (size_t j = 0; affine && j + 1 < order.size(); ++j)
    affine = stride[order[j]] == stride[order[j + 1]] * is[dims[order[j + 1]]];
  Expr y;
  if (affine) {
    const int64_t step = dims.empty() ? 1 : stride[order.back()];
    y = strided_range(x, int(ax), idx[0], step, n);
    if (dims.size() > 1) {
      // Split the axis into the index dims in stride order, then put them in index order.
      Shape split(s.begin(), s.begin() + ax), perm;
      for (int64_t d = 0; d < ax; ++d) perm.push_back(d);
      for (size_t j : order) split.push_back(is[dims[j]]);
      split.insert(split.end(), s.begin() + ax + 1, s.end());
      y = reshape(y, split);
      std::vector<size_t> pos(order.size());
      for (size_t j = 0; j < order.size(); ++j) pos[order[j]] = j;
      for (size_t j = 0; j < dims.size(); ++j) perm.push_back(ax + int64_t(pos[j]));
      for (int64_t d = ax + int64_t(dims.size()); d < int64_t(split.size()); ++d) perm.push_back(d);
      y = transpose(y, perm);
    }
  } else if (n <= 64) {
    std::vector<Expr> parts;
    for (int64_t t : idx) parts.push_back(strided_range(x, int(ax), t, 1, 1));
    y = parts.size() == 1 ? parts[0] : concatenate(parts, int(ax));
  } else {
    y = one_hot_gather(x, ax, idx);
  }
  set_out(0, reshape(y, out));
}

// Rows idx of axis `ax` of x as a product with a constant one-hot matrix: the axis moved to the
// front and flattened against the rest (A, R), then dense(onehot (n, A), its transpose (R, A)) ->
// (n, R), and the axis moved back. Exact for finite values (each output is one x times 1 plus
// zeros); an inf or NaN of x spreads to the other rows of its column. When x derives from
// constants only (Swin V2's bias table, computed by an MLP from a constant grid) fold_constant
// evaluates all of it at build time.
Expr Importer::one_hot_gather(Expr x, int64_t ax, const std::vector<int64_t>& idx) {
  const Shape s = x->type().shape;
  const int64_t A = s[ax], n = int64_t(idx.size());
  int64_t R = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (int64_t(d) != ax) R *= s[d];
  if (n * A > (int64_t(1) << 24))
    fail(n, " indices into an axis of ", A,
         " that are not a strided block of it are too many to "
         "gather from a graph tensor (at most 2^24 index-axis pairs)");
  Shape perm{ax}, rest;
  for (int64_t d = 0; d < int64_t(s.size()); ++d)
    if (d != ax) perm.push_back(d), rest.push_back(s[d]);
  Expr front = int64_t(s.size()) > 1 && ax != 0 ? transpose(x, perm) : x;
  Expr w = transpose(reshape(front, {A, R}), {1, 0});  // (R, A)
  std::vector<float> oh(size_t(n * A), 0.f);
  for (int64_t j = 0; j < n; ++j) oh[size_t(j * A + idx[j])] = 1.f;
  Expr y = nn::dense(constant(runtime::NDArray::from_vector<float>(oh, {n, A})), w);  // (n, R)
  Shape ys{n};
  ys.insert(ys.end(), rest.begin(), rest.end());
  y = reshape(y, ys);
  if (ax == 0) return y;
  // (n, s[0..ax), s(ax..]) -> (s[0..ax), n, s(ax..])
  Shape back;
  for (int64_t d = 1; d <= ax; ++d) back.push_back(d);
  back.push_back(0);
  for (int64_t d = ax + 1; d < int64_t(s.size()); ++d) back.push_back(d);
  return transpose(y, back);
}

// GatherND (batch_dims 0) with constant indices: the first k axes of the data flattened into one,
// the index tuples into flat indices, then Gather's paths (a constant data tensor is evaluated).
void Importer::op_gather_nd() {
  only_outputs(1);
  if (geti("batch_dims", 0) != 0) fail("attribute 'batch_dims' other than 0 is not supported");
  const Shape s = shape_of(0);
  const Const& ind = cin(1, "indices");
  if (!ind.is_int) fail("indices must be integers");
  if (ind.shape.empty()) fail("indices must have rank >= 1");
  const int64_t k = ind.shape.back(), r = int64_t(s.size());
  if (k < 1 || k > r) fail("indices' last dimension ", k, " must be in [1, ", r, "]");
  Shape ishape(ind.shape.begin(), ind.shape.end() - 1);
  const int64_t n = ind.numel() / k;
  std::vector<int64_t> flat(static_cast<size_t>(n));
  int64_t D = 1;
  for (int64_t d = 0; d < k; ++d) D *= s[d];
  for (int64_t j = 0; j < n; ++j) {
    int64_t f = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t t = ind.i[j * k + d];
      if (t < -s[d] || t >= s[d])
        fail("index ", t, " of tuple ", j, " is out of range for axis ", d, " of size ", s[d]);
      if (t < 0) t += s[d];
      f = f * s[d] + t;
    }
    flat[size_t(j)] = f;
  }
  Shape out = ishape;
  out.insert(out.end(), s.begin() + k, s.end());
  Shape flat_shape{D};
  flat_shape.insert(flat_shape.end(), s.begin() + k, s.end());
  int64_t inner = 1;
  for (int64_t d = k; d < r; ++d) inner *= s[d];
  if (is_const(0)) {
    const Const& data = cin(0, "data");
    Const c;
    c.shape = out;
    c.is_int = data.is_int;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t e = 0; e < inner; ++e) c.push(data, flat[size_t(j)] * inner + e);
    return set_out_const(0, std::move(c));
  }
  Expr x = reshape(in(0), flat_shape);
  Expr y;
  if (n <= 64) {
    std::vector<Expr> parts;
    for (int64_t t : flat) parts.push_back(strided_range(x, 0, t, 1, 1));
    y = parts.size() == 1 ? parts[0] : concatenate(parts, 0);
  } else {
    y = one_hot_gather(x, 0, flat);
  }
  set_out(0, reshape(y, out));
}

}  // namespace minitvm::relay::frontend::onnx_detail

#endif  // MINITVM_HAVE_ONNX
