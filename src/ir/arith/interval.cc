// Symbolic interval arithmetic (eval_interval) and the public entry points of the arith module.
#include "ir/arith/arith_internal.h"

namespace minitvm::ir {

using arith::ConstBound;
using arith::ConstBoundAnalyzer;
using arith::Simplifier;

IntervalSet IntervalSet::from_range(const Range& r) {
  return {r.min(), simplify(r.min() + r.extent() - 1)};
}

bool IntervalSet::is_point() const {
  return min.defined() && max.defined() && (min.same_as(max) || structural_equal(min, max));
}

IntervalSet interval_union(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet r;
  if (a.min.defined() && b.min.defined()) r.min = simplify(ir::min(a.min, b.min));
  if (a.max.defined() && b.max.defined()) r.max = simplify(ir::max(a.max, b.max));
  return r;
}

namespace {

class IntervalEvaluator {
 public:
  explicit IntervalEvaluator(const IntervalMap& dom) : dom_(dom) {}

  IntervalSet eval(const Expr& e) {
    DataType t = e.dtype();
    if (!t.is_integral() && !t.is_bool()) return opaque(e);
    switch (e->kind()) {
      case NodeKind::IntImm:
        return IntervalSet::point(e);
      case NodeKind::Var: {
        auto it = dom_.find(static_cast<const VarNode*>(e.get()));
        return it == dom_.end() ? IntervalSet::point(e) : it->second;
      }
      case NodeKind::Add: {
        auto* op = e.as<AddNode>();
        IntervalSet a = eval(op->a), b = eval(op->b);
        return {both(a.min, b.min, [](Expr x, Expr y) { return x + y; }),
                both(a.max, b.max, [](Expr x, Expr y) { return x + y; })};
      }
      case NodeKind::Sub: {
        auto* op = e.as<SubNode>();
        IntervalSet a = eval(op->a), b = eval(op->b);
        return {both(a.min, b.max, [](Expr x, Expr y) { return x - y; }),
                both(a.max, b.min, [](Expr x, Expr y) { return x - y; })};
      }
      case NodeKind::Mul:
        return mul(e.as<MulNode>());
      case NodeKind::FloorDiv:
        return div(e, e.as<FloorDivNode>()->a, e.as<FloorDivNode>()->b, true);
      case NodeKind::Div:
        return div(e, e.as<DivNode>()->a, e.as<DivNode>()->b, false);
      case NodeKind::FloorMod:
        return mod(e, e.as<FloorModNode>()->a, e.as<FloorModNode>()->b, true);
      case NodeKind::Mod:
        return mod(e, e.as<ModNode>()->a, e.as<ModNode>()->b, false);
      case NodeKind::Min: {
        auto* op = e.as<MinNode>();
        IntervalSet a = eval(op->a), b = eval(op->b);
        return {both(a.min, b.min, [](Expr x, Expr y) { return ir::min(x, y); }),
                either(a.max, b.max, [](Expr x, Expr y) { return ir::min(x, y); })};
      }
      case NodeKind::Max: {
        auto* op = e.as<MaxNode>();
        IntervalSet a = eval(op->a), b = eval(op->b);
        return {either(a.min, b.min, [](Expr x, Expr y) { return ir::max(x, y); }),
                both(a.max, b.max, [](Expr x, Expr y) { return ir::max(x, y); })};
      }
      case NodeKind::Select: {
        auto* op = e.as<SelectNode>();
        return hull(eval(op->true_value), eval(op->false_value));
      }
      case NodeKind::Cast:
        return cast_iv(e.as<CastNode>());
      case NodeKind::Let: {
        auto* op = e.as<LetNode>();
        IntervalSet v = eval(op->value);
        auto it = dom_.find(op->var.get());
        std::optional<IntervalSet> prev;
        if (it != dom_.end()) prev = it->second;
        dom_[op->var.get()] = v;
        IntervalSet r = eval(op->body);
        if (prev)
          dom_[op->var.get()] = *prev;
        else
          dom_.erase(op->var.get());
        return r;
      }
      case NodeKind::Broadcast:
        return eval(e.as<BroadcastNode>()->value);
      case NodeKind::Ramp: {
        auto* op = e.as<RampNode>();
        IntervalSet b = eval(op->base);
        auto* s = as_const_int(op->stride);
        if (!s) return opaque(e);
        int64_t span = *s * (op->lanes - 1);
        return {b.min.defined() ? b.min + std::min<int64_t>(0, span) : Expr(),
                b.max.defined() ? b.max + std::max<int64_t>(0, span) : Expr()};
      }
      default:
        return opaque(e);
    }
  }

