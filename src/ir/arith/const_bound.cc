// Constant integer bounds of expressions (saturating at +-infinity), from variable ranges.
#include <algorithm>

#include "ir/arith/arith_internal.h"

namespace minitvm::ir::arith {

int64_t sat_add(int64_t a, int64_t b) {
  if (a == kNegInf || a == kPosInf) return a;
  if (b == kNegInf || b == kPosInf) return b;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  return r;
}

int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a == kNegInf || a == kPosInf || b == kNegInf || b == kPosInf) return neg ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? kNegInf : kPosInf;
  return r;
}

static int64_t sat_neg(int64_t a) {
  if (a == kNegInf) return kPosInf;
  if (a == kPosInf) return kNegInf;
  return -a;
}

int64_t floordiv_c(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}
int64_t floormod_c(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

namespace {
bool is_inf(int64_t v) {
  return v == kNegInf || v == kPosInf;
}

// a / b for a bound value a (maybe infinite) and a finite or infinite divisor b != 0.
int64_t div_value(int64_t a, int64_t b, bool floor) {
  if (is_inf(a)) {
    if (is_inf(b)) return 0;  // only reached for corner sets; harmless
    return (a > 0) == (b > 0) ? kPosInf : kNegInf;
  }
  if (is_inf(b)) {
    if (!floor || a == 0) return 0;
    return (a < 0) == (b > 0) ? -1 : 0;
  }
  if (a == kNegInf + 1 && b == -1) return kPosInf;
  return floor ? floordiv_c(a, b) : a / b;
}

ConstBound hull4(int64_t a, int64_t b, int64_t c, int64_t d) {
  return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}
}  // namespace

ConstBound ConstBoundAnalyzer::type_bound(DataType t) {
  if (t.is_bool()) return {0, 1};
  if (t.is_uint()) return {0, t.bits() >= 63 ? kPosInf : (int64_t{1} << t.bits()) - 1};
  if (t.is_int() && t.bits() < 64)
    return {-(int64_t{1} << (t.bits() - 1)), (int64_t{1} << (t.bits() - 1)) - 1};
  return {};
}

std::optional<ConstBound> ConstBoundAnalyzer::set(const VarNode* v, ConstBound b) {
  std::optional<ConstBound> prev;
  auto it = overrides_.find(v);
  if (it != overrides_.end()) prev = it->second;
  overrides_[v] = b;
  return prev;
}

void ConstBoundAnalyzer::restore(const VarNode* v, std::optional<ConstBound> prev) {
  if (prev)
    overrides_[v] = *prev;
  else
    overrides_.erase(v);
}

ConstBound ConstBoundAnalyzer::var_bound(const VarNode* v) {
  if (auto it = overrides_.find(v); it != overrides_.end()) return it->second;
  if (auto it = memo_.find(v); it != memo_.end()) return it->second;
  ConstBound tb = type_bound(v->dtype);
  if (!ranges_ || !v->dtype.is_integral()) return tb;
  auto r = ranges_->find(v);
  if (r == ranges_->end() || !r->second.defined()) return tb;
  memo_[v] = tb;  // guards against cyclic ranges
  ConstBound mn = bound(r->second.min()), ex = bound(r->second.extent());
  ConstBound out{mn.lo, sat_add(sat_add(mn.hi, ex.hi), -1)};
  out.lo = std::max(out.lo, tb.lo);
  out.hi = std::min(out.hi, tb.hi);
  memo_[v] = out;
  return out;
}

ConstBound ConstBoundAnalyzer::bound(const Expr& e) {
  if (!e.defined()) return {};
  DataType t = e.dtype();
  if (!t.is_integral()) return {};
  switch (e->kind()) {
    case NodeKind::IntImm:
      return ConstBound::point(e.as<IntImmNode>()->value);
    case NodeKind::Var:
      return var_bound(static_cast<const VarNode*>(e.get()));
    case NodeKind::Cast: {
      auto* op = e.as<CastNode>();
      ConstBound tb = type_bound(t);
      if (!op->value.dtype().is_integral()) return tb;
      ConstBound b = bound(op->value);
      if (b.lo >= tb.lo && b.hi <= tb.hi) return b;
      return tb;
    }
    case NodeKind::Add: {
      auto* op = e.as<AddNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      return {sat_add(a.lo, b.lo), sat_add(a.hi, b.hi)};
    }
    case NodeKind::Sub: {
      auto* op = e.as<SubNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      return {sat_add(a.lo, sat_neg(b.hi)), sat_add(a.hi, sat_neg(b.lo))};
    }
    case NodeKind::Mul: {
      auto* op = e.as<MulNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      return hull4(sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi), sat_mul(a.hi, b.lo),
                   sat_mul(a.hi, b.hi));
    }
    case NodeKind::Div:
    case NodeKind::FloorDiv: {
      bool floor = e->kind() == NodeKind::FloorDiv;
      const Expr& ea = floor ? e.as<FloorDivNode>()->a : e.as<DivNode>()->a;
      const Expr& eb = floor ? e.as<FloorDivNode>()->b : e.as<DivNode>()->b;
      ConstBound a = bound(ea), b = bound(eb);
      if (b.lo > 0 || b.hi < 0) {
        return hull4(div_value(a.lo, b.lo, floor), div_value(a.lo, b.hi, floor),
                     div_value(a.hi, b.lo, floor), div_value(a.hi, b.hi, floor));
      }
      return type_bound(t);
    }
    case NodeKind::FloorMod: {
      auto* op = e.as<FloorModNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      if (b.lo > 0) {
        if (b.is_const() && !is_inf(a.lo) && !is_inf(a.hi) &&
            floordiv_c(a.lo, b.lo) == floordiv_c(a.hi, b.lo)) {
          return {floormod_c(a.lo, b.lo), floormod_c(a.hi, b.lo)};
        }
        int64_t m = is_inf(b.hi) ? kPosInf : b.hi - 1;
        if (a.lo >= 0) return {0, std::min(a.hi, m)};
        return {0, m};
      }
      if (b.hi < 0) return {sat_add(b.lo, 1), 0};
      return type_bound(t);
    }
    case NodeKind::Mod: {
      auto* op = e.as<ModNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      int64_t babs_hi = std::max(sat_neg(b.lo), b.hi);
      if (b.lo > 0 || b.hi < 0) {
        int64_t m = is_inf(babs_hi) ? kPosInf : babs_hi - 1;
        if (b.is_const() && a.lo >= 0 && !is_inf(a.hi)) {
          int64_t c = b.lo > 0 ? b.lo : -b.lo;
          if (a.lo / c == a.hi / c) return {a.lo % c, a.hi % c};
        }
        if (a.lo >= 0) return {0, std::min(a.hi, m)};
        if (a.hi <= 0) return {std::max(a.lo, sat_neg(m)), 0};
        return {sat_neg(m), m};
      }
      return type_bound(t);
    }
    case NodeKind::Min: {
      auto* op = e.as<MinNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    }
    case NodeKind::Max: {
      auto* op = e.as<MaxNode>();
      ConstBound a = bound(op->a), b = bound(op->b);
      return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    case NodeKind::Select: {
      auto* op = e.as<SelectNode>();
      ConstBound a = bound(op->true_value), b = bound(op->false_value);
      return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    case NodeKind::Let: {
      auto* op = e.as<LetNode>();
      auto prev = set(op->var.get(), bound(op->value));
      ConstBound r = bound(op->body);
      restore(op->var.get(), prev);
      return r;
    }
    case NodeKind::Broadcast:
      return bound(e.as<BroadcastNode>()->value);
    case NodeKind::Ramp: {
      auto* op = e.as<RampNode>();
      ConstBound b = bound(op->base), s = bound(op->stride);
      int64_t n = op->lanes - 1;
      ConstBound span = {std::min<int64_t>(0, sat_mul(s.lo, n)),
                         std::max<int64_t>(0, sat_mul(s.hi, n))};
      return {sat_add(b.lo, span.lo), sat_add(b.hi, span.hi)};
    }
    case NodeKind::Call: {
      auto* op = e.as<CallNode>();
      if (op->op == Intrinsic::IfThenElse && op->args.size() == 3) {
        ConstBound a = bound(op->args[1]), b = bound(op->args[2]);
        return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
      }
      return type_bound(t);
    }
    default:
      return type_bound(t);
  }
}

}  // namespace minitvm::ir::arith
