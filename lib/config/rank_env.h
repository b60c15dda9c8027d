// The process's place in a distributed job, from the variables its launcher sets:
// torchrun (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE), Open MPI
// (OMPI_COMM_WORLD_RANK, _LOCAL_RANK, _SIZE), PMI (PMI_RANK, PMI_SIZE; MPICH, Intel
// MPI) and Slurm (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS). Pure: reads through
// a lookup, so that tests pass a map.
#ifndef CUSCOPE_LIB_CONFIG_RANK_ENV_H_
#define CUSCOPE_LIB_CONFIG_RANK_ENV_H_

#include <map>
#include <string>

#include "lib/config/from_env.h"

namespace cuscope::config {

struct RankInfo {
  int rank = -1;         // -1: no launcher variable gave one
  int local_rank = -1;   // rank on this host
  int world_size = -1;   // number of ranks
  std::string launcher;  // "torchrun", "mpi", "pmi", "slurm" ("" when rank is -1)
};

// The first launcher whose rank variable holds a non-negative integer, in the order
// torchrun, Open MPI, PMI, Slurm (torchrun under Slurm sets both; its RANK is the
// process's). Local rank and world size come from the same launcher's variables
// when they hold integers (a local rank >= 0, a world size > rank).
RankInfo RankFromEnv(const GetEnv& getenv);

// The run-info extra entries that record it ("local_rank", "world_size", "launcher"):
// empty when rank is -1. Chrome traces write them as distributedInfo.
std::map<std::string, std::string> RankExtra(const RankInfo& info);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_RANK_ENV_H_
