// The AVX2 + FMA path of jax_random.cpp's float pipeline and threefry, eight lanes per vector.
// Compiled with -mavx2 -mfma (core/CMakeLists.txt) and called only on CPUs that have both.

#include "nnx/jax_random_simd.h"

#include <immintrin.h>

namespace tp::simd::avx2 {

// Eight lanes of the same pipeline with AVX2 + FMA. Every step is the IEEE-754 operation of the
// scalar code (add, multiply, fused multiply-add, divide, sqrt, compare, select), rounded the same
// way, so each lane has the scalar bits. The one exception is log: XLA's model of it is a correctly
// rounded float32 log, computed here in double precision (error below 2^-40 relative) and
// rounded to float32; a lane whose double result lies too close to a float32 rounding boundary for
// that error bound to decide is flagged and recomputed by the scalar path.
namespace {

// Two independent vectors of eight lanes go through every step together: one vector alone is
// bound by the latency of its long dependency chain (20 threefry rounds, divisions, Horner
// chains); two let the out-of-order core overlap them (four spill registers and are slower).
constexpr int kVectors = 2;
constexpr int kBlock = 8 * kVectors;

using Floats = __m256[kVectors];
using Ints = __m256i[kVectors];
using Doubles = __m256d[kVectors];

// Everything here is force-inlined: the per-vector arrays must live in registers, which they
// cannot across a call (GCC then keeps them in memory, and each step loads and stores them).
#define TPVIZ_INLINE inline __attribute__((always_inline))
#define TPVIZ_EACH _Pragma("GCC unroll 8") for (int v = 0; v < kVectors; ++v)

struct Schedule {
    // Key words and the per-injection constants ks[(j+1)%3], ks[(j+2)%3] + j + 1.
    __m256i ks[3];
    __m256i inject0[5];
    __m256i inject1[5];

