#include "lib/config/rank_env.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

namespace cuscope::config {
namespace {

RankInfo From(const std::map<std::string, std::string>& env) {
  return RankFromEnv([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(RankEnvTest, NoLauncherGivesNoRank) {
  const RankInfo info = From({});
  EXPECT_EQ(info.rank, -1);
  EXPECT_EQ(info.local_rank, -1);
  EXPECT_EQ(info.world_size, -1);
  EXPECT_TRUE(RankExtra(info).empty());
}

TEST(RankEnvTest, Torchrun) {
  const RankInfo info = From({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}});
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.world_size, 4);
  EXPECT_EQ(info.launcher, "torchrun");
  const auto extra = RankExtra(info);
  EXPECT_EQ(extra.at("local_rank"), "1");
  EXPECT_EQ(extra.at("world_size"), "4");
  EXPECT_EQ(extra.at("launcher"), "torchrun");
}

TEST(RankEnvTest, OpenMpiPmiAndSlurm) {
  RankInfo info = From({{"OMPI_COMM_WORLD_RANK", "5"},
                        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                        {"OMPI_COMM_WORLD_SIZE", "8"}});
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_EQ(info.world_size, 8);
  EXPECT_EQ(info.launcher, "mpi");
  info = From({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}});
  EXPECT_EQ(info.rank, 2);
  EXPECT_EQ(info.world_size, 3);
  EXPECT_EQ(info.launcher, "pmi");
  info = From({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"}});
  EXPECT_EQ(info.rank, 7);
  EXPECT_EQ(info.local_rank, 3);
  EXPECT_EQ(info.world_size, 16);
  EXPECT_EQ(info.launcher, "slurm");
}

// torchrun inside a Slurm allocation: RANK is the process's rank, SLURM_PROCID the
// launcher's.
TEST(RankEnvTest, TorchrunWinsOverSlurm) {
  const RankInfo info =
      From({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}});
  EXPECT_EQ(info.rank, 1);
  EXPECT_EQ(info.world_size, 2);
  EXPECT_EQ(info.launcher, "torchrun");
}

TEST(RankEnvTest, BadValuesAreIgnored) {
  RankInfo info = From({{"RANK", "x"}, {"PMI_RANK", "4"}, {"PMI_SIZE", "2"}});
  EXPECT_EQ(info.rank, 4);         // RANK is not a number: the next launcher
  EXPECT_EQ(info.world_size, -1);  // a world size not above the rank is not one
  info = From({{"RANK", "-2"}});
  EXPECT_EQ(info.rank, -1);
  info = From({{"RANK", "0"}, {"LOCAL_RANK", ""}, {"WORLD_SIZE", "many"}});
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.local_rank, -1);
  EXPECT_EQ(info.world_size, -1);
}

}  // namespace
}  // namespace cuscope::config
