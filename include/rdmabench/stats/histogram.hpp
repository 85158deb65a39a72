#pragma once
/// @file
/// Log-linear latency histogram (in the spirit of HdrHistogram) for runs too
/// long to keep every sample: fixed memory, whole-run percentiles with a
/// stated relative error, exact count/min/max/mean/stdev.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rdmabench/stats/stats.hpp"

namespace rdmabench {

/// Histogram of unsigned 64-bit timer ticks over the whole uint64 range.
///
/// Layout, with S = sub_bucket_bits(): every value below 2^(S+1) has its own
/// bucket (exact). Above that, each power-of-two range [2^k, 2^(k+1)) is split
/// into 2^S equal buckets of width 2^(k-S), so a bucket's width is at most
/// 2^-S of its smallest value. There are (65 - S) * 2^S buckets, allocated at
/// construction; record() never allocates.
///
/// Error bound: a percentile is reported as the midpoint of its bucket (the
/// bucket first narrowed to [min, max]), so it lies strictly within
/// relative_error() = 2^-(S+1) of the exact nearest-rank sample, i.e. within
/// 0.39% at the default S = 7 (7424 buckets, 58 KiB). Rank 1 and rank N report
/// the exact min and max, and any percentile below 2^(S+1) ticks is exact.
class Histogram {
 public:
  static constexpr unsigned kDefaultSubBucketBits = 7;
  static constexpr unsigned kMinSubBucketBits = 1;
  static constexpr unsigned kMaxSubBucketBits = 12;

  /// Allocates every bucket. Throws Error unless `sub_bucket_bits` is in
  /// [kMinSubBucketBits, kMaxSubBucketBits].
  explicit Histogram(unsigned sub_bucket_bits = kDefaultSubBucketBits);

  /// Adds one sample. O(1), no allocation, no branch on the value's size.
  void record(std::uint64_t value) noexcept {
    // OR-ing in the exact range's mask puts every small value at shift 0
    // without a branch; above it the shift keeps S+1 significant bits.
    const unsigned shift =
        shift_base_ - static_cast<unsigned>(std::countl_zero(value | exact_mask_));
    ++counts_[(std::size_t{shift} << sub_bucket_bits_) + (value >> shift)];
    if (count_ == recenter_at_) [[unlikely]]
      recenter(value);
    ++count_;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    // Sums of deviations from a center near the mean, not of raw values: a
    // raw sum of squares cancels catastrophically when the mean dwarfs the
    // spread.
    const double d = static_cast<double>(value) - center_;
    sum_dev_ += d;
    sum_dev_sq_ += d * d;
  }

  /// Adds every sample of `other`. Throws Error if its layout (sub-bucket
  /// bits) differs.
  void merge(const Histogram& other);

  /// Nearest-rank percentile in ticks, as percentile_nearest_rank() defines
  /// it (rank ceil(p/100*N)), within relative_error() of the exact sample.
  /// Throws Error when empty or unless `percent` is in (0, 100].
  double percentile(double percent) const;

  /// Summary in microseconds: count, exact min/max/mean/population stdev,
  /// and bucketed percentiles. Throws Error when empty or unless
  /// `ticks_per_us` is positive and finite.
  LatencySummary summarize(double ticks_per_us) const;

  /// The bound on a percentile's relative error: 2^-(S+1).
  double relative_error() const noexcept;

  std::uint64_t count() const noexcept { return count_; }
  /// Smallest and largest recorded value; meaningless while count() == 0.
  std::uint64_t min() const noexcept { return min_; }
  std::uint64_t max() const noexcept { return max_; }
  unsigned sub_bucket_bits() const noexcept { return sub_bucket_bits_; }
  std::size_t bucket_count() const noexcept { return counts_.size(); }
  /// Bytes held by this histogram, buckets included; fixed at construction.
  std::size_t storage_bytes() const noexcept {
    return sizeof(*this) + counts_.capacity() * sizeof(std::uint64_t);
  }

 private:
  unsigned sub_bucket_bits_;
  unsigned shift_base_;       // 63 - S
  std::uint64_t exact_mask_;  // 2^(S+1) - 1
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  std::uint64_t recenter_at_ = 0;  // the count at which center_ moves next
  double center_ = 0;
  double sum_dev_ = 0;     // sum of (x - center_)
  double sum_dev_sq_ = 0;  // sum of (x - center_)^2

  // Moves center_ to the running mean (to `first` when empty) and schedules
  // the next move at twice the count.
  void recenter(std::uint64_t first) noexcept;
};

}  // namespace rdmabench
