// TVM's UnrollLoop: user unroll() loops and small perfect nests under
// pragma_auto_unroll_max_step are unrolled, explicitly or as `unrolled` loops (#pragma unroll).
#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {
class Unroller : public IRMutator {
 public:
  explicit Unroller(const UnrollOptions& o)
      : max_step_(o.auto_max_step),
        max_depth_(o.auto_max_depth),
        max_extent_(o.auto_max_extent),
        explicit_(o.explicit_unroll) {}
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind == AttrKind::PragmaAutoUnrollMaxStep) {
      int saved = max_step_;
      auto* v = as_const_int(op->value);
      max_step_ = v ? static_cast<int>(*v) : 0;
      Stmt r = mutate(op->body);
      max_step_ = saved;
      return r;
    }
    if (op->attr_kind == AttrKind::PragmaUnrollExplicit) {
      bool saved = explicit_;
      auto* v = as_const_int(op->value);
      explicit_ = v && *v != 0;
      Stmt r = mutate(op->body);
      explicit_ = saved;
      return r;
    }
    return IRMutator::visit(op, self);
  }
  Stmt visit(const StoreNode* op, const Stmt& self) override {
    ++step_count_;
    return IRMutator::visit(op, self);
  }
  Stmt visit(const EvaluateNode* op, const Stmt& self) override {
    ++step_count_;
    return IRMutator::visit(op, self);
  }
  Stmt visit(const BlockNode* op, const Stmt& self) override {
    // Fold the sequence pairwise as TVM's Block(first, rest) does.
    std::vector<Stmt> out(op->stmts.size());
    bool changed = false;
    int64_t step = 0;
    int unroll_depth = 0, normal_depth = 0;
    for (size_t i = 0; i < op->stmts.size(); ++i) {
      step_count_ = 0;
      unroll_depth_ = 0;
      normal_loop_depth_ = 0;
      out[i] = mutate(op->stmts[i]);
      changed |= !out[i].same_as(op->stmts[i]);
      step += step_count_;
      unroll_depth = std::max(unroll_depth, unroll_depth_);
      normal_depth = std::max(normal_depth, normal_loop_depth_);
    }
    step_count_ = step;
    unroll_depth_ = unroll_depth;
    normal_loop_depth_ = normal_depth;
    return changed ? BlockNode::make(out) : self;
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<ForNode>();
    Expr ext_e = simplify(f->extent);
    const int64_t* c = as_const_int(ext_e);
    int64_t ext = c ? *c : -1;
    bool is_auto = f->for_kind == ForKind::Serial && ext >= 0 && normal_loop_depth_ == 0 &&
                   unroll_depth_ <= max_depth_ &&
                   (ext * step_count_ <= max_step_ || ext <= max_extent_);
    if (f->for_kind == ForKind::Unrolled) {
      MINITVM_USER_CHECK(ext >= 0) << "cannot unroll loop `" << f->loop_var->name_hint
                                   << "`: its extent is not a constant (" << f->extent << ")";
      is_auto = true;
    }
    if (is_auto) {
      step_count_ *= ext;
      unroll_depth_ += 1;
    } else {
      normal_loop_depth_ += 1;
    }
    if ((is_auto && explicit_) || (ext >= 0 && ext <= max_extent_ && max_extent_ == 1)) {
      if (ext == 0) return make_nop();
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < ext; ++i)
        copies.push_back(substitute(
            f->body,
            VarMap{{f->loop_var.get(), simplify(f->min + make_const(f->min.dtype(), i))}}));
      return BlockNode::make(copies);
    }
    if (is_auto && f->for_kind == ForKind::Serial)
      return ForNode::make(f->loop_var, f->min, f->extent, ForKind::Unrolled, f->body);
    return r;
  }

 private:
  int max_step_, max_depth_, max_extent_;
  bool explicit_;
  int64_t step_count_ = 0;
  int unroll_depth_ = 0, normal_loop_depth_ = 0;
};
}  // namespace

Stmt unroll_loop(const Stmt& s, const UnrollOptions& opt) {
  return Unroller(opt).mutate(s);
}

}  // namespace minitvm::transform
