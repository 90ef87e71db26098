// Errors that acclab reports to the user.
#pragma once

#include <stdexcept>
#include <string>

namespace acclab {

// Bad usage or bad input: the command line prints the message as one line and exits with
// status 2. The message names the argument, parameter, file or line at fault.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace acclab
