// Records checked against their template's space before any knob is applied: a split with the
// wrong number of parts (the Stage::bind crash), a product that is not the axis extent, a value
// that is not a candidate, unknown / missing knobs and wrong kinds are skipped with file:line and
// the knob (strict mode: rejected), at load time and where ApplyHistoryBest picks a record.
#include <gtest/gtest.h>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"
#include "test_util.h"

using namespace minitvm;
using namespace minitvm::autotune;

namespace {

// cuda_v0.06.log line 1 (conv2d direct, 1x2048x8x8 * 192x2048x1x1).
const std::string kConv =
    R"({"i": ["cuda -model=titanx", "topi_nn_conv2d", [["TENSOR", [1, 2048, 8, 8], "float32"], ["TENSOR", [192, 2048, 1, 1], "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {}, ["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"], {"i": 8797896, "c": null, "e": [["tile_f", "sp", [6, 1, 32, 1]], ["tile_y", "sp", [4, 1, 2, 1]], ["tile_x", "sp", [1, 1, 8, 1]], ["tile_rc", "sp", [64, 32]], ["tile_rx", "sp", [1, 1]], ["tile_ry", "sp", [1, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]], "t": "direct"}], "r": [[5.69732536806342e-05], 0, 14.116215467453003, 1535423916.7184713], "v": 0.1})";

// A 0.2 dense_small_batch.cuda record: tile_k [-1, 64] of in_dim 1024 (factors: index 6).
const std::string kDense =
    R"({"input": ["cuda", "dense_small_batch.cuda", [["TENSOR", [1, 1024], "float32"], ["TENSOR", [1000, 1024], "float32"], null, "float32"], {}], "config": {"index": 6, "code_hash": null, "entity": [["tile_k", "sp", [-1, 64]]]}, "result": [[1e-05], 0, 1.0, 1600000000.0], "version": 0.2, "tvm_version": "0.7.dev1"})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

struct Corruption {
  std::string line, knob, reason;
};

std::vector<Corruption> corruptions() {
  const std::string f = R"(["tile_f", "sp", [6, 1, 32, 1]])";
  return {
      // the crash of the issue: a 2-part value for the 4-way tile_f
      {replace(kConv, f, R"(["tile_f", "sp", [-1, 8]])"), "tile_f",
       "has 2 part(s), the template splits the axis into 4"},
      {replace(kConv, f, R"(["tile_f", "sp", [-1, 1, 256, 1]])"), "tile_f",
       "more than the axis extent 192"},
      {replace(kConv, f, R"(["tile_f", "sp", [6, 1, 32, 2]])"), "tile_f",
       "do not multiply to the axis extent 192"},
      {replace(kConv, f, R"(["tile_f", "sp", [3, 1, 32, 1]])"), "tile_f",
       "do not multiply to the axis extent 192"},
      {replace(kConv, f, R"(["tile_f", "sp", [-1, 1, 5, 1]])"), "tile_f",
       "do not divide the axis extent 192"},
      {replace(kConv, R"(["auto_unroll_max_step", "ot", 1500])",
               R"(["auto_unroll_max_step", "ot", 300])"),
       "auto_unroll_max_step", "value 300 is not one of the template's candidates [0, 512, 1500]"},
      {replace(kConv, R"(["tile_rc", "sp", [64, 32]])", R"(["tile_rc", "ot", 32])"), "tile_rc",
       "is a other-option (ot) 32, the template defines a split (sp)"},
      {replace(kConv, R"(, ["unroll_explicit", "ot", 1]])", "]"), "unroll_explicit",
       "missing knob"},
      {replace(kConv, R"(["unroll_explicit", "ot", 1]])",
               R"(["unroll_explicit", "ot", 1], ["tile_z", "sp", [1, 1]]])"),
       "tile_z", "unknown knob"},
      {replace(kDense, R"(["tile_k", "sp", [-1, 64]])", R"(["tile_k", "sp", [-1, 8, 8]])"),
       "tile_k", "has 3 part(s), the template splits the axis into 2"},
      {replace(kDense, R"(["tile_k", "sp", [-1, 64]])", R"(["tile_k", "sp", [-1, 2048]])"),
       "tile_k", "more than the axis extent 1024"},
  };
}

}  // namespace

TEST(RecordCheck, GoodRecordsFit) {
  for (const auto& line : {kConv, kDense}) {
    Record r = decode_record(line);
    EXPECT_EQ(check_record(r), "") << line;
  }
}

