// The AVX2 + FMA path of jax_random.cpp's float pipeline and threefry, eight lanes per vector.
// Compiled with -mavx2 -mfma (core/CMakeLists.txt) and called only on CPUs that have both.

#include "nnx/jax_random_simd.h"

#include <immintrin.h>

#include <algorithm>

namespace tp::simd::avx2 {

// Eight lanes of the same pipeline with AVX2 + FMA. Every step is the IEEE-754 operation of the
// scalar code (add, multiply, fused multiply-add, divide, sqrt, compare, select), rounded the same
// way, so each lane has the scalar bits. The one exception is log: XLA's model of it is a correctly
// rounded float32 log, computed here in double precision (error below 2^-40 relative) and
// rounded to float32; a lane whose double result lies too close to a float32 rounding boundary for
// that error bound to decide is flagged and recomputed by the scalar path.
//
// Values go through in blocks of kBlock, one stage at a time over the whole block, the block's
// intermediate arrays staying in L1:
// 1. threefry's bits, several vectors side by side;
// 2. the uniform, y = -u^2 and the small branch of log1p on every lane; the large branch's 1 + y
//    (about a third of the lanes) packed one after another;
// 3. the double-precision log on the packed lanes only, so on a third of the vectors;
// 4. the log's results unpacked into their lanes, erfInv's polynomial, the scale.
// Each stage's loop body is short and its iterations independent, so the out-of-order core
// overlaps the long latency chains (threefry's 20 rounds, Horner steps, divisions) of successive
// vectors; one pass of the whole pipeline per vector kept it waiting on them.
namespace {

constexpr int kLanes = 8;
// Values per block: with 1024 the block's arrays (about 24 KB) stay in L1, and the packed log's
// last, partly filled step costs little per value (512 measured 4% slower, 2048 no faster).
constexpr int kBlock = 1024;
constexpr int kBlockVectors = kBlock / kLanes;
// Threefry's independent vectors per step: enough rounds in flight to fill the integer pipes
// (eight measured 5% faster than four, though they spill a few registers).
constexpr int kThreefryVectors = 8;
constexpr int kThreefryValues = kLanes * kThreefryVectors;

// Independent vectors side by side in stages 2, 3 and 4: four keep the pipes busier than two
// while the Horner chains and divisions wait.
constexpr int kStage2 = 4;
constexpr int kStage3 = 4;
constexpr int kStage4 = 4;
// Blocks are drawn in whole groups of vectors that every stage's step divides.
constexpr int kGroupVectors = 8;
constexpr int kGroupValues = kLanes * kGroupVectors;
static_assert(kGroupVectors % kThreefryVectors == 0 && kGroupVectors % kStage2 == 0 &&
              kGroupVectors % kStage3 == 0 && kGroupVectors % kStage4 == 0);

using Ints = __m256i[kThreefryVectors];

// Everything here is force-inlined: the per-vector arrays must live in registers, which they
// cannot across a call (GCC then keeps them in memory, and each step loads and stores them).
#define TPVIZ_INLINE inline __attribute__((always_inline))
#define TPVIZ_EACH _Pragma("GCC unroll 8") for (int v = 0; v < kThreefryVectors; ++v)
#define TPVIZ_EACH_OF(count) _Pragma("GCC unroll 8") for (int v = 0; v < (count); ++v)

struct Schedule {
    // Key words and the per-injection constants ks[(j+1)%3], ks[(j+2)%3] + j + 1.
    Key key;
    __m256i ks[3];
    __m256i inject0[5];
    __m256i inject1[5];

