// The table of perftest's spellings (src/perftest_parameters.c's usage is
// the reference for what each means) and the rewrite that applies it.

#include "cli/perftest_spellings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "cli/options.hpp"
#include "rdmabench/compat/read_double.hpp"

namespace rdmabench::cli {

namespace {

/// A perftest option with no counterpart here, and what to use instead.
struct Lacking {
  char letter;                ///< its short form, or 0
  std::string_view name;      ///< its long form, no dashes
  std::string_view instead;
};

const Lacking kLacking[] = {
    {'e', "events", "completions are always busy-polled here (event-driven completions are not offered yet); "
                    "--cpu-util shows what the polling costs"},
    {'X', "vector", "completions are always busy-polled here, so there is no completion vector to choose"},
    {'C', "report-cycles", "latencies are reported in microseconds; --clock tsc times them with the TSC"},
    {'H', "report-histogram", "--dump-samples FILE writes every latency sample"},
    {'U', "report-unsorted", "--dump-samples FILE writes every latency sample, in the order measured"},
    {'L', "hop_limit", "the hop limit is not settable yet: the kernel's default applies"},
    {'O', "dualport", "one port per run: run one pair per port with -i"},
    {'w', "limit_bw", "pass/fail limits on bandwidth are rdma_sweep's (--min-gbps)"},
    {'y', "limit_msgrate", "pass/fail limits are rdma_sweep's (--min-gbps)"},
    {'z', "comm_rdma_cm", "-R connects the QPs with rdma_cm; the options travel over the TCP control port"},
    {'W', "report-counters", "every run reads the port's counters around each size: the console prints "
                             "those that moved, the JSON keeps them (docs/counters.md)"},
    {'f', "margin", "a -D run leaves out its first tenth as warm-up"},
    {0, "report-both", "with -b the JSON and CSV give each direction's figures"},
    {0, "report-per-port", "one port per run"},
    {0, "reversed", "swap the roles: run the client where the server was"},
    {0, "latency_gap", "--rate R paces a latency test's sends (open loop)"},
    {0, "mr_per_qp", "every QP shares one memory region here"},
    {0, "odp", "on-demand paging is not offered"},
    {0, "mmap", "--mem host, cuda[:N] or rocm[:N]; mmap'd files are not offered"},
    {0, "use_neuron", "--mem host, cuda[:N] or rocm[:N]"},
    {0, "use_hl", "--mem host, cuda[:N] or rocm[:N]"},
    {0, "use_mlu", "--mem host, cuda[:N] or rocm[:N]"},
    {0, "use-null-mr", "null memory regions are not offered"},
    {0, "flow_label", "the flow label is not settable yet: the kernel's default applies"},
    {0, "bind_source_ip", "the source address follows the route to the server"},
    {0, "ipv6", "give the server's IPv6 address: the GID follows the address family"},
    {0, "ipv6-addr", "give the server's IPv6 address as the client's argument"},
    {0, "dont_xchg_versions", "the two sides always exchange and check their options"},
    {0, "dlid", "the peer's LID comes from its endpoint message"},
    {0, "force-link", "the link layer is the port's"},
    {0, "retry_count", "-u sets the RC ack timeout; the retry count is 7"},
    {0, "wait_destroy", "resources are freed as each run ends"},
    {0, "payload_file_path", "--validate fills and checks the buffer with a pattern of its own"},
    {0, "use_old_post_send", "ibv_post_send is the only post path here"},
    {0, "perform_warm_up", "every test warms up: --warmup N sets how many iterations"},
    {0, "recv_post_list", "receives are posted one work request at a time"},
    {0, "typical_pkt_size", "--rate paces in software, by message"},
    {0, "connectionless", "a server here serves one client at a time over its control connection; a "
                          "multicast server (-g) counts what its client sends to the group"},
};

/// Aliases whose spelling is more than ours with '_' for '-' (the man page lists these).
const std::vector<PerftestAlias> kAliases = {
    {"--use_cuda=N", "--mem cuda:N"},
    {"--use_cuda_bus_id=BUS", "--mem cuda --cuda-bus-id BUS"},
    {"--use_cuda_dmabuf", "--gdr dmabuf"},
    {"--use_rocm=N", "--mem rocm:N"},
    {"--use_rocm_dmabuf", "--gdr dmabuf"},
    {"--use_hugepages", "--mem hugepage"},
    {"--out_json", "--json perftest_out.json"},
    {"--out_json_file=FILE", "--json FILE"},
    {"--rate_limit=R --rate_units=g|M|p", "--rate RGbps | --rate (R x 1.048576)MBps | --rate Rpps"},
    {"--rate_limit_type=SW", "(the rate is always paced in software)"},
    {"--burst_size=N", "--burst N"},
    {"--bind_source_ip", "(refused: the route's source is used)"},
    {"-g [N], --mcg[=N]", "-g/--mcg: N receiving QPs; 1 without N (perftest's -g today)"},
    {"-M, --MGID=GID", "-M/--mgid GID"},
    {"-V", "--version"},
    {"-S N", "--sl N"},
    {"-T N", "--tclass N"},
    {"-F", "(taken: the CPU frequency check only warns here)"},
    {"-N, --noPeak", "(taken: the peak costs nothing here and is reported anyway)"},
};

std::string dashed(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

[[noreturn]] void refuse(std::string_view given, std::string_view instead) {
  throw UsageError(fmt::format("{} is perftest's option, and has no counterpart here: {}", given, instead));
}

/// What the rewrite collects before it can emit (--rate_limit's parts, --out_json's).
struct Pending {
  std::optional<std::string> rate_limit, rate_units;
  bool out_json = false;
  std::optional<std::string> out_json_file;
  bool memory_given = false;  ///< --mem, --use_cuda or --use_rocm already says what memory
  bool bus_id_given = false;  ///< perftest's --use_cuda_bus_id, which implies CUDA memory
};

std::string rate_text(const Pending& p) {
  const std::string& value = *p.rate_limit;
  const std::string units = p.rate_units.value_or("g");
  if (units == "g" || units == "G") return value + "Gbps";
  if (units == "p" || units == "P") return value + "pps";
  if (units == "M" || units == "m") {
    double mib = 0;
    const auto [end, error] = read_double(value.data(), value.data() + value.size(), mib);
    if (error != std::errc() || end != value.data() + value.size())
      throw UsageError(fmt::format("--rate_limit {} is not a number", value));
    return fmt::format("{}MBps", mib * 1.048576);  // perftest's M is MiB/s; our MB is 10^6 bytes
  }
  throw UsageError(fmt::format("--rate_units {} is unknown: expected g (Gb/s), M (MiB/s) or p (packets/s), "
                               "as perftest", units));
}

class Rewriter {
 public:
  Rewriter(const std::vector<std::string>& args, const std::function<bool(std::string_view)>& ours)
      : args_(args), ours_(ours) {}

  Rewritten run() {
    for (i_ = 0; i_ < args_.size(); ++i_) {
      const std::string& a = args_[i_];
      if (a == "--") {
        out_.args.insert(out_.args.end(), args_.begin() + static_cast<std::ptrdiff_t>(i_), args_.end());
        break;
      }
      if ((a == "-g" || a == "--mcg") && ours_("mcg")) {
        multicast_count(a);
        continue;
      }
      if (a.rfind("--", 0) == 0 && a.size() > 2) long_option(a);
      else if (a.size() >= 2 && a[0] == '-' && a[1] != '-') short_option(a);
      else out_.args.push_back(a);
    }
    finish();
    return std::move(out_);
  }

 private:
  /// The value of the option at i_: after '=', else the next argument.
  std::string value_of(std::string_view given, const std::optional<std::string>& inline_value) {
    if (inline_value) return *inline_value;
    if (i_ + 1 >= args_.size()) throw UsageError(fmt::format("{} needs a value, as in perftest", given));
    return args_[++i_];
  }

  /// perftest's -g takes no value today (one QP attached to the group) and
  /// took the number of QPs once (-g N): ours takes both, a count when one
  /// follows and 1 otherwise (the next word is then the server's address).
  void multicast_count(const std::string& a) {
    const bool count_follows = i_ + 1 < args_.size() && !args_[i_ + 1].empty() &&
                               std::all_of(args_[i_ + 1].begin(), args_[i_ + 1].end(),
                                           [](char c) { return c >= '0' && c <= '9'; });
    out_.args.push_back(count_follows ? a : "--mcg=1");
  }

  void long_option(const std::string& a) {
    const auto eq = a.find('=');
    const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::optional<std::string> inline_value =
        eq == std::string::npos ? std::nullopt : std::optional<std::string>(a.substr(eq + 1));
    if (name == "mem") pending_.memory_given = true;
    if (ours_(name)) {  // ours first: our spelling always means ours
      out_.args.push_back(a);
      return;
    }
    const std::string given = "--" + name;
    if (name == "use_cuda") {
      emit({"--mem", "cuda:" + value_of(given, inline_value)});
      pending_.memory_given = true;
    } else if (name == "use_rocm") {
      emit({"--mem", "rocm:" + value_of(given, inline_value)});
      pending_.memory_given = true;
    } else if (name == "use_cuda_bus_id") {
      emit({"--cuda-bus-id", value_of(given, inline_value)});
      pending_.bus_id_given = true;
    } else if (name == "use_hugepages") {
      emit({"--mem", "hugepage"});
      pending_.memory_given = true;
    } else if (name == "use_cuda_dmabuf" || name == "use_rocm_dmabuf") {  // the latter: AMD's perftest
      emit({"--gdr", "dmabuf"});
    } else if (name == "out_json") {
      pending_.out_json = true;
    } else if (name == "out_json_file") {
      pending_.out_json_file = value_of(given, inline_value);
    } else if (name == "rate_limit") {
      pending_.rate_limit = value_of(given, inline_value);
    } else if (name == "rate_units") {
      pending_.rate_units = value_of(given, inline_value);
    } else if (name == "rate_limit_type") {
      const std::string type = value_of(given, inline_value);
      if (type != "SW" && type != "sw")
        refuse(given + "=" + type, "the rate is paced in software here (--rate_limit_type=SW, or none)");
    } else if (name == "MGID") {
      emit({"--mgid", value_of(given, inline_value)});
    } else if (name == "burst_size") {
      emit({"--burst", value_of(given, inline_value)});
    } else if (name == "CPU-freq") {
      out_.notes.push_back("--CPU-freq (perftest's) is taken: the CPU frequency check only warns here");
    } else if (name == "noPeak") {
      out_.notes.push_back("--noPeak (perftest's) is taken: the peak costs nothing here and is reported anyway");
    } else if (const Lacking* l = lacking(name)) {
      refuse(given, l->instead);
    } else if (name.find('_') != std::string::npos && ours_(dashed(name))) {
      out_.args.push_back("--" + dashed(name) + (inline_value ? "=" + *inline_value : ""));
    } else {
      out_.args.push_back(a);  // unknown: the parser names it, with the nearest of ours
    }
  }

  void short_option(const std::string& a) {
    const char letter = a[1];
    if (ours_(std::string_view(&letter, 1))) {
      out_.args.push_back(a);
      return;
    }
    const std::optional<std::string> attached =
        a.size() > 2 ? std::optional<std::string>(a.substr(2)) : std::nullopt;
    const std::string given = a.substr(0, 2);
    switch (letter) {
      case 'V': emit({"--version"}); return;
      case 'S': emit({"--sl", value_of(given, attached)}); return;
      case 'T': emit({"--tclass", value_of(given, attached)}); return;
      case 'F': out_.notes.push_back("-F (perftest's) is taken: the CPU frequency check only warns here"); return;
      case 'N':
        out_.notes.push_back("-N (perftest's) is taken: the peak costs nothing here and is reported anyway");
        return;
      default: break;
    }
    for (const Lacking& l : kLacking)
      if (l.letter == letter) refuse(fmt::format("{} (--{})", given, l.name), l.instead);
    out_.args.push_back(a);
  }

  static const Lacking* lacking(std::string_view name) {
    for (const Lacking& l : kLacking)
      if (l.name == name) return &l;
    return nullptr;
  }

  void emit(std::initializer_list<std::string> words) { out_.args.insert(out_.args.end(), words); }

  void finish() {
    if (pending_.rate_units && !pending_.rate_limit)
      throw UsageError("--rate_units applies with --rate_limit (perftest's); give both, or --rate R");
    if (pending_.rate_limit) emit({"--rate", rate_text(pending_)});
    if (pending_.out_json || pending_.out_json_file)
      emit({"--json", pending_.out_json_file.value_or("perftest_out.json")});
    // perftest's --use_cuda_bus_id alone means CUDA memory on that GPU.
    if (pending_.bus_id_given && !pending_.memory_given) emit({"--mem", "cuda"});
  }

  const std::vector<std::string>& args_;
  const std::function<bool(std::string_view)>& ours_;
  std::size_t i_ = 0;
  Pending pending_;
  Rewritten out_;
};

/// Levenshtein distance, for slips of the keyboard.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<PerftestAlias>& perftest_aliases() { return kAliases; }

std::string perftest_spellings_help() {
  std::string text = "\nperftest's spellings, taken as ours:\n";
  text += fmt::format("  {:<36} {}\n", "--name_with_underscores", "--name-with-underscores (e.g. --report_gbits)");
  for (const PerftestAlias& a : kAliases) text += fmt::format("  {:<36} {}\n", a.perftest, a.ours);
  text += "  Any other perftest option is refused, naming what to use instead.\n";
  return text;
}

Rewritten rewrite_perftest_spellings(const std::vector<std::string>& args,
                                     const std::function<bool(std::string_view)>& ours) {
  return Rewriter(args, ours).run();
}

std::string nearest_option(std::string_view given, const std::vector<std::string>& names) {
  std::string_view name = given.substr(given.find_first_not_of('-') == std::string_view::npos
                                           ? given.size()
                                           : given.find_first_not_of('-'));
  name = name.substr(0, name.find('='));
  if (name.empty()) return {};
  const std::string plain = dashed(name);
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const std::string& candidate : names) {
    const std::size_t d = distance(plain, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  // A slip, not another word: at most a third of the name changed.
  if (best.empty() || best_distance > std::max<std::size_t>(1, plain.size() / 3)) return {};
  return "--" + best;
}

}  // namespace rdmabench::cli
