// The restore command of `rdmaconf fuzz --restore-command` (fuzz_restore.hpp)
// on its own: it runs, its output is logged, a failure says its exit status
// and what it printed, a command that hangs is ended at its bound, one that
// leaves a process running (a restarted agent) does not hold the fuzzer up,
// and a cancel ends it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/fuzz_restore.hpp"
#include "tests/support/scratch_folder.hpp"

namespace rdmaconf::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RestoreCommand, ItsOutputIsLoggedWithItsEnd) {
  const test_support::ScratchFolder dir("fuzz-restore");
  const std::string log = dir / "restore.log";
  RestoreCommand r("echo driver reloaded; echo agent up >&2", seconds(10), log);
  std::string why;
  ASSERT_TRUE(r.run(why)) << why;
  ASSERT_TRUE(r.run(why)) << why;
  EXPECT_EQ(r.runs(), 2);
  const std::string text = test_support::slurp(log);
  EXPECT_NE(text.find("== restore 1 at "), std::string::npos) << text;
  EXPECT_NE(text.find("driver reloaded\nagent up\n== restore 1: exit status 0 after "), std::string::npos) << text;
  EXPECT_NE(text.find("== restore 2: exit status 0"), std::string::npos) << text;
}

TEST(RestoreCommand, AFailureSaysItsExitStatusAndWhatItPrinted) {
  RestoreCommand r("echo first line; echo modprobe: FATAL: Module siw not found >&2; exit 3", seconds(10), "");
  std::string why;
  EXPECT_FALSE(r.run(why));
  EXPECT_NE(why.find("exit status 3"), std::string::npos) << why;
  EXPECT_NE(why.find("it said: first line | modprobe: FATAL: Module siw not found"), std::string::npos) << why;
  RestoreCommand killed("kill -9 $$", seconds(10), "");
  EXPECT_FALSE(killed.run(why));
  EXPECT_NE(why.find("killed by signal 9"), std::string::npos) << why;
}

TEST(RestoreCommand, ACommandThatHangsIsEndedAtItsBound) {
  const test_support::ScratchFolder dir("fuzz-restore");
  // Its child too: the whole group ends, so nothing writes the file later.
  RestoreCommand r("echo booting; (sleep 3; touch " + dir / "late" + ") & sleep 30", seconds(1), "");
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(r.run(why));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(8));
  EXPECT_NE(why.find("no end within 1 s"), std::string::npos) << why;
  EXPECT_NE(why.find("it said: booting"), std::string::npos) << why;
  std::this_thread::sleep_for(milliseconds(3500));
  EXPECT_FALSE(std::filesystem::exists(dir / "late"));
}

TEST(RestoreCommand, WhatItLeavesRunningDoesNotHoldItUp) {
  // A restarted daemon keeps the command's output open: the command's end
  // is its own exit.
  RestoreCommand r("(sleep 4; echo late) & echo started", seconds(30), "");
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(r.run(why)) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(3));
}

TEST(RestoreCommand, ACancelEndsIt) {
  std::atomic<bool> cancel{false};
  RestoreCommand r("sleep 30", seconds(60), "", &cancel);
  std::thread t([&] {
    std::this_thread::sleep_for(milliseconds(300));
    cancel = true;
  });
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(r.run(why));
  t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(8));
  EXPECT_NE(why.find("cancelled"), std::string::npos) << why;
}

}  // namespace
}  // namespace rdmaconf::cli
