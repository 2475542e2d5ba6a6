#include "nnx/jax_random.h"

#include "nnx/jax_random_simd.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace tp {

using simd::GaussianDraw;
using simd::kErfInvGe5;
using simd::kErfInvLt5;
using simd::kLog1pDen;
using simd::kLog1pNum;
using simd::kLog1pThreshold;
using simd::kNormalLower;
using simd::kSqrt2;
using simd::kTruncClampHi;
using simd::kTruncClampLo;

namespace {

// A correctly rounded float32 log (the model of XLA's f32 log, spec §7).
float logCorrectlyRounded(float x) {
    return float(std::log(double(x)));
}

GaussianDraw truncatedDraw(float scale) {
    return {kTruncatedLower, kTruncatedSpan, true, scale};
}

GaussianDraw normalDraw(float scale) {
    return {kNormalLower, 1.0f - kNormalLower, false, scale};
}

}  // namespace

Key seedToKey(std::int64_t seed, bool x64) {
    const auto bits = std::uint64_t(seed);
    if (!x64)
        return {0u, std::uint32_t(bits)};
    return {std::uint32_t(bits >> 32), std::uint32_t(bits)};
}

Key foldIn(Key key, std::uint32_t data) {
    const Threefry2x32Block b = threefry2x32(key, 0u, data);
    return {b.y0, b.y1};
}

std::vector<Key> split(Key key, std::uint32_t num, PrngLayout layout) {
    std::vector<Key> keys(num);
    if (layout == PrngLayout::Partitionable) {
        for (std::uint32_t j = 0; j < num; ++j)
            keys[j] = foldIn(key, j);
        return keys;
    }
    std::vector<std::uint32_t> words(2 * std::size_t(num));
    randomBits32(key, layout, words.size(), 0, words.size(), words.data());
    for (std::uint32_t j = 0; j < num; ++j)
        keys[j] = {words[2 * j], words[2 * j + 1]};
    return keys;
}

void randomBits32(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, std::uint32_t* out) {
    assert(start + count <= n);
    assert(layout == PrngLayout::Partitionable || n < 0xFFFFFFFFull);
    for (std::uint64_t k = 0; k < count; ++k)
        out[k] = simd::bitsAt(key, layout, n, start + k);
}

BitsOrigin bitsOrigin(PrngLayout layout, std::uint64_t n, std::uint64_t i) {
    assert(i < n);
    if (layout == PrngLayout::Partitionable)
        return {std::uint32_t(i >> 32), std::uint32_t(i), BlockWord::Y0XorY1};
    const std::uint64_t h = (n + 1) / 2;
    if (i < h) {
        const std::uint64_t partner = i + h;
        return {std::uint32_t(i), partner == n ? 0u : std::uint32_t(partner), BlockWord::Y0};
    }
    return {std::uint32_t(i - h), std::uint32_t(i), BlockWord::Y1};
}

std::uint32_t blockWord(Threefry2x32Block block, BlockWord word) {
    switch (word) {
        case BlockWord::Y0:
            return block.y0;
        case BlockWord::Y1:
            return block.y1;
        default:
            return block.y0 ^ block.y1;
    }
}

std::string bitsOriginText(const BitsOrigin& origin, PrngLayout layout) {
    const char* word = origin.word == BlockWord::Y0   ? "y0"
                       : origin.word == BlockWord::Y1 ? "y1"
                                                      : "y0 ^ y1";
    return "threefry counter (x0, x1) = (" + std::to_string(origin.x0) + ", " +
           std::to_string(origin.x1) + "), bits " + word + " (" + std::string(toString(layout)) +
           ")";
}

float unitFloat(std::uint32_t bits) {
    return std::bit_cast<float>((bits >> 9) | 0x3F800000u) - 1.0f;
}

