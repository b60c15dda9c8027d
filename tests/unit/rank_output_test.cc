// The rank from the launchers' variables (lib/config/rank.h) and the output name's
// placeholders (lib/config/output_path.h).
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lib/config/output_path.h"
#include "lib/config/rank.h"

namespace cuscope::config {
namespace {

GetEnv From(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(RankFromEnv, NoLauncherIsNoRank) {
  RankInfo r = RankFromEnv(From({}));
  EXPECT_FALSE(r.known());
  EXPECT_EQ(r.rank, -1);
  EXPECT_EQ(r.local_rank, -1);
  EXPECT_EQ(r.world_size, -1);
  EXPECT_EQ(r.source, "");
}

TEST(RankFromEnv, EachLauncher) {
  struct Case {
    std::map<std::string, std::string> vars;
    int rank, local, size;
    const char* source;
  } cases[] = {
      {{{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}}, 3, 1, 4, "RANK"},
      {{{"OMPI_COMM_WORLD_RANK", "5"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"OMPI_COMM_WORLD_SIZE", "8"}},
       5,
       1,
       8,
       "OMPI_COMM_WORLD_RANK"},
      {{{"PMI_RANK", "2"}, {"MPI_LOCALRANKID", "0"}, {"PMI_SIZE", "3"}}, 2, 0, 3, "PMI_RANK"},
      {{{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"}},
       7,
       3,
       16,
       "SLURM_PROCID"},
      // Only the rank: the rest unknown.
      {{{"SLURM_PROCID", "0"}}, 0, -1, -1, "SLURM_PROCID"},
  };
  for (const Case& c : cases) {
    RankInfo r = RankFromEnv(From(c.vars));
    EXPECT_TRUE(r.known()) << c.source;
    EXPECT_EQ(r.rank, c.rank) << c.source;
    EXPECT_EQ(r.local_rank, c.local) << c.source;
    EXPECT_EQ(r.world_size, c.size) << c.source;
    EXPECT_EQ(r.source, c.source);
  }
}

// torchrun under Slurm: RANK is the process's rank, SLURM_PROCID the launcher's task.
TEST(RankFromEnv, TorchrunWinsAndTakesNoOtherLaunchersFields) {
  RankInfo r = RankFromEnv(
      From({{"RANK", "1"}, {"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"}, {"SLURM_NTASKS", "2"}}));
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.source, "RANK");
  EXPECT_EQ(r.local_rank, -1);
  EXPECT_EQ(r.world_size, -1);
}

TEST(RankFromEnv, ValuesThatAreNotRanksAreUnset) {
  for (const char* bad : {"", "x", "-1", "1.5", "99999999999"}) {
    EXPECT_FALSE(RankFromEnv(From({{"RANK", bad}})).known()) << bad;
  }
  RankInfo r = RankFromEnv(From({{"RANK", "oops"}, {"PMI_RANK", " 4 "}, {"MPI_LOCALRANKID", "z"}}));
  EXPECT_EQ(r.rank, 4);
  EXPECT_EQ(r.source, "PMI_RANK");
  EXPECT_EQ(r.local_rank, -1);
}

std::string Path(const std::string& output, OutputContext ctx) {
  absl::StatusOr<std::string> p = ExpandOutputPath(output, ctx);
  return p.ok() ? *p : "ERROR: " + std::string(p.status().message());
}

TEST(OutputPath, PidAndTheOwnersChildren) {
  EXPECT_EQ(Path("", {123, 0, "h", -1, nullptr}), "cuscope-123.sqlite");
  EXPECT_EQ(Path("run-%p.sqlite", {7, 0, "h", -1, nullptr}), "run-7.sqlite");
  EXPECT_EQ(Path("a/%p/%p.db", {7, 0, "h", -1, nullptr}), "a/7/7.db");
  EXPECT_EQ(Path("run.sqlite", {50, 50, "h", -1, nullptr}), "run.sqlite");
  EXPECT_EQ(Path("run.sqlite", {51, 50, "h", -1, nullptr}), "run.51.sqlite");
  EXPECT_EQ(Path("dir.v2/run", {51, 50, "h", -1, nullptr}), "dir.v2/run.51");
  EXPECT_EQ(Path("run-%p.sqlite", {51, 50, "h", -1, nullptr}), "run-51.sqlite");
}

TEST(OutputPath, HostRankVariableAndPercent) {
  GetEnv env = From({{"JOB", "j42"}, {"EMPTY", ""}});
  EXPECT_EQ(Path("%h-%r.sqlite", {9, 0, "node1", 3, env}), "node1-3.sqlite");
  EXPECT_EQ(Path("ddp.%q{JOB}.%r.sqlite", {9, 0, "n", 0, env}), "ddp.j42.0.sqlite");
  EXPECT_EQ(Path("x%q{EMPTY}y", {9, 0, "n", 0, env}), "xy");
  EXPECT_EQ(Path("100%%.sqlite", {9, 0, "n", -1, env}), "100%.sqlite");
  // No rank: %r says so.
  EXPECT_EQ(Path("ddp.%r.sqlite", {9, 0, "n", -1, env}), "ddp.none.sqlite");
}

// torchrun: the launcher owns the run; its ranks are its children. A name with %r
// (and a rank), %p or %q{VAR} tells them apart, so no pid is added; %h alone does not.
TEST(OutputPath, PlaceholdersThatTellProcessesApart) {
  GetEnv env = From({{"RANK", "1"}});
  EXPECT_EQ(Path("ddp.%r.sqlite", {61, 60, "n", 1, env}), "ddp.1.sqlite");
  EXPECT_EQ(Path("ddp.%q{RANK}.sqlite", {61, 60, "n", -1, env}), "ddp.1.sqlite");
  EXPECT_EQ(Path("ddp.%h.sqlite", {61, 60, "n", 1, env}), "ddp.n.61.sqlite");
  // A child without a rank is not told apart by %r.
  EXPECT_EQ(Path("ddp.%r.sqlite", {62, 60, "n", -1, env}), "ddp.none.62.sqlite");
  EXPECT_EQ(Path("ddp.%r.sqlite", {60, 60, "n", -1, env}), "ddp.none.sqlite");
}

TEST(OutputPath, BadPlaceholdersAreNamed) {
  EXPECT_EQ(Path("x%q{NOPE}.sqlite", {1, 0, "n", -1, From({})}),
            "ERROR: \"%q{NOPE}\" in the output name, but \"NOPE\" is not set");
  EXPECT_EQ(Path("x%q{NOPE}.sqlite", {1, 0, "n", -1, nullptr}),
            "ERROR: \"%q{NOPE}\" in the output name, but \"NOPE\" is not set");
  for (const char* bad : {"x%z", "x%", "%q", "%qRANK", "%q{", "%q{}"}) {
    absl::Status st = CheckOutputPlaceholders(bad);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_TRUE(st.message().find("%") != absl::string_view::npos) << st.message();
  }
  EXPECT_EQ(CheckOutputPlaceholders("x%z").message(),
            "unknown placeholder \"%z\" in the output name; accepted: %p (pid), %h (host), %r "
            "(rank), %q{VAR}, %%");
  // Found by the settings fuzzer: the byte after % is echoed, escaped, on one line.
  EXPECT_EQ(CheckOutputPlaceholders("a%\nb").message().find('\n'), absl::string_view::npos);
  for (const char* good : {"a.sqlite", "%p%h%r%%.sqlite", "%q{UNSET_AT_CHECK}.sqlite"}) {
    EXPECT_TRUE(CheckOutputPlaceholders(good).ok()) << good;
  }
}

}  // namespace
}  // namespace cuscope::config
