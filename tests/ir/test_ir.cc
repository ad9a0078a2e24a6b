// IR basics: dtypes, operator type rules and folding, printing, structural equality, reducers.
#include <gtest/gtest.h>

#include <cmath>

#include "minitvm/ir/ir_util.h"

using namespace minitvm;
using namespace minitvm::ir;

TEST(DataType, NamesRoundTrip) {
  for (auto t :
       {DataType::Float(32), DataType::Float(16), DataType::Int(32), DataType::Int(64),
        DataType::UInt(8), DataType::Bool(), DataType::Float(32, 4), DataType::BFloat(16)}) {
    EXPECT_EQ(DataType::parse(t.str()), t) << t.str();
  }
  EXPECT_EQ(DataType::Float(32, 4).str(), "float32x4");
  EXPECT_EQ(DataType::Bool().str(), "bool");
  EXPECT_EQ(DataType::Float(16).bytes(), 2);
  EXPECT_THROW(DataType::parse("floaty"), CompileError);
}

TEST(Operators, LiteralTakesOtherOperandType) {
  Var x("x", DataType::Float(16));
  EXPECT_EQ((x * 2.0f).dtype(), DataType::Float(16));
  Var i("i");
  EXPECT_EQ((i + 1).dtype(), DataType::Int(32));
  Var l("l", DataType::Int(64));
  EXPECT_EQ((l + 1).dtype(), DataType::Int(64));
  // int expression with a float literal promotes to float32, as TVM does
  EXPECT_EQ((i * 0.5f).dtype(), DataType::Float(32));
  // mixed int widths widen
  EXPECT_EQ((i + l).dtype(), DataType::Int(64));
}

TEST(Operators, ConstantFolding) {
  EXPECT_TRUE(is_const_int(Expr(3) + Expr(4), 7));
  EXPECT_TRUE(is_const_int(floordiv(Expr(-7), Expr(2)), -4));
  EXPECT_TRUE(is_const_int(floormod(Expr(-7), Expr(2)), 1));
  EXPECT_TRUE(is_const_int(truncdiv(Expr(-7), Expr(2)), -3));
  EXPECT_TRUE(is_const_int(truncmod(Expr(-7), Expr(2)), -1));
  Var x("x");
  EXPECT_TRUE((x + 0).same_as(x));
  EXPECT_TRUE((x * 1).same_as(x));
  EXPECT_THROW(floordiv(x, Expr(0)), CompileError);
}

TEST(Printer, TvmStyle) {
  Var i("i"), j("j");
  EXPECT_EQ(to_string((i * 4) + j), "((i*4) + j)");
  EXPECT_EQ(to_string(floordiv(i, 8)), "floordiv(i, 8)");
  EXPECT_EQ(to_string(max(i, j)), "max(i, j)");
  EXPECT_EQ(to_string(Expr(2.0f)), "2f");
  EXPECT_EQ(to_string(Expr(0.5f)), "0.5f");
  EXPECT_EQ(to_string(make_const(DataType::Int(64), int64_t{5})), "(int64)5");
  EXPECT_EQ(to_string(cast(DataType::Float(32), i)), "float32(i)");
  EXPECT_EQ(to_string(select(i < j, i, j)), "select((i < j), i, j)");
  Var buf = Var::buffer("A", DataType::Float(32));
  Stmt s =
      ForNode::make(i, 0, 16, ForKind::Serial,
                    StoreNode::make(buf, LoadNode::make(DataType::Float(32), buf, i) * 2.0f, i));
  EXPECT_EQ(to_string(s), "for (i, 0, 16) {\n  A[i] = (A[i]*2f)\n}\n");
  Stmt v = ForNode::make(i, 0, 4, ForKind::Vectorized, make_nop());
  EXPECT_NE(to_string(v).find("vectorized (i, 0, 4)"), std::string::npos);
}

TEST(StructuralEqual, IdentityAndAlpha) {
  Var x("x"), y("y");
  EXPECT_TRUE(structural_equal(x + 1, x + 1));
  EXPECT_FALSE(structural_equal(x + 1, y + 1));
  EXPECT_TRUE(structural_equal(x + 1, y + 1, /*map_free_vars=*/true));
  EXPECT_FALSE(structural_equal(x + 1, x + 2));
  Var b = Var::buffer("B", DataType::Float(32));
  Stmt s1 = ForNode::make(x, 0, 8, ForKind::Serial, StoreNode::make(b, Expr(1.0f), x));
  Stmt s2 = ForNode::make(y, 0, 8, ForKind::Serial, StoreNode::make(b, Expr(1.0f), y));
  EXPECT_FALSE(structural_equal(s1, s2));
  EXPECT_TRUE(structural_equal(s1, s2, true));
}

TEST(Reducers, IdentitiesUseInfinityForFloats) {
  auto mx = max_reducer(DataType::Float(32));
  auto* f = mx->identity[0].as<FloatImmNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(std::isinf(f->value) && f->value < 0);
  auto mn = min_reducer(DataType::Float(64));
  EXPECT_TRUE(std::isinf(mn->identity[0].as<FloatImmNode>()->value));
  auto mi = max_reducer(DataType::Int(32));
  EXPECT_TRUE(is_const_int(mi->identity[0], INT32_MIN));
  EXPECT_TRUE(is_const_int(sum_reducer(DataType::Int(32))->identity[0], 0));
  EXPECT_TRUE(is_const_int(prod_reducer(DataType::Int(32))->identity[0], 1));
}

TEST(Mutator, UnchangedReturnsSameObject) {
  Var x("x");
  Expr e = (x + 1) * 2;
  class Nothing : public IRMutator {};
  Nothing m;
  EXPECT_TRUE(m.mutate(e).same_as(e));
  EXPECT_TRUE(substitute(e, {}).same_as(e));
  Expr r = substitute(e, VarMap{{x.get(), Expr(3)}});
  EXPECT_EQ(to_string(r), "((3 + 1)*2)");
}
