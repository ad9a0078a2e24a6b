// Flatten multi-dimensional tensor accesses to one-dimensional buffers.
#include <unordered_map>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
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
  size_t operator()(const Key& k) const { return std::hash<const void*>()(k.first) ^ static_cast<size_t>(k.second); }
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
    MINITVM_ICHECK(!info_.count(key)) << "tensor " << op->op->name << " realized twice or realized and bound";
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
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
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
        << "tensor " << op->name << " is used but is neither an argument of the function nor computed in it; "
        << "pass it in the argument list of lower/build";
    return it->second;
  }
  Expr index(const BufInfo& bi, std::vector<Expr> idx) {
    if (!bi.mins.empty())
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = idx[i] - bi.mins[i];
    return simplify(bi.buf.offset_of(idx));
  }
  std::unordered_map<Key, BufInfo, KeyHash> info_;
};
}  // namespace

Stmt storage_flatten(const Stmt& s, const std::map<std::pair<const OperationNode*, int>, Buffer>& binds) {
  return Flattener(binds).mutate(s);
}

}  // namespace minitvm::transform
