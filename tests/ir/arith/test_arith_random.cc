// Randomised check of the simplifier against a direct evaluator: random integer expression trees
// over three small-ranged variables must evaluate to the same value before and after simplify()
// at every point of the ranges; eval_interval must contain every value; can_prove must only prove
// conditions that hold everywhere.
#include <gtest/gtest.h>

#include <random>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::ir {
namespace {

using Env = std::unordered_map<const VarNode*, int64_t>;

int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a % b < 0) != (b < 0))) ? q - 1 : q;
}
int64_t fmod(int64_t a, int64_t b) {
  return a - fdiv(a, b) * b;
}

// A reference evaluator written straight from the node semantics.
int64_t eval(const Expr& e, Env& env) {
  if (auto* i = e.as<IntImmNode>()) return i->value;
  if (auto* v = e.as<VarNode>()) return env.at(v);
  if (auto* n = e.as<AddNode>()) return eval(n->a, env) + eval(n->b, env);
  if (auto* n = e.as<SubNode>()) return eval(n->a, env) - eval(n->b, env);
  if (auto* n = e.as<MulNode>()) return eval(n->a, env) * eval(n->b, env);
  if (auto* n = e.as<DivNode>()) return eval(n->a, env) / eval(n->b, env);
  if (auto* n = e.as<ModNode>()) return eval(n->a, env) % eval(n->b, env);
  if (auto* n = e.as<FloorDivNode>()) return fdiv(eval(n->a, env), eval(n->b, env));
  if (auto* n = e.as<FloorModNode>()) return fmod(eval(n->a, env), eval(n->b, env));
  if (auto* n = e.as<MinNode>()) return std::min(eval(n->a, env), eval(n->b, env));
  if (auto* n = e.as<MaxNode>()) return std::max(eval(n->a, env), eval(n->b, env));
  if (auto* n = e.as<LTNode>()) return eval(n->a, env) < eval(n->b, env);
  if (auto* n = e.as<LENode>()) return eval(n->a, env) <= eval(n->b, env);
  if (auto* n = e.as<GTNode>()) return eval(n->a, env) > eval(n->b, env);
  if (auto* n = e.as<GENode>()) return eval(n->a, env) >= eval(n->b, env);
  if (auto* n = e.as<EQNode>()) return eval(n->a, env) == eval(n->b, env);
  if (auto* n = e.as<NENode>()) return eval(n->a, env) != eval(n->b, env);
  if (auto* n = e.as<AndNode>()) return eval(n->a, env) && eval(n->b, env);
  if (auto* n = e.as<OrNode>()) return eval(n->a, env) || eval(n->b, env);
  if (auto* n = e.as<NotNode>()) return !eval(n->a, env);
  if (auto* n = e.as<SelectNode>())
    return eval(n->condition, env) ? eval(n->true_value, env) : eval(n->false_value, env);
  if (auto* n = e.as<CastNode>()) return eval(n->value, env);
  if (auto* n = e.as<LetNode>()) {
    env[n->var.get()] = eval(n->value, env);
    return eval(n->body, env);
  }
  ADD_FAILURE() << "evaluator: unexpected node in " << e;
  return 0;
}

