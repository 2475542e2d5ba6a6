#include "block/mlp_backward.h"

#include "block/gelu.h"
#include "layer/fresh_matrix.h"
#include "layer/group_sums.h"
#include "layer/group_tasks.h"
#include "layer/products.h"

#include <omp.h>

#include <cassert>

namespace tp {
namespace {

// dh = da * gelu'(h), element by element (each its own: the rows run on every thread).
void geluGradient(Eigen::Ref<Matrix> dh, const MatrixCRef& da, const MatrixCRef& h) {
#pragma omp parallel for schedule(static)
    for (Index r = 0; r < h.rows(); ++r)
        for (Index c = 0; c < h.cols(); ++c)
            dh(r, c) = da(r, c) * geluDerivative(h(r, c));
}

RowVector columnSums(const MatrixCRef& m) {
    return m.colwise().sum();
}

}  // namespace

MlpBackward mlpBackwardParallel(const MlpParams& p, const MlpForward& f, const MatrixCRef& dy,
                                Progress* progress) {
    const ShardingPlan& plan = f.plan.linear1;  // its hidden slices are linear2's rows
    assert(plan.groupsInPlace());
    const Index n = p.x.rows();
    const Index hidden = p.kernel1.cols();
    MlpBackward b;
    MlpGradients& g = b.gradients;
    g.dkernel2 = mappedMatrix(hidden, p.kernel2.cols());
    g.da = mappedMatrix(n, hidden);
    g.dh = mappedMatrix(n, hidden);
    g.dkernel1 = mappedMatrix(p.kernel1.rows(), hidden);
    g.dbias1.resize(hidden);
    g.dbias2 = columnSums(dy);  // once

    // Each device's slices, the devices side by side as the layer's backward runs its groups, a
    // run of neighbouring devices as one product of each kind (groupRunLength): a block of a
    // product is the product of its rows and columns. Each run writes only its own slices.
    const Index runLength = groupRunLength(plan);
    const Index runs = plan.tpSize / runLength;
    forEachTask(runs, runs > 1 && omp_get_max_threads() > 1, [&](Index r) {
        const IndexRange s = plan.run(r * runLength, runLength).kernelCols;
        const auto a = f.a.middleCols(s.start, s.size());
        multiply(g.dkernel2.middleRows(s.start, s.size()), transposed(a), dy);
        auto da = g.da.middleCols(s.start, s.size());
        multiply(da, dy, transposed(p.kernel2.middleRows(s.start, s.size())));
        auto dh = g.dh.middleCols(s.start, s.size());
        geluGradient(dh, da, f.h.middleCols(s.start, s.size()));
        multiply(g.dkernel1.middleCols(s.start, s.size()), transposed(p.x), dh);
        g.dbias1.segment(s.start, s.size()) = columnSums(dh);
        advance(progress, runLength);
    });

    // The all-reduce of dx (Megatron's f): the devices' partials dh[:, s] @ kernel1[:, s]^T summed
    // in device order, each summed apart and added in registers, none stored; a partial read is
    // made again from dh and kernel1 with the bits that were added.
    const std::vector<Index> bounds = groupBounds(plan);
    g.dx = uninitializedMatrix(n, p.kernel1.rows());
    sumGroupsByTiles(g.dx, g.dh, transposed(p.kernel1), bounds);
    b.dxPartials = groupSumPartials(g.dh, transposed(p.kernel1), bounds);
    return b;
}

MlpGradients mlpBackwardReference(const MlpParams& p, const MlpReference& r, const MatrixCRef& dy) {
    MlpGradients g;
    g.dkernel2 = product(transposed(r.a), dy);
    g.dbias2 = columnSums(dy);
    g.da = product(dy, transposed(p.kernel2));
    g.dh.resize(g.da.rows(), g.da.cols());
    geluGradient(g.dh, g.da, r.h);
    g.dkernel1 = product(transposed(p.x), g.dh);
    g.dbias1 = columnSums(g.dh);
    g.dx = product(g.dh, transposed(p.kernel1));
    return g;
}

bool MlpBackwardVerification::passed() const {
    return dx.passed() && dkernel1.passed() && dbias1.passed() && dkernel2.passed() &&
           dbias2.passed();
}

MlpBackwardVerification verifyMlpBackward(const MlpGradients& split, const MlpGradients& ref,
                                          const MlpParams& p, const MlpReference& r,
                                          const MlpForwardBounds& fb, const MatrixCRef& dy,
                                          const CheckSettings& settings) {
    const Index n = dy.rows();
    const Matrix ones = Matrix::Ones(1, n);
    const ElementBounds aT = transposedBounds(fb.a);
    const ElementBounds dkernel2 = productBounds(transposed(r.a), &aT, dy, nullptr);
    const ElementBounds dbias2 = productBounds(ones, nullptr, dy, nullptr);
    const ElementBounds da = productBounds(dy, nullptr, transposed(p.kernel2), nullptr);
    const ElementBounds dh = geluGradientBounds(ref.da, da, r.h, fb.h);
    const ElementBounds dkernel1 = productBounds(transposed(p.x), nullptr, ref.dh, &dh);
    const ElementBounds dbias1 = productBounds(ones, nullptr, ref.dh, &dh);
    const ElementBounds dx = productBounds(ref.dh, &dh, transposed(p.kernel1), nullptr);
    const auto row = [](const RowVector& v) { return MatrixCRef(v); };
    return {verifyWithin(split.dx, ref.dx, dx, settings),
            verifyWithin(split.dkernel1, ref.dkernel1, dkernel1, settings),
            verifyWithin(row(split.dbias1), row(ref.dbias1), dbias1, settings),
            verifyWithin(split.dkernel2, ref.dkernel2, dkernel2, settings),
            verifyWithin(row(split.dbias2), row(ref.dbias2), dbias2, settings)};
}

}  // namespace tp
