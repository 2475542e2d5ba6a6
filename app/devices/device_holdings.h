#pragma once

// What one device of the mesh holds at one step of the walk, as views of the scene's arrays and
// of the collective's buffers: the pure part of a device card, testable without a widget.

#include "heatmap_image.h"
#include "matrix_data.h"
#include "scene/scene.h"
#include "scene/timeline.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

namespace tp {

/// A scene with its mesh costs and collective run, shared by every card (no card copies arrays).
struct DeviceScene {
    ScenePtr scene;
    std::shared_ptr<const SceneCosts> costs;
    /// The scene's mesh program (meshProgram): a step of the devices is a step of this timeline,
    /// its ring steps those of costs->ring.
    Timeline program;
    /// |value| at full intensity per array kind, the same on every card so they compare.
    float kernelScale = 1, biasScale = 1, xScale = 1, outputScale = 1;
    /// The same for the backward's arrays (the scene's backward pass, when it has one): dx's
    /// covers column mode's partials, the gradients' their blocks summed over "data".
    float dkernelScale = 1, dbiasScale = 1, dxScale = 1, dyScale = 1;
    /// The MLP block's (block/mlp.h): kernelScale is kernel1's, outputScale covers linear2's
    /// partial sums; these are kernel2's, h's and a's, and the backward's dkernel2, dh and da
    /// (dkernelScale is dkernel1's).
    float kernel2Scale = 1, hiddenScale = 1;
    float dkernel2Scale = 1, dhiddenScale = 1;
};

/// Computes the costs of `scene` on `hardware` and the shared scales.
DeviceScene makeDeviceScene(ScenePtr scene, const HardwarePreset& hardware);

/// One array on a card: its name with its slice, its PartitionSpec, its bytes and the view.
struct HeldArray {
    QString name;  ///< e.g. "kernel[:, 4:8]", "out (buffer)"
    QString spec;  ///< e.g. "P(None, 'model')"
    std::int64_t bytes = 0;
    MatrixData data;  ///< empty when the device does not hold it yet at this step
    HeatmapStyle style;
};

/// Everything a device card shows at one step.
struct DeviceHoldingsView {
    int d = 0, m = 0;
    QString title;                  ///< "device (d, m)"
    std::vector<HeldArray> arrays;  ///< kernel, bias, x, then the output (or partial / buffer)
    QString bytesText;              ///< "kernel 96 B · bias 16 B · x 64 B · out 32 B = 208 B"
    QString flopsText;              ///< "192 FLOPs (2·Nd·in·F/P)"
    int sendsChunk = -1;            ///< at a ring step: the chunk it sends, else -1
    int receivesChunk = -1;         ///< at a ring step: the chunk it receives, else -1
    /// At a ring step: the array its chunks move into (the output's buffer, or the backward's
    /// dy, dx, dkernel or dbias), else -1.
    int ringArray = -1;
    /// Each array's share of the card's height for arrays, summing to at most 1; empty: one
    /// Linear's (kernel, bias, x, output).
    std::vector<double> shares;
};

/// Device (d, m) at step `step` of the scene's mesh program (clamped to it). From the step where
/// every device computes, its output block (column) or partial sum (row) is in. Ring steps: the
/// device's buffer after that step (RingRun::steps[k].buffers; the initial buffer before the
/// first), chunks coloured by owner, grey where not held yet. The backward's steps show the
/// device's gradients instead (deviceGradients).
DeviceHoldingsView deviceHoldings(const DeviceScene& scene, int d, int m, int step);

/// Device (d, m) at a backward step of the mesh program, each gradient where its array stood:
/// dkernel's block, dbias's, dx (column mode's partial, then the all-reduce's buffer; row mode's
/// own slice) and dy as the output arrived (row + sharded: the all-gather's buffer). With D > 1,
/// dkernel's and dbias's blocks are first the device's own batch rows' (RingRun::initial of their
/// all-reduce over "data"), then that ring's buffers. A collective the budget left unsimulated
/// shows its result once it is in, and nothing before.
DeviceHoldingsView deviceGradients(const DeviceScene& scene, int d, int m,
                                   const TimelineStep& state);

/// Device m of the MLP block (mlp_holdings.cpp) at a step of its mesh program (mlpMeshProgram):
/// its part of kernel1 and of kernel2 (Megatron: kernel1[:, slice m] and kernel2[slice m, :]), its
/// h and a (its slice; row-then-column: its partial sum of h), and its partial sum or block of y;
/// at a ring step the collective's buffer (SceneCosts::blockRings) in the place of the array it
/// moves, grey where not held yet. The backward's steps show the gradients where their arrays
/// stood (dkernel1, dkernel2, dh, da, dy) and dx: the device's partial, then the all-reduce's
/// buffer.
DeviceHoldingsView mlpDeviceHoldings(const DeviceScene& scene, int m, const TimelineStep& state);

/// The shared scales of the MLP block's cards (makeDeviceScene's part for the block).
void setMlpScales(DeviceScene& scene);

}  // namespace tp
