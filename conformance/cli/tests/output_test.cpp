// output.hpp: outputs checked before a run (folders made, an existing file
// never truncated, what is in the way named), written with what failed said,
// and the fallback file.
#include "cli/output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/scratch_folder.hpp"

namespace rdmaconf::cli {
namespace {

namespace fs = std::filesystem;

struct Folder : test_support::ScratchFolder {
  Folder() : ScratchFolder("output") {}
};
using test_support::slurp;

TEST(Output, FoldersAreMadeAndNothingIsLeftBehind) {
  Folder d;
  std::string error;
  EXPECT_TRUE(prepare_output(d / "a/b/report.xml", OutputKind::kFile, error)) << error;
  EXPECT_TRUE(fs::is_directory(d / "a/b"));
  EXPECT_FALSE(fs::exists(d / "a/b/report.xml"));  // the probe file is gone
  EXPECT_TRUE(prepare_output(d / "html/run", OutputKind::kFolder, error)) << error;
  EXPECT_TRUE(fs::is_directory(d / "html/run"));
  EXPECT_TRUE(fs::is_empty(d / "html/run"));
  EXPECT_TRUE(prepare_output("-", OutputKind::kFile, error));
  EXPECT_TRUE(prepare_output("", OutputKind::kFile, error));
}

TEST(Output, AnExistingReportIsNotTouchedBeforeTheEnd) {
  Folder d;
  std::ofstream(d / "old.json") << "the last run";
  std::string error;
  EXPECT_TRUE(prepare_output(d / "old.json", OutputKind::kFile, error)) << error;
  EXPECT_EQ(slurp(d / "old.json"), "the last run");
  EXPECT_TRUE(write_output(d / "old.json", [](std::ostream& o) { o << "this run"; }, error)) << error;
  EXPECT_EQ(slurp(d / "old.json"), "this run");
}

TEST(Output, WhatIsInTheWayIsNamed) {
  Folder d;
  std::ofstream(d / "file") << "x";
  std::string error;
  EXPECT_FALSE(prepare_output(d / "file/sub/report.xml", OutputKind::kFile, error));
  EXPECT_EQ(error, "cannot make the folder " + (d / "file/sub") + ": " + (d / "file") + " is a file");
  EXPECT_FALSE(prepare_output(d / "file", OutputKind::kFolder, error));
  EXPECT_EQ(error, (d / "file") + " is a file; a folder is needed here");
  fs::create_directories(d / "dir");
  EXPECT_FALSE(prepare_output(d / "dir", OutputKind::kFile, error));
  EXPECT_EQ(error, (d / "dir") + " is a folder; give a file name");
}

// A full disk shows when the report is written, not when it is checked.
TEST(Output, AWriteThatFailsSaysWhy) {
  std::string error;
  EXPECT_TRUE(prepare_output("/dev/full", OutputKind::kFile, error)) << error;
  EXPECT_FALSE(write_output("/dev/full", [](std::ostream& o) { o << std::string(1 << 16, 'x'); }, error));
  EXPECT_EQ(error, "cannot write /dev/full: No space left on device");
}

TEST(Output, TheFallbackIsANewFileInTmpdir) {
  Folder d;
  const std::string dir = d / "";
  ::setenv("TMPDIR", dir.c_str(), 1);
  std::string error;
  const std::string a = write_fallback("rdmaconf-results", [](std::ostream& o) { o << "{}"; }, error);
  const std::string b = write_fallback("rdmaconf-results", [](std::ostream& o) { o << "[]"; }, error);
  ::unsetenv("TMPDIR");
  ASSERT_FALSE(a.empty()) << error;
  EXPECT_NE(a, b);
  EXPECT_EQ(fs::path(a).parent_path(), fs::path(dir).parent_path());
  EXPECT_EQ(fs::path(a).extension(), ".json");
  EXPECT_EQ(slurp(a), "{}");
  EXPECT_EQ(slurp(b), "[]");
}

}  // namespace
}  // namespace rdmaconf::cli
