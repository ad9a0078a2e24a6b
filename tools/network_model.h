// Loading a network for the commands that take MODEL (compile, run, profile, tune).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/relay/frontend.h"

namespace minitvm::tools {

/** An .onnx file (or any model file that is not a `minitvm compile` output) or a zoo name. */
bool is_network_model(const std::string& model);
/** The graph and params of MODEL: `batch` 0 = the model's own; `input_shapes` tvmc's NAME:[...]. */
relay::frontend::Imported import_network(const std::string& model, int64_t batch,
                                         const std::vector<std::string>& input_shapes = {});

/** `minitvm tune MODEL ...` (tools/cmd_tune_network.cc). */
int run_tune_network(const std::vector<std::string>& args);

}  // namespace minitvm::tools
