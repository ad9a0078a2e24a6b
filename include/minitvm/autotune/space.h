/** \file
 * AutoTVM-compatible configuration spaces and configs (TVM v0.6 `autotvm/task/space.py`).
 *
 * A template defines named knobs (`define_split`, `define_knob`, `define_reorder`,
 * `define_annotate`) on a SpaceDefiner. A ConfigSpace collects the candidate entities of every
 * knob; its flat index is mixed radix with the FIRST-defined knob as the least significant digit,
 * exactly as TVM, so the `"i"` of a TVM record decodes to that record's `"e"`. A ConfigEntity is
 * one point of a space (what a tuning record stores); a FallbackConfigEntity is the config used
 * when no record matched: it collects the spaces while the template runs and starts at entity 0.
 *
 * Entities are plain data; applying them to a schedule stage lives with the schedule code
 * (see split_factors() for the pure part of SplitEntity::apply).
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

// Schedule types the TVM-style knob API (Knob::apply, define_split on an axis) takes; defined in
// te/ and ir/ (the definitions live in src/autotune/tuner/template_api.cc, so the record code of
// this header does not need them).
namespace minitvm::ir {
class IterVar;
}
namespace minitvm::te {
class Schedule;
class Stage;
class Tensor;
}  // namespace minitvm::te

namespace minitvm::autotune {

/** Order-preserving JSON value (key order of objects is kept, as Python dicts do). */
using Json = nlohmann::ordered_json;

/** Split knob value: sizes of the split parts, outermost first. size[0] may be -1. */
struct SplitEntity {
  std::vector<int64_t> size;
  bool operator==(const SplitEntity&) const = default;
};
/** Reorder knob value: a permutation of axis positions. */
struct ReorderEntity {
  std::vector<int64_t> perm;
  bool operator==(const ReorderEntity&) const = default;
};
/** Annotate knob value: one annotation per axis ("unroll", "vec", "none", "blockIdx.x", "fuse",
 * ...), or axis positions for `locate_cache` spaces. Kept as a JSON array of strings or ints. */
struct AnnotateEntity {
  Json anns = Json::array();
  bool operator==(const AnnotateEntity& o) const { return anns == o.anns; }
};
/** Other-option knob value: the candidate itself (int, bool, string or float). */
struct OtherOptionEntity {
  Json val;
  bool operator==(const OtherOptionEntity& o) const { return val == o.val; }
};

using Entity = std::variant<SplitEntity, ReorderEntity, AnnotateEntity, OtherOptionEntity>;

/** Record kind string of an entity: "sp", "re", "an", "ot". */
const char* entity_kind(const Entity& e);
/** JSON value of an entity as written in records (the third element of an `"e"` triple). */
Json entity_to_json(const Entity& e);
/** Parse `[name, kind, value]`'s kind and value; throws CompileError on an unknown kind or a value
 *  of the wrong shape (a split with a zero or negative size other than a leading -1 is rejected).
 */
Entity entity_from_json(const std::string& kind, const Json& value);
/** Python-repr-like text of an entity value: `[6, 1, 32, 1]`, `1500`, `['unroll', 'vec']`. */
std::string entity_value_str(const Entity& e);

/** Divisors of n in ascending order (TVM `get_factors`). n must be >= 1. */
std::vector<int64_t> get_factors(int64_t n);
/** Powers of two <= n in ascending order (TVM `get_pow2s`). */
std::vector<int64_t> get_pow2s(int64_t n);
/** Iteration order of CPython 3.11's `set(a) | set(b)` for small non-negative ints (the order TVM's
 *  `verbose` split policy uses). */
std::vector<int64_t> cpython_set_union_order(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b);

/**
 * Split factors that SplitEntity::apply uses: for i = 1..K-1 the i-th split uses
 * factor size[i]*...*size[K-1]. Returns those K-1 factors, outermost split first. size[0] is never
 * read. Example: [-1, 2, 4, 8] -> {64, 32, 8}.
 */
std::vector<int64_t> split_factors(const SplitEntity& e);
/** Loop extents an applied split produces on an axis of length L: ceil(L / factor_0), size[1..]. */
std::vector<int64_t> split_extents(const SplitEntity& e, int64_t length);

enum class SplitPolicy { Factors, Power2, Verbose, Candidate };

