// acclab report and run/ladder --report: the result files read and compared by compare's code,
// handed as one JSON document to scripts/report-html.py, whose page is written atomically.
#include "apps/acclab/report_command.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "compare_command.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "core/peak_rates.hpp"
#include "core/text_format.hpp"
#include "path_option.hpp"
#include "safe_text.hpp"

#ifndef ACCLAB_SCRIPTS_DIR
#error "ACCLAB_SCRIPTS_DIR: the build names the source tree's scripts folder"
#endif

namespace acclab {
namespace {

}  // namespace

std::optional<std::filesystem::path> scripts_folder() {
  const char* from_environment = std::getenv("ACCLAB_SCRIPTS");
  if (from_environment && *from_environment) return std::filesystem::path(from_environment);
  std::error_code ignored;
  const auto exe_dir = std::filesystem::read_symlink("/proc/self/exe", ignored).parent_path();
  for (const auto& folder : {exe_dir.parent_path() / "share" / "acclab" / "scripts",
                             std::filesystem::path(ACCLAB_SCRIPTS_DIR)}) {
    if (::access((folder / "report-html.py").c_str(), X_OK) == 0) return folder;
  }
  return std::nullopt;
}

namespace {

// The page's renderer, report-html.py in scripts_folder().
std::filesystem::path renderer() {
  const char* from_environment = std::getenv("ACCLAB_SCRIPTS");
  const auto folder = scripts_folder();
  if (folder && ::access((*folder / "report-html.py").c_str(), X_OK) == 0) {
    return *folder / "report-html.py";
  }
  if (folder) {
    throw UsageError(fmt::format(
        "cannot draw the report: no executable report-html.py in {} (ACCLAB_SCRIPTS names "
        "acclab's scripts folder)",
        from_environment));
  }
  throw UsageError(fmt::format(
      "cannot draw the report: no executable report-html.py in ../share/acclab/scripts beside "
      "acclab (where it is installed) nor in {} (the source tree it was built in); "
      "ACCLAB_SCRIPTS names acclab's scripts folder",
      ACCLAB_SCRIPTS_DIR));
}

struct ChildResult {
  int wait_status = 0;
  std::string out, err;
};

[[noreturn]] void system_failure(const std::string& what) {
  throw std::runtime_error(fmt::format("report: {} ({})", what, std::strerror(errno)));
}

// Runs `program` with `arguments`, `input` on its stdin, and returns what it wrote on stdout and
// stderr once it has ended. One poll loop feeds the one and drains the others, so that neither
// side waits on a full pipe.
ChildResult run_child(const std::filesystem::path& program,
                      const std::vector<std::string>& arguments, const std::string& input) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) system_failure("pipe");
  if (::pipe2(out, O_CLOEXEC) != 0) system_failure("pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) system_failure("pipe");
  std::vector<std::string> words = {program.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) system_failure("fork");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec: OpenMP's threads may exist.
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execv(argv[0], argv.data());
    const char message[] = "cannot start the script (exec failed)\n";
    [[maybe_unused]] const auto ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ChildResult result;
  int to_child = in[1];
  std::size_t written = 0;
  if (input.empty()) {
    ::close(to_child);
    to_child = -1;
  } else {
    ::fcntl(to_child, F_SETFL, O_NONBLOCK);
  }
  int from_child[2] = {out[0], err[0]};
  std::string* into[2] = {&result.out, &result.err};
  while (from_child[0] >= 0 || from_child[1] >= 0) {
    pollfd fds[3];
    int count = 0;
    for (int k = 0; k < 2; ++k) {
      if (from_child[k] >= 0) fds[count++] = {from_child[k], POLLIN, 0};
    }
    if (to_child >= 0) fds[count++] = {to_child, POLLOUT, 0};
    if (::poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      system_failure("poll");
    }
    for (int i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == to_child) {
        const ssize_t n = ::write(to_child, input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        // A script that stopped reading (it failed) says why on stderr: stop feeding it.
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
          ::close(to_child);
          to_child = -1;
        }
        continue;
      }
      const int k = fds[i].fd == from_child[0] ? 0 : 1;
      char buffer[65536];
      const ssize_t n = ::read(from_child[k], buffer, sizeof buffer);
      if (n > 0) {
        into[k]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(from_child[k]);
        from_child[k] = -1;
      }
    }
  }
  if (to_child >= 0) ::close(to_child);
  while (::waitpid(pid, &result.wait_status, 0) < 0) {
    if (errno != EINTR) system_failure("waitpid");
  }
  return result;
}

