// A hand-edited PoolPlan is checked by build_pool before any dispatch: the wrong value is named,
// and no fallback warning comes first.
#include <gtest/gtest.h>

#include <functional>

#include <minitvm/frontend/pool_plan.h>
#include <minitvm/support/logging.h>
#include <minitvm/topi/pool.h>

using namespace minitvm;

namespace {

topi::PoolPlan valid_plan() {
  frontend::PoolInput in;
  in.shape = {1, 2, 8, 8};
  frontend::MaxPoolParams p;
  p.kernel_size = {2};
  return frontend::plan_max_pool(2, in, p);
}

std::string error_of(const topi::PoolPlan& plan, std::vector<std::string>* warnings) {
  WarningCapture cap;
  std::string msg = "<no error>";
  try {
    topi::lower_pool(plan, "llvm", topi::PoolDirection::Forward);
  } catch (const CompileError& e) {
    msg = e.what();
  }
  *warnings = cap.messages();
  return msg;
}

}  // namespace

TEST(PoolPlanValidation, BadAxisValuesAreNamed) {
  struct Case {
    std::function<void(topi::PoolPlan&)> edit;
    const char* expected;
  };
  std::vector<Case> cases{
      {[](topi::PoolPlan& p) { p.axes[1].stride = 0; }, "max_pool2d: axis 1 stride 0"},
      {[](topi::PoolPlan& p) { p.axes[0].kernel = -2; }, "max_pool2d: axis 0 kernel -2"},
      {[](topi::PoolPlan& p) { p.axes[0].dilation = 0; }, "max_pool2d: axis 0 dilation 0"},
      {[](topi::PoolPlan& p) { p.axes[1].pad_end = -1; }, "max_pool2d: axis 1 padding (0, -1)"},
      {[](topi::PoolPlan& p) { p.axes[0].out = -3; }, "max_pool2d: axis 0 output length -3"},
      {[](topi::PoolPlan& p) { p.channels = -1; }, "max_pool2d: channels -1"},
      {[](topi::PoolPlan& p) { p.axes.clear(); }, "max_pool2d: 0 spatial axes"},
  };
  for (auto& c : cases) {
    topi::PoolPlan plan = valid_plan();
    c.edit(plan);
    std::vector<std::string> warnings;
    std::string msg = error_of(plan, &warnings);
    EXPECT_NE(msg.find(c.expected), std::string::npos)
        << "message: " << msg << "\nmissing: " << c.expected;
    EXPECT_TRUE(warnings.empty()) << "warned first: " << warnings[0];
  }
  std::vector<std::string> warnings;
  EXPECT_EQ(error_of(valid_plan(), &warnings), "<no error>");
}