 private:
  template <typename F>
  static Expr both(const Expr& a, const Expr& b, F f) {
    return a.defined() && b.defined() ? f(a, b) : Expr();
  }
  template <typename F>
  static Expr either(const Expr& a, const Expr& b, F f) {
    if (a.defined() && b.defined()) return f(a, b);
    return a.defined() ? a : b;
  }
  static IntervalSet hull(const IntervalSet& a, const IntervalSet& b) {
    return {both(a.min, b.min, [](Expr x, Expr y) { return ir::min(x, y); }),
            both(a.max, b.max, [](Expr x, Expr y) { return ir::max(x, y); })};
  }
  bool uses_dom(const Expr& e) {
    return uses_var(e, [this](const VarNode* v) { return dom_.count(v) > 0; });
  }
  /** Anything not analysed: a point when it does not depend on the domain, else unbounded
   *  (booleans: [0, 1]). */
  IntervalSet opaque(const Expr& e) {
    if (!uses_dom(e)) return IntervalSet::point(e);
    if (e.dtype().is_bool() && e.dtype().is_scalar()) {
      return {make_const(e.dtype(), int64_t{0}), make_const(e.dtype(), int64_t{1})};
    }
    return IntervalSet::everything();
  }
  static IntervalSet scale(const IntervalSet& a, const Expr& c, int64_t cv) {
    if (cv == 0) return IntervalSet::point(make_zero(c.dtype()));
    Expr lo = a.min.defined() ? a.min * c : Expr(), hi = a.max.defined() ? a.max * c : Expr();
    return cv > 0 ? IntervalSet{lo, hi} : IntervalSet{hi, lo};
  }
  ConstBound cbound(const Expr& e) { return ConstBoundAnalyzer(nullptr).bound(e); }

  IntervalSet mul(const MulNode* op) {
    IntervalSet a = eval(op->a), b = eval(op->b);
    bool pa = a.is_point(), pb = b.is_point();
    if (pb && as_const_int(b.min)) return scale(a, b.min, *as_const_int(b.min));
    if (pa && as_const_int(a.min)) return scale(b, a.min, *as_const_int(a.min));
    if (pa && pb) return IntervalSet::point(a.min * b.min);
    if (pa || pb) {
      const IntervalSet& r = pa ? b : a;
      Expr p = pa ? a.min : b.min;
      if (!r.is_bounded()) return IntervalSet::everything();
      ConstBound s = cbound(p);
      if (s.lo >= 0) return {r.min * p, r.max * p};
      if (s.hi <= 0) return {r.max * p, r.min * p};
      Expr pos = p >= make_zero(p.dtype());
      return {select(pos, r.min * p, r.max * p), select(pos, r.max * p, r.min * p)};
    }
    auto* a0 = as_const_int(a.min);
    auto* a1 = as_const_int(a.max);
    auto* b0 = as_const_int(b.min);
    auto* b1 = as_const_int(b.max);
    if (a0 && a1 && b0 && b1) {
      int64_t c[4] = {*a0 * *b0, *a0 * *b1, *a1 * *b0, *a1 * *b1};
      DataType t = op->dtype;
      return {make_const(t, *std::min_element(c, c + 4)),
              make_const(t, *std::max_element(c, c + 4))};
    }
    return IntervalSet::everything();
  }

  IntervalSet div(const Expr& e, const Expr& ea, const Expr& eb, bool floor) {
    IntervalSet a = eval(ea), b = eval(eb);
    auto fdiv = [floor](Expr x, Expr y) { return floor ? floordiv(x, y) : truncdiv(x, y); };
    if (b.is_point()) {
      if (auto* c = as_const_int(b.min)) {
        if (*c == 0) return IntervalSet::everything();
        // Both floor and truncating division by a constant are monotone in the numerator.
        Expr lo = a.min.defined() ? fdiv(a.min, b.min) : Expr(),
             hi = a.max.defined() ? fdiv(a.max, b.min) : Expr();
        return *c > 0 ? IntervalSet{lo, hi} : IntervalSet{hi, lo};
      }
      if (a.is_point()) return IntervalSet::point(fdiv(a.min, b.min));
    }
    return opaque(e);
  }