    explicit Schedule(Key k) : key(k) {
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

// Threefry's 20 rounds and key injections after the first injection (x0 += ks[0], x1 += ks[1]),
// which the callers fold into their counters.
TPVIZ_INLINE void threefryRounds(const Schedule& s, Ints& x0, Ints& x1) {
    fourRounds<13, 15, 26, 6>(s, 0, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 1, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 2, x0, x1);
    fourRounds<17, 29, 16, 24>(s, 3, x0, x1);
    fourRounds<13, 15, 26, 6>(s, 4, x0, x1);
}

// Counters base + 0, 1, ..., kThreefryValues - 1 (u32, wrapping), eight per vector.
TPVIZ_INLINE void iota(std::uint64_t base, Ints& x) {
    TPVIZ_EACH {
        x[v] = _mm256_add_epi32(_mm256_set1_epi32(int(std::uint32_t(base) + 8u * unsigned(v))),
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
}

TPVIZ_INLINE void store(std::uint32_t* bits, const Ints& x) {
    TPVIZ_EACH _mm256_storeu_si256(reinterpret_cast<__m256i*>(bits + kLanes * v), x[v]);
}

// Whether the lanes can draw elements i .. i + len - 1 of an n-element array (h = legacy half
// length) uniformly: not a partitionable range whose low counter word wraps, nor a legacy range
// straddling the halves. The rare others are drawn by the scalar path.
TPVIZ_INLINE bool lanesExpress(PrngLayout layout, std::uint64_t h, std::uint64_t i, int len) {
    if (layout == PrngLayout::Partitionable)
        return (i & 0xFFFFFFFFu) <= 0xFFFFFFFFu - std::uint64_t(len - 1);
    return i + std::uint64_t(len) <= h || i >= h;
}

// The bits of elements i .. i + kThreefryValues - 1, which lanesExpress.
TPVIZ_INLINE void bitsOfGroup(const Schedule& s, PrngLayout layout, std::uint64_t n,
                              std::uint64_t h, std::uint64_t i, std::uint32_t* bits) {
    Ints x0;
    Ints x1;
    if (layout == PrngLayout::Partitionable) {
        TPVIZ_EACH x0[v] = _mm256_set1_epi32(int(std::uint32_t(i >> 32) + s.key.k0));
        iota(i + s.key.k1, x1);
        threefryRounds(s, x0, x1);
        TPVIZ_EACH x0[v] = _mm256_xor_si256(x0[v], x1[v]);
        store(bits, x0);
    } else if (i < h) {
        iota(i, x0);
        iota(i + h, x1);
        // The padding counter: the partner index n (odd n) is 0.
        const __m256i padded = _mm256_set1_epi32(int(std::uint32_t(n)));
        TPVIZ_EACH {
            x0[v] = _mm256_add_epi32(x0[v], s.ks[0]);
            x1[v] = _mm256_add_epi32(_mm256_andnot_si256(_mm256_cmpeq_epi32(x1[v], padded), x1[v]),
                                     s.ks[1]);
        }
        threefryRounds(s, x0, x1);
        store(bits, x0);
    } else {
        iota(i - h + s.key.k0, x0);
        iota(i + s.key.k1, x1);
        threefryRounds(s, x0, x1);
        store(bits, x1);
    }
}

TPVIZ_INLINE __m256 splat(float value) {
    return _mm256_set1_ps(value);
}

TPVIZ_INLINE __m256 signMask() {
    return _mm256_castsi256_ps(_mm256_set1_epi32(int(0x80000000u)));
}

// Lane permutations of packing, for each 8-bit mask of selected lanes, as eight 3-bit lane
// numbers in one word (field j at bit 3 j): `compress` lists the selected lanes in order (lane j of
// the packed vector comes from lane field j); `expand` gives each selected lane its place among
// them (lane l takes packed lane field l). One word is a broadcast load and a shift, cheaper than
// widening eight bytes (vpmovzxbd).
struct PackTables {
    std::uint32_t compress[256] = {};
    std::uint32_t expand[256] = {};

    constexpr PackTables() {
        for (int mask = 0; mask < 256; ++mask) {
            int packed = 0;
            for (int lane = 0; lane < kLanes; ++lane) {
                if (mask & (1 << lane)) {
                    compress[mask] |= std::uint32_t(lane) << (3 * packed);
                    expand[mask] |= std::uint32_t(packed) << (3 * lane);
                    ++packed;
                }
            }
        }
    }
};

alignas(64) constexpr PackTables kPack{};

// The lane numbers of a PackTables word, for vpermps (which reads the low 3 bits of each lane).
TPVIZ_INLINE __m256i permutation(std::uint32_t fields) {
    return _mm256_srlv_epi32(_mm256_set1_epi32(int(fields)),
                             _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21));
}

// log of positive normal doubles 2^e m with m in [sqrt(1/2), sqrt(2)) (the large branch of log1p,
// x = 2^e m <= 0.586), on `count` vectors side by side, the result in m: log m = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| < 0.172, z = s^2 < 0.0295, by its series to s^13. The truncated tail
// is below z^7 / 15 / (1 - z) < 1.4e-12 of log m, and |log m| < 0.35 while |log x| > 0.53, so the
// result is within 2^-40 relative (2^13 double ulps).
template <int count>
TPVIZ_INLINE void logDouble(__m256d (&m)[count], const __m256d (&e)[count]) {
    const __m256d one = _mm256_set1_pd(1.0);
    // ln 2 = ln2Hi + ln2Lo with ln2Hi exact in 32 bits, so e * ln2Hi is exact for |e| < 2^20.
    const __m256d ln2Hi = _mm256_set1_pd(0x1.62e42fefa0000p-1);
    const __m256d ln2Lo = _mm256_set1_pd(0x1.cf79abc9e3b3ap-40);
    __m256d s[count], z[count], p[count];
    TPVIZ_EACH_OF(count) s[v] = _mm256_div_pd(_mm256_sub_pd(m[v], one), _mm256_add_pd(m[v], one));
    TPVIZ_EACH_OF(count) {
        z[v] = _mm256_mul_pd(s[v], s[v]);
        p[v] = _mm256_set1_pd(1.0 / 13.0);
    }
    for (int k = 11; k >= 3; k -= 2)
        TPVIZ_EACH_OF(count) p[v] = _mm256_fmadd_pd(p[v], z[v], _mm256_set1_pd(1.0 / k));
    TPVIZ_EACH_OF(count) {
        const __m256d twoS = _mm256_add_pd(s[v], s[v]);
        const __m256d logM = _mm256_fmadd_pd(_mm256_mul_pd(twoS, z[v]), p[v], twoS);
        m[v] = _mm256_add_pd(_mm256_mul_pd(e[v], ln2Hi), _mm256_fmadd_pd(e[v], ln2Lo, logM));
    }
}

// All-ones in the lanes whose double result is within 2^16 double ulps of a float32 rounding
// midpoint, where the error bound of logDouble (2^13 ulps) cannot decide the rounding: about 1 in
// 4096 lanes. The low 29 bits of the double are those float32 drops, 2^28 the midpoint: they lie
// in [2^28 - 2^16, 2^28 + 2^16] exactly when (low + 2^16 - 2^28) mod 2^29 is at most 2^17.
TPVIZ_INLINE __m256i nearMidpoint(__m256d r) {
    const __m256i shifted =
        _mm256_add_epi64(_mm256_castpd_si256(r), _mm256_set1_epi64x(65536 - 0x10000000));
    const __m256i d = _mm256_and_si256(shifted, _mm256_set1_epi64x(0x1FFFFFFF));
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * 65536 + 1), d);
}

// -log x, correctly rounded to float32, of kStage3 vectors of positive normal floats x <= 0.586 at
// x. Returns whether a lane was left undecided; then `hard` flags those lanes.
TPVIZ_INLINE bool minusLogFloat(const float* x, __m256 (&out)[kStage3], int (&hard)[kStage3]) {
    // The split x = 2^e m is done in float32, eight lanes at once; its parts go to doubles by
    // integer steps (vcvtps2pd and vcvtdq2pd cost more): the lanes of each half are interleaved
    // with words that make them doubles, the low half's lanes 0, 1, 4, 5, the high half's 2, 3,
    // 6, 7.
    const __m256i zero = _mm256_setzero_si256();
    // A float32's exponent and mantissa fields, shifted left by 29, are a double's, with the
    // exponent biased by 127 instead of 1023.
    const __m256i rebias = _mm256_set1_epi64x(std::int64_t(1023 - 127) << 52);
    // 0x43300000 above a 32-bit word w is the double 2^52 + w.
    const __m256i magic = _mm256_set1_epi32(0x43300000);
    const __m256d eBias = _mm256_set1_pd(0x1p52 + 127.0);
    // Lanes 0, 1, 4, 5 of vector v in halves[2 v], lanes 2, 3, 6, 7 in halves[2 v + 1].
    __m256d halves[2 * kStage3], e[2 * kStage3];
    TPVIZ_EACH_OF(kStage3) {
        const __m256i bits = _mm256_castps_si256(_mm256_loadu_ps(x + kLanes * v));
        __m256i m = _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)),
                                    _mm256_set1_epi32(0x3F800000));
        // m > sqrt 2 (no float32 lies between f32(sqrt 2) and sqrt 2): halve m, one more in e.
        const __m256i big =
            _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(m), splat(kSqrt2), _CMP_GT_OQ));
        m = _mm256_sub_epi32(m, _mm256_and_si256(big, _mm256_set1_epi32(1 << 23)));
        const __m256i biasedE = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), big);
        halves[2 * v] = _mm256_castsi256_pd(
            _mm256_add_epi64(_mm256_slli_epi64(_mm256_unpacklo_epi32(m, zero), 29), rebias));
        halves[2 * v + 1] = _mm256_castsi256_pd(
            _mm256_add_epi64(_mm256_slli_epi64(_mm256_unpackhi_epi32(m, zero), 29), rebias));
        e[2 * v] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_unpacklo_epi32(biasedE, magic)), eBias);
        e[2 * v + 1] =
            _mm256_sub_pd(_mm256_castsi256_pd(_mm256_unpackhi_epi32(biasedE, magic)), eBias);
    }
    logDouble(halves, e);
    TPVIZ_EACH_OF(kStage3) {
        // Floats 0 1 4 5 2 3 6 7: pairs 0, 2, 1, 3 put them in order.
        const __m256 mixed =
            _mm256_set_m128(_mm256_cvtpd_ps(halves[2 * v + 1]), _mm256_cvtpd_ps(halves[2 * v]));
        const __m256 rounded = _mm256_castpd_ps(
            _mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
        out[v] = _mm256_xor_ps(rounded, signMask());
    }
    // One test for all lanes; the lanes themselves only in the rare case.
    __m256i anyNear = nearMidpoint(halves[0]);
    TPVIZ_EACH_OF(2 * kStage3 - 1) anyNear = _mm256_or_si256(anyNear, nearMidpoint(halves[v + 1]));
    if (__builtin_expect(_mm256_movemask_pd(_mm256_castsi256_pd(anyNear)) == 0, 1))
        return false;
    for (int v = 0; v < kStage3; ++v) {
        const int lo = _mm256_movemask_pd(_mm256_castsi256_pd(nearMidpoint(halves[2 * v])));
        const int hi = _mm256_movemask_pd(_mm256_castsi256_pd(nearMidpoint(halves[2 * v + 1])));
        hard[v] = (lo & 3) | (hi & 3) << 2 | (lo & 12) << 2 | (hi & 12) << 4;
    }
    return true;
}

