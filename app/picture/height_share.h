#pragma once

// How the picture's height is shared between the layer (x, the kernel and the bias) and the
// outputs under it.

#include "layer/layer_config.h"

namespace tp {

/// The layer's height out of the picture's `total` px (the outputs take the rest). By rows: the
/// layer shows min(in_dim, 64) kernel rows and the bias with about 6 rows of titles and labels,
/// the outputs two arrays of min(N, 32) rows with about 5, and the outputs' share
/// outputRows / (outputRows + layerRows) is clamped to [0.25, 0.5]. The kernel first: a layer
/// that would be shorter than `layerForNumbers` (the height at which the kernel prints its
/// numbers; 0: none does) gets that height instead, as long as the outputs keep `outputLeast`.
int layerHeight(const LayerConfig& config, int total, int layerForNumbers, int outputLeast);

}  // namespace tp
