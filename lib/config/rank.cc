#include "lib/config/rank.h"

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace cuscope::config {
namespace {

struct Launcher {
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

// In the order they are looked up: torchrun sets RANK also under Slurm or MPI.
constexpr Launcher kLaunchers[] = {
    {"RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
};

// The variable's value as an integer >= 0, else -1.
int NonNegative(const GetEnv& getenv, const char* name) {
  const char* text = getenv(name);
  int n = -1;
  if (text == nullptr || !absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &n) || n < 0) {
    return -1;
  }
  return n;
}

}  // namespace

RankInfo RankFromEnv(const GetEnv& getenv) {
  RankInfo info;
  for (const Launcher& l : kLaunchers) {
    const int rank = NonNegative(getenv, l.rank);
    if (rank < 0) continue;
    info.rank = rank;
    info.local_rank = NonNegative(getenv, l.local_rank);
    info.world_size = NonNegative(getenv, l.world_size);
    info.source = l.rank;
    return info;
  }
  return info;
}

}  // namespace cuscope::config
