#pragma once

// The interface between layer/products.cpp and the products compiled once per instruction set
// (layer/product_kernel.cpp). Internal to the core. Plain pointers and sizes only: each kernel
// object holds its own renamed copy of Eigen, whose types cannot cross into the rest of the core.

#include <cstdint>

namespace tp::products {

/// A factor of a product as the product reads it: `rows` x `cols`, element (r, c) at
/// data[r * stride + c], or, when `transposed`, at data[c * stride + r] (the transpose of a
/// row-major block).
struct Factor {
    const float* data;
    std::int64_t rows;
    std::int64_t cols;
    std::int64_t stride;
    bool transposed;
};

/// The product's output: `rows` x `cols`, row-major, element (r, c) at data[r * stride + c].
struct Output {
    float* data;
    std::int64_t rows;
    std::int64_t cols;
    std::int64_t stride;
};

/// Products of at most this many rows of a are summed in order over k, a multiply and then an add
/// per term (never fused), in column blocks of b; each element of b then serves at most kFewRows
/// products, so the product is bound by reading b, not by arithmetic. At 8 rows this beats
/// OpenBLAS's blocked kernel, which streamed b at 5 GB/s here.
inline constexpr std::int64_t kFewRows = 8;
/// Whether a product whose a has `rows` rows is summed in order (the route above): at most
/// kFewRows rows, neither factor transposed. The products and the cost model both ask this.
constexpr bool summedInOrder(std::int64_t rows, bool aTransposed = false,
                             bool bTransposed = false) {
    return rows <= kFewRows && !aTransposed && !bTransposed;
}
/// Rows of b (terms of each sum) a product of few rows adds to a sum, held in a register, before it
/// stores the sum again; a run of b is then read from memory once and from L1 by every row of a.
/// At most 8: b's rows are often a multiple of 4 KiB apart, so a tile's rows share the sets of
/// the L1 cache, which hold 8 lines each on Zen 3 (12 on recent Xeons).
inline constexpr std::int64_t kDepthRun = 8;
/// Columns of b one task of such a product sums at a time: the (rows, kColumnBlock) sums stay in
/// cache while b streams past once, in runs of kColumnBlock floats (16 KiB) that prefetching
/// follows.
inline constexpr std::int64_t kColumnBlock = 4096;

/// Columns of b a sum of group products (sumGroupProducts) copies together at a time: a strip.
inline constexpr std::int64_t kGroupStrip = 48;
/// Terms (rows of b) of a strip it copies and sums together at a time: a block of 192 KiB, which
/// stays in the L2 cache while every row of a passes it. A whole strip of more terms need not
/// fit: at 16384 terms (3 MiB) the AVX2 path took 1.65x to 1.81x the full product with whole
/// strips, 1.17x to 1.22x by blocks (docs/speed.md); at 4096 terms a strip is 768 KiB, over
/// Zen 3's L2 of 512 KiB.
inline constexpr std::int64_t kGroupDepth = 1024;
/// The floats of scratch a sum of group products of `rows` rows and `terms` terms takes: a block
/// of a strip, and where there are several, each row's sums of the strip held between them (two
/// of kGroupStrip floats); and room to start them on a cache line (loads that straddle two lines
/// slowed the AVX2 path).
constexpr std::int64_t groupScratchFloats(std::int64_t rows, std::int64_t terms) {
    return kGroupStrip * (terms <= kGroupDepth ? terms : kGroupDepth + 2 * rows) + 16;
}

// out = a @ b, or out += a @ b when `accumulate`, for each instruction set; a (N, K), b (K, M),
// out (N, M). Each may only be called on a CPU that has its instruction set. multiplyInOrder sums
// each element in order over k (a of at most kFewRows rows, neither factor transposed);
// multiplyBlocked runs Eigen's blocked kernels (any product). layer/products.cpp chooses.
// addInOrder is multiplyInOrder's sums on the calling thread: sums += a @ b, each term added to
// the sum's value one after another in the order of k.
namespace baseline {
void multiplyInOrder(const Output& out, const Factor& a, const Factor& b, bool accumulate);
void addInOrder(const Output& sums, const Factor& a, const Factor& b);
void sumGroupProducts(const Output& out, const Factor& a, const Factor& b,
                      const std::int64_t* bounds, std::int64_t groups, float* scratch);
void multiplyBlocked(const Output& out, const Factor& a, const Factor& b, bool accumulate);
}  // namespace baseline
namespace avx2 {
void multiplyInOrder(const Output& out, const Factor& a, const Factor& b, bool accumulate);
void addInOrder(const Output& sums, const Factor& a, const Factor& b);
void sumGroupProducts(const Output& out, const Factor& a, const Factor& b,
                      const std::int64_t* bounds, std::int64_t groups, float* scratch);
void multiplyBlocked(const Output& out, const Factor& a, const Factor& b, bool accumulate);
}  // namespace avx2
namespace avx512 {
void multiplyInOrder(const Output& out, const Factor& a, const Factor& b, bool accumulate);
void addInOrder(const Output& sums, const Factor& a, const Factor& b);
void sumGroupProducts(const Output& out, const Factor& a, const Factor& b,
                      const std::int64_t* bounds, std::int64_t groups, float* scratch);
void multiplyBlocked(const Output& out, const Factor& a, const Factor& b, bool accumulate);
}  // namespace avx512

}  // namespace tp::products
