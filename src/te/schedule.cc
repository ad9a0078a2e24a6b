// Schedule construction and primitives; everything here records relations and checks them eagerly.
#include "minitvm/te/schedule.h"

#include "minitvm/ir/arith.h"
#include "te/schedule_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

namespace minitvm::te {

using namespace ir;

namespace {
std::string iv_name(const IterVar& iv) {
  return iv.defined() ? iv->var->name_hint : "<undefined>";
}

IterVar derived_iter_var(const IterVar& parent, const std::string& suffix) {
  return IterVar(Range(), Var(parent->var->name_hint + suffix, parent->var.dtype()),
                 parent->iter_type);
}

}  // namespace

namespace detail {
std::shared_ptr<StageNode> make_stage(const Operation& op) {
  auto s = std::make_shared<StageNode>();
  s->op = op;
  s->origin_op = op;
  for (auto& iv : op.axis()) s->all_iter_vars.push_back(iv);
  for (auto& iv : op.reduce_axis()) s->all_iter_vars.push_back(iv);
  s->leaf_iter_vars = s->all_iter_vars;
  return s;
}
std::vector<IterVar> root_vars(const StagePtr& s) {
  std::vector<IterVar> r = s->op.axis();
  for (auto& iv : s->op.reduce_axis()) r.push_back(iv);
  return r;
}
const IterVarAttr* attr_of(const StagePtr& s, const IterVar& iv) {
  auto it = s->iter_var_attrs.find(iv.get());
  return it == s->iter_var_attrs.end() ? nullptr : &it->second;
}
IterVar bound_thread(const StagePtr& s, const IterVar& iv) {
  auto* a = attr_of(s, iv);
  return a ? a->bind_thread : IterVar();
}
bool is_live(const StagePtr& s) {
  return s->op.op_type() == OpType::Compute && s->attach_type != AttachType::InlinedAlready &&
         s->attach_type != AttachType::Inline;
}
bool is_cross_thread(const StagePtr& s) {
  for (auto& lv : s->leaf_iter_vars)
    if (lv->iter_type == IterVarType::CommReduce && bound_thread(s, lv).defined()) return true;
  return false;
}
std::vector<std::pair<StagePtr, IterVar>> enclosing_loops(const StagePtr& s) {
  std::vector<std::pair<StagePtr, IterVar>> out;
  StagePtr cur = s;
  while (cur && cur->attach_type == AttachType::Scope) {
    StagePtr parent = cur->attach_stage;
    std::vector<std::pair<StagePtr, IterVar>> part;
    for (auto& iv : parent->leaf_iter_vars) {
      part.push_back({parent, iv});
      if (iv.same_as(cur->attach_ivar)) break;
    }
    out.insert(out.begin(), part.begin(), part.end());
    cur = parent;
  }
  return out;
}

}  // namespace detail
using detail::make_stage;

std::pair<int, int> thread_scope_of(const std::string& tag) {
  if (tag.rfind("blockIdx.", 0) == 0) return {0, tag.back() - 'x'};
  if (tag.rfind("threadIdx.", 0) == 0) return {1, tag.back() - 'x'};
  if (tag == "vthread" || tag == "cthread") return {1, -1};
  return {-1, -1};
}

// ---- Stage primitives
// -----------------------------------------------------------------------------
void Stage::check_leaf(const IterVar& iv, const char* primitive) const {
  MINITVM_USER_CHECK(iv.defined())
      << "In schedule for " << name() << ": " << primitive << " got an undefined axis";
  auto& leaves = n_->leaf_iter_vars;
  bool leaf =
      std::any_of(leaves.begin(), leaves.end(), [&](const IterVar& x) { return x.same_as(iv); });
  if (leaf) return;
  bool known = std::any_of(n_->all_iter_vars.begin(), n_->all_iter_vars.end(),
                           [&](const IterVar& x) { return x.same_as(iv); });
  if (known) {
    MINITVM_USER_ERROR << "In schedule for " << name() << ": cannot " << primitive << " axis `"
                       << iv_name(iv)
                       << "`: it was already split or fused (it is not a leaf axis of the stage)";
  }
  MINITVM_USER_ERROR << "In schedule for " << name() << ": cannot " << primitive << " axis `"
                     << iv_name(iv) << "`: it does not belong to this stage";
}

IterVarAttr& Stage::attr(const IterVar& iv) {
  return n_->iter_var_attrs[iv.get()];
}

static void replace_leaf(std::vector<IterVar>& leaves, const IterVar& old,
                         std::vector<IterVar> repl) {
  auto it =
      std::find_if(leaves.begin(), leaves.end(), [&](const IterVar& x) { return x.same_as(old); });
  it = leaves.erase(it);
  leaves.insert(it, repl.begin(), repl.end());
}

static void check_positive(const std::string& stage, const IterVar& iv, const Expr& v,
                           const char* what) {
  MINITVM_USER_CHECK(v.defined() && v.dtype().is_integral())
      << "In schedule for " << stage << ": split of `" << iv_name(iv) << "` needs an integer "
      << what;
  if (auto* c = as_const_int(v))
    MINITVM_USER_CHECK(*c > 0) << "In schedule for " << stage << ": cannot split `" << iv_name(iv)
                               << "` with " << what << " " << *c << " (must be positive)";
}

std::pair<IterVar, IterVar> Stage::split(IterVar parent, Expr factor) {
  check_leaf(parent, "split");
  check_positive(name(), parent, factor, "factor");
  IterVar outer = derived_iter_var(parent, ".outer"), inner = derived_iter_var(parent, ".inner");
  n_->relations.push_back(
      {IterVarRelation::Kind::Split, parent, outer, inner, IterVar(), factor, Expr()});
  n_->all_iter_vars.push_back(outer);
  n_->all_iter_vars.push_back(inner);
  replace_leaf(n_->leaf_iter_vars, parent, {outer, inner});
  return {outer, inner};
}
std::pair<IterVar, IterVar> Stage::split_nparts(IterVar parent, Expr nparts) {
  check_leaf(parent, "split");
  check_positive(name(), parent, nparts, "nparts");
  IterVar outer = derived_iter_var(parent, ".outer"), inner = derived_iter_var(parent, ".inner");
  n_->relations.push_back(
      {IterVarRelation::Kind::Split, parent, outer, inner, IterVar(), Expr(), nparts});
  n_->all_iter_vars.push_back(outer);
  n_->all_iter_vars.push_back(inner);
  replace_leaf(n_->leaf_iter_vars, parent, {outer, inner});
  return {outer, inner};
}
Stage& Stage::split(IterVar parent, Expr factor, IterVar* outer, IterVar* inner) {
  auto [o, i] = split(parent, factor);
  if (outer) *outer = o;
  if (inner) *inner = i;
  return *this;
}
TileAxes Stage::tile(IterVar x, IterVar y, Expr xf, Expr yf) {
  auto [xo, xi] = split(x, xf);
  auto [yo, yi] = split(y, yf);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

const IterVar& TileAxes::operator[](size_t i) const {
  MINITVM_USER_CHECK(i < 4) << "tile() returns 4 axes (xo, yo, xi, yi); index " << i
                            << " is out of range";
  return i == 0 ? xo : i == 1 ? yo : i == 2 ? xi : yi;
}

IterVar Stage::fuse(IterVar outer, IterVar inner) {
  check_leaf(outer, "fuse");
  check_leaf(inner, "fuse");
  MINITVM_USER_CHECK(!outer.same_as(inner))
      << "In schedule for " << name() << ": cannot fuse `" << iv_name(outer) << "` with itself";
  bool outer_red = outer->iter_type == IterVarType::CommReduce,
       inner_red = inner->iter_type == IterVarType::CommReduce;
  MINITVM_USER_CHECK(outer_red == inner_red)
      << "In schedule for " << name() << ": cannot fuse reduction axis `"
      << iv_name(outer_red ? outer : inner) << "` with data-parallel axis `"
      << iv_name(outer_red ? inner : outer) << "`";
  auto& leaves = n_->leaf_iter_vars;
  auto pos = [&](const IterVar& v) {
    return std::find_if(leaves.begin(), leaves.end(),
                        [&](const IterVar& x) { return x.same_as(v); }) -
           leaves.begin();
  };
  MINITVM_USER_CHECK(pos(inner) == pos(outer) + 1)
      << "In schedule for " << name() << ": cannot fuse `" << iv_name(outer) << "` and `"
      << iv_name(inner) << "`: they must be adjacent leaf axes with the outer one first";
  IterVar fused(
      Range(),
      Var(outer->var->name_hint + "." + inner->var->name_hint + ".fused", outer->var.dtype()),
      outer->iter_type);
  n_->relations.push_back(
      {IterVarRelation::Kind::Fuse, IterVar(), outer, inner, fused, Expr(), Expr()});
  n_->all_iter_vars.push_back(fused);
  leaves.erase(leaves.begin() + pos(inner));
  replace_leaf(leaves, outer, {fused});
  return fused;
}
IterVar Stage::fuse(const std::vector<IterVar>& axes) {
  MINITVM_USER_CHECK(!axes.empty())
      << "In schedule for " << name() << ": fuse needs at least one axis";
  IterVar f = axes[0];
  for (size_t i = 1; i < axes.size(); ++i) f = fuse(f, axes[i]);
  return f;
}

Stage& Stage::reorder(const std::vector<IterVar>& order) {
  std::set<const IterVarNode*> seen;
  for (auto& iv : order) {
    check_leaf(iv, "reorder");
    MINITVM_USER_CHECK(seen.insert(iv.get()).second)
        << "In schedule for " << name() << ": reorder lists axis `" << iv_name(iv) << "` twice";
  }
  auto& leaves = n_->leaf_iter_vars;
  std::vector<size_t> positions;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (seen.count(leaves[i].get())) positions.push_back(i);
  for (size_t k = 0; k < positions.size(); ++k) leaves[positions[k]] = order[k];
  return *this;
}

Stage& Stage::bind(IterVar iv, IterVar thread) {
  check_leaf(iv, "bind");
  MINITVM_USER_CHECK(thread.defined() && thread->iter_type == IterVarType::ThreadIndex)
      << "In schedule for " << name() << ": bind of `" << iv_name(iv)
      << "` needs a thread axis made by te::thread_axis(\"blockIdx.x\"...)";
  auto [thread_rank, thread_dim] = thread_scope_of(thread->thread_tag);
  MINITVM_USER_CHECK(iv->iter_type != IterVarType::CommReduce ||
                     (thread_rank == 1 && thread_dim >= 0))
      << "In schedule for " << name() << ": cannot bind reduction axis `" << iv_name(iv) << "` to "
      << thread->thread_tag << ": a reduction can only be spread over the threads of a block "
      << "(threadIdx.x/y/z; cross-thread reduction)";
  for (auto& [node, a] : n_->iter_var_attrs) {
    if (node == iv.get() || !a.bind_thread.defined()) continue;
    if (a.bind_thread->thread_tag == thread->thread_tag && thread->thread_tag != "vthread" &&
        thread->thread_tag != "cthread")
      MINITVM_USER_ERROR << "In schedule for " << name() << ": cannot bind `" << iv_name(iv)
                         << "` to " << thread->thread_tag << ": axis `" << node->var->name_hint
                         << "` is already bound to it";
  }
  attr(iv).bind_thread = thread;
  return *this;
}

Stage& Stage::compute_at(Stage parent, IterVar scope) {
  MINITVM_USER_CHECK(parent.defined())
      << "In schedule for " << name() << ": compute_at needs a stage";
  MINITVM_USER_CHECK(parent.n_ != n_)
      << "In schedule for " << name() << ": cannot compute_at itself";
  MINITVM_USER_CHECK(!n_->is_output)
      << "In schedule for " << name()
      << ": cannot compute_at an output stage (it is written to an argument buffer)";
  // The parent must read this stage, directly or through stages that will be inlined or that live
  // inside the parent's loops: attached ones, or "local"/"shared" caches (TVM's GPU recipe computes
  // A.shared at C.local's reduction axis and C.local reads it through A.local, usually attached
  // later). A path through a root stage in global memory is rejected.
  std::set<const OperationNode*> visited;
  std::function<bool(const Operation&)> reads = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return false;
    for (auto& t : op.input_tensors()) {
      if (t.op().same_as(n_->op)) return true;
      if (n_->schedule) {
        for (auto& st : n_->schedule->stages)
          if (st->op.same_as(t.op()) &&
              (st->attach_type == AttachType::Inline || st->attach_type == AttachType::Scope ||
               st->scope.has_value()) &&
              reads(st->op))
            return true;
      }
    }
    return false;
  };
  bool consumes = reads(parent.op());
  MINITVM_USER_CHECK(consumes) << "In schedule for " << name() << ": cannot compute_at stage "
                               << parent.name() << " at `" << iv_name(scope)
                               << "`: " << parent.name() << " does not read " << name();
  parent.check_leaf(scope, "compute_at at");
  n_->attach_type = AttachType::Scope;
  n_->attach_ivar = scope;
  n_->attach_stage = parent.n_;
  return *this;
}
Stage& Stage::compute_inline() {
  MINITVM_USER_CHECK(n_->op.op_type() == OpType::Compute)
      << "In schedule for " << name() << ": cannot inline a placeholder";
  MINITVM_USER_CHECK(!n_->is_output)
      << "In schedule for " << name() << ": cannot inline an output stage";
  MINITVM_USER_CHECK(n_->op.reduce_axis().empty())
      << "In schedule for " << name() << ": cannot inline a reduction (axis `"
      << iv_name(n_->op.reduce_axis()[0]) << "`)";
  n_->attach_type = AttachType::Inline;
  return *this;
}
Stage& Stage::compute_root() {
  n_->attach_type = AttachType::GroupRoot;
  n_->attach_stage.reset();
  n_->attach_ivar = IterVar();
  return *this;
}
Stage& Stage::unroll(IterVar iv) {
  check_leaf(iv, "unroll");
  attr(iv).for_kind = ForKind::Unrolled;
  return *this;
}
Stage& Stage::vectorize(IterVar iv) {
  check_leaf(iv, "vectorize");
  MINITVM_USER_CHECK(iv->iter_type != IterVarType::CommReduce)
      << "In schedule for " << name() << ": cannot vectorize reduction axis `" << iv_name(iv)
      << "`";
  attr(iv).for_kind = ForKind::Vectorized;
  return *this;
}
Stage& Stage::parallel(IterVar iv) {
  check_leaf(iv, "parallel");
  MINITVM_USER_CHECK(iv->iter_type != IterVarType::CommReduce)
      << "In schedule for " << name() << ": cannot parallelize reduction axis `" << iv_name(iv)
      << "`";
  attr(iv).for_kind = ForKind::Parallel;
  return *this;
}
Stage& Stage::pragma(IterVar iv, const std::string& key, Expr value) {
  check_leaf(iv, "pragma");
  MINITVM_USER_CHECK(!key.empty()) << "In schedule for " << name() << ": empty pragma key";
  attr(iv).pragmas.emplace_back(key, value);
  return *this;
}
Stage& Stage::prefetch(const Tensor& tensor, IterVar var, Expr offset) {
  check_leaf(var, "prefetch");
  MINITVM_USER_CHECK(tensor.defined())
      << "In schedule for " << name() << ": prefetch of an undefined tensor";
  MINITVM_USER_CHECK(offset.defined() && offset.dtype().is_int() && offset.dtype().is_scalar())
      << "In schedule for " << name() << ": prefetch offset must be an integer expression";
  auto& a = attr(var);
  a.prefetch_data.push_back(tensor);
  a.prefetch_offset.push_back(offset);
  return *this;
}
Stage& Stage::set_scope(const std::string& scope) {
  // parse_storage_scope raises CompileError for an unknown name; "" and "global" leave the scope
  // unset (inferred at lowering).
  std::optional<StorageScope> parsed;
  if (!scope.empty()) parsed = parse_storage_scope(scope);
  if (parsed == StorageScope::Global) parsed.reset();
  n_->scope = parsed;
  return *this;
}

Stage& Stage::set_store_predicate(Expr pred) {
  MINITVM_USER_CHECK(pred.defined())
      << "In schedule for " << name()
      << ": set_store_predicate needs a boolean expression such as thread_x->var == 0";
  MINITVM_USER_CHECK(pred.dtype().is_bool() && pred.dtype().is_scalar())
      << "In schedule for " << name() << ": set_store_predicate needs a boolean expression such as "
      << "thread_x->var == 0, got " << pred << " of type " << pred.dtype();
  n_->store_predicate = pred;
  return *this;
}

Stage& Stage::double_buffer() {
  MINITVM_USER_CHECK(n_->op.op_type() == OpType::Compute)
      << "In schedule for " << name()
      << ": double_buffer needs a computed stage (a placeholder has no buffer)";
  MINITVM_USER_CHECK(!n_->is_output)
      << "In schedule for " << name()
      << ": cannot double_buffer an output stage (its buffer is the argument)";
  MINITVM_USER_CHECK(n_->attach_type != AttachType::Inline &&
                     n_->attach_type != AttachType::InlinedAlready)
      << "In schedule for " << name()
      << ": cannot double_buffer an inlined stage (it has no buffer)";
  MINITVM_USER_CHECK(n_->op.num_outputs() == 1)
      << "In schedule for " << name() << ": double_buffer of a multi-output stage is not supported";
  n_->double_buffer = true;
  return *this;
}

// ---- Schedule
// ---------------------------------------------------------------------------------------
Schedule create_schedule(const std::vector<Operation>& outputs) {
  auto n = std::make_shared<ScheduleNode>();
  n->outputs = outputs;
  std::set<const OperationNode*> visited;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return;
    for (auto& t : op.input_tensors()) visit(t.op());
    n->stages.push_back(make_stage(op));
  };
  for (auto& op : outputs) {
    MINITVM_USER_CHECK(op.defined()) << "create_schedule: undefined output operation";
    visit(op);
  }
  for (auto& s : n->stages) s->schedule = n.get();
  for (auto& s : n->stages)
    for (auto& op : outputs)
      if (s->op.same_as(op)) s->is_output = true;
  return Schedule(n);
}

