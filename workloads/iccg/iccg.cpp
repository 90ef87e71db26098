// The ICCG problem: the course's mesh and source, the multicolour orderings, the permuted
// system, parameters and verification.
#include "workloads/iccg/iccg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::iccg {

Poisson poisson_problem(int nx, int ny, int nz) {
  Poisson s;
  Csr& a = s.a;
  a.n = std::int64_t(nx) * ny * nz;
  a.diagonal.assign(static_cast<std::size_t>(a.n), 0.0);
  a.start.assign(static_cast<std::size_t>(a.n) + 1, 0);
  s.b.resize(static_cast<std::size_t>(a.n));
  const auto index = [&](int i, int j, int k) { return (std::int64_t(k) * ny + j) * nx + i; };
  for (int k = 0; k < nz; ++k) {
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        const std::int64_t row = index(i, j, k);
        const auto couple = [&](int ii, int jj, int kk) {
          a.column.push_back(index(ii, jj, kk));
          a.value.push_back(-1.0);  // area / distance of a unit cube's face
          a.diagonal[row] += 1.0;
        };
        if (k > 0) couple(i, j, k - 1);
        if (j > 0) couple(i, j - 1, k);
        if (i > 0) couple(i - 1, j, k);
        if (i < nx - 1) couple(i + 1, j, k);
        if (j < ny - 1) couple(i, j + 1, k);
        if (k < nz - 1) couple(i, j, k + 1);
        if (k == nz - 1) a.diagonal[row] += 2.0;  // phi = 0 half a cell above the centre
        a.start[row + 1] = std::int64_t(a.column.size());
        s.b[row] = double((i + 1) + (j + 1) + (k + 1));  // times the unit volume
      }
    }
  }
  return s;
}

namespace {

// Breadth-first levels from the least-coupled unvisited row, component after component, the
// levels numbered on across components so that level sets stay uncoupled.
std::vector<std::int64_t> levels_of(const Csr& a, std::int64_t& count) {
  std::vector<std::int64_t> level(static_cast<std::size_t>(a.n), -1);
  std::vector<std::int64_t> by_degree(static_cast<std::size_t>(a.n));
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](std::int64_t x, std::int64_t y) {
    return a.start[x + 1] - a.start[x] < a.start[y + 1] - a.start[y];
  });
  count = 0;
  std::queue<std::int64_t> queue;
  for (std::int64_t root : by_degree) {
    if (level[root] >= 0) continue;
    const std::int64_t base = count;
    level[root] = base;
    queue.push(root);
    while (!queue.empty()) {
      const std::int64_t v = queue.front();
      queue.pop();
      count = std::max(count, level[v] + 1);
      for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
        const std::int64_t w = a.column[e];
        if (level[w] < 0) {
          level[w] = level[v] + 1;
          queue.push(w);
        }
      }
    }
  }
  return level;
}

}  // namespace

Ordering order_rows(const Csr& a, int colors) {
  std::vector<std::int64_t> color(static_cast<std::size_t>(a.n), 0);
  std::int64_t count = 0;
  if (colors <= 0) {
    std::int64_t levels = 0;
    const auto level = levels_of(a, levels);
    for (std::int64_t v = 0; v < a.n; ++v) {
      const std::int64_t rcm = levels - 1 - level[v];
      color[v] = colors == 0 ? level[v] : colors == -1 ? rcm : rcm % -colors;
    }
    count = colors <= -2 ? std::min<std::int64_t>(-colors, levels) : levels;
  } else {
    // Greedy in row order, each row trying colour (row mod c) first, then the others.
    count = colors;
    std::vector<std::int64_t> mark;
    for (std::int64_t v = 0; v < a.n; ++v) {
      mark.assign(static_cast<std::size_t>(count), 0);
      for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
        if (a.column[e] < v) mark[color[a.column[e]]] = 1;
      }
      std::int64_t chosen = -1;
      for (int t = 0; t < colors && chosen < 0; ++t) {
        const std::int64_t c = (v + t) % colors;
        if (!mark[c]) chosen = c;
      }
      for (std::int64_t c = colors; c < count && chosen < 0; ++c) {
        if (!mark[c]) chosen = c;
      }
      if (chosen < 0) chosen = count++;
      color[v] = chosen;
    }
  }
  // Coupled rows in one colour (a graph whose levels are not independent): the later row moves
  // to the first extra colour none of its neighbours has.
  std::vector<char> used;
  for (std::int64_t v = 0; v < a.n; ++v) {
    bool clash = false;
    for (std::int64_t e = a.start[v]; e < a.start[v + 1] && !clash; ++e) {
      clash = a.column[e] < v && color[a.column[e]] == color[v];
    }
    if (!clash) continue;
    used.assign(static_cast<std::size_t>(count) + 1, 0);
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) used[color[a.column[e]]] = 1;
    std::int64_t c = count;
    for (std::int64_t extra = count; extra-- > 0;) {
      if (!used[extra]) c = extra;
    }
    if (c == count) ++count;
    color[v] = c;
  }
  // Colours renumbered without gaps, rows grouped by colour in their old order.
  std::vector<std::int64_t> size(static_cast<std::size_t>(count), 0);
  for (std::int64_t v = 0; v < a.n; ++v) ++size[color[v]];
  std::vector<std::int64_t> renumber(static_cast<std::size_t>(count), -1);
  Ordering o;
  o.color_start.push_back(0);
  for (std::int64_t c = 0; c < count; ++c) {
    if (size[c] == 0) continue;
    renumber[c] = std::int64_t(o.color_start.size()) - 1;
    o.color_start.push_back(o.color_start.back() + size[c]);
  }
  o.colors = int(o.color_start.size()) - 1;
  std::vector<std::int64_t> next(o.color_start.begin(), o.color_start.end() - 1);
  o.new_of_old.resize(static_cast<std::size_t>(a.n));
  o.old_of_new.resize(static_cast<std::size_t>(a.n));
  for (std::int64_t v = 0; v < a.n; ++v) {
    const std::int64_t at = next[renumber[color[v]]]++;
    o.new_of_old[v] = at;
    o.old_of_new[at] = v;
  }
  return o;
}

