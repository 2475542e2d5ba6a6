#include "layer/backward.h"

#include "layer/fresh_matrix.h"
#include "layer/group_sums.h"
#include "layer/group_tasks.h"
#include "layer/products.h"

#include <omp.h>

#include <algorithm>
#include <cassert>

namespace tp {

std::int64_t backwardBytesNeeded(const LayerConfig& c) {
    const std::int64_t input = c.batch * c.inDim;
    const std::int64_t kernel = c.inDim * c.features;
    const std::int64_t partials = c.mode == ParallelMode::Column ? c.tpSize * input : 0;
    const std::int64_t floats = c.batch * c.features + 2 * input + partials + 2 * kernel +
                                2 * c.features + std::max(kernel, input);
    return floats * std::int64_t(sizeof(float));
}

Gradients backwardReference(const MatrixCRef& x, const MatrixCRef& kernel, const MatrixCRef& dy) {
    assert(x.rows() == dy.rows() && x.cols() == kernel.rows() && kernel.cols() == dy.cols());
    Gradients g;
    g.dx = product(dy, transposed(kernel));
    g.dkernel = product(transposed(x), dy);
    g.dbias = dy.colwise().sum();
    return g;
}

namespace {

// out = a^T @ b summed over the data axis's batch blocks in order: what each data row of the mesh
// computes from its own rows, then their all-reduce over "data". a (batch, m), b (batch, n).
void dataSummedProduct(Eigen::Ref<Matrix> out, const MatrixCRef& a, const MatrixCRef& b,
                       Index dataSize) {
    const Index rows = a.rows() / dataSize;
    multiply(out, transposed(a.topRows(rows)), b.topRows(rows));
    for (Index d = 1; d < dataSize; ++d)
        multiplyAdd(out, transposed(a.middleRows(d * rows, rows)), b.middleRows(d * rows, rows));
}

// dy[:, cols].sum(0) over the data axis's batch blocks in order.
template <typename B>
RowVector dataSummedColumns(const B& b, Index dataSize) {
    const Index rows = b.rows() / dataSize;
    RowVector sum = b.topRows(rows).colwise().sum();
    for (Index d = 1; d < dataSize; ++d)
        sum += b.middleRows(d * rows, rows).colwise().sum();
    return sum;
}

}  // namespace

BackwardResult backwardParallel(const MatrixCRef& x, const MatrixCRef& kernel, const MatrixCRef& dy,
                                const ShardingPlan& plan, Index dataSize) {
    assert(x.rows() == dy.rows() && x.cols() == plan.inDim && kernel.rows() == plan.inDim &&
           kernel.cols() == plan.features && dy.cols() == plan.features);
    assert(dataSize >= 1 && x.rows() % dataSize == 0);
    const bool column = plan.mode == ParallelMode::Column;
    assert(!column || plan.groupsInPlace());
    BackwardResult result;
    result.plan = plan;
    Gradients& grads = result.gradients;
    grads.dkernel = mappedMatrix(plan.inDim, plan.features);
    grads.dbias.resize(plan.features);
    if (!column) {
        grads.dbias = dataSummedColumns(dy, dataSize);  // once: every device holds all of dy
        grads.dx = mappedMatrix(x.rows(), plan.inDim);
    }

    // The groups side by side, one thread each, as the forward pass runs them (Eigen's own threads
    // inside products of few rows cost more than they give on two shared cores), a run of
    // neighbouring groups as one product (groupRunLength). Each run writes only its own blocks.
    const Index runLength = groupRunLength(plan);
    const Index runs = plan.tpSize / runLength;
    forEachTask(runs, runs > 1 && omp_get_max_threads() > 1, [&](Index r) {
        const ShardGroup g = plan.run(r * runLength, runLength);
        // The run's own x columns (all of x in column mode) and dy columns (all in row mode).
        const auto xs = x.middleCols(g.inputCols.start, g.inputCols.size());
        const auto dys = dy.middleCols(g.outputCols.start, g.outputCols.size());
        dataSummedProduct(grads.dkernel.block(g.kernelRows.start, g.kernelCols.start,
                                              g.kernelRows.size(), g.kernelCols.size()),
                          xs, dys, dataSize);
        if (column) {
            grads.dbias.segment(g.kernelCols.start, g.kernelCols.size()) =
                dataSummedColumns(dys, dataSize);
        } else {
            const auto ks = kernel.middleRows(g.kernelRows.start, g.kernelRows.size());
            multiply(grads.dx.middleCols(g.kernelRows.start, g.kernelRows.size()), dy,
                     transposed(ks));
        }
    });
    if (column) {
        // The all-reduce over "model" (Megatron's f in the backward): the groups' partials summed
        // in group order, each summed apart and added in registers, none stored; a partial read is
        // made again with the bits that were added.
        const std::vector<Index> bounds = groupBounds(plan);
        grads.dx = uninitializedMatrix(x.rows(), plan.inDim);
        sumGroupsByTiles(grads.dx, dy, transposed(kernel), bounds);
        result.dxPartials = groupSumPartials(dy, transposed(kernel), bounds);
    }
    return result;
}

BackwardVerification verifyBackward(const Gradients& actual, const Gradients& reference,
                                    const MatrixCRef& x, const MatrixCRef& kernel,
                                    const MatrixCRef& dy, const CheckSettings& check) {
    const Index batch = dy.rows();
    BackwardVerification v;
    {
        const Matrix kernelT = kernel.transpose();  // (features, inDim): dx's second factor
        v.dx = verify(actual.dx, reference.dx, dy, kernelT, RowVector::Zero(kernel.rows()), check);
    }
    {
        const Matrix xT = x.transpose();  // (inDim, batch): dkernel's first factor
        v.dkernel =
            verify(actual.dkernel, reference.dkernel, xT, dy, RowVector::Zero(dy.cols()), check);
    }
    v.dbias = verify(actual.dbias, reference.dbias, Matrix::Ones(1, batch), dy,
                     RowVector::Zero(dy.cols()), check);
    return v;
}

}  // namespace tp
