// Split tails out of serial loops, so that the vector body before them runs unmasked.
#include <functional>
#include <set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

/** The largest k in [0, extent] with provable(k), given that provable(0) holds and that it only
 *  fails from some point on (provability only shrinks as the range grows). */
int64_t longest_provable_prefix(int64_t extent, const std::function<bool(int64_t)>& provable) {
  if (provable(extent)) return extent;
  int64_t lo = 0, hi = extent;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    (provable(mid) ? lo : hi) = mid;
  }
  return lo;
}

/** `f` (constant bounds) as [min, min + k) and the rest, each simplified. */
Stmt split_loop(const ForNode* f, int64_t k) {
  const int64_t mn = *as_const_int(f->min), ex = *as_const_int(f->extent);
  DataType it = f->extent.dtype();
  Stmt main = ForNode::make(f->loop_var, f->min, IntImmNode::make(it, k), f->for_kind, f->body);
  Stmt tail = ForNode::make(f->loop_var, IntImmNode::make(it, mn + k), IntImmNode::make(it, ex - k),
                            f->for_kind, f->body);
  return BlockNode::make({simplify(main), simplify(tail)});
}

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
      k = longest_provable_prefix(k, [&](int64_t n) {
        RangeMap rm = g.inner;
        rm[f->loop_var.get()] = Range(f->min, IntImmNode::make(f->extent.dtype(), n));
        return can_prove(g.cond, rm);
      });
    }
    if (k <= 0 || k >= *ex) return r;
    return split_loop(f, k);
  }
};

/** The likely() guards (no else) of `body` that sit inside two or more loops of it, whose
 *  condition uses `v` and no variable that `body` binds (loops, lets): invariant over the inner
 *  loops around them, the reduction loops of a register tile (a 1x1 conv's input-channel chunks
 *  and lanes; a 3x3 conv's kernel rows, columns and channels). LLVM unswitches such a branch only
 *  sometimes; where it does not, the guarded columns' accumulators go through memory on every
 *  update. Zen 3: MobileNetV2's 1x1 96 -> 576 on 14x14 (tiles of 5 columns, the last of 4) ran
 *  517 us on one thread, partitioned 226; ResNet-50's 3x3 stride-2 28x28 -> 14x14 2746 us, 1473.
 *  Partitioning lets LLVM unroll the tile loop in full (its trip count now small and exact), which
 *  turns the accumulator buffer into values live across every tile and spills them (a 1x1
 *  128 -> 512 on 28x28: 1100 us before, 2630 partitioned): the conv2d schedules mark the tile
 *  loop "unroll_disable" (codegen_llvm.cc). */
class TileGuardCollector : public IRVisitor {
 public:
  static constexpr int kMinDepth = 2;
  explicit TileGuardCollector(const VarNode* v) : v_(v) {}
  std::vector<Expr> guards;
  bool mixed = false;  // a guard on v that also uses a variable bound inside

  using IRVisitor::visit;
  void visit(const ForNode* op) override {
    bound_.insert(op->loop_var.get());
    ++depth_;
    IRVisitor::visit(op);
    --depth_;
    bound_.erase(op->loop_var.get());
  }
  void visit(const LetStmtNode* op) override {
    bound_.insert(op->var.get());
    IRVisitor::visit(op);
    bound_.erase(op->var.get());
  }
  void visit(const IfThenElseNode* op) override {
    auto* call = op->condition.as<CallNode>();
    if (!op->else_case.defined() && call && call->op == Intrinsic::Likely &&
        call->args.size() == 1 && uses_var(call->args[0], v_)) {
      if (uses_var(call->args[0], [&](const VarNode* x) { return bound_.count(x) > 0; }))
        mixed = true;
      else if (depth_ >= kMinDepth)
        guards.push_back(call->args[0]);
    }
    IRVisitor::visit(op);
  }

 private:
  const VarNode* v_;
  std::set<const VarNode*> bound_;
  int depth_ = 0;
};

class TilePartitioner : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<ForNode>();
    const int64_t* mn = as_const_int(f->min);
    const int64_t* ex = as_const_int(f->extent);
    if (f->for_kind != ForKind::Serial || !mn || !ex || *ex < 2) return r;
    TileGuardCollector gc(f->loop_var.get());
    gc.visit_stmt(f->body);
    if (gc.guards.empty() || gc.mixed) return r;
    // The longest prefix [min, min + k) where every guard provably holds.
    const int64_t k = longest_provable_prefix(*ex, [&](int64_t n) {
      RangeMap rm;
      rm[f->loop_var.get()] = Range(f->min, IntImmNode::make(f->extent.dtype(), n));
      for (const Expr& g : gc.guards)
        if (!can_prove(g, rm)) return false;
      return true;
    });
    if (k <= 0 || k >= *ex) return r;
    return split_loop(f, k);
  }
};

}  // namespace

Stmt loop_partition(const Stmt& s) {
  return LoopPartitioner()(s);
}

Stmt partition_guarded_tiles(const Stmt& s) {
  return TilePartitioner()(s);
}

}  // namespace minitvm::transform
