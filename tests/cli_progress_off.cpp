// The acclab commands these tests start (support.cpp's run_acclab) print no progress lines: the
// tests check stderr's lines (one line for a refusal, none for a clean run), and a run past 5 s
// would add some (apps/acclab/progress.hpp). tests/cli_progress_test.sh checks the lines.
#include <cstdlib>

namespace {
// Before main, so before any test starts a child; a value set by whoever runs the tests stays.
[[maybe_unused]] const int progress_off = setenv("ACCLAB_PROGRESS_INTERVAL", "0", /*overwrite=*/0);
}  // namespace
