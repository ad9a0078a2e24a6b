// Operators on Expr: TVM's type matching rules plus constant folding of constant operands.
#include <cmath>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::ir {

static DataType wider_int(DataType a, DataType b) {
  // int/uint of different widths: take the wider; equal width int vs uint: int (TVM picks signed).
  if (a.bits() != b.bits()) return a.bits() > b.bits() ? a : b;
  return a.is_int() ? a : b;
}

void match_types(Expr& a, Expr& b) {
  MINITVM_USER_CHECK(a.defined() && b.defined()) << "arithmetic on an undefined expression";
  DataType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return;
  // Vector/scalar: broadcast the scalar.
  if (ta.lanes() != tb.lanes()) {
    if (ta.is_scalar())
      a = BroadcastNode::make(a, tb.lanes());
    else if (tb.is_scalar())
      b = BroadcastNode::make(b, ta.lanes());
    else
      MINITVM_USER_ERROR << "cannot combine vectors of " << ta << " and " << tb;
    ta = a.dtype();
    tb = b.dtype();
    if (ta == tb) return;
  }
  if (ta.is_floating() && !tb.is_floating()) {
    b = cast(ta, b);
  } else if (!ta.is_floating() && tb.is_floating()) {
    a = cast(tb, a);
  } else if (ta.is_floating() && tb.is_floating()) {
    DataType t = ta.bits() >= tb.bits() ? ta : tb;
    a = cast(t, a);
    b = cast(t, b);
  } else if (ta.is_bool() != tb.is_bool()) {
    DataType t = ta.is_bool() ? tb : ta;
    a = cast(t, a);
    b = cast(t, b);
  } else {
    DataType t = wider_int(ta, tb);
    a = cast(t, a);
    b = cast(t, b);
  }
}

