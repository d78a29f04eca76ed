#pragma once
// The surrogate model: an ensemble of gradient-boosted tree regressors (xgboost) on the static features,
// trained on the log of the objective. The ensemble members see different row and column subsamples, so
// their spread says where the model is unsure. A classifier of the same kind predicts which configurations
// will fail (invalid), so the search learns to avoid them.
#include <cstdint>
#include <memory>
#include <vector>

namespace rpl::autotune {

struct ModelOptions {
  int members = 3;        // ensemble size
  int rounds = 60;        // boosting rounds per member
  int max_depth = 5;
  double eta = 0.2;
  std::uint64_t seed = 0;
};

// Rows of `cols` floats, row major.
struct Matrix {
  std::vector<float> data;
  std::size_t cols = 0;
  std::size_t rows() const { return cols ? data.size() / cols : 0; }
};

// Rows that many models predict in turn (every configuration of a space, its features computed once): the
// prediction of a row does not depend on the other rows, so predicting them all and keeping some gives what
// predicting those alone would, without rebuilding their features and xgboost's matrix every round.
class PreparedRows {
 public:
  explicit PreparedRows(const Matrix& x);
  ~PreparedRows();
  PreparedRows(const PreparedRows&) = delete;
  PreparedRows& operator=(const PreparedRows&) = delete;
  std::size_t rows() const { return rows_; }

 private:
  friend class TreeEnsemble;
  struct Handle;
  std::unique_ptr<Handle> handle_;
  std::size_t rows_ = 0;
};

class TreeEnsemble {
 public:
  TreeEnsemble();
  ~TreeEnsemble();
  TreeEnsemble(TreeEnsemble&&) noexcept;
  TreeEnsemble& operator=(TreeEnsemble&&) noexcept;
  // classify: labels are 0/1 and predictions probabilities; otherwise a regression.
  void fit(const Matrix& x, const std::vector<float>& y, const ModelOptions& options, bool classify = false);
  // Mean and standard deviation over the members, per row.
  void predict(const Matrix& x, std::vector<float>& mean, std::vector<float>* spread = nullptr) const;
  // The same for every prepared row.
  void predict(const PreparedRows& x, std::vector<float>& mean, std::vector<float>* spread = nullptr) const;
  bool trained() const;

 private:
  struct Members;
  std::unique_ptr<Members> members_;
};

// k-fold cross-validated R² of the regression (each point predicted by a model that never saw it).
// Returns NaN when there are fewer than 2 * folds points or no variance.
double cross_validated_r2(const Matrix& x, const std::vector<float>& y, int folds, const ModelOptions& options);

}  // namespace rpl::autotune
