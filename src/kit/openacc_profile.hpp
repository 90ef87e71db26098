// The callback acclab registers for every OpenACC profiling event (openacc_profile.cpp), exposed
// so that tests can hand it events the host fallback never raises (kernel launches, uploads).
// Only in builds with OpenACC; <acc_prof.h> is GCC's own header.
#pragma once

#include <acc_prof.h>

namespace acclab::profile::detail {
void openacc_event(acc_prof_info* info, acc_event_info* event, acc_api_info* api);
}
