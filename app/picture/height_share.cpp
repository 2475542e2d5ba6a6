#include "height_share.h"

#include <algorithm>

namespace tp {

int layerHeight(const LayerConfig& config, int total, int layerForNumbers, int outputLeast) {
    const double layerRows = double(std::min<std::int64_t>(config.inDim, 64)) + 6;
    const double outputRows = 2.0 * double(std::min<std::int64_t>(config.batch, 32)) + 5;
    const double share = std::clamp(outputRows / (outputRows + layerRows), 0.25, 0.5);
    const int byRows = total - int(total * share);
    // Where the kernel cannot print its numbers even with the outputs at their least, the rows
    // decide: the outputs would give their room for nothing.
    if (layerForNumbers > byRows && layerForNumbers <= total - outputLeast)
        return layerForNumbers;
    return byRows;
}

}  // namespace tp
