#pragma once

// tpviz-mpi --calibrate: measures the machine the ranks run on and prints a hardware preset.
//
// On every rank at once, each timed call after a barrier, the slowest rank's time of each
// repetition kept and the median of the repetitions taken:
//   - MPI_Allreduce, MPI_Allgather and MPI_Reduce_scatter_block of float32 arrays from 8 bytes to
//     64 MiB (V, the whole array: the all-gather's result, the reductions' input), by factors of 2
//     (timings each side of the library's eager limit), each call's input written just before it,
//     the all-reduce in place as the ranks call it;
//   - products (256, 1024) @ (1024, 1024) through the core's multiply, as the ranks' partials run;
//   - copies of 64 MiB (std::memcpy), counted as 128 MiB moved (read and written);
//   - products (1, 8) @ (8, 8), whose time stands for a product's launch overhead.
// The link figures are fitted to the three collectives together and to each alone
// (calibrateLinks); each kind's own fit and worst residual are printed beside the shared fit's
// worst residual on it, and the preset carries a kind's own figures where they fit it clearly
// better (the rule in devices/calibration.h).

#include <mpi.h>

#include <string>

namespace tp::mpi {

struct CalibrateOptions {
    bool json = false;   ///< print only the preset, as --hardware FILE.json reads it
    std::string output;  ///< --output FILE: also write the preset there
};

/// Runs the calibration on every rank of `world`; rank 0 prints the sweep, the fits and the
/// preset (or only the preset with `json`) and writes `output`. Returns the exit status on every
/// rank: 0, or 2 when the preset could not be written or no fit was found (the reason on stderr).
int runCalibration(const CalibrateOptions& options, MPI_Comm world);

}  // namespace tp::mpi
