#include <tuple>
#include <cstdio>
#include <cmath>
#include <vector>
template <int V>
void mm(int m, int n, int k, const double* a, const double* b, double* c) {
  const long na = long(m) * k, nb = long(k) * n, nc = long(m) * n;
  if constexpr (V == 0) {
#pragma acc parallel loop gang tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0.0;
#pragma acc loop reduction(+:sum)
        for (int q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
        c[i * n + j] = sum;
      }
  } else if constexpr (V == 1) {
#pragma acc parallel loop tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0.0;
#pragma acc loop reduction(+:sum)
        for (int q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
        c[i * n + j] = sum;
      }
  } else if constexpr (V == 2) {
#pragma acc parallel loop gang tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0.0;
#pragma acc loop seq reduction(+:sum)
        for (int q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
        c[i * n + j] = sum;
      }
  } else if constexpr (V == 4) {
    const int mt = (m + 31) / 32 * 32, nt = (n + 31) / 32 * 32;
#pragma acc parallel loop gang tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    for (int i = 0; i < mt; ++i)
      for (int j = 0; j < nt; ++j) {
        if (i < m && j < n) {
          double sum = 0.0;
#pragma acc loop reduction(+:sum)
          for (int q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
          c[i * n + j] = sum;
        }
      }
  } else {
#pragma acc parallel loop gang vector tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0.0;
#pragma acc loop seq
        for (int q = 0; q < k; ++q) sum += a[i * k + q] * b[q * n + j];
        c[i * n + j] = sum;
      }
  }
}
template <int V>
void check(int m, int n, int k) {
  std::vector<double> a(long(m) * k), b(long(k) * n), c(long(m) * n, -1), e(long(m) * n);
  for (int i = 0; i < m; ++i) for (int q = 0; q < k; ++q) a[i * k + q] = i + q;
  for (int q = 0; q < k; ++q) for (int j = 0; j < n; ++j) b[q * n + j] = q - j;
  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) { double s = 0; for (int q = 0; q < k; ++q) s += a[i*k+q]*b[q*n+j]; e[i*n+j] = s; }
  mm<V>(m, n, k, a.data(), b.data(), c.data());
  double d = 0; for (long x = 0; x < long(m) * n; ++x) d = std::fmax(d, std::fabs(c[x] - e[x]));
  std::printf("variant %d  %dx%dx%d  max diff %g\n", V, m, n, k, d);
}
int main() {
  for (auto [m, n, k] : {std::tuple{65, 47, 33}, std::tuple{64, 64, 33}, std::tuple{96, 40, 7}, std::tuple{1, 1, 1}, std::tuple{33, 100, 70}, std::tuple{1024, 1000, 64}}) {
    check<0>(m, n, k); check<1>(m, n, k); check<2>(m, n, k); check<3>(m, n, k); check<4>(m, n, k);
  }
}