namespace {
struct ConstPair {
  const int64_t* ia = nullptr;
  const int64_t* ib = nullptr;
  const FloatImmNode* fa = nullptr;
  const FloatImmNode* fb = nullptr;
  ConstPair(const Expr& a, const Expr& b) {
    ia = as_const_int(a);
    ib = as_const_int(b);
    fa = a.as<FloatImmNode>();
    fb = b.as<FloatImmNode>();
  }
  bool ints() const { return ia && ib; }
  bool floats() const { return fa && fb; }
};

int64_t floordiv_i(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}
int64_t floormod_i(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
}  // namespace

Expr operator+(Expr a, Expr b) {
  match_types(a, b);
  ConstPair c(a, b);
  if (c.ints()) return make_const(a.dtype(), *c.ia + *c.ib);
  if (c.floats()) return make_const(a.dtype(), c.fa->value + c.fb->value);
  if (is_zero(a) && a.dtype().is_scalar()) return b;
  if (is_zero(b) && b.dtype().is_scalar()) return a;
  return AddNode::make(a, b);
}
Expr operator-(Expr a, Expr b) {
  match_types(a, b);
  ConstPair c(a, b);
  if (c.ints()) return make_const(a.dtype(), *c.ia - *c.ib);
  if (c.floats()) return make_const(a.dtype(), c.fa->value - c.fb->value);
  if (is_zero(b) && b.dtype().is_scalar()) return a;
  return SubNode::make(a, b);
}
Expr operator*(Expr a, Expr b) {
  match_types(a, b);
  ConstPair c(a, b);
  if (c.ints()) return make_const(a.dtype(), *c.ia * *c.ib);
  if (c.floats()) return make_const(a.dtype(), c.fa->value * c.fb->value);
  if (a.dtype().is_integral() && a.dtype().is_scalar()) {
    if (is_one(a)) return b;
    if (is_one(b)) return a;
    if (is_zero(a) || is_zero(b)) return make_zero(a.dtype());
  }
  return MulNode::make(a, b);
}
Expr operator/(Expr a, Expr b) {
  match_types(a, b);
  if (a.dtype().is_integral()) return truncdiv(a, b);
  ConstPair c(a, b);
  if (c.floats() && c.fb->value != 0) return make_const(a.dtype(), c.fa->value / c.fb->value);
  return DivNode::make(a, b);
}
Expr operator%(Expr a, Expr b) {
  return truncmod(std::move(a), std::move(b));
}
Expr operator-(Expr a) {
  if (auto* i = as_const_int(a)) return make_const(a.dtype(), -*i);
  if (auto* f = a.as<FloatImmNode>()) return make_const(a.dtype(), -f->value);
  return make_zero(a.dtype()) - a;
}
Expr truncdiv(Expr a, Expr b) {
  match_types(a, b);
  MINITVM_USER_CHECK(a.dtype().is_integral()) << "truncdiv on " << a.dtype();
  ConstPair c(a, b);
  if (c.ib) MINITVM_USER_CHECK(*c.ib != 0) << "division by zero in " << a << " / 0";
  if (c.ints()) return make_const(a.dtype(), *c.ia / *c.ib);
  if (is_one(b)) return a;
  return DivNode::make(a, b);
}
Expr truncmod(Expr a, Expr b) {
  match_types(a, b);
  MINITVM_USER_CHECK(a.dtype().is_integral()) << "truncmod on " << a.dtype();
  ConstPair c(a, b);
  if (c.ib) MINITVM_USER_CHECK(*c.ib != 0) << "modulo by zero in " << a << " % 0";
  if (c.ints()) return make_const(a.dtype(), *c.ia % *c.ib);
  if (is_one(b)) return make_zero(a.dtype());
  return ModNode::make(a, b);
}
Expr floordiv(Expr a, Expr b) {
  match_types(a, b);
  MINITVM_USER_CHECK(a.dtype().is_integral()) << "floordiv on " << a.dtype();
  ConstPair c(a, b);
  if (c.ib) MINITVM_USER_CHECK(*c.ib != 0) << "division by zero in floordiv(" << a << ", 0)";
  if (c.ints()) return make_const(a.dtype(), floordiv_i(*c.ia, *c.ib));
  if (is_one(b)) return a;
  return FloorDivNode::make(a, b);
}
Expr floormod(Expr a, Expr b) {
  match_types(a, b);
  MINITVM_USER_CHECK(a.dtype().is_integral()) << "floormod on " << a.dtype();
  ConstPair c(a, b);
  if (c.ib) MINITVM_USER_CHECK(*c.ib != 0) << "modulo by zero in floormod(" << a << ", 0)";
  if (c.ints()) return make_const(a.dtype(), floormod_i(*c.ia, *c.ib));
  if (is_one(b)) return make_zero(a.dtype());
  return FloorModNode::make(a, b);
}
Expr min(Expr a, Expr b) {
  match_types(a, b);
  ConstPair c(a, b);
  if (c.ints()) return make_const(a.dtype(), std::min(*c.ia, *c.ib));
  if (c.floats()) return make_const(a.dtype(), std::fmin(c.fa->value, c.fb->value));
  return MinNode::make(a, b);
}
Expr max(Expr a, Expr b) {
  match_types(a, b);
  ConstPair c(a, b);
  if (c.ints()) return make_const(a.dtype(), std::max(*c.ia, *c.ib));
  if (c.floats()) return make_const(a.dtype(), std::fmax(c.fa->value, c.fb->value));
  return MaxNode::make(a, b);
}

#define MINITVM_CMP(OP, NODE)                                                                     \
  Expr OP(Expr a, Expr b) {                                                                       \
    match_types(a, b);                                                                            \
    ConstPair c(a, b);                                                                            \
    if (c.ints()) return make_const(DataType::Bool(), int64_t(*c.ia OP_SYM * c.ib));              \
    if (c.floats()) return make_const(DataType::Bool(), int64_t(c.fa->value OP_SYM c.fb->value)); \
    return NODE::make(a, b);                                                                      \
  }
#define OP_SYM <
MINITVM_CMP(operator<, LTNode)
#undef OP_SYM
#define OP_SYM <=
MINITVM_CMP(operator<=, LENode)
#undef OP_SYM
#define OP_SYM >
MINITVM_CMP(operator>, GTNode)
#undef OP_SYM
#define OP_SYM >=
MINITVM_CMP(operator>=, GENode)
#undef OP_SYM
#define OP_SYM ==
MINITVM_CMP(operator==, EQNode)
#undef OP_SYM
#define OP_SYM !=
MINITVM_CMP(operator!=, NENode)
#undef OP_SYM
#undef MINITVM_CMP

static Expr to_bool(Expr e) {
  if (e.dtype().is_bool()) return e;
  return e != make_zero(e.dtype());
}
Expr operator&&(Expr a, Expr b) {
  a = to_bool(a);
  b = to_bool(b);
  if (auto* i = as_const_int(a)) return *i ? b : a;
  if (auto* i = as_const_int(b)) return *i ? a : b;
  return AndNode::make(a, b);
}
Expr operator||(Expr a, Expr b) {
  a = to_bool(a);
  b = to_bool(b);
  if (auto* i = as_const_int(a)) return *i ? a : b;
  if (auto* i = as_const_int(b)) return *i ? b : a;
  return OrNode::make(a, b);
}
Expr operator!(Expr a) {
  a = to_bool(a);
  if (auto* i = as_const_int(a)) return make_const(DataType::Bool(), int64_t(!*i));
  if (auto* n = a.as<NotNode>()) return n->a;
  return NotNode::make(a);
}

Expr select(Expr c, Expr t, Expr f) {
  match_types(t, f);
  c = to_bool(c);
  if (auto* i = as_const_int(c)) return *i ? t : f;
  return SelectNode::make(c, t, f);
}
Expr if_then_else(Expr c, Expr t, Expr f) {
  match_types(t, f);
  c = to_bool(c);
  if (auto* i = as_const_int(c)) return *i ? t : f;
  return CallNode::make(t.dtype(), Intrinsic::IfThenElse, {c, t, f});
}
Expr likely(Expr c) {
  if (is_const(c)) return c;
  return CallNode::make(DataType::Bool(), Intrinsic::Likely, {c});
}

static Expr float_intrin(Intrinsic op, Expr x) {
  MINITVM_USER_CHECK(x.defined()) << intrinsic_name(op) << " of an undefined expression";
  if (!x.dtype().is_floating()) x = cast(DataType::Float(32), x);
  if (auto* f = x.as<FloatImmNode>()) {
    double v = f->value;
    switch (op) {
      case Intrinsic::Exp:
        return make_const(x.dtype(), std::exp(v));
      case Intrinsic::Log:
        return make_const(x.dtype(), std::log(v));
      case Intrinsic::Sqrt:
        return make_const(x.dtype(), std::sqrt(v));
      case Intrinsic::Fabs:
        return make_const(x.dtype(), std::fabs(v));
      case Intrinsic::Floor:
        return make_const(x.dtype(), std::floor(v));
      case Intrinsic::Ceil:
        return make_const(x.dtype(), std::ceil(v));
      default:
        break;
    }
  }
  return CallNode::make(x.dtype(), op, {x});
}
Expr exp(Expr x) {
  return float_intrin(Intrinsic::Exp, x);
}
Expr log(Expr x) {
  return float_intrin(Intrinsic::Log, x);
}
Expr sqrt(Expr x) {
  return float_intrin(Intrinsic::Sqrt, x);
}
Expr tanh(Expr x) {
  return float_intrin(Intrinsic::Tanh, x);
}
Expr fabs(Expr x) {
  return float_intrin(Intrinsic::Fabs, x);
}
Expr abs(Expr x) {
  if (x.dtype().is_floating()) return fabs(x);
  if (x.dtype().is_uint() || x.dtype().is_bool()) return x;
  return select(x < make_zero(x.dtype()), -x, x);
}
Expr floor(Expr x) {
  return x.dtype().is_integral() ? x : float_intrin(Intrinsic::Floor, x);
}
Expr ceil(Expr x) {
  return x.dtype().is_integral() ? x : float_intrin(Intrinsic::Ceil, x);
}
Expr round(Expr x) {
  return x.dtype().is_integral() ? x : float_intrin(Intrinsic::Round, x);
}
Expr trunc(Expr x) {
  return x.dtype().is_integral() ? x : float_intrin(Intrinsic::Trunc, x);
}
Expr erf(Expr x) {
  return float_intrin(Intrinsic::Erf, x);
}
Expr sigmoid(Expr x) {
  return float_intrin(Intrinsic::Sigmoid, x);
}
Expr pow(Expr x, Expr y) {
  match_types(x, y);
  if (!x.dtype().is_floating()) {
    x = cast(DataType::Float(32), x);
    y = cast(DataType::Float(32), y);
  }
  return CallNode::make(x.dtype(), Intrinsic::Pow, {x, y});
}
Expr isnan(Expr x) {
  if (!x.dtype().is_floating()) return make_const(DataType::Bool(x.dtype().lanes()), int64_t{0});
  return CallNode::make(DataType::Bool(x.dtype().lanes()), Intrinsic::IsNan, {x});
}
Expr isinf(Expr x) {
  if (!x.dtype().is_floating()) return make_const(DataType::Bool(x.dtype().lanes()), int64_t{0});
  return CallNode::make(DataType::Bool(x.dtype().lanes()), Intrinsic::IsInf, {x});
}

// ---- literal overloads -------------------------------------------------------------------------
// An int literal takes the other operand's type; a float literal takes the other operand's type
// when that is floating, else becomes float32 (and the int side is promoted by match_types).
static Expr lit(const Expr& other, int64_t v) {
  return make_const(other.dtype().element_of(), v);
}
static Expr lit(const Expr& other, double v) {
  DataType t = other.dtype().element_of();
  return make_const(t.is_floating() ? t : DataType::Float(32), v);
}
#define MINITVM_LITERAL_IMPL(OP) \
  Expr OP(Expr a, int b) {       \
    Expr l = lit(a, int64_t(b)); \
    return OP(a, l);             \
  }                              \
  Expr OP(int a, Expr b) {       \
    Expr l = lit(b, int64_t(a)); \
    return OP(l, b);             \
  }                              \
  Expr OP(Expr a, int64_t b) {   \
    Expr l = lit(a, b);          \
    return OP(a, l);             \
  }                              \
  Expr OP(int64_t a, Expr b) {   \
    Expr l = lit(b, a);          \
    return OP(l, b);             \
  }                              \
  Expr OP(Expr a, float b) {     \
    Expr l = lit(a, double(b));  \
    return OP(a, l);             \
  }                              \
  Expr OP(float a, Expr b) {     \
    Expr l = lit(b, double(a));  \
    return OP(l, b);             \
  }                              \
  Expr OP(Expr a, double b) {    \
    Expr l = lit(a, b);          \
    return OP(a, l);             \
  }                              \
  Expr OP(double a, Expr b) {    \
    Expr l = lit(b, a);          \
    return OP(l, b);             \
  }
MINITVM_LITERAL_IMPL(operator+)
MINITVM_LITERAL_IMPL(operator-)
MINITVM_LITERAL_IMPL(operator*)
MINITVM_LITERAL_IMPL(operator/)
MINITVM_LITERAL_IMPL(operator%)
MINITVM_LITERAL_IMPL(operator<)
MINITVM_LITERAL_IMPL(operator<=)
MINITVM_LITERAL_IMPL(operator>)
MINITVM_LITERAL_IMPL(operator>=)
MINITVM_LITERAL_IMPL(operator==)
MINITVM_LITERAL_IMPL(operator!=)
MINITVM_LITERAL_IMPL(min)
MINITVM_LITERAL_IMPL(max)
MINITVM_LITERAL_IMPL(floordiv)
MINITVM_LITERAL_IMPL(floormod)
MINITVM_LITERAL_IMPL(truncdiv)
MINITVM_LITERAL_IMPL(truncmod)
#undef MINITVM_LITERAL_IMPL

// ---- reducers ----------------------------------------------------------------------------------
static CommReducer make_reducer(const char* name, DataType t, Expr (*f)(Expr, Expr),
                                Expr identity) {
  auto n = make_object<CommReducerNode>();
  auto* m = const_cast<CommReducerNode*>(n.get());
  Var x("x", t), y("y", t);
  m->lhs = {x};
  m->rhs = {y};
  m->result = {f(x, y)};
  m->identity = {identity};
  m->name = name;
  return n;
}
static Expr add_f(Expr a, Expr b) {
  return a + b;
}
static Expr mul_f(Expr a, Expr b) {
  return a * b;
}
static Expr max_f(Expr a, Expr b) {
  return max(a, b);
}
static Expr min_f(Expr a, Expr b) {
  return min(a, b);
}
CommReducer sum_reducer(DataType t) {
  return make_reducer("sum", t, add_f, make_zero(t));
}
CommReducer prod_reducer(DataType t) {
  return make_reducer("prod", t, mul_f, make_const(t, int64_t{1}));
}
CommReducer max_reducer(DataType t) {
  return make_reducer("max", t, max_f, min_value(t));
}
CommReducer min_reducer(DataType t) {
  return make_reducer("min", t, min_f, max_value(t));
}

std::vector<Expr> CommReducerNode::combine(const std::vector<Expr>& a,
                                           const std::vector<Expr>& b) const {
  VarMap vmap;
  for (size_t i = 0; i < lhs.size(); ++i) {
    vmap[lhs[i].get()] = a[i];
    vmap[rhs[i].get()] = b[i];
  }
  std::vector<Expr> out;
  for (auto& r : result) out.push_back(substitute(r, vmap));
  return out;
}

}  // namespace minitvm::ir