// The last line of `text` that is not blank, or "".
std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return "";
  const std::size_t newline = text.rfind('\n', end);
  const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(start, end + 1 - start);
}

// Why a child failed, in one line: its own last line on stderr, and how it ended.
std::string failure_of(const ChildResult& child) {
  const std::string last = last_line(child.err);
  const std::string how =
      WIFSIGNALED(child.wait_status)
          ? fmt::format("stopped by signal {}", WTERMSIG(child.wait_status))
          : fmt::format("exit status {}", WEXITSTATUS(child.wait_status));
  return printable(last.empty() ? how : fmt::format("{} ({})", last, how));
}

bool succeeded(const ChildResult& child) {
  return WIFEXITED(child.wait_status) && WEXITSTATUS(child.wait_status) == 0;
}

// Throws UsageError unless the renderer is there and can import matplotlib.
void check_renderer() {
  const ChildResult child = run_child(renderer(), {"--check"}, "");
  if (!succeeded(child)) {
    throw UsageError(fmt::format("cannot draw the report here: {}", failure_of(child)));
  }
}

// The page of `input` (the document report-html.py reads), written to `path` whole or not at all.
void draw_and_write(const std::string& option, const std::string& path,
                    const nlohmann::json& input) {
  const ChildResult child = run_child(renderer(), {}, json_text(input));
  if (!succeeded(child)) {
    throw std::runtime_error(
        fmt::format("report: drawing the page failed: {}", failure_of(child)));
  }
  if (child.out.find("</html>") == std::string::npos) {
    throw std::runtime_error("report: the renderer wrote no whole page");
  }
  AtomicFile page(path, option);
  page.write(child.out);
  page.commit();
}

// One file of the page as report-html.py reads it. A file written before results recorded peaks
// gets, as gpu_peak_gflops, those of its first GPU where acclab knows the card by name
// (published_gpu_peak_rates), so that the page takes every compute roof from acclab's figures.
nlohmann::json page_file(const std::string& label, const std::string& path,
                         const nlohmann::json& document) {
  nlohmann::json file = {{"label", label}, {"path", path}, {"document", document}};
  const auto devices = document.find("devices");
  if (devices == document.end() || !devices->is_array()) return file;
  for (const auto& device : *devices) {
    if (!device.is_object()) continue;
    const auto recorded = device.find("peak_gflops");
    const auto name = device.find("name");
    if ((recorded == device.end() || recorded->is_null()) && name != device.end() &&
        name->is_string()) {
      if (const auto peaks = published_gpu_peak_rates(name->get<std::string>())) {
        file["gpu_peak_gflops"] = peaks->json();
      }
    }
    break;  // the first GPU's, as the page draws
  }
  return file;
}

}  // namespace

void add_report_options(CLI::App* cmd, ReportArgs& args) {
  cmd->add_option("files", args.files,
                  "result files of acclab run or ladder --format json (with several, the first "
                  "is compare's baseline)");
  cmd->add_option("--out", args.out, "the HTML page to write (one self-contained file)")
      ->check(non_empty_path())
      ->required();
}

int report_command(const ReportArgs& args, const std::vector<std::string>& command_line) {
  if (mpi::size() > 1) throw UsageError("report: reads files in one process, not under mpirun");
  if (args.files.empty()) {
    throw UsageError("report: no result file given (acclab run or ladder --format json --out "
                     "FILE writes one)");
  }
  // Before reading: the page must not replace one of the files it shows.
  const std::vector<std::filesystem::path> inputs(args.files.begin(), args.files.end());
  check_output_path("--out", args.out, inputs);
  check_renderer();
  const ComparedResults read = read_and_compare(args.files, command_line);
  nlohmann::json files = nlohmann::json::array();
  for (std::size_t i = 0; i < read.documents.size(); ++i) {
    files.push_back(page_file(read.labels[i], read.paths[i], read.documents[i]));
  }
  draw_and_write("--out", args.out,
                 {{"files", files},
                  {"comparison", read.comparison},
                  {"not_compared", read.not_compared},
                  {"command_line", command_line}});
  return 0;
}

void check_report_page(const std::string& option, const std::string& path) {
  check_output_path(option, path);
  check_renderer();
}

void write_run_report_page(const std::string& option, const std::string& path,
                           const nlohmann::json& document, const std::string& shown_path,
                           const std::vector<std::string>& command_line) {
  const nlohmann::json file = page_file("A", shown_path, document);
  draw_and_write(option, path,
                 {{"files", nlohmann::json::array({file})},
                  {"comparison", nullptr},
                  {"not_compared", "one run"},
                  {"command_line", command_line}});
}

}  // namespace acclab
