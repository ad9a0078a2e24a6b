/** \file
 * The one list of IR node types. The NodeKind enum, the visitor and mutator declarations and
 * dispatch, the printer and structural equality are all generated from these lists, so adding a
 * node breaks the build everywhere it must be handled.
 */
#pragma once

#define MINITVM_FOR_EACH_EXPR(X) \
  X(IntImm)                      \
  X(FloatImm)                    \
  X(StringImm)                   \
  X(Cast)                        \
  X(Var)                         \
  X(Add)                         \
  X(Sub)                         \
  X(Mul)                         \
  X(Div)                         \
  X(Mod)                         \
  X(FloorDiv)                    \
  X(FloorMod)                    \
  X(Min)                         \
  X(Max)                         \
  X(EQ)                          \
  X(NE)                          \
  X(LT)                          \
  X(LE)                          \
  X(GT)                          \
  X(GE)                          \
  X(And)                         \
  X(Or)                          \
  X(Not)                         \
  X(Select)                      \
  X(Load)                        \
  X(Ramp)                        \
  X(Broadcast)                   \
  X(Let)                         \
  X(Call)                        \
  X(Reduce)                      \
  X(ProducerLoad)

#define MINITVM_FOR_EACH_STMT(X) \
  X(LetStmt)                     \
  X(AttrStmt)                    \
  X(AssertStmt)                  \
  X(Store)                       \
  X(Provide)                     \
  X(Allocate)                    \
  X(Realize)                     \
  X(ProducerConsumer)            \
  X(Block)                       \
  X(IfThenElse)                  \
  X(Evaluate)                    \
  X(For)

/** The binary arithmetic/comparison/logical nodes, which share one layout (a, b). */
#define MINITVM_FOR_EACH_BINARY(X)                                                               \
  X(Add)                                                                                         \
  X(Sub)                                                                                         \
  X(Mul) X(Div) X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) \
      X(And) X(Or)