std::shared_ptr<StageNode> Schedule::find_stage(const Operation& op) const {
  for (auto& s : n_->stages)
    if (s->op.same_as(op)) return s;
  for (auto& s : n_->stages)
    if (s->origin_op.same_as(op)) return s;
  return nullptr;
}
Stage Schedule::operator[](const Operation& op) const {
  auto s = find_stage(op);
  MINITVM_USER_CHECK(s) << "operation " << (op.defined() ? op.name() : "<undefined>")
                        << " is not part of this schedule";
  return Stage(s);
}

namespace {
/** Rewrite ProducerLoad reads through `vmap` (op -> replacement tensor op). */
class ReadReplacer : public IRMutator {
 public:
  explicit ReadReplacer(const std::unordered_map<const OperationNode*, Operation>& m) : m_(m) {}
  using IRMutator::mutate;

 protected:
  Expr visit(const ProducerLoadNode* op, const Expr& self) override {
    Expr r = IRMutator::visit(op, self);
    auto it = m_.find(op->op.get());
    if (it == m_.end()) return r;
    auto* p = r.as<ProducerLoadNode>();
    return ProducerLoadNode::make(p->dtype, it->second, p->value_index, p->indices);
  }

 private:
  const std::unordered_map<const OperationNode*, Operation>& m_;
};

Operation rewrite_op_reads(const Operation& op,
                           const std::unordered_map<const OperationNode*, Operation>& m) {
  auto* c = op.as<ComputeOpNode>();
  if (!c) return op;
  ReadReplacer rr(m);
  bool changed = false;
  std::vector<Expr> body;
  for (auto& b : c->body) {
    body.push_back(rr.mutate(b));
    changed |= !body.back().same_as(b);
  }
  if (!changed) return op;
  return make_compute_op(c->name, c->tag, c->axis, body);  // same axes: user handles stay valid
}

}  // namespace

