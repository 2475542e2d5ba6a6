// Invariants as properties, over random valid configs from a fixed seed (TPVIZ_PROPERTY_SEED
// overrides it; TPVIZ_PROPERTY_CASES the number of configs): sizes, tp_size, both modes, seeds
// (negative and >= 2^32 too), x64, both PRNG layouts and both bias inits.
//  - the split output passes the check against the full product;
//  - each group's slice of the kernel, bias and x, generated alone, equals the slice of the whole
//    layer bit for bit.

#include "layer/forward.h"
#include "matrix_bits.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

#include <cstdlib>
#include <cstring>
#include <random>

using namespace tp;
using tp::test::sameBits;

namespace {

std::uint64_t envNumber(const char* name, std::uint64_t fallback) {
    const char* text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

LayerConfig randomConfig(std::mt19937_64& rng) {
    const auto upTo = [&](std::int64_t n) {
        return std::uniform_int_distribution<std::int64_t>(1, n)(rng);
    };
    LayerConfig config;
    config.batch = upTo(9);
    config.inDim = upTo(96);
    config.features = upTo(96);
    config.mode = rng() % 2 ? ParallelMode::Row : ParallelMode::Column;
    const std::vector<std::int64_t> tp = divisors(config.splitDim());
    config.tpSize = tp[rng() % tp.size()];
    config.seed = rng() % 3 == 0 ? std::int64_t(rng()) : std::int64_t(rng() % 100);
    config.prng = rng() % 2 ? PrngLayout::Legacy : PrngLayout::Partitionable;
    config.x64 = rng() % 2;
    if (rng() % 2)
        config.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
    return config;
}

QString describe(const LayerConfig& c) {
    return QStringLiteral("N%1 in%2 f%3 tp%4 %5 seed %6 %7%8 bias %9")
        .arg(c.batch)
        .arg(c.inDim)
        .arg(c.features)
        .arg(c.tpSize)
        .arg(QString::fromUtf8(toString(c.mode).data()))
        .arg(c.seed)
        .arg(QString::fromUtf8(toString(c.prng).data()))
        .arg(c.x64 ? " x64" : "")
        .arg(QString::fromStdString(toString(c.bias)));
}

}  // namespace

class TestProperties : public QObject {
    Q_OBJECT

private slots:
    void randomConfigs() {
        const std::uint64_t seed = envNumber("TPVIZ_PROPERTY_SEED", 20261130);
        const int cases = int(envNumber("TPVIZ_PROPERTY_CASES", 300));
        qInfo("properties: seed %llu, %d configs (TPVIZ_PROPERTY_SEED, TPVIZ_PROPERTY_CASES)",
              static_cast<unsigned long long>(seed), cases);
        std::mt19937_64 rng(seed);
        for (int i = 0; i < cases; ++i) {
            const LayerConfig config = randomConfig(rng);
            const QString where =
                QStringLiteral("config %1 (%2), seed %3: ").arg(i).arg(describe(config)).arg(seed);
            QVERIFY2(config.validate().empty(), qPrintable(where + "invalid"));
            const std::optional<Scene> scene = computeScene({config, SceneSource::Nnx});
            QVERIFY(scene);
            QVERIFY2(scene->verification.allclose,
                     qPrintable(
                         where +
                         QStringLiteral("max abs error %1").arg(scene->verification.maxAbsError)));
            const LayerParams& whole = scene->params;
            for (const ShardGroup& group : scene->result.plan.groups) {
                const IndexRange rows = group.kernelRows;
                const IndexRange cols = group.kernelCols;
                const Matrix slice = kernelSlice(whole.kernel, group);
                QVERIFY2(sameBits(kernelBlock(config, rows, cols), slice),
                         qPrintable(where + "a group's kernel block differs from the slice"));
                const Matrix bias = biasSlice(config, cols);
                QVERIFY2(sameBits(bias, whole.bias.segment(cols.start, cols.size())),
                         qPrintable(where + "a group's bias differs from the slice"));
                const IndexRange xCols = group.inputCols;
                QVERIFY2(sameBits(inputBlock(config, {0, config.batch}, xCols),
                                  inputSlice(whole.x, group)),
                         qPrintable(where + "a group's x block differs from the slice"));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestProperties)
#include "tst_properties.moc"