    explicit Schedule(Key key) {
        const std::uint32_t words[3] = {key.k0, key.k1, key.k0 ^ key.k1 ^ 0x1BD11BDAu};
        for (int j = 0; j < 3; ++j)
            ks[j] = _mm256_set1_epi32(int(words[j]));
        for (int j = 0; j < 5; ++j) {
            inject0[j] = _mm256_set1_epi32(int(words[(j + 1) % 3]));
            inject1[j] = _mm256_set1_epi32(int(words[(j + 2) % 3] + std::uint32_t(j + 1)));
        }
    }
};

template <int R>
TPVIZ_INLINE void round(Ints& x0, Ints& x1) {
    TPVIZ_EACH {
        x0[v] = _mm256_add_epi32(x0[v], x1[v]);
        // Rotations by whole bytes are one byte shuffle instead of two shifts and an or.
        if constexpr (R == 16) {
            x1[v] = _mm256_shuffle_epi8(
                x1[v], _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3,
                                        0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
        } else if constexpr (R == 24) {
            x1[v] = _mm256_shuffle_epi8(
                x1[v], _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2,
                                        3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12));
        } else {
            x1[v] = _mm256_or_si256(_mm256_slli_epi32(x1[v], R), _mm256_srli_epi32(x1[v], 32 - R));
        }
        x1[v] = _mm256_xor_si256(x1[v], x0[v]);
    }
}

template <int R0, int R1, int R2, int R3>
TPVIZ_INLINE void fourRounds(const Schedule& s, int j, Ints& x0, Ints& x1) {
    round<R0>(x0, x1);
    round<R1>(x0, x1);
    round<R2>(x0, x1);
    round<R3>(x0, x1);
    TPVIZ_EACH {
        x0[v] = _mm256_add_epi32(x0[v], s.inject0[j]);
        x1[v] = _mm256_add_epi32(x1[v], s.inject1[j]);
    }
}

TPVIZ_INLINE void threefry(const Schedule& s, Ints& x0, Ints& x1) {
    TPVIZ_EACH {
        x0[v] = _mm256_add_epi32(x0[v], s.ks[0]);
        x1[v] = _mm256_add_epi32(x1[v], s.ks[1]);
    }
    fourRounds<13, 15, 26, 6>(s, 0, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 1, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 2, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 3, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 4, x0, x1);
}

// Counters base + 0, 1, ..., kBlock - 1 (u32, wrapping), eight per vector.
TPVIZ_INLINE void iota(std::uint64_t base, Ints& x) {
    TPVIZ_EACH {
        x[v] = _mm256_add_epi32(_mm256_set1_epi32(int(std::uint32_t(base) + 8u * unsigned(v))),
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
}

// The bits of elements i .. i + kBlock - 1 of an n-element array (h = legacy half length).
// Returns false for the rare blocks the lanes cannot express uniformly (a partitionable block
// whose low counter word wraps, a legacy block straddling the halves): the caller uses the scalar
// path for those.
TPVIZ_INLINE bool bitsBlock(const Schedule& s, PrngLayout layout, std::uint64_t n, std::uint64_t h,
                            std::uint64_t i, Ints& bits) {
    Ints x0;
    Ints x1;
    if (layout == PrngLayout::Partitionable) {
        if ((i & 0xFFFFFFFFu) > 0xFFFFFFFFu - (kBlock - 1))
            return false;
        TPVIZ_EACH x0[v] = _mm256_set1_epi32(int(std::uint32_t(i >> 32)));
        iota(i, x1);
        threefry(s, x0, x1);
        TPVIZ_EACH bits[v] = _mm256_xor_si256(x0[v], x1[v]);
        return true;
    }
    if (i + kBlock <= h) {
        iota(i, x0);
        iota(i + h, x1);
        // The padding counter: the partner index n (odd n) is 0.
        const __m256i padded = _mm256_set1_epi32(int(std::uint32_t(n)));
        TPVIZ_EACH x1[v] = _mm256_andnot_si256(_mm256_cmpeq_epi32(x1[v], padded), x1[v]);
        threefry(s, x0, x1);
        TPVIZ_EACH bits[v] = x0[v];
        return true;
    }
    if (i >= h) {
        iota(i - h, x0);
        iota(i, x1);
        threefry(s, x0, x1);
        TPVIZ_EACH bits[v] = x1[v];
        return true;
    }
    return false;
}

TPVIZ_INLINE __m256 splat(float value) {
    return _mm256_set1_ps(value);
}

TPVIZ_INLINE __m256 signMask() {
    return _mm256_castsi256_ps(_mm256_set1_epi32(int(0x80000000u)));
}

// log of positive normal doubles x <= 0.586 (the large branch of log1p): x = 2^e m with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, z = s^2 < 0.0295,
// by its series to s^13. The truncated tail is below z^7 / 15 / (1 - z) < 1.4e-12 of log m, and
// |log m| < 0.35 while |log x| > 0.53, so the result is within 2^-40 relative (2^13 double ulps).
TPVIZ_INLINE void logDouble(Doubles& x) {
    const __m256i mantissaBits = _mm256_set1_epi64x(0x000FFFFFFFFFFFFFll);
    const __m256i oneBits = _mm256_set1_epi64x(0x3FF0000000000000ll);
    const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);
    const __m256d one = _mm256_set1_pd(1.0);
    // ln 2 = ln2Hi + ln2Lo with ln2Hi exact in 32 bits, so e * ln2Hi is exact for |e| < 2^20.
    const __m256d ln2Hi = _mm256_set1_pd(0x1.62e42fefa0000p-1);
    const __m256d ln2Lo = _mm256_set1_pd(0x1.cf79abc9e3b3ap-40);
    Doubles m, e, s, z, p;
    TPVIZ_EACH {
        const __m256i bits = _mm256_castpd_si256(x[v]);
        m[v] = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, mantissaBits), oneBits));
        const __m256d big = _mm256_cmp_pd(m[v], _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
        m[v] = _mm256_blendv_pd(m[v], _mm256_mul_pd(m[v], _mm256_set1_pd(0.5)), big);
        // The biased exponent as a double by the 2^52 trick, unbiased, +1 when m was halved.
        const __m256d biased =
            _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(bits, 52), magic)),
                          _mm256_castsi256_pd(magic));
        e[v] =
            _mm256_add_pd(_mm256_sub_pd(biased, _mm256_set1_pd(1023.0)), _mm256_and_pd(big, one));
        s[v] = _mm256_div_pd(_mm256_sub_pd(m[v], one), _mm256_add_pd(m[v], one));
        z[v] = _mm256_mul_pd(s[v], s[v]);
        p[v] = _mm256_set1_pd(1.0 / 13.0);
    }
    for (int k = 11; k >= 3; k -= 2)
        TPVIZ_EACH p[v] = _mm256_fmadd_pd(p[v], z[v], _mm256_set1_pd(1.0 / k));
    TPVIZ_EACH {
        const __m256d twoS = _mm256_add_pd(s[v], s[v]);
        const __m256d logM = _mm256_fmadd_pd(_mm256_mul_pd(twoS, z[v]), p[v], twoS);
        x[v] = _mm256_add_pd(_mm256_mul_pd(e[v], ln2Hi), _mm256_fmadd_pd(e[v], ln2Lo, logM));
    }
}

