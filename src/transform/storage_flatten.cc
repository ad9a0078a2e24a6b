// Flatten multi-dimensional tensor accesses to one-dimensional buffers.
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/support/logging.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {
struct BufInfo {
  Buffer buf;
  std::vector<Expr> mins;  ///< realize mins subtracted from indices
};
using Key = std::pair<const OperationNode*, int>;
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.first) ^ static_cast<size_t>(k.second);
  }
};

class Flattener : public IRMutator {
 public:
  explicit Flattener(const std::map<Key, Buffer>& binds) {
    for (auto& [k, b] : binds) info_[k] = {b, {}};
  }
  using IRMutator::mutate;

 protected:
  Stmt visit(const RealizeNode* op, const Stmt& self) override {
    Key key{op->op.get(), op->value_index};
    MINITVM_ICHECK(!info_.count(key))
        << "tensor " << op->op->name << " realized twice or realized and bound";
    std::vector<Expr> shape, mins;
    for (auto& r : op->bounds) {
      shape.push_back(r.extent());
      mins.push_back(r.min());
    }
    std::string name = op->op->name;
    if (op->op->num_outputs() > 1) name += ".v" + std::to_string(op->value_index);
    Buffer b = Buffer::make(name, op->dtype, shape, op->scope);
    info_[key] = {b, mins};
    Stmt body = mutate(op->body);
    info_.erase(key);
    // One flat extent, as TVM prints it: allocate B[float32 * 16].
    Expr size = make_const(DataType::Int(32), int64_t{1});
    for (auto& e : shape) size = size * e;
    return AllocateNode::make(b->data, op->dtype, {simplify(size)}, op->scope, Expr(), body);
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    loops_.push_back(op);
    Stmt r = IRMutator::visit(op, self);
    loops_.pop_back();
    return r;
  }
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind == AttrKind::PrefetchScope) return prefetch(op);
    if (op->attr_kind != AttrKind::DoubleBufferScope) return IRMutator::visit(op, self);
    auto* o = op->node.as<OperationNode>();
    if (!o) return IRMutator::visit(op, self);
    // The attribute names the buffer from now on (TVM keeps it on the allocation's variable).
    Var buf = lookup(o, 0).buf->data;
    return AttrStmtNode::make(buf, op->attr_kind, op->value, mutate(op->body), op->pragma_key);
  }
  Stmt visit(const ProvideNode* op, const Stmt& self) override {
    Expr value = mutate(op->value);
    bool changed = false;
    auto args = mutate_all(op->args, &changed);
    auto& bi = lookup(op->op.get(), op->value_index);
    return StoreNode::make(bi.buf->data, value, index(bi, args));
  }
  Expr visit(const ProducerLoadNode* op, const Expr& self) override {
    bool changed = false;
    auto idx = mutate_all(op->indices, &changed);
    auto& bi = lookup(op->op.get(), op->value_index);
    return LoadNode::make(op->dtype, bi.buf->data, index(bi, idx));
  }

 private:
  BufInfo& lookup(const OperationNode* op, int vi) {
    auto it = info_.find({op, vi});
    MINITVM_USER_CHECK(it != info_.end())
        << "tensor " << op->name
        << " is used but is neither an argument of the function nor computed in it; "
        << "pass it in the argument list of lower/build";
    return it->second;
  }
  Expr index(const BufInfo& bi, std::vector<Expr> idx) {
    if (!bi.mins.empty())
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = idx[i] - bi.mins[i];
    return simplify(bi.buf.offset_of(idx));
  }
  /** Stage::prefetch: the region of the tensor that the body of the enclosing loop reads at
   *  iteration loop_var + offset (inner loops relaxed to their ranges, enclosing vectorized loops
   *  too, as TVM's inject_prefetch), then one prefetch(address_of(...)) per cache line of it, in
   *  front of the (flattened) body. Trailing dimensions the region covers whole are merged into one
   *  contiguous run; addresses are clamped to the buffer. */
  Stmt prefetch(const AttrStmtNode* op) {
    auto* o = op->node.as<OperationNode>();
    MINITVM_ICHECK(o) << "prefetch_scope without an operation";
    int vi = std::stoi(op->pragma_key);
    MINITVM_ICHECK(!loops_.empty()) << "prefetch_scope of " << o->name << " outside a loop";
    const ForNode* loop = loops_.back();
    const std::string where = "prefetch of " + o->name + " at loop " + loop->loop_var->name_hint;

    // Loads of the tensor in the body, the body's loop ranges and its other variables.
    struct Collector : public IRVisitor {
      const OperationNode* op;
      int vi;
      std::vector<const ProducerLoadNode*> loads;
      IntervalMap inner;
      std::unordered_set<const VarNode*> defined;  // let-bound in the body: not usable outside it
      void visit(const ProducerLoadNode* l) override {
        if (l->op.get() == op && l->value_index == vi) loads.push_back(l);
        IRVisitor::visit(l);
      }
      void visit(const ForNode* f) override {
        inner[f->loop_var.get()] = IntervalSet{f->min, simplify(f->min + f->extent - 1)};
        IRVisitor::visit(f);
      }
      void visit(const LetStmtNode* l) override {
        defined.insert(l->var.get());
        IRVisitor::visit(l);
      }
      void visit(const LetNode* l) override {
        defined.insert(l->var.get());
        IRVisitor::visit(l);
      }
    } c;
    c.op = o;
    c.vi = vi;
    c.visit_stmt(op->body);
    MINITVM_USER_CHECK(!c.loads.empty()) << where << ": the loop body does not read " << o->name;
    IntervalMap dom = c.inner;
    for (auto* l : loops_)
      if (l->for_kind == ForKind::Vectorized)
        dom[l->loop_var.get()] = IntervalSet{l->min, simplify(l->min + l->extent - 1)};
    dom[loop->loop_var.get()] = IntervalSet::point(loop->loop_var + op->value);
    size_t ndim = c.loads[0]->indices.size();
    std::vector<IntervalSet> region(ndim);
    for (size_t k = 0; k < c.loads.size(); ++k)
      for (size_t i = 0; i < ndim; ++i) {
        IntervalSet r = eval_interval(c.loads[k]->indices[i], dom);
        region[i] = k == 0 ? r : interval_union(region[i], r);
      }
    auto inner_var = [&](const VarNode* v) {
      return c.defined.count(v) > 0 || c.inner.count(v) > 0;
    };
    for (size_t i = 0; i < ndim; ++i)
      if (!region[i].is_bounded() || uses_var(region[i].min, inner_var) ||
          uses_var(region[i].max, inner_var)) {
        // As TVM: a hint that cannot be placed is dropped, with a warning.
        std::ostringstream os;
        os << where << ": cannot bound the region read in dimension " << i << " (index "
           << c.loads[0]->indices[i] << "); no prefetch emitted";
        log_warning(os.str());
        return mutate(op->body);
      }

    BufInfo& bi = lookup(o, vi);
    const Buffer& buf = bi.buf;
    std::vector<Expr> mins, exts;
    for (size_t i = 0; i < ndim; ++i) {
      mins.push_back(simplify(region[i].min));
      exts.push_back(simplify(region[i].max - region[i].min + 1));
    }
    // Merge trailing dimensions that the region covers whole (min = realize min, extent = shape).
    size_t k = ndim - 1;
    Expr run = exts[k];
    while (k > 0) {
      Expr lo = bi.mins.empty() ? make_zero(mins[k].dtype()) : bi.mins[k];
      if (!can_prove(mins[k] == lo) || !can_prove(exts[k] == buf->shape[k])) break;
      --k;
      run = simplify(exts[k] * run);
    }
    DataType it = DataType::Int(32);
    std::vector<Var> vars;
    std::vector<Expr> idx;
    for (size_t i = 0; i < ndim; ++i) {
      if (i < k) {
        vars.emplace_back("prefetch.i" + std::to_string(i), it);
        idx.push_back(mins[i] + vars.back());
      } else if (i == k) {
        idx.push_back(mins[i]);
      } else {
        idx.push_back(bi.mins.empty() ? make_zero(it) : bi.mins[i]);
      }
    }
    Expr start = index(bi, idx);
    Expr size = make_const(start.dtype(), int64_t{1});
    for (auto& e : buf->shape) size = size * e;
    int64_t per_line = std::max<int64_t>(1, 64 / std::max(1, buf->dtype.bytes()));
    // The run's start is clamped once so that the whole run lies in the buffer (the iterations
    // near the loop's end prefetch the buffer's end instead); then lines 0 .. ceil(run / per_line),
    // the last one being the run's last element (for an unaligned start).
    run = simplify(min(run, size));
    Expr base = simplify(max(min(start, size - run), make_zero(start.dtype())));
    Var line("prefetch.line", it), pbase("prefetch.base", base.dtype());
    Expr lines = simplify(floordiv(run + (per_line - 1), make_const(run.dtype(), per_line)) + 1);
    Expr addr = pbase + simplify(min(line * make_const(it, per_line), run - 1));
    Expr call = CallNode::make(DataType::Int(32), Intrinsic::Prefetch,
                               {CallNode::make(DataType::Handle(), Intrinsic::AddressOf,
                                               {LoadNode::make(buf->dtype, buf->data, addr)}),
                                make_const(it, 0), make_const(it, 3), make_const(it, 1)});
    Stmt pf = LetStmtNode::make(
        pbase, base,
        ForNode::make(line, make_zero(it), lines, ForKind::Serial, EvaluateNode::make(call)));
    for (size_t i = vars.size(); i-- > 0;)
      pf = ForNode::make(vars[i], make_zero(it), exts[i], ForKind::Serial, pf);
    return BlockNode::make({pf, mutate(op->body)});
  }

  std::unordered_map<Key, BufInfo, KeyHash> info_;
  std::vector<const ForNode*> loops_;  ///< enclosing loops, innermost last
};
}  // namespace

Stmt storage_flatten(const Stmt& s,
                     const std::map<std::pair<const OperationNode*, int>, Buffer>& binds) {
  return Flattener(binds).mutate(s);
}

}  // namespace minitvm::transform
