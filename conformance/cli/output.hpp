// Where a command's outputs go, the same way in every command
// (docs/conformance.md, "Outputs and exit codes"):
//
//   - `--json FILE|-` means one thing everywhere (run, analyze, decode,
//     requirements, findings): the JSON is written to FILE, or with `-` to
//     standard output, and then nothing else goes there: human text goes to
//     standard error, or is left out where it would repeat the JSON line for
//     line (decode);
//   - an output is checked before a long run starts (its folders made, a
//     probe file created and removed, an existing report left as it is), so
//     that a typo costs seconds, not a whole run;
//   - writing says what failed (open, write, close: a full disk shows here),
//     and a run whose report cannot be written saves its results to a
//     fallback file it names.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

namespace rdmaconf::cli {

// Adds `--json FILE|-` to `sub`: `what` starts its help ("Write the JSON
// report"), the helper says the rest.
CLI::Option* add_json_option(CLI::App& sub, std::string& path, const std::string& what);

// True when `--json -` (or another output) holds standard output.
inline bool is_stdout(const std::string& path) { return path == "-"; }

// Where human text goes: standard output, or standard error when `--json -`
// holds standard output.
std::ostream& text_stream(const std::string& json_path);

enum class OutputKind { kFile, kFolder };

// Before anything runs: makes the folders the output needs and proves that
// it can be written (a probe file created and removed; an existing file is
// opened for writing, never truncated). `-` is standard output, always
// fine for a file. False with `error` naming the path and what is wrong.
bool prepare_output(const std::string& path, OutputKind kind, std::string& error);

// Writes the file at `path` (`-`: standard output) with `write`. False with
// `error` naming the path and what failed.
bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, std::string& error);

// A new file in $TMPDIR (else /tmp), named `<stem>-XXXXXX.json`, written
// with `write`: where results go when the report they were meant for could
// not be written. Its path, or empty with `error` set.
std::string write_fallback(const std::string& stem, const std::function<void(std::ostream&)>& write,
                           std::string& error);

}  // namespace rdmaconf::cli