// A block's values between the stages, kept in L1.
struct Stages {
    alignas(32) float u[kBlock];      // the uniforms
    alignas(32) float w[kBlock];      // -log1p(y), the small branch's until stage 4
    alignas(32) float large[kBlock];  // all-ones in the lanes of log1p's large branch
    alignas(32) float packed[kBlock + kLanes * kStage3];  // the large lanes' 1 + y, then their -log
    std::uint8_t masks[kBlockVectors];                    // the large lanes of each vector
    int packedCount;
    int hard[kBlock];  // places in `packed` the log left undecided
    int hardCount;
};

// Stage 2: the uniform, y = -u^2, the small branch of log1p (XLA:CPU's Cephes rational), and the
// large branch's argument 1 + y packed. Written with uu = u^2 = -y, exactly: rounding to nearest
// is symmetric, so fma(a, y, c) = fnmadd(a, uu, c), y * y = uu * uu, and
// -(y + fma(-0.5, y2, (y * y2) * q)) = uu + fma(0.5, y2, (uu * y2) * q), 1 + y = 1 - uu and
// |y| = uu, step for step the scalar code's roundings, with its negations left out.
TPVIZ_INLINE void uniformAndLog1p(const std::uint32_t* bits, int first, int end,
                                  const GaussianDraw& draw, Stages& st) {
    const __m256 lower = splat(draw.lower);
    int count = st.packedCount;
    for (int v0 = first; v0 < end; v0 += kStage2) {
        __m256 uu[kStage2], num[kStage2], den[kStage2];
        TPVIZ_EACH_OF(kStage2) {
            const __m256i b =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + kLanes * (v0 + v)));
            const __m256i floatBits =
                _mm256_or_si256(_mm256_srli_epi32(b, 9), _mm256_set1_epi32(0x3F800000));
            const __m256 f = _mm256_sub_ps(_mm256_castsi256_ps(floatBits), splat(1.0f));
            const __m256 u = _mm256_max_ps(lower, _mm256_fmadd_ps(f, splat(draw.span), lower));
            _mm256_store_ps(st.u + kLanes * (v0 + v), u);
            uu[v] = _mm256_mul_ps(u, u);
            num[v] = splat(kLog1pNum[0]);
            den[v] = splat(kLog1pDen[0]);
        }
        for (int k = 1; k < 7; ++k) {
            TPVIZ_EACH_OF(kStage2) {
                num[v] = _mm256_fnmadd_ps(num[v], uu[v], splat(kLog1pNum[k]));
                den[v] = _mm256_fnmadd_ps(den[v], uu[v], splat(kLog1pDen[k]));
            }
        }
        TPVIZ_EACH_OF(kStage2) {
            const __m256 y2 = _mm256_mul_ps(uu[v], uu[v]);
            const __m256 cubicTerm =
                _mm256_mul_ps(_mm256_mul_ps(uu[v], y2), _mm256_div_ps(num[v], den[v]));
            const __m256 w = _mm256_add_ps(uu[v], _mm256_fmadd_ps(splat(0.5f), y2, cubicTerm));
            _mm256_store_ps(st.w + kLanes * (v0 + v), w);
            // !(|y| < threshold), as the scalar code tests it.
            const __m256 large = _mm256_cmp_ps(uu[v], splat(kLog1pThreshold), _CMP_NLT_UQ);
            _mm256_store_ps(st.large + kLanes * (v0 + v), large);
            const int mask = _mm256_movemask_ps(large);
            st.masks[v0 + v] = std::uint8_t(mask);
            // Writes a whole vector: the lanes after the packed ones are overwritten by the next.
            _mm256_storeu_ps(st.packed + count,
                             _mm256_permutevar8x32_ps(_mm256_sub_ps(splat(1.0f), uu[v]),
                                                      permutation(kPack.compress[mask])));
            count += __builtin_popcount(unsigned(mask));
        }
    }
    st.packedCount = count;
}

