// Turn vectorized loops into Ramp/Broadcast vector code (or serial loops when that is not
// possible).
#include <functional>
#include <unordered_map>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

struct CannotVectorize {};

Expr broadcast_to(const Expr& e, int lanes) {
  if (e.dtype().lanes() == lanes) return e;
  MINITVM_ICHECK(e.dtype().is_scalar()) << "lanes mismatch in vectorizer";
  return BroadcastNode::make(e, lanes);
}

/** Rewrites the body of one vectorized loop; throws CannotVectorize to fall back to a serial loop.
 */
class Vectorizer : public IRMutator {
 public:
  Vectorizer(const VarNode* v, Expr min, int lanes) : v_(v), min_(std::move(min)), lanes_(lanes) {}
  using IRMutator::mutate;

 protected:
  Expr visit(const VarNode* op, const Expr& self) override {
    if (op == v_) return RampNode::make(min_, make_const(min_.dtype(), int64_t{1}), lanes_);
    auto it = lets_.find(op);
    return it != lets_.end() ? it->second : self;
  }
  template <typename Node, typename F>
  Expr binary(const Node* op, const Expr& self, F make) {
    Expr a = mutate(op->a), b = mutate(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return self;
    int la = a.dtype().lanes(), lb = b.dtype().lanes();
    int lanes = std::max(la, lb);
    return make(broadcast_to(a, lanes), broadcast_to(b, lanes));
  }
  Expr visit(const AddNode* op, const Expr& self) override {
    return binary(op, self, [](Expr a, Expr b) -> Expr {
      auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
      auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
      if (ra && bb) return RampNode::make(ra->base + bb->value, ra->stride, ra->lanes);
      if (ba && rb) return RampNode::make(ba->value + rb->base, rb->stride, rb->lanes);
      if (ra && rb) return RampNode::make(ra->base + rb->base, ra->stride + rb->stride, ra->lanes);
      if (ba && bb) return BroadcastNode::make(ba->value + bb->value, ba->lanes);
      return AddNode::make(a, b);
    });
  }
  Expr visit(const SubNode* op, const Expr& self) override {
    return binary(op, self, [](Expr a, Expr b) -> Expr {
      auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
      auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
      if (ra && bb) return RampNode::make(ra->base - bb->value, ra->stride, ra->lanes);
      if (ba && rb)
        return RampNode::make(ba->value - rb->base, make_zero(rb->stride.dtype()) - rb->stride,
                              rb->lanes);
      if (ra && rb) return RampNode::make(ra->base - rb->base, ra->stride - rb->stride, ra->lanes);
      if (ba && bb) return BroadcastNode::make(ba->value - bb->value, ba->lanes);
      return SubNode::make(a, b);
    });
  }
  Expr visit(const MulNode* op, const Expr& self) override {
    return binary(op, self, [](Expr a, Expr b) -> Expr {
      auto *ra = a.as<RampNode>(), *rb = b.as<RampNode>();
      auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();
      if (ra && bb) return RampNode::make(ra->base * bb->value, ra->stride * bb->value, ra->lanes);
      if (ba && rb) return RampNode::make(ba->value * rb->base, ba->value * rb->stride, rb->lanes);
      if (ba && bb) return BroadcastNode::make(ba->value * bb->value, ba->lanes);
      return MulNode::make(a, b);
    });
  }
#define MINITVM_VEC_BIN(N)                                                                      \
  Expr visit(const N##Node* op, const Expr& self) override {                                    \
    return binary(op, self, [](Expr a, Expr b) -> Expr {                                        \
      auto *ba = a.as<BroadcastNode>(), *bb = b.as<BroadcastNode>();                            \
      if (ba && bb) return BroadcastNode::make(N##Node::make(ba->value, bb->value), ba->lanes); \
      return N##Node::make(a, b);                                                               \
    });                                                                                         \
  }
  MINITVM_VEC_BIN(Div)
  MINITVM_VEC_BIN(Mod)
  MINITVM_VEC_BIN(FloorDiv)
  MINITVM_VEC_BIN(FloorMod)
  MINITVM_VEC_BIN(Min)
  MINITVM_VEC_BIN(Max)
  MINITVM_VEC_BIN(EQ)
  MINITVM_VEC_BIN(NE)
  MINITVM_VEC_BIN(LT)
  MINITVM_VEC_BIN(LE)
  MINITVM_VEC_BIN(GT)
  MINITVM_VEC_BIN(GE)
  MINITVM_VEC_BIN(And)
  MINITVM_VEC_BIN(Or)
#undef MINITVM_VEC_BIN
  Expr visit(const NotNode* op, const Expr& self) override {
    Expr a = mutate(op->a);
    return a.same_as(op->a) ? self : NotNode::make(a);
  }
  Expr visit(const CastNode* op, const Expr& self) override {
    Expr v = mutate(op->value);
    if (v.same_as(op->value)) return self;
    if (auto* b = v.as<BroadcastNode>())
      return BroadcastNode::make(cast(op->dtype, b->value), b->lanes);
    return CastNode::make(op->dtype.with_lanes(v.dtype().lanes()), v);
  }
  Expr visit(const SelectNode* op, const Expr& self) override {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
      return self;
    int lanes = std::max({c.dtype().lanes(), t.dtype().lanes(), f.dtype().lanes()});
    return SelectNode::make(broadcast_to(c, lanes), broadcast_to(t, lanes), broadcast_to(f, lanes));
  }
  Expr visit(const LoadNode* op, const Expr& self) override {
    Expr idx = mutate(op->index);
    if (idx.same_as(op->index)) {
      // A load that does not depend on the lane runs once per vector; under a lane mask it becomes
      // a masked load of its one element repeated in every lane (no lane active: nothing read).
      if (!mask_.defined()) return self;
      idx = BroadcastNode::make(idx, lanes_);
    }
    if (!mask_.defined() && idx.as<BroadcastNode>())
      return BroadcastNode::make(
          LoadNode::make(op->dtype, op->buffer_var, idx.as<BroadcastNode>()->value), lanes_);
    // Dense or strided ramps, and indices with constant lane offsets over a short span (e.g. each
    // element repeated: floordiv(ramp(x*48, 1, 48), 3)); anything else stays a serial loop.
    idx = broadcast_to(idx, lanes_);
    if (!idx.as<RampNode>()) {
      auto lo = lane_offsets(idx);
      if (!lo || lo->span() > 4 * static_cast<int64_t>(lanes_)) throw CannotVectorize{};
    }
    Expr pred = op->predicate.defined() && !is_one(op->predicate)
                    ? broadcast_to(mutate(op->predicate), lanes_)
                    : Expr();
    if (mask_.defined()) pred = pred.defined() ? AndNode::make(pred, mask_) : mask_;
    return LoadNode::make(op->dtype.with_lanes(lanes_), op->buffer_var, idx, pred);
  }
  Expr visit(const CallNode* op, const Expr& self) override {
    bool changed = false;
    auto args = mutate_all(op->args, &changed);
    if (!changed) return self;
    switch (op->op) {
      case Intrinsic::Fabs:
      case Intrinsic::Sqrt:
      case Intrinsic::Floor:
      case Intrinsic::Ceil:
      case Intrinsic::Round:
      case Intrinsic::Trunc:
      case Intrinsic::Exp:
      case Intrinsic::Exp2:
      case Intrinsic::Log:
      case Intrinsic::Log2:
      case Intrinsic::Erf:      // float32: a vector polynomial (codegen); else per lane
      case Intrinsic::Sigmoid:  // through the vector exp
      case Intrinsic::Tanh:     // libm per lane, the rest of the loop in vectors
      case Intrinsic::Rsqrt:
      case Intrinsic::IsNan:
      case Intrinsic::IsInf: {
        int lanes = args[0].dtype().lanes();
        return make_object<CallNode>(op->dtype.with_lanes(lanes), op->op, op->name,
                                     std::move(args));
      }
      case Intrinsic::Likely:
        return args[0];
      case Intrinsic::IfThenElse: {
        // Lanes with a false condition must not evaluate the true branch: code generation masks
        // its loads; an integer division there could trap, so that stays serial.
        if (may_trap(op->args[1])) throw CannotVectorize{};
        int lanes =
            std::max({args[0].dtype().lanes(), args[1].dtype().lanes(), args[2].dtype().lanes()});
        // a lane-independent condition stays scalar (a branch); a vector one masks the loads
        if (args[0].dtype().is_vector() && has_scalar_load(args[1])) throw CannotVectorize{};
        for (size_t i = 1; i < args.size(); ++i) args[i] = broadcast_to(args[i], lanes);
        return CallNode::make(op->dtype.with_lanes(lanes), Intrinsic::IfThenElse, std::move(args));
      }
      default:
        throw CannotVectorize{};
    }
  }
  Expr visit(const LetNode*, const Expr&) override {
    throw CannotVectorize{};
  }
  Expr visit(const ReduceNode*, const Expr&) override {
    throw CannotVectorize{};
  }

  Stmt visit(const StoreNode* op, const Stmt& self) override {
    Expr v = mutate(op->value), idx = mutate(op->index);
    if (v.same_as(op->value) && idx.same_as(op->index) && !mask_.defined()) return self;
    if (!idx.as<RampNode>())
      throw CannotVectorize{};  // scalar index with vector value: a reduction
    Expr pred = op->predicate.defined() && !is_one(op->predicate)
                    ? broadcast_to(mutate(op->predicate), lanes_)
                    : Expr();
    if (mask_.defined()) pred = pred.defined() ? AndNode::make(pred, mask_) : mask_;
    return StoreNode::make(op->buffer_var, broadcast_to(v, lanes_), idx, pred);
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    if (uses_var(Stmt(self), v_)) throw CannotVectorize{};
    return self;
  }
  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    // The guard's conjuncts (through likely() and &&), split by whether they depend on the lane.
    std::vector<Expr> lane_free, lane_dep;
    bool likely = false;
    std::function<void(const Expr&)> split = [&](const Expr& e) {
      if (auto* c = e.as<CallNode>(); c && c->op == Intrinsic::Likely && c->args.size() == 1) {
        likely = true;
        split(c->args[0]);
      } else if (auto* a = e.as<AndNode>()) {
        split(a->a);
        split(a->b);
      } else {
        (uses_lane(e) ? lane_dep : lane_free).push_back(e);
      }
    };
    split(op->condition);
    if (lane_dep.empty()) return IRMutator::visit(op, self);
    // A lane-dependent guard without else (a split tail `if (likely(i*48 + v < 56))`): its
    // stores and loads become predicated (masked) with the condition, lane-independent loads
    // too (one element, repeated); other statements under it (inner loops) make the loop serial.
    if (op->else_case.defined()) throw CannotVectorize{};
    // The conjuncts that do not use the lane (the guard of an outer split, `likely(i*3 + r < 56
    // && j*48 + v < 56)`) stay a scalar `if` around the vector statement: as mask lanes they
    // would differ between statements that otherwise read the same vectors, and LLVM could no
    // longer share those loads.
    auto conj = [&](const std::vector<Expr>& v) {
      Expr r = v[0];
      for (size_t i = 1; i < v.size(); ++i) r = AndNode::make(r, v[i]);
      return likely ? CallNode::make(r.dtype(), Intrinsic::Likely, {r}) : r;
    };
    Expr cond = broadcast_to(mutate(conj(lane_dep)), lanes_);
    Expr saved = mask_;
    mask_ = saved.defined() ? AndNode::make(saved, cond) : cond;
    Stmt body = mutate(op->then_case);
    mask_ = saved;
    if (lane_free.empty()) return body;
    return IfThenElseNode::make(conj(lane_free), body, Stmt());
  }
  Stmt visit(const LetStmtNode* op, const Stmt& self) override {
    // A lane-dependent value (e.g. a tuple reduction's combined values, which must all be
    // computed before the first store) binds a vector variable, as in TVM.
    Expr value = mutate(op->value);
    if (!value.dtype().is_vector()) {
      if (mask_.defined() && has_scalar_load(value)) throw CannotVectorize{};
      return IRMutator::visit(op, self);
    }
    Var lanes_var(op->var->name_hint, value.dtype());
    lets_[op->var.get()] = lanes_var;
    Stmt body = mutate(op->body);
    lets_.erase(op->var.get());
    return LetStmtNode::make(lanes_var, value, body);
  }
  Stmt visit(const AllocateNode*, const Stmt&) override {
    throw CannotVectorize{};
  }

 private:
  /** Whether `e` depends on the lane: it uses the loop variable or a let variable bound to a
   *  vector value. */
  bool uses_lane(const Expr& e) const {
    bool found = false;
    post_order_visit(e, [&](const Ref<Object>& x) {
      if (x->kind() != NodeKind::Var) return;
      auto* v = static_cast<const VarNode*>(x.get());
      found |= v == v_ || lets_.count(v) > 0;
    });
    return found;
  }
  /** Integer division or modulo by a non-constant: may trap where a masked lane would skip it. */
  static bool may_trap(const Expr& e) {
    bool found = false;
    post_order_visit(e, [&](const Ref<Object>& x) {
      auto check = [&](const auto* n) {
        Expr d = n->b;
        if (auto* b = d.as<BroadcastNode>()) d = b->value;
        if (n->dtype.is_integral() && !as_const_int(d)) found = true;
      };
      switch (x->kind()) {
        case NodeKind::Div:
          check(static_cast<const DivNode*>(x.get()));
          break;
        case NodeKind::Mod:
          check(static_cast<const ModNode*>(x.get()));
          break;
        case NodeKind::FloorDiv:
          check(static_cast<const FloorDivNode*>(x.get()));
          break;
        case NodeKind::FloorMod:
          check(static_cast<const FloorModNode*>(x.get()));
          break;
        default:
          break;
      }
    });
    return found;
  }

  /** A load that is not vectorized (runs once, whatever the lanes' conditions). */
  static bool has_scalar_load(const Expr& e) {
    bool found = false;
    post_order_visit(e, [&](const Ref<Object>& x) {
      if (x->kind() == NodeKind::Load && static_cast<const LoadNode*>(x.get())->dtype.is_scalar())
        found = true;
    });
    return found;
  }

  const VarNode* v_;
  Expr min_;
  int lanes_;
  Expr mask_;  ///< lane mask of the enclosing lane-dependent guards (undefined: all lanes)
  std::unordered_map<const VarNode*, Var> lets_;  ///< let variables bound to vector values
};

/** Whether a statement already holds vector expressions (an inner loop's vectorized code). */
bool has_vector_code(const Stmt& s) {
  bool found = false;
  post_order_visit(s, [&](const Ref<Object>& x) {
    if (found) return;
    if (auto* e = dynamic_cast<const ExprNode*>(x.get())) found = e->dtype.is_vector();
  });
  return found;
}

class LoopVectorizer : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<ForNode>();
    if (f->for_kind != ForKind::Vectorized) return r;
    const int64_t* ext = as_const_int(f->extent);
    // Lanes do not nest: when an inner loop was vectorized already, this loop stays serial (the
    // inner vector code runs once per iteration), as TVM scalarizes a vectorized loop around one.
    if (ext && *ext > 1 && *ext <= 64 && !has_vector_code(f->body)) {
      try {
        return Vectorizer(f->loop_var.get(), f->min, static_cast<int>(*ext)).mutate(f->body);
      } catch (const CannotVectorize&) {
      }
    }
    return ForNode::make(f->loop_var, f->min, f->extent, ForKind::Serial, f->body);
  }
};
}  // namespace

Stmt vectorize_loop(const Stmt& s) {
  return LoopVectorizer().mutate(s);
}

}  // namespace minitvm::transform
