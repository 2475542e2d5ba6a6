// The parameter panel: valid edits are announced, refused ones say why next to their input.

#include "parameter_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QWheelEvent>

using namespace tp;

namespace {

// A panel in a scroll area shorter than it, as the window's dock holds it, shown.
ParameterPanel* shownIn(QScrollArea& scroll) {
    auto* panel = new ParameterPanel;
    scroll.setWidget(panel);
    scroll.setWidgetResizable(true);
    scroll.resize(320, 240);
    scroll.show();
    return panel;
}

}  // namespace

class TestParameterPanel : public QObject {
    Q_OBJECT

private slots:
    void tpOffersTheDivisorsOfTheSplitDimension() {
        ParameterPanel panel;
        auto* tp = panel.findChild<QComboBox*>("tpBox");
        QStringList items;
        for (int i = 0; i < tp->count(); ++i)
            items << tp->itemText(i);
        QCOMPARE(items, QStringList({"1", "2", "3", "4", "6", "12"}));
        // Row mode splits in_dim (8).
        panel.findChild<QComboBox*>("modeBox")->setCurrentIndex(1);
        items.clear();
        for (int i = 0; i < tp->count(); ++i)
            items << tp->itemText(i);
        QCOMPARE(items, QStringList({"1", "2", "4", "8"}));
    }