// Lanes whose double result is within 2^16 double ulps of a float32 rounding midpoint, where the
// error bound of logDouble (2^13 ulps) cannot decide the rounding: about 1 in 4096 lanes.
TPVIZ_INLINE int nearMidpoint(__m256d r) {
    const __m256i low = _mm256_and_si256(_mm256_castpd_si256(r), _mm256_set1_epi64x(0x1FFFFFFF));
    const __m256i d = _mm256_sub_epi64(low, _mm256_set1_epi64x(0x10000000 - 65536));
    const __m256i inside =
        _mm256_and_si256(_mm256_cmpgt_epi64(d, _mm256_set1_epi64x(-1)),
                         _mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * 65536 + 1), d));
    return _mm256_movemask_pd(_mm256_castsi256_pd(inside));
}

// Correctly rounded float32 log of positive normal floats; `hard` flags lanes left undecided.
TPVIZ_INLINE void logFloat(Floats& x, int (&hard)[kVectors]) {
    Doubles lo, hi;
    TPVIZ_EACH {
        lo[v] = _mm256_cvtps_pd(_mm256_castps256_ps128(x[v]));
        hi[v] = _mm256_cvtps_pd(_mm256_extractf128_ps(x[v], 1));
    }
    logDouble(lo);
    logDouble(hi);
    TPVIZ_EACH {
        hard[v] = nearMidpoint(lo[v]) | (nearMidpoint(hi[v]) << 4);
        x[v] = _mm256_set_m128(_mm256_cvtpd_ps(hi[v]), _mm256_cvtpd_ps(lo[v]));
    }
}

// w = -log1p(y) with XLA:CPU's log1p.
TPVIZ_INLINE void minusLog1p(const Floats& y, Floats& w, int (&hard)[kVectors]) {
    Floats num, den, small;
    int anyLarge = 0;
    TPVIZ_EACH {
        num[v] = splat(kLog1pNum[0]);
        den[v] = splat(kLog1pDen[0]);
    }
    for (int k = 1; k < 7; ++k) {
        TPVIZ_EACH {
            num[v] = _mm256_fmadd_ps(num[v], y[v], splat(kLog1pNum[k]));
            den[v] = _mm256_fmadd_ps(den[v], y[v], splat(kLog1pDen[k]));
        }
    }
    TPVIZ_EACH {
        const __m256 y2 = _mm256_mul_ps(y[v], y[v]);
        const __m256 cubicTerm =
            _mm256_mul_ps(_mm256_mul_ps(y[v], y2), _mm256_div_ps(num[v], den[v]));
        w[v] = _mm256_add_ps(y[v], _mm256_fmadd_ps(splat(-0.5f), y2, cubicTerm));
        small[v] =
            _mm256_cmp_ps(_mm256_andnot_ps(signMask(), y[v]), splat(kLog1pThreshold), _CMP_LT_OQ);
        anyLarge |= _mm256_movemask_ps(small[v]) ^ 0xFF;
    }
    if (anyLarge) {
        Floats large;
        int undecided[kVectors];
        TPVIZ_EACH large[v] = _mm256_add_ps(y[v], splat(1.0f));
        logFloat(large, undecided);
        TPVIZ_EACH {
            hard[v] |= undecided[v] & ~_mm256_movemask_ps(small[v]);
            w[v] = _mm256_blendv_ps(large[v], w[v], small[v]);
        }
    }
    TPVIZ_EACH w[v] = _mm256_xor_ps(w[v], signMask());
}

