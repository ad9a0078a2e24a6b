// Expression rules of the simplifier: canonical linear sums, comparisons, min/max, logic, selects,
// vectors, and the proofs (constant bounds first, symbolic intervals second) they rely on.
#include <numeric>

#include "ir/arith/arith_internal.h"

namespace minitvm::ir::arith {

namespace {
Expr bool_const(bool v) {
  return make_const(DataType::Bool(), int64_t(v));
}

Expr make_ramp(const Expr& base, const Expr& stride, int lanes) {
  if (is_zero(stride)) return BroadcastNode::make(base, lanes);
  return RampNode::make(base, stride, lanes);
}

Expr make_binary(NodeKind k, const Expr& a, const Expr& b) {
  switch (k) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return N##Node::make(a, b);
    MINITVM_FOR_EACH_BINARY(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "make_binary on a non-binary kind";
  }
  return Expr();
}

bool fold_compare(NodeKind k, int64_t a, int64_t b) {
  switch (k) {
    case NodeKind::LT:
      return a < b;
    case NodeKind::LE:
      return a <= b;
    case NodeKind::GT:
      return a > b;
    case NodeKind::GE:
      return a >= b;
    case NodeKind::EQ:
      return a == b;
    default:
      return a != b;
  }
}
}  // namespace

// ---- proofs ------------------------------------------------------------------------------------
bool Simplifier::prove_negative(const Expr& d) {
  ConstBound b = bound(d);
  if (b.hi < 0) return true;
  if (b.lo >= 0) return false;
  return prove_symbolic_upper(d, -1);
}

bool Simplifier::prove_non_positive(const Expr& d) {
  ConstBound b = bound(d);
  if (b.hi <= 0) return true;
  if (b.lo > 0) return false;
  return prove_symbolic_upper(d, 0);
}

bool Simplifier::prove_non_negative(const Expr& d) {
  ConstBound b = bound(d);
  if (b.lo >= 0) return true;
  if (b.hi < 0) return false;
  if (!is_linear_type(d.dtype())) return false;
  LinearForm n;
  n.dtype = d.dtype();
  n.add(to_linear(d), -1);
  return prove_symbolic_upper(from_linear(n), 0);
}

// Symbolic fallback: relax every ranged variable to its (possibly symbolic) interval and bound the
// simplified upper end with constants. Only worth it when some range is not constant.
bool Simplifier::prove_symbolic_upper(const Expr& d, int64_t limit) {
  if (ranges_.empty() || !is_linear_type(d.dtype())) return false;
  IntervalMap dom;
  bool symbolic = false;
  post_order_visit(d, [&](const Ref<Object>& n) {
    if (n->kind() != NodeKind::Var) return;
    auto* v = static_cast<const VarNode*>(n.get());
    auto it = ranges_.find(v);
    if (it == ranges_.end() || !it->second.defined() || dom.count(v)) return;
    IntervalSet iv = IntervalSet::from_range(it->second);
    if (!as_const_int(iv.min) || !as_const_int(iv.max)) symbolic = true;
    dom[v] = iv;
  });
  if (!symbolic) return false;
  IntervalSet iv = eval_interval(d, dom);
  if (!iv.max.defined()) return false;
  return bound(iv.max).hi <= limit;
}

// ---- arithmetic --------------------------------------------------------------------------------
Expr Simplifier::normalize(LinearForm f) {
  for (int i = 0; i < 8 && recombine_once(f); ++i) {
  }
  return from_linear(f);
}

Expr Simplifier::add_sub(const Expr& a, const Expr& b, int64_t sign) {
  LinearForm f = to_linear(a);
  f.add(to_linear(b), sign);
  return normalize(std::move(f));
}

Expr Simplifier::vector_binary(NodeKind k, const Expr& a, const Expr& b) {
  auto* ba = a.as<BroadcastNode>();
  auto* bb = b.as<BroadcastNode>();
  auto* ra = a.as<RampNode>();
  auto* rb = b.as<RampNode>();
  int lanes = a.dtype().lanes();
  auto scalar = [&](const Expr& x, const Expr& y) {
    if (k == NodeKind::Add) return mutate(x + y);
    if (k == NodeKind::Sub) return mutate(x - y);
    return mutate(x * y);
  };
  if (ba && bb) return BroadcastNode::make(scalar(ba->value, bb->value), lanes);
  if (k == NodeKind::Add || k == NodeKind::Sub) {
    if (ra && bb) return make_ramp(scalar(ra->base, bb->value), ra->stride, lanes);
    if (ra && rb)
      return make_ramp(scalar(ra->base, rb->base), scalar(ra->stride, rb->stride), lanes);
    if (ba && rb) {
      Expr stride = k == NodeKind::Add ? rb->stride : mutate(-rb->stride);
      return make_ramp(scalar(ba->value, rb->base), stride, lanes);
    }
  }
  if (k == NodeKind::Mul) {
    if (ra && bb)
      return make_ramp(scalar(ra->base, bb->value), scalar(ra->stride, bb->value), lanes);
    if (ba && rb)
      return make_ramp(scalar(ba->value, rb->base), scalar(ba->value, rb->stride), lanes);
  }
  return make_binary(k, a, b);
}

Expr Simplifier::visit(const CastNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value) && !is_const(v) && !v.as<BroadcastNode>()) return self;
  return cast(op->dtype, v);
}

