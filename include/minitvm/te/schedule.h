/** \file
 * Schedules: how the computation of each tensor is organised (TVM's `te.Schedule`).
 *
 * A Schedule has one Stage per operation. Primitives on a Stage record relations between iteration
 * variables (split, fuse) and attributes (bind, unroll, vectorize, parallel, pragma, compute_at)
 * and are checked eagerly: misuse raises CompileError naming the stage and axis. Lowering applies
 * them (bound inference, then loop-nest construction).
 */
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/stmt.h"
#include "minitvm/te/tensor.h"

namespace minitvm::te {

/** A relation between iteration variables, recorded by split/fuse. */
struct IterVarRelation {
  enum class Kind { Split, Fuse, Rebase };
  Kind kind;
  IterVar parent, outer, inner;  ///< Split: parent -> (outer, inner); Rebase: parent -> outer
  IterVar fused;                 ///< Fuse: (outer, inner) -> fused
  Expr factor, nparts;           ///< Split: one of them defined
};

/** The four axes of Stage::tile, in loop order; usable with structured bindings
 *  (`auto [xo, yo, xi, yi] = s[C].tile(x, y, 8, 8);`) and by index (`t[0]` is xo). */
struct TileAxes {
  IterVar xo, yo, xi, yi;
  const IterVar& operator[](size_t i) const;
  static constexpr size_t size() { return 4; }
  operator std::vector<IterVar>() const { return {xo, yo, xi, yi}; }
};

/** Per-IterVar annotations. */
struct IterVarAttr {
  ir::ForKind for_kind = ir::ForKind::Serial;
  IterVar bind_thread;  ///< thread axis when bound
  std::vector<std::pair<std::string, Expr>> pragmas;
  /** prefetch(tensor, iv, offset): tensors whose data iteration iv + offset reads is prefetched at
   *  the start of iteration iv (TVM's prefetch_data / prefetch_offset). */
  std::vector<Tensor> prefetch_data;
  std::vector<Expr> prefetch_offset;
};

enum class AttachType { GroupRoot, Inline, Scope, InlinedAlready };

class Schedule;
struct ScheduleNode;

struct StageNode {
  Operation op;         ///< current operation (changes on cache_read/cache_write/inline)
  Operation origin_op;  ///< the operation the user created
  std::vector<IterVar> all_iter_vars;
  std::vector<IterVar> leaf_iter_vars;
  std::vector<IterVarRelation> relations;
  std::map<const ir::IterVarNode*, IterVarAttr> iter_var_attrs;
  AttachType attach_type = AttachType::GroupRoot;
  IterVar attach_ivar;
  std::shared_ptr<StageNode> attach_stage;
  /** Storage scope set by set_scope, cache_read or cache_write; unset: lowering infers it from the
   *  thread axes enclosing the stage (local, shared or global). */
  std::optional<ir::StorageScope> scope;
  Expr store_predicate;  ///< set_store_predicate: guards the stage's stores (undefined: none)
  bool is_output = false;
  bool double_buffer =
      false;  ///< double_buffer(): producer marked with a double_buffer_scope attribute
  ScheduleNode* schedule = nullptr;  ///< owning schedule (non-owning back pointer)
};

/** A stage of a schedule: the primitives users call, as in TVM. */
class Stage {
 public:
  Stage() = default;
  explicit Stage(std::shared_ptr<StageNode> n) : n_(std::move(n)) {}

  /** Split `parent` by `factor` (inner extent). Non-dividing factors are guarded. Returns {outer,
   * inner}. */
  std::pair<IterVar, IterVar> split(IterVar parent, Expr factor);
  /** Split so that the outer axis has `nparts` iterations. */
  std::pair<IterVar, IterVar> split_nparts(IterVar parent, Expr nparts);
  /** TVM's pointer style. */
  Stage& split(IterVar parent, Expr factor, IterVar* outer, IterVar* inner);
  /** tile(x, y, xf, yf) -> {xo, yo, xi, yi}, ordered xo, yo, xi, yi. */
  TileAxes tile(IterVar x, IterVar y, Expr x_factor, Expr y_factor);
  /** Fuse two adjacent axes (outer must come right before inner). */
  IterVar fuse(IterVar outer, IterVar inner);
  IterVar fuse(const std::vector<IterVar>& axes);
  Stage& reorder(const std::vector<IterVar>& order);
  /** Bind `iv` to a thread axis. A reduction axis may be bound to threadIdx.x/y/z: the stage then
   *  becomes a cross-thread reduction (each thread reduces its part, then an all-reduce across the
   *  bound threads, TVM's tvm_thread_allreduce); every thread holds the result unless
   *  set_store_predicate restricts the store. */
  Stage& bind(IterVar iv, IterVar thread);
  Stage& compute_at(Stage parent, IterVar scope);
  Stage& compute_inline();
  Stage& compute_root();
  Stage& unroll(IterVar iv);
  Stage& vectorize(IterVar iv);
  Stage& parallel(IterVar iv);
  Stage& pragma(IterVar iv, const std::string& key, Expr value = Expr(1));
  /** TVM's prefetch(tensor, var, offset): at the start of each iteration of the loop of `var`, hint
   *  the CPU to fetch the part of `tensor` that iteration var + offset reads (its region inferred
   *  from the loop body: inner loops relaxed), one prefetch per cache line. LLVM targets emit
   *  llvm.prefetch (read, high locality); CUDA code generation drops the hint. `var` must be a
   *  loop (not thread-bound, not vectorized) whose body reads `tensor`; offset an integer. */
  Stage& prefetch(const Tensor& tensor, IterVar var, Expr offset);
  /** The stage's storage scope, by name ("global", "shared", "local", "warp"; CompileError for any
   *  other). "global" and "" leave it to lowering to infer, as when set_scope is not called. */
  Stage& set_scope(const std::string& scope);
  /** Store only where `pred` (a boolean expression, typically `thread_x->var == 0`) holds: the
   *  stage's main store (the update of a reduction, the write-back of a cross-thread reduction) is
   *  guarded by it; loops and reduction init are not. As TVM's set_store_predicate. */
  Stage& set_store_predicate(Expr pred);
  /** TVM's double_buffer(): the stage's buffer, allocated inside the loop it is computed at, gets
   * two halves; iteration i reads half i % 2 while the producer prefetches iteration i + 1 into the
   *  other half (inject_double_buffer), so one barrier per iteration suffices. The stage must be
   *  computed at a loop of another stage (not inlined, not an output, not a placeholder). */
  Stage& double_buffer();

