#include "layer/verification.h"

#include "layer/products.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace tp {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;
// Absolute loss per rounding when a result underflows, with flush to zero: 2^-126, doubled.
constexpr double kUnderflowPerRounding = 0x1p-125;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Columns whose magnitudes are computed together: one 64-byte line of a kernel row.
constexpr Index kBlockCols = 16;
// How many of the largest errors get their exact ratio besides the elements the cheap test sends.
constexpr std::size_t kLargestErrors = 8;

// Float bits mapped to integers in the order of the values, +0 and -0 both to 0.
std::int64_t orderedBits(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::int64_t magnitude = bits & 0x7fffffffu;
    return (bits & 0x80000000u) ? -magnitude : magnitude;
}

std::string shapeText(Index rows, Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

// Clears an element without its full magnitude s_ij when its error is within the bound of a lower
// bound of s_ij: first max(|bias_j|, what the reference implies), then, for the few elements near
// a zero of the reference, the first (up to 64) terms of the sum plus |bias_j| (every term is >=
// 0). The head's products are exact in double and their double sum is within 2^-46 of exact.
struct CheapTest {
    const BoundModel& model;
    const MatrixCRef& x;
    const MatrixCRef& kernel;
    const RowVector& absBias;

    bool clears(Index r, Index c, float reference, double error) const {
        double lower = model.magnitudeLowerBound(reference, absBias(c));
        if (error <= model.boundOfExact(lower))
            return true;
        const Index headTerms = std::min<Index>(kernel.rows(), 64);
        double head = 0.0;
        for (Index k = 0; k < headTerms; ++k)
            head += std::abs(double(x(r, k))) * std::abs(double(kernel(k, c)));
        lower = std::max(lower, head * (1.0 - 0x1p-46) + absBias(c));
        return error <= model.boundOfExact(lower);
    }
};

// Threads merge in any order: on a tie, the element that comes first in row-major order wins.
bool firstOf(Index r1, Index c1, Index r2, Index c2) {
    return r1 < r2 || (r1 == r2 && c1 < c2);
}

struct LargeError {
    double error = -1.0;
    Index row = 0;
    Index col = 0;
};

// What one thread gathers in the pass over every element.
struct ElementStats {
    Index bitIdentical = 0;
    Index nanElements = 0;
    std::uint64_t maxUlp = 0;
    double maxAbsError = 0.0;
    Index worstRow = 0;
    Index worstCol = 0;
    double maxRelError = 0.0;
    bool allclose = true;
    double referenceSquares = 0.0;  // over the finite reference elements
    Index finiteReferences = 0;
    std::vector<char> blockNeeded;  // per kBlockCols columns: an element the cheap test left
    std::array<LargeError, kLargestErrors> largest{};

    void keepIfLarge(double error, Index r, Index c) {
        auto smallest = std::min_element(largest.begin(), largest.end(),
                                         [](auto& a, auto& b) { return a.error < b.error; });
        if (error > smallest->error)
            *smallest = {error, r, c};
    }

    void merge(const ElementStats& o) {
        bitIdentical += o.bitIdentical;
        nanElements += o.nanElements;
        maxUlp = std::max(maxUlp, o.maxUlp);
        if (o.maxAbsError > maxAbsError ||
            (o.maxAbsError == maxAbsError && firstOf(o.worstRow, o.worstCol, worstRow, worstCol))) {
            maxAbsError = o.maxAbsError;
            worstRow = o.worstRow;
            worstCol = o.worstCol;
        }
        maxRelError = std::max(maxRelError, o.maxRelError);
        allclose = allclose && o.allclose;
        referenceSquares += o.referenceSquares;
        finiteReferences += o.finiteReferences;
        for (std::size_t i = 0; i < blockNeeded.size(); ++i)
            blockNeeded[i] |= o.blockNeeded[i];
        for (const LargeError& e : o.largest)
            keepIfLarge(e.error, e.row, e.col);
    }
};

// The pass over every element: counts, ULPs, allclose, and which column blocks hold an element
// whose error the cheap lower bound of its magnitude cannot clear.
ElementStats compareElements(const MatrixCRef& actual, const MatrixCRef& reference,
                             const CheapTest* cheap, Tolerance tolerance) {
    const Index rows = reference.rows();
    const Index cols = reference.cols();
    const std::size_t blocks = std::size_t((cols + kBlockCols - 1) / kBlockCols);
    ElementStats total;
    total.blockNeeded.assign(cheap ? blocks : 0, 0);

#pragma omp parallel if (rows * cols > (Index(1) << 16))
    {
        ElementStats mine;
        mine.blockNeeded.assign(total.blockNeeded.size(), 0);
#pragma omp for schedule(static) nowait
        for (Index r = 0; r < rows; ++r) {
            for (Index c = 0; c < cols; ++c) {
                const float a = actual(r, c);
                const float b = reference(r, c);
                if (std::isfinite(b)) {
                    mine.referenceSquares += double(b) * double(b);
                    ++mine.finiteReferences;
                }
                // An overflow never passes, not even infinity against the same infinity.
                if (!std::isfinite(a) || !std::isfinite(b)) {
                    ++mine.nanElements;
                    mine.allclose = false;
                    continue;
                }
                if (std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b)) {
                    ++mine.bitIdentical;
                    continue;
                }
                const std::int64_t ulps = orderedBits(a) - orderedBits(b);
                mine.maxUlp = std::max(mine.maxUlp, std::uint64_t(ulps < 0 ? -ulps : ulps));
                const double error = std::abs(double(a) - double(b));
                if (error > mine.maxAbsError) {
                    mine.maxAbsError = error;
                    mine.worstRow = r;
                    mine.worstCol = c;
                }
                if (b != 0.0f)
                    mine.maxRelError = std::max(mine.maxRelError, error / std::abs(double(b)));
                if (!(error <= tolerance.atol + tolerance.rtol * std::abs(double(b))))
                    mine.allclose = false;
                if (cheap) {
                    if (!cheap->clears(r, c, b, error))
                        mine.blockNeeded[std::size_t(c / kBlockCols)] = 1;
                    mine.keepIfLarge(error, r, c);
                }
            }
        }
#pragma omp critical
        total.merge(mine);
    }
    return total;
}