TEST(RecordCheck, EachCorruptionIsSkippedWithFileLineAndKnob) {
  for (const auto& c : corruptions()) {
    const std::string text = kConv + "\n" + c.line + "\n" + kDense + "\n";
    WarningCapture w;
    LoadReport rep;
    auto recs = load_records_from_string(text, "bad.log", {}, &rep);
    ASSERT_EQ(recs.size(), 2u) << c.line;
    ASSERT_EQ(rep.skipped.size(), 1u) << c.line;
    EXPECT_EQ(rep.skipped[0].line, 2);
    EXPECT_NE(rep.skipped[0].reason.find("knob '" + c.knob + "'"), std::string::npos)
        << rep.skipped[0].reason;
    EXPECT_NE(rep.skipped[0].reason.find(c.reason), std::string::npos)
        << rep.skipped[0].reason << " vs " << c.reason;
    ASSERT_EQ(w.messages().size(), 1u);
    EXPECT_NE(w.messages()[0].find("bad.log:2: "), std::string::npos) << w.messages()[0];

    LoadOptions strict;
    strict.strict = true;
    try {
      load_records_from_string(text, "bad.log", strict);
      ADD_FAILURE() << "strict mode accepted " << c.line;
    } catch (const CompileError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("bad.log:2: "), std::string::npos) << m;
      EXPECT_NE(m.find("knob '" + c.knob + "'"), std::string::npos) << m;
    }
  }
}

// TopHub's cuda_v0.05+ logs name tile_rx what applies to KH: those records still load.
// cuda_v0.06.log, a kernel 3x1: tile_rx carries KH's split [1, 3], tile_ry KW's [1, 1].
const std::string kRenamed =
    R"({"i": ["cuda -model=titanx", "topi_nn_conv2d", [["TENSOR", [1, 384, 8, 8], "float32"], ["TENSOR", [384, 384, 3, 1], "float32"], [1, 1], [1, 0], [1, 1], "NCHW", "float32"], {}, ["conv2d", [1, 384, 8, 8, "float32"], [384, 384, 3, 1, "float32"], [1, 1], [1, 0], [1, 1], "NCHW", "float32"], {"i": 35416378, "c": null, "e": [["tile_f", "sp", [24, 2, 8, 1]], ["tile_y", "sp", [4, 1, 2, 1]], ["tile_x", "sp", [1, 1, 8, 1]], ["tile_rc", "sp", [16, 24]], ["tile_rx", "sp", [1, 3]], ["tile_ry", "sp", [1, 1]], ["auto_unroll_max_step", "ot", 1500], ["unroll_explicit", "ot", 1]], "t": "direct"}], "r": [[4.5191243902439025e-05], 0, 1.303452730178833, 1535434456.1185555], "v": 0.1})";

TEST(RecordCheck, RenamedTileRyRxOfTophubStillFit) {
  EXPECT_EQ(check_record(decode_record(kRenamed)), "");
  // a value that fits neither name is still rejected
  Record bad = decode_record(
      replace(kRenamed, R"(["tile_rx", "sp", [1, 3]])", R"(["tile_rx", "sp", [1, 2]])"));
  EXPECT_NE(check_record(bad).find("knob 'tile_rx'"), std::string::npos) << check_record(bad);
}

TEST(RecordCheck, ShippedLogsLoseNoRecord) {
  // The check must not reject what TVM applies: every shipped CUDA log keeps all records that
  // passed before (line 688 of cuda_v0.09/v0.10 has a malformed tensor and is the only skipped
  // line).
  for (const auto& f : minitvm::autotune::testing::logs_in("tophub")) {
    if (f.find("cuda_v") == std::string::npos) continue;
    WarningCapture w;
    LoadReport rep;
    load_records(f, {}, &rep);
    bool has_688 = f.find("cuda_v0.09.log") != std::string::npos ||
                   f.find("cuda_v0.10.log") != std::string::npos;
    size_t expected = has_688 ? 1u : 0u;
    EXPECT_EQ(rep.skipped.size(), expected)
        << f << (rep.skipped.empty() ? "" : ": " + rep.skipped[0].reason);
  }
}

