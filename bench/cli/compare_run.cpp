#include "cli/compare_run.hpp"

#include <fmt/format.h>

#include "cli/options.hpp"
#include "rdmabench/compare/report.hpp"

namespace rdmabench::cli {

namespace {

void write_compare_report(std::ostream& out, CompareFormat format, const compare::Comparison& c,
                  const compare::ReportInputs& inputs) {
  switch (format) {
    case CompareFormat::markdown: compare::write_markdown(out, c, inputs); return;
    case CompareFormat::json: compare::write_json(out, c, inputs); return;
    case CompareFormat::html: compare::write_html(out, c, inputs); return;
  }
}

}  // namespace

int run_compare(const CompareCommandLine& cl, std::ostream& out, std::ostream& err) {
  try {
    const compare::RecordSet olds = compare::read_side(cl.old_paths, cl.read);
    const compare::RecordSet news = compare::read_side(cl.new_paths, cl.read);
    const compare::Comparison c = compare::compare_sides(olds, news, cl.options);
    const compare::ReportInputs inputs{olds.files, news.files, olds.notes, news.notes, cl.options};
    const bool report_on_stdout = cl.out == "-";
    if (report_on_stdout) {
      write_compare_report(out, cl.format, c, inputs);
      out.flush();
    } else {
      OutputFile file = open_output(cl.out, "--out", cl.existing_output);
      write_compare_report(*file.stream, cl.format, c, inputs);
      file.stream->close();
      if (file.stream->fail()) throw Error(fmt::format("could not write all of '{}'", cl.out), "check the free space");
    }
    // Where the report is not the markdown on the console, the console
    // still gets the context warnings and the verdicts, for a CI log.
    if (!report_on_stdout || cl.format != CompareFormat::markdown) {
      for (const compare::ContextDrift& d : c.drift)
        err << "rdma_compare: warning: " << compare::drift_text(d, c.matched_tests) << "\n";
      err << "rdma_compare: " << compare::verdict_counts(c)
          << (report_on_stdout ? std::string() : "; report in " + cl.out) << "\n";
    }
    return c.regressed() ? kCompareRegressed : kCompareSame;
  } catch (const std::exception& e) {
    err << "rdma_compare: error: " << e.what() << std::endl;
    return kCompareError;
  }
}

}  // namespace rdmabench::cli
