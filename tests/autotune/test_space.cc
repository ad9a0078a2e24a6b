// Config spaces: split enumeration order, policies, flat index <-> entity (TVM's ConfigSpace).
#include <gtest/gtest.h>

#include "minitvm/autotune/space.h"
#include "minitvm/support/error.h"
#include "minitvm/topi/template_spaces.h"

using namespace minitvm;
using namespace minitvm::autotune;

static std::vector<std::vector<int64_t>> sizes(const KnobSpace& s) {
  std::vector<std::vector<int64_t>> out;
  for (auto& e : s.entities) out.push_back(std::get<SplitEntity>(e).size);
  return out;
}

static SplitOptions opts(SplitPolicy p, int k) {
  SplitOptions o;
  o.policy = p;
  o.num_outputs = k;
  return o;
}

TEST(Space, Factors) {
  EXPECT_EQ(get_factors(12), (std::vector<int64_t>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(get_factors(49), (std::vector<int64_t>{1, 7, 49}));
  EXPECT_EQ(get_factors(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(get_pow2s(224), (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_THROW(get_factors(0), CompileError);
}

TEST(Space, SplitEnumerationOrderL8K3) {
  // TVM's SplitSpace enumeration order: size[1] varies fastest.
  auto s = make_split_space("x", 8, opts(SplitPolicy::Factors, 3));
  std::vector<std::vector<int64_t>> want = {{-1, 1, 1}, {-1, 2, 1}, {-1, 4, 1}, {-1, 8, 1},
                                            {-1, 1, 2}, {-1, 2, 2}, {-1, 4, 2}, {-1, 1, 4},
                                            {-1, 2, 4}, {-1, 1, 8}};
  EXPECT_EQ(sizes(s), want);
}

TEST(Space, SplitCountsMatchTVMUnitTests) {
  for (auto p : {SplitPolicy::Factors, SplitPolicy::Power2, SplitPolicy::Verbose})
    EXPECT_EQ(make_split_space("x", 256, opts(p, 3)).size(), 45u);
  EXPECT_EQ(make_split_space("x", 224, opts(SplitPolicy::Factors, 3)).size(), 63u);
  EXPECT_EQ(make_split_space("x", 224, opts(SplitPolicy::Power2, 3)).size(), 36u);
  EXPECT_EQ(make_split_space("x", 224, opts(SplitPolicy::Verbose, 3)).size(), 84u);
  EXPECT_EQ(make_split_space("x", int64_t{1} << 25, opts(SplitPolicy::Factors, 4)).size(), 3276u);
}

TEST(Space, VerboseUsesCPythonSetOrder) {
  // CPython 3.11: list(set(get_factors(224)) | set(get_pow2s(224))) and the same for 256.
  EXPECT_EQ(cpython_set_union_order(get_factors(224), get_pow2s(224)),
            (std::vector<int64_t>{64, 1, 2, 128, 4, 7, 8, 14, 16, 28, 32, 224, 112, 56}));
  EXPECT_EQ(cpython_set_union_order(get_factors(256), get_pow2s(256)),
            (std::vector<int64_t>{32, 1, 2, 64, 4, 128, 256, 8, 16}));
  auto s = make_split_space("x", 224, opts(SplitPolicy::Verbose, 2));
  EXPECT_EQ(std::get<SplitEntity>(s.entities[0]).size, (std::vector<int64_t>{-1, 64}));
  EXPECT_EQ(std::get<SplitEntity>(s.entities[1]).size, (std::vector<int64_t>{-1, 1}));
}

TEST(Space, MaxFactorFilterAndCandidate) {
  auto o = opts(SplitPolicy::Factors, 2);
  o.max_factor = 4;
  EXPECT_EQ(sizes(make_split_space("x", 16, o)),
            (std::vector<std::vector<int64_t>>{{-1, 1}, {-1, 2}, {-1, 4}}));
  o = opts(SplitPolicy::Factors, 2);
  o.filter = [](const SplitEntity& e) { return e.size[1] % 2 == 0; };
  EXPECT_EQ(sizes(make_split_space("x", 8, o)),
            (std::vector<std::vector<int64_t>>{{-1, 2}, {-1, 4}, {-1, 8}}));
  o = opts(SplitPolicy::Candidate, 3);
  o.candidate = {{4, 2, 1}, {1, 1, 8}};
  EXPECT_EQ(sizes(make_split_space("x", 8, o)),
            (std::vector<std::vector<int64_t>>{{4, 2, 1}, {1, 1, 8}}));
  o.candidate = {{4, 2}};
  EXPECT_THROW(make_split_space("x", 8, o), CompileError);
  // power2 without no_tail keeps non-dividing products below L: L=6 K=2 -> 1, 2, 4
  EXPECT_EQ(sizes(make_split_space("x", 6, opts(SplitPolicy::Power2, 2))),
            (std::vector<std::vector<int64_t>>{{-1, 1}, {-1, 2}, {-1, 4}}));
}

TEST(Space, ReorderAnnotateKnob) {
  auto r = make_reorder_space("re", 3, "all");
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(std::get<ReorderEntity>(r.entities[1]).perm, (std::vector<int64_t>{0, 2, 1}));
  auto a = make_annotate_space("an", 2, "try_unroll_vec");
  // axis 0 slowest; at most one vec:
  // (none,none),(none,unroll),(none,vec),(unroll,none),...,(vec,unroll)
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(std::get<AnnotateEntity>(a.entities[2]).anns, Json::array({"none", "vec"}));
  EXPECT_EQ(std::get<AnnotateEntity>(a.entities[7]).anns, Json::array({"vec", "unroll"}));
  auto b = make_annotate_space("b", 5, "bind_gpu");
  EXPECT_EQ(std::get<AnnotateEntity>(b.entities[0]).anns,
            Json::array({"fuse", "blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"}));
  auto l = make_annotate_space("l", 4, "locate_cache", 2);
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(std::get<AnnotateEntity>(l.entities[1]).anns, Json::array({0, 2}));
  auto k = make_knob_space("k", {0, 512, 1500});
  EXPECT_EQ(std::get<OtherOptionEntity>(k.entities[2]).val, 1500);
}

// Worked example of TVM's flat index for a conv2d direct space: conv2d direct, data [1,2048,8,8],
// kernel [192,2048,1,1].
TEST(Space, WorkedExampleIndex8797896) {
  Json w = Json::parse(
      R"(["conv2d", [1, 2048, 8, 8, "float32"], [192, 2048, 1, 1, "float32"], [1, 1], [0, 0], [1, 1], "NCHW", "float32"])");
  auto g = topi::conv_geometry(w);
  ASSERT_TRUE(g);
  ConfigSpace s;
  topi::define_conv2d_direct_space(s, *g, parse_target("cuda -model=titanx"));
  std::vector<size_t> radix;
  for (auto& k : s.knobs()) radix.push_back(k.size());
  EXPECT_EQ(radix, (std::vector<size_t>{336, 20, 20, 12, 1, 1, 3, 2}));
  EXPECT_EQ(s.size(), 9676800);
  ConfigEntity c = s.get(8797896, "direct");
  EXPECT_EQ(c.split("tile_f").size, (std::vector<int64_t>{-1, 1, 32, 1}));
  EXPECT_EQ(c.split("tile_y").size, (std::vector<int64_t>{-1, 1, 2, 1}));
  EXPECT_EQ(c.split("tile_x").size, (std::vector<int64_t>{-1, 1, 8, 1}));
  EXPECT_EQ(c.split("tile_rc").size, (std::vector<int64_t>{-1, 32}));
  EXPECT_EQ(c.knob_int("auto_unroll_max_step"), 1500);
  EXPECT_EQ(c.knob_int("unroll_explicit"), 1);
  EXPECT_EQ(c.str(),
            "[('tile_f', [-1, 1, 32, 1]), ('tile_y', [-1, 1, 2, 1]), ('tile_x', [-1, 1, 8, 1]), "
            "('tile_rc', [-1, 32]), "
            "('tile_ry', [-1, 1]), ('tile_rx', [-1, 1]), ('auto_unroll_max_step', 1500), "
            "('unroll_explicit', 1)],direct,None,8797896");
  // index_of ignores size[0]: the v0.5 full-size form maps to the same index.
  ConfigEntity full = c;
  full.set("tile_f", SplitEntity{{6, 1, 32, 1}});
  EXPECT_EQ(s.index_of(full), 8797896);
  EXPECT_THROW(s.get(9676800), CompileError);
  EXPECT_THROW(s.get(-1), CompileError);
}

// A record tuned before a knob existed lacks it: index_of counts the knob as its record default,
// as check_config and the dispatch do; a knob without a record default is still required.
TEST(Space, IndexOfCountsAMissingKnobAsItsRecordDefault) {
  ConfigSpace late;
  late.define_knob("a", {0, 1, 2});
  late.define_knob("late", {5, 7});
  late.set_record_default("late", OtherOptionEntity{7});
  ConfigEntity c;
  c.set("a", OtherOptionEntity{2});
  EXPECT_EQ(late.index_of(c), std::optional<int64_t>(2 + 1 * 3));
  c.set("late", OtherOptionEntity{5});
  EXPECT_EQ(late.index_of(c), std::optional<int64_t>(2));
  ConfigSpace plain;
  plain.define_knob("a", {0, 1, 2});
  plain.define_knob("late", {5, 7});
  ConfigEntity d;
  d.set("a", OtherOptionEntity{2});
  EXPECT_EQ(plain.index_of(d), std::nullopt);
}

TEST(Space, SplitFactorsForApply) {
  EXPECT_EQ(split_factors(SplitEntity{{-1, 2, 4, 8}}), (std::vector<int64_t>{64, 32, 8}));
  EXPECT_EQ(split_factors(SplitEntity{{6, 1, 32, 1}}), (std::vector<int64_t>{32, 32, 1}));
  // size[0] is never read; non-dividing factors give a ceil outer extent.
  EXPECT_EQ(split_extents(SplitEntity{{-1, 2, 4, 8}}, 100), (std::vector<int64_t>{2, 2, 4, 8}));
  EXPECT_EQ(split_extents(SplitEntity{{99, 1, 32, 1}}, 192), (std::vector<int64_t>{6, 1, 32, 1}));
}

TEST(Space, FallbackEntityCollectsAndStartsAtZero) {
  FallbackConfigEntity f;
  EXPECT_TRUE(f.is_fallback());
  f.define_split("tile", 8, opts(SplitPolicy::Factors, 3));
  f.define_knob("unroll", {1500, 0});
  EXPECT_EQ(f.split("tile").size, (std::vector<int64_t>{-1, 1, 1}));
  EXPECT_EQ(f.knob_int("unroll"), 1500);
  EXPECT_EQ(f.space().size(), 20);
  ConfigEntity plain;
  plain.define_split("tile", 8, opts(SplitPolicy::Factors, 3));  // no-op on a concrete config
  EXPECT_FALSE(plain.has("tile"));
  EXPECT_THROW(plain.split("tile"), InvalidConfig);
}
