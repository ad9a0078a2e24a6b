// thread_sync: barrier insertion for shared memory (see include/minitvm/transform/thread_sync.h).
//
// Two phases. The planner walks the statement tree keeping a stack of "sequences"; leaf
// statements (Store, Evaluate, the value of a LetStmt/AssertStmt) become entries of the innermost
// sequence with the tracked-buffer accesses they make, and a For or IfThenElse becomes one entry of
// the enclosing sequence whose accesses summarise its body. Each sequence is then simulated to
// decide before which entries a barrier goes. The inserter adds the barriers.
#include "minitvm/transform/thread_sync.h"

#include <unordered_set>
#include <vector>

#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::transform {

using namespace ir;

Stmt make_storage_sync(StorageScope scope) {
  return EvaluateNode::make(CallNode::make(DataType::Int(32), Intrinsic::StorageSync,
                                           {StringImmNode::make(storage_scope_name(scope))}));
}

namespace {

struct Access {
  enum Type { Read, Write, Sync } type;
  const VarNode* buffer = nullptr;
  Expr index;
  /** False when the index ranges over an inner loop (or a value bound inside it). */
  bool single_point = true;
  /** A write under a double_buffer_write attribute (inject_double_buffer's prefetch into the other
   *  half): reads later in the same iteration of the enclosing loop do not conflict with it. */
  bool double_buffer_write = false;
};

struct Entry {
  const StmtNode* stmt;
  std::vector<Access> accesses;
};

bool is_sync_of(const Expr& e, StorageScope scope) {
  auto* call = e.as<CallNode>();
  if (!call || call->op != Intrinsic::StorageSync) return false;
  if (call->args.empty()) return scope == StorageScope::Shared;
  auto* s = call->args[0].as<StringImmNode>();
  return s && s->value == storage_scope_name(scope);
}

class SyncPlanner : public IRVisitor {
 public:
  explicit SyncPlanner(StorageScope scope) : scope_(scope) {}

  void plan(const Stmt& body) {
    seqs_.emplace_back();
    visit_stmt(body);
    summarize(seqs_.back(), nullptr);
    seqs_.pop_back();
  }

  std::unordered_set<const StmtNode*> syncs;

 protected:
  void visit(const AllocateNode* op) override {
    if (op->scope == scope_) tracked_.insert(op->buffer_var.get());
    visit_stmt(op->body);
  }

  void visit(const LoadNode* op) override {
    IRVisitor::visit(op);
    if (cur_ && tracked_.count(op->buffer_var.get())) {
      cur_->push_back({Access::Read, op->buffer_var.get(), op->index, true});
    }
  }

  void visit(const StoreNode* op) override {
    Entry e{op, {}};
    collect(e, [&] {
      visit_expr(op->value);
      visit_expr(op->index);
      visit_expr(op->predicate);
    });
    if (tracked_.count(op->buffer_var.get())) {
      e.accesses.push_back({Access::Write, op->buffer_var.get(), op->index, true});
    }
    seqs_.back().push_back(std::move(e));
  }

  void visit(const EvaluateNode* op) override {
    Entry e{op, {}};
    if (is_sync_of(op->value, scope_)) {
      e.accesses.push_back({Access::Sync, nullptr, Expr(), true});
    } else {
      collect(e, [&] { visit_expr(op->value); });
    }
    seqs_.back().push_back(std::move(e));
  }

  void visit(const LetStmtNode* op) override {
    Entry e{op, {}};
    collect(e, [&] { visit_expr(op->value); });
    seqs_.back().push_back(std::move(e));
    visit_stmt(op->body);
  }

  void visit(const AssertStmtNode* op) override {
    Entry e{op, {}};
    collect(e, [&] { visit_expr(op->condition); });
    seqs_.back().push_back(std::move(e));
    visit_stmt(op->body);
  }

