// The AVX-512 path of jax_random.cpp's float pipeline and threefry, sixteen lanes per vector.
// Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl (core/CMakeLists.txt) and called only
// on CPUs that have all four.

#include "nnx/jax_random_simd.h"

// GCC 12's AVX-512 intrinsics pass an intentionally undefined operand (_mm512_undefined_*) that
// its own -Wmaybe-uninitialized then reports at every use (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace tp::simd::avx512 {

// The steps of the AVX2 path (jax_random_avx2.cpp) on sixteen lanes, each the IEEE-754 operation
// of the scalar code, so each lane has the scalar bits. What AVX-512 changes:
// - threefry's rotations are one instruction (vprold);
// - lane selections are mask registers;
// - log's large branch (about a third of the lanes) runs only on those lanes: they are packed
//   together (vcompressps), their log is computed on as few vectors as they fill, and the results
//   are unpacked (vexpandps) into their lanes;
// - the double-precision log splits its argument with vgetmantpd / vgetexppd and divides by a
//   reciprocal refined with two Newton steps (relative error below 2^-50, far inside the 2^-40
//   that decides the float32 rounding; undecided lanes are still handed to the scalar log).
namespace {

constexpr int kLanes = 16;
// Eight independent vectors go through every step together: fewer leave the core waiting on
// the latency of the dependency chains (20 threefry rounds, divisions, Horner chains), and the
// packed log fills its vectors better with more lanes to draw from; sixteen spill and are slower
// (measured with bench_nnx_init: 2 vectors ~1.2x the AVX2 path's values/s, 4 ~2.7x, 8 ~4x).
constexpr int kVectors = 8;
constexpr int kBlock = kLanes * kVectors;

using Floats = __m512[kVectors];
using Ints = __m512i[kVectors];
using Masks = __mmask16[kVectors];

// Everything here is force-inlined so the per-vector arrays live in registers.
#define TPVIZ_INLINE inline __attribute__((always_inline))
#define TPVIZ_EACH _Pragma("GCC unroll 8") for (int v = 0; v < kVectors; ++v)

struct Schedule {
    // Key words and the per-injection constants ks[(j+1)%3], ks[(j+2)%3] + j + 1.
    __m512i ks[3];
    __m512i inject0[5];
    __m512i inject1[5];

