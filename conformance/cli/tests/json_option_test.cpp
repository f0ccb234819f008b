// `--json FILE|-` means one thing in every command (output.hpp): the JSON
// goes to FILE, or with `-` to standard output, which then holds nothing
// else; the human text goes to standard error (decode leaves it out).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace rdmaconf::cli::testing {
namespace {

namespace fs = std::filesystem;

const std::string kCapture = RDMACONF_SOURCE_DIR "/pcap/tests/captures/real/siw-mpa-reject-markers.pcap";

bool is_json(const std::string& text) { return !nlohmann::json::parse(text, nullptr, false).is_discarded(); }

struct Command {
  std::string name;
  std::string args;        // before --json
  bool text_on_stderr;     // with --json -: the human text goes to stderr (else it is left out)
};

const Command kCommands[] = {
    {"run", "run --reference --time-scale 0.25 --case 'mpa-crc-error-code'", true},
    {"analyze", "analyze " + kCapture, true},
    {"decode", "decode " + kCapture, false},
    {"requirements", "requirements", true},
};

TEST(JsonOption, DashIsStandardOutputAndNothingElse) {
  for (const Command& c : kCommands) {
    const Ran r = rdmaconf(c.args + " --json -");
    EXPECT_LE(r.code, 1) << c.name << ": " << r.err;
    EXPECT_TRUE(is_json(r.out)) << c.name << ": " << r.out.substr(0, 300);
    if (c.text_on_stderr) {
      EXPECT_FALSE(r.err.empty()) << c.name;
    }
  }
}

TEST(JsonOption, AFileArgumentIsTheJsonAndTheTextStays) {
  const fs::path dir = fs::temp_directory_path() / ("rdmaconf-json-option-" + std::to_string(::getpid()));
  for (const Command& c : kCommands) {
    const std::string file = (dir / c.name / "out.json").string();  // the folder is made
    const Ran r = rdmaconf(c.args + " --json " + file);
    EXPECT_LE(r.code, 1) << c.name << ": " << r.err;
    EXPECT_TRUE(is_json(slurp(file))) << c.name;
    EXPECT_FALSE(r.out.empty()) << c.name << ": the text goes to standard output";
    EXPECT_FALSE(is_json(r.out)) << c.name;
  }
  fs::remove_all(dir);
}

// `decode --json CAPTURE` (the flag it used to be) names what is missing,
// and a capture is never overwritten with JSON.
TEST(JsonOption, TheCaptureIsNeverTheJsonFile) {
  const Ran flag = rdmaconf("decode --json " + kCapture);
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("give a capture file (--json takes the file the JSON goes to, or - for standard output"),
            std::string::npos)
      << flag.err;
  const std::string before = slurp(kCapture);
  for (const char* command : {"decode", "analyze"}) {
    const Ran same = rdmaconf(std::string(command) + " " + kCapture + " --json " + kCapture);
    EXPECT_EQ(same.code, 2) << command;
    EXPECT_NE(same.err.find("capture being read"), std::string::npos) << same.err;
  }
  EXPECT_EQ(slurp(kCapture), before);
}

TEST(JsonOption, OptionsThatDoNothingHereAreUsageErrors) {
  const Ran buffer = rdmaconf("analyze " + kCapture + " --buffer-size 8");
  EXPECT_EQ(buffer.code, 2);
  EXPECT_NE(buffer.err.find("--buffer-size apply to -i only"), std::string::npos) << buffer.err;
  const Ran rfc = rdmaconf("requirements --rfc 5044");
  EXPECT_EQ(rfc.code, 2);
  EXPECT_NE(rfc.err.find("--rfc chooses among the RFC texts of --rfc-dir"), std::string::npos) << rfc.err;
}

}  // namespace
}  // namespace rdmaconf::cli::testing
