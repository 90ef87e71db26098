// acclab apsp across MPI ranks: which steps run across them, a refusal on one rank made every
// rank's, and the graph rank 0 reads sent to every rank.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "workloads/apsp/graph_solve.hpp"

namespace acclab::apsp {
namespace {

// The blob graph_from_rank_0 broadcasts: counts, then the names, then the edges' bytes.
void put_count(std::string& blob, std::int64_t value) {
  blob.append(reinterpret_cast<const char*>(&value), sizeof value);
}
void put_text(std::string& blob, const std::string& text) {
  put_count(blob, std::int64_t(text.size()));
  blob += text;
}
std::int64_t take_count(const std::string& blob, std::size_t& at) {
  std::int64_t value = 0;
  std::memcpy(&value, blob.data() + at, sizeof value);
  at += sizeof value;
  return value;
}
std::string take_text(const std::string& blob, std::size_t& at) {
  const auto length = std::size_t(take_count(blob, at));
  std::string text = blob.substr(at, length);
  at += length;
  return text;
}

std::string serialised(const UserGraph& user) {
  std::string blob;
  put_count(blob, user.graph.n);
  put_count(blob, user.base);
  put_count(blob, user.seed ? user.seed->n : 0);
  put_count(blob, user.seed && user.seed->semiring == Semiring::min_plus ? 1 : 0);
  put_text(blob, user.source);
  put_text(blob, user.kind);
  static_assert(std::is_trivially_copyable_v<io::Edge>);
  put_count(blob, std::int64_t(user.graph.edges.size()));
  blob.append(reinterpret_cast<const char*>(user.graph.edges.data()),
              user.graph.edges.size() * sizeof(io::Edge));
  return blob;
}

UserGraph deserialised(const std::string& blob) {
  UserGraph user;
  std::size_t at = 0;
  user.graph.n = take_count(blob, at);
  user.base = take_count(blob, at);
  const std::int64_t seed_n = take_count(blob, at);
  const bool min_plus = take_count(blob, at) != 0;
  if (seed_n > 0) {
    Problem seed;
    seed.n = int(seed_n);
    seed.generator = Generator::seed;
    seed.semiring = min_plus ? Semiring::min_plus : Semiring::max_plus;
    user.seed = seed;
  }
  user.source = take_text(blob, at);
  user.kind = take_text(blob, at);
  user.graph.edges.resize(std::size_t(take_count(blob, at)));
  std::memcpy(user.graph.edges.data(), blob.data() + at,
              user.graph.edges.size() * sizeof(io::Edge));
  return user;
}

// Rank 0's bytes on every rank, in pieces that MPI's int counts take.
std::string broadcast_blob(const std::string& blob) {
  const std::size_t size = std::stoull(mpi::broadcast(std::to_string(blob.size())));
  constexpr std::size_t piece = std::size_t(1) << 30;
  std::string all;
  all.reserve(size);
  for (std::size_t at = 0; at < size; at += piece) {
    all += mpi::broadcast(mpi::is_root() ? blob.substr(at, piece) : std::string());
  }
  return all;
}

}  // namespace

bool runs_across_ranks(const Registry& registry, const std::string& variant) {
  std::vector<std::string> steps;
  bool distributed = false;
  for (const Variant& v : registry.variants()) {
    if (v.workload != "apsp" || !v.distributed) continue;
    steps.push_back(v.name);
    distributed = distributed || v.name == variant;
  }
  if (!distributed && !variant.empty() && mpi::size() > 1) {
    throw UsageError(fmt::format(
        "--variant {}: {} is not an MPI step; under mpirun with {} ranks acclab apsp runs only "
        "the MPI steps ({})",
        variant, variant, mpi::size(), fmt::join(steps, ", ")));
  }
  // None named: default_graph_variant takes an MPI step under mpirun.
  return distributed || (variant.empty() && mpi::size() > 1);
}

void refuse_on_every_rank(const std::function<void()>& check) {
  std::string refusal;
  int status = 0;
  try {
    check();
  } catch (const UsageError& e) {
    if (mpi::size() == 1) throw;
    refusal = e.what();
    status = 2;
  } catch (const std::exception& e) {  // out of memory, say: the others must not wait for it
    if (mpi::size() == 1) throw;
    refusal = e.what();
    status = 1;
  }
  const mpi::Agreement agreed = mpi::agree(status, refusal);
  if (agreed.status == 2) throw UsageError(agreed.message);
  if (agreed.status != 0) throw std::runtime_error(agreed.message);
}

UserGraph graph_from_rank_0(const std::function<UserGraph()>& read) {
  if (mpi::size() == 1) return read();
  UserGraph user;
  refuse_on_every_rank([&] {
    if (mpi::is_root()) user = read();
  });
  return deserialised(broadcast_blob(mpi::is_root() ? serialised(user) : std::string()));
}

}  // namespace acclab::apsp
