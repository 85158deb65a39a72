#include "cli/compare_options.hpp"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/options.hpp"
#include "rdmabench/compare/thresholds.hpp"

namespace rdmabench::cli {

namespace po = boost::program_options;

namespace {

struct RawCompareOptions {
  std::vector<std::string> sides, thresholds;
  std::string format = "markdown";
  std::size_t resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 1;
  bool force = false;
};

po::options_description compare_description(CompareCommandLine& cl, RawCompareOptions& raw) {
  po::options_description d("Options");
  d.add_options()
      ("help,h", po::bool_switch(&cl.show_help), "print this help")
      ("version", po::bool_switch(&cl.show_version), "show the version and the rdma-core it was built against")
      ("threshold", po::value(&raw.thresholds)->composing(),
       "NAME=P%[,NAME=P%...], repeatable: how far a figure may move before it counts as a change; NAME is a "
       "group below, 'all', or a figure key (lat_p99_us)")
      ("format", po::value(&raw.format)->default_value(raw.format), "markdown, json or html")
      ("out,o", po::value(&cl.out)->default_value(cl.out), "write the report to this file ('-': standard output)")
      ("force", po::bool_switch(&raw.force), "overwrite an --out file that already holds something")
      ("confidence", po::value(&raw.confidence)->default_value(raw.confidence, "0.95"),
       "the intervals' two-sided confidence, 0.5 up to below 1")
      ("resamples", po::value(&raw.resamples)->default_value(raw.resamples), "bootstrap resamples, 100 to 1000000")
      ("seed", po::value(&raw.seed)->default_value(raw.seed), "the bootstrap's seed (the same seed, the same intervals)")
      ("ignore-endpoints", po::bool_switch(&cl.read.ignore_endpoints),
       "match tests whatever their hosts, devices and peers (two machines, a renamed host); they are then "
       "compared as context");
  return d;
}

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string compare_help_text(const po::options_description& description) {
  std::ostringstream help;
  help << "Usage: rdma_compare [options] OLD NEW\n"
          "Did anything change beyond noise? Compares two sets of rdmabench results figure by figure:\n"
          "the change of the medians of each test's repeats, with a bootstrap interval, and a verdict\n"
          "against a threshold per figure. OLD and NEW are each a JSON Lines file of pair records\n"
          "(--json), an rdma_sweep --out folder, or a folder of --json files; several, comma-separated.\n"
          "Records are matched by test, size, side, endpoints and parameters; several records of one\n"
          "test on a side are its repeats, whether separate runs or one --repeat N run's N records\n"
          "(5 or more give a useful interval; with one record a side has no noise estimate and the\n"
          "threshold alone decides).\n\n"
          "Verdicts: regressed (the whole interval beyond the threshold in the bad direction), improved\n"
          "(beyond it in the good direction), same (anything else: a change inside the noise is same).\n"
          "Exit status: 0 nothing regressed, 1 something regressed, 2 a usage or input error.\n\n"
       << description << "\nThreshold groups and their defaults:\n";
  for (const auto& d : compare::threshold_defaults())
    help << fmt::format("  {:<10}{:>5}  {}\n", d.group, compare::percent_text(d.fraction), d.holds);
  return help.str();
}

CompareFormat format_of(const std::string& name) {
  if (name == "markdown" || name == "md") return CompareFormat::markdown;
  if (name == "json") return CompareFormat::json;
  if (name == "html") return CompareFormat::html;
  throw UsageError(fmt::format("--format {}: expected markdown, json or html", name));
}

}  // namespace

CompareCommandLine parse_compare_command_line(const std::vector<std::string>& args) {
  CompareCommandLine cl;
  RawCompareOptions raw;
  auto description = compare_description(cl, raw);
  po::options_description hidden;
  hidden.add_options()("side", po::value(&raw.sides));
  po::options_description all;
  all.add(description).add(hidden);
  po::positional_options_description positional;
  positional.add("side", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  cl.help_text = compare_help_text(description);
  if (cl.show_help || cl.show_version) return cl;
  if (raw.sides.size() != 2)
    throw UsageError(fmt::format("expected two sides, OLD and NEW, and got {}{}", raw.sides.size(),
                                 raw.sides.size() > 2 ? " (give several files of a side comma-separated, or their folder)"
                                                      : ""));
  cl.old_paths = comma_list(raw.sides[0]);
  cl.new_paths = comma_list(raw.sides[1]);
  if (cl.old_paths.empty() || cl.new_paths.empty()) throw UsageError("OLD and NEW must each name a file or folder");
  for (const std::string& spec : raw.thresholds) {
    try {
      cl.options.thresholds.apply(spec);
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
  cl.format = format_of(raw.format);
  require_range("--resamples", raw.resamples, std::size_t{100}, std::size_t{1000000});
  if (!(raw.confidence >= 0.5 && raw.confidence < 1))
    throw UsageError(fmt::format("--confidence {} is out of range: expected 0.5 up to below 1", raw.confidence));
  cl.options.bootstrap = {raw.resamples, raw.confidence, raw.seed};
  cl.existing_output = raw.force ? ExistingOutput::overwrite : ExistingOutput::refuse;
  return cl;
}

}  // namespace rdmabench::cli