    void refusedValueSaysWhyNextToItsInput_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("needle");
        QTest::newRow("tp 5 of 12")
            << "tpBox"
            << "5" << int(ConfigField::TpSize) << "not divisible by tp_size (5)";
        QTest::newRow("tp not a number")
            << "tpBox"
            << "abc" << int(ConfigField::TpSize) << "not a whole number";
        QTest::newRow("seed not int64")
            << "seedEdit"
            << "99999999999999999999" << int(ConfigField::Seed) << "int64";
        QTest::newRow("seed text") << "seedEdit"
                                   << "1.5" << int(ConfigField::Seed) << "not a whole number";
    }
    void refusedValueSaysWhyNextToItsInput() {
        QFETCH(QString, input);
        QFETCH(QString, text);
        QFETCH(int, field);
        QFETCH(QString, needle);
        ParameterPanel panel;
        panel.show();
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        QSignalSpy refused(&panel, &ParameterPanel::configRefused);
        if (auto* combo = panel.findChild<QComboBox*>(input))
            combo->setEditText(text);
        else
            panel.findChild<QLineEdit*>(input)->setText(text);
        QCOMPARE(edited.count(), 0);
        QVERIFY(refused.count() >= 1);
        const QString message = panel.problemText(ConfigField(field));
        QVERIFY2(message.contains(needle), qPrintable(message));
        // The message is on screen, in the label right under the input.
        auto* label = panel.findChild<QLabel*>(QStringLiteral("problem%1").arg(field));
        QVERIFY(label->isVisible());
        QCOMPARE(label->text(), message);
    }

    void fixingTheInputClearsTheMessage() {
        ParameterPanel panel;
        panel.show();
        auto* tp = panel.findChild<QComboBox*>("tpBox");
        tp->setEditText("5");
        QVERIFY(!panel.problems().empty());
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        tp->setEditText("4");
        QVERIFY(panel.problems().empty());
        QCOMPARE(edited.count(), 1);
        QCOMPARE(panel.config().tpSize, 4);
        QVERIFY(
            !panel.findChild<QLabel*>(QStringLiteral("problem%1").arg(int(ConfigField::TpSize)))
                 ->isVisible());
    }

    // What the mesh inputs do to the layout is said under the Layout choice in the Device mesh
    // box.
    void layoutProblemShowsInTheMeshBox() {
        ParameterPanel panel;
        panel.show();
        LayerConfig c;
        c.batch = 4;
        c.tpSize = 2;
        c.layout = ShardingLayout::Sequence;
        QVERIFY(c.validate().empty());
        panel.setConfig(c, SceneSource::Nnx);
        panel.findChild<QSpinBox*>("dataBox")->setValue(4);
        const QString message = panel.problemText(ConfigField::Layout);
        QVERIFY2(message.contains("the sequence layout splits each data row's batch rows"),
                 qPrintable(message));
        auto* label =
            panel.findChild<QLabel*>(QStringLiteral("problem%1").arg(int(ConfigField::Layout)));
        QVERIFY(label && label->isVisible());
        QCOMPARE(label->text(), message);
    }

    void changingFeaturesCanInvalidateTp() {
        ParameterPanel panel;
        panel.show();
        panel.findChild<QSpinBox*>("featuresBox")->setValue(10);  // tp stays 3
        QVERIFY(panel.problemText(ConfigField::TpSize).contains("features (10)"));
    }

    void seedTakesTheWholeInt64Range() {
        ParameterPanel panel;
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        panel.findChild<QLineEdit*>("seedEdit")->setText("-9223372036854775808");
        QCOMPARE(edited.count(), 1);
        QCOMPARE(panel.config().seed, std::numeric_limits<std::int64_t>::min());
    }

    // A size the core takes is shown and used as it is: no box clamps it into another scene.
    void aLargeSizeIsKeptAsGiven() {
        ParameterPanel panel;
        LayerConfig config;
        config.batch = 1;
        config.inDim = 268435454;
        config.features = 1;
        config.tpSize = 1;
        QVERIFY(config.validate().empty());
        panel.setConfig(config, SceneSource::Nnx);
        QCOMPARE(panel.config().inDim, std::int64_t(268435454));
        QCOMPARE(panel.findChild<QSpinBox*>("inDimBox")->value(), 268435454);
    }

    void briefExampleFixesTheSizes() {
        ParameterPanel panel;
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        panel.findChild<QComboBox*>("sourceBox")->setCurrentIndex(1);
        QVERIFY(edited.count() >= 1);
        QVERIFY(panel.source() == SceneSource::Brief);
        QCOMPARE(panel.config().features, 4);
        QCOMPARE(panel.config().tpSize, 2);
        QVERIFY(!panel.findChild<QSpinBox*>("featuresBox")->isEnabled());
        QVERIFY(panel.findChild<QComboBox*>("sourceBox")
                    ->currentText()
                    .contains("the worked example (2x4, tp 2)"));
    }

    void workedExampleAndBackKeepsTheSeededSettings() {
        ParameterPanel panel;
        LayerConfig config{.batch = 5, .inDim = 16, .features = 24, .tpSize = 4};
        config.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
        panel.setConfig(config, SceneSource::Nnx);
        auto* source = panel.findChild<QComboBox*>("sourceBox");
        source->setCurrentIndex(1);
        QCOMPARE(panel.config().features, 4);
        source->setCurrentIndex(0);
        QVERIFY(panel.source() == SceneSource::Nnx);
        QCOMPARE(panel.config().batch, 5);
        QCOMPARE(panel.config().inDim, 16);
        QCOMPARE(panel.config().features, 24);
        QCOMPARE(panel.config().tpSize, 4);
        QVERIFY(panel.config().bias.kind == BiasInit::Kind::Normal);
        QCOMPARE(panel.config().bias.stddev, 0.5f);
    }

    void modeSwitchKeepsAValidSceneAndSaysSo() {
        ParameterPanel panel;  // the default 8 x 12, tp 3, column mode
        QCOMPARE(panel.config().tpSize, 3);
        QSignalSpy refused(&panel, &ParameterPanel::configRefused);
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        panel.findChild<QComboBox*>("modeBox")->setCurrentIndex(1);  // row: split in_dim 8
        QCOMPARE(refused.count(), 0);
        QVERIFY(edited.count() >= 1);
        QVERIFY(panel.problems().empty());
        QCOMPARE(panel.config().tpSize, 2);  // 2 and 4 are as near as each other: the smaller
        QVERIFY2(panel.tpNoteText().contains("nearest divisor"), qPrintable(panel.tpNoteText()));
        // Back to column mode: 2 divides 12, nothing to say.
        panel.findChild<QComboBox*>("modeBox")->setCurrentIndex(0);
        QCOMPARE(panel.config().tpSize, 2);
        QVERIFY(panel.tpNoteText().isEmpty());
    }

    void zeroSizesSayWhy() {
        ParameterPanel panel;
        panel.findChild<QSpinBox*>("batchBox")->setValue(0);
        QVERIFY(!panel.problemText(ConfigField::Batch).isEmpty());
        QCOMPARE(panel.findChild<QSpinBox*>("batchBox")->value(), 0);  // not silently reverted
        panel.findChild<QSpinBox*>("featuresBox")->setValue(0);
        QVERIFY(!panel.problemText(ConfigField::Features).isEmpty());
    }

    // A refusal under an input at the bottom of the panel (the seed, the bias stddev) is out of
    // sight in a short window until the panel scrolls to it.
    void refusalScrollsIntoView_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<int>("field");
        QTest::newRow("seed") << "seedEdit" << int(ConfigField::Seed);
        QTest::newRow("bias stddev") << "biasStddevEdit" << int(ConfigField::Bias);
    }
    void refusalScrollsIntoView() {
        QFETCH(QString, input);
        QFETCH(int, field);
        QScrollArea scroll;
        ParameterPanel* panel = shownIn(scroll);
        QVERIFY(QTest::qWaitForWindowExposed(&scroll));
        panel->findChild<QComboBox*>("biasBox")->setCurrentIndex(1);
        auto* edit = panel->findChild<QLineEdit*>(input);
        const auto inView = [&](const QWidget* widget) {
            const QRect rect(widget->mapTo(scroll.viewport(), QPoint(0, 0)), widget->size());
            return scroll.viewport()->rect().contains(rect);
        };
        QVERIFY(!inView(edit));  // the panel is taller than the window: the input is below
        edit->setText(QStringLiteral("abc"));
        auto* refusal = panel->findChild<QLabel*>(QStringLiteral("problem%1").arg(field));
        QVERIFY(!refusal->text().isEmpty());
        QTRY_VERIFY(inView(refusal));
    }

    // A wheel turned over a spin box the user has not focused leaves the value and is left
    // unaccepted, so that Qt offers it to the panel's scroll area (scrolling the panel set Data D
    // to 0); once focused, the box takes the wheel.
    void theWheelPassesOverAnUnfocusedInput() {
        QScrollArea scroll;
        ParameterPanel* panel = shownIn(scroll);
        QVERIFY(QTest::qWaitForWindowActive(&scroll));
        auto* data = panel->findChild<QSpinBox*>("dataBox");
        const int value = data->value();
        const auto turn = [data](int degrees) {
            QWheelEvent wheel(QPointF(4, 4), data->mapToGlobal(QPointF(4, 4)), QPoint(),
                              QPoint(0, degrees * 8), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(data, &wheel);
            return wheel.isAccepted();
        };
        QVERIFY(!turn(15));
        QCOMPARE(data->value(), value);
        QCOMPARE(data->focusPolicy(), Qt::StrongFocus);
        data->setFocus();
        QTRY_VERIFY(data->hasFocus());
        QVERIFY(turn(15));
        QCOMPARE(data->value(), value + 1);
    }

    void nearestDivisorPrefersTheSmallerOnATie() {
        QCOMPARE(nearestDivisor(8, 3), std::int64_t(2));
        QCOMPARE(nearestDivisor(12, 5), std::int64_t(4));
        QCOMPARE(nearestDivisor(7, 3), std::int64_t(1));
        QCOMPARE(nearestDivisor(16, 100), std::int64_t(16));
    }
};

QTEST_MAIN(TestParameterPanel)
#include "tst_parameter_panel.moc"