TPVIZ_INLINE void erfInv(Floats& x, int (&hard)[kVectors]) {
    Floats y, w, central, vCentral, p;
    TPVIZ_EACH y[v] = _mm256_mul_ps(x[v], _mm256_xor_ps(x[v], signMask()));
    minusLog1p(y, w, hard);
    int allCentral = 0xFF;
    TPVIZ_EACH {
        central[v] = _mm256_cmp_ps(w[v], splat(5.0f), _CMP_LT_OQ);
        vCentral[v] = _mm256_sub_ps(w[v], splat(2.5f));
        allCentral &= _mm256_movemask_ps(central[v]);
    }
    if (allCentral == 0xFF) {
        TPVIZ_EACH p[v] = splat(kErfInvLt5[0]);
        for (int k = 1; k < 9; ++k)
            TPVIZ_EACH p[v] = _mm256_fmadd_ps(p[v], vCentral[v], splat(kErfInvLt5[k]));
    } else {
        Floats t;
        TPVIZ_EACH {
            t[v] = _mm256_blendv_ps(_mm256_sub_ps(_mm256_sqrt_ps(w[v]), splat(3.0f)), vCentral[v],
                                    central[v]);
            p[v] = _mm256_blendv_ps(splat(kErfInvGe5[0]), splat(kErfInvLt5[0]), central[v]);
        }
        for (int k = 1; k < 9; ++k) {
            TPVIZ_EACH {
                const __m256 c =
                    _mm256_blendv_ps(splat(kErfInvGe5[k]), splat(kErfInvLt5[k]), central[v]);
                p[v] = _mm256_fmadd_ps(p[v], t[v], c);
            }
        }
    }
    TPVIZ_EACH {
        const __m256 result = _mm256_mul_ps(p[v], x[v]);
        const __m256 unit =
            _mm256_cmp_ps(_mm256_andnot_ps(signMask(), x[v]), splat(1.0f), _CMP_EQ_OQ);
        const __m256 infinite = _mm256_mul_ps(x[v], splat(__builtin_inff()));
        x[v] = _mm256_blendv_ps(result, infinite, unit);
    }
}

// The float pipeline of gaussianFromBits on kBlock lanes; `hard` flags lanes to redo in scalar.
TPVIZ_INLINE void gaussian(const Ints& bits, const GaussianDraw& draw, Floats& out,
                           int (&hard)[kVectors]) {
    const __m256 lower = splat(draw.lower);
    TPVIZ_EACH {
        const __m256i floatBits =
            _mm256_or_si256(_mm256_srli_epi32(bits[v], 9), _mm256_set1_epi32(0x3F800000));
        const __m256 f = _mm256_sub_ps(_mm256_castsi256_ps(floatBits), splat(1.0f));
        out[v] = _mm256_max_ps(lower, _mm256_fmadd_ps(f, splat(draw.span), lower));
        hard[v] = 0;
    }
    erfInv(out, hard);
    TPVIZ_EACH {
        __m256 t = _mm256_mul_ps(splat(kSqrt2), out[v]);
        if (draw.clamp)
            t = _mm256_min_ps(_mm256_max_ps(t, splat(kTruncClampLo)), splat(kTruncClampHi));
        out[v] = _mm256_mul_ps(t, splat(draw.scale));
    }
}

template <typename BitsAt>
TPVIZ_INLINE void storeBlock(const Ints& bits, const GaussianDraw& draw, float* out,
                             BitsAt bitsAt) {
    Floats values;
    int hard[kVectors];
    gaussian(bits, draw, values, hard);
    TPVIZ_EACH {
        _mm256_storeu_ps(out + 8 * v, values[v]);
        for (int lanes = hard[v]; lanes != 0; lanes &= lanes - 1) {
            const int k = 8 * v + __builtin_ctz(unsigned(lanes));
            out[k] = gaussianFromBits(bitsAt(k), draw);
        }
    }
}

}  // namespace

void drawGaussian(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, float* out, const GaussianDraw& draw) {
    const Schedule schedule(key);
    const std::uint64_t h = (n + 1) / 2;
    std::uint64_t k = 0;
    for (; k + kBlock <= count; k += kBlock) {
        const std::uint64_t i = start + k;
        Ints bits;
        if (!bitsBlock(schedule, layout, n, h, i, bits)) {
            drawGaussianScalar(key, layout, n, i, kBlock, out + k, draw);
            continue;
        }
        storeBlock(bits, draw, out + k, [&](int lane) { return bitsAt(key, layout, n, i + lane); });
    }
    drawGaussianScalar(key, layout, n, start + k, count - k, out + k, draw);
}

void gaussianOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                    const GaussianDraw& draw) {
    std::uint64_t k = 0;
    for (; k + kBlock <= count; k += kBlock) {
        Ints block;
        TPVIZ_EACH block[v] =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + k + 8 * v));
        storeBlock(block, draw, out + k, [&](int lane) { return bits[k + lane]; });
    }
    for (; k < count; ++k)
        out[k] = gaussianFromBits(bits[k], draw);
}

#undef TPVIZ_EACH
#undef TPVIZ_INLINE

}  // namespace tp::simd::avx2
