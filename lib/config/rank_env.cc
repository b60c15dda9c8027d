#include "lib/config/rank_env.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cuscope::config {
namespace {

struct Launcher {
  const char* name;
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

constexpr Launcher kLaunchers[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
};

// The variable's value as an integer, or -1 when unset, empty or not an integer.
int IntVar(const GetEnv& getenv, const char* name) {
  const char* v = getenv(name);
  int n = -1;
  if (v == nullptr || !absl::SimpleAtoi(v, &n) || n < 0) return -1;
  return n;
}

}  // namespace

RankInfo RankFromEnv(const GetEnv& getenv) {
  RankInfo info;
  for (const Launcher& l : kLaunchers) {
    const int rank = IntVar(getenv, l.rank);
    if (rank < 0) continue;
    info.rank = rank;
    info.launcher = l.name;
    info.local_rank = IntVar(getenv, l.local_rank);
    const int world_size = IntVar(getenv, l.world_size);
    if (world_size > rank) info.world_size = world_size;
    break;
  }
  return info;
}

std::map<std::string, std::string> RankExtra(const RankInfo& info) {
  std::map<std::string, std::string> extra;
  if (info.rank < 0) return extra;
  extra["launcher"] = info.launcher;
  if (info.local_rank >= 0) extra["local_rank"] = absl::StrCat(info.local_rank);
  if (info.world_size > 0) extra["world_size"] = absl::StrCat(info.world_size);
  return extra;
}

}  // namespace cuscope::config
