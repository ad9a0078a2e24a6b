// Graph IR nodes, constructors, traversal.
#include "minitvm/relay/expr.h"

#include <functional>
#include <sstream>
#include <unordered_set>

#include "minitvm/support/error.h"

namespace minitvm::relay {

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorType::nbytes() const {
  return numel() * ((dtype.bits() * dtype.lanes() + 7) / 8);
}

std::string TensorType::str() const {
  std::ostringstream os;
  os << "Tensor[(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) os << ",";
  os << "), " << dtype.str() << "]";
  return os.str();
}

const TensorType& ExprNode::type() const {
  MINITVM_USER_CHECK(!tuple_typed && types.size() == 1)
      << (kind == ExprKind::Call ? name : std::string("expression")) << ": a tuple ("
      << types.size()
      << " fields) is used where a tensor is expected; take a field with TupleGetItem";
  return types[0];
}

Expr var(const std::string& name, const TensorType& type) {
  MINITVM_USER_CHECK(!name.empty()) << "relay::var: empty name";
  for (int64_t d : type.shape)
    MINITVM_USER_CHECK(d >= 0) << "relay::var " << name << ": negative dimension " << d;
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Var;
  n->name = name;
  n->types = {type};
  return n;
}

Expr constant(const runtime::NDArray& value) {
  MINITVM_USER_CHECK(value.defined()) << "relay::constant: undefined NDArray";
  MINITVM_USER_CHECK(value.device().is_cpu()) << "relay::constant: the array must be on the CPU";
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Constant;
  n->data = value.is_contiguous() ? value : value.contiguous();
  n->types = {TensorType{value.shape(), value.dtype()}};
  return n;
}

Expr tuple(const std::vector<Expr>& fields) {
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Tuple;
  n->tuple_typed = true;
  for (auto& f : fields) {
    MINITVM_USER_CHECK(f != nullptr) << "relay::tuple: null field";
    n->types.push_back(f->type());
    n->args.push_back(f);
  }
  return n;
}

Expr tuple_get_item(const Expr& t, int index) {
  MINITVM_USER_CHECK(t != nullptr) << "relay::tuple_get_item: null tuple";
  MINITVM_USER_CHECK(t->tuple_typed)
      << "TupleGetItem(" << index << "): the argument is a tensor, not a tuple";
  MINITVM_USER_CHECK(index >= 0 && index < static_cast<int>(t->types.size()))
      << "TupleGetItem: index " << index << " out of range for a " << t->types.size()
      << "-field tuple"
      << (t->kind == ExprKind::Call ? " (output of " + t->name + ")" : std::string());
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::TupleGetItem;
  n->args = {t};
  n->index = index;
  n->types = {t->types[index]};
  return n;
}

Expr Function::param(const std::string& name) const {
  for (auto& p : params)
    if (p->name == name) return p;
  return nullptr;
}

std::vector<Expr> post_order(const Expr& body) {
  std::vector<Expr> order;
  std::unordered_set<const ExprNode*> seen;
  // Iterative DFS (networks are deep).
  std::vector<std::pair<Expr, size_t>> stack;
  if (body) stack.push_back({body, 0});
  seen.insert(body.get());
  while (!stack.empty()) {
    auto& [e, i] = stack.back();
    if (i < e->args.size()) {
      Expr a = e->args[i++];
      if (seen.insert(a.get()).second) stack.push_back({a, 0});
    } else {
      order.push_back(e);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace minitvm::relay
