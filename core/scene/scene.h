#pragma once

// One scene, computed end to end: parameters, the split forward pass, the reference and the check.
// The desktop app and tpviz-cli both compute through computeScene (scene_request.h).

#include "devices/hardware.h"
#include "devices/ring_collective.h"
#include "io/array_source.h"
#include "layer/forward.h"
#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/progress.h"
#include "layer/scene_source.h"
#include "layer/verification.h"
#include "nnx/nnx_init.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tp {

/// How a scene is run beyond its layer: a mistake made on purpose, the check's rule, and whether
/// the backward pass is computed too.
struct SceneRun {
    Mistake mistake = Mistake::None;
    CheckSettings check;
    /// The backward pass too (scene_backward.h: Scene::backward), for the correct split only: the
    /// mistakes are the forward pass's.
    bool backward = false;
};

struct SceneBackward;
struct MlpScene;

struct Scene {
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    Mistake mistake = Mistake::None;
    /// When the mistake changes nothing here, why (mistakeWithoutEffect); else empty.
    std::string mistakeWithoutEffect;
    /// A seeded layer's bias init that would show the mistake (biasShowingMistake); else empty.
    std::optional<BiasInit> biasShowingMistake;
    LayerParams params;
    /// The kernel was drawn from the seed (nnx.Linear's), not the worked example's nor a file's:
    /// each element then has the threefry counter it was drawn from (kernelBitsOrigin).
    bool kernelDrawn = false;
    /// What reading the array files did to their values (LoadedArrays::notices): "kernel: w.npy:
    /// converted from float64 to float32 ..."; empty when nothing was converted or no file read.
    std::vector<std::string> arrayNotices;
    GroupLayer groupLayer;      ///< init-per-group: the layer every group builds for itself
    ForwardResult result;       ///< the split forward pass with its intermediates (and mistake)
    Matrix reference;           ///< x @ kernel + bias from one full product
    Verification verification;  ///< result.output against reference
    /// finiteMaxAbs(params.kernel): the largest |kernel element| when every kernel element is
    /// finite, found by computeScene (in the split's and the reference's read of the kernel when
    /// forwardWithReference fuses them), so that each picture of the kernel takes its colour scale
    /// from here instead of a pass of its own. Empty when some element is not finite, or in a
    /// scene built elsewhere than computeScene (scene_request.h).
    std::optional<float> kernelMaxAbs;
    /// The backward pass (scene_backward.h), computed when the run asked for it
    /// (SceneRun::backward), checked with the forward pass's rule; null otherwise.
    std::shared_ptr<const SceneBackward> backward;
    /// The MLP block (mlp_scene.h) when config.block is Block::Mlp: its arrays, split, reference,
    /// check and backward pass. The one-Linear members above are then empty.
    std::shared_ptr<const MlpScene> mlp;

    /// The scene's verdict: the block's (forward and backward) or the layer's forward check with
    /// its backward pass's.
    bool passed() const;
};

/// A computed scene, shared read-only between every view that shows it (no view copies arrays).
using ScenePtr = std::shared_ptr<const Scene>;

/// A scene on its device mesh: what each device holds and sends, the time estimate on one
/// hardware preset, and the output collective run on the devices' buffers.
struct SceneCosts {
    MeshCosts mesh;           ///< one Linear's (the MLP block's costs are MlpScene::costs)
    HardwarePreset hardware;  ///< the preset the estimates are on
    /// On the hardware preset; the MLP block's from its forward FLOPs and the bytes its forward
    /// collectives send.
    TimeEstimate estimate;
    TimeEstimate backwardEstimate;  ///< the backward pass on the same hardware
    RingRun ring;  ///< one Linear's, checked against scene.result.output with the given check
    /// The MLP block's: each of its collectives (MlpCosts::collectives) run on the devices'
    /// buffers (block/mlp_rings.h), in order; empty for one Linear.
    std::vector<RingRun> blockRings;
    /// The fsdp and sequence layouts' collectives (config.layout), one per entry of
    /// layoutCollectives with the scene's backward when it has one (devices/layout_rings.h);
    /// empty in the tensor layout.
    std::vector<RingRun> layoutRings;
    /// The output collective's run and every layout or block run that was simulated passed its
    /// check.
    bool ringsPassed() const;
};

/// The costs of a computed scene on `hardware`; the rings' results are checked as the scene is.
SceneCosts computeSceneCosts(const Scene& scene, const HardwarePreset& hardware,
                             const CheckSettings& check = {});

/// The brief's example as a config (batch 1, inDim 2, features 4, tp 2, column) and its arrays.
/// `mode` and `tpSize` of a config may be changed afterwards (e.g. row mode, tp 1).
LayerConfig briefExampleConfig();
LayerParams briefExampleParams();

/// Work units of the split forward pass and of the reference, each: batch * inDim * features
/// multiply-adds, kMultiplyAddsPerUnit to a unit (about what drawing one value costs), rounded
/// up to a multiple of tpSize (one equal share per group) and at least tpSize.
inline constexpr std::int64_t kMultiplyAddsPerUnit = 128;
std::int64_t productWorkUnits(const LayerConfig& config);

/// Work units computeScene reports for one Linear (the MLP block's: mlpWorkUnits), all the work
/// it does: parameterCount values drawn (0 for the brief and files), the split forward pass and
/// the reference (productWorkUnits each), and the check (one unit per output element,
/// batch * features); with `backward`, backwardWorkUnits too.
std::int64_t sceneWorkUnits(const LayerConfig& config, SceneSource source, bool backward = false);

/// Work units of the backward pass: dkernel and dx split and again as the reference (four
/// products of productWorkUnits each) and their check, one unit per element of dx and dkernel.
std::int64_t backwardWorkUnits(const LayerConfig& config);

/// What to tell a user when computing a scene ran out of memory (std::bad_alloc from computeScene):
/// "not enough memory for this scene: it needs 1.5 GiB (N bytes) and an allocation failed; choose
/// smaller sizes", with N = bytesNeeded(config), plus backwardBytesNeeded(config) and "this scene
/// with its backward pass" when `backward`.
std::string allocationFailureMessage(const LayerConfig& config, bool backward = false);

}  // namespace tp
