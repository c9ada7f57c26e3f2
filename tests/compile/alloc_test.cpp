// Steady-state calls of compiled code allocate nothing (SPEC §9): malloc and its kin are counted
// around repeated calls of the compiled MLP, a CNN, a CNN's train step (the gradients of conv2d
// and the pools, Adam), reductions and functions with loops, after a first call has sized their
// arenas. Also: exports of one program share its variables, and open sizes are checked when a
// call runs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "addprint.h"
#include "classify_images.h"
#include "cnn_train_step.h"
#include "crops.h"
#include "collatz.h"
#include "damped.h"
#include "pair.h"
#include "predict.h"
#include "scaled.h"

#include "counting_malloc.h"

#define CHECK(cond)                                              \
  do {                                                           \
    if (!(cond)) {                                               \
      std::fprintf(stderr, "alloc_test: failed: %s\n", #cond);   \
      return 1;                                                  \
    }                                                            \
  } while (0)

int main() {
  std::shared_ptr<mlp::State> m;
  std::shared_ptr<control::State> c;
  std::shared_ptr<state::State> s;
  std::shared_ptr<cnn::State> kc;
  CHECK(cnn::State::load(cnn::kDefaultWeightsDir, kc).ok());
  cnn::ClassifyImages cnn(kc);
  cnn::Crops crops(kc);
  std::vector<float> img(5 * 12 * 12 * 3, 0.5f), probs(5 * 4), grid(6 * 8, 1.5f), sink(64);
  int64_t is[3] = {5, 12, 12}, ps[2], gs[2] = {6, 8};
  const int64_t imgShape[4] = {5, 12, 12, 3};
  int64_t cs[6][2];
  float* co[6];
  for (int i = 0; i < 6; ++i) co[i] = sink.data();
  (void)is;
  std::shared_ptr<cnn_train::State> ts;
  CHECK(cnn_train::State::load(cnn_train::kDefaultWeightsDir, ts).ok());
  cnn_train::CnnTrainStep train(ts);
  std::vector<float> timg(4 * 10 * 9 * 3, 0.25f), tout(3 * 3 * 3 * 8 + 2 * 3 * 8 * 6 + 36 * 4 + 1);
  std::vector<int32_t> labels = {0, 1, 2, 3};
  const int64_t timgShape[4] = {4, 10, 9, 3}, labelsShape[1] = {4};
  int64_t tshapes[4][4];
  for (size_t i = 0; i < timg.size(); ++i) timg[i] = float(i % 17) / 17.0f;
  auto runTrain = [&] {
    float* o = tout.data();
    return train.call(timg.data(), timgShape, labels.data(), labelsShape, o, 1, tshapes[0], o + 1, 216, tshapes[1],
                      o + 217, 288, tshapes[2], o + 505, 144, tshapes[3]).ok();
  };
  auto runCnn = [&] { return cnn.call(img.data(), imgShape, probs.data(), 20, ps).ok(); };
  auto runCrops = [&] {
    return crops.call(grid.data(), gs, co[0], 64, cs[0], co[1], 64, cs[1], co[2], 64, cs[2], co[3], 64, cs[3],
                      co[4], 64, cs[4], co[5], 64, cs[5]).ok();
  };
  CHECK(mlp::State::load(mlp::kDefaultWeightsDir, m).ok());
  CHECK(control::State::load(control::kDefaultWeightsDir, c).ok());
  CHECK(state::State::load(state::kDefaultWeightsDir, s).ok());
  mlp::Predict predict(m);
  control::Collatz collatz(c);
  control::Damped damped(c);

  std::vector<float> x(64 * 20, 0.25f), y(64 * 5);
  int64_t xs[2] = {64, 20}, ys[2];
  int32_t n = 97, steps = 0;
  int32_t loops = 9;
  std::vector<float> d(11, 0.5f), dout(11);
  int64_t ds[1] = {11}, dos[1];
  int64_t none[1];
  CHECK(predict.call(x.data(), xs, y.data(), int64_t(y.size()), ys).ok());  // sizes the arenas
  CHECK(collatz.call(&n, nullptr, &steps, 1, none).ok());
  CHECK(damped.call(d.data(), ds, &loops, nullptr, dout.data(), 11, dos).ok());
  CHECK(steps == 118);
  CHECK(runCnn() && runCrops());
  CHECK(runTrain());
  counting = true;
  for (int i = 0; i < 100; ++i) {
    CHECK(predict.call(x.data(), xs, y.data(), int64_t(y.size()), ys).ok());
    CHECK(collatz.call(&n, nullptr, &steps, 1, none).ok());
    CHECK(damped.call(d.data(), ds, &loops, nullptr, dout.data(), 11, dos).ok());
    CHECK(runCnn() && runCrops());
    CHECK(runTrain());
  }
  counting = false;
  std::printf("allocations in 600 steady-state calls: %ld\n", allocations);
  CHECK(allocations == 0);

  // Wrong sizes are errors, not undefined behaviour, and compute nothing.
  int64_t bad[2] = {64, 19};
  weft::rt::Status st = predict.call(x.data(), bad, y.data(), int64_t(y.size()), ys);
  CHECK(!st.ok());
  std::printf("%s\n", st.message().c_str());
  st = predict.call(x.data(), xs, y.data(), 10, ys);
  CHECK(!st.ok() && ys[0] == 64 && ys[1] == 5);
  std::printf("%s\n", st.message().c_str());

  // What open sizes must meet is checked when the call runs: two batches that concat joins
  // side by side must agree, and an empty batch has no last row.
  std::shared_ptr<ops::State> os;
  CHECK(ops::State::load(ops::kDefaultWeightsDir, os).ok());
  ops::Pair pair(os);
  std::vector<float> pa(4 * 3, 1.0f), pb(4 * 3, 2.0f), pout(64);
  int64_t pas[2] = {4, 3}, pbs[2] = {2, 3}, pempty[2] = {0, 3}, pos[3][2];
  st = pair.call(pa.data(), pas, pb.data(), pbs, pout.data(), 64, pos[0], pout.data(), 64, pos[1], pout.data(), 64, pos[2]);
  CHECK(!st.ok() && st.message().find("concat: sizes 2 and 4 differ") != std::string::npos);
  std::printf("%s\n", st.message().c_str());
  st = pair.call(pa.data(), pempty, pb.data(), pempty, pout.data(), 64, pos[0], pout.data(), 64, pos[1], pout.data(), 64,
                 pos[2]);
  CHECK(!st.ok() && st.message().find("getitem: index -1 is out of range for a dimension of size 0") != std::string::npos);
  std::printf("%s\n", st.message().c_str());
  pbs[0] = 4;
  CHECK(pair.call(pa.data(), pas, pb.data(), pbs, pout.data(), 64, pos[0], pout.data(), 64, pos[1], pout.data(), 64, pos[2]).ok());

  // Two exports of one program share its variable: what addprint assigns, scaled reads.
  state::Addprint addprint(s);
  state::Scaled scaled(s);
  float a = 5.0f, r = 0, k = 2.0f;
  CHECK(addprint.call(&a, nullptr, &r, 1, none).ok() && r == 6.0f);
  CHECK(addprint.call(&a, nullptr, &r, 1, none).ok() && r == 11.0f);
  CHECK(scaled.call(&k, nullptr, &r, 1, none).ok() && r == 22.0f);
  std::printf("shared state: ok\n");
  return 0;
}
