#include <csignal>

#include "apps/acclab/commands.hpp"
#include "apps/acclab/standard_output.hpp"
#include "core/atomic_file.hpp"
#include "core/host_load.hpp"

int main(int argc, char** argv) {
  acclab::standard_output::begin();
  // A reader that goes away (`acclab run --out - | head -c1`, a FIFO's reader) is a write error
  // reported in one line (EPIPE), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // Then: it may start the program again with OpenMP settings for a busy machine.
  acclab::settle_openmp(argc, argv);
  // A command stopped by Ctrl-C or a job scheduler's SIGTERM says so in one line, and leaves no
  // temporary output behind.
  acclab::install_interrupt_handlers();
  return acclab::cli_main(argc, argv);
}