struct BoundStats {
    Index overBound = 0;
    double maxRatio = 0.0;
    Index worstRow = 0;
    Index worstCol = 0;
    double maxWorstCaseRatio = 0.0;
    Index overWorstCase = 0;

    void add(double ratio, double worstCaseRatio, Index r, Index c) {
        if (!(ratio <= 1.0))
            ++overBound;
        if (!(worstCaseRatio <= 1.0))
            ++overWorstCase;
        if (worstCaseRatio > maxWorstCaseRatio || std::isnan(worstCaseRatio))
            maxWorstCaseRatio = worstCaseRatio;
        // A NaN ratio (inf error over an inf bound) counts as over the bound and as the worst.
        if (ratio > maxRatio || (std::isnan(ratio) && !std::isnan(maxRatio))) {
            maxRatio = ratio;
            worstRow = r;
            worstCol = c;
        }
    }
    void merge(const BoundStats& o) {
        overBound += o.overBound;
        overWorstCase += o.overWorstCase;
        if (o.maxWorstCaseRatio > maxWorstCaseRatio || std::isnan(o.maxWorstCaseRatio))
            maxWorstCaseRatio = o.maxWorstCaseRatio;
        if (o.maxRatio > maxRatio || (std::isnan(o.maxRatio) && !std::isnan(maxRatio)) ||
            (o.maxRatio == maxRatio && firstOf(o.worstRow, o.worstCol, worstRow, worstCol))) {
            maxRatio = o.maxRatio;
            worstRow = o.worstRow;
            worstCol = o.worstCol;
        }
    }
};

