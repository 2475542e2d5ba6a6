// The Megatron MLP block: its arrays drawn from one nnx.Rngs(seed) at the stream's counts, the
// split against the unsharded block within the carried bound on several shapes and tp sizes, the
// three mistakes (two fail, gather-between is right), the backward pass, and the refusals.

#include "block/gelu.h"
#include "block/mlp.h"
#include "block/mlp_backward.h"
#include "block/mlp_check.h"
#include "block/mlp_costs.h"
#include "config_fixtures.h"
#include "nnx/jax_random.h"
#include "nnx/nnx_init.h"
#include "scene/mlp_scene.h"
#include "test_vectors.h"

#include <QTest>

using namespace tp;

namespace {

LayerConfig mlp(std::int64_t batch, std::int64_t inDim, std::int64_t hidden, std::int64_t features,
                std::int64_t tp, std::int64_t seed = 0) {
    return test::mlpConfig(batch, inDim, hidden, features, tp, seed);
}

std::vector<std::uint32_t> bitsOf(const float* data, Index n) {
    return test::floatBits(data, n);
}

QString verdictText(const Verification& v) {
    return QStringLiteral("%1, error/bound %2, %3 of %4 bit-identical")
        .arg(QString::fromUtf8(toString(v.verdict).data()))
        .arg(v.maxErrorOverBound)
        .arg(v.bitIdentical)
        .arg(v.elements);
}

void addShapes() {
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("inDim");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("features");
    QTest::addColumn<int>("tp");
    QTest::newRow("2x8 H32 F8 tp1") << 2 << 8 << 32 << 8 << 1;
    QTest::newRow("2x8 H32 F8 tp4") << 2 << 8 << 32 << 8 << 4;
    QTest::newRow("3x5 H12 F7 tp3") << 3 << 5 << 12 << 7 << 3;
    QTest::newRow("8x64 H256 F64 tp8") << 8 << 64 << 256 << 64 << 8;
    QTest::newRow("64x256 H1024 F256 tp4") << 64 << 256 << 1024 << 256 << 4;
    QTest::newRow("16x512 H2048 F512 tp2") << 16 << 512 << 2048 << 512 << 2;
    // Each device's 2100 hidden features cross the row split's depth blocks of 1024 terms.
    QTest::newRow("24x16 H4200 F40 tp2") << 24 << 16 << 4200 << 40 << 2;
}

}  // namespace

class TestMlp : public QObject {
    Q_OBJECT

private slots:
    // linear1's kernel and bias take counts 0 and 1, linear2's 2 and 3, x 4, dy 5: one Rngs.
    void theBlocksArraysTakeTheStreamsCounts() {
        const auto& vectors = test::testVectors();
        LayerConfig c = mlp(3, 4, 16, 5, 2);
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        const Key four = streamKey(c, kMlpCounts.x);
        QCOMPARE(four.k0, vectors.foldInKey0With4[0]);  // fold_in(PRNGKey(0), 4), JAX's
        QCOMPARE(four.k1, vectors.foldInKey0With4[1]);
        QCOMPARE(streamKey(c, 3), foldIn(seedToKey(0), 3));

        const MlpParams p = initMlp(c);
        // linear1 is nnx.Linear(in_dim, hidden) of a fresh Rngs: one Linear's scene, bit for bit.
        LayerConfig linear1 = c;
        linear1.block = Block::Linear;
        linear1.features = c.hidden;
        linear1.tpSize = 1;
        const LayerParams first = initLayer(linear1);
        QCOMPARE(bitsOf(p.kernel1.data(), p.kernel1.size()),
                 bitsOf(first.kernel.data(), first.kernel.size()));
        QCOMPARE(bitsOf(p.bias1.data(), p.bias1.size()),
                 bitsOf(first.bias.data(), first.bias.size()));
        // linear2: lecun_normal of fan_in hidden from count 2, its bias from count 3.
        std::vector<float> kernel2(std::size_t(c.hidden * c.features));
        truncatedNormal(foldIn(seedToKey(0), 2), c.prng, kernel2.size(), 0, kernel2.size(),
                        kernel2.data(), lecunNormalStddev(c.hidden));
        QCOMPARE(bitsOf(p.kernel2.data(), p.kernel2.size()),
                 bitsOf(kernel2.data(), Index(kernel2.size())));
        std::vector<float> bias2(std::size_t(c.features));
        normal(foldIn(seedToKey(0), 3), c.prng, bias2.size(), 0, bias2.size(), bias2.data(), 0.5f);
        QCOMPARE(bitsOf(p.bias2.data(), p.bias2.size()), bitsOf(bias2.data(), Index(bias2.size())));
        // x from count 4, dy from count 5.
        std::vector<float> x(std::size_t(c.batch * c.inDim));
        normal(four, c.prng, x.size(), 0, x.size(), x.data());
        QCOMPARE(bitsOf(p.x.data(), p.x.size()), bitsOf(x.data(), Index(x.size())));
        std::vector<float> dy(std::size_t(c.batch * c.features));
        normal(foldIn(seedToKey(0), 5), c.prng, dy.size(), 0, dy.size(), dy.data());
        const Matrix cotangent = mlpCotangentBlock(c, {0, c.batch}, {0, c.features});
        QCOMPARE(bitsOf(cotangent.data(), cotangent.size()), bitsOf(dy.data(), Index(dy.size())));
        QCOMPARE(mlpParameterCount(c), 4 * 16 + 16 + 16 * 5 + 5 + 3 * 4);
    }

