// Resuming a tuning log whose last line was cut by a killed run (log_to_file).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner.h"
#include "minitvm/autotune/tuner_log.h"
#include "minitvm/support/logging.h"

namespace {

using namespace minitvm;
namespace at = minitvm::autotune;
namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::string> r;
  std::string l;
  while (std::getline(f, l)) r.push_back(l);
  return r;
}

// A run killed mid-write leaves the log's last line without its newline. Resuming used to append
// the next record onto it: two records in one unreadable line. Now the cut line is kept, reported
// with file:line, and the next record starts on a line of its own.
TEST(TuneLog, AppendAfterACutLastLineStartsANewLine) {
  at::Task task("matmul.llvm", at::Json::array({16, 16, 16}), "llvm");
  ASSERT_GE(task.config_space().size(), 3);
  at::MeasureResult ok;
  ok.costs = {1e-4};
  ok.timestamp = 1.0;
  std::string first = at::encode_record(at::make_record(task, task.config_space().get(0), ok));
  std::string second = at::encode_record(at::make_record(task, task.config_space().get(1), ok));
  std::string cut = second.substr(0, second.size() / 2);
  std::string path = testing::TempDir() + "/cut_last_line.log";
  { std::ofstream(path, std::ios::binary) << first << "\n" << cut; }

  WarningCapture warnings;
  auto tuner = at::make_tuner("random", task.config_space(), 0);
  auto log = at::log_to_file(task, path);
  at::MeasureOutcome o;
  o.config = task.config_space().get(2);
  o.result = ok;
  log(*tuner, {o});

  std::string third = at::encode_record(at::make_record(task, o.config, ok));
  EXPECT_EQ(lines_of(path), (std::vector<std::string>{first, cut, third}));
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find(path + ":2:"), std::string::npos) << warnings.messages()[0];

  // Reading it back: both whole records, the cut line skipped with its line number.
  at::LoadReport rep;
  at::LoadOptions lo;
  lo.check_index = false;
  auto recs = at::load_records(path, lo, &rep);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[1].input.config.index, 2);
  ASSERT_EQ(rep.skipped.size(), 1u);
  EXPECT_EQ(rep.skipped[0].line, 2);
  // A log that ends with its newline gets no blank line and no warning.
  WarningCapture none;
  log(*tuner, {o});
  EXPECT_EQ(lines_of(path).size(), 4u);
  EXPECT_TRUE(none.messages().empty());
}

}  // namespace
