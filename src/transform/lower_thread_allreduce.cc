// lower_thread_allreduce: tvm_thread_allreduce -> shared memory, barriers and a tree reduction
// (TVM's LowerThreadAllreduce, shared-memory path; see include/minitvm/transform/passes.h).
//
// For values v_i reduced across the threads `reduce_set` of a block (the threadIdx axes of the
// call), with the other enclosing threadIdx axes forming independent groups:
//
//   red_buf_i[group * R + r] = v_i                    (r: flattened reduce thread index, R threads)
//   __syncthreads()
//   if (r < R - A) red_buf_i[g*R + r] = op(red_buf_i[g*R + r], red_buf_i[g*R + r + A])   (A: the
//   __syncthreads()                                     largest power of two below R, if R is not
//   one) for off = A/2, A/4, ..., 1:
//     if (r < off) red_buf_i[g*R + r] = op(red_buf_i[g*R + r], red_buf_i[g*R + r + off])
//     __syncthreads()
//   result_i[0] = red_buf_i[g*R]                        (every thread of the group)
//
// Every step ends with a block barrier (no warp-synchronous steps: those race without __syncwarp
// on Volta and later, and the emulator reports them). A step of a reducer with several values reads
// into registers, synchronises, then writes, so that no thread overwrites a value another thread
// of the same step still reads. A barrier before the first store, needed when the buffer was read
// before (the allreduce inside a loop), is left to thread_sync, which sees the loop-carried access.
#include <algorithm>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/passes.h"
#include "minitvm/transform/thread_sync.h"

