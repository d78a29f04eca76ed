#include "autotune/surrogate.hpp"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "support/errors.hpp"
#include "support/ordered_parallel.hpp"

namespace rpl::autotune {
namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw Error(ExitCode::Internal, std::string("xgboost ") + what + ": " + XGBGetLastError());
}

struct DMatrix {
  DMatrixHandle handle = nullptr;
  DMatrix(const Matrix& x) {
    check(XGDMatrixCreateFromMat(x.data.data(), x.rows(), x.cols, std::nanf(""), &handle), "DMatrix");
  }
  ~DMatrix() { XGDMatrixFree(handle); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
};

struct Booster {
  BoosterHandle handle = nullptr;
  explicit Booster(const DMatrix& train) { check(XGBoosterCreate(&train.handle, 1, &handle), "booster"); }
  ~Booster() { XGBoosterFree(handle); }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  void set(const char* name, const std::string& value) { check(XGBoosterSetParam(handle, name, value.c_str()), name); }
};

// xgboost's global configuration is per thread (dmlc::ThreadLocalStore), so every thread that trains says it.
void quiet_once() {
  thread_local const bool done = [] {
    XGBSetGlobalConfig("{\"verbosity\": 0}");
    return true;
  }();
  (void)done;
}

// Mean and standard deviation of the boosters' predictions of every row of `d`.
void predict_with(const std::vector<std::unique_ptr<Booster>>& boosters, DMatrixHandle d, std::size_t rows,
                  std::vector<float>& mean, std::vector<float>* spread) {
  // Each member predicts on a thread of its own; the sums are taken in member order, as one thread would.
  mean.assign(rows, 0.0f);
  std::vector<double> sum(rows, 0.0), sum_sq(rows, 0.0);
  ordered_parallel<std::vector<float>>(
      boosters.size(), static_cast<unsigned>(boosters.size()),
      [&](std::size_t m) {
        bst_ulong len = 0;
        const float* out = nullptr;
        check(XGBoosterPredict(boosters[m]->handle, d, 0, 0, 0, &len, &out), "predict");
        return std::vector<float>(out, out + std::min<std::size_t>(rows, len));
      },
      [&](std::size_t, std::vector<float> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
          sum[i] += out[i];
          sum_sq[i] += static_cast<double>(out[i]) * out[i];
        }
      });
  const double k = static_cast<double>(boosters.size());
  if (spread) spread->assign(rows, 0.0f);
  for (std::size_t i = 0; i < rows; ++i) {
    mean[i] = static_cast<float>(sum[i] / k);
    if (spread) (*spread)[i] = static_cast<float>(std::sqrt(std::max(0.0, sum_sq[i] / k - (sum[i] / k) * (sum[i] / k))));
  }
}

}  // namespace

struct TreeEnsemble::Members {
  std::vector<std::unique_ptr<Booster>> boosters;
  std::vector<std::unique_ptr<DMatrix>> train;  // a booster keeps a reference to its training matrix
};

TreeEnsemble::TreeEnsemble() = default;
TreeEnsemble::~TreeEnsemble() = default;
TreeEnsemble::TreeEnsemble(TreeEnsemble&&) noexcept = default;
TreeEnsemble& TreeEnsemble::operator=(TreeEnsemble&&) noexcept = default;

bool TreeEnsemble::trained() const { return members_ && !members_->boosters.empty(); }

void TreeEnsemble::fit(const Matrix& x, const std::vector<float>& y, const ModelOptions& options, bool classify) {
  members_ = std::make_unique<Members>();
  const int count = std::max(1, options.members);
  const bool single = count == 1;
  // Training is most of the search's own time on a real space; the members train side by side, a thread each
  // (three members on two cores still finish sooner than two after one). The tuner measures nothing meanwhile
  // (fit runs between measurements), so the cores are free. Each member has its own matrix, booster, seed and
  // one xgboost thread, so the trees are the same, bit for bit, however many train at once.
  using Trained = std::pair<std::unique_ptr<DMatrix>, std::unique_ptr<Booster>>;
  ordered_parallel<Trained>(static_cast<std::size_t>(count), static_cast<unsigned>(count), [&](std::size_t m) {
    quiet_once();
    auto train = std::make_unique<DMatrix>(x);
    check(XGDMatrixSetFloatInfo(train->handle, "label", y.data(), y.size()), "labels");
    auto b = std::make_unique<Booster>(*train);
    b->set("objective", classify ? "binary:logistic" : "reg:squarederror");
    b->set("tree_method", "exact");
    b->set("nthread", "1");  // deterministic: one thread per member
    b->set("max_depth", std::to_string(options.max_depth));
    b->set("eta", std::to_string(options.eta));
    b->set("min_child_weight", "1");
    b->set("lambda", "1");
    b->set("subsample", single ? "1" : "0.75");
    b->set("colsample_bytree", single ? "1" : "0.8");
    b->set("seed", std::to_string(options.seed * 7919 + m + 1));
    if (!classify) {
      const double mean = std::accumulate(y.begin(), y.end(), 0.0) / std::max<std::size_t>(1, y.size());
      b->set("base_score", std::to_string(mean));
    }
    for (int i = 0; i < options.rounds; ++i) check(XGBoosterUpdateOneIter(b->handle, i, train->handle), "train");
    return Trained{std::move(train), std::move(b)};
  }, [&](std::size_t, Trained member) {
    members_->train.push_back(std::move(member.first));
    members_->boosters.push_back(std::move(member.second));
  });
}

struct PreparedRows::Handle {
  DMatrix matrix;
  explicit Handle(const Matrix& x) : matrix(x) {}
};

PreparedRows::PreparedRows(const Matrix& x) : handle_(std::make_unique<Handle>(x)), rows_(x.rows()) {}
PreparedRows::~PreparedRows() = default;

void TreeEnsemble::predict(const Matrix& x, std::vector<float>& mean, std::vector<float>* spread) const {
  DMatrix d(x);
  predict_with(members_->boosters, d.handle, x.rows(), mean, spread);
}

void TreeEnsemble::predict(const PreparedRows& x, std::vector<float>& mean, std::vector<float>* spread) const {
  predict_with(members_->boosters, x.handle_->matrix.handle, x.rows(), mean, spread);
}

double cross_validated_r2(const Matrix& x, const std::vector<float>& y, int folds, const ModelOptions& options) {
  const std::size_t n = y.size();
  if (folds < 2 || n < static_cast<std::size_t>(2 * folds)) return std::nan("");
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(options.seed + 12345);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<float> predicted(n, 0.0f);
  ModelOptions single = options;
  single.members = 1;
  for (int f = 0; f < folds; ++f) {
    Matrix train, test;
    train.cols = test.cols = x.cols;
    std::vector<float> train_y;
    std::vector<std::size_t> test_rows;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = order[i];
      Matrix& into = (static_cast<int>(i % folds) == f) ? test : train;
      into.data.insert(into.data.end(), x.data.begin() + r * x.cols, x.data.begin() + (r + 1) * x.cols);
      if (&into == &train) train_y.push_back(y[r]);
      else test_rows.push_back(r);
    }
    TreeEnsemble model;
    model.fit(train, train_y, single);
    std::vector<float> p;
    model.predict(test, p);
    for (std::size_t i = 0; i < test_rows.size(); ++i) predicted[test_rows[i]] = p[i];
  }
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ss_res += (y[i] - predicted[i]) * (y[i] - predicted[i]);
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  if (ss_tot <= 0) return std::nan("");
  return 1.0 - ss_res / ss_tot;
}

}  // namespace rpl::autotune
