#pragma once
// perftest's option spellings, rewritten to ours before the options are
// parsed, so that a decade of ib_write_bw habits and scripts work here:
// its underscore long names (--report_gbits for --report-gbits), its
// options whose value we spell otherwise (--use_cuda=0 for --mem cuda:0,
// --rate_limit with --rate_units for --rate), and its letters where the
// meaning matches (-V, -S, -T; -F is taken and only noted). A perftest
// option we have no counterpart for is refused, naming what to use instead.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmabench::cli {

/// One row of the man page's alias table.
struct PerftestAlias {
  std::string_view perftest;  ///< "--use_cuda=N"
  std::string_view ours;      ///< "--mem cuda:N"
};
/// The aliases whose spelling is not just ours with '_' for '-'.
const std::vector<PerftestAlias>& perftest_aliases();
/// The --help paragraph (a section of the man page) that lists them.
std::string perftest_spellings_help();

struct Rewritten {
  std::vector<std::string> args;
  std::vector<std::string> notes;  ///< for stderr: "-F: ..." (taken, changes nothing here)
};

/// `args` with perftest's spellings replaced by ours. `ours(name)` says
/// whether a long option name (no dashes) is one of this binary's. Throws
/// UsageError for a perftest option we lack, naming what to use instead.
Rewritten rewrite_perftest_spellings(const std::vector<std::string>& args,
                                     const std::function<bool(std::string_view)>& ours);

/// "--report-gbits" for "--report_gbit" or "--repot-gbits": the nearest of
/// `names` (long names, no dashes) to the unknown `given` ("--foo" or
/// "--foo=v"), when it is near enough to be a slip; empty otherwise.
std::string nearest_option(std::string_view given, const std::vector<std::string>& names);

}  // namespace rdmabench::cli
