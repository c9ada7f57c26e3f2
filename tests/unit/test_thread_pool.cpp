// Intra-op threads (stdlib/runtime/thread_pool.h): every chunk runs once, errors reach the caller
// once, nesting and a busy pool fall back to the caller's thread, and the kernels that split their
// work give the same bits at every thread count.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "stdlib/runtime/binary.h"
#include "stdlib/runtime/matmul.h"
#include "stdlib/runtime/thread_pool.h"
#include "stdlib/runtime/unary.h"

namespace rt = weft::rt;

namespace {

std::vector<float> randomValues(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("thread pool: every chunk runs once, on the pool's threads") {
  for (int64_t threads : {1, 2, 3, 8}) {
    rt::ThreadPool pool(threads);
    rt::PoolScope scope(&pool);
    std::vector<std::atomic<int>> runs(1000);
    std::atomic<int> badWorker{0};
    for (int round = 0; round < 20; ++round)
      rt::parallelFor(int64_t(runs.size()), [&](int64_t c, int worker) {
        runs[size_t(c)]++;
        if (worker < 0 || worker >= threads) badWorker++;
      });
    for (auto& r : runs) CHECK(r.load() == 20);
    CHECK(badWorker.load() == 0);
  }
}

TEST_CASE("thread pool: a chunk's exception reaches the caller once and the pool goes on") {
  rt::ThreadPool pool(3);
  rt::PoolScope scope(&pool);
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH_AS(rt::parallelFor(64,
                                         [&](int64_t c, int) {
                                           ran++;
                                           if (c % 7 == 3) throw std::runtime_error("chunk failed");
                                         }),
                         "chunk failed", std::runtime_error);
    CHECK(ran.load() >= 1);
  }
  std::atomic<int64_t> sum{0};
  rt::parallelFor(100, [&](int64_t c, int) { sum += c; });
  CHECK(sum.load() == 4950);
}

TEST_CASE("thread pool: a kernel inside a chunk, or beside a busy pool, runs on its caller's thread") {
  rt::ThreadPool pool(2);
  rt::PoolScope scope(&pool);
  std::atomic<int64_t> inner{0};
  rt::parallelFor(8, [&](int64_t, int) {
    rt::parallelFor(5, [&](int64_t c, int worker) {
      CHECK(worker == 0);
      inner += c;
    });
  });
  CHECK(inner.load() == 8 * 10);
  // Two threads entering one pool: whoever finds it busy computes alone, and both finish.
  std::atomic<int64_t> total{0};
  std::thread other([&] {
    rt::PoolScope same(&pool);
    for (int i = 0; i < 200; ++i) rt::parallelFor(16, [&](int64_t, int) { total++; });
  });
  for (int i = 0; i < 200; ++i) rt::parallelFor(16, [&](int64_t, int) { total++; });
  other.join();
  CHECK(total.load() == 2 * 200 * 16);
}

TEST_CASE("thread pool: thread counts from set_threads and WEFT_NUM_THREADS are checked") {
  rt::OwnedPool owned;
  CHECK(!owned.set(0));
  CHECK(!owned.set(-3));
  CHECK(!owned.set(rt::kMostThreads + 1));
  CHECK(owned.set(2));
  CHECK(owned.get()->size() == 2);
  CHECK(owned.set(3));
  CHECK(owned.get()->size() == 3);
  int64_t n = -1;
  for (const char* bad : {"0", "-2", "abc", "2x", "", "99999999999999999999", "5000"}) {
    setenv("WEFT_NUM_THREADS", bad, 1);
    CHECK_MESSAGE(!rt::threadsVariable(n).empty(), bad);
    CHECK(n == 0);
  }
  setenv("WEFT_NUM_THREADS", "3", 1);
  CHECK(rt::threadsVariable(n).empty());
  CHECK(n == 3);
  unsetenv("WEFT_NUM_THREADS");
  CHECK(rt::threadsVariable(n).empty());
  CHECK(n == 0);
}

TEST_CASE("intra-op threads: products and elementwise loops give the same bits at 1, 2 and 3 threads") {
  struct Case {
    int64_t m, k, n;
    bool transA, transB, accumulate;
  };
  // Row and column splits, uneven last blocks, transposed operands, a bias already in c.
  const Case cases[] = {{256, 784, 512, false, false, true}, {784, 256, 512, true, false, false},
                        {256, 512, 784, false, true, false}, {1000, 300, 70, false, false, false},
                        {33, 700, 1999, true, true, true},   {64, 64, 64, false, false, false}};
  for (const Case& c : cases) {
    const auto a = randomValues(c.m * c.k, 1), b = randomValues(c.k * c.n, 2), bias = randomValues(c.m * c.n, 3);
    std::vector<float> want;
    for (int64_t threads : {1, 2, 3}) {
      rt::ThreadPool pool(threads);
      rt::PoolScope scope(&pool);
      std::vector<float> got = bias;
      std::vector<char> ws(size_t(rt::gemmWorkspaceBytes<float>(c.m, c.k, c.n)) + 64);
      for (int rep = 0; rep < 3; ++rep) {
        got = bias;
        rt::gemm(a.data(), b.data(), got.data(), c.m, c.k, c.n, ws.data(), c.accumulate, c.transA, c.transB);
      }
      if (threads == 1) want = got;
      CHECK_MESSAGE(sameBits(got, want), c.m, "x", c.k, "x", c.n, " at ", threads, " threads");
    }
  }
  // A batch of small products, shared out a product per thread.
  const rt::Shape ab{48}, bb{48}, cb{48};
  const auto a = randomValues(48 * 40 * 50, 4), b = randomValues(48 * 50 * 60, 5);
  std::vector<float> want;
  for (int64_t threads : {1, 2, 3}) {
    rt::ThreadPool pool(threads);
    rt::PoolScope scope(&pool);
    std::vector<float> got(48 * 40 * 60);
    rt::batchedMatmul(a.data(), ab, b.data(), bb, got.data(), cb, 40, 50, 60);
    if (threads == 1) want = got;
    CHECK(sameBits(got, want));
  }
  // Elementwise: a loop long enough to split, on an unaligned output.
  const int64_t n = 5 * rt::kElementwiseBlock + 13;
  const auto x = randomValues(n + 1, 6), y = randomValues(n, 7);
  std::vector<float> wantExp, wantMul;
  for (int64_t threads : {1, 2, 3}) {
    rt::ThreadPool pool(threads);
    rt::PoolScope scope(&pool);
    std::vector<float> e(static_cast<size_t>(n) + 1), p(static_cast<size_t>(n));
    rt::unaryKernel<rt::Exp>(x.data() + 1, e.data() + 1, n);
    rt::binaryKernel<rt::Mul>(x.data(), rt::Shape{n}, y.data(), rt::Shape{n}, p.data(), rt::Shape{n});
    if (threads == 1) wantExp = e, wantMul = p;
    CHECK(sameBits(e, wantExp));
    CHECK(sameBits(p, wantMul));
  }
}
