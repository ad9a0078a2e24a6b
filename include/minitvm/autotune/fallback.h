/** \file
 * Fallback configurations when no record matches (TVM's reference-log rule, docs/AUTOTVM.md): mimic
 * the closest record of a reference log (TVM's `fallback_with_reference_log`) and split-size
 * fitting (`fallback_split`).
 *
 * A template that got a fallback config (cfg.is_fallback()) defines its knobs as usual (which
 * collects the space with entity 0 everywhere) and then calls fallback_with_reference_log() with
 * the records of load_reference_log() (tophub.h).
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/autotune/record.h"

namespace minitvm::autotune {

/**
 * Split sizes for an axis of length L under per-part upper bounds (-1 = unbounded): from the last
 * part to the first, take the largest divisor of the remaining product that is <= the bound.
 * The result is a full-size list (no -1). Examples: (128, [-1,8,4]) -> [4,8,4];
 * (49, [-1,8,4]) -> [7,7,1]. Throws CompileError when a bound is < 1.
 */
std::vector<int64_t> fallback_split(int64_t length, const std::vector<int64_t>& constraint);

/** Similarity score of a reference config for the split knobs of `space` (sum over split knobs of
 *  |factors(L_i) ∩ factors(product of record sizes)| / |factors(L_i)|). A leading -1 in a record
 *  size is ignored (TVM would fail on it). */
double reference_score(const ConfigSpace& space, const ConfigEntity& ref);

/**
 * TVM `fallback_with_reference_log`: pick the highest-scoring record (strictly greater than the
 * best so far, initial 0: first wins ties, a score of 0 never wins); fit every split knob to it
 * with fallback_split and copy the other knobs by name. Leaves cfg at entity 0 when nothing
 * scores. Returns the chosen record, or nullptr. cfg must be a fallback config whose knobs were
 * defined.
 */
const Record* fallback_with_reference_log(ConfigEntity& cfg, const std::vector<Record>& ref_log);

/** How load_reference_log picks the model when the requested one has no records. */
enum class ReferenceModelRule {
  LastRecord,    ///< TVM v0.6: the model of the file's last record
  MostFrequent,  ///< TVM v0.7+: the model with the most records (first such model on ties)
};

/**
 * Reference records from one log: those of `model` (or the rule's substitute model) whose workload
 * name (workload[0]) is `workload_name` and, when `template_key` is non-empty, whose template key
 * matches; in file order.
 */
std::vector<Record> select_reference_records(const std::vector<Record>& log,
                                             const std::string& model,
                                             const std::string& workload_name,
                                             const std::string& template_key,
                                             ReferenceModelRule rule);

}  // namespace minitvm::autotune