// The exact ratio error / roundingBound for the elements of the needed column blocks that the
// cheap test could not clear, and for the largest errors. Each block's |kernel| columns are
// gathered once, transposed, so that every magnitude is one contiguous dot product.
BoundStats checkNeededBlocks(const MatrixCRef& actual, const MatrixCRef& reference,
                             const MatrixCRef& x, const MatrixCRef& kernel,
                             const RowVector& absBias, const CheapTest& cheap,
                             const ElementStats& elements) {
    const Index rows = reference.rows();
    const Index cols = reference.cols();
    const Index inDim = kernel.rows();
    std::vector<char> needed = elements.blockNeeded;
    for (const LargeError& e : elements.largest)
        if (e.error > 0.0)
            needed[std::size_t(e.col / kBlockCols)] = 1;
    std::vector<Index> blocks;
    for (std::size_t b = 0; b < needed.size(); ++b)
        if (needed[b])
            blocks.push_back(Index(b));

    BoundStats total;
    const Index count = Index(blocks.size());
#pragma omp parallel if (count > 1 && rows * inDim * kBlockCols > (Index(1) << 16))
    {
        BoundStats mine;
        Matrix absColumns(kBlockCols, inDim);  // absColumns(jj, k) = |kernel(k, c0 + jj)|
#pragma omp for schedule(dynamic, 1) nowait
        for (Index bi = 0; bi < count; ++bi) {
            const Index c0 = blocks[std::size_t(bi)] * kBlockCols;
            const Index width = std::min(kBlockCols, cols - c0);
            for (Index k = 0; k < inDim; ++k)
                for (Index jj = 0; jj < width; ++jj)
                    absColumns(jj, k) = std::abs(kernel(k, c0 + jj));
            for (Index r = 0; r < rows; ++r) {
                for (Index jj = 0; jj < width; ++jj) {
                    const Index c = c0 + jj;
                    const float a = actual(r, c);
                    const float b = reference(r, c);
                    if (std::isnan(a) || std::isnan(b))
                        continue;
                    const double error = std::abs(double(a) - double(b));
                    if (error == 0.0)
                        continue;
                    const bool largest = std::any_of(
                        elements.largest.begin(), elements.largest.end(), [&](const LargeError& e) {
                            return e.error > 0.0 && e.row == r && e.col == c;
                        });
                    if (!largest && cheap.clears(r, c, b, error))
                        continue;
                    const float magnitude =
                        x.row(r).cwiseAbs().dot(absColumns.row(jj)) + absBias(c);
                    mine.add(error / cheap.model.bound(magnitude),
                             error / cheap.model.worstCase(magnitude), r, c);
                }
            }
        }
#pragma omp critical
        total.merge(mine);
    }
    return total;
}

// The largest bound any element can have, from norms (Cauchy-Schwarz: s_ij <= ||x_i|| ||k_j|| +
// |b_j|), summed in double: exact enough that a relative 2^-40 covers their rounding. The kernel is
// read once, by blocks of columns so that each thread keeps only its block's sums.
double resolutionOf(const BoundModel& model, const MatrixCRef& x, const MatrixCRef& kernel,
                    const RowVector& absBias) {
    constexpr Index kNormBlock = 512;
    double xNorm = 0.0;
    for (Index r = 0; r < x.rows(); ++r) {
        double squares = 0.0;
        for (Index k = 0; k < x.cols(); ++k)
            squares += double(x(r, k)) * double(x(r, k));
        xNorm = std::max(xNorm, std::sqrt(squares));
    }
    const Index cols = kernel.cols();
    const Index blocks = (cols + kNormBlock - 1) / kNormBlock;
    double largest = 0.0;
#pragma omp parallel if (kernel.size() > (Index(1) << 18))
    {
        double mine = 0.0;
        std::array<double, kNormBlock> squares{};
#pragma omp for schedule(static) nowait
        for (Index b = 0; b < blocks; ++b) {
            const Index c0 = b * kNormBlock;
            const Index width = std::min(kNormBlock, cols - c0);
            squares.fill(0.0);
            for (Index k = 0; k < kernel.rows(); ++k)
                for (Index jj = 0; jj < width; ++jj)
                    squares[std::size_t(jj)] +=
                        double(kernel(k, c0 + jj)) * double(kernel(k, c0 + jj));
            for (Index jj = 0; jj < width; ++jj) {
                const double s = xNorm * std::sqrt(squares[std::size_t(jj)]) + absBias(c0 + jj);
                // A NaN or an infinity in the operands leaves the resolution unknown: NaN.
                mine = std::isnan(s) || std::isnan(mine) ? kNaN : std::max(mine, s);
            }
        }
#pragma omp critical
        largest = std::isnan(mine) || std::isnan(largest) ? kNaN : std::max(largest, mine);
    }
    return model.boundOfExact(largest * (1.0 + 0x1p-40));
}