/** Options of define_split (keyword arguments of TVM's `define_split`). */
struct SplitOptions {
  SplitPolicy policy = SplitPolicy::Factors;
  int num_outputs = 2;
  int64_t max_factor = int64_t{1} << 31;
  /** Default: true for Factors, false otherwise. */
  std::optional<bool> no_tail;
  /** Candidate lists for SplitPolicy::Candidate (each of length num_outputs). */
  std::vector<std::vector<int64_t>> candidate;
  /** Entities for which this returns false are dropped (list order kept). */
  std::function<bool(const SplitEntity&)> filter;
};

/** The candidates of one knob, in TVM's enumeration order. */
struct KnobSpace {
  std::string name;
  std::string kind;  // "sp", "re", "an", "ot"
  std::vector<Entity> entities;
  int64_t axis_length = 0;  ///< split spaces: the axis extent L (0 for candidate splits)
  int num_outputs = 0;      ///< split spaces: K
  bool no_tail = false;     ///< split spaces: the parts must multiply to L exactly
  /** Value a record without this knob applies with (a knob added after records were tuned);
   *  nullopt: such a record does not fit the space. */
  std::optional<Entity> record_default;
  /** A split knob whose record values may carry this other knob's name (TopHub's renamed
   *  tile_ry/tile_rx): a value that fits the other knob's space is accepted. */
  std::string swapped_with;
  size_t size() const { return entities.size(); }
};

/** Interface through which templates define knobs; implemented by ConfigSpace and ConfigEntity. */
class SpaceDefiner {
 public:
  virtual ~SpaceDefiner() = default;
  /** Split of an axis of extent `length` (TVM define_split / SplitSpace). */
  virtual void define_split(const std::string& name, int64_t length, const SplitOptions& opt) = 0;
  /** Other-option knob: candidates in the given order (TVM define_knob). */
  virtual void define_knob(const std::string& name, const std::vector<Json>& candidates) = 0;
  /** Reorder of `num_axes` axes. Policies: "identity", "all", "candidate" (`candidate` lists). */
  virtual void define_reorder(const std::string& name, int num_axes, const std::string& policy,
                              const std::vector<std::vector<int64_t>>& candidate = {}) = 0;
  /** Annotate of `num_axes` axes. Policies: "bind_gpu", "bind_gpu_virtual", "locate_cache"
   *  (needs num_anchor), or "try_unroll", "try_unroll_vec", "try_vec" style lists. */
  virtual void define_annotate(const std::string& name, int num_axes, const std::string& policy,
                               int num_anchor = 0) = 0;
  /** Records tuned before knob `name` existed apply it as `value` (they still fit the space). */
  virtual void set_record_default(const std::string& name, Entity value) {
    (void)name;
    (void)value;
  }
  /** Split knobs `a` and `b` may appear under each other's name in records (TopHub cuda_v0.05+
   * swapped tile_ry/tile_rx). */
  virtual void accept_swapped(const std::string& a, const std::string& b) {
    (void)a;
    (void)b;
  }

  // TVM-style forms taking schedule axes (defined in src/autotune/tuner/template_api.cc):
  // `cfg.define_split("tile_x", x, opt)` uses the axis' constant extent; reorder/annotate count
  // the axes.
  void define_split(const std::string& name, const ir::IterVar& axis, const SplitOptions& opt = {});
  void define_reorder(const std::string& name, const std::vector<ir::IterVar>& axes,
                      const std::string& policy,
                      const std::vector<std::vector<int64_t>>& candidate = {});
  void define_annotate(const std::string& name, const std::vector<ir::IterVar>& axes,
                       const std::string& policy, int num_anchor = 0);
};

/** Build a knob space without registering it (what the define_* calls build). */
KnobSpace make_split_space(const std::string& name, int64_t length, const SplitOptions& opt);
KnobSpace make_knob_space(const std::string& name, const std::vector<Json>& candidates);
KnobSpace make_reorder_space(const std::string& name, int num_axes, const std::string& policy,
                             const std::vector<std::vector<int64_t>>& candidate = {});
KnobSpace make_annotate_space(const std::string& name, int num_axes, const std::string& policy,
                              int num_anchor = 0);

class ConfigEntity;

