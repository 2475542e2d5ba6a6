#include "block/mlp.h"

#include "block/gelu.h"
#include "layer/products.h"

#include <cassert>

namespace tp {
namespace {

// out = x @ kernel + bias, bias broadcast over the rows.
void affine(Eigen::Ref<Matrix> out, const MatrixCRef& x, const MatrixCRef& kernel,
            const RowVectorCRef& bias) {
    multiply(out, x, kernel);
    out.rowwise() += bias;
}

void geluInPlace(Eigen::Ref<Matrix> m) {
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

// Megatron's linear1 and GeLU: each device's slice of h and a.
void columnLinear1(MlpForward& f, const MlpParams& p, Progress* progress) {
    const Index n = p.x.rows();
    f.h.resize(n, p.kernel1.cols());
    f.a.resize(n, p.kernel1.cols());
    for (const ShardGroup& g : f.plan.linear1.groups) {
        const IndexRange s = g.kernelCols;
        auto h = f.h.middleCols(s.start, s.size());
        affine(h, p.x, p.kernel1.middleCols(s.start, s.size()), p.bias1.segment(s.start, s.size()));
        f.a.middleCols(s.start, s.size()) = h;
        geluInPlace(f.a.middleCols(s.start, s.size()));
        advance(progress);
    }
}

// linear2 column-parallel on the whole of a: y[:, cols g] = a @ kernel2[:, cols g] + bias2[cols g]
// on each device, the blocks side by side (after their all-gather).
void columnLinear2(MlpForward& f, const MlpParams& p, Progress* progress) {
    f.output.resize(p.x.rows(), p.kernel2.cols());
    for (const ShardGroup& g : f.plan.linear2.groups) {
        const IndexRange cols = g.kernelCols;
        affine(f.output.middleCols(cols.start, cols.size()), f.a,
               p.kernel2.middleCols(cols.start, cols.size()),
               p.bias2.segment(cols.start, cols.size()));
        advance(progress);
    }
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
    f.partials.resize(std::size_t(c.tpSize));
    for (const ShardGroup& g : f.plan.linear2.groups) {
        const IndexRange rows = g.kernelRows;
        Matrix& partial = f.partials[std::size_t(g.index)];
        partial.resize(n, c.features);
        multiply(partial, f.a.middleCols(rows.start, rows.size()),
                 p.kernel2.middleRows(rows.start, rows.size()));
        if (mistake == Mistake::Bias2PerPartial)
            partial.rowwise() += p.bias2;
        advance(progress);
    }
    const RowVectorCRef bias2 = p.bias2;
    f.output = sumInOrder(f.partials, mistake == Mistake::Bias2PerPartial ? nullptr : &bias2);
    return f;
}

MlpReference mlpReference(const MlpParams& p) {
    MlpReference r;
    r.h.resize(p.x.rows(), p.kernel1.cols());
    affine(r.h, p.x, p.kernel1, p.bias1);
    r.a = geluOf(r.h);
    r.output.resize(p.x.rows(), p.kernel2.cols());
    affine(r.output, r.a, p.kernel2, p.bias2);
    return r;
}

}  // namespace tp
