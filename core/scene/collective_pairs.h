#pragma once

// Which collectives the forward and the backward need in each mode, read from the mesh programs
// (timeline.h), and why they come in pairs: the backward runs each forward collective's conjugate
// (its transpose), as Megatron-LM's f and g are (Shoeybi et al. 2019, section 3):
//   f, before a column-parallel layer: the identity forward (every device already holds all of
//      x), an all-reduce backward (each device's dx is a partial sum over its own features);
//   g, after a row-parallel layer: an all-reduce forward (of the partial sums), the identity
//      backward (every device needs all of dy, and has it).
// The other output layouts pair the same way: a reduce-scatter forward is answered by an
// all-gather of dy, and an all-gather of y by each device taking its own columns of the
// replicated dy. With D > 1, the parameters are replicated over "data" (the identity forward)
// and their gradients all-reduced over "data" backward: f again, on the other axis.

#include "layer/layer_config.h"
#include "scene/timeline.h"

#include <string>
#include <vector>

namespace tp {

/// The collectives of one mesh program, each once, in the order they run.
struct ProgramCollectives {
    std::vector<StepCollective> forward;
    std::vector<StepCollective> backward;
};

/// Reads them off the ring steps of `program` (meshProgram, with or without its backward).
ProgramCollectives programCollectives(const Timeline& program);

/// One line of the pairs: what the forward and the backward run along one axis, and how they pair.
struct CollectivePairLine {
    /// The mode of a line over "model"; a line over "data" is the same in both modes.
    ParallelMode mode = ParallelMode::Column;
    MeshAxis axis = MeshAxis::Model;
    /// e.g. "nothing", "all-reduce of the partial sums over "model""
    std::string forward;
    /// e.g. "all-reduce of dx over "model"", "all-gather of dy over "model""
    std::string backward;
    /// e.g. "f: the identity forward (x is on every device), an all-reduce backward"
    std::string pair;
};

/// The lines for the mesh of `config` (its tp_size, D and output layout; the other mode takes its
/// default layout unless the config sets one): over "model", column's then row's, each read from
/// that mode's meshProgram with the backward; then, when D > 1, the line over "data" (config's
/// mode's). tp_size 1 runs nothing over "model", and says so.
std::vector<CollectivePairLine> collectivePairLines(const LayerConfig& config);

}  // namespace tp