  Operation op() const { return n_->op; }
  Operation origin_op() const { return n_->origin_op; }
  const std::vector<IterVar>& leaf_iter_vars() const { return n_->leaf_iter_vars; }
  const std::vector<IterVar>& all_iter_vars() const { return n_->all_iter_vars; }
  StageNode* node() const { return n_.get(); }
  std::shared_ptr<StageNode> ptr() const { return n_; }
  const std::string& name() const { return n_->op.name(); }
  bool defined() const { return static_cast<bool>(n_); }

 private:
  friend class Schedule;
  IterVarAttr& attr(const IterVar& iv);
  void check_leaf(const IterVar& iv, const char* primitive) const;
  std::shared_ptr<StageNode> n_;
};

struct ScheduleNode {
  std::vector<Operation> outputs;
  std::vector<std::shared_ptr<StageNode>> stages;  ///< topological order (producers first)
};

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(std::shared_ptr<ScheduleNode> n) : n_(std::move(n)) {}

  Stage operator[](const Tensor& t) const { return (*this)[t.op()]; }
  Stage operator[](const Operation& op) const;
  /** Insert a copy of `t` in `scope` read by `readers` instead of t. Returns the new tensor. */
  Tensor cache_read(const Tensor& t, const std::string& scope,
                    const std::vector<Operation>& readers);
  /** Compute `t` into a cache in `scope` and copy it out. Returns the cache tensor. */
  Tensor cache_write(const Tensor& t, const std::string& scope);
  /**
   * Factor the reduction `t` over its reduce axis `axis` (a leaf of its stage, made by split/fuse
   * of reduce axes or a reduce axis itself) into a new stage, as TVM's `s.rfactor`:
   *
   *   C[i] = sum(A[i, k], k); ko, ki = s[C].split(k, 16); CF = s.rfactor(C, ki)
   *   => CF[ki, i] = sum(A[i, ko*16 + ki], ko)   (guarded when 16 does not divide k's extent)
   *      C[i]      = sum(CF[ki.v, i], ki.v)
   *
   * `axis` becomes a data-parallel axis of the new tensor, inserted at position `factor_axis` of
   * its shape (negative counts from the end, -1 = last). The other reduce leaves connected to
   * `axis` by split/fuse become the new stage's reduce axes; unrelated reduce axes (with their
   * splits) move to the new stage unchanged. The stage of `t` keeps its data-parallel axes and
   * attributes and gets one reduce axis `<axis>.v` over the factored one; its other loop structure
   * is reset (call rfactor before scheduling the rest of the stage). Returns one tensor per output
   * of the reduction (tuple reducers give several). Misuse raises CompileError.
   */
  std::vector<Tensor> rfactor(const Tensor& t, const IterVar& axis, int factor_axis = 0);

  const std::vector<std::shared_ptr<StageNode>>& stages() const { return n_->stages; }
  const std::vector<Operation>& outputs() const { return n_->outputs; }
  /** The stage of an operation (current or origin), or nullptr. */
  std::shared_ptr<StageNode> find_stage(const Operation& op) const;
  ScheduleNode* node() const { return n_.get(); }

 private:
  std::shared_ptr<ScheduleNode> n_;
};

/** A schedule for computing `outputs`, with every op in the graph as a root stage. */
Schedule create_schedule(const std::vector<Operation>& outputs);
inline Schedule create_schedule(std::initializer_list<Operation> outputs) {
  return create_schedule(std::vector<Operation>(outputs));
}

/** "blockIdx.x" -> (rank 0, dim 0); "threadIdx.y" -> (1, 1); "vthread" -> (1, -1); else (-1,-1). */
std::pair<int, int> thread_scope_of(const std::string& tag);

}  // namespace minitvm::te
