/** \file
 * Dispatch contexts (TVM v0.6 `autotvm/task/dispatcher.py`): which config a template uses for a
 * (target, workload).
 *
 * Contexts form a stack. The root is a process-wide FallbackContext; DispatchScope makes another
 * context current for its lifetime (RAII, like Python's `with ctx:`). query() asks the current
 * context first and walks outwards until one knows the workload; the root always answers, with a
 * fallback config and a one-time warning naming the target and workload.
 *
 *   ApplyHistoryBest best;
 *   best.load("tophub/cuda_v0.06.log");
 *   DispatchScope scope(best);
 *   auto cfg = DispatchContext::current().query(parse_target("cuda -model=titanx"), workload);
 *
 * ApplyHistoryBest keeps, per (target key, workload) and per (model, workload), the error-free
 * record with the smallest mean cost (ties keep the earlier record); query order is the model
 * first, then each target key in order (cuda, gpu), then the outer context.
 *
 * Before a record answers, it is checked against its template's space (check_record: knob names,
 * kinds, split parts and products, candidates) unless the loader already did; a record that does
 * not fit is never applied: it is skipped with a warning naming file:line and the knob, and the
 * next best record of that key answers (strict mode: CompileError naming file:line and the knob).
 */
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "minitvm/autotune/record.h"

namespace minitvm::autotune {

using ConfigPtr = std::shared_ptr<ConfigEntity>;

class DispatchContext {
 public:
  virtual ~DispatchContext() = default;
  DispatchContext() = default;
  DispatchContext(const DispatchContext&) = delete;
  DispatchContext& operator=(const DispatchContext&) = delete;

  /** The innermost context of this thread (the root FallbackContext when none is entered). */
  static DispatchContext& current();
  /** Config for a workload: this context if it knows it, else the context it was entered over. */
  ConfigPtr query(const Target& target, const Json& workload);
  /** Context that was current when this one was entered (nullptr for the root / not entered). */
  DispatchContext* outer() const { return outer_; }

 protected:
  /** Answer from this context alone, or nullptr. `wkey` is workload_key(workload). */
  virtual ConfigPtr query_inside(const Target& target, const Json& workload,
                                 const std::string& wkey) = 0;

 private:
  friend class DispatchScope;
  DispatchContext* outer_ = nullptr;
  bool entered_ = false;
};

/** Makes a context current until destruction; scopes must nest (destroyed in reverse order). */
class DispatchScope {
 public:
  explicit DispatchScope(DispatchContext& ctx);
  ~DispatchScope();
  DispatchScope(const DispatchScope&) = delete;
  DispatchScope& operator=(const DispatchScope&) = delete;

 private:
  DispatchContext& ctx_;
};

/** Returns one fixed config for every query (used while tuning). */
class ApplyConfig : public DispatchContext {
 public:
  explicit ApplyConfig(ConfigEntity cfg) : cfg_(std::make_shared<ConfigEntity>(std::move(cfg))) {}
  const ConfigPtr& config() const { return cfg_; }

 protected:
  ConfigPtr query_inside(const Target&, const Json&, const std::string&) override { return cfg_; }

 private:
  ConfigPtr cfg_;
};

/** Best records of tuning logs. */
class ApplyHistoryBest : public DispatchContext {
 public:
  ApplyHistoryBest() = default;
  explicit ApplyHistoryBest(const std::vector<Record>& records) { load(records); }
  /** Load a log file, or every `*.log` file of a directory (sorted by name). Malformed lines are
   *  skipped with warnings (or rejected in strict mode); one report per file is appended. */
  void load(const std::string& path, const LoadOptions& opt = {},
            std::vector<LoadReport>* reports = nullptr);
  /** Add in-memory records (same best-record rule as files; later loads compete with earlier). */
  void load(const std::vector<Record>& records);
  /** Register a config for a workload under the target's model and every key (TVM `update`);
   *  these take precedence over records. */
  void update(const Target& target, const Json& workload, ConfigEntity cfg);
  /** A record that does not fit its template's space throws CompileError when it would answer
   *  (set by load(path, opt) from opt.strict). Default: skip it with a warning. */
  bool strict = false;

  /** The record that answers (target, workload) in this context, or nullptr (also nullptr when an
   *  update()d config answers). */
  const Record* best_record(const Target& target, const Json& workload) const;
  /** Records kept (all loaded records with error_no == 0 are candidates). */
  size_t num_records() const { return records_.size(); }
  /** Distinct workload keys with a best record under target key `key`, in first-seen order. */
  std::vector<std::string> workloads_for_key(const std::string& key) const;
  /** The best entry under (key, workload key), for listing. */
  const Record* best_for_key(const std::string& key, const std::string& wkey) const;

 protected:
  ConfigPtr query_inside(const Target& target, const Json& workload,
                         const std::string& wkey) override;

 private:
  struct Entry {
    std::shared_ptr<const Record> rec;  // null for update()d configs
    ConfigPtr cfg;
    double mean = 0;
  };
  /** Candidates of one key, ascending mean cost (ties in load order). */
  using Ranked = std::vector<Entry>;
  void offer(std::unordered_map<std::string, Ranked>& map, const std::string& key, const Entry& e,
             bool is_key);
  const Entry* lookup(const Target& target, const std::string& wkey) const;
  /** The first entry of a ranked list whose record fits its template (see the file comment). */
  const Entry* first_valid(const Ranked& r) const;
  bool fits(const Record& rec) const;
  void load_checked(const std::vector<Record>& records, bool checked);

  std::vector<std::shared_ptr<const Record>> records_;
  std::unordered_map<std::string, Ranked> best_by_targetkey_, best_by_model_;
  std::unordered_map<std::string, Entry> user_defined_;
  std::vector<std::string> key_order_;  // (key, wkey) of best_by_targetkey_ in first-seen order
  // check_record verdicts per record ("" = fits), filled lazily (queries may come from threads).
  mutable std::mutex verdict_mu_;
  mutable std::unordered_map<const Record*, std::string> verdicts_;
};

/** Root context: hands out FallbackConfigEntity objects (cached per target string and workload)
 *  and records which workloads fell back. */
class FallbackContext : public DispatchContext {
 public:
  /** Do not warn (TVM's `silent`). The fallback is still recorded in the summary. */
  bool silent = false;

  /** Store a config for (str(target), workload) (TVM FallbackContext.update). */
  void update(const Target& target, const Json& workload, ConfigEntity cfg);
  /** Forget the cached fallback for a workload (TVM `clear_fallback_cache`). */
  void clear_fallback_cache(const Target& target, const Json& workload);

  /** Number of distinct (target, workload) pairs that fell back since start / reset_summary(). */
  size_t fallback_count() const;
  /** Human summary: "N workload(s) used a fallback configuration:" followed by one line each. */
  void print_summary(std::ostream& os) const;
  /** Clear the summary, the warned-once set and the cache. */
  void reset();

 protected:
  ConfigPtr query_inside(const Target& target, const Json& workload,
                         const std::string& wkey) override;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, ConfigPtr> cache_;
  std::set<std::string> warned_;
  std::vector<std::string> fell_back_;
};

/** The process-wide root context. */
FallbackContext& root_fallback_context();

/** Text of TVM's fallback warning for (target, workload). */
std::string fallback_warning_text(const Target& target, const Json& workload);

}  // namespace minitvm::autotune
