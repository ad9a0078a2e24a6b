// The `minitvm` command: subcommands are registered in tools/commands.h.
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  std::cerr << "usage: minitvm <command> [args]\n";
  return argc > 1 ? 2 : 0;
}
