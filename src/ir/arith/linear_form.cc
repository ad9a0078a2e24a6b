// Linear forms sum(coeff*atom) + base of signed integer expressions, and their canonical rebuild.
#include "ir/arith/arith_internal.h"

namespace minitvm::ir::arith {

void LinearForm::add(const Expr& atom, int64_t coeff) {
  if (coeff == 0) return;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].atom.same_as(atom) || structural_equal(terms[i].atom, atom)) {
      terms[i].coeff += coeff;
      if (terms[i].coeff == 0) terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  terms.push_back({atom, coeff});
}

void LinearForm::add(const LinearForm& o, int64_t scale) {
  for (auto& t : o.terms) add(t.atom, t.coeff * scale);
  base += o.base * scale;
}

namespace {
void decompose(const Expr& e, int64_t scale, LinearForm& f) {
  if (auto* i = e.as<IntImmNode>()) {
    f.base += i->value * scale;
  } else if (auto* add = e.as<AddNode>()) {
    decompose(add->a, scale, f);
    decompose(add->b, scale, f);
  } else if (auto* sub = e.as<SubNode>()) {
    decompose(sub->a, scale, f);
    decompose(sub->b, -scale, f);
  } else if (auto* mul = e.as<MulNode>()) {
    if (auto* c = as_const_int(mul->b)) {
      decompose(mul->a, scale * *c, f);
    } else if (auto* c2 = as_const_int(mul->a)) {
      decompose(mul->b, scale * *c2, f);
    } else {
      f.add(e, scale);
    }
  } else {
    f.add(e, scale);
  }
}
}  // namespace

LinearForm to_linear(const Expr& e) {
  LinearForm f;
  f.dtype = e.dtype();
  if (is_linear_type(f.dtype))
    decompose(e, 1, f);
  else
    f.add(e, 1);
  return f;
}

Expr scaled_atom(const Expr& atom, int64_t coeff) {
  if (coeff == 1) return atom;
  return MulNode::make(atom, make_const(atom.dtype(), coeff));
}

Expr from_linear(const LinearForm& f) {
  Expr res;
  auto plus = [&](const Expr& x) { res = res.defined() ? AddNode::make(res, x) : x; };
  for (auto& t : f.terms) {
    if (t.coeff > 0) plus(scaled_atom(t.atom, t.coeff));
  }
  if (f.base != 0) plus(make_const(f.dtype, f.base));
  for (auto& t : f.terms) {
    if (t.coeff < 0) {
      Expr lhs = res.defined() ? res : make_zero(f.dtype);
      res = SubNode::make(lhs, scaled_atom(t.atom, -t.coeff));
    }
  }
  return res.defined() ? res : make_zero(f.dtype);
}

}  // namespace minitvm::ir::arith