Verdict decide(const Verification& v, const CheckSettings& settings, double resolutionShare) {
    if (!v.shapeMismatch.empty() || v.nanElements > 0)
        return Verdict::Failed;
    if (settings.rule == CheckRule::Allclose)
        return v.allclose ? Verdict::Passed : Verdict::Failed;
    if (v.overWorstCase > 0)
        return Verdict::Failed;
    if (v.overBound > 0)
        return Verdict::Inconclusive;
    if (v.bitIdentical == v.elements)
        return Verdict::Passed;
    return v.resolution <= resolutionShare * v.valueScale ? Verdict::Passed : Verdict::Inconclusive;
}

Verification compare(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef* x,
                     const MatrixCRef* kernel, const RowVectorCRef* bias,
                     const CheckSettings& settings) {
    Verification v;
    v.rule = settings.rule;
    v.tolerance = settings.tolerance;
    if (actual.rows() != reference.rows() || actual.cols() != reference.cols()) {
        v.shapeMismatch = "shapes differ: " + shapeText(actual.rows(), actual.cols()) + " vs " +
                          shapeText(reference.rows(), reference.cols());
        v.verdict = Verdict::Failed;
        v.allclose = false;
        v.maxAbsError = v.maxRelError = v.maxErrorOverBound = v.maxErrorOverWorstCase = kNaN;
        v.resolution = kNaN;
        v.inDim = kernel ? kernel->rows() : 0;
        return v;
    }
    v.elements = reference.size();
    const BoundModel model(kernel ? kernel->rows() : 0);
    const RowVector absBias = bias ? RowVector(bias->cwiseAbs()) : RowVector();
    std::optional<CheapTest> cheap;
    if (model.enabled())
        cheap.emplace(CheapTest{model, *x, *kernel, absBias});
    const ElementStats stats =
        compareElements(actual, reference, cheap ? &*cheap : nullptr, settings.tolerance);
    v.bitIdentical = stats.bitIdentical;
    v.nanElements = stats.nanElements;
    v.maxUlp = stats.nanElements > 0 ? std::numeric_limits<std::uint64_t>::max() : stats.maxUlp;
    v.maxAbsError = stats.nanElements > 0 ? kNaN : stats.maxAbsError;
    v.maxRelError = stats.nanElements > 0 ? kNaN : stats.maxRelError;
    v.worstRow = stats.worstRow;
    v.worstCol = stats.worstCol;
    v.allclose = stats.allclose;

    v.valueScale = stats.finiteReferences > 0
                       ? std::sqrt(stats.referenceSquares / double(stats.finiteReferences))
                       : 0.0;
    v.resolution = kNaN;
    if (model.enabled()) {
        v.inDim = model.inDim;
        const BoundStats bound =
            checkNeededBlocks(actual, reference, *x, *kernel, absBias, *cheap, stats);
        v.overBound = bound.overBound;
        v.overWorstCase = bound.overWorstCase;
        v.maxErrorOverBound = stats.nanElements > 0 ? kNaN : bound.maxRatio;
        v.maxErrorOverWorstCase = stats.nanElements > 0 ? kNaN : bound.maxWorstCaseRatio;
        v.worstBoundRow = bound.worstRow;
        v.worstBoundCol = bound.worstCol;
        const bool resolutionDecides = settings.rule == CheckRule::RoundingBound &&
                                       v.nanElements == 0 && v.overBound == 0 &&
                                       v.bitIdentical < v.elements;
        if (resolutionDecides)
            v.resolution = resolutionOf(model, *x, *kernel, absBias);
    } else {
        v.maxErrorOverBound = v.maxErrorOverWorstCase = kNaN;
    }
    v.verdict = decide(v, settings, kResolutionShare);
    return v;
}

}  // namespace

