// bind_params: Vars named in the params map become Constants (TVM BindParamsByName).
#include "minitvm/relay/transform.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

Function bind_params(const Function& f, const Params& params) {
  std::vector<Expr> keep;
  std::unordered_map<const ExprNode*, Expr> bound;
  for (auto& p : f.params) {
    auto it = params.find(p->name);
    if (it == params.end()) {
      keep.push_back(p);
      continue;
    }
    TensorType t{it->second.shape(), it->second.dtype()};
    MINITVM_USER_CHECK(t == p->types[0])
        << "bind_params: param '" << p->name << "' is " << t.str() << " but the function's %"
        << p->name << " is " << p->types[0].str();
    bound[p.get()] = constant(it->second);
  }
  for (auto& [name, v] : params)
    MINITVM_USER_CHECK(f.param(name) != nullptr)
        << "bind_params: '" << name << "' is not a parameter of the function";
  if (bound.empty()) return f;
  Function g = detail::rewrite(f, [&](const Expr& orig, const Expr& e) {
    auto it = bound.find(orig.get());
    return it == bound.end() ? e : it->second;
  });
  // A bound Var that is the body itself.
  return Function(keep, g.body);
}

}  // namespace minitvm::relay::transform