Expr Simplifier::visit(const AddNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (is_linear_type(op->dtype)) return add_sub(a, b, 1);
  if (op->dtype.is_vector()) return vector_binary(NodeKind::Add, a, b);
  if (a.same_as(op->a) && b.same_as(op->b) && !(is_const(a) && is_const(b))) return self;
  return a + b;
}

Expr Simplifier::visit(const SubNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (is_linear_type(op->dtype)) return add_sub(a, b, -1);
  if (op->dtype.is_vector()) return vector_binary(NodeKind::Sub, a, b);
  if (a.same_as(op->a) && b.same_as(op->b) && !(is_const(a) && is_const(b))) return self;
  return a - b;
}

Expr Simplifier::visit(const MulNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (is_linear_type(op->dtype)) {
    const int64_t* c = as_const_int(b);
    const Expr* other = &a;
    if (!c) {
      c = as_const_int(a);
      other = &b;
    }
    if (c) {
      LinearForm f;
      f.dtype = op->dtype;
      f.add(to_linear(*other), *c);
      return normalize(std::move(f));
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    return MulNode::make(a, b);
  }
  if (op->dtype.is_vector()) return vector_binary(NodeKind::Mul, a, b);
  if (a.same_as(op->a) && b.same_as(op->b) && !(is_const(a) && is_const(b))) return self;
  return a * b;
}

// ---- division (the rules live in simplify_div.cc) ----------------------------------------------
Expr Simplifier::div_mod(NodeKind k, const Expr& self, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  bool floor = k == NodeKind::FloorDiv || k == NodeKind::FloorMod;
  bool is_mod = k == NodeKind::Mod || k == NodeKind::FloorMod;
  auto rebuild = [&]() -> Expr {
    switch (k) {
      case NodeKind::Div:
        return t.is_integral() ? truncdiv(a, b) : a / b;
      case NodeKind::Mod:
        return truncmod(a, b);
      case NodeKind::FloorDiv:
        return floordiv(a, b);
      default:
        return floormod(a, b);
    }
  };
  if (!t.is_integral() || !t.is_scalar()) {
    if (is_const(a) && is_const(b)) return rebuild();
    return make_binary(k, a, b);
  }
  auto* cb = as_const_int(b);
  if (cb && *cb == 0) return make_binary(k, a, b);  // left for the runtime to report
  if (as_const_int(a) && cb) return rebuild();
  if (cb && *cb > 0 && is_linear_type(t)) return div_by_const(a, *cb, is_mod, !floor);
  if (is_linear_type(t) && !cb) {
    // 0 <= a < b: the quotient is 0 and the remainder a.
    if (prove_non_negative(a) && prove_negative(add_sub(a, b, -1)))
      return is_mod ? a : make_zero(t);
  }
  (void)self;
  return rebuild();
}

Expr Simplifier::visit(const DivNode* op, const Expr& self) {
  return div_mod(NodeKind::Div, self, mutate(op->a), mutate(op->b));
}
Expr Simplifier::visit(const ModNode* op, const Expr& self) {
  return div_mod(NodeKind::Mod, self, mutate(op->a), mutate(op->b));
}
Expr Simplifier::visit(const FloorDivNode* op, const Expr& self) {
  return div_mod(NodeKind::FloorDiv, self, mutate(op->a), mutate(op->b));
}
Expr Simplifier::visit(const FloorModNode* op, const Expr& self) {
  return div_mod(NodeKind::FloorMod, self, mutate(op->a), mutate(op->b));
}

// ---- min / max ---------------------------------------------------------------------------------
Expr Simplifier::min_max(bool is_min, const Expr& a, const Expr& b) {
  if (is_const(a) && is_const(b)) return is_min ? min(a, b) : max(a, b);
  DataType t = a.dtype();
  if (is_linear_type(t)) {
    Expr d = add_sub(a, b, -1);
    if (prove_non_positive(d)) return is_min ? a : b;
    if (prove_non_negative(d)) return is_min ? b : a;
  }
  auto* ba = a.as<BroadcastNode>();
  auto* bb = b.as<BroadcastNode>();
  if (ba && bb) return BroadcastNode::make(min_max(is_min, ba->value, bb->value), ba->lanes);
  if (structural_equal(a, b)) return a;
  return is_min ? MinNode::make(a, b) : MaxNode::make(a, b);
}

Expr Simplifier::visit(const MinNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  Expr r = min_max(true, a, b);
  if (auto* m = r.as<MinNode>(); m && m->a.same_as(op->a) && m->b.same_as(op->b)) return self;
  return r;
}
Expr Simplifier::visit(const MaxNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  Expr r = min_max(false, a, b);
  if (auto* m = r.as<MaxNode>(); m && m->a.same_as(op->a) && m->b.same_as(op->b)) return self;
  return r;
}

// ---- comparisons -------------------------------------------------------------------------------
Expr Simplifier::compare(NodeKind k, Expr a, Expr b) {
  auto* ia = as_const_int(a);
  auto* ib = as_const_int(b);
  if (ia && ib) return bool_const(fold_compare(k, *ia, *ib));
  auto* fa = a.as<FloatImmNode>();
  auto* fb = b.as<FloatImmNode>();
  if (fa && fb) {
    double x = fa->value, y = fb->value;
    bool r = k == NodeKind::LT   ? x < y
             : k == NodeKind::LE ? x <= y
             : k == NodeKind::GT ? x > y
             : k == NodeKind::GE ? x >= y
             : k == NodeKind::EQ ? x == y
                                 : x != y;
    return bool_const(r);
  }
  if (!is_linear_type(a.dtype())) return make_binary(k, a, b);
  if (k == NodeKind::GT || k == NodeKind::GE) {
    std::swap(a, b);
    k = k == NodeKind::GT ? NodeKind::LT : NodeKind::LE;
  }
  Expr d = add_sub(a, b, -1);
  LinearForm f = to_linear(d);
  if (f.is_const()) return bool_const(fold_compare(k, f.base, 0));
  switch (k) {
    case NodeKind::LT:
      if (prove_negative(d)) return bool_const(true);
      if (prove_non_negative(d)) return bool_const(false);
      break;
    case NodeKind::LE: {
      if (prove_non_positive(d)) return bool_const(true);
      LinearForm g = f;
      g.base -= 1;
      if (prove_non_negative(from_linear(g))) return bool_const(false);
      break;
    }
    default: {
      ConstBound cb = bound(d);
      if (cb.lo > 0 || cb.hi < 0) return bool_const(k == NodeKind::NE);
      break;
    }
  }
  // Canonical form: divide by the gcd of the coefficients, positive terms on the left.
  int64_t g = 0;
  for (auto& t : f.terms) g = std::gcd(g, t.coeff < 0 ? -t.coeff : t.coeff);
  int64_t base = f.base;
  if (g > 1) {
    if (k == NodeKind::EQ || k == NodeKind::NE) {
      if (base % g != 0) return bool_const(k == NodeKind::NE);
      base /= g;
    } else if (k == NodeKind::LT) {
      base = floordiv_c(base, g);  // g*d' + base < 0  <=>  d' + floor(base/g) < 0
    } else {
      base = floordiv_c(base, g) + (floormod_c(base, g) != 0 ? 1 : 0);  // d' + ceil(base/g) <= 0
    }
    for (auto& t : f.terms) t.coeff /= g;
  }
  LinearForm pos, neg;
  pos.dtype = neg.dtype = f.dtype;
  for (auto& t : f.terms) {
    if (t.coeff > 0)
      pos.terms.push_back(t);
    else
      neg.terms.push_back({t.atom, -t.coeff});
  }
  if (!pos.terms.empty()) {
    neg.base = -base;
    return make_binary(k, from_linear(pos), from_linear(neg));
  }
  Expr c = make_const(f.dtype, base);
  if (k == NodeKind::EQ || k == NodeKind::NE) return make_binary(k, from_linear(neg), c);
  return make_binary(k, c, from_linear(neg));
}

#define MINITVM_SIMP_CMP(N)                                     \
  Expr Simplifier::visit(const N##Node* op, const Expr& self) { \
    Expr a = mutate(op->a), b = mutate(op->b);                  \
    Expr r = compare(NodeKind::N, a, b);                        \
    if (structural_equal(r, self)) return self;                 \
    return r;                                                   \
  }
MINITVM_SIMP_CMP(EQ)
MINITVM_SIMP_CMP(NE)
MINITVM_SIMP_CMP(LT)
MINITVM_SIMP_CMP(LE)
MINITVM_SIMP_CMP(GT)
MINITVM_SIMP_CMP(GE)
#undef MINITVM_SIMP_CMP

// ---- logic -------------------------------------------------------------------------------------
Expr Simplifier::visit(const AndNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (is_const(a) || is_const(b)) return a && b;
  if (structural_equal(a, b)) return a;
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return AndNode::make(a, b);
}

Expr Simplifier::visit(const OrNode* op, const Expr& self) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (is_const(a) || is_const(b)) return a || b;
  if (structural_equal(a, b)) return a;
  if (a.same_as(op->a) && b.same_as(op->b)) return self;
  return OrNode::make(a, b);
}