void group_rows_by_width(const Csr& a, Ordering& o) {
  for (int c = 0; c < o.colors; ++c) {
    const auto first = o.old_of_new.begin() + o.color_start[c];
    const auto last = o.old_of_new.begin() + o.color_start[c + 1];
    std::stable_sort(first, last, [&](std::int64_t x, std::int64_t y) {
      return a.start[x + 1] - a.start[x] > a.start[y + 1] - a.start[y];
    });
  }
  for (std::int64_t r = 0; r < a.n; ++r) o.new_of_old[o.old_of_new[r]] = r;
}

bool coupled_rows_share_a_color(const Csr& a, const Ordering& o) {
  std::vector<int> color_of_new(static_cast<std::size_t>(a.n));
  for (int c = 0; c < o.colors; ++c) {
    for (std::int64_t r = o.color_start[c]; r < o.color_start[c + 1]; ++r) color_of_new[r] = c;
  }
  for (std::int64_t v = 0; v < a.n; ++v) {
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
      if (color_of_new[o.new_of_old[v]] == color_of_new[o.new_of_old[a.column[e]]]) return true;
    }
  }
  return false;
}

Csr permuted(const Csr& a, const Ordering& o) {
  Csr p;
  p.n = a.n;
  p.diagonal.resize(static_cast<std::size_t>(a.n));
  p.start.assign(static_cast<std::size_t>(a.n) + 1, 0);
  p.column.reserve(a.column.size());
  p.value.reserve(a.value.size());
  std::vector<std::pair<std::int64_t, double>> row;
  for (std::int64_t r = 0; r < a.n; ++r) {
    const std::int64_t v = o.old_of_new[r];
    p.diagonal[r] = a.diagonal[v];
    row.clear();
    for (std::int64_t e = a.start[v]; e < a.start[v + 1]; ++e) {
      row.push_back({o.new_of_old[a.column[e]], a.value[e]});
    }
    std::sort(row.begin(), row.end());
    for (const auto& [c, x] : row) {
      p.column.push_back(c);
      p.value.push_back(x);
    }
    p.start[r + 1] = std::int64_t(p.column.size());
  }
  return p;
}

double norm2(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  // Squares below 2^-1022 (of entries below 2^-511) lose their bits; next to a sum of at least
  // 2^-600 what they lose is below 2^-1022 x n, far under the sum's own rounding.
  if (std::isfinite(sum) && sum >= 0x1p-600) return std::sqrt(sum);
  double largest = 0;
  for (double v : x) {
    if (std::isnan(v)) return v;
    largest = std::max(largest, std::abs(v));
  }
  if (largest == 0 || std::isinf(largest)) return largest;
  const int e = std::ilogb(largest);
  sum = 0;
  for (double v : x) {
    // Exact but where v was already negligible: the largest becomes [1, 2).
    const double scaled = std::ldexp(v, -e);
    sum += scaled * scaled;
  }
  return std::ldexp(std::sqrt(sum), e);
}

int scale_exponent(const std::vector<double>& v) {
  double largest = 0;
  for (double x : v) {
    if (!std::isfinite(x)) return 0;
    largest = std::max(largest, std::abs(x));
  }
  return largest == 0 ? 0 : std::ilogb(largest);
}

