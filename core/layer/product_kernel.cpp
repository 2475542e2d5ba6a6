// The products of layer/products.h for one instruction set. This file is compiled once per set
// (core/CMakeLists.txt), with TPVIZ_PRODUCT_ISA naming the set (baseline, avx2, avx512) and its
// flags: Eigen is header-only, so each object holds Eigen's kernels for its own instruction set.
//
// Eigen's namespace is renamed per object (the define below). Without it, every object would
// define the same Eigen template instances, each compiled for its own set, and the linker would
// keep one of them for all callers: the AVX-512 one on a CPU without AVX-512, or the baseline one
// in the AVX2 path. Nothing else here may instantiate an inline function or template outside
// this object's namespaces (the test product_objects_share_no_code lists such symbols).

#include "layer/product_kernel.h"

#define TPVIZ_JOIN_NAMES(a, b) a##b
#define TPVIZ_JOINED_NAMES(a, b) TPVIZ_JOIN_NAMES(a, b)
#define Eigen TPVIZ_JOINED_NAMES(Eigen_, TPVIZ_PRODUCT_ISA)

#include <omp.h>
#include <Eigen/Core>
#include <cassert>
#include <cstdint>

namespace tp::products::TPVIZ_PRODUCT_ISA {
namespace {

using Index = std::int64_t;
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ColMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Stride = Eigen::OuterStride<>;

// Not std::min and std::max: an instance the compiler does not inline would be shared code outside
// this object's namespaces (see the top of the file).
Index smaller(Index a, Index b) {
    return a < b ? a : b;
}
Index larger(Index a, Index b) {
    return a < b ? b : a;
}

}  // namespace

namespace {

// A tile: kVectors vectors of columns of kRowsAtOnce rows of sums, held in registers while a run of
// kDepthRun terms is added, each load of b serving every row. Enough independent sums to hide the
// add's latency, few enough to leave registers for b: per instruction set, as measured on
// (8, 2048) @ (2048, 16384) on each of 2 ranks (docs/speed.md).
#if defined(__AVX512F__)
constexpr Index kLanes = 16;
constexpr Index kVectors = 3;
constexpr Index kRowsAtOnce = 8;
#elif defined(__AVX2__)
constexpr Index kLanes = 8;
constexpr Index kVectors = 2;
constexpr Index kRowsAtOnce = 4;
#else
constexpr Index kLanes = 4;
constexpr Index kVectors = 2;
constexpr Index kRowsAtOnce = 4;
#endif
constexpr Index kTile = kLanes * kVectors;
// The instruction set's vector of floats. Its + and * round each lane as a float does, and the
// file is compiled without fusing them.
using Vector = float __attribute__((vector_size(kLanes * sizeof(float))));

Vector loaded(const float* from) {
    Vector v;
    __builtin_memcpy(&v, from, sizeof v);
    return v;
}

// Floats between the rows of a task's sums: not a multiple of 4 KiB, so that the rows' tiles do not
// all fall in the same sets of the L1 cache (with b's rows, whose stride often is such a multiple;
// (4, 4096) @ (4096, 8192) took 16.0 ms with rows 16 KiB apart and runs of 16, 11.8 ms now).
constexpr Index kSumsStride = kColumnBlock + 16;

// One tile of `rows` rows of sums (sumsStride apart): sums += a's rows (aStride apart) at terms
// [0, terms) . b's rows [0, terms), term after term, each load of b shared by the rows.
template <Index rows>
void addTerms(float* __restrict sums, Index sumsStride, const float* a, Index aStride,
              const float* b, Index bStride, Index terms) {
    Vector held[rows][kVectors];
    for (Index r = 0; r < rows; ++r)
        for (Index v = 0; v < kVectors; ++v)
            held[r][v] = loaded(sums + r * sumsStride + v * kLanes);
    for (Index k = 0; k < terms; ++k) {
        Vector bk[kVectors];
        for (Index v = 0; v < kVectors; ++v)
            bk[v] = loaded(b + k * bStride + v * kLanes);
        for (Index r = 0; r < rows; ++r) {
            const float ak = a[r * aStride + k];
            for (Index v = 0; v < kVectors; ++v)
                held[r][v] += ak * bk[v];
        }
    }
    for (Index r = 0; r < rows; ++r)
        for (Index v = 0; v < kVectors; ++v)
            __builtin_memcpy(sums + r * sumsStride + v * kLanes, &held[r][v], sizeof(Vector));
}

// One tile of the rows of sums from r on, `rows` at once while that many remain.
template <Index rows>
void addTileRows(Index& r, const Output& sums, Index c, const Factor& a, Index k, const float* run,
                 Index bStride, Index terms) {
    for (; r + rows <= sums.rows; r += rows)
        addTerms<rows>(sums.data + r * sums.stride + c, sums.stride, a.data + r * a.stride + k,
                       a.stride, run + c, bStride, terms);
}

// One tile of every row of sums: as many rows at once as the instruction set holds, then fewer.
void addTile(const Output& sums, Index c, const Factor& a, Index k, const float* run, Index bStride,
             Index terms) {
    Index r = 0;
    if constexpr (kRowsAtOnce >= 8)
        addTileRows<8>(r, sums, c, a, k, run, bStride, terms);
    if constexpr (kRowsAtOnce >= 4)
        addTileRows<4>(r, sums, c, a, k, run, bStride, terms);
    if constexpr (kRowsAtOnce >= 2)
        addTileRows<2>(r, sums, c, a, k, run, bStride, terms);
    addTileRows<1>(r, sums, c, a, k, run, bStride, terms);
}

// The same for a last tile narrower than kTile.
void addTermsNarrow(float* __restrict sums, Index width, const float* a, const float* b,
                    Index bStride, Index terms) {
    for (Index k = 0; k < terms; ++k) {
        const float ak = a[k];
        const float* __restrict bk = b + k * bStride;
        for (Index c = 0; c < width; ++c)
            sums[c] += ak * bk[c];
    }
}

}  // namespace

// sums += a @ b, a of at most kFewRows rows, in runs of kDepthRun rows of b: each run is read once
// from memory, in tiles of kTile columns, each load of b serving up to kRowsAtOnce rows of a.
void addInOrder(const Output& sums, const Factor& a, const Factor& b) {
    assert(a.rows <= kFewRows && !a.transposed && !b.transposed);
    assert(sums.rows == a.rows && sums.cols == b.cols && a.cols == b.rows);
    const Index width = b.cols;
    for (Index k = 0; k < a.cols; k += kDepthRun) {
        const Index terms = smaller(kDepthRun, a.cols - k);
        const float* run = b.data + k * b.stride;
        Index c = 0;
        for (; c + kTile <= width; c += kTile)
            addTile(sums, c, a, k, run, b.stride, terms);
        if (c < width)
            for (Index r = 0; r < a.rows; ++r)
                addTermsNarrow(sums.data + r * sums.stride + c, width - c,
                               a.data + r * a.stride + k, run + c, b.stride, terms);
    }
}

// out = a @ b for an `a` of at most kFewRows rows, neither factor transposed. Each column block of
// b is read once, and every element is summed in the order k = 0, 1, ..., K - 1: a multiply, then
// an add (this file is compiled without fusing them), each vector lane rounding as a scalar does.
// An element's sum depends on neither the block, the tile, the thread nor the instruction set, so
// a group's columns computed alone equal the same columns of the full product, bit for bit, on
// every path. Threads share the column blocks unless the caller already runs in parallel.
void multiplyInOrder(const Output& out, const Factor& a, const Factor& b, bool accumulate) {
    assert(a.rows <= kFewRows && !a.transposed && !b.transposed);
    const Index rows = a.rows;
    const Index cols = b.cols;
    // At least one block per thread, so that both cores read b.
    const Index threads = omp_in_parallel() ? 1 : omp_get_max_threads();
    const Index blocks =
        larger((cols + kColumnBlock - 1) / kColumnBlock, smaller(threads, (cols + 63) / 64));
    const bool parallel = blocks > 1 && rows * a.cols * cols > (Index(1) << 20);
#pragma omp parallel for schedule(static) if (parallel)
    for (Index block = 0; block < blocks; ++block) {
        const Index c0 = cols * block / blocks;
        const Index width = cols * (block + 1) / blocks - c0;
        float sums[kFewRows][kSumsStride];
        for (Index r = 0; r < rows; ++r)
            for (Index c = 0; c < width; ++c)
                sums[r][c] = 0.0f;
        addInOrder({&sums[0][0], rows, width, kSumsStride}, a,
                   {b.data + c0, b.rows, width, b.stride, false});
        for (Index r = 0; r < rows; ++r) {
            float* __restrict o = out.data + r * out.stride + c0;
            for (Index c = 0; c < width; ++c)
                o[c] = accumulate ? o[c] + sums[r][c] : sums[r][c];
        }
    }
}

namespace {

// The sums of group products (sumGroupProducts below) in Eigen's vectors of this instruction set,
// whose multiply-add is fused where the set has FMA. A tile of kGroupRows rows and kGroupVectors
// vectors of columns: as many sums side by side as the registers hold with room for the loads of
// b and a. For AVX2 + FMA's 16 registers, measured on the row split against OpenBLAS's AVX2
// kernels on an AVX-512 CPU (docs/speed.md), strip unaligned: 4 rows of 3 vectors 1.35x to 1.64x
// the full product, 6 rows of 2 vectors 1.37x to 1.75x, and 1.11x to 1.30x once aligned.
using Packet = Eigen::internal::packet_traits<float>::type;
static_assert(sizeof(Packet) == kLanes * sizeof(float));
#if defined(__AVX512F__)
constexpr Index kGroupVectors = 3;
constexpr Index kGroupRows = 8;
#elif defined(__AVX2__)
constexpr Index kGroupVectors = 2;
constexpr Index kGroupRows = 6;
#else
constexpr Index kGroupVectors = 2;
constexpr Index kGroupRows = 4;
#endif
constexpr Index kGroupTile = kLanes * kGroupVectors;
static_assert(kGroupStrip % kGroupTile == 0);

// Where the sums of group products keep their work between the blocks of a strip: the block's
// terms, and each row's sum of a group not ended yet (`held`) and of the groups before it
// (`total`), kGroupStrip floats a row each.
struct GroupScratch {
    float* strip;
    float* held;
    float* total;
};

// A block of one strip: its terms [k0, k1) of `depth`, whether the strip has several blocks, the
// groups [first, last) that have terms there (or none, and begin there), and out at the strip's
// first column, `width` columns.
struct StripBlock {
    Index k0, k1, depth;
    bool blocked;
    const std::int64_t* bounds;
    Index first, last;
    float* out;
    Index outStride, width;
};

// Sets the groups [first, last) of the `groups` a block [k0, k1) of `depth` terms sums: those with
// terms in it, and those with none that begin in it (or at its end, for the last block), so that
// every group is summed in one block or, across blocks, in order.
void setGroupsOfBlock(StripBlock& block, Index groups) {
    const auto inBlock = [&](Index g) {
        const Index start = block.bounds[g], stop = block.bounds[g + 1];
        if (start < stop)
            return start < block.k1 && stop > block.k0;
        return start >= block.k0 && (start < block.k1 || block.k1 == block.depth);
    };
    block.first = 0;
    while (block.first < groups && !inBlock(block.first))
        ++block.first;
    block.last = block.first;
    while (block.last < groups && inBlock(block.last))
        ++block.last;
}

// The tile of rows [r0, r0 + rows) and the strip's columns [c, c + kGroupTile) over one block: for
// each of its groups in order, the group's product summed apart from zero, or from where the block
// before left it, term after term by multiply-adds in registers; a group that ends in the block is
// then added to the sum of the groups before it (the first one is the sum). The sums are kept in
// `s` between blocks and stored in out after the last one; within a block they stay on the stack,
// in L1. Each choice is made once per group, not per vector, so that the sums stay in registers;
// a strip of one block (not `blocked`), the common case, is compiled apart without them.
template <Index rows, bool blocked>
void sumGroupsTile(Index r0, Index c, const Factor& a, const GroupScratch& s,
                   const StripBlock& block) {
    const Index k0 = block.k0, k1 = block.k1;
    const float* strip = s.strip + c;
    const float* x = a.data + r0 * a.stride;
    float* const held = blocked ? s.held + r0 * kGroupStrip + c : nullptr;
    float* const kept = blocked ? s.total + r0 * kGroupStrip + c : nullptr;
    // The sum of the groups before: none yet in the first group's blocks, else kept from the
    // block before.
    float total[rows][kGroupTile];
    bool summed = blocked && block.first > 0;
    if (summed)
        for (Index r = 0; r < rows; ++r)
            for (Index col = 0; col < kGroupTile; ++col)
                total[r][col] = kept[r * kGroupStrip + col];
    for (Index g = block.first; g < block.last; ++g) {
        const Index start = block.bounds[g], stop = block.bounds[g + 1];
        Packet sums[rows][kGroupVectors];
        if (!blocked || start >= k0) {
            for (Index r = 0; r < rows; ++r)
                for (Index v = 0; v < kGroupVectors; ++v)
                    sums[r][v] = Eigen::internal::pset1<Packet>(0.0f);
        } else {
            for (Index r = 0; r < rows; ++r)
                for (Index v = 0; v < kGroupVectors; ++v)
                    sums[r][v] =
                        Eigen::internal::ploadu<Packet>(held + r * kGroupStrip + v * kLanes);
        }
        const Index from = larger(start, k0), to = smaller(stop, k1);
        for (Index k = from; k < to; ++k) {
            Packet bk[kGroupVectors];
            for (Index v = 0; v < kGroupVectors; ++v)
                bk[v] =
                    Eigen::internal::ploadu<Packet>(strip + (k - k0) * kGroupStrip + v * kLanes);
            for (Index r = 0; r < rows; ++r) {
                const Packet ak = Eigen::internal::pset1<Packet>(x[r * a.stride + k]);
                for (Index v = 0; v < kGroupVectors; ++v)
                    sums[r][v] = Eigen::internal::pmadd(ak, bk[v], sums[r][v]);
            }
        }
        if (blocked && stop > k1) {
            for (Index r = 0; r < rows; ++r)
                for (Index v = 0; v < kGroupVectors; ++v)
                    Eigen::internal::pstoreu(held + r * kGroupStrip + v * kLanes, sums[r][v]);
            continue;
        }
        if (!summed) {
            for (Index r = 0; r < rows; ++r)
                for (Index v = 0; v < kGroupVectors; ++v)
                    Eigen::internal::pstoreu(&total[r][v * kLanes], sums[r][v]);
        } else {
            for (Index r = 0; r < rows; ++r) {
                for (Index v = 0; v < kGroupVectors; ++v) {
                    float* const sum = &total[r][v * kLanes];
                    Eigen::internal::pstoreu(
                        sum,
                        Eigen::internal::padd(Eigen::internal::ploadu<Packet>(sum), sums[r][v]));
                }
            }
        }
        summed = true;
    }
    if (blocked && k1 < block.depth) {
        if (summed)
            for (Index r = 0; r < rows; ++r)
                for (Index col = 0; col < kGroupTile; ++col)
                    kept[r * kGroupStrip + col] = total[r][col];
        return;
    }
    float* const out = block.out + r0 * block.outStride + c;
    const Index width = smaller(kGroupTile, block.width - c);
    if (width == kGroupTile) {  // by vectors (a copy of runtime width took 3.6% of the time)
        for (Index r = 0; r < rows; ++r)
            for (Index v = 0; v < kGroupVectors; ++v)
                Eigen::internal::pstoreu(out + r * block.outStride + v * kLanes,
                                         Eigen::internal::ploadu<Packet>(&total[r][v * kLanes]));
        return;
    }
    for (Index r = 0; r < rows; ++r)
        for (Index col = 0; col < width; ++col)
            out[r * block.outStride + col] = total[r][col];
}

// The tiles of the rows from r on, `rows` at once while that many remain.
template <Index rows>
void sumGroupsRows(Index& r, Index outRows, Index c, const Factor& a, const GroupScratch& s,
                   const StripBlock& block) {
    for (; r + rows <= outRows; r += rows)
        (block.blocked ? sumGroupsTile<rows, true> : sumGroupsTile<rows, false>)(r, c, a, s, block);
}

// Terms [k0, k1) of b's columns [c0, c0 + width) into `strip`, kGroupStrip floats a term (the
// columns past `width` zero). From b's rows as they are, or from the rows of the matrix b is the
// transpose of (each column of b one of its rows, read along).
void copyStripBlock(float* strip, const Factor& b, Index k0, Index k1, Index c0, Index width) {
    if (!b.transposed) {
        for (Index k = k0; k < k1; ++k) {
            const float* from = b.data + k * b.stride + c0;
            float* to = strip + (k - k0) * kGroupStrip;
            for (Index c = 0; c < kGroupStrip; ++c)
                to[c] = c < width ? from[c] : 0.0f;
        }
        return;
    }
    for (Index c = 0; c < kGroupStrip; ++c) {
        float* to = strip + c;
        if (c >= width) {
            for (Index k = k0; k < k1; ++k)
                to[(k - k0) * kGroupStrip] = 0.0f;
            continue;
        }
        const float* from = b.data + (c0 + c) * b.stride;
        for (Index k = k0; k < k1; ++k)
            to[(k - k0) * kGroupStrip] = from[k];
    }
}

}  // namespace

// out = the sum over groups g in order of a[:, bounds[g]:bounds[g + 1]] @ b[those rows, :], on the
// calling thread. b's columns are taken kGroupStrip at a time, and each strip kGroupDepth terms at
// a time: copied into `scratch` (the last strip padded with zeros), a block serves every row of a,
// and each row's sums of a group not yet ended wait in `scratch` for the next block
// (groupScratchFloats(a.rows, b.rows) floats in all). An element's value depends only on its row
// of a, its column of b and the bounds: not on the strip, the block, the tile or the rows summed
// beside it.
void sumGroupProducts(const Output& out, const Factor& a, const Factor& b,
                      const std::int64_t* bounds, std::int64_t groups, float* scratch) {
    assert(!a.transposed && a.cols == b.rows);
    assert(out.rows == a.rows && out.cols == b.cols && bounds[0] == 0 && bounds[groups] == a.cols);
    // The strip starts on a cache line (groupScratchFloats leaves room), so that no load of it
    // straddles two.
    const auto address = reinterpret_cast<std::uintptr_t>(scratch);
    float* aligned = reinterpret_cast<float*>((address + 63) & ~std::uintptr_t(63));
    const Index depth = b.rows;
    const Index blockTerms = smaller(kGroupDepth, depth);
    // Sums wait between blocks only where there are several.
    const bool blocks = depth > kGroupDepth;
    const GroupScratch s{aligned, blocks ? aligned + blockTerms * kGroupStrip : nullptr,
                         blocks ? aligned + (blockTerms + out.rows) * kGroupStrip : nullptr};
    for (Index c0 = 0; c0 < b.cols; c0 += kGroupStrip) {
        const Index stripWidth = smaller(kGroupStrip, b.cols - c0);
        StripBlock block{0, 0, depth, blocks, bounds, 0, 0, out.data + c0, out.stride, stripWidth};
        // Blocks until the last term; one when there are none, so that the sums (of empty groups)
        // are still made.
        for (Index k0 = 0;; k0 += kGroupDepth) {
            const Index k1 = smaller(depth, k0 + kGroupDepth);
            copyStripBlock(s.strip, b, k0, k1, c0, stripWidth);
            block.k0 = k0;
            block.k1 = k1;
            setGroupsOfBlock(block, groups);
            for (Index c = 0; c < stripWidth; c += kGroupTile) {
                Index r = 0;
                sumGroupsRows<kGroupRows>(r, out.rows, c, a, s, block);
                if constexpr (kGroupRows > 4)
                    sumGroupsRows<4>(r, out.rows, c, a, s, block);
                if constexpr (kGroupRows > 2)
                    sumGroupsRows<2>(r, out.rows, c, a, s, block);
                sumGroupsRows<1>(r, out.rows, c, a, s, block);
            }
            if (k1 == depth)
                break;
        }
    }
}

namespace {

// The blocked product of Eigen for this instruction set (fused multiply-adds where the set has
// them), on the factors' own memory.
template <typename Out, typename A, typename B>
void blocked(Out&& out, const A& a, const B& b, bool accumulate) {
    if (accumulate)
        out.noalias() += a * b;
    else
        out.noalias() = a * b;
}

// The factor's memory as an Eigen map of its orientation, passed to use(map).
template <typename Use>
void withMap(const Factor& f, Use&& use) {
    if (f.transposed)
        use(Eigen::Map<const ColMajorMatrix, 0, Stride>(f.data, f.rows, f.cols, Stride(f.stride)));
    else
        use(Eigen::Map<const RowMajorMatrix, 0, Stride>(f.data, f.rows, f.cols, Stride(f.stride)));
}

}  // namespace

// The blocked product, split over threads by the longer side of out: each thread one run of
// columns (rows) of out with one thread's Eigen product of a by its run of b's columns (of a's
// rows). On two cores this beats Eigen's own threading inside one product (measured on
// (256, 1024, 4096) and (1024, 4096, 16384): 0.87x and 1.10x OpenBLAS's time, against 1.09x and
// 1.17x).
void multiplyBlocked(const Output& out, const Factor& a, const Factor& b, bool accumulate) {
    Eigen::Map<RowMajorMatrix, 0, Stride> o(out.data, out.rows, out.cols, Stride(out.stride));
    withMap(a, [&](const auto& am) {
        withMap(b, [&](const auto& bm) {
            const Index threads = omp_in_parallel() ? 1 : omp_get_max_threads();
            const bool byColumns = out.cols >= out.rows;
            const Index side = byColumns ? out.cols : out.rows;
            const Index parts = smaller(threads, side / 64);
            if (parts <= 1 || out.rows * out.cols * a.cols < (Index(1) << 22)) {
                blocked(o, am, bm, accumulate);
                return;
            }
#pragma omp parallel for schedule(static)
            for (Index part = 0; part < parts; ++part) {
                const Index start = side * part / parts;
                const Index size = side * (part + 1) / parts - start;
                if (byColumns)
                    blocked(o.middleCols(start, size), am, bm.middleCols(start, size), accumulate);
                else
                    blocked(o.middleRows(start, size), am.middleRows(start, size), bm, accumulate);
            }
        });
    });
}

}  // namespace tp::products::TPVIZ_PRODUCT_ISA
