// `rdmaconf requirements [--rfc-dir DIR]`: the registry traced to the RFC
// text. Reads the RFC files a user supplies (DIR/rfcNNNN.txt, plain-text
// RFC format), finds every sentence with a normative keyword (RFC 2119
// upper case; for RFC 7609 lower-case "must" too), and reports per RFC which
// sentences a registry row covers, which are declared not observable or not
// a requirement (with the reason), and which are unaccounted for. Exit 1
// when a sentence is unaccounted for, a trace entry matches no sentence, or
// a covering row's level is not one the sentence uses, or a row's summary
// shares a run of eight words with the RFC text; 2 on usage errors.
// Without --rfc-dir it checks the trace tables and lists observable rows
// without a case.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "cli/output.hpp"
#include "report/report.hpp"
#include "requirement.hpp"
#include "rfc_text.hpp"
#include "trace.hpp"

namespace rdmaconf::cli {
namespace {
namespace rq = requirements;
namespace rt = rfctext;
namespace cf = conformance;

struct Args {
  std::string rfc_dir;
  std::vector<unsigned> rfcs;  // empty: every traced RFC
  std::string cases_dir = cf::default_cases_dir();
  std::string json;  // FILE, or "-" for standard output
  std::string markdown;
  bool list = false;
};

enum class Verdict { kCoveredObservable, kCoveredHidden, kNotObservable, kNotARequirement, kUnaccounted };

struct Line {
  const rt::Sentence* sentence;
  Verdict verdict;
  const rq::SentenceTrace* trace;  // null when unaccounted
};

struct RfcResult {
  rq::TracedDocument doc;
  std::string error;  // the file could not be read
  bool truncated = false;
  rt::Document parsed;
  std::vector<Line> lines;
  std::vector<std::string> problems;     // stale entries, level mismatches
  std::vector<std::string_view> untraced_rows;  // rows covering no sentence of this RFC
  std::map<Verdict, std::size_t> counts;
};

void check_own_words(RfcResult& r);

// The keywords a sentence may use for a row of `level` to cover it: the same
// strength, a negation phrased either way ("MUST turn off" is "MUST NOT
// keep"): MUST with MUST NOT, SHOULD with SHOULD NOT, MAY alone.
std::uint32_t keywords_of(rq::Level level) {
  switch (level) {
    case rq::Level::kMust:
    case rq::Level::kMustNot: return rt::kMust | rt::kMustNot;
    case rq::Level::kShould:
    case rq::Level::kShouldNot: return rt::kShould | rt::kShouldNot;
    case rq::Level::kMay: return rt::kMay;
    case rq::Level::kLowerCaseMust: return rt::kLowerCaseMust;
  }
  return 0;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kCoveredObservable: return "covered";
    case Verdict::kCoveredHidden: return "covered (not observable row)";
    case Verdict::kNotObservable: return "not observable";
    case Verdict::kNotARequirement: return "not a requirement";
    case Verdict::kUnaccounted: return "UNACCOUNTED";
  }
  return "?";
}

std::string read_bounded(const std::string& path, std::size_t limit, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  if (!ok) return {};
  std::string data(limit + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

RfcResult trace_rfc(const rq::TracedDocument& doc, const std::string& dir) {
  RfcResult r;
  r.doc = doc;
  rt::Options options;
  options.lower_case_must = doc.lower_case_must;
  const std::string path = dir + "/rfc" + std::to_string(doc.number) + ".txt";
  bool ok = false;
  const std::string text = read_bounded(path, options.limits.max_input, ok);
  if (!ok) {
    r.error = "cannot read " + path;
    return r;
  }
  r.parsed = rt::parse(text, options);
  r.truncated = r.parsed.truncated;
  if (r.parsed.rfc_number != doc.number) {
    r.error = path + " is not RFC " + std::to_string(doc.number) + " (its first page names RFC " +
              std::to_string(r.parsed.rfc_number) + ")";
    return r;
  }
  const auto table = rq::traces(doc.rfc);
  std::map<std::pair<std::string_view, std::string_view>, const rq::SentenceTrace*> by_key;
  for (const auto& t : table) by_key[{t.section, t.fingerprint}] = &t;
  std::set<const rq::SentenceTrace*> used;
  std::set<std::string_view> covering;
  for (const rt::Sentence& s : r.parsed.sentences) {
    if (!s.normative()) continue;
    const auto it = by_key.find({s.section, s.fingerprint});
    Line line{&s, Verdict::kUnaccounted, nullptr};
    if (it != by_key.end()) {
      const rq::SentenceTrace* t = it->second;
      used.insert(t);
      line.trace = t;
      switch (t->accounting) {
        case rq::Accounting::kCovered: {
          bool observable = false;
          for (std::string_view id : rq::row_ids(*t)) {
            const rq::Requirement* row = rq::find(id);
            if (!row) continue;  // trace_problems() reports it
            covering.insert(row->id);
            if (row->observable != rq::Observability::kNotObservable) observable = true;
            if ((keywords_of(row->level) & s.keywords) == 0) {
              r.problems.push_back("§" + s.section + " " + s.fingerprint + " (line " + std::to_string(s.line) +
                                   "): row " + std::string(row->id) + " is " + std::string(rq::name(row->level)) +
                                   " but the sentence says " + rt::keyword_names(s.keywords));
            }
          }
          line.verdict = observable ? Verdict::kCoveredObservable : Verdict::kCoveredHidden;
          break;
        }
        case rq::Accounting::kNotObservable: line.verdict = Verdict::kNotObservable; break;
        case rq::Accounting::kNotARequirement: line.verdict = Verdict::kNotARequirement; break;
      }
    }
    ++r.counts[line.verdict];
    r.lines.push_back(line);
  }
  for (const auto& t : table)
    if (!used.count(&t))
      r.problems.push_back("§" + std::string(t.section) + " " + std::string(t.fingerprint) +
                           ": trace entry matches no normative sentence of the text (stale or mistyped)");
  for (const rq::Requirement& row : rq::of(doc.rfc))
    if (!covering.count(row.id)) r.untraced_rows.push_back(row.id);
  check_own_words(r);
  return r;
}

// Lower-case words of letters and digits.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum) {
      w.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

// Rows must say requirements in our own words: no summary (or trace reason)
// shares a run of kCopiedRun words with any sentence of the RFC.
constexpr std::size_t kCopiedRun = 8;

void check_own_words(RfcResult& r) {
  std::set<std::string> runs;
  for (const rt::Sentence& s : r.parsed.sentences) {
    const auto w = words_of(s.text);
    for (std::size_t i = 0; i + kCopiedRun <= w.size(); ++i) {
      std::string run;
      for (std::size_t k = 0; k < kCopiedRun; ++k) run += w[i + k] + " ";
      runs.insert(std::move(run));
    }
  }
  auto copied = [&runs](std::string_view text) {
    const auto w = words_of(text);
    for (std::size_t i = 0; i + kCopiedRun <= w.size(); ++i) {
      std::string run;
      for (std::size_t k = 0; k < kCopiedRun; ++k) run += w[i + k] + " ";
      if (runs.count(run)) return run;
    }
    return std::string();
  };
  for (const rq::Requirement& row : rq::of(r.doc.rfc)) {
    const std::string run = copied(row.summary);
    if (!run.empty())
      r.problems.push_back("row " + std::string(row.id) + ": summary copies RFC words (\"" + run + "...\")");
  }
  for (const rq::SentenceTrace& t : rq::traces(r.doc.rfc)) {
    const std::string run = copied(t.reason);
    if (!run.empty())
      r.problems.push_back("§" + std::string(t.section) + " " + std::string(t.fingerprint) +
                           ": reason copies RFC words (\"" + run + "...\")");
  }
}

std::size_t count(const RfcResult& r, Verdict v) {
  const auto it = r.counts.find(v);
  return it == r.counts.end() ? 0 : it->second;
}

bool failed(const RfcResult& r) {
  return !r.error.empty() || count(r, Verdict::kUnaccounted) > 0 || !r.problems.empty();
}

// Observable rows that no case names: neither a live case nor a capture case
// (engine/capture_case.hpp; pcap/tests/capture_cases_test.cpp proves each
// one on a capture that keeps its rule and one that breaks it), as the
// catalogue's page and the dashboard count them (report.hpp).
std::vector<const rq::Requirement*> rows_without_case(const std::string& cases_dir, std::string& error) {
  const auto cat = cf::load_catalogue(cases_dir);
  if (cat.cases.empty()) error = "no cases found in " + cases_dir;
  return cf::observable_rows_without_case(cf::cases_per_row(cat));
}

std::string clip(std::string_view s, std::size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n)) + "...";
}

void print_text(std::ostream& out, const std::vector<RfcResult>& results, bool list) {
  out << std::left << std::setw(10) << "RFC" << std::right << std::setw(11) << "normative" << std::setw(9)
      << "covered" << std::setw(12) << "hidden-row" << std::setw(16) << "not-observable" << std::setw(18)
      << "not-requirement" << std::setw(13) << "unaccounted" << std::setw(10) << "problems" << "\n";
  for (const RfcResult& r : results) {
    out << std::left << std::setw(10) << r.doc.rfc << std::right;
    if (!r.error.empty()) {
      out << "  " << r.error << "\n";
      continue;
    }
    out << std::setw(11) << r.lines.size() << std::setw(9) << count(r, Verdict::kCoveredObservable)
        << std::setw(12) << count(r, Verdict::kCoveredHidden) << std::setw(16) << count(r, Verdict::kNotObservable)
        << std::setw(18) << count(r, Verdict::kNotARequirement) << std::setw(13) << count(r, Verdict::kUnaccounted)
        << std::setw(10) << r.problems.size() << (r.truncated ? "  (input truncated)" : "") << "\n";
  }
  for (const RfcResult& r : results) {
    if (!r.error.empty()) continue;
    bool header = false;
    for (const Line& l : r.lines) {
      if (!list && l.verdict != Verdict::kUnaccounted) continue;
      if (!header) out << "\n" << r.doc.rfc << (list ? ": normative sentences\n" : ": unaccounted sentences\n");
      header = true;
      out << "  §" << std::left << std::setw(9) << l.sentence->section << std::right << " line " << std::setw(5)
          << l.sentence->line << "  " << l.sentence->fingerprint << "  [" << rt::keyword_names(l.sentence->keywords)
          << "]  " << verdict_name(l.verdict);
      if (l.trace && !l.trace->rows.empty()) out << ": " << l.trace->rows;
      if (l.trace && !l.trace->reason.empty()) out << " (" << l.trace->reason << ")";
      out << "\n      " << clip(l.sentence->text, list ? 200 : 400) << "\n";
    }
    if (!r.problems.empty()) out << "\n" << r.doc.rfc << ": problems\n";
    for (const auto& p : r.problems) out << "  " << p << "\n";
  }
}

nlohmann::json to_json(const std::vector<RfcResult>& results, const std::vector<const rq::Requirement*>& uncased) {
  nlohmann::json j;
  j["rfcs"] = nlohmann::json::array();
  for (const RfcResult& r : results) {
    nlohmann::json d;
    d["rfc"] = r.doc.rfc;
    if (!r.error.empty()) {
      d["error"] = r.error;
      j["rfcs"].push_back(d);
      continue;
    }
    d["truncated"] = r.truncated;
    d["normative"] = r.lines.size();
    for (Verdict v : {Verdict::kCoveredObservable, Verdict::kCoveredHidden, Verdict::kNotObservable,
                      Verdict::kNotARequirement, Verdict::kUnaccounted})
      d["counts"][std::string(verdict_name(v))] = count(r, v);
    d["sentences"] = nlohmann::json::array();
    for (const Line& l : r.lines) {
      nlohmann::json s{{"section", l.sentence->section},
                       {"line", l.sentence->line},
                       {"fingerprint", l.sentence->fingerprint},
                       {"keywords", rt::keyword_names(l.sentence->keywords)},
                       {"accounting", verdict_name(l.verdict)},
                       {"text", l.sentence->text}};
      if (l.trace) {
        s["rows"] = nlohmann::json::array();
        for (auto id : rq::row_ids(*l.trace)) s["rows"].push_back(id);
        if (!l.trace->reason.empty()) s["reason"] = l.trace->reason;
      }
      d["sentences"].push_back(std::move(s));
    }
    d["problems"] = r.problems;
    d["untraced_rows"] = nlohmann::json::array();
    for (auto id : r.untraced_rows) d["untraced_rows"].push_back(id);
    j["rfcs"].push_back(std::move(d));
  }
  j["observable_rows_without_case"] = nlohmann::json::array();
  // Why no case can drive a row, where its registry row says.
  j["why_no_case"] = nlohmann::json::object();
  for (const auto* r : uncased) {
    j["observable_rows_without_case"].push_back(r->id);
    if (!r->no_case.empty()) j["why_no_case"][std::string(r->id)] = r->no_case;
  }
  return j;
}

void write_markdown(std::ostream& out, const std::vector<RfcResult>& results,
                    const std::vector<const rq::Requirement*>& uncased) {
  out << "| RFC | normative sentences | covered by an observable row | covered by a not-observable row "
         "| declared not observable | not a requirement | unaccounted | rows tracing to no sentence |\n";
  out << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const RfcResult& r : results) {
    if (!r.error.empty()) {
      out << "| " << r.doc.rfc << " | " << r.error << " | | | | | | |\n";
      continue;
    }
    out << "| " << r.doc.rfc << " | " << r.lines.size() << " | " << count(r, Verdict::kCoveredObservable) << " | "
        << count(r, Verdict::kCoveredHidden) << " | " << count(r, Verdict::kNotObservable) << " | "
        << count(r, Verdict::kNotARequirement) << " | " << count(r, Verdict::kUnaccounted) << " | "
        << r.untraced_rows.size() << " |\n";
  }
  out << "\nObservable rows without a case (" << uncased.size() << "):\n\n";
  for (const auto* r : uncased)
    out << "- `" << r->id << "` (" << r->rfc << " §" << r->section << ", " << rq::name(r->level) << "): "
        << r->summary << (r->no_case.empty() ? "" : ". No case: " + std::string(r->no_case)) << "\n";
}

