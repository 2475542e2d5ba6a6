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
};

/// Device (d, m) at step `step` of the scene's mesh program (clamped to it). From the step where
/// every device computes, its output block (column) or partial sum (row) is in. Ring steps: the
/// device's buffer after that step (RingRun::steps[k].buffers; the initial buffer before the
/// first), chunks coloured by owner, grey where not held yet.
DeviceHoldingsView deviceHoldings(const DeviceScene& scene, int d, int m, int step);

}  // namespace tp