Expr Simplifier::visit(const NotNode* op, const Expr& self) {
  Expr a = mutate(op->a);
  if (is_const(a)) return !a;
  if (auto* n = a.as<NotNode>()) return n->a;
  auto negate = [&](auto* cmp, NodeKind k, bool swap) -> Expr {
    if (!is_linear_type(cmp->a.dtype())) return Expr();
    return swap ? compare(k, cmp->b, cmp->a) : compare(k, cmp->a, cmp->b);
  };
  Expr r;
  if (auto* c = a.as<LTNode>())
    r = negate(c, NodeKind::LE, true);
  else if (auto* c = a.as<LENode>())
    r = negate(c, NodeKind::LT, true);
  else if (auto* c = a.as<GTNode>())
    r = negate(c, NodeKind::LE, false);
  else if (auto* c = a.as<GENode>())
    r = negate(c, NodeKind::LT, false);
  else if (auto* c = a.as<EQNode>())
    r = negate(c, NodeKind::NE, false);
  else if (auto* c = a.as<NENode>())
    r = negate(c, NodeKind::EQ, false);
  if (r.defined()) return r;
  if (a.same_as(op->a)) return self;
  return NotNode::make(a);
}

Expr Simplifier::visit(const SelectNode* op, const Expr& self) {
  Expr c = mutate(op->condition);
  if (auto* i = as_const_int(c)) return mutate(*i ? op->true_value : op->false_value);
  // Both values of a select are evaluated: the condition may simplify a value that reads no
  // memory, but not the indices of a load, whose clamp keeps it in bounds where the condition is
  // false (select(j < n, y[min(j, n - 1)], 0)). if_then_else reads only on its branch.
  bool reads = false;
  post_order_visit(op->true_value, [&](const Ref<Object>& n) {
    reads = reads || n->kind() == NodeKind::Load || n->kind() == NodeKind::ProducerLoad;
  });
  decltype(assume(c)) facts;
  if (!reads) facts = assume(c);
  Expr t = mutate(op->true_value);
  unassume(facts);
  Expr f = mutate(op->false_value);
  if (structural_equal(t, f)) return t;
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
    return self;
  return SelectNode::make(c, t, f);
}

