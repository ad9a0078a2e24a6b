// inject_double_buffer: TVM's InjectDoubleBuffer (see include/minitvm/transform/passes.h).
//
// A buffer whose producer carries a `double_buffer_scope` attribute and which is allocated inside
// a loop L gets two halves, allocated around L. Iteration i reads half i % 2; the producer is
// rewritten to fill half (i + 1) % 2 with the data of iteration i + 1 (under a
// `double_buffer_write` attribute that thread_sync understands), and its iteration-0 copy runs
// before L. With split_loop = k, L runs the first extent - 1 iterations k at a time and the last
// iteration(s) form a tail without prefetch.
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

struct DbInfo {
  Expr stride;                          ///< elements of one half
  size_t depth = 0;                     ///< loop nest depth at the allocation
  const ForNode* alloc_loop = nullptr;  ///< innermost loop around the allocation
  size_t bound_mark = 0;                ///< let variables bound outside alloc_loop
  const ForNode* loop = nullptr;        ///< the loop whose iterations alternate halves (null: none)
  Var write_var;                        ///< half written by the producer (substituted later)
  Expr read_half;                       ///< half read in the current iteration
};

struct PendingAlloc {
  Var var;
  DataType dtype;
  Expr extent;
  StorageScope scope;
  Expr condition;
};

/** Removes the prefetch (the double_buffer_write statements and the guards around them). */
class StripPrefetch : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind == AttrKind::DoubleBufferWrite) return make_nop();
    return IRMutator::visit(op, self);
  }
  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    auto* a = op->then_case.as<AttrStmtNode>();
    if (a && a->attr_kind == AttrKind::DoubleBufferWrite && !op->else_case.defined())
      return make_nop();
    return IRMutator::visit(op, self);
  }
};

Expr offset_index(const Expr& index, const Expr& off) {
  int lanes = index.dtype().lanes();
  if (lanes == 1) return index + off;
  if (auto* r = index.as<RampNode>()) return RampNode::make(r->base + off, r->stride, r->lanes);
  return index + BroadcastNode::make(off, lanes);
}

class DoubleBufferInjector : public IRMutator {
 public:
  explicit DoubleBufferInjector(int split_loop) : split_loop_(split_loop) {}
  using IRMutator::mutate;

  std::unordered_set<const VarNode*> marked;

 protected:
  Stmt visit(const AllocateNode* op, const Stmt& self) override {
    if (!marked.count(op->buffer_var.get())) return IRMutator::visit(op, self);
    DbInfo& info = info_[op->buffer_var.get()];
    Expr size = make_const(DataType::Int(32), int64_t{op->dtype.lanes()});
    for (auto& e : op->extents) size = size * e;
    info.stride = simplify(size);
    info.depth = loop_nest_.size();
    info.alloc_loop = loop_nest_.empty() ? nullptr : loop_nest_.back();
    info.bound_mark = loop_bound_mark_.empty() ? 0 : loop_bound_mark_.back();
    Stmt body = mutate(op->body);
    const ForNode* loop = info_[op->buffer_var.get()].loop;
    info_.erase(op->buffer_var.get());
    if (!loop)
      return AllocateNode::make(op->buffer_var, op->dtype, op->extents, op->scope, op->condition,
                                body);
    Expr total = simplify(make_const(DataType::Int(32), int64_t{2}) * size);
    if (op->dtype.lanes() > 1)
      total = simplify(total / make_const(DataType::Int(32), int64_t{op->dtype.lanes()}));
    loop_allocs_[loop].push_back({op->buffer_var, op->dtype, total, op->scope, op->condition});
    return body;
  }