  void visit(const AttrStmtNode* op) override {
    if (op->attr_kind != AttrKind::DoubleBufferWrite) {
      IRVisitor::visit(op);
      return;
    }
    // As TVM: the prefetch is one entry whose writes to the buffer are marked.
    auto* buf = op->node.as<VarNode>();
    Entry e{op, {}};
    seqs_.emplace_back();
    visit_stmt(op->body);
    e.accesses = summarize(seqs_.back(), nullptr);
    seqs_.pop_back();
    for (auto& a : e.accesses)
      if (a.type == Access::Write && a.buffer == buf) a.double_buffer_write = true;
    seqs_.back().push_back(std::move(e));
  }

  void visit(const IfThenElseNode* op) override {
    Entry e{op, {}};
    collect(e, [&] { visit_expr(op->condition); });
    ++condition_depth_;
    for (const Stmt* branch : {&op->then_case, &op->else_case}) {
      if (!branch->defined()) continue;
      seqs_.emplace_back();
      visit_stmt(*branch);
      auto summary = summarize(seqs_.back(), nullptr);
      seqs_.pop_back();
      e.accesses.insert(e.accesses.end(), summary.begin(), summary.end());
    }
    --condition_depth_;
    seqs_.back().push_back(std::move(e));
  }

  void visit(const ForNode* op) override {
    Entry e{op, {}};
    collect(e, [&] {
      visit_expr(op->min);
      visit_expr(op->extent);
    });
    seqs_.emplace_back();
    visit_stmt(op->body);
    auto summary = summarize(seqs_.back(), op);
    seqs_.pop_back();
    // Variables that change within the loop: its own and any let bound inside it.
    std::unordered_set<const VarNode*> inner{op->loop_var.get()};
    post_order_visit(op->body, [&](const Ref<Object>& n) {
      if (auto* l = n.as<LetStmtNode>()) inner.insert(l->var.get());
      if (auto* l = n.as<LetNode>()) inner.insert(l->var.get());
    });
    for (auto& a : summary) {
      // The other half is read in the next iteration: after the loop the prefetch is a plain write.
      a.double_buffer_write = false;
      if (a.type != Access::Sync &&
          uses_var(a.index, [&](const VarNode* v) { return inner.count(v) != 0; }))
        a.single_point = false;
    }
    e.accesses.insert(e.accesses.end(), summary.begin(), summary.end());
    seqs_.back().push_back(std::move(e));
  }

 private:
  template <typename F>
  void collect(Entry& e, F&& f) {
    std::vector<Access>* saved = cur_;
    cur_ = &e.accesses;
    f();
    cur_ = saved;
  }

  /** Does `a` conflict with one of `prev`? `loop_var` is set for the loop-carried check. */
  static bool conflicts(const std::vector<Access>& prev, const Access& a, const VarNode* loop_var,
                        const VarNode* body_of) {
    for (const Access& x : prev) {
      if (x.buffer != a.buffer) continue;
      bool same_point = x.single_point && a.single_point && structural_equal(x.index, a.index);
      // Across iterations the same expression names another element if it uses the loop variable.
      if (same_point && loop_var && uses_var(a.index, loop_var)) same_point = false;
      if (same_point) continue;
      // The same store in the previous iteration (a thread filling a buffer element by element,
      // e.g. a cooperative fetch loop): the later write wins in program order, and a write of that
      // element by another thread races with or without a barrier here.
      if (loop_var && x.type == Access::Write && a.type == Access::Write &&
          structural_equal(x.index, a.index))
        continue;
      // Within one iteration the prefetch writes the half that is not read. Only while the
      // iteration is still a loop (`body_of`, whose variable selects the half): once the loop is
      // unrolled or had one iteration, the tail reads what the last prefetch wrote.
      if (x.double_buffer_write && a.type == Access::Read && !loop_var && body_of &&
          uses_var(x.index, body_of))
        continue;
      return true;
    }
    return false;
  }

  static bool needs_sync(const Entry& s, std::vector<Access>& reads, std::vector<Access>& writes,
                         const VarNode* loop_var, const VarNode* body_of = nullptr) {
    for (const Access& a : s.accesses) {
      if (a.type == Access::Read) {
        if (conflicts(writes, a, loop_var, body_of)) return true;
      } else if (a.type == Access::Write) {
        if (conflicts(reads, a, loop_var, body_of) || conflicts(writes, a, loop_var, body_of))
          return true;
      } else {
        reads.clear();
        writes.clear();
      }
    }
    return false;
  }