    explicit Schedule(Key key) {
        const std::uint32_t words[3] = {key.k0, key.k1, key.k0 ^ key.k1 ^ 0x1BD11BDAu};
        for (int j = 0; j < 3; ++j)
            ks[j] = _mm512_set1_epi32(int(words[j]));
        for (int j = 0; j < 5; ++j) {
            inject0[j] = _mm512_set1_epi32(int(words[(j + 1) % 3]));
            inject1[j] = _mm512_set1_epi32(int(words[(j + 2) % 3] + std::uint32_t(j + 1)));
        }
    }
};

template <int R>
TPVIZ_INLINE void round(Ints& x0, Ints& x1) {
    TPVIZ_EACH {
        x0[v] = _mm512_add_epi32(x0[v], x1[v]);
        x1[v] = _mm512_xor_si512(_mm512_rol_epi32(x1[v], R), x0[v]);
    }
}

template <int R0, int R1, int R2, int R3>
TPVIZ_INLINE void fourRounds(const Schedule& s, int j, Ints& x0, Ints& x1) {
    round<R0>(x0, x1);
    round<R1>(x0, x1);
    round<R2>(x0, x1);
    round<R3>(x0, x1);
    TPVIZ_EACH {
        x0[v] = _mm512_add_epi32(x0[v], s.inject0[j]);
        x1[v] = _mm512_add_epi32(x1[v], s.inject1[j]);
    }
}

TPVIZ_INLINE void threefry(const Schedule& s, Ints& x0, Ints& x1) {
    TPVIZ_EACH {
        x0[v] = _mm512_add_epi32(x0[v], s.ks[0]);
        x1[v] = _mm512_add_epi32(x1[v], s.ks[1]);
    }
    fourRounds<13, 15, 26, 6>(s, 0, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 1, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 2, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 3, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 4, x0, x1);
}

// Counters base + 0, 1, ..., kBlock - 1 (u32, wrapping), sixteen per vector.
TPVIZ_INLINE void iota(std::uint64_t base, Ints& x) {
    TPVIZ_EACH {
        x[v] = _mm512_add_epi32(
            _mm512_set1_epi32(int(std::uint32_t(base) + std::uint32_t(kLanes * v))),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
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
        TPVIZ_EACH x0[v] = _mm512_set1_epi32(int(std::uint32_t(i >> 32)));
        iota(i, x1);
        threefry(s, x0, x1);
        TPVIZ_EACH bits[v] = _mm512_xor_si512(x0[v], x1[v]);
        return true;
    }
    if (i + kBlock <= h) {
        iota(i, x0);
        iota(i + h, x1);
        // The padding counter: the partner index n (odd n) is 0.
        const __m512i padded = _mm512_set1_epi32(int(std::uint32_t(n)));
        TPVIZ_EACH x1[v] = _mm512_maskz_mov_epi32(_mm512_cmpneq_epi32_mask(x1[v], padded), x1[v]);
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

TPVIZ_INLINE __m512 splat(float value) {
    return _mm512_set1_ps(value);
}

TPVIZ_INLINE __m512d splat(double value) {
    return _mm512_set1_pd(value);
}

// log of positive normal doubles x <= 0.586 (the large branch of log1p): x = 2^e m with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, z = s^2 < 0.0295,
// by its series to s^13. The truncated tail is below z^7 / 15 / (1 - z) < 1.4e-12 of log m,
// the reciprocal's error below 2^-50, and |log m| < 0.35 while |log x| > 0.53, so the result is
// within 2^-40 relative (2^13 double ulps).
TPVIZ_INLINE __m512d logDouble(__m512d x) {
    const __m512d one = splat(1.0);
    // ln 2 = ln2Hi + ln2Lo with ln2Hi exact in 32 bits, so e * ln2Hi is exact for |e| < 2^20.
    const __m512d ln2Hi = splat(0x1.62e42fefa0000p-1);
    const __m512d ln2Lo = splat(0x1.cf79abc9e3b3ap-40);
    __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    __m512d e = _mm512_getexp_pd(x);
    const __mmask8 big = _mm512_cmp_pd_mask(m, splat(1.4142135623730951), _CMP_GT_OQ);
    m = _mm512_mask_mul_pd(m, big, m, splat(0.5));
    e = _mm512_mask_add_pd(e, big, e, one);
    const __m512d den = _mm512_add_pd(m, one);
    __m512d r = _mm512_rcp14_pd(den);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(den, r, one), r);
    const __m512d s = _mm512_mul_pd(_mm512_sub_pd(m, one), r);
    const __m512d z = _mm512_mul_pd(s, s);
    __m512d p = splat(1.0 / 13.0);
    for (int k = 11; k >= 3; k -= 2)
        p = _mm512_fmadd_pd(p, z, splat(1.0 / k));
    const __m512d twoS = _mm512_add_pd(s, s);
    const __m512d logM = _mm512_fmadd_pd(_mm512_mul_pd(twoS, z), p, twoS);
    return _mm512_add_pd(_mm512_mul_pd(e, ln2Hi), _mm512_fmadd_pd(e, ln2Lo, logM));
}

// Lanes whose double result is within 2^16 double ulps of a float32 rounding midpoint, where the
// error bound of logDouble (2^13 ulps) cannot decide the rounding: about 1 in 4096 lanes.
TPVIZ_INLINE __mmask8 nearMidpoint(__m512d r) {
    const __m512i low = _mm512_and_si512(_mm512_castpd_si512(r), _mm512_set1_epi64(0x1FFFFFFF));
    const __m512i d = _mm512_sub_epi64(low, _mm512_set1_epi64(0x10000000 - 65536));
    return _mm512_cmplt_epu64_mask(d, _mm512_set1_epi64(2 * 65536 + 1));
}

// Correctly rounded float32 log of positive normal floats; a lane left undecided is NaN.
TPVIZ_INLINE __m512 logFloat(__m512 x) {
    const __m512d lo = logDouble(_mm512_cvtps_pd(_mm512_castps512_ps256(x)));
    const __m512d hi = logDouble(_mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1)));
    const __mmask16 hard = __mmask16(nearMidpoint(lo) | (unsigned(nearMidpoint(hi)) << 8));
    const __m512 rounded =
        _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
    return _mm512_mask_mov_ps(rounded, hard, splat(__builtin_nanf("")));
}

// w = -log1p(y) with XLA:CPU's log1p; `hard` flags the lanes to redo in scalar.
TPVIZ_INLINE void minusLog1p(const Floats& y, Floats& w, Masks& hard) {
    Floats num, den;
    Masks large;
    TPVIZ_EACH {
        num[v] = splat(kLog1pNum[0]);
        den[v] = splat(kLog1pDen[0]);
    }
    for (int k = 1; k < 7; ++k) {
        TPVIZ_EACH {
            num[v] = _mm512_fmadd_ps(num[v], y[v], splat(kLog1pNum[k]));
            den[v] = _mm512_fmadd_ps(den[v], y[v], splat(kLog1pDen[k]));
        }
    }
    // The large lanes' 1 + y, packed one after another; each store writes a whole vector, so
    // the kLanes entries after the last packed one are defined (zeros) too.
    float packed[kBlock + kLanes];
    int count = 0;
    TPVIZ_EACH {
        const __m512 y2 = _mm512_mul_ps(y[v], y[v]);
        const __m512 cubicTerm =
            _mm512_mul_ps(_mm512_mul_ps(y[v], y2), _mm512_div_ps(num[v], den[v]));
        w[v] = _mm512_add_ps(y[v], _mm512_fmadd_ps(splat(-0.5f), y2, cubicTerm));
        large[v] = _mm512_cmp_ps_mask(_mm512_abs_ps(y[v]), splat(kLog1pThreshold), _CMP_NLT_UQ);
        _mm512_storeu_ps(packed + count,
                         _mm512_maskz_compress_ps(large[v], _mm512_add_ps(y[v], splat(1.0f))));
        count += __builtin_popcount(large[v]);
    }
    for (int c = 0; c < count; c += kLanes)
        _mm512_storeu_ps(packed + c, logFloat(_mm512_loadu_ps(packed + c)));
    count = 0;
    TPVIZ_EACH {
        w[v] = _mm512_mask_expand_ps(w[v], large[v], _mm512_loadu_ps(packed + count));
        count += __builtin_popcount(large[v]);
        hard[v] = _mm512_mask_cmp_ps_mask(large[v], w[v], w[v], _CMP_UNORD_Q);
        w[v] = _mm512_castsi512_ps(
            _mm512_xor_si512(_mm512_castps_si512(w[v]), _mm512_set1_epi32(int(0x80000000u))));
    }
}

TPVIZ_INLINE void erfInv(Floats& x, Masks& hard) {
    Floats y, w, vCentral, p;
    Masks central;
    TPVIZ_EACH y[v] =
        _mm512_mul_ps(x[v], _mm512_castsi512_ps(_mm512_xor_si512(
                                _mm512_castps_si512(x[v]), _mm512_set1_epi32(int(0x80000000u)))));
    minusLog1p(y, w, hard);
    unsigned allCentral = 0xFFFF;
    TPVIZ_EACH {
        central[v] = _mm512_cmp_ps_mask(w[v], splat(5.0f), _CMP_LT_OQ);
        vCentral[v] = _mm512_sub_ps(w[v], splat(2.5f));
        allCentral &= central[v];
    }
    if (allCentral == 0xFFFF) {
        TPVIZ_EACH p[v] = splat(kErfInvLt5[0]);
        for (int k = 1; k < 9; ++k)
            TPVIZ_EACH p[v] = _mm512_fmadd_ps(p[v], vCentral[v], splat(kErfInvLt5[k]));
    } else {
        Floats t;
        TPVIZ_EACH {
            t[v] = _mm512_mask_blend_ps(
                central[v], _mm512_sub_ps(_mm512_sqrt_ps(w[v]), splat(3.0f)), vCentral[v]);
            p[v] = _mm512_mask_blend_ps(central[v], splat(kErfInvGe5[0]), splat(kErfInvLt5[0]));
        }
        for (int k = 1; k < 9; ++k) {
            TPVIZ_EACH {
                const __m512 c =
                    _mm512_mask_blend_ps(central[v], splat(kErfInvGe5[k]), splat(kErfInvLt5[k]));
                p[v] = _mm512_fmadd_ps(p[v], t[v], c);
            }
        }
    }
    TPVIZ_EACH {
        const __m512 result = _mm512_mul_ps(p[v], x[v]);
        const __mmask16 unit = _mm512_cmp_ps_mask(_mm512_abs_ps(x[v]), splat(1.0f), _CMP_EQ_OQ);
        const __m512 infinite = _mm512_mul_ps(x[v], splat(__builtin_inff()));
        x[v] = _mm512_mask_blend_ps(unit, result, infinite);
    }
}

// The float pipeline of gaussianFromBits on kBlock lanes; `hard` flags lanes to redo in scalar.
TPVIZ_INLINE void gaussian(const Ints& bits, const GaussianDraw& draw, Floats& out, Masks& hard) {
    const __m512 lower = splat(draw.lower);
    TPVIZ_EACH {
        const __m512i floatBits =
            _mm512_or_si512(_mm512_srli_epi32(bits[v], 9), _mm512_set1_epi32(0x3F800000));
        const __m512 f = _mm512_sub_ps(_mm512_castsi512_ps(floatBits), splat(1.0f));
        out[v] = _mm512_max_ps(lower, _mm512_fmadd_ps(f, splat(draw.span), lower));
    }
    erfInv(out, hard);
    TPVIZ_EACH {
        __m512 t = _mm512_mul_ps(splat(kSqrt2), out[v]);
        if (draw.clamp)
            t = _mm512_min_ps(_mm512_max_ps(t, splat(kTruncClampLo)), splat(kTruncClampHi));
        out[v] = _mm512_mul_ps(t, splat(draw.scale));
    }
}

template <typename BitsAt>
TPVIZ_INLINE void storeBlock(const Ints& bits, const GaussianDraw& draw, float* out,
                             BitsAt bitsAt) {
    Floats values;
    Masks hard;
    gaussian(bits, draw, values, hard);
    TPVIZ_EACH {
        _mm512_storeu_ps(out + kLanes * v, values[v]);
        for (unsigned lanes = hard[v]; lanes != 0; lanes &= lanes - 1) {
            const int k = kLanes * v + __builtin_ctz(lanes);
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
        TPVIZ_EACH block[v] = _mm512_loadu_si512(bits + k + kLanes * v);
        storeBlock(block, draw, out + k, [&](int lane) { return bits[k + lane]; });
    }
    for (; k < count; ++k)
        out[k] = gaussianFromBits(bits[k], draw);
}

#undef TPVIZ_EACH
#undef TPVIZ_INLINE

}  // namespace tp::simd::avx512