TEST(RecordCheck, ApplyHistoryBestSkipsABadBestRecordForTheNextOne) {
  // In-memory records (not checked at load): the corrupted one is faster, so it would win.
  const std::string bad =
      replace(replace(kConv, R"(["tile_f", "sp", [6, 1, 32, 1]])", R"(["tile_f", "sp", [-1, 8]])"),
              "[[5.69732536806342e-05]", "[[1e-06]");
  LoadOptions unchecked;
  unchecked.check_index = false;
  auto recs = load_records_from_string(kConv + "\n" + bad + "\n", "mem.log", unchecked);
  ASSERT_EQ(recs.size(), 2u);
  ApplyHistoryBest best(recs);
  const Json wl = recs[0].input.workload;
  Target t = parse_target("cuda");
  WarningCapture w;
  const Record* chosen = best.best_record(t, wl);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->line, 1);
  ConfigPtr cfg;
  {
    DispatchScope scope(best);
    cfg = DispatchContext::current().query(t, wl);
  }
  ASSERT_TRUE(cfg);
  EXPECT_FALSE(cfg->is_fallback());
  EXPECT_EQ(std::get<SplitEntity>(cfg->get("tile_f")).size, (std::vector<int64_t>{6, 1, 32, 1}));
  ASSERT_EQ(w.messages().size(), 1u);  // warned once, though asked twice
  EXPECT_NE(w.messages()[0].find("mem.log:2"), std::string::npos) << w.messages()[0];
  EXPECT_NE(w.messages()[0].find("knob 'tile_f'"), std::string::npos) << w.messages()[0];

  ApplyHistoryBest strict(recs);
  strict.strict = true;
  try {
    strict.best_record(t, wl);
    ADD_FAILURE() << "strict ApplyHistoryBest applied a record that does not fit";
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("mem.log:2"), std::string::npos) << m;
    EXPECT_NE(m.find("knob 'tile_f'"), std::string::npos) << m;
  }
}

TEST(RecordCheck, OnlyBadRecordsMeanNoAnswer) {
  const std::string bad =
      replace(kDense, R"(["tile_k", "sp", [-1, 64]])", R"(["tile_k", "sp", [-1, 8, 8]])");
  LoadOptions unchecked;
  unchecked.check_index = false;
  auto recs = load_records_from_string(bad + "\n", "mem.log", unchecked);
  ApplyHistoryBest best(recs);
  WarningCapture w;
  EXPECT_EQ(best.best_record(parse_target("cuda"), recs[0].input.workload), nullptr);
  EXPECT_TRUE(best.workloads_for_key("cuda").empty());
}

TEST(ConfigCheck, SpaceRules) {
  ConfigSpace sp;
  SplitOptions two;
  sp.define_split("tile", 12, two);
  SplitOptions tail;
  tail.policy = SplitPolicy::Power2;
  sp.define_split("tail", 12, tail);  // allows tails: [-1, 8] fits although 8 does not divide 12
  sp.define_knob("k", {0, 1});
  sp.define_knob("late", {0, 2});
  sp.set_record_default("late", OtherOptionEntity{0});
  auto cfg = [](std::vector<std::pair<std::string, Entity>> kv) {
    ConfigEntity c;
    for (auto& [n, e] : kv) c.set(n, e);
    return c;
  };
  EXPECT_EQ(check_config(cfg({{"tile", SplitEntity{{-1, 4}}},
                              {"tail", SplitEntity{{-1, 8}}},
                              {"k", OtherOptionEntity{1}}}),
                         sp),
            "");  // "late" may be absent
  EXPECT_EQ(check_config(cfg({{"tile", SplitEntity{{3, 4}}},
                              {"tail", SplitEntity{{2, 8}}},
                              {"k", OtherOptionEntity{1}}}),
                         sp),
            "");  // full first sizes (v0.5) as well
  EXPECT_NE(check_config(cfg({{"tile", SplitEntity{{-1, 4}}}, {"tail", SplitEntity{{-1, 8}}}}), sp)
                .find("missing knob 'k'"),
            std::string::npos);
  EXPECT_NE(check_config(cfg({{"tile", SplitEntity{{-1, 4}}},
                              {"tail", SplitEntity{{-1, 8}}},
                              {"k", OtherOptionEntity{true}}}),
                         sp)
                .find("knob 'k' value True is not one of"),
            std::string::npos);
  ConfigEntity bad = cfg({{"tile", SplitEntity{{-1, 4}}},
                          {"tail", SplitEntity{{-1, 8}}},
                          {"k", OtherOptionEntity{2}}});
  EXPECT_THROW(require_config_fits(bad, sp, "test"), InvalidConfig);
}