  void mark(const Entry& s) {
    MINITVM_USER_CHECK(condition_depth_ == 0)
        << "thread_sync: a __syncthreads() would be needed inside a conditional (before a "
           "statement "
           "accessing shared memory under an if); not every thread would reach it. Move the shared "
           "memory traffic out of the condition or guard only the global accesses.";
    syncs.insert(s.stmt);
  }

  /** Decide barriers for one sequence; return its exposed accesses (head, sync, tail). */
  std::vector<Access> summarize(const std::vector<Entry>& seq, const ForNode* loop) {
    std::vector<Access> reads, writes;
    for (const Entry& s : seq) {
      bool sync_before = syncs.count(s.stmt) != 0;
      if (sync_before) {
        reads.clear();
        writes.clear();
      }
      if (!sync_before &&
          needs_sync(s, reads, writes, nullptr, loop ? loop->loop_var.get() : nullptr)) {
        sync_before = true;
        mark(s);
      }
      if (sync_before) {
        reads.clear();
        writes.clear();
      }
      for (const Access& a : s.accesses) {
        if (a.type == Access::Read)
          reads.push_back(a);
        else if (a.type == Access::Write)
          writes.push_back(a);
        else {
          reads.clear();
          writes.clear();
        }
      }
    }
    if (loop) {
      // Back edge: what is unsynchronised at the end of an iteration against the next one's head.
      for (const Entry& s : seq) {
        if (syncs.count(s.stmt) || (reads.empty() && writes.empty())) break;
        if (needs_sync(s, reads, writes, loop->loop_var.get())) {
          mark(s);
          break;
        }
      }
    }
    // Exposed accesses: those before the first barrier, one barrier, those after the last one.
    std::vector<Access> head, tail;
    bool seen_sync = false;
    auto on_sync = [&] {
      if (seen_sync)
        tail.clear();
      else
        head.push_back({Access::Sync, nullptr, Expr(), true});
      seen_sync = true;
    };
    for (const Entry& s : seq) {
      if (syncs.count(s.stmt)) on_sync();
      for (const Access& a : s.accesses) {
        if (a.type == Access::Sync)
          on_sync();
        else
          (seen_sync ? tail : head).push_back(a);
      }
    }
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }

  StorageScope scope_;
  std::vector<std::vector<Entry>> seqs_;
  std::vector<Access>* cur_ = nullptr;
  int condition_depth_ = 0;
  std::unordered_set<const VarNode*> tracked_;
};

class SyncInserter : public IRMutator {
 public:
  SyncInserter(const std::unordered_set<const StmtNode*>& syncs, StorageScope scope)
      : syncs_(syncs), scope_(scope) {}
  using IRMutator::mutate;
  Stmt mutate(const Stmt& s) override {
    Stmt r = IRMutator::mutate(s);
    if (syncs_.count(s.get())) return BlockNode::make({make_storage_sync(scope_), r});
    return r;
  }

 private:
  const std::unordered_set<const StmtNode*>& syncs_;
  StorageScope scope_;
};

}  // namespace

Stmt thread_sync(const Stmt& body, StorageScope scope) {
  if (scope == StorageScope::Warp || scope == StorageScope::Local) return body;
  MINITVM_USER_CHECK(scope == StorageScope::Shared)
      << "thread_sync: only shared-memory synchronisation is supported (global barriers are not)";
  SyncPlanner planner(scope);
  planner.plan(body);
  if (planner.syncs.empty()) return body;
  SyncInserter inserter(planner.syncs, scope);
  return inserter.mutate(body);
}

PrimFunc thread_sync(const PrimFunc& f, StorageScope scope) {
  Stmt body = thread_sync(f->body, scope);
  if (body.same_as(f->body)) return f;
  return f.with_body(body);
}

}  // namespace minitvm::transform
