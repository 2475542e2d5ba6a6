#pragma once

// The Devices tab's program of one Linear in the fsdp or sequence layout (devices/layout_costs.h):
// the tensor layout's mesh program (timeline.h) with the layout's collectives where they run.
//   fsdp      start: each device keeps 1/D of its kernel and bias blocks. The kernel block's and
//             the bias block's all-gathers over "data", every device computing, the output
//             collective; backward: dy arrives, (row + sharded: dy's all-gather,) the kernel
//             block's all-gather again, every device's gradients, then column mode's all-reduce
//             of dx and dkernel's and dbias's reduce-scatters over "data".
//   sequence  start: x (column) rests split over "model" along the batch rows. Column: x's
//             all-gather, every device computing, the output stays sharded; backward: dy
//             arrives, x's all-gather again, the gradients, dx's reduce-scatter along the rows,
//             then dkernel's and dbias's all-reduces over "data". Row: every device computing,
//             the partial sums reduce-scattered along the batch rows with the bias on each
//             device's rows; backward: dy arrives by rows, its all-gather along the rows, the
//             gradients, then the all-reduces over "data".
// Every ring step carries its collective's index in layoutCollectives (StepCollective::
// layoutIndex) and, for one the tensor layout also runs, its index in backwardCollectives.

#include "layer/layer_config.h"
#include "scene/timeline.h"

#include <string>
#include <vector>

namespace tp {

/// The program above for a valid one-Linear config in the fsdp or sequence layout, with the
/// backward's steps when asked; e.g. fsdp, column, tp 2, D 2:
///   "Step 1 of 4: all-gather of kernel over "data" (fsdp: gathered just before use, freed
///    after), all-gather ring step 1 of 1 over 2 devices per model column"
Timeline layoutMeshProgram(const LayerConfig& config, bool backward);

/// The fsdp layout's parameters on device d at step `step` of its forward (layoutMeshProgram):
/// which of the D row chunks of its `of` block ("kernel" or "bias") it holds. Its own chunk d
/// at rest; after ring step s of the block's all-gather also chunks d-1, ..., d-1-s (mod D); all
/// of them from the gather's end until the devices have computed; then its own chunk again (the
/// gathered block freed). Every chunk for a step of another layout or of the backward.
std::vector<bool> fsdpChunksHeld(const Timeline& program, int step, const std::string& of, int d,
                                 int dataSize);

}  // namespace tp
