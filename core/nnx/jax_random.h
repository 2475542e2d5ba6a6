#pragma once

// JAX's random functions for the default threefry2x32 PRNG, float32, bit for bit as XLA:CPU
// computes them (spec: shared/spec/nnx-init.md §2-§8, §14).
//
// Arrays are addressed by their row-major flat index i in [0, n), n the array's element count.
// Every "range" function writes elements [start, start + count) of the array that the JAX call
// would return for shape (n,) (or any shape with n elements: JAX's bits depend only on n). An
// element is a pure function of (key, layout, n, i), so ranges can be drawn in any order and on
// any number of threads with identical bits.

#include "layer/layer_config.h"
#include "layer/simd_path.h"
#include "nnx/threefry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tp {

/// jax.random.key(seed) (also nnx.Rngs(seed)) for threefry2x32. Without x64 the int64 seed wraps
/// to int32 first: key = (0, seed mod 2^32). With jax_enable_x64: key = (high word, low word) of
/// seed mod 2^64. Mirrors jax/_src/random/prng.py random_seed and threefry_seed.
Key seedToKey(std::int64_t seed, bool x64 = false);

/// jax.random.fold_in(key, data) = threefry2x32(key, (0, data)), the same in both layouts.
/// nnx.Rngs(seed).params() returns foldIn(seedToKey(seed), count) for count = 0, 1, 2, ...
Key foldIn(Key key, std::uint32_t data);

/// jax.random.split(key, num). Partitionable: key j = threefry2x32(key, (0, j)). Legacy: the
/// 2*num-word legacy bit stream of key, read as num (k0, k1) pairs.
std::vector<Key> split(Key key, std::uint32_t num, PrngLayout layout);

/// jax.random.bits(key, (n,), uint32)[start:start+count] into out.
/// Partitionable: bits[i] = y0 ^ y1 of threefry2x32(key, (i >> 32, i & 0xffffffff)).
/// Legacy: counters 0..n-1 (padded with one 0 when n is odd), h = padded/2, pair (j, j+h);
/// bits[i] = y0 of pair i for i < h, y1 of pair i-h otherwise. Legacy needs n < 2^32 - 1.
void randomBits32(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, std::uint32_t* out);

/// Which output of a threefry2x32 block a 32-bit random word is: y0 ^ y1 (partitionable), or y0
/// or y1 alone (legacy: the first half of the stream is the blocks' y0, the second half their y1).
enum class BlockWord { Y0XorY1, Y0, Y1 };

/// The threefry2x32 block that element i of jax.random.bits(key, (n,), uint32) comes from: its
/// counter words (x0, x1) and the output word it is. The same for every key, so x64 (which
/// changes only the key, spec §2) does not change it.
struct BitsOrigin {
    std::uint32_t x0 = 0;
    std::uint32_t x1 = 0;
    BlockWord word = BlockWord::Y0XorY1;

    bool operator==(const BitsOrigin&) const = default;
};

/// Where bits[i] of an n-element draw comes from (spec §4).
/// Partitionable: counter (i >> 32, i & 0xffffffff), word y0 ^ y1.
/// Legacy: h = ceil(n / 2); for i < h counter (i, i + h) (the padding counter 0 when i + h == n),
/// word y0; for i >= h counter (i - h, i), word y1. Legacy needs n < 2^32 - 1; i < n.
BitsOrigin bitsOrigin(PrngLayout layout, std::uint64_t n, std::uint64_t i);

/// The word `word` of a block: y0 ^ y1, y0 or y1.
std::uint32_t blockWord(Threefry2x32Block block, BlockWord word);

/// "threefry counter (x0, x1) = (0, 11), bits y0 ^ y1 (partitionable)" or, legacy,
/// "threefry counter (x0, x1) = (5, 11), bits y1 (legacy)": the origin in words.
std::string bitsOriginText(const BitsOrigin& origin, PrngLayout layout);

/// The float32 in [0, 1) made from the top 23 bits: bitcast((bits >> 9) | 0x3F800000) - 1.
float unitFloat(std::uint32_t bits);

/// XLA:CPU's float32 log1p (xla/codegen/intrinsic/log1p.cc): for |y| < f32(sqrt(2) - 1) the
/// Cephes rational y + fma(-0.5, y*y, (y*(y*y)) * N(y)/D(y)) with FMA Horner steps, otherwise
/// log(1 + y) with a correctly rounded float32 log.
float log1pXla(float y);

/// XLA's float32 erf_inv (StableHLO erfInv32, Giles' approximation): w = -log1p(x * -x),
/// a degree-8 polynomial in w - 2.5 (w < 5) or sqrt(w) - 3 with FMA Horner steps, times x;
/// x * inf when |x| == 1.
float erfInv(float x);

/// The uniform bounds of truncated_normal(key, -2, 2) in float32: A = erf(-2 / sqrt2)
/// (0xBF745A18), B = -A, and their difference S = B - A (0x3FF45A18). Spec §6.
inline constexpr float kTruncatedLower = -0.954499721527099609375f;
inline constexpr float kTruncatedUpper = 0.954499721527099609375f;
inline constexpr float kTruncatedSpan = 1.90899944305419921875f;

/// jax.random.uniform(key, (n,), float32, minval, maxval)[start:start+count]:
/// max(minval, fma(unitFloat(bits), maxval - minval, minval)).
void uniform(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
             float minval, float maxval, float* out);

/// jax.random.normal(key, (n,), float32)[start:start+count] * scale:
/// u = uniform(minval = nextafter(-1, 0), maxval = 1), value = f32(f32(sqrt2 * erfInv(u)) * scale).
/// scale = 1 is exact (plain jax.random.normal); nnx.initializers.normal(stddev) is scale = stddev.
void normal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
            float* out, float scale = 1.0f, SimdPath path = SimdPath::Best);

/// jax.random.truncated_normal(key, -2, 2, (n,), float32)[start:start+count] * scale:
/// u = max(A, fma(f, S, A)), t = min(max(f32(sqrt2 * erfInv(u)), -L), L) with
/// L = nextafter(2, 0), value = f32(t * scale). With scale = lecunNormalStddev(inDim) this is
/// jax.nn.initializers.lecun_normal().
void truncatedNormal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                     std::uint64_t count, float* out, float scale = 1.0f,
                     SimdPath path = SimdPath::Best);

/// The float pipelines of truncatedNormal and normal applied to given 32-bit random words:
/// out[k] is the value those functions make from bits[k]. The value depends only on bits[k] >> 9,
/// so 2^23 words cover every value either function can produce.
void truncatedNormalOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                           float scale = 1.0f, SimdPath path = SimdPath::Best);
void normalOfBits(const std::uint32_t* bits, std::uint64_t count, float* out, float scale = 1.0f,
                  SimdPath path = SimdPath::Best);

}  // namespace tp
