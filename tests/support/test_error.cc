#include <gtest/gtest.h>

#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

using namespace minitvm;

TEST(Error, UserCheckThrowsCompileErrorWithMessage) {
  try {
    int axis = 3;
    MINITVM_USER_CHECK(axis < 2) << "stage C: axis " << axis << " out of range";
    FAIL() << "no throw";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "stage C: axis 3 out of range");
  }
}

TEST(Error, InternalCheckNamesLocation) {
  try {
    MINITVM_ICHECK(1 == 2) << "oops";
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("compiler bug"), std::string::npos);
    EXPECT_NE(m.find("test_error.cc"), std::string::npos);
    EXPECT_NE(m.find("oops"), std::string::npos);
  }
}

TEST(Error, InvalidConfigIsACompileError) {
  EXPECT_THROW({ MINITVM_CONFIG_CHECK(false) << "bad"; }, CompileError);
  EXPECT_NO_THROW({ MINITVM_USER_CHECK(true) << "never"; });
}

TEST(Logging, CaptureCollectsWarnings) {
  WarningCapture cap;
  log_warning("a");
  log_warning("b");
  ASSERT_EQ(cap.messages().size(), 2u);
  EXPECT_EQ(cap.messages()[1], "b");
}
