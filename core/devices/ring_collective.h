#pragma once

// The output collective of a scene run for real, step by step, on the devices' own buffers.
//
// Every device (d, m) of the `data x model` mesh has a buffer of shape (Nd, features), Nd = N / D:
// the rows of batch block d. The features are cut into P = tp_size chunks along the output columns
// (column mode: group c's columns; row mode: P near-equal blocks, the first features % P one
// column wider). On each data row the P devices form a ring: device m sends to device (m + 1) % P,
// all at once in each step.
//   all-gather (column, replicated output): device m starts with its own chunk m; in step s it
//     sends chunk (m - s) mod P. After P-1 steps every device holds every chunk.
//   reduce-scatter (row, sharded output): every device starts with its unreduced partial sum over
//     all features; in step s device m sends chunk (m - s - 1) mod P and the receiver adds it to
//     its own copy of that chunk. After P-1 steps device m holds chunk m summed over all P devices,
//     in ring order p[m+1] + p[m+2] + ... + p[m] rather than the sequential p[0] + p[1] + ...
//     Then the bias is added once, by the chunk's owner.
//   all-reduce (row, replicated output): that reduce-scatter, the bias, then the all-gather.

#include "devices/mesh_costs.h"
#include "layer/eigen_types.h"
#include "layer/forward.h"
#include "layer/layer_params.h"
#include "layer/verification.h"

#include <cstdint>
#include <vector>

namespace tp {

/// What a step does. AddBias is no ring step: each device adds bias[chunk m] to its reduced chunk.
enum class RingPhase { ReduceScatter, AddBias, AllGather };

/// One chunk moving from a device to its ring neighbour (model-axis indices; every data row does
/// the same at the same time).
struct ChunkTransfer {
    int from = 0;
    int to = 0;
    int chunk = 0;
};

/// The collective's chunks: P near-equal column blocks of `features`, the first features % P one
/// wider (numpy.array_split); chunk c is the one device m = c reduces or starts from.
std::vector<IndexRange> featureChunks(Index features, Index p);

struct RingStep {
    RingPhase phase = RingPhase::AllGather;
    std::vector<ChunkTransfer> transfers;  ///< one per device, in device order; empty for AddBias
    /// Every device's buffer after this step, stacked as in RingRun::buffers; empty when the run
    /// keeps no step buffers (see RingRun::stepBuffersKept).
    Matrix buffers;
};

/// The simulated collective against the single-process output.
struct CollectiveCheck {
    Verification verification;      ///< the devices' result against the single-process output
    std::int64_t elements = 0;      ///< elements compared
    std::int64_t bitIdentical = 0;  ///< of those, the ones with identical float32 bits
    bool exactRequired = false;     ///< all-gather: values are only moved, so every bit must match
    /// exactRequired ? passed when bitIdentical == elements, else failed : verification.verdict
    Verdict verdict = Verdict::Failed;
    bool passed() const { return verdict == Verdict::Passed; }
};

/// A collective's result `actual` against what it should hold: `verification` (the caller's verify
/// of actual against expected), each element's float32 bits compared, and the verdict:
/// exactRequired (a gather only moves values) needs every bit, else the verification decides.
CollectiveCheck collectiveCheck(const MatrixCRef& actual, const MatrixCRef& expected,
                                Verification verification, bool exactRequired);

/// Step buffers are kept only while all of them together stay under this many bytes and within
/// what the memory budget leaves after the scene and the run (ringRunBytes); past it a run keeps
/// the steps' chunk indices and the first and last buffers only.
inline constexpr std::int64_t kStepBufferCapBytes = std::int64_t(64) << 20;

/// What a run of the scene's collective allocates besides the scene itself (bytesNeeded): the
/// devices' initial and final buffers and the expected stack the check compares them with (three
/// (D*P*Nd, features) stacks) and, for the rounding bound of each device's rows, x stacked the
/// same way (D*P*Nd, in_dim); the step buffers come on top when kept. 0 without a collective.
std::int64_t ringRunBytes(const LayerConfig& config);

struct RingRun {
    CollectiveKind kind = CollectiveKind::None;
    std::int64_t data = 1;           ///< D
    std::int64_t model = 1;          ///< P
    Index rowsPerDevice = 0;         ///< Nd
    std::vector<IndexRange> chunks;  ///< output columns of chunk c, c < P
    /// False when there is nothing to move (no collective) or when the scene and the run's buffers
    /// together (bytesNeeded + ringRunBytes) would not fit the memory budget (see `note`); the
    /// other fields are then empty.
    bool simulated = false;
    /// Device (d, m)'s buffer is rows [(d*P + m)*Nd, (d*P + m + 1)*Nd) of a (D*P*Nd, features)
    /// stack. Before the first step: column mode has only chunk m filled (NaN elsewhere: not held
    /// yet), row mode the device's unreduced partial sum.
    Matrix initial;
    std::vector<RingStep> steps;       ///< ring steps, plus one AddBias step in row mode
    Matrix final;                      ///< after the last step
    bool stepBuffersKept = false;      ///< whether every RingStep::buffers is filled
    std::int64_t stepBufferBytes = 0;  ///< what keeping every step's buffers takes
    CollectiveCheck check;
    std::string note;  ///< why a run was not simulated, or why step buffers were dropped

    /// Device (d, m)'s rows in a stack (initial, final or a step's buffers).
    /// Writable when `stack` is.
    template <typename Stack>
    auto device(Stack& stack, std::int64_t d, std::int64_t m) const {
        return stack.middleRows((d * model + m) * rowsPerDevice, rowsPerDevice);
    }
};

/// Runs the ring steps of `run.kind` on buffers the caller set up: run.data independent rings of
/// run.model devices each (device (d, m) is run.device(stack, d, m)), run.rowsPerDevice, the
/// column chunks and run.initial. A reduce-scatter sends chunk (m - s - 1) mod P at step s and
/// adds it in, an all-gather sends chunk (m - s) mod P and overwrites, an all-reduce is the one
/// then the other; `bias`, when given, is added by each chunk's owner after the reduce-scatter (an
/// AddBias step). Fills steps and final, and keeps every step's buffers when they take at most
/// `stepRoom` bytes (else says so in run.note). The check is the caller's.
void runRingSteps(RingRun& run, std::int64_t stepRoom, const RowVectorCRef* bias = nullptr);

/// Runs the scene's collective over its mesh. `forward` is the single-process split pass (its
/// partials give each device's starting rows: device (d, m) computed group m's product for batch
/// block d), `bias` the layer's bias (row mode adds it once). The result is checked against
/// forward.output with allclose at `tolerance` (for hand-made partials, with no x and kernel to
/// bound their rounding). Config must be valid.
RingRun simulateRing(const LayerConfig& config, const ForwardResult& forward,
                     const RowVectorCRef& bias, Tolerance tolerance = {});

/// The same run for a scene's layer `params` (x, kernel, bias), its result checked against
/// forward.output with `check` (by default each element within the float32 rounding bound of
/// verification.h: the ring adds the partial sums in another order than the single process).
RingRun simulateRing(const LayerConfig& config, const ForwardResult& forward,
                     const LayerParams& params, const CheckSettings& check);

}  // namespace tp