/** Replace reads in every stage (in topological order), cascading new ops to their consumers.
 *  Stages in `only` (if non-empty) are the only ones rewritten for the initial map. */
void detail::replace_dataflow(ScheduleNode* sch,
                              const std::unordered_map<const OperationNode*, Operation>& initial,
                              const std::set<const OperationNode*>& readers) {
  // `initial` applies only to the chosen readers; ops those rewrites create cascade to everyone.
  std::unordered_map<const OperationNode*, Operation> cascade;
  for (auto& s : sch->stages) {
    std::unordered_map<const OperationNode*, Operation> m = cascade;
    if (readers.count(s->op.get())) m.insert(initial.begin(), initial.end());
    Operation nop = rewrite_op_reads(s->op, m);
    if (!nop.same_as(s->op)) {
      cascade[s->op.get()] = nop;
      s->op = nop;
    }
  }
}
using detail::replace_dataflow;

Tensor Schedule::cache_read(const Tensor& t, const std::string& scope,
                            const std::vector<Operation>& readers) {
  const StorageScope cache_scope = parse_storage_scope(scope);
  auto src_stage = find_stage(t.op());
  MINITVM_USER_CHECK(src_stage) << "cache_read: tensor " << t.name()
                                << " is not part of this schedule";
  MINITVM_USER_CHECK(!readers.empty()) << "cache_read of " << t.name() << ": no readers given";
  Tensor cur = src_stage->op.output(t.value_index());
  std::vector<Expr> shape = cur.shape();
  Tensor cache = compute(shape, FCompute([&](const std::vector<Var>& i) {
                           return cur.read(std::vector<Expr>(i.begin(), i.end()));
                         }),
                         cur.name() + "." + scope);
  std::set<const OperationNode*> reader_ops;
  for (auto& r : readers) {
    auto rs = find_stage(r);
    MINITVM_USER_CHECK(rs) << "cache_read of " << t.name() << ": reader " << r.name()
                           << " is not in the schedule";
    bool reads = false;
    for (auto& in : rs->op.input_tensors()) reads |= in.op().same_as(cur.op());
    MINITVM_USER_CHECK(reads) << "cache_read of " << t.name() << ": " << r.name()
                              << " does not read " << t.name();
    reader_ops.insert(rs->op.get());
  }
  std::unordered_map<const OperationNode*, Operation> m{{cur.op().get(), cache.op()}};
  replace_dataflow(n_.get(), m, reader_ops);
  // Insert the cache stage right after the source stage.
  auto cs = make_stage(cache.op());
  cs->scope = cache_scope;
  cs->schedule = n_.get();
  auto pos = std::find(n_->stages.begin(), n_->stages.end(), src_stage);
  n_->stages.insert(pos + 1, cs);
  return cache;
}