// ---- binding forms and calls -------------------------------------------------------------------
Expr Simplifier::visit(const LetNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  if (is_const(v) || v.as<VarNode>()) return mutate(substitute(op->body, {{op->var.get(), v}}));
  auto prev = bounds_.set(op->var.get(), bound(v));
  Expr body = mutate(op->body);
  bounds_.restore(op->var.get(), prev);
  if (!uses_var(body, op->var.get())) return body;
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return LetNode::make(op->var, v, body);
}

Expr Simplifier::visit(const CallNode* op, const Expr& self) {
  if (op->op == Intrinsic::Likely && op->args.size() == 1) {
    Expr a = mutate(op->args[0]);
    if (is_const(a)) return a;
    if (a.same_as(op->args[0])) return self;
    return CallNode::make(op->dtype, Intrinsic::Likely, {a});
  }
  if (op->op == Intrinsic::IfThenElse && op->args.size() == 3) {
    Expr c = mutate(op->args[0]);
    if (auto* i = as_const_int(c)) return mutate(*i ? op->args[1] : op->args[2]);
    auto facts = assume(c);
    Expr t = mutate(op->args[1]);
    unassume(facts);
    Expr f = mutate(op->args[2]);
    if (c.same_as(op->args[0]) && t.same_as(op->args[1]) && f.same_as(op->args[2])) return self;
    return CallNode::make(op->dtype, Intrinsic::IfThenElse, {c, t, f});
  }
  return IRMutator::visit(op, self);
}

Expr Simplifier::visit(const ReduceNode* op, const Expr& self) {
  std::vector<const VarNode*> pushed;
  for (auto& iv : op->axis) {
    if (iv->dom.defined()) {
      push_range(iv->var.get(), iv->dom);
      pushed.push_back(iv->var.get());
    }
  }
  Expr r = IRMutator::visit(op, self);
  for (auto it = pushed.rbegin(); it != pushed.rend(); ++it) pop_range(*it);
  return r;
}

}  // namespace minitvm::ir::arith
