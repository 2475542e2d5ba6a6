#include "layer/trace.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

namespace tp {

namespace {

int groupOwning(const ShardingPlan& plan, Index position) {
    for (const ShardGroup& g : plan.groups) {
        if (position >= g.owned.start && position < g.owned.stop)
            return g.index;
    }
    return -1;
}

}  // namespace

OutputTrace traceOutput(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias,
                        const ForwardResult& result, const MatrixCRef& reference, Index row,
                        Index col, Index maxTerms) {
    assert(row >= 0 && row < x.rows() && col >= 0 && col < kernel.cols());
    const ShardingPlan& plan = result.plan;
    const bool rowMode = plan.mode == ParallelMode::Row;
    OutputTrace t;
    t.row = row;
    t.col = col;
    const Index inDim = kernel.rows();
    std::vector<TraceTerm> all(static_cast<std::size_t>(inDim));
    for (Index k = 0; k < inDim; ++k) {
        TraceTerm& term = all[std::size_t(k)];
        term.k = k;
        term.x = x(row, k);
        term.kernel = kernel(k, col);
        term.product = double(term.x) * double(term.kernel);  // exact: 24 + 24 bits fit 53
        term.group = rowMode ? groupOwning(plan, k) : -1;
        t.termSum += term.product;
    }
    if (inDim <= maxTerms) {
        t.terms = std::move(all);
    } else {
        // NaN products rank above every number (a NaN in x or the kernel, or 0 * inf, is what
        // the reader of the trace looks for), then by |product|: a strict weak order, as
        // partial_sort needs.
        const auto rank = [](const TraceTerm& term) {
            return std::isnan(term.product) ? std::numeric_limits<double>::infinity()
                                            : std::abs(term.product);
        };
        std::partial_sort(all.begin(), all.begin() + maxTerms, all.end(),
                          [&](const TraceTerm& a, const TraceTerm& b) {
                              const double ra = rank(a), rb = rank(b);
                              return ra > rb ||
                                     (ra == rb && std::isnan(a.product) && !std::isnan(b.product));
                          });
        t.terms.assign(all.begin(), all.begin() + maxTerms);
        t.omittedCount = inDim - maxTerms;
        for (auto it = all.begin() + maxTerms; it != all.end(); ++it)
            t.omittedSum += it->product;
    }
    t.bias = bias(col);
    t.exact = t.termSum + double(t.bias);
    t.result = result.output(row, col);
    t.reference = reference(row, col);
    if (rowMode) {
        for (const ShardGroup& g : plan.groups)
            t.contributions.push_back(
                {g.index, g.kernelRows, result.partials[std::size_t(g.index)](row, col)});
    } else {
        t.ownerGroup = groupOwning(plan, col);
    }
    return t;
}

KernelCellTrace traceKernelCell(const ShardingPlan& plan, Index k, Index j) {
    KernelCellTrace t;
    t.outputCol = j;
    t.flatIndex = k * plan.features + j;
    t.group = groupOwning(plan, plan.mode == ParallelMode::Row ? k : j);
    if (t.group >= 0)
        t.groupRange = plan.groups[std::size_t(t.group)].owned;
    return t;
}

}  // namespace tp
