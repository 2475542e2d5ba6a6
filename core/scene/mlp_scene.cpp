#include "scene/mlp_scene.h"

#include "nnx/nnx_init.h"
#include "scene/scene.h"

#include <cassert>

namespace tp {

bool MlpScene::passed() const {
    return verification.passed() && (!backward || backward->verification.passed());
}

namespace {

// One pass over the block's products, kMultiplyAddsPerUnit multiply-adds to a unit: the split's
// forward, or the reference's. The forward's bounds weigh two (five products: h's, and four for
// the output, whose factor a differs between the passes). The backward's gradients weigh two for
// the split and two for the reference (four products each), and their check six (thirteen).
std::int64_t passUnits(const LayerConfig& c) {
    return (c.batch * c.inDim * c.hidden + c.batch * c.hidden * c.features) / kMultiplyAddsPerUnit +
           c.tpSize;
}

}  // namespace

std::int64_t mlpWorkUnits(const LayerConfig& c, bool backward) {
    return mlpParameterCount(c) + passUnits(c) * (backward ? 14 : 4);
}

std::optional<MlpScene> computeMlpScene(const LayerConfig& c, Mistake mistake,
                                        const CheckSettings& check, bool backward,
                                        Progress* progress) {
    assert(c.block == Block::Mlp && c.validate().empty());
    assert(!backward || mistake == Mistake::None);
    if (progress)
        progress->setTotal(mlpWorkUnits(c, backward));
    MlpScene s;
    s.mistake = mistake;
    s.params = initMlp(c, progress);
    if (isCancelled(progress))
        return std::nullopt;
    s.mistakeWithoutEffect =
        mistakeWithoutEffect(c, mistake, s.params.bias1.isZero() && s.params.bias2.isZero());
    const std::int64_t pass = passUnits(c);
    s.split = mlpForward(s.params, c, mistake);
    advance(progress, pass);
    if (isCancelled(progress))
        return std::nullopt;
    s.reference = mlpReference(s.params);
    advance(progress, pass);
    s.bounds = mlpForwardBounds(s.params, s.reference);
    advance(progress, 2 * pass);
    s.verification = verifyMlp(s.split, s.reference, s.bounds, check);
    s.costs = mlpCosts(c, mistake, backward);
    if (backward && !isCancelled(progress)) {
        MlpBackwardScene b;
        b.dy = mlpCotangentBlock(c, {0, c.batch}, {0, c.features});
        b.split = mlpBackwardParallel(s.params, s.split, b.dy);
        advance(progress, 2 * pass);
        if (isCancelled(progress))
            return std::nullopt;
        b.reference = mlpBackwardReference(s.params, s.reference, b.dy);
        advance(progress, 2 * pass);
        if (isCancelled(progress))
            return std::nullopt;
        b.verification = verifyMlpBackward(b.split.gradients, b.reference, s.params, s.reference,
                                           s.bounds, b.dy, check);
        advance(progress, 6 * pass);
        s.backward = std::move(b);
    }
    if (isCancelled(progress))
        return std::nullopt;
    return s;
}

}  // namespace tp
