// Relay-like text form of a graph function.
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "minitvm/relay/expr.h"
#include "minitvm/relay/op.h"

namespace minitvm::relay {

namespace {

std::string attr_value(const Json& v) {
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + attr_value(v[i]);
    return s + "]";
  }
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_number_float()) {
    std::ostringstream os;
    os << v.get<double>() << "f";
    return os.str();
  }
  return v.dump();
}

std::string scalar_text(const runtime::NDArray& a) {
  std::ostringstream os;
  if (a.dtype() == DataType::Float(32))
    os << a.to_vector<float>()[0] << "f";
  else
    os << "<" << a.dtype().str() << " scalar>";
  return os.str();
}

}  // namespace

std::string to_text(const Function& f) {
  std::ostringstream os;
  std::unordered_map<const ExprNode*, std::string> names;
  int next = 0, next_const = 0;
  os << "fn (";
  for (size_t i = 0; i < f.params.size(); ++i) {
    os << (i ? ", " : "") << "%" << f.params[i]->name << ": " << f.params[i]->types[0].str();
    names[f.params[i].get()] = "%" + f.params[i]->name;
  }
  os << ") {\n";
  auto type_text = [](const ExprNode* e) {
    if (!e->tuple_typed) return e->types[0].str();
    std::string s = "(";
    for (size_t i = 0; i < e->types.size(); ++i) s += (i ? ", " : "") + e->types[i].str();
    return s + ")";
  };
  for (const Expr& e : post_order(f.body)) {
    const ExprNode* n = e.get();
    if (names.count(n)) continue;
    switch (n->kind) {
      case ExprKind::Var:
        names[n] = "%" + n->name;
        continue;  // free var (not a parameter)
      case ExprKind::Constant:
        names[n] = n->data.ndim() == 0
                       ? scalar_text(n->data)
                       : "meta[relay.Constant][" + std::to_string(next_const++) + "]";
        continue;
      default:
        break;
    }
    std::string id = "%" + std::to_string(next++);
    os << "  " << id << " = ";
    if (n->kind == ExprKind::Call) {
      os << n->name << "(";
      bool first = true;
      for (auto& a : n->args) {
        os << (first ? "" : ", ") << names.at(a.get());
        first = false;
      }
      for (auto it = n->attrs.begin(); it != n->attrs.end(); ++it) {
        if (it.value().is_string() && it.value().get<std::string>().empty()) continue;
        os << (first ? "" : ", ") << it.key() << "=" << attr_value(it.value());
        first = false;
      }
      os << ")";
    } else if (n->kind == ExprKind::Tuple) {
      os << "(";
      for (size_t i = 0; i < n->args.size(); ++i)
        os << (i ? ", " : "") << names.at(n->args[i].get());
      if (n->args.size() == 1) os << ",";
      os << ")";
    } else {
      os << names.at(n->args[0].get()) << "." << n->index;
    }
    os << " /* ty=" << type_text(n) << " */;\n";
    names[n] = id;
  }
  os << "  " << names.at(f.body.get()) << "\n}\n";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Function& f) {
  return os << to_text(f);
}

}  // namespace minitvm::relay