/**
 * A knob value read by name (`cfg["tile_x"]`), applied to a schedule as TVM's entities do
 * (TVM `SplitEntity.apply` / `ReorderEntity.apply` / `AnnotateEntity.apply`):
 *
 *   auto [yo, yi] = cfg["tile_y"].apply<2>(s, C, y);     // split: the axes, outermost first
 *   std::vector<IterVar> ax = cfg["tile_x"].apply(s, C, x);
 *   cfg["order"].apply(s, C, {yo, xo, yi, xi});           // reorder: axes[perm[i]] (entries past
 *                                                         // the axes dropped); returns the order
 *   cfg["ann"].apply(s, C, {xo, xi});                     // annotate: unroll / vec / none /
 *                                                         // blockIdx.* / threadIdx.* / vthread /
 *                                                         // fuse (axis i into i+1); returns axes
 *
 * A split uses factor size[i]*...*size[K-1] for its i-th split (size[0] is never read). A value of
 * the wrong kind, a split with a different number of parts than `apply<N>` asks for, or an
 * unknown annotation throws InvalidConfig naming the knob. Valid while the config lives.
 */
class Knob {
 public:
  Knob(std::string name, const Entity* value) : name_(std::move(name)), value_(value) {}
  const std::string& name() const { return name_; }
  const Entity& entity() const { return *value_; }
  /** Split sizes (InvalidConfig when the knob is not a split). */
  const std::vector<int64_t>& size() const;
  /** Other-option value (InvalidConfig when the knob is not one). */
  const Json& val() const;

  std::vector<ir::IterVar> apply(te::Schedule& s, const te::Tensor& op,
                                 const ir::IterVar& axis) const;
  std::vector<ir::IterVar> apply(te::Stage& stage, const ir::IterVar& axis) const;
  // (S is te::Schedule / te::Stage: a template parameter so that the call stays dependent and
  // IterVar, incomplete here, is only needed where apply<N> is used.)
  template <size_t N, class S>
  std::array<ir::IterVar, N> apply(S& s, const te::Tensor& op, const ir::IterVar& axis) const {
    return to_array<N>(apply(s, op, axis));
  }
  template <size_t N, class S>
  std::array<ir::IterVar, N> apply(S& stage, const ir::IterVar& axis) const {
    return to_array<N>(apply(stage, axis));
  }
  std::vector<ir::IterVar> apply(te::Schedule& s, const te::Tensor& op,
                                 const std::vector<ir::IterVar>& axes) const;
  std::vector<ir::IterVar> apply(te::Stage& stage, const std::vector<ir::IterVar>& axes) const;

 private:
  void check_parts(size_t n) const;
  template <size_t N, class V>
  std::array<ir::IterVar, N> to_array(V&& v) const {
    check_parts(N);
    std::array<ir::IterVar, N> a;
    for (size_t i = 0; i < N; ++i) a[i] = v[i];
    return a;
  }
  std::string name_;
  const Entity* value_;
};

/** Insertion-ordered knob spaces of one template instance. */
class ConfigSpace : public SpaceDefiner {
 public:
  void define_split(const std::string& name, int64_t length, const SplitOptions& opt) override;
  void define_knob(const std::string& name, const std::vector<Json>& candidates) override;
  void define_reorder(const std::string& name, int num_axes, const std::string& policy,
                      const std::vector<std::vector<int64_t>>& candidate = {}) override;
  void define_annotate(const std::string& name, int num_axes, const std::string& policy,
                       int num_anchor = 0) override;
  void set_record_default(const std::string& name, Entity value) override;
  void accept_swapped(const std::string& a, const std::string& b) override;
  using SpaceDefiner::define_annotate;
  using SpaceDefiner::define_reorder;
  using SpaceDefiner::define_split;
  /** Register a built space; re-defining a name keeps its original position (TVM dict semantics).
   */
  void add(KnobSpace space);

  /** Knobs in definition order. */
  const std::vector<KnobSpace>& knobs() const { return knobs_; }
  const KnobSpace* find(const std::string& name) const;
  /** Product of knob sizes. Throws CompileError when it does not fit in int64. */
  int64_t size() const;
  /** Config at a flat index (first-defined knob = least significant digit). Throws CompileError
   *  when index is outside [0, size()). */
  ConfigEntity get(int64_t index, const std::string& template_key = "") const;
  /** Flat index of a config's entities, matching knobs by name and split sizes from size[1] on
   *  (size[0] is ignored, so both -1 and the v0.5 full quotient match); a knob the config lacks
   *  counts as its record default (set_record_default). nullopt when a knob without one is
   *  missing or a value is not in the space. */
  std::optional<int64_t> index_of(const ConfigEntity& cfg) const;