double probabilisticGamma(Index n) {
    const double nd = double(n);
    return std::expm1(kRoundingLambda * std::sqrt(nd) * kUnitRoundoff +
                      nd * kUnitRoundoff * kUnitRoundoff / (1.0 - kUnitRoundoff));
}

double roundingGamma(Index n) {
    const double nu = double(n) * kUnitRoundoff;
    return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

BoundModel::BoundModel(Index k) : inDim(k) {
    if (k > 0) {
        worstGamma = roundingGamma(k + 1);
        // Both bound the error; the worst case is the smaller below about lambda^2 terms.
        gamma = std::min(probabilisticGamma(k + 1), worstGamma);
        underflow = double(k + 1) * kUnderflowPerRounding;
    }
}

double roundingBound(double magnitude, Index inDim) {
    return BoundModel(inDim).bound(magnitude);
}

double worstCaseBound(double magnitude, Index inDim) {
    return BoundModel(inDim).worstCase(magnitude);
}

Matrix magnitudes(const MatrixCRef& x, const MatrixCRef& kernel, const RowVectorCRef& bias) {
    assert(x.cols() == kernel.rows() && kernel.cols() == bias.size());
    const Matrix absX = x.cwiseAbs();
    const Matrix absKernel = kernel.cwiseAbs();
    Matrix s = product(absX, absKernel);
    s.rowwise() += bias.cwiseAbs();
    return s;
}

std::uint64_t ulpDistance(float a, float b) {
    if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<std::uint64_t>::max();
    const std::int64_t d = orderedBits(a) - orderedBits(b);
    return std::uint64_t(d < 0 ? -d : d);
}

Verification verify(const MatrixCRef& actual, const MatrixCRef& reference, const MatrixCRef& x,
                    const MatrixCRef& kernel, const RowVectorCRef& bias,
                    const CheckSettings& settings) {
    assert(x.cols() == kernel.rows() && kernel.cols() == bias.size());
    assert(reference.rows() == x.rows() && reference.cols() == kernel.cols());
    return compare(actual, reference, &x, &kernel, &bias, settings);
}

Verification verifyWithin(const MatrixCRef& actual, const MatrixCRef& reference,
                          const ElementBounds& bounds, const CheckSettings& settings) {
    Verification v = compare(actual, reference, nullptr, nullptr, nullptr, settings);
    v.rule = settings.rule;
    if (!v.shapeMismatch.empty())
        return v;
    assert(bounds.bound.rows() == reference.rows() && bounds.bound.cols() == reference.cols());
    assert(bounds.worstCase.rows() == reference.rows() &&
           bounds.worstCase.cols() == reference.cols());
    v.inDim = bounds.inDim;
    BoundStats stats;
    double largest = 0.0;
    for (Index r = 0; r < reference.rows(); ++r)
        for (Index c = 0; c < reference.cols(); ++c) {
            largest = std::max(largest, double(bounds.bound(r, c)));
            const float a = actual(r, c);
            const float b = reference(r, c);
            if (std::isnan(a) || std::isnan(b))
                continue;
            const double error = std::abs(double(a) - double(b));
            if (error == 0.0)
                continue;
            stats.add(error / double(bounds.bound(r, c)), error / double(bounds.worstCase(r, c)), r,
                      c);
        }
    v.overBound = stats.overBound;
    v.overWorstCase = stats.overWorstCase;
    v.maxErrorOverBound = v.nanElements > 0 ? kNaN : stats.maxRatio;
    v.maxErrorOverWorstCase = v.nanElements > 0 ? kNaN : stats.maxWorstCaseRatio;
    v.worstBoundRow = stats.worstRow;
    v.worstBoundCol = stats.worstCol;
    v.resolution = settings.rule == CheckRule::RoundingBound ? largest : kNaN;
    v.verdict = decide(v, settings, kResolutionShare);
    return v;
}

Verification verify(const MatrixCRef& actual, const MatrixCRef& reference, Tolerance tolerance) {
    return compare(actual, reference, nullptr, nullptr, nullptr,
                   CheckSettings{CheckRule::Allclose, tolerance});
}

}  // namespace tp
