#include <csignal>

#include "apps/acclab/commands.hpp"
#include "core/host_load.hpp"

int main(int argc, char** argv) {
  // A reader that goes away (`acclab run --out - | head -c1`, a FIFO's reader) is a write error
  // reported in one line (EPIPE), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // Then: it may start the program again with OpenMP settings for a busy machine.
  acclab::settle_openmp(argc, argv);
  return acclab::cli_main(argc, argv);
}
