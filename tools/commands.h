/** \file
 * Subcommands of the `minitvm` tool. Each tools/cmd_*.cc registers itself:
 *
 *   static int run_inspect(const std::vector<std::string>& args);
 *   MINITVM_COMMAND("inspect", "show config, IR and source of one layer", run_inspect);
 *
 * args excludes the program and command names. Return the process exit code.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace minitvm::tools {

using CommandFn = std::function<int(const std::vector<std::string>&)>;

struct Command {
  std::string name;
  std::string help;
  CommandFn fn;
};

std::vector<Command>& command_registry();

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string help, CommandFn fn) {
    command_registry().push_back({std::move(name), std::move(help), std::move(fn)});
  }
};

}  // namespace minitvm::tools

#define MINITVM_CMD_CONCAT2(a, b) a##b
#define MINITVM_CMD_CONCAT(a, b) MINITVM_CMD_CONCAT2(a, b)
#define MINITVM_COMMAND(name, help, fn)                                                            \
  static ::minitvm::tools::CommandRegistrar MINITVM_CMD_CONCAT(minitvm_cmd_, __LINE__)(name, help, \
                                                                                       fn)
