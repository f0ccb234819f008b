// rdmaconf-agent's command line: the exit codes are rdmaconf's (help 0,
// usage errors 2, never CLI11's 105/106/109), and options the others make
// meaningless are usage errors naming both.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// An agent that starts runs until a signal: `timeout` ends one that a
// check let through (exit code 124, a failure, not a hung test).
int agent_exit_code(const std::string& args) {
  const std::string cmd = "timeout 10 " + std::string(RDMACONF_AGENT_EXE) + " " + args + " > /dev/null 2>&1 < /dev/null";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(AgentMain, ExitCodesAreRdmaconfs) {
  EXPECT_EQ(agent_exit_code("--help"), 0);
  EXPECT_EQ(agent_exit_code(""), 2);                                        // --backend is required (CLI11: 106)
  EXPECT_EQ(agent_exit_code("--backend nosuch"), 2);                        // not one of the backends (105)
  EXPECT_EQ(agent_exit_code("--backend reference --no-such-option"), 2);    // unknown option (109)
  EXPECT_EQ(agent_exit_code("--backend reference --max-connections 0"), 2);  // out of range (105)
}

TEST(AgentMain, MeaninglessCombinationsAreUsageErrors) {
  EXPECT_EQ(agent_exit_code("--backend reference --device siw0 --control 127.0.0.1:0"), 2);
  EXPECT_EQ(agent_exit_code("--backend reference --bind --control 127.0.0.1:0"), 2);
  EXPECT_EQ(agent_exit_code("--backend rdma-core --fault ddp-skip-msn-check --control 127.0.0.1:0"), 2);
}

}  // namespace
