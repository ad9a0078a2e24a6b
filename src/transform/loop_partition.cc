// Split tails out of serial loops, so that the vector body before them runs unmasked.
#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

/** A lane-dependent likely() guard found under a loop, with the ranges of the loops between that
 *  loop and the guard (the vectorized one included). */
struct Guard {
  Expr cond;
  RangeMap inner;
};

/** The likely() guards inside vectorized loops of `body` whose condition uses `v` and the lane. */
class GuardCollector {
 public:
  explicit GuardCollector(const VarNode* v) : v_(v) {}
  std::vector<Guard> guards;

  void visit(const Stmt& s) {
    if (auto* f = s.as<ForNode>()) {
      const VarNode* lv = f->loop_var.get();
      auto saved = lane_;
      if (f->for_kind == ForKind::Vectorized) lane_ = lv;
      ranges_[lv] = Range(f->min, f->extent);
      visit(f->body);
      ranges_.erase(lv);
      lane_ = saved;
    } else if (auto* i = s.as<IfThenElseNode>()) {
      auto* call = i->condition.as<CallNode>();
      if (lane_ && !i->else_case.defined() && call && call->op == Intrinsic::Likely &&
          call->args.size() == 1 && uses_var(call->args[0], v_) && uses_var(call->args[0], lane_)) {
        guards.push_back({call->args[0], ranges_});
      }
      visit(i->then_case);
      if (i->else_case.defined()) visit(i->else_case);
    } else if (auto* b = s.as<BlockNode>()) {
      for (const Stmt& x : b->stmts) visit(x);
    } else if (auto* a = s.as<AttrStmtNode>()) {
      visit(a->body);
    } else if (auto* a = s.as<AllocateNode>()) {
      visit(a->body);
    } else if (auto* l = s.as<LetStmtNode>()) {
      visit(l->body);
    }
  }

 private:
  const VarNode* v_;
  const VarNode* lane_ = nullptr;
  RangeMap ranges_;
};

class LoopPartitioner : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<ForNode>();
    const int64_t* mn = as_const_int(f->min);
    const int64_t* ex = as_const_int(f->extent);
    if (f->for_kind != ForKind::Serial || !mn || !ex || *ex < 2) return r;
    GuardCollector gc(f->loop_var.get());
    gc.visit(f->body);
    if (gc.guards.empty()) return r;
    // The main part [min, min + k): every guard provably true there (k the smallest over the
    // guards of the longest such prefix; provability only shrinks as the range grows).
    int64_t k = *ex;
    for (const Guard& g : gc.guards) {
      auto provable = [&](int64_t n) {
        RangeMap rm = g.inner;
        rm[f->loop_var.get()] = Range(f->min, IntImmNode::make(f->extent.dtype(), n));
        return can_prove(g.cond, rm);
      };
      int64_t lo = 0, hi = k;  // provable(lo) holds (an empty range), find the largest
      if (provable(hi)) continue;
      while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        (provable(mid) ? lo : hi) = mid;
      }
      k = lo;
    }
    if (k <= 0 || k >= *ex) return r;
    DataType it = f->extent.dtype();
    Stmt main = ForNode::make(f->loop_var, f->min, IntImmNode::make(it, k), f->for_kind, f->body);
    Stmt tail = ForNode::make(f->loop_var, IntImmNode::make(it, *mn + k),
                              IntImmNode::make(it, *ex - k), f->for_kind, f->body);
    return BlockNode::make({simplify(main), simplify(tail)});
  }
};

}  // namespace

Stmt loop_partition(const Stmt& s) {
  return LoopPartitioner()(s);
}

}  // namespace minitvm::transform
