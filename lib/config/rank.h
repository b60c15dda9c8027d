// Which rank of a multi-process job this process is, from what the launcher sets:
// torchrun (RANK, LOCAL_RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_RANK,
// OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_SIZE), MPICH/Intel MPI's PMI
// (PMI_RANK, MPI_LOCALRANKID, PMI_SIZE) and Slurm (SLURM_PROCID, SLURM_LOCALID,
// SLURM_NTASKS), looked up in that order.
#ifndef CUSCOPE_LIB_CONFIG_RANK_H_
#define CUSCOPE_LIB_CONFIG_RANK_H_

#include <string>

#include "lib/config/from_env.h"

namespace cuscope::config {

struct RankInfo {
  int rank = -1;        // -1: not launched as one of several ranks
  int local_rank = -1;  // the rank on this host; -1 if the launcher did not say
  int world_size = -1;  // the number of ranks; -1 if the launcher did not say
  std::string source;   // the variable the rank came from ("RANK", "SLURM_PROCID"), or ""
  bool known() const { return rank >= 0; }
};

// The first launcher whose rank variable holds an integer >= 0 gives the rank, and
// its own local-rank and size variables the rest (a value that is not an integer
// >= 0 counts as unset).
RankInfo RankFromEnv(const GetEnv& getenv);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_RANK_H_
