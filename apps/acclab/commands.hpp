#pragma once

#include <string>
#include <vector>

namespace acclab {
// The acclab command line. Returns the exit status: 0 all verified, 1 a verification failed,
// 2 bad usage or input (one line on stderr).
int cli_main(int argc, char** argv);
// The words this process was run with (argv), which every JSON report records.
const std::vector<std::string>& process_command_line();
}  // namespace acclab
