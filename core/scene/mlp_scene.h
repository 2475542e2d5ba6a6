#pragma once

// One MLP block scene computed end to end: the block's arrays from the seed, the split pass (with
// a mistake made or not), the unsharded reference, the check, and with the backward pass its
// gradients and theirs.

#include "block/mlp.h"
#include "block/mlp_backward.h"
#include "block/mlp_check.h"
#include "block/mlp_costs.h"
#include "layer/verification.h"

#include <memory>
#include <optional>
#include <string>

namespace tp {

struct MlpBackwardScene {
    /// (batch, features): jax.random.normal(rngs.params(), (batch, features)), count 5
    Matrix dy;
    MlpBackward split;
    MlpGradients reference;
    MlpBackwardVerification verification;
};

struct MlpScene {
    MlpParams params;
    Mistake mistake = Mistake::None;
    /// When the mistake changes nothing the check can see, why (mistakeWithoutEffect); else empty.
    std::string mistakeWithoutEffect;
    MlpForward split;
    MlpReference reference;
    MlpForwardBounds bounds;
    MlpVerification verification;
    MlpCosts costs;  ///< with the backward's collective when the backward was asked for
    std::optional<MlpBackwardScene> backward;

    /// The forward's check and, when computed, the backward's.
    bool passed() const;
};

/// Work units computeMlpScene reports: one per value drawn (mlpParameterCount), and a share of
/// the products per device's layer pass (two a device), the reference's and the check's; with
/// `backward` the backward's products too.
std::int64_t mlpWorkUnits(const LayerConfig& config, bool backward);

/// Computes the block for a valid MLP config with `mistake` (one of the block's or None) checked
/// by `check`, and with `backward` (no mistake) its backward pass. Progress: sets the total to
/// mlpWorkUnits and advances; nullopt when cancelled.
std::optional<MlpScene> computeMlpScene(const LayerConfig& config, Mistake mistake,
                                        const CheckSettings& check, bool backward,
                                        Progress* progress = nullptr);

}  // namespace tp
