#pragma once

namespace acclab {
// The acclab command line. Returns the exit status: 0 all verified, 1 a verification failed,
// 2 bad usage or input (one line on stderr).
int cli_main(int argc, char** argv);
}  // namespace acclab
