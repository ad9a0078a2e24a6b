// Index <-> entity parity: rebuilding the template spaces of TVM's CUDA conv2d / depthwise / dense
// templates from each record's workload must map the record's "i" to its "e".
#include <gtest/gtest.h>

#include <fstream>

#include "minitvm/autotune/record.h"
#include "minitvm/support/logging.h"
#include "test_util.h"

using namespace minitvm;
using namespace minitvm::autotune;
using minitvm::autotune::testing::logs_in;
using minitvm::autotune::testing::repo;

namespace {
struct Parity {
  int records = 0, checkable = 0, match = 0, decode_match = 0;
};

Parity parity(const std::string& path) {
  WarningCapture quiet;
  Parity p;
  LoadOptions lo;
  lo.check_index = false;
  for (const auto& r : load_records(path, lo)) {
    ++p.records;
    auto space = template_space(r.input.task_name, r.input.config.template_key, r.input.workload,
                                r.input.target);
    if (!space) continue;
    ++p.checkable;
    auto idx = space->index_of(r.input.config);
    if (idx && *idx == r.input.config.index) ++p.match;
    // and the other direction: get(i) gives back the record's entities (sizes from [1] on)
    if (r.input.config.index < space->size()) {
      ConfigEntity c = space->get(r.input.config.index);
      if (space->index_of(c) == r.input.config.index &&
          space->index_of(r.input.config) == r.input.config.index)
        ++p.decode_match;
    }
  }
  return p;
}
}  // namespace

TEST(Parity, CudaV004Reproduces686Of687) {
  auto p = parity(repo("tophub/cuda_v0.04.log"));
  EXPECT_EQ(p.records, 687);
  EXPECT_EQ(p.checkable, 687);
  EXPECT_EQ(p.match, 686);
  EXPECT_EQ(p.decode_match, 686);
}

TEST(Parity, CudaV006MissesOnlyTheRenamedRxRyKnobs) {
  auto p = parity(repo("tophub/cuda_v0.06.log"));
  EXPECT_EQ(p.records, 688);
  EXPECT_EQ(p.checkable, 687);  // the v100 conv2d_transpose record has no rebuilt space
  EXPECT_EQ(p.match, 660);      // 27 misses: tile_rx / tile_ry renamed in v0.05
}

TEST(Parity, SeedLogsAllRederive) {
  for (const auto& f : logs_in("tophub/seed")) {
    auto p = parity(f);
    EXPECT_GT(p.records, 0) << f;
    EXPECT_EQ(p.checkable, p.records) << f;
    EXPECT_EQ(p.match, p.records) << f;
  }
}