// Stage 3: -log of the packed lanes.
TPVIZ_INLINE void packedLog(Stages& st) {
    // The last vectors' unused lanes take log 1 = 0.
    TPVIZ_EACH_OF(kStage3) _mm256_storeu_ps(st.packed + st.packedCount + kLanes * v, splat(1.0f));
    st.hardCount = 0;
    for (int p = 0; p < st.packedCount; p += kLanes * kStage3) {
        int hard[kStage3];
        __m256 logs[kStage3];
        const bool anyHard = minusLogFloat(st.packed + p, logs, hard);
        TPVIZ_EACH_OF(kStage3) _mm256_storeu_ps(st.packed + p + kLanes * v, logs[v]);
        if (!anyHard)
            continue;
        for (int v = 0; v < kStage3; ++v) {
            for (; hard[v] != 0; hard[v] &= hard[v] - 1) {
                const int place = p + kLanes * v + __builtin_ctz(unsigned(hard[v]));
                if (place < st.packedCount)
                    st.hard[st.hardCount++] = place;
            }
        }
    }
}

// Stage 4: the large lanes' -log unpacked into w, erfInv's polynomial, sqrt 2, clamp, scale.
TPVIZ_INLINE void erfInvAndScale(int vectors, const GaussianDraw& draw, const Stages& st,
                                 float* out) {
    int offset = 0;
    for (int v0 = 0; v0 < vectors; v0 += kStage4) {
        __m256 w[kStage4], x[kStage4], central[kStage4], vCentral[kStage4], p[kStage4];
        int allCentral = 0xFF;
        TPVIZ_EACH_OF(kStage4) {
            const int mask = st.masks[v0 + v];
            const __m256 unpacked = _mm256_permutevar8x32_ps(_mm256_loadu_ps(st.packed + offset),
                                                             permutation(kPack.expand[mask]));
            offset += __builtin_popcount(unsigned(mask));
            w[v] = _mm256_blendv_ps(_mm256_load_ps(st.w + kLanes * (v0 + v)), unpacked,
                                    _mm256_load_ps(st.large + kLanes * (v0 + v)));
            x[v] = _mm256_load_ps(st.u + kLanes * (v0 + v));
            central[v] = _mm256_cmp_ps(w[v], splat(5.0f), _CMP_LT_OQ);
            vCentral[v] = _mm256_sub_ps(w[v], splat(2.5f));
            allCentral &= _mm256_movemask_ps(central[v]);
        }
        if (allCentral == 0xFF) {
            // No lane here has |x| == 1: its 1 + y = 0 has w = 88 (stage 3 reads 0 as 2^-127),
            // and w >= 5 is not central.
            TPVIZ_EACH_OF(kStage4) p[v] = splat(kErfInvLt5[0]);
            for (int k = 1; k < 9; ++k) {
                TPVIZ_EACH_OF(kStage4) {
                    p[v] = _mm256_fmadd_ps(p[v], vCentral[v], splat(kErfInvLt5[k]));
                }
            }
            TPVIZ_EACH_OF(kStage4) p[v] = _mm256_mul_ps(p[v], x[v]);
        } else {
            __m256 t[kStage4];
            TPVIZ_EACH_OF(kStage4) {
                t[v] = _mm256_blendv_ps(_mm256_sub_ps(_mm256_sqrt_ps(w[v]), splat(3.0f)),
                                        vCentral[v], central[v]);
                p[v] = _mm256_blendv_ps(splat(kErfInvGe5[0]), splat(kErfInvLt5[0]), central[v]);
            }
            for (int k = 1; k < 9; ++k) {
                TPVIZ_EACH_OF(kStage4) {
                    const __m256 c =
                        _mm256_blendv_ps(splat(kErfInvGe5[k]), splat(kErfInvLt5[k]), central[v]);
                    p[v] = _mm256_fmadd_ps(p[v], t[v], c);
                }
            }
            TPVIZ_EACH_OF(kStage4) {
                const __m256 unit =
                    _mm256_cmp_ps(_mm256_andnot_ps(signMask(), x[v]), splat(1.0f), _CMP_EQ_OQ);
                const __m256 infinite = _mm256_mul_ps(x[v], splat(__builtin_inff()));
                p[v] = _mm256_blendv_ps(_mm256_mul_ps(p[v], x[v]), infinite, unit);
            }
        }
        TPVIZ_EACH_OF(kStage4) {
            __m256 t = _mm256_mul_ps(splat(kSqrt2), p[v]);
            if (draw.clamp)
                t = _mm256_min_ps(_mm256_max_ps(t, splat(kTruncClampLo)), splat(kTruncClampHi));
            _mm256_storeu_ps(out + kLanes * (v0 + v), _mm256_mul_ps(t, splat(draw.scale)));
        }
    }
}