class Gen {
 public:
  Gen(uint32_t seed, std::vector<Var> vars) : rng_(seed), vars_(std::move(vars)) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t small(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Expr leaf() {
    if (pick(3) == 0) return Expr(static_cast<int>(small(-4, 9)));
    return vars_[pick(static_cast<int>(vars_.size()))];
  }
  Expr expr(int depth) {
    if (depth == 0) return leaf();
    Expr a = expr(depth - 1);
    switch (pick(13)) {
      case 0:
        return a + expr(depth - 1);
      case 1:
        return a - expr(depth - 1);
      case 2:
        return a * Expr(static_cast<int>(small(-3, 8)));
      case 3:
        return a * leaf();
      case 4:
        return floordiv(a, Expr(static_cast<int>(small(1, 9))));
      case 5:
        return floormod(a, Expr(static_cast<int>(small(1, 9))));
      case 6:
        return truncdiv(a, Expr(static_cast<int>(small(1, 9))));
      case 7:
        return truncmod(a, Expr(static_cast<int>(small(1, 9))));
      case 8:
        return min(a, expr(depth - 1));
      case 9:
        return max(a, expr(depth - 1));
      case 10:
        return select(cond(depth - 1), a, expr(depth - 1));
      case 11:
        return floordiv(a, Expr(4)) * 4 + floormod(a, Expr(4));  // split round trip
      default:
        return a + Expr(static_cast<int>(small(-5, 5)));
    }
  }
  Expr cond(int depth) {
    Expr a = expr(depth), b = expr(depth);
    switch (pick(8)) {
      case 0:
        return a < b;
      case 1:
        return a <= b;
      case 2:
        return a > b;
      case 3:
        return a >= b;
      case 4:
        return a == b;
      case 5:
        return a != b;
      case 6:
        return (a < b) && (b < Expr(5));
      default:
        return !(a < b) || (a == Expr(2));
    }
  }

 private:
  std::mt19937 rng_;
  std::vector<Var> vars_;
};

struct Dom {
  std::vector<Var> vars;
  std::vector<std::pair<int64_t, int64_t>> bounds;  // inclusive
  RangeMap ranges() const {
    RangeMap r;
    for (size_t i = 0; i < vars.size(); ++i) {
      r[vars[i].get()] = Range(Expr(static_cast<int>(bounds[i].first)),
                               Expr(static_cast<int>(bounds[i].second - bounds[i].first + 1)));
    }
    return r;
  }
  template <typename F>
  void for_each_point(F f) const {
    Env env;
    std::function<void(size_t)> rec = [&](size_t k) {
      if (k == vars.size()) return f(env);
      for (int64_t v = bounds[k].first; v <= bounds[k].second; ++v) {
        env[vars[k].get()] = v;
        rec(k + 1);
      }
    };
    rec(0);
  }
};

TEST(ArithRandom, SimplifyPreservesValues) {
  Var x("x"), y("y"), z("z");
  Dom dom{{x, y, z}, {{0, 7}, {-3, 4}, {0, 5}}};
  RangeMap ranges = dom.ranges();
  IntervalMap idom;
  for (auto& [v, r] : ranges) idom[v] = IntervalSet::from_range(r);
  Gen gen(20240611, dom.vars);
  int checked = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Expr e = gen.expr(1 + iter % 4);
    for (bool with_ranges : {false, true}) {
      Expr s = simplify(e, with_ranges ? ranges : RangeMap{});
      IntervalSet iv = eval_interval(e, idom);
      const int64_t* lo = iv.min.defined() ? as_const_int(iv.min) : nullptr;
      const int64_t* hi = iv.max.defined() ? as_const_int(iv.max) : nullptr;
      if (!with_ranges) {
        // With constant domains, bounds are constants or absent.
        EXPECT_TRUE(!iv.min.defined() || lo) << e << " min " << iv.min;
        EXPECT_TRUE(!iv.max.defined() || hi) << e << " max " << iv.max;
      }
      bool ok = true;
      dom.for_each_point([&](Env& env) {
        if (!ok) return;
        Env e1 = env, e2 = env;
        int64_t want = eval(e, e1), got = eval(s, e2);
        if (want != got) {
          ok = false;
          ADD_FAILURE() << "value mismatch at x=" << env[x.get()] << " y=" << env[y.get()]
                        << " z=" << env[z.get()] << "\n  original:   " << e << " = " << want
                        << "\n  simplified: " << s << " = " << got
                        << (with_ranges ? " (with ranges)" : "");
        }
        if ((lo && want < *lo) || (hi && want > *hi)) {
          ok = false;
          ADD_FAILURE() << "interval [" << iv.min << ", " << iv.max << "] misses " << want << " of "
                        << e;
        }
      });
      ++checked;
    }
  }
  EXPECT_EQ(checked, 800);
}

TEST(ArithRandom, ConditionsAndProofs) {
  Var x("x"), y("y"), z("z");
  Dom dom{{x, y, z}, {{0, 5}, {-2, 3}, {1, 4}}};
  RangeMap ranges = dom.ranges();
  Gen gen(7, dom.vars);
  int proved = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Expr c = gen.cond(iter % 3);
    Expr s = simplify(c, ranges);
    bool holds = true;
    dom.for_each_point([&](Env& env) {
      Env e1 = env, e2 = env;
      int64_t want = eval(c, e1) != 0, got = eval(s, e2) != 0;
      if (want != got) ADD_FAILURE() << c << " -> " << s << ": " << want << " vs " << got;
      holds = holds && want;
    });
    if (can_prove(c, ranges)) {
      ++proved;
      EXPECT_TRUE(holds) << "proved a false condition: " << c;
    }
    int64_t ub = 0;
    Expr e = gen.expr(2);
    if (const_upper_bound(e, ranges, &ub)) {
      dom.for_each_point([&](Env& env) {
        Env e1 = env;
        int64_t v = eval(e, e1);
        if (v > ub) ADD_FAILURE() << "upper bound " << ub << " of " << e << " exceeded by " << v;
      });
    }
  }
  EXPECT_GT(proved, 0);
}

// Symbolic ranges: z in [x, x + 3) with x in [0, 6).
TEST(ArithRandom, SymbolicRange) {
  Var x("x"), y("y"), z("z");
  RangeMap ranges{{x.get(), Range(0, 6)}, {y.get(), Range(-2, 5)}, {z.get(), Range(x, 3)}};
  Gen gen(99, {x, y, z});
  for (int iter = 0; iter < 200; ++iter) {
    Expr e = iter % 2 ? gen.expr(1 + iter % 3) : Expr(gen.cond(1));
    Expr s = simplify(e, ranges);
    for (int64_t xv = 0; xv < 6; ++xv)
      for (int64_t yv = -2; yv < 3; ++yv)
        for (int64_t zv = xv; zv < xv + 3; ++zv) {
          Env e1{{x.get(), xv}, {y.get(), yv}, {z.get(), zv}}, e2 = e1;
          int64_t want = eval(e, e1), got = eval(s, e2);
          if (want != got) {
            ADD_FAILURE() << e << " -> " << s << " at x=" << xv << " y=" << yv << " z=" << zv;
            goto next;
          }
        }
  next:;
  }
}

}  // namespace
}  // namespace minitvm::ir
