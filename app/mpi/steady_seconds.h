#pragma once

// The wall clock of a rank's products in a run's steady state.

#include <mpi.h>

namespace tp::mpi {

/// Runs `work` twice and returns the second run's wall clock. The first product on new buffers
/// pays for their fresh pages and for its packing buffers ((256, 1024) @ (1024, 2048) on an AMD
/// EPYC: 15.4 to 15.7 ms the first time, 10.2 to 10.4 ms after; a rank's took 18 ms where the
/// calibration's product rate said 11), a cost a training step pays once. The cost model
/// predicts a step in its steady state, as the collectives' fourth call is the one timed.
/// `work` must leave the same result when run again; it should release what the first run
/// returned before computing it again, so that the second run reuses those pages.
template <typename Work>
double steadySeconds(Work&& work) {
    work();
    const double start = MPI_Wtime();
    work();
    return MPI_Wtime() - start;
}

}  // namespace tp::mpi
