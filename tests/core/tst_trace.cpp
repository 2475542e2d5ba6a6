// Tracing an output value to its terms: the terms add up to the output, the largest are listed
// first when in_dim is big, and row mode's partials add up with the bias once.

#include "layer/trace.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace tp;

namespace {

Scene scene(const LayerConfig& config) {
    std::optional<Scene> s = computeScene({config, SceneSource::Nnx});
    Q_ASSERT(s);
    return std::move(*s);
}

OutputTrace trace(const Scene& s, Index row, Index col, Index maxTerms = 8) {
    return traceOutput(s.params.x, s.params.kernel, s.params.bias, s.result, s.reference, row, col,
                       maxTerms);
}

}  // namespace

class TestTrace : public QObject {
    Q_OBJECT

private slots:
    void workedExampleTermByTerm() {
        std::optional<Scene> s = computeScene({briefExampleConfig(), SceneSource::Brief});
        QVERIFY(s);
        const OutputTrace t = trace(*s, 0, 3);
        QCOMPARE(t.terms.size(), std::size_t(2));
        QCOMPARE(t.omittedCount, Index(0));
        for (std::size_t k = 0; k < 2; ++k) {
            QCOMPARE(t.terms[k].k, Index(k));
            QCOMPARE(t.terms[k].x, s->params.x(0, Index(k)));
            QCOMPARE(t.terms[k].kernel, s->params.kernel(Index(k), 3));
        }
        QCOMPARE(t.bias, s->params.bias(3));
        QCOMPARE(t.result, s->result.output(0, 3));
        QCOMPARE(t.ownerGroup, 1);  // columns 2:4 belong to group 1 of 2
        QVERIFY(t.contributions.empty());
        QVERIFY(std::abs(t.exact - double(t.result)) <= 1e-6 * (1 + std::abs(t.exact)));
    }

    void bigInDimListsTheLargestAndSumsTheRest() {
        const Scene s = scene(LayerConfig{.batch = 2, .inDim = 64, .features = 8, .tpSize = 2});
        const OutputTrace t = trace(s, 1, 5, 6);
        QCOMPARE(t.terms.size(), std::size_t(6));
        QCOMPARE(t.omittedCount, Index(58));
        for (std::size_t i = 1; i < t.terms.size(); ++i)
            QVERIFY(std::abs(t.terms[i - 1].product) >= std::abs(t.terms[i].product));
        double listed = 0;
        for (const TraceTerm& term : t.terms) {
            listed += term.product;
            QVERIFY(std::abs(term.product) >= 0);
        }
        QVERIFY(std::abs(listed + t.omittedSum - t.termSum) < 1e-12);
        // No omitted term is larger than the smallest listed one.
        double smallestListed = std::abs(t.terms.back().product);
        for (Index k = 0; k < 64; ++k) {
            const double p = double(s.params.x(1, k)) * double(s.params.kernel(k, 5));
            bool listedK = false;
            for (const TraceTerm& term : t.terms)
                listedK |= term.k == k;
            if (!listedK)
                QVERIFY(std::abs(p) <= smallestListed);
        }
        QVERIFY(std::abs(t.exact - double(t.result)) < 1e-4);
        QCOMPARE(t.reference, s.reference(1, 5));
    }

    // A NaN in x ranks first among the listed terms, an infinity next; the sums carry them.
    void nonFiniteTermsAreListedFirst() {
        const Scene s = scene(LayerConfig{.batch = 2, .inDim = 64, .features = 8, .tpSize = 2});
        Matrix x = s.params.x;
        x(1, 40) = std::numeric_limits<float>::quiet_NaN();
        x(1, 3) = -std::numeric_limits<float>::infinity();
        QVERIFY(s.params.kernel(3, 5) != 0.0f);
        const OutputTrace t =
            traceOutput(x, s.params.kernel, s.params.bias, s.result, s.reference, 1, 5, 6);
        QCOMPARE(t.terms.size(), std::size_t(6));
        QCOMPARE(t.terms[0].k, Index(40));
        QVERIFY(std::isnan(t.terms[0].product));
        QCOMPARE(t.terms[1].k, Index(3));
        QVERIFY(std::isinf(t.terms[1].product));
        for (std::size_t i = 3; i < t.terms.size(); ++i)
            QVERIFY(std::abs(t.terms[i - 1].product) >= std::abs(t.terms[i].product));
        QVERIFY(std::isnan(t.termSum) && std::isnan(t.exact));
        QVERIFY(std::isfinite(t.omittedSum));
    }

    void rowModePartialsAddUpWithTheBiasOnce() {
        LayerConfig c{.batch = 3, .inDim = 8, .features = 6, .tpSize = 4};
        c.mode = ParallelMode::Row;
        c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        const Scene s = scene(c);
        const OutputTrace t = trace(s, 2, 4);
        QCOMPARE(t.contributions.size(), std::size_t(4));
        double sum = 0;
        for (const GroupContribution& g : t.contributions) {
            QCOMPARE(g.kernelRows.size(), Index(2));
            QCOMPARE(g.partial, s.result.partials[std::size_t(g.group)](2, 4));
            // Each partial is its group's terms.
            double terms = 0;
            for (const TraceTerm& term : t.terms)
                if (term.group == g.group)
                    terms += term.product;
            QVERIFY(std::abs(terms - double(g.partial)) < 1e-5);
            sum += g.partial;
        }
        QVERIFY(std::abs(sum + double(t.bias) - double(t.result)) < 1e-5);
        QVERIFY(t.bias != 0.0f);
        QCOMPARE(t.ownerGroup, -1);
    }

    void kernelCellNamesItsGroupAndOutputColumn() {
        const ShardingPlan column = ShardingPlan::make(ParallelMode::Column, 8, 12, 3);
        const KernelCellTrace a = traceKernelCell(column, 5, 9);
        QCOMPARE(a.group, 2);
        QCOMPARE(a.outputCol, Index(9));
        QCOMPARE(a.flatIndex, Index(5 * 12 + 9));
        QCOMPARE(a.groupRange.start, Index(8));
        const ShardingPlan row = ShardingPlan::make(ParallelMode::Row, 8, 12, 4);
        const KernelCellTrace b = traceKernelCell(row, 5, 9);
        QCOMPARE(b.group, 2);  // rows 4:6
        QCOMPARE(b.groupRange.start, Index(4));
        QCOMPARE(b.groupRange.stop, Index(6));
    }
};

QTEST_APPLESS_MAIN(TestTrace)
#include "tst_trace.moc"