int matrix_scale_exponent(const Csr& a) {
  double largest = 0;
  for (const std::vector<double>* part : {&a.diagonal, &a.value}) {
    for (double x : *part) {
      if (!std::isfinite(x)) return 0;
      largest = std::max(largest, std::abs(x));
    }
  }
  return largest == 0 ? 0 : std::ilogb(largest);
}

namespace {

// v times 2^e, exactly where the result is normal: one multiplication by 2^e where that is a
// double (|e| <= 1000), else ldexp.
struct PowerOfTwo {
  int e;
  double factor = std::ldexp(1.0, std::clamp(e, -1000, 1000));
  double operator()(double v) const {
    return e >= -1000 && e <= 1000 ? v * factor : std::ldexp(v, e);
  }
};

}  // namespace

double true_relative_residual(const Csr& a, const std::vector<double>& b,
                              const std::vector<double>& x) {
  // A's, x's and b's largest magnitudes each scaled to [1, 2): every product of A and x is then
  // below 4 and a row's sum below 4 x its width. b - A x is taken at the larger of the two
  // scales (b's, A x's), where neither side overflows and what underflows on the smaller side is
  // below the other's rounding.
  const int ea = matrix_scale_exponent(a);
  const int ex = scale_exponent(x), eb = scale_exponent(b);
  const int e = std::max(ea + ex, eb);  // the scale of b - A x
  const PowerOfTwo down_a{-ea}, down_x{-ex}, ax_to_e{ea + ex - e}, b_to_e{-e}, b_to_eb{-eb};
  std::vector<double> r(static_cast<std::size_t>(a.n)), scaled_b(static_cast<std::size_t>(a.n));
  for (std::int64_t i = 0; i < a.n; ++i) {
    double ax = down_a(a.diagonal[i]) * down_x(x[i]);
    for (std::int64_t k = a.start[i]; k < a.start[i + 1]; ++k) {
      ax += down_a(a.value[k]) * down_x(x[a.column[k]]);
    }
    r[i] = b_to_e(b[i]) - ax_to_e(ax);
    scaled_b[i] = b_to_eb(b[i]);
  }
  const double rr = norm2(r), bb = norm2(scaled_b);
  if (std::isnan(rr) || std::isnan(bb)) return NAN;
  if (bb == 0) return rr == 0 ? 0.0 : HUGE_VAL;
  // ||r|| / ||b|| = (rr 2^e) / (bb 2^eb).
  return std::ldexp(rr / bb, e - eb);
}

std::int64_t bandwidth(const Csr& a) {
  std::int64_t band = 0;
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      band = std::max(band, std::abs(a.column[e] - i));
    }
  }
  return band;
}

std::vector<double> reference_solve(const Csr& a, const std::vector<double>& b) {
  const std::int64_t n = a.n, band = bandwidth(a), width = band + 1;
  // Row i of L holds columns i - band .. i at offsets 0 .. band.
  std::vector<long double> l(static_cast<std::size_t>(n * width), 0.0L);
  const auto at = [&](std::int64_t i, std::int64_t j) -> long double& {
    return l[static_cast<std::size_t>(i * width + (j - i + band))];
  };
  for (std::int64_t i = 0; i < n; ++i) {
    at(i, i) = a.diagonal[i];
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      if (a.column[e] < i) at(i, a.column[e]) += a.value[e];
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t first = std::max<std::int64_t>(0, i - band);
    for (std::int64_t j = first; j <= i; ++j) {
      long double sum = at(i, j);
      for (std::int64_t k = std::max(first, j - band); k < j; ++k) sum -= at(i, k) * at(j, k);
      if (j < i) {
        at(i, j) = sum / at(j, j);
      } else if (sum > 0) {
        at(i, i) = std::sqrt(sum);
      } else {
        return {};
      }
    }
  }
  std::vector<long double> y(b.begin(), b.end());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = std::max<std::int64_t>(0, i - band); k < i; ++k) y[i] -= at(i, k) * y[k];
    y[i] /= at(i, i);
  }
  for (std::int64_t i = n; i-- > 0;) {
    y[i] /= at(i, i);
    for (std::int64_t k = std::max<std::int64_t>(0, i - band); k < i; ++k) y[k] -= at(i, k) * y[i];
  }
  return std::vector<double>(y.begin(), y.end());
}

bool reference_solve_fits(std::int64_t rows, std::int64_t band) {
  return double(rows) * double(band) * double(band) / 2 <= 1e8;
}

double reference_solve_bytes(std::int64_t rows, std::int64_t band) {
  // The band of L and the solution, in long double, and the result in double.
  return double(rows) * ((double(band) + 2) * sizeof(long double) + sizeof(double));
}

double mesh_smallest_eigenvalue(int nz) {
  const double half_angle = M_PI / (4.0 * nz);
  return 4 * std::sin(half_angle) * std::sin(half_angle);
}