Tensor Schedule::cache_write(const Tensor& t, const std::string& scope) {
  const StorageScope cache_scope = parse_storage_scope(scope);
  auto st = find_stage(t.op());
  MINITVM_USER_CHECK(st) << "cache_write: tensor " << t.name() << " is not part of this schedule";
  auto* c = st->op.as<ComputeOpNode>();
  MINITVM_USER_CHECK(c) << "cache_write: " << t.name() << " is not a compute";
  MINITVM_USER_CHECK(st->relations.empty())
      << "cache_write of " << t.name() << ": must be called before the stage is split or fused";
  // The cache op gets fresh axes; its body is the original body with axes substituted.
  std::vector<IterVar> axes;
  VarMap vmap;
  for (auto& iv : c->axis) {
    IterVar n(iv->dom, Var(iv->var->name_hint + ".c", iv->var.dtype()), iv->iter_type);
    vmap[iv->var.get()] = n->var;
    axes.push_back(n);
  }
  std::vector<IterVar> raxes;
  for (auto& iv : c->reduce_axis) {
    IterVar n(iv->dom, Var(iv->var->name_hint, iv->var.dtype()), iv->iter_type);
    vmap[iv->var.get()] = n->var;
    raxes.push_back(n);
  }
  std::vector<Expr> body;
  for (auto& b : c->body) {
    if (auto* r = b.as<ReduceNode>()) {
      std::vector<Expr> src;
      for (auto& s : r->source) src.push_back(substitute(s, vmap));
      body.push_back(ReduceNode::make(r->combiner, src, raxes, substitute(r->condition, vmap),
                                      r->value_index));
    } else {
      body.push_back(substitute(b, vmap));
    }
  }
  Operation cache_op = make_compute_op(c->name + "." + scope, c->tag, axes, body);
  // The original op now copies from the cache, keeping its axes (so user handles stay valid).
  std::vector<Expr> copy_body;
  std::vector<Expr> idx;
  for (auto& iv : c->axis) idx.push_back(iv->var);
  for (int i = 0; i < cache_op.num_outputs(); ++i)
    copy_body.push_back(cache_op.output(i).read(idx));
  Operation new_op = make_compute_op(c->name, c->tag, c->axis, copy_body);
  std::unordered_map<const OperationNode*, Operation> m{{st->op.get(), new_op}};
  Operation old = st->op;
  st->op = new_op;
  st->all_iter_vars = c->axis;
  st->leaf_iter_vars = c->axis;
  st->iter_var_attrs.clear();
  // Consumers of the original op now read the new op.
  for (auto& s : n_->stages) {
    if (s == st) continue;
    Operation nop = rewrite_op_reads(s->op, m);
    if (!nop.same_as(s->op)) {
      m[s->op.get()] = nop;
      s->op = nop;
    }
  }
  auto cs = make_stage(cache_op);
  cs->scope = cache_scope;
  cs->schedule = n_.get();
  auto pos = std::find(n_->stages.begin(), n_->stages.end(), st);
  n_->stages.insert(pos, cs);
  (void)old;
  return cache_op.output(0);
}

}  // namespace minitvm::te
