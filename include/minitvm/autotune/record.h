/** \file
 * TVM tuning-log records, both formats, read and written byte-compatibly.
 *
 * Format 0.1 (TVM <= v0.6): `{"i": [target, task, args, kwargs, workload, config], "r": [costs,
 * error_no, all_cost, timestamp], "v": 0.1}` with config `{"i": index, "t": template, "c": hash,
 * "e": [[knob, kind, value], ...]}`.
 * Format 0.2 (TVM >= v0.7): `{"input": [target, task, args, kwargs], "config": {"index",
 * "code_hash", "entity"}, "result": [...], "version": 0.2, "tvm_version": "..."}`; the workload is
 * recomputed as (task,) + args.
 *
 * decode_record() validates a line and throws CompileError with the reason; load_records() skips
 * (or, in strict mode, rejects) malformed lines with a warning naming file:line and the reason.
 * encode_record() reproduces the exact bytes TVM writes (Python json.dumps), including the key
 * order of the original line, so decode -> encode is the identity on every TopHub line.
 */
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/autotune/target.h"

namespace minitvm::autotune {

/** MeasureErrorNo of TVM (`autotvm/measure/measure.py`). */
enum class MeasureErrorNo : int {
  NoError = 0,
  InstantiationError = 1,
  CompileHost = 2,
  CompileDevice = 3,
  RuntimeDevice = 4,
  WrongAnswer = 5,
  BuildTimeout = 6,
  RunTimeout = 7,
  UnknownError = 8
};

struct MeasureInput {
  std::string target_str;     ///< target string exactly as in the record
  Target target;              ///< parsed target_str
  std::string task_name;      ///< "topi_nn_conv2d", "conv2d_nchw.cuda", ...
  Json args = Json::array();  ///< task args, raw (tensors as ["TENSOR", shape, dtype])
  Json kwargs = Json::object();
  Json workload = Json::array();  ///< dispatch key: 0.1 the record's own, 0.2 (task,) + args
  ConfigEntity config;
};

struct MeasureResult {
  std::vector<double> costs;  ///< seconds
  int error_no = 0;
  double all_cost = 0;
  double timestamp = 0;
  /** Arithmetic mean of costs (what ApplyHistoryBest compares). */
  double mean_cost() const;
};

struct Record {
  MeasureInput input;
  MeasureResult result;
  /** 0.1 or 0.2 (as read; selects the encoding). */
  double version = 0.2;
  /** "tvm_version" of 0.2 records (nullopt = key absent). */
  std::optional<std::string> tvm_version;
  /** Layout of the original line, so re-encoding is byte-identical; defaults are TVM's order. */
  std::vector<std::string> key_order;
  std::vector<std::string> config_key_order;
  /** Keys TVM ignores but that were present (kept for the round trip). */
  Json extra = Json::object();
  Json config_extra = Json::object();
  /** A 0.1 config whose "t" was the empty string rather than null (empty template_key otherwise
   *  encodes as null, as TVM writes None). */
  bool template_key_empty_string = false;
  /** Where the record came from ("" / 0 for in-memory records). */
  std::string source;
  int line = 0;
};

/** Python-repr text of a workload (TVM's dict key and the text of its warnings), e.g.
 *  `('conv2d', (1, 3, 224, 224, 'float32'), (64, 3, 7, 7, 'float32'), (2, 2), (3, 3), (1, 1),
 * 'NCHW', 'float32')`. */
std::string workload_key(const Json& workload);

/** Workload of a 0.2 task: (task_name,) + args, tensors kept as ("TENSOR", shape, dtype). */
Json workload_v02(const std::string& task_name, const Json& args);
/** Workload of a 0.1 task from args with ["TENSOR", shape, dtype] markers: tensors flattened to
 *  shape + (dtype,), None -> 0, prefixed with the compute name (e.g. "conv2d"). */
Json workload_v01(const std::string& compute_name, const Json& args);

/** Decode one line. Throws CompileError with the reason when the line is malformed. */
Record decode_record(const std::string& line);
/** Encode in the record's own format (version 0.1 or 0.2), Python json.dumps style. */
std::string encode_record(const Record& r);

struct LoadOptions {
  /** Throw CompileError on the first malformed line instead of skipping it. */
  bool strict = false;
  /** Check each record against its template's space where it can be rebuilt (check_record: the
   *  known CUDA templates and the templates registered with the tuner). */
  bool check_index = true;
};

struct SkippedLine {
  std::string file;
  int line = 0;
  std::string reason;
};

/** What one load saw. */
struct LoadReport {
  std::string file;
  int lines = 0;     ///< physical lines
  int comments = 0;  ///< lines starting with '#'
  int blank = 0;     ///< empty or whitespace-only lines (skipped silently)
  int records = 0;   ///< decoded records
  std::vector<SkippedLine> skipped;
};

/** Parse a whole log text (lines separated by '\n'); `name` is used in messages. */
std::vector<Record> load_records_from_string(const std::string& text, const std::string& name,
                                             const LoadOptions& opt = {},
                                             LoadReport* report = nullptr);
/** Load a file. Throws CompileError when it cannot be read. */
std::vector<Record> load_records(const std::string& path, const LoadOptions& opt = {},
                                 LoadReport* report = nullptr);
/** Write records, one encoded line each. */
void save_records(const std::string& path, const std::vector<Record>& records, bool append = false);

/** Rebuilds the space of one of TVM's own templates (whose logs come from TVM, not from a template
 *  registered with the tuner) from a record's task name, template key, workload and target;
 *  nullopt when the record is not one it can rebuild. May throw CompileError (an axis too large to
 *  enumerate, arguments the template rejects). */
using TemplateSpaceFn = std::function<std::optional<ConfigSpace>(
    const std::string& task_name, const std::string& template_key, const Json& workload,
    const Target& target)>;
/** Register the space function of the records of task `task_name`; re-registering replaces it
 *  (returns true, for static init). topi registers TVM's CUDA conv2d direct/winograd, depthwise,
 *  grouped conv2d and dense templates (topi/template_spaces.h), 0.1 and 0.2 task names. */
bool register_template_space(const std::string& task_name, TemplateSpaceFn fn);
/** The space of a record's template, rebuilt by the function registered for its task name; nullopt
 *  when none is registered or it cannot rebuild this record. */
std::optional<ConfigSpace> template_space(const std::string& task_name,
                                          const std::string& template_key, const Json& workload,
                                          const Target& target);

/** Validation of a decoded record beyond its JSON shape: config index inside the template's space
 *  (when the template is one we can rebuild, see template_space). Returns an error reason, or ""
 *  when fine. */
std::string check_record_index(const Record& r);

/**
 * Full validation of a decoded record against its template's space, before any knob is applied:
 * the index (CUDA templates, as check_record_index) and every knob (check_config: names, kinds,
 * split parts and products, candidates). The space comes from template_space() for TVM's CUDA
 * templates (registered by topi), else from the template registered under the record's task name
 * (the tuner's registry, see set_record_space_provider). Returns "" when the record fits or its
 * template is unknown, else the reason naming the knob and its value (no file:line; the caller adds
 * it).
 */
std::string check_record(const Record& r);

/** Supplies the space of a registered template for a record (nullopt: not registered; a non-empty
 *  `error`: the template rejects the record's arguments). */
using RecordSpaceProvider =
    std::function<std::optional<ConfigSpace>(const Record& r, std::string& error)>;
/** Install the provider check_record uses (src/autotune/tuner/task.cc installs the registry's). */
void set_record_space_provider(RecordSpaceProvider fn);

}  // namespace minitvm::autotune