// Stages 3 and 4 after stage 2, and the scalar path for the lanes the log left undecided.
void finishBlock(const std::uint32_t* bits, int vectors, const GaussianDraw& draw, Stages& st,
                 float* out) {
    packedLog(st);
    erfInvAndScale(vectors, draw, st, out);
    for (int h = 0; h < st.hardCount; ++h) {
        // The packed places run through the vectors' large lanes in order.
        int place = st.hard[h];
        for (int v = 0;; ++v) {
            const unsigned mask = st.masks[v];
            const int here = __builtin_popcount(mask);
            if (place < here) {
                unsigned lanes = mask;
                for (int j = 0; j < place; ++j)
                    lanes &= lanes - 1;
                const int k = kLanes * v + __builtin_ctz(lanes);
                out[k] = gaussianFromBits(bits[k], draw);
                break;
            }
            place -= here;
        }
    }
}

// out[k] = gaussianFromBits(bits[k], draw) for k < kLanes * vectors, vectors a multiple of
// kGroupVectors.
void gaussianOfBlock(const std::uint32_t* bits, int vectors, const GaussianDraw& draw, float* out) {
    Stages st;
    st.packedCount = 0;
    uniformAndLog1p(bits, 0, vectors, draw, st);
    finishBlock(bits, vectors, draw, st, out);
}

