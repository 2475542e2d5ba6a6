#pragma once

// The wall clock of a rank's products and collectives in a run's steady state: the cost model
// predicts a training step after the first, whose buffers, pages and connections are set up.

#include <mpi.h>

#include <algorithm>
#include <span>
#include <type_traits>
#include <vector>

namespace tp::mpi {

/// Runs `work` twice and returns the second run's wall clock. The first product on new buffers
/// pays for their fresh pages and for its packing buffers ((256, 1024) @ (1024, 2048) on an AMD
/// EPYC: 15.4 to 15.7 ms the first time, 10.2 to 10.4 ms after; a rank's took 18 ms where the
/// calibration's product rate said 11), a cost a training step pays once.
/// `work` must leave the same result when run again; it should release what the first run
/// returned before computing it again, so that the second run reuses those pages.
template <typename Work>
double steadySeconds(Work&& work) {
    work();
    const double start = MPI_Wtime();
    work();
    return MPI_Wtime() - start;
}

/// A collective's times on one rank: the wait for the slowest rank of the communicator, and the
/// call.
struct CollectiveSeconds {
    double wait = 0;
    double call = 0;
};

/// Untimed calls a collective makes before its timed one.
inline constexpr int kUntimedCalls = 5;

/// Times `collective` (which runs one call over `comm`) in a run's steady state:
/// - a barrier first, whose wall clock is the wait for the slowest rank (the collectives after it
///   start together, so their times hold no wait);
/// - kUntimedCalls untimed calls on the buffers the timed call uses. Open MPI sets up a
///   communicator's connections and the kernel maps a buffer's fresh pages on the first call
///   (a 4 KiB all-reduce took 28 ms cold, 4 µs warm), costs a training step pays once. A second
///   call still took longer than later ones (a 1 MiB reduce-scatter on 2 ranks: 300 to 440 µs,
///   the fourth and later 180 to 290 µs). A buffer no call had used cost more still: the
///   all-reduce of 1 MiB took 1.2 ms on 2 ranks of an AMD EPYC when its untimed calls summed a
///   copy, 0.2 ms on the buffer they had summed. `kept` (the buffer an all-reduce sums in place,
///   or an in-place gather's) is written back after each, as the next step's product writes it;
/// - a barrier, then the timed call: its own figure when `collective` returns one (seconds of
///   the MPI call alone, without the copies around it), else its wall clock.
template <typename Collective>
CollectiveSeconds steadyCollective(MPI_Comm comm, std::span<float> kept, Collective&& collective) {
    CollectiveSeconds seconds;
    double start = MPI_Wtime();
    MPI_Barrier(comm);
    seconds.wait = MPI_Wtime() - start;
    const std::vector<float> values(kept.begin(), kept.end());
    for (int call = 0; call < kUntimedCalls; ++call) {
        collective();
        std::copy(values.begin(), values.end(), kept.begin());
    }
    MPI_Barrier(comm);
    start = MPI_Wtime();
    if constexpr (std::is_same_v<std::invoke_result_t<Collective&>, double>) {
        seconds.call = collective();
    } else {
        collective();
        seconds.call = MPI_Wtime() - start;
    }
    return seconds;
}

}  // namespace tp::mpi
