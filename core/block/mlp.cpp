#include "block/mlp.h"

#include "block/gelu.h"
#include "layer/forward.h"
#include "layer/group_sums.h"
#include "layer/products.h"

#include <cassert>

namespace tp {
namespace {

// Each element is its own GeLU, so the threads' share of the rows does not change a bit.
void geluInPlace(Eigen::Ref<Matrix> m) {
#pragma omp parallel for schedule(static) if (m.size() > (Index(1) << 16))
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c)
            m(r, c) = gelu(m(r, c));
}

// The sum of `parts` in device order, plus `bias` once when given.
Matrix sumInOrder(const std::vector<Matrix>& parts, const RowVectorCRef* bias) {
    Matrix sum = parts.front();
    for (std::size_t g = 1; g < parts.size(); ++g)
        sum += parts[g];
    if (bias)
        sum.rowwise() += *bias;
    return sum;
}

// Megatron's linear1 and GeLU: each device's slice of h, x @ kernel1[:, slice] + bias1[slice],
// by the column split (layer/forward.h), and of a = gelu(h).
void columnLinear1(MlpForward& f, const MlpParams& p, Progress* progress) {
    f.h =
        std::move(forwardColumnParallel(p.x, p.kernel1, p.bias1, f.plan.linear1, progress).output);
    f.a = geluOf(f.h);
}

// linear2 column-parallel on the whole of a: y[:, cols g] = a @ kernel2[:, cols g] + bias2[cols g]
// on each device by the column split, the blocks side by side (after their all-gather).
void columnLinear2(MlpForward& f, const MlpParams& p, Progress* progress) {
    f.output =
        std::move(forwardColumnParallel(f.a, p.kernel2, p.bias2, f.plan.linear2, progress).output);
}

}  // namespace

MlpPlan mlpPlan(const LayerConfig& c, Mistake mistake) {
    assert(c.block == Block::Mlp);
    if (mistake == Mistake::RowThenColumn)
        return {ShardingPlan::make(ParallelMode::Row, c.inDim, c.hidden, c.tpSize),
                ShardingPlan::make(ParallelMode::Column, c.hidden, c.features, c.tpSize)};
    if (mistake == Mistake::GatherBetween)
        return {ShardingPlan::make(ParallelMode::Column, c.inDim, c.hidden, c.tpSize),
                ShardingPlan::make(ParallelMode::Column, c.hidden, c.features, c.tpSize)};
    return {ShardingPlan::make(ParallelMode::Column, c.inDim, c.hidden, c.tpSize),
            ShardingPlan::make(ParallelMode::Row, c.hidden, c.features, c.tpSize)};
}

Matrix geluOf(const MatrixCRef& h) {
    Matrix a = h;
    geluInPlace(a);
    return a;
}

MlpForward mlpForward(const MlpParams& p, const LayerConfig& c, Mistake mistake,
                      Progress* progress) {
    MlpForward f;
    f.plan = mlpPlan(c, mistake);
    const Index n = p.x.rows();
    switch (mistake) {
        case Mistake::RowThenColumn: {
            // Each device's partial sum of linear1, bias1 with device 0's, then its own GeLU.
            f.hPartials.resize(std::size_t(c.tpSize));
            std::vector<Matrix> gelus(std::size_t(c.tpSize));
            for (const ShardGroup& g : f.plan.linear1.groups) {
                const IndexRange rows = g.kernelRows;
                Matrix& partial = f.hPartials[std::size_t(g.index)];
                partial.resize(n, c.hidden);
                multiply(partial, p.x.middleCols(rows.start, rows.size()),
                         p.kernel1.middleRows(rows.start, rows.size()));
                if (g.index == 0)
                    partial.rowwise() += p.bias1;
                gelus[std::size_t(g.index)] = geluOf(partial);
                advance(progress);
            }
            f.h = sumInOrder(f.hPartials, nullptr);
            f.a = sumInOrder(gelus, nullptr);
            columnLinear2(f, p, progress);
            return f;
        }
        case Mistake::GatherBetween:
            columnLinear1(f, p, progress);
            columnLinear2(f, p, progress);  // on the gathered a: every device holds all of it
            return f;
        case Mistake::None:
        case Mistake::Bias2PerPartial:
            break;
        default:
            assert(false && "not a mistake of the MLP block");
    }
    columnLinear1(f, p, progress);
    if (mistake == Mistake::None && c.tpSize > 1) {
        // Megatron's linear2 is the row split: each device's partial sum summed apart and added
        // in device order, bias2 once, with no partial stored (made on first read, from a and
        // kernel2).
        ForwardResult linear2 =
            forwardRowParallel(f.a, p.kernel2, p.bias2, f.plan.linear2, progress);
        f.output = std::move(linear2.output);
        f.partials = std::move(linear2.partials);
        return f;
    }
    // One device's partial is its output before bias2, kept; bias2-per-partial adds bias2 to each
    // device's. Each partial has the bits of the row split's (groupProduct, layer/group_sums.h).
    std::vector<Matrix> partials;
    for (const ShardGroup& g : f.plan.linear2.groups) {
        const IndexRange rows = g.kernelRows;
        partials.push_back(groupProduct(f.a.middleCols(rows.start, rows.size()),
                                        p.kernel2.middleRows(rows.start, rows.size())));
        if (mistake == Mistake::Bias2PerPartial)
            partials.back().rowwise() += p.bias2;
        advance(progress);
    }
    const RowVectorCRef bias2 = p.bias2;
    f.output = sumInOrder(partials, mistake == Mistake::Bias2PerPartial ? nullptr : &bias2);
    f.partials = std::move(partials);
    return f;
}

MlpReference mlpReference(const MlpParams& p) {
    MlpReference r;
    r.h = forwardReference(p.x, p.kernel1, p.bias1);
    r.a = geluOf(r.h);
    r.output = forwardReference(r.a, p.kernel2, p.bias2);
    return r;
}

}  // namespace tp