namespace {

// Each parameter of the Problem, read here and nowhere else.
Problem parse_problem(const Params& params) {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("nx", &Problem::nx).integer("ny", &Problem::ny).integer("nz", &Problem::nz);
    f.integer("colors", &Problem::colors).real("eps", &Problem::eps);
    f.integer("max_iterations", &Problem::max_iterations);
    return f;
  }();
  Problem p;
  fields.fill(params, p);
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

void refuse_unreachable_tolerance(const std::string& option, double tol) {
  if (tol < std::numeric_limits<double>::epsilon()) {
    throw UsageError(fmt::format("{}: below double precision's {:.2g}, no solve can reach it",
                                 option, std::numeric_limits<double>::epsilon()));
  }
}

Workload make_workload() {
  Workload w;
  w.name = "iccg";
  w.description = "course ICCG: multicolour IC(0)-preconditioned CG, finite-volume Poisson";
  w.params = {
      {.key = "nx", .help = "cells along x", .presets = presets_of("128", "16", "256")},
      {.key = "ny", .help = "cells along y", .presets = presets_of("128", "12", "256")},
      {.key = "nz", .help = "cells along z", .presets = presets_of("128", "10", "256")},
      {.key = "colors",
       .help = "the course's -c: 0 CM, -1 RCM, <= -2 CM-RCM with |c| colours, >= 2 multicolour",
       .presets = presets_of("-20", "-10", "-20"),
       .minimum = -1e6,
       .maximum = 1e6},
      {.key = "eps",
       .type = ParamType::real,
       .help = "stop when ||r|| / ||b|| < eps",
       .presets = same_in_all_presets("1e-8"),
       .minimum = 0,
       .maximum = 1},
      {.key = "max_iterations",
       .help = "give up after this many",
       .presets = same_in_all_presets("10000"),
       .maximum = 1e9},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t nx = p.nx, ny = p.ny, nz = p.nz;
    // Rows are counted in ints: fewer than 2^31.
    constexpr std::int64_t max_rows = (std::int64_t(1) << 31) - 1;
    if (ny > max_rows / nx || nz > max_rows / (nx * ny)) {
      throw UsageError(fmt::format("--set nx={} ny={} nz={}: 2^31 cells or more", nx, ny, nz));
    }
    if (p.colors == 1) {
      throw UsageError("--set colors=1: expected 0 (CM), -1 (RCM), <= -2 (CM-RCM) or >= 2");
    }
    refuse_unreachable_tolerance(fmt::format("--set eps={:g}", p.eps), p.eps);
  };
  // The mesh matrix (kept for the residual check) and its permuted copy (a diagonal, 6
  // couplings of a column and a value and n + 1 offsets: 112 bytes a row, and b), the ordering
  // (2 permutations), the solver's x and 5 work vectors, the serial solve's x and, while it
  // runs, its work vectors, x back in the mesh's numbering; and the direct solve where it is
  // made (rows x nx ny band).
  w.host_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t n = p.rows(), band = std::int64_t(p.nx) * p.ny;
    const double direct = reference_solve_fits(n, band) ? reference_solve_bytes(n, band) : 0;
    return double(n) * (2 * 120.0 + 16 + 8 * 6 + 8 * 6 + 8) + direct;
  };
  w.device_bytes = [](const Params& params) {
    return double(problem_of(params).rows()) * (7 * 16.0 + 8 * 8.0);
  };
  return w;
}

IccgInstance::IccgInstance(const Params& params) : p_(problem_of(params)) {}

void IccgInstance::use_system(Csr a, std::vector<double> b, double shift,
                              std::int64_t min_saved_slots) {
  mesh_ = {std::move(a), std::move(b)};
  user_system_ = true;
  factor_scale_ = 1 + shift;
  min_saved_slots_ = min_saved_slots;
}

void IccgInstance::setup() {
  if (!user_system_) mesh_ = poisson_problem(p_.nx, p_.ny, p_.nz);
  ordering_ = order_rows(mesh_.a, p_.colors);
  if (user_system_) group_rows_by_width(mesh_.a, ordering_);  // as solve_matrix orders
  if (coupled_rows_share_a_color(mesh_.a, ordering_)) {
    throw std::logic_error("iccg: the ordering put two coupled rows in one colour");
  }
  a_ = permuted(mesh_.a, ordering_);
  b_.resize(mesh_.b.size());
  for (std::int64_t v = 0; v < mesh_.a.n; ++v) b_[ordering_.new_of_old[v]] = mesh_.b[v];
}

void IccgInstance::corrupt_result() {
  if (!solution_.x.empty()) solution_.x[solution_.x.size() / 2] += 1.0;
}

}  // namespace acclab::iccg