int run(const Args& a) {
  if (!a.rfcs.empty() && a.rfc_dir.empty()) {
    std::cerr << "rdmaconf requirements: --rfc chooses among the RFC texts of --rfc-dir; give --rfc-dir DIR too\n";
    return 2;
  }
  for (const auto& [option, path] : {std::pair{"--json", &a.json}, {"--markdown", &a.markdown}}) {
    std::string error;
    if (!prepare_output(*path, OutputKind::kFile, error)) {
      std::cerr << "rdmaconf requirements: " << option << ": " << error << "\n";
      return 2;
    }
  }
  if (is_stdout(a.markdown)) {
    std::cerr << "rdmaconf requirements: --markdown writes a file; give its name\n";
    return 2;
  }
  int status = 0;
  for (const auto& p : rq::trace_problems()) {
    std::cerr << "trace table: " << p << "\n";
    status = 1;
  }
  std::string case_error;
  const auto uncased = rows_without_case(a.cases_dir, case_error);
  if (!case_error.empty()) std::cerr << "rdmaconf requirements: " << case_error << "\n";

  std::vector<RfcResult> results;
  if (!a.rfc_dir.empty()) {
    for (unsigned n : a.rfcs) {
      const auto docs = rq::traced_documents();
      if (std::none_of(docs.begin(), docs.end(), [n](const auto& d) { return d.number == n; })) {
        std::cerr << "rdmaconf requirements: RFC " << n << " is not traced by the registry\n";
        return 2;
      }
    }
    for (const rq::TracedDocument& d : rq::traced_documents()) {
      if (!a.rfcs.empty() && std::find(a.rfcs.begin(), a.rfcs.end(), d.number) == a.rfcs.end()) continue;
      results.push_back(trace_rfc(d, a.rfc_dir));
      if (failed(results.back())) status = 1;
    }
  }
  std::string error;
  if (!a.markdown.empty() &&
      !write_output(a.markdown, [&](std::ostream& out) { write_markdown(out, results, uncased); }, error)) {
    std::cerr << "rdmaconf requirements: --markdown: " << error << "\n";
    return 2;
  }
  if (!a.json.empty() &&
      !write_output(a.json, [&](std::ostream& out) { out << to_json(results, uncased).dump(2) << "\n"; }, error)) {
    std::cerr << "rdmaconf requirements: --json: " << error << "\n";
    return 2;
  }
  // With --json - the JSON holds standard output; the text goes to stderr.
  std::ostream& text = text_stream(a.json);
  if (!results.empty()) print_text(text, results, a.list);
  text << "\n" << uncased.size() << " observable rows have no case";
  if (a.rfc_dir.empty()) text << " (give --rfc-dir DIR to trace the registry to the RFC texts)";
  text << "\n";
  if (a.list || a.rfc_dir.empty())
    for (const auto* r : uncased)
      text << "  " << r->id << (r->no_case.empty() ? "" : " (no case: " + std::string(r->no_case) + ")") << "\n";
  return status;
}

void add_requirements_command(CLI::App& app, int& exit_code) {
  static Args a;
  CLI::App* sub = app.add_subcommand(
      "requirements", "Trace the requirement registry to the RFC texts: every normative sentence accounted for");
  sub->add_option("--rfc-dir", a.rfc_dir, "Folder holding rfcNNNN.txt (plain-text RFCs)");
  sub->add_option("--rfc", a.rfcs, "Only these RFC numbers (default: every RFC the registry traces)");
  sub->add_option("--cases-dir", a.cases_dir, "Folder of the case scripts (for rows without a case)");
  add_json_option(*sub, a.json, "Write the result as JSON");
  sub->add_option("--markdown", a.markdown, "Write the per-RFC table (docs/requirements.md) to this file");
  sub->add_flag("--list", a.list, "List every normative sentence with its accounting, not only the unaccounted");
  sub->final_callback([&exit_code] { exit_code = run(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(requirements, rdmaconf::cli::add_requirements_command);