  IntervalSet mod(const Expr& e, const Expr& ea, const Expr& eb, bool floor) {
    IntervalSet a = eval(ea), b = eval(eb);
    auto fmod = [floor](Expr x, Expr y) { return floor ? floormod(x, y) : truncmod(x, y); };
    if (!b.is_point()) return opaque(e);
    if (a.is_point()) return IntervalSet::point(fmod(a.min, b.min));
    DataType t = e.dtype();
    auto* c = as_const_int(b.min);
    if (!c) {
      ConstBound s = cbound(b.min);
      if (s.lo > 0 && (floor || (a.min.defined() && cbound(simplify(a.min)).lo >= 0))) {
        return {make_zero(t), b.min - 1};
      }
      return opaque(e);
    }
    if (*c <= 0) return opaque(e);
    bool nonneg = floor || (a.min.defined() && cbound(simplify(a.min)).lo >= 0);
    if (nonneg && a.is_bounded()) {
      Expr q0 = simplify(floordiv(a.min, b.min)), q1 = simplify(floordiv(a.max, b.min));
      if (structural_equal(q0, q1)) return {a.min - q0 * b.min, a.max - q0 * b.min};
    }
    if (nonneg) return {make_zero(t), make_const(t, *c - 1)};
    return {make_const(t, 1 - *c), make_const(t, *c - 1)};
  }

  IntervalSet cast_iv(const CastNode* op) {
    DataType to = op->dtype, from = op->value.dtype();
    IntervalSet v = eval(op->value);
    if (v.is_point()) return IntervalSet::point(cast(to, v.min));
    if (!to.is_integral() || !from.is_integral()) return opaque(Expr(op));
    bool widening =
        to.bits() > from.bits() || (to.bits() == from.bits() && to.code() == from.code());
    if (!widening) {
      // Narrowing keeps the values only when both bounds are known to fit.
      ConstBound tb = ConstBoundAnalyzer::type_bound(to);
      if (!v.is_bounded()) return opaque(Expr(op));
      ConstBound lo = cbound(v.min), hi = cbound(v.max);
      if (lo.lo < tb.lo || hi.hi > tb.hi) return opaque(Expr(op));
    }
    return {v.min.defined() ? cast(to, v.min) : Expr(), v.max.defined() ? cast(to, v.max) : Expr()};
  }

  IntervalMap dom_;
};

}  // namespace

IntervalSet eval_interval(const Expr& e, const IntervalMap& dom) {
  if (!e.defined()) return IntervalSet::everything();
  Expr s = simplify(e);
  IntervalEvaluator ev(dom);
  IntervalSet r = ev.eval(s);
  if (r.min.defined()) r.min = simplify(r.min);
  if (r.max.defined()) r.max = simplify(r.max);
  if (r.min.defined() && r.max.defined() && !r.min.same_as(r.max) && structural_equal(r.min, r.max))
    r.max = r.min;
  return r;
}

Expr simplify(const Expr& e, const RangeMap& ranges) {
  if (!e.defined()) return e;
  Simplifier s(ranges);
  return s.mutate(e);
}

Stmt simplify(const Stmt& st, const RangeMap& ranges) {
  if (!st.defined()) return st;
  Simplifier s(ranges);
  return s.mutate(st);
}

bool can_prove(const Expr& cond, const RangeMap& ranges) {
  if (!cond.defined()) return false;
  Simplifier s(ranges);
  Expr r = s.mutate(cond);
  if (auto* i = as_const_int(r)) return *i != 0;
  return false;
}

bool const_upper_bound(const Expr& e, const RangeMap& ranges, int64_t* out) {
  if (!e.defined() || !e.dtype().is_integral()) return false;
  Simplifier s(ranges);
  int64_t hi = std::min(s.bound(e).hi, s.bound(s.mutate(e)).hi);
  if (hi == arith::kPosInf) return false;
  if (out) *out = hi;
  return true;
}

bool const_lower_bound(const Expr& e, const RangeMap& ranges, int64_t* out) {
  if (!e.defined() || !e.dtype().is_integral()) return false;
  Simplifier s(ranges);
  int64_t lo = std::max(s.bound(e).lo, s.bound(s.mutate(e)).lo);
  if (lo == arith::kNegInf) return false;
  if (out) *out = lo;
  return true;
}

}  // namespace minitvm::ir