namespace minitvm::transform {

using namespace ir;

namespace {

struct ThreadEntry {
  IterVar iv;
  int dim;
  int64_t extent;
};

class AllreduceLowerer : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind == AttrKind::ThreadExtent) {
      bool outermost = thread_attrs_.empty();
      if (outermost) collect_kernel_threads(self);
      thread_attrs_.push_back(op);
      Stmt r = IRMutator::visit(op, self);
      thread_attrs_.pop_back();
      if (outermost) kernel_threads_.clear();
      return r;
    }
    if (op->attr_kind == AttrKind::ReduceScope) {
      auto* comb = op->node.as<CommReducerNode>();
      MINITVM_ICHECK(comb) << "reduce_scope attribute without a comm_reducer";
      reducers_.push_back(comb);
      Stmt body = mutate(op->body);
      reducers_.pop_back();
      return body;
    }
    return IRMutator::visit(op, self);
  }

  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    conditions_.push_back(op->condition);
    Stmt r = IRMutator::visit(op, self);
    conditions_.pop_back();
    return r;
  }

  Stmt visit(const EvaluateNode* op, const Stmt& self) override {
    auto* call = op->value.as<CallNode>();
    if (!call || call->op != Intrinsic::ThreadAllreduce) return IRMutator::visit(op, self);
    return lower(call);
  }

 private:
  /** threadIdx axes bound anywhere in the kernel rooted at `kernel`. */
  void collect_kernel_threads(const Stmt& kernel) {
    post_order_visit(kernel, [&](const Ref<Object>& n) {
      auto* a = n.as<AttrStmtNode>();
      if (!a || a->attr_kind != AttrKind::ThreadExtent) return;
      if (auto* iv = a->node.as<IterVarNode>()) kernel_threads_.push_back(iv);
    });
  }

  Stmt lower(const CallNode* call) {
    MINITVM_ICHECK(!reducers_.empty()) << "tvm_thread_allreduce outside a reduce_scope attribute";
    const CommReducerNode* comb = reducers_.back();
    const size_t size = comb->result.size();
    const int64_t* nargs = as_const_int(call->args.at(0));
    MINITVM_ICHECK(nargs && static_cast<size_t>(*nargs) == size &&
                   call->args.size() >= 2 + 2 * size)
        << "malformed tvm_thread_allreduce";
    Expr cond = call->args[size + 1];
    std::vector<Expr> values;
    std::vector<DataType> types;
    std::vector<Var> results;
    for (size_t i = 0; i < size; ++i) {
      Expr v = call->args[1 + i];
      if (!is_one(cond)) v = if_then_else(cond, v, comb->identity[i]);
      values.push_back(v);
      types.push_back(v.dtype());
      auto* buf = call->args[2 + size + i].as<VarNode>();
      MINITVM_ICHECK(buf) << "tvm_thread_allreduce: result buffer is not a variable";
      results.push_back(Var(Ref<VarNode>(buf)));
    }
    std::vector<const VarNode*> reduce_set;
    for (size_t i = 2 + 2 * size; i < call->args.size(); ++i) {
      auto* v = call->args[i].as<VarNode>();
      MINITVM_ICHECK(v) << "tvm_thread_allreduce: reduce thread is not a variable";
      reduce_set.push_back(v);
    }

    // Threads of the enclosing thread_extent attributes: reduced, or groups reduced separately.
    std::vector<ThreadEntry> vred, vpar;
    std::string red_names;
    for (const AttrStmtNode* a : thread_attrs_) {
      auto* ivn = a->node.as<IterVarNode>();
      auto [rank, dim] = te::thread_scope_of(ivn->thread_tag);
      if (rank != 1) continue;
      MINITVM_USER_CHECK(dim >= 0) << "cross-thread reduction inside virtual thread '"
                                   << ivn->thread_tag << "' is not supported";
      bool reduced =
          std::find(reduce_set.begin(), reduce_set.end(), ivn->var.get()) != reduce_set.end();
      const int64_t* ext = as_const_int(a->value);
      MINITVM_USER_CHECK(ext) << "cross-thread reduction needs a constant extent for "
                              << ivn->thread_tag << ", got " << a->value;
      IterVar iv{Ref<IterVarNode>(ivn)};
      (reduced ? vred : vpar).push_back({iv, dim, *ext});
      if (reduced) red_names += (red_names.empty() ? "" : ", ") + ivn->thread_tag;
    }
    MINITVM_ICHECK(vred.size() == reduce_set.size())
        << "tvm_thread_allreduce: a reduce thread is not bound around the call";
    // Threads of the kernel that do not enclose the call would all run it on the same buffer slots.
    for (const IterVarNode* k : kernel_threads_) {
      if (te::thread_scope_of(k->thread_tag).first != 1) continue;
      bool enclosing = std::any_of(vred.begin(), vred.end(),
                                   [&](auto& e) { return e.iv->thread_tag == k->thread_tag; }) ||
                       std::any_of(vpar.begin(), vpar.end(),
                                   [&](auto& e) { return e.iv->thread_tag == k->thread_tag; });
      MINITVM_USER_CHECK(enclosing)
          << "cross-thread reduction over " << red_names << ": the kernel also binds "
          << k->thread_tag
          << " elsewhere, but not around the reduction, so its threads would reduce into the same "
             "shared-memory slots; bind "
          << k->thread_tag << " to an axis that encloses the reduction";
    }
    // Barriers must be reached by every thread of the block.
    for (const Expr& c : conditions_) {
      bool divergent = uses_var(c, [&](const VarNode* v) {
        return std::any_of(
            kernel_threads_.begin(), kernel_threads_.end(), [&](const IterVarNode* k) {
              return k->var.get() == v && te::thread_scope_of(k->thread_tag).first == 1;
            });
      });
      MINITVM_USER_CHECK(!divergent)
          << "cross-thread reduction over " << red_names
          << " is inside a condition on the thread index (" << c
          << "); its barriers must be reached by every thread of the block";
    }
    auto by_dim = [](const ThreadEntry& a, const ThreadEntry& b) { return a.dim < b.dim; };
    std::sort(vred.begin(), vred.end(), by_dim);
    std::sort(vpar.begin(), vpar.end(), by_dim);
    int64_t reduce_extent = 1, group_extent = 1;
    Expr reduce_index = flatten(vred, &reduce_extent), group_index = flatten(vpar, &group_extent);

    const Expr zero = make_zero(DataType::Int(32));
    if (reduce_extent == 1) {
      std::vector<Stmt> stores;
      for (size_t i = 0; i < size; ++i)
        stores.push_back(StoreNode::make(results[i], values[i], zero));
      return BlockNode::make(stores);
    }
    std::vector<Var> bufs;
    for (size_t i = 0; i < size; ++i)
      bufs.push_back(Var::buffer("red_buf" + std::to_string(i), types[i]));
    auto index = [&](Expr r) {
      return simplify(group_index * make_const(DataType::Int(32), reduce_extent) + r);
    };
    const Expr my = index(reduce_index);
    std::vector<Stmt> seq;
    for (size_t i = 0; i < size; ++i) seq.push_back(StoreNode::make(bufs[i], values[i], my));
    seq.push_back(make_storage_sync(StorageScope::Shared));
    // One step: threads with r < active combine their slot with slot r + offset.
    auto step = [&](int64_t active, int64_t offset) {
      Expr cond = reduce_index < make_const(DataType::Int(32), active);
      std::vector<Expr> a, b;
      for (size_t i = 0; i < size; ++i) {
        a.push_back(LoadNode::make(types[i], bufs[i], my));
        b.push_back(LoadNode::make(types[i], bufs[i],
                                   index(reduce_index + make_const(DataType::Int(32), offset))));
      }
      std::vector<Expr> r = comb->combine(a, b);
      if (size == 1) {
        seq.push_back(IfThenElseNode::make(cond, StoreNode::make(bufs[0], r[0], my)));
        seq.push_back(make_storage_sync(StorageScope::Shared));
        return;
      }
      std::vector<Stmt> save, store;
      for (size_t i = 0; i < size; ++i) {
        Var reg = step_regs_.at(i);
        save.push_back(StoreNode::make(reg, r[i], zero));
        store.push_back(StoreNode::make(bufs[i], LoadNode::make(types[i], reg, zero), my));
      }
      seq.push_back(IfThenElseNode::make(cond, BlockNode::make(save)));
      seq.push_back(make_storage_sync(StorageScope::Shared));
      seq.push_back(IfThenElseNode::make(cond, BlockNode::make(store)));
      seq.push_back(make_storage_sync(StorageScope::Shared));
    };
    step_regs_.clear();
    if (size > 1)
      for (size_t i = 0; i < size; ++i)
        step_regs_.push_back(Var::buffer("red_step" + std::to_string(i), types[i]));
    int64_t align = 1;
    while (align < reduce_extent) align <<= 1;
    if (align > reduce_extent) {
      align >>= 1;
      step(reduce_extent - align, align);
    }
    while (align > 1) {
      align >>= 1;
      step(align, align);
    }
    for (size_t i = 0; i < size; ++i)
      seq.push_back(
          StoreNode::make(results[i], LoadNode::make(types[i], bufs[i], index(zero)), zero));
    Stmt body = BlockNode::make(seq);
    for (size_t i = size; i-- > 0;) {
      body = AllocateNode::make(bufs[i], types[i],
                                {make_const(DataType::Int(32), group_extent * reduce_extent)},
                                StorageScope::Shared, Expr(), body);
      if (size > 1)
        body =
            AllocateNode::make(step_regs_[i], types[i], {make_const(DataType::Int(32), int64_t{1})},
                               StorageScope::Local, Expr(), body);
    }
    return body;
  }

  /** threadIdx.x + threadIdx.y * ext_x + ... over the entries (sorted by dimension). */
  static Expr flatten(const std::vector<ThreadEntry>& v, int64_t* total) {
    *total = 1;
    Expr r;
    for (auto& e : v) {
      Expr t = e.iv->var;
      r = r.defined() ? r + t * make_const(DataType::Int(32), *total) : t;
      *total *= e.extent;
    }
    return r.defined() ? r : make_zero(DataType::Int(32));
  }

  std::vector<const AttrStmtNode*> thread_attrs_;
  std::vector<const IterVarNode*> kernel_threads_;
  std::vector<const CommReducerNode*> reducers_;
  std::vector<Expr> conditions_;
  std::vector<Var> step_regs_;
};

}  // namespace

Stmt lower_thread_allreduce(const Stmt& s) {
  return AllreduceLowerer().mutate(s);
}

}  // namespace minitvm::transform
