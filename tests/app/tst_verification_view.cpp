// The check's box in words: passed, failed and inconclusive, from real scenes' verdicts.

#include "layer/verification.h"
#include "scene/scene.h"
#include "scene/scene_request.h"
#include "verification_view.h"

#include <QLabel>
#include <QTest>

#include <limits>

using namespace tp;

namespace {

// A correct row split at in_dim 2^20: every element within the bound, but rounding alone may reach
// more than the values.
Verification inconclusiveCheck() {
    const LayerConfig config{
        .batch = 2, .inDim = Index(1) << 20, .features = 4, .tpSize = 2, .mode = ParallelMode::Row};
    return computeScene({config, SceneSource::Nnx})->verification;
}

// A small column split's check, correct or with a mistake.
Verification smallCheck(Mistake mistake = Mistake::None) {
    const LayerConfig config{.batch = 2, .inDim = 64, .features = 8, .tpSize = 2};
    return computeScene({config, SceneSource::Nnx, SceneRun{mistake, {}}})->verification;
}

}  // namespace

class TestVerificationView : public QObject {
    Q_OBJECT

private slots:
    // A correct row split at in_dim 2^20: every element within the bound, but rounding alone may
    // reach more than the values; the box says so, in words, and neither passes nor fails.
    void inconclusiveSaysWhy() {
        const Verification check = inconclusiveCheck();
        VerificationView view;
        view.setVerification(check, true, QString());
        QCOMPARE(view.state(), VerificationView::State::Inconclusive);
        QVERIFY2(view.verdictText().startsWith("? inconclusive: float32 cannot tell"),
                 qPrintable(view.verdictText()));
        // The reason heads the figures under the verdict.
        QVERIFY2(view.numbersText().startsWith(
                     "<b>Why:</b> summing 1048576 terms, float32 rounding alone may reach "),
                 qPrintable(view.numbersText()));
        QVERIFY(!view.verdictText().contains("passed"));
        // Until the output is complete the box waits, whatever the verdict.
        view.setVerification(check, false, QStringLiteral("waiting"));
        QCOMPARE(view.state(), VerificationView::State::Waiting);
    }

    void passedAndFailed() {
        VerificationView view;
        view.setVerification(smallCheck(), true, QString());
        QCOMPARE(view.state(), VerificationView::State::Passed);
        view.setVerification(smallCheck(Mistake::SliceX), true, QString());
        QCOMPARE(view.state(), VerificationView::State::Failed);
        QVERIFY(view.verdictText().contains("failed"));
    }

    // An output with NaN or infinite elements fails for that reason, in words, on either rule:
    // not "differs by more than rounding can explain" beside "largest error n/a".
    void nonFiniteFailsSayingWhy() {
        const Matrix x{{1.f, 2.f}};
        const Matrix kernel{{3.f, 1.f}, {4.f, std::numeric_limits<float>::infinity()}};
        const RowVector bias{{5.f, 0.f}};
        const Matrix reference{{16.f, std::numeric_limits<float>::infinity()}};
        for (const CheckRule rule : {CheckRule::RoundingBound, CheckRule::Allclose}) {
            const Verification v = verify(reference, reference, x, kernel, bias, {rule, {}});
            VerificationView view;
            view.setVerification(v, true, QString());
            QCOMPARE(view.state(), VerificationView::State::Failed);
            QCOMPARE(view.verdictText(), QStringLiteral("✘ failed: 1 of 2 elements of the output "
                                                        "are NaN or infinite, and such an element "
                                                        "never passes"));
        }
    }

    // A subject set (the MLP block's dx) names that array and its reference in every state's
    // words, and one Linear's "output" nowhere.
    void theSubjectIsNamedInEveryState() {
        const Verification correct = smallCheck();
        VerificationView view;
        QCOMPARE(view.subject().array, QStringLiteral("the output"));
        view.setSubject({.array = "dx",
                         .reference = "the reference's dx",
                         .referenceLong = "the reference's dx (long)",
                         .figures = "dx vs the reference's",
                         .bound = "the bound of dx"});
        const auto words = [&view] {
            return view.verdictText() + view.numbersText() +
                   view.findChild<QLabel*>("verificationNumbers")->toolTip();
        };
        view.setVerification(correct, false, QStringLiteral("waiting"));
        QVERIFY2(view.numbersText().startsWith("Once dx is complete"), qPrintable(words()));
        QVERIFY2(words().contains("the bound of dx"), qPrintable(words()));
        view.setVerification(correct, true, QString());
        QVERIFY2(view.verdictText().contains("dx matches the reference's dx"),
                 qPrintable(view.verdictText()));
        QVERIFY2(view.numbersText().startsWith("dx vs the reference's:"),
                 qPrintable(view.numbersText()));
        QVERIFY2(!words().contains("output", Qt::CaseInsensitive), qPrintable(words()));
        view.setVerification(smallCheck(Mistake::SliceX), true, QString());
        QVERIFY2(view.verdictText().contains("dx differs from the reference's dx"),
                 qPrintable(view.verdictText()));
        QVERIFY2(!words().contains("output", Qt::CaseInsensitive), qPrintable(words()));
        view.setVerification(inconclusiveCheck(), true, QString());
        QVERIFY2(view.verdictText().endsWith("whether dx is the reference's dx"),
                 qPrintable(view.verdictText()));
        QVERIFY2(!words().contains("output", Qt::CaseInsensitive), qPrintable(words()));
    }
};

QTEST_MAIN(TestVerificationView)
#include "tst_verification_view.moc"