  Stmt visit(const LetStmtNode* op, const Stmt& self) override {
    bound_.push_back(op->var.get());
    Stmt s = IRMutator::visit(op, self);
    bound_.pop_back();
    return s;
  }

  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind != AttrKind::DoubleBufferScope) return IRMutator::visit(op, self);
    auto* v = op->node.as<VarNode>();
    MINITVM_ICHECK(v) << "double_buffer_scope attribute without a buffer variable (storage_flatten "
                         "must run first)";
    auto it = info_.find(v);
    MINITVM_ICHECK(it != info_.end())
        << "double_buffer_scope of " << v->name_hint << " outside its allocation";
    DbInfo& info = it->second;
    // The loop to alternate over is the innermost For around the allocation (the loop the stage is
    // computed at). None (it had extent 1 and was never emitted), a loop between the allocation
    // and the producer, or a producer using a variable bound inside that loop (which the copy
    // before the loop could not see): stay single buffered.
    const ForNode* loop = info.alloc_loop;
    bool uses_inner = false;
    if (loop) {
      std::unordered_set<const VarNode*> inner(bound_.begin() + info.bound_mark, bound_.end());
      uses_inner = uses_var(op->body, [&](const VarNode* x) { return inner.count(x) != 0; });
    }
    if (!loop || loop_nest_.size() != info.depth || uses_inner) return mutate(op->body);
    MINITVM_USER_CHECK(!info.loop) << "double_buffer: " << v->name_hint << " has two producers";
    info.loop = loop;
    info.write_var = Var(loop->loop_var->name_hint + ".db", loop->loop_var.dtype());
    Expr two = make_const(loop->loop_var.dtype(), int64_t{2});
    Expr one = make_const(loop->loop_var.dtype(), int64_t{1});
    info.read_half = floormod(loop->loop_var - loop->min, two);
    const VarNode* saved = in_producer_;
    in_producer_ = v;
    Stmt body = mutate(op->body);
    in_producer_ = saved;
    VarMap first{{info.write_var.get(), make_zero(loop->loop_var.dtype())},
                 {loop->loop_var.get(), loop->min}};
    loop_pre_[loop].push_back(substitute(body, first));
    VarMap next{{info.write_var.get(), floormod(loop->loop_var - loop->min + one, two)},
                {loop->loop_var.get(), loop->loop_var + one}};
    Stmt prefetch =
        AttrStmtNode::make(op->node, AttrKind::DoubleBufferWrite, Expr(1), substitute(body, next));
    return IfThenElseNode::make(loop->loop_var + one < loop->min + loop->extent, prefetch);
  }

  Stmt visit(const StoreNode* op, const Stmt& self) override {
    auto it = info_.find(op->buffer_var.get());
    if (it == info_.end() || !it->second.loop) return IRMutator::visit(op, self);
    MINITVM_USER_CHECK(in_producer_ == op->buffer_var.get())
        << "double_buffer: " << op->buffer_var->name_hint << " is written outside its producer";
    Expr value = mutate(op->value);
    Expr index = mutate(op->index);
    Expr pred = op->predicate.defined() ? mutate(op->predicate) : op->predicate;
    return StoreNode::make(op->buffer_var, value,
                           offset_index(index, it->second.write_var * it->second.stride), pred);
  }

  Expr visit(const LoadNode* op, const Expr& self) override {
    auto it = info_.find(op->buffer_var.get());
    if (it == info_.end() || !it->second.loop) return IRMutator::visit(op, self);
    Expr index = mutate(op->index);
    Expr pred = op->predicate.defined() ? mutate(op->predicate) : op->predicate;
    return LoadNode::make(op->dtype, op->buffer_var,
                          offset_index(index, it->second.read_half * it->second.stride), pred);
  }

  Stmt visit(const ForNode* op, const Stmt& self) override {
    loop_nest_.push_back(op);
    loop_bound_mark_.push_back(bound_.size());
    Stmt s = IRMutator::visit(op, self);
    loop_bound_mark_.pop_back();
    loop_nest_.pop_back();
    auto pre = loop_pre_.find(op);
    if (pre != loop_pre_.end()) {
      auto* loop = s.as<ForNode>();
      MINITVM_ICHECK(loop);
      std::vector<Stmt> seq = pre->second;
      if (split_loop_ == 0) {
        seq.push_back(s);
      } else {
        DataType t = loop->loop_var.dtype();
        Expr factor = make_const(t, int64_t{split_loop_});
        Expr steps = loop->extent - make_const(t, int64_t{1});
        Expr outer_ext = simplify(floordiv(steps, factor));
        Expr tail_base = simplify(outer_ext * factor);
        Var outer(loop->loop_var->name_hint + ".outer", t);
        std::vector<Stmt> body;
        for (int i = 0; i < split_loop_; ++i) {
          VarMap vm{{loop->loop_var.get(), loop->min + outer * factor + make_const(t, int64_t{i})}};
          body.push_back(substitute(loop->body, vm));
        }
        seq.push_back(
            ForNode::make(outer, make_zero(t), outer_ext, loop->for_kind, BlockNode::make(body)));
        Stmt tail = StripPrefetch().mutate(loop->body);
        for (int i = 0; i < split_loop_; ++i) {
          Expr idx = tail_base + make_const(t, int64_t{i});
          VarMap vm{{loop->loop_var.get(), loop->min + idx}};
          seq.push_back(IfThenElseNode::make(idx < loop->extent, substitute(tail, vm)));
        }
      }
      s = BlockNode::make(seq);
      loop_pre_.erase(pre);
    }
    auto al = loop_allocs_.find(op);
    if (al != loop_allocs_.end()) {
      for (auto it = al->second.rbegin(); it != al->second.rend(); ++it)
        s = AllocateNode::make(it->var, it->dtype, {it->extent}, it->scope, it->condition, s);
      loop_allocs_.erase(al);
    }
    return s;
  }

 private:
  int split_loop_;
  std::unordered_map<const VarNode*, DbInfo> info_;
  std::vector<const ForNode*> loop_nest_;
  std::vector<const VarNode*> bound_;    ///< let variables in scope
  std::vector<size_t> loop_bound_mark_;  ///< bound_.size() at each loop of loop_nest_
  std::map<const ForNode*, std::vector<Stmt>> loop_pre_;
  std::map<const ForNode*, std::vector<PendingAlloc>> loop_allocs_;
  const VarNode* in_producer_ = nullptr;
};

}  // namespace

Stmt inject_double_buffer(const Stmt& s, int split_loop) {
  MINITVM_USER_CHECK(split_loop >= 0)
      << "inject_double_buffer: double_buffer_split_loop must be >= 0, got " << split_loop;
  DoubleBufferInjector inj(split_loop);
  post_order_visit(s, [&](const Ref<Object>& n) {
    if (auto* a = n.as<AttrStmtNode>(); a && a->attr_kind == AttrKind::DoubleBufferScope)
      if (auto* v = a->node.as<VarNode>()) inj.marked.insert(v);
  });
  if (inj.marked.empty()) return s;
  return inj.mutate(s);
}

}  // namespace minitvm::transform
