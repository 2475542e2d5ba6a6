#include "ring_algorithms.h"

#include <cstdlib>

namespace tp::mpi {

void preferRingBytes() {
    if (std::getenv("OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm") != nullptr)
        return;
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    setenv("OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm", "3", 0);  // recursive halving
}

}  // namespace tp::mpi