    // A device's shard drawn alone is the slices of the whole block's arrays.
    void aDevicesShardIsTheBlocksSlices() {
        LayerConfig c = mlp(2, 6, 24, 10, 4, 7);
        c.prng = PrngLayout::Legacy;
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.25f};
        const MlpParams whole = initMlp(c);
        for (Index g = 0; g < 4; ++g) {
            const IndexRange s{g * 6, (g + 1) * 6};
            const MlpParams shard = mlpShard(c, s);
            QVERIFY(shard.kernel1 == whole.kernel1.middleCols(s.start, 6));
            QVERIFY(shard.bias1 == whole.bias1.segment(s.start, 6));
            QVERIFY(shard.kernel2 == whole.kernel2.middleRows(s.start, 6));
            QVERIFY(shard.bias2 == whole.bias2 && shard.x == whole.x);
        }
    }

    // Any block of any of the block's arrays drawn alone is that block of the whole array, in
    // both PRNG layouts; dy's is mlpCotangentBlock's.
    void anArraysBlockIsItsSlice() {
        for (const PrngLayout layout : {PrngLayout::Partitionable, PrngLayout::Legacy}) {
            LayerConfig c = mlp(3, 5, 12, 7, 4, 11);
            c.prng = layout;
            c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
            const MlpParams whole = initMlp(c);
            const Matrix dy = mlpCotangentBlock(c, {0, c.batch}, {0, c.features});
            const std::pair<MlpArray, Matrix> arrays[] = {{MlpArray::Kernel1, whole.kernel1},
                                                          {MlpArray::Bias1, whole.bias1},
                                                          {MlpArray::Kernel2, whole.kernel2},
                                                          {MlpArray::Bias2, whole.bias2},
                                                          {MlpArray::X, whole.x},
                                                          {MlpArray::Dy, dy}};
            for (const auto& [array, m] : arrays) {
                const auto [rows, cols] = mlpArrayShape(c, array);
                QCOMPARE(rows, m.rows());
                QCOMPARE(cols, m.cols());
                QVERIFY2(mlpArrayBlock(c, array, {0, rows}, {0, cols}) == m, mlpArrayName(array));
                const IndexRange r{rows / 2, rows}, k{1, cols - 1};
                QVERIFY2(
                    mlpArrayBlock(c, array, r, k) == m.block(r.start, k.start, r.size(), k.size()),
                    mlpArrayName(array));
            }
        }
    }

    // The Megatron split passes against the unsharded block, each array within its bound.
    void theCorrectSplitPasses_data() { addShapes(); }
    void theCorrectSplitPasses() {
        QFETCH(int, batch);
        QFETCH(int, inDim);
        QFETCH(int, hidden);
        QFETCH(int, features);
        QFETCH(int, tp);
        LayerConfig c = mlp(batch, inDim, hidden, features, tp, 3);
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        QVERIFY(c.validate().empty());
        const std::optional<MlpScene> s = computeMlpScene(c, Mistake::None, {}, true);
        QVERIFY(s);
        QVERIFY2(s->verification.h.passed(), qPrintable(verdictText(s->verification.h)));
        QVERIFY2(s->verification.a.passed(), qPrintable(verdictText(s->verification.a)));
        QVERIFY2(s->verification.output.passed(), qPrintable(verdictText(s->verification.output)));
        const MlpBackwardVerification& b = s->backward->verification;
        for (const Verification* v : {&b.dx, &b.dkernel1, &b.dbias1, &b.dkernel2, &b.dbias2})
            QVERIFY2(v->passed(), qPrintable(verdictText(*v)));
        QVERIFY(s->passed());
        // The split's output is the all-reduced partial sums plus bias2 once, bit for bit. On
        // several devices the pass stores no partial: each is made when first read.
        for (std::size_t g = 0; g < s->split.partials.size(); ++g)
            QCOMPARE(s->split.partials.made(g), tp == 1);
        Matrix sum = s->split.partials.front();
        for (std::size_t g = 1; g < s->split.partials.size(); ++g)
            sum += s->split.partials[g];
        sum.rowwise() += s->params.bias2;
        QVERIFY(sum == s->split.output);
        // dx is the sum of the devices' partials in device order, bit for bit: the backward's
        // all-reduce. The pass stores none: each is made when first read.
        const Partials& dxPartials = s->backward->split.dxPartials;
        QCOMPARE(int(dxPartials.size()), tp);
        for (std::size_t g = 0; g < dxPartials.size(); ++g)
            QVERIFY(!dxPartials.made(g));
        Matrix dx = dxPartials.front();
        for (std::size_t g = 1; g < dxPartials.size(); ++g)
            dx += dxPartials[g];
        QVERIFY(dx == s->backward->split.gradients.dx);
    }

    // The mistakes run for real: two are wrong and fail by far, gather-between is right.
    void theMistakesFailOrCostMore_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("inDim");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("features");
        QTest::addColumn<int>("tp");
        QTest::newRow("2x8 H32 F8 tp2") << 2 << 8 << 32 << 8 << 2;
        QTest::newRow("4x8 H32 F8 tp4") << 4 << 8 << 32 << 8 << 4;
        QTest::newRow("64x256 H1024 F256 tp4") << 64 << 256 << 1024 << 256 << 4;
    }
    void theMistakesFailOrCostMore() {
        QFETCH(int, batch);
        QFETCH(int, inDim);
        QFETCH(int, hidden);
        QFETCH(int, features);
        QFETCH(int, tp);
        LayerConfig c = mlp(batch, inDim, hidden, features, tp, 1);
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        for (const Mistake m : blockMistakes(Block::Mlp))
            QVERIFY(mistakeProblems(c, m).empty());
        const auto run = [&](Mistake m) { return *computeMlpScene(c, m, {}, false); };

        const MlpScene rowFirst = run(Mistake::RowThenColumn);
        QVERIFY(rowFirst.verification.h.passed());  // the partial sums add up to h...
        QVERIFY(rowFirst.verification.a.verdict == Verdict::Failed);  // ...their GeLUs do not
        QVERIFY(rowFirst.verification.output.verdict == Verdict::Failed);
        QVERIFY(rowFirst.verification.output.maxErrorOverWorstCase > 100);

        const MlpScene bias = run(Mistake::Bias2PerPartial);
        QVERIFY(bias.verification.output.verdict == Verdict::Failed);
        QVERIFY(bias.verification.h.passed() && bias.verification.a.passed());

        const MlpScene gathered = run(Mistake::GatherBetween);
        QVERIFY2(gathered.passed(), qPrintable(verdictText(gathered.verification.output)));
        QVERIFY(!gathered.mistakeWithoutEffect.empty());
        const MlpCosts right = mlpCosts(c);
        const MlpCosts costly = mlpCosts(c, Mistake::GatherBetween);
        std::int64_t rightBytes = 0, costlyBytes = 0;
        for (const MlpCollective& col : right.collectives)
            rightBytes += col.cost.bytesSentPerDevice;
        for (const MlpCollective& col : costly.collectives)
            costlyBytes += col.cost.bytesSentPerDevice;
        QVERIFY(costlyBytes > rightBytes);  // the hidden activations moved, H = 4 F here
        QVERIFY(costly.perDevice.hiddenBytes > right.perDevice.hiddenBytes);
    }

    // With zero biases bias2-per-partial adds nothing: the check passes, and says why.
    void aZeroBiasHidesBias2PerPartial() {
        const LayerConfig c = mlp(2, 8, 32, 8, 4);
        const MlpScene s = *computeMlpScene(c, Mistake::Bias2PerPartial, {}, false);
        QVERIFY(s.passed());
        QVERIFY(QString::fromStdString(s.mistakeWithoutEffect).contains("biases are zero"));
        QVERIFY(biasShowingMistake(c, Mistake::Bias2PerPartial, true).has_value());
    }

    // A backward that forgets part of the GeLU's derivative, or one device's dx, fails.
    void aWrongBackwardFails() {
        LayerConfig c = mlp(8, 16, 64, 16, 4, 2);
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        const MlpScene s = *computeMlpScene(c, Mistake::None, {}, true);
        MlpGradients wrong = s.backward->split.gradients;
        wrong.dx -= s.backward->split.dxPartials.back();  // the all-reduce missed a device
        MlpBackwardVerification v = verifyMlpBackward(wrong, s.backward->reference, s.params,
                                                      s.reference, s.bounds, s.backward->dy);
        QVERIFY(v.dx.verdict == Verdict::Failed);
        QVERIFY(v.dkernel1.passed());
        // dh = da * cdf(h) (the derivative of x * cdf with its second term left out).
        MlpGradients cdfOnly = s.backward->reference;
        for (Index r = 0; r < cdfOnly.dh.rows(); ++r)
            for (Index k = 0; k < cdfOnly.dh.cols(); ++k) {
                const float h = s.reference.h(r, k);
                cdfOnly.dh(r, k) = cdfOnly.da(r, k) * (h == 0 ? 0.5f : gelu(h) / h);
            }
        cdfOnly.dkernel1 = s.params.x.transpose() * cdfOnly.dh;
        v = verifyMlpBackward(cdfOnly, s.backward->reference, s.params, s.reference, s.bounds,
                              s.backward->dy);
        QVERIFY(v.dkernel1.verdict == Verdict::Failed);
    }

    // The refusals, each in words next to its setting.
    void theBlockIsRefusedInWords() {
        LayerConfig c = mlp(2, 8, 30, 8, 4);
        std::vector<ConfigProblem> problems = c.validate();
        QCOMPARE(int(problems.size()), 1);
        QVERIFY(problems[0].field == ConfigField::Hidden);
        QVERIFY(QString::fromStdString(problems[0].message)
                    .startsWith("hidden (30) is not divisible by tp_size (4)"));
        c = mlp(2, 8, 32, 8, 4);
        c.dataSize = 2;
        QVERIFY(c.validate().front().field == ConfigField::Data);
        c = mlp(2, 6, 32, 8, 4);  // in_dim 6 is fine for Megatron's split...
        QVERIFY(c.validate().empty());
        // ...not for row-then-column's row-parallel linear1
        problems = mistakeProblems(c, Mistake::RowThenColumn);
        QCOMPARE(int(problems.size()), 1);
        QVERIFY(QString::fromStdString(problems[0].message).contains("in_dim (6)"));
        QVERIFY(!mistakeProblems(c, Mistake::SumGroups).empty());  // one Linear's
        LayerConfig linear;
        QVERIFY(QString::fromStdString(mistakeProblems(linear, Mistake::GatherBetween)[0].message)
                    .contains("MLP block"));
    }

    // The costs per device: both kernel blocks, the hidden slices, one all-reduce each way.
    void theCostsOfTheMegatronSplit() {
        const LayerConfig c = mlp(4, 8, 32, 8, 4);
        const MlpCosts k = mlpCosts(c, Mistake::None, true);
        QCOMPARE(k.perDevice.kernel1Bytes, std::int64_t(8 * 8 * 4));
        QCOMPARE(k.perDevice.kernel2Bytes, std::int64_t(8 * 8 * 4));
        QCOMPARE(k.perDevice.hiddenBytes, std::int64_t(2 * 4 * 8 * 4));
        QCOMPARE(int(k.collectives.size()), 2);
        QCOMPARE(k.collectives[0].of, std::string("the partial sums"));
        QCOMPARE(k.collectives[0].cost.bytesSentPerDevice, std::int64_t(2 * 3 * 4 * 8 * 4 / 4));
        QVERIFY(k.collectives[1].backward && k.collectives[1].of == "dx");
        QCOMPARE(k.collectives[1].cost.ringSteps, std::int64_t(6));
    }
};

QTEST_MAIN(TestMlp)
#include "tst_mlp.moc"