 private:
  std::vector<KnobSpace> knobs_;
};

/**
 * One config: what a tuning record stores and what a template reads by knob name.
 * define_* calls are no-ops on a plain config; on a fallback config they collect the space and
 * reset that knob to entity 0 (as TVM's FallbackConfigEntity does).
 */
class ConfigEntity : public SpaceDefiner {
 public:
  ConfigEntity() = default;

  int64_t index = -1;
  /** Template key ("direct", "winograd", ...); empty for 0.2 records and fresh fallbacks. */
  std::string template_key;
  /** Code hash; nullopt = JSON null (every TopHub record). */
  std::optional<std::string> code_hash;
  /** Mean cost in seconds of the record this config came from (TVM v0.7 `cfg.cost`), if any. */
  std::optional<double> cost;

  bool is_fallback() const { return fallback_; }
  /** Entities in definition (or record) order. */
  const std::vector<std::pair<std::string, Entity>>& entities() const { return entities_; }
  /** Set or replace a knob value, keeping the position of an existing name. */
  void set(const std::string& name, Entity value);
  bool has(const std::string& name) const;
  /** Knob value by name; throws InvalidConfig naming the knob when missing. */
  const Entity& get(const std::string& name) const;
  const SplitEntity& split(const std::string& name) const;
  const OtherOptionEntity& other(const std::string& name) const;
  /** Integer value of an other-option knob (bools read as 0/1). */
  int64_t knob_int(const std::string& name) const;

  void define_split(const std::string& name, int64_t length, const SplitOptions& opt) override;
  void define_knob(const std::string& name, const std::vector<Json>& candidates) override;
  void define_reorder(const std::string& name, int num_axes, const std::string& policy,
                      const std::vector<std::vector<int64_t>>& candidate = {}) override;
  void define_annotate(const std::string& name, int num_axes, const std::string& policy,
                       int num_anchor = 0) override;
  void set_record_default(const std::string& name, Entity value) override;
  void accept_swapped(const std::string& a, const std::string& b) override;
  using SpaceDefiner::define_annotate;
  using SpaceDefiner::define_reorder;
  using SpaceDefiner::define_split;

  /** TVM's `cfg["tile_x"]`: the knob's value, with `apply` (see Knob). Throws InvalidConfig when
   *  the config has no such knob. */
  Knob operator[](const std::string& name) const;

  /** Space collected by a fallback config (empty otherwise). */
  const ConfigSpace& space() const { return space_; }

  /** `"e"` list: [[name, kind, value], ...] in entity order. */
  Json entity_json() const;
  /** TVM-style printing: `[('tile_f', [6, 1, 32, 1]), ...],direct,None,8797896`. */
  std::string str() const;

 protected:
  bool fallback_ = false;

 private:
  void collect(KnobSpace space);
  std::vector<std::pair<std::string, Entity>> entities_;
  ConfigSpace space_;
};

/**
 * Whether a config (typically a tuning record's) fits a template's space, knob by knob: every knob
 * of the config is defined by the space (by name) with the same kind; every knob of the space is
 * in the config (or has a record_default); a split has the space's number of parts, its parts
 * multiply to the axis extent (a leading -1 stands for the outer part; splits that allow tails only
 * bound the inner parts) and it is one of the space's candidates (size[0] ignored; a knob with
 * `swapped_with` also accepts the other knob's candidates); other knobs hold one of their
 * candidates. Returns "" when it fits, else the reason naming the knob and the value.
 */
std::string check_config(const ConfigEntity& cfg, const ConfigSpace& space);
/** check_config, throwing InvalidConfig "<where>: <reason>" when the config does not fit. */
void require_config_fits(const ConfigEntity& cfg, const ConfigSpace& space,
                         const std::string& where);

/** The config a FallbackContext hands out: collects spaces, entity 0 everywhere until a template's
 *  fallback logic (see fallback.h) overwrites knobs. */
class FallbackConfigEntity : public ConfigEntity {
 public:
  FallbackConfigEntity() { fallback_ = true; }
};

}  // namespace minitvm::autotune
