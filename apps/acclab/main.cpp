#include "apps/acclab/commands.hpp"

int main(int argc, char** argv) { return acclab::cli_main(argc, argv); }