float log1pXla(float y) {
    if (!(std::fabs(y) < kLog1pThreshold))
        return logCorrectlyRounded(y + 1.0f);
    float num = kLog1pNum[0];
    float den = kLog1pDen[0];
    for (int k = 1; k < 7; ++k) {
        num = std::fma(num, y, kLog1pNum[k]);
        den = std::fma(den, y, kLog1pDen[k]);
    }
    const float y2 = y * y;
    const float cubicTerm = (y * y2) * (num / den);
    return y + std::fma(-0.5f, y2, cubicTerm);
}

float erfInv(float x) {
    const float w = -log1pXla(x * -x);
    const bool central = w < 5.0f;
    const float* c = central ? kErfInvLt5 : kErfInvGe5;
    const float v = central ? w - 2.5f : std::sqrt(w) - 3.0f;
    float p = c[0];
    for (int k = 1; k < 9; ++k)
        p = std::fma(p, v, c[k]);
    if (std::fabs(x) == 1.0f)
        return x * std::numeric_limits<float>::infinity();
    return p * x;
}

namespace simd {

std::uint32_t bitsAt(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t i) {
    const BitsOrigin origin = bitsOrigin(layout, n, i);
    return blockWord(threefry2x32(key, origin.x0, origin.x1), origin.word);
}

float gaussianFromBits(std::uint32_t bits, const GaussianDraw& draw) {
    const float u = std::max(draw.lower, std::fma(unitFloat(bits), draw.span, draw.lower));
    float t = kSqrt2 * erfInv(u);
    if (draw.clamp)
        t = std::min(std::max(t, kTruncClampLo), kTruncClampHi);
    return t * draw.scale;
}

void drawGaussianScalar(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                        std::uint64_t count, float* out, const GaussianDraw& draw) {
    for (std::uint64_t k = 0; k < count; ++k)
        out[k] = gaussianFromBits(bitsAt(key, layout, n, start + k), draw);
}

}  // namespace simd

namespace {

void drawGaussian(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, float* out, const GaussianDraw& draw, SimdPath path) {
    assert(start + count <= n);
    assert(layout == PrngLayout::Partitionable || n < 0xFFFFFFFFull);
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            simd::avx512::drawGaussian(key, layout, n, start, count, out, draw);
            return;
        case SimdPath::Avx2:
            simd::avx2::drawGaussian(key, layout, n, start, count, out, draw);
            return;
        default:
            simd::drawGaussianScalar(key, layout, n, start, count, out, draw);
    }
}

void gaussianOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                    const GaussianDraw& draw, SimdPath path) {
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            simd::avx512::gaussianOfBits(bits, count, out, draw);
            return;
        case SimdPath::Avx2:
            simd::avx2::gaussianOfBits(bits, count, out, draw);
            return;
        default:
            for (std::uint64_t k = 0; k < count; ++k)
                out[k] = simd::gaussianFromBits(bits[k], draw);
    }
}

}  // namespace

void uniform(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
             float minval, float maxval, float* out) {
    const float span = maxval - minval;
    for (std::uint64_t k = 0; k < count; ++k) {
        const float f = unitFloat(simd::bitsAt(key, layout, n, start + k));
        out[k] = std::max(minval, std::fma(f, span, minval));
    }
}

void normal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
            float* out, float scale, SimdPath path) {
    drawGaussian(key, layout, n, start, count, out, normalDraw(scale), path);
}

void truncatedNormal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                     std::uint64_t count, float* out, float scale, SimdPath path) {
    drawGaussian(key, layout, n, start, count, out, truncatedDraw(scale), path);
}

void truncatedNormalOfBits(const std::uint32_t* bits, std::uint64_t count, float* out, float scale,
                           SimdPath path) {
    gaussianOfBits(bits, count, out, truncatedDraw(scale), path);
}

void normalOfBits(const std::uint32_t* bits, std::uint64_t count, float* out, float scale,
                  SimdPath path) {
    gaussianOfBits(bits, count, out, normalDraw(scale), path);
}

}  // namespace tp