// Elements i .. i + kLanes * vectors - 1 of the draw, vectors a multiple of kGroupVectors.
void drawBlock(const Schedule& s, Key key, PrngLayout layout, std::uint64_t n, std::uint64_t h,
               std::uint64_t i, int vectors, const GaussianDraw& draw, float* out) {
    alignas(32) std::uint32_t bits[kBlock];
    const int len = kLanes * vectors;
    if (!lanesExpress(layout, h, i, len)) {
        for (int k = 0; k < len; ++k)
            bits[k] = i + std::uint64_t(k) < n ? bitsAt(key, layout, n, i + std::uint64_t(k)) : 0u;
        gaussianOfBlock(bits, vectors, draw, out);
        return;
    }
    Stages st;
    st.packedCount = 0;
    for (int k = 0; k < len; k += kThreefryValues)
        bitsOfGroup(s, layout, n, h, i + std::uint64_t(k), bits + k);
    uniformAndLog1p(bits, 0, vectors, draw, st);
    finishBlock(bits, vectors, draw, st, out);
}

}  // namespace

void drawGaussian(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, float* out, const GaussianDraw& draw) {
    const Schedule schedule(key);
    const std::uint64_t h = (n + 1) / 2;
    for (std::uint64_t k = 0; k < count; k += kBlock) {
        const int len = int(std::min<std::uint64_t>(kBlock, count - k));
        const int vectors = (len + kGroupValues - 1) / kGroupValues * kGroupVectors;
        if (len == kLanes * vectors) {
            drawBlock(schedule, key, layout, n, h, start + k, vectors, draw, out + k);
        } else {
            // The tail, drawn in whole groups: the elements after it (or bits 0 after the array's
            // end) fill the group's unused lanes.
            float values[kBlock];
            drawBlock(schedule, key, layout, n, h, start + k, vectors, draw, values);
            std::copy(values, values + len, out + k);
        }
    }
}

void gaussianOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                    const GaussianDraw& draw) {
    for (std::uint64_t k = 0; k < count; k += kBlock) {
        const int len = int(std::min<std::uint64_t>(kBlock, count - k));
        const int vectors = (len + kGroupValues - 1) / kGroupValues * kGroupVectors;
        if (len == kLanes * vectors) {
            gaussianOfBlock(bits + k, vectors, draw, out + k);
        } else {
            alignas(32) std::uint32_t padded[kBlock] = {};
            float values[kBlock];
            std::copy(bits + k, bits + k + len, padded);
            gaussianOfBlock(padded, vectors, draw, values);
            std::copy(values, values + len, out + k);
        }
    }
}

#undef TPVIZ_EACH
#undef TPVIZ_EACH_OF
#undef TPVIZ_INLINE

}  // namespace tp::simd::avx2
