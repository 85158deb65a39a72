#include "rdmabench/stats/histogram.hpp"

#include <cmath>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"

namespace rdmabench {

namespace {

// Checked before any member uses it: a shift by 64 or more is undefined.
unsigned checked_sub_bucket_bits(unsigned bits) {
  require(bits >= Histogram::kMinSubBucketBits && bits <= Histogram::kMaxSubBucketBits,
          fmt::format("histogram sub-bucket bits {} out of range [{}, {}]", bits,
                      Histogram::kMinSubBucketBits, Histogram::kMaxSubBucketBits));
  return bits;
}

// The inverse of the index in record(): the lowest and highest value that
// share bucket `index`.
std::pair<std::uint64_t, std::uint64_t> bucket_range(std::size_t index, unsigned bits) {
  const std::uint64_t top = index >> bits;
  const unsigned shift = top == 0 ? 0 : static_cast<unsigned>(top - 1);
  const std::uint64_t low = (std::uint64_t{index} - (std::uint64_t{shift} << bits)) << shift;
  return {low, low + ((std::uint64_t{1} << shift) - 1)};
}

}  // namespace

Histogram::Histogram(unsigned sub_bucket_bits)
    : sub_bucket_bits_(checked_sub_bucket_bits(sub_bucket_bits)),
      shift_base_(63 - sub_bucket_bits_),
      exact_mask_((std::uint64_t{2} << sub_bucket_bits_) - 1),
      counts_(std::size_t{65 - sub_bucket_bits_} << sub_bucket_bits_, 0) {}

void Histogram::recenter(std::uint64_t first) noexcept {
  // A fixed center, say an outlying first sample, would leave the variance
  // to a subtraction that loses up to log10(N) digits on top of the sums' own
  // rounding. Moving it to the mean each time the count doubles keeps
  // sum_dev_ near zero, at O(log N) moves in all.
  if (count_ == 0) {
    center_ = static_cast<double>(first);
  } else {
    const double n = static_cast<double>(count_);
    const double delta = sum_dev_ / n;
    sum_dev_sq_ = std::max(0.0, sum_dev_sq_ - sum_dev_ * delta);
    sum_dev_ -= n * delta;
    center_ += delta;
  }
  recenter_at_ = std::max<std::uint64_t>(2, 2 * count_);
}

void Histogram::merge(const Histogram& other) {
  require(other.sub_bucket_bits_ == sub_bucket_bits_,
          fmt::format("cannot merge histograms of different layouts ({} and {} sub-bucket bits)",
                      sub_bucket_bits_, other.sub_bucket_bits_));
  if (other.count_ == 0) return;
  // Chan et al.'s pairwise update of the mean and the sum of squared
  // deviations; the merged sums are taken about the merged mean. The
  // moments of `other` are read before ours change, since it may be *this.
  const double na = static_cast<double>(count_);
  const double nb = static_cast<double>(other.count_);
  const double mean_a = count_ == 0 ? 0 : center_ + sum_dev_ / na;
  const double mean_b = other.center_ + other.sum_dev_ / nb;
  const double m2_a = count_ == 0 ? 0 : std::max(0.0, sum_dev_sq_ - sum_dev_ * sum_dev_ / na);
  const double m2_b = std::max(0.0, other.sum_dev_sq_ - other.sum_dev_ * other.sum_dev_ / nb);
  const double delta = mean_b - mean_a;
  center_ = count_ == 0 ? mean_b : mean_a + delta * nb / (na + nb);
  sum_dev_sq_ = m2_a + m2_b + delta * delta * na * nb / (na + nb);
  sum_dev_ = 0;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  recenter_at_ = std::max<std::uint64_t>(2, 2 * count_);
}

double Histogram::percentile(double percent) const {
  require(count_ > 0, "percentile of an empty histogram");
  require(percent > 0 && percent <= 100, "percentile must be in (0, 100]");
  // The same rank, and the same guard against binary rounding, as
  // percentile_nearest_rank(), so both agree wherever buckets are exact.
  const double exact = percent * static_cast<double>(count_) / 100.0;
  auto rank = static_cast<std::uint64_t>(std::ceil(exact - exact * 1e-12));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  if (rank == 1) return static_cast<double>(min_);
  if (rank == count_) return static_cast<double>(max_);
  std::size_t index = 0;
  for (std::uint64_t seen = counts_[0]; seen < rank;) seen += counts_[++index];
  // Narrowing to [min, max] only moves the midpoint towards the sample, and
  // makes a bucket holding a single distinct value exact.
  const auto [low, high] = bucket_range(index, sub_bucket_bits_);
  return std::midpoint(static_cast<double>(std::max(low, min_)),
                       static_cast<double>(std::min(high, max_)));
}

LatencySummary Histogram::summarize(double ticks_per_us) const {
  require(count_ > 0, "no latency samples to summarise");
  require(ticks_per_us > 0 && std::isfinite(ticks_per_us),
          "ticks per microsecond must be positive and finite");
  LatencySummary s;
  s.count = static_cast<std::size_t>(count_);
  const double n = static_cast<double>(count_);
  const double mean_dev = sum_dev_ / n;
  s.min = static_cast<double>(min_) / ticks_per_us;
  s.max = static_cast<double>(max_) / ticks_per_us;
  s.mean = (center_ + mean_dev) / ticks_per_us;
  s.stdev = std::sqrt(std::max(0.0, sum_dev_sq_ / n - mean_dev * mean_dev)) / ticks_per_us;
  s.median = percentile(50) / ticks_per_us;
  s.p90 = percentile(90) / ticks_per_us;
  s.p99 = percentile(99) / ticks_per_us;
  s.p99_9 = percentile(99.9) / ticks_per_us;
  s.p99_99 = percentile(99.99) / ticks_per_us;
  return s;
}

double Histogram::relative_error() const noexcept {
  return std::ldexp(1.0, -static_cast<int>(sub_bucket_bits_ + 1));
}

}  // namespace rdmabench
