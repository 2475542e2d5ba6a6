// The Groups table: one row per group with its slices and status at each step.

#include "group_table_model.h"
#include "palette.h"

#include <QBrush>
#include <QFont>
#include <QSignalSpy>
#include <QTest>

using namespace tp;

namespace {

QString text(const GroupTableModel& model, int row, int column) {
    return model.data(model.index(row, column)).toString();
}

QStringList rowTexts(const GroupTableModel& model, int row) {
    QStringList texts;
    for (int column = 0; column < model.columnCount(); ++column)
        texts << text(model, row, column);
    return texts;
}

QStringList statuses(const GroupTableModel& model) {
    QStringList texts;
    for (int row = 0; row < model.rowCount(); ++row)
        texts << text(model, row, GroupTableModel::Status);
    return texts;
}

bool bold(const GroupTableModel& model, int row) {
    const QVariant font = model.data(model.index(row, GroupTableModel::Group), Qt::FontRole);
    return font.isValid() && font.value<QFont>().bold();
}

bool greyed(const GroupTableModel& model, int row) {
    return model.data(model.index(row, GroupTableModel::Kernel), Qt::ForegroundRole).isValid();
}

// 2x8x12: column tp 3 (chunks of 4 columns), row tp 4 (chunks of 2 rows).
const LayerConfig kColumn{.batch = 2, .inDim = 8, .features = 12, .tpSize = 3};
const LayerConfig kRow{
    .batch = 2, .inDim = 8, .features = 12, .tpSize = 4, .mode = ParallelMode::Row};

}  // namespace

class TestGroupTableModel : public QObject {
    Q_OBJECT

private slots:
    void emptyUntilConfigured() {
        GroupTableModel model;
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(GroupTableModel::ColumnCount));
    }

    void columnModeRows() {
        GroupTableModel model;
        model.setConfig(kColumn);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(rowTexts(model, 0), (QStringList{"0", "0:4", "0:4", "waiting"}));
        QCOMPARE(rowTexts(model, 2), (QStringList{"2", "8:12", "8:12", "waiting"}));
        QCOMPARE(model.headerData(GroupTableModel::Kernel, Qt::Horizontal).toString(),
                 QString("Kernel & bias"));
        QCOMPARE(model.data(model.index(1, GroupTableModel::Group), Qt::ToolTipRole).toString(),
                 QString("Group 1 reads all of x and kernel columns 4:8, adds bias[4:8] and writes "
                         "output columns 4:8"));
        QCOMPARE(
            model.data(model.index(1, GroupTableModel::Group), Qt::DecorationRole).value<QColor>(),
            groupColor(1));
    }

    void rowModeRows() {
        GroupTableModel model;
        model.setConfig(kRow);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(rowTexts(model, 2), (QStringList{"2", "4:6", "all, summed", "waiting"}));
        QCOMPARE(model.headerData(GroupTableModel::Kernel, Qt::Horizontal).toString(),
                 QString("Kernel rows"));
        QCOMPARE(model.data(model.index(3, GroupTableModel::Kernel), Qt::ToolTipRole).toString(),
                 QString("Group 3 reads x[:, 6:8] and kernel rows 6:8 and adds a partial sum to "
                         "every output column"));
    }

    void columnModeStates() {
        GroupTableModel model;
        model.setConfig(kColumn);
        QCOMPARE(statuses(model), (QStringList{"waiting", "waiting", "waiting"}));
        QVERIFY(greyed(model, 0));

        model.setStep(loopTimeline(model.config()).at(2));  // group 1 computes
        QCOMPARE(statuses(model), (QStringList{"done", "computing", "waiting"}));
        QVERIFY(!bold(model, 0) && bold(model, 1) && !bold(model, 2));
        QVERIFY(!greyed(model, 0) && !greyed(model, 1) && greyed(model, 2));

        model.setStep(loopTimeline(model.config()).at(3));  // the last group completes the output
        QCOMPARE(statuses(model), (QStringList{"done", "done", "done"}));
        QVERIFY(!greyed(model, 2));
    }

    void rowModeStates() {
        GroupTableModel model;
        model.setConfig(kRow);
        model.setStep(loopTimeline(model.config()).at(4));  // group 3 adds its partial sum
        QCOMPARE(statuses(model), (QStringList{"done", "done", "done", "computing"}));
        QVERIFY(bold(model, 3));
        model.setStep(loopTimeline(model.config())
                          .at(5));  // the bias step: every partial sum is in, no group computes
        QCOMPARE(statuses(model), (QStringList{"done", "done", "done", "done"}));
        for (int row = 0; row < 4; ++row)
            QVERIFY(!bold(model, row));
    }

    void stepChangeRepaintsEveryCell() {
        GroupTableModel model;
        model.setConfig(kColumn);
        QSignalSpy spy(&model, &QAbstractItemModel::dataChanged);
        model.setStep(loopTimeline(model.config()).at(1));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toModelIndex(), model.index(0, 0));
        QCOMPARE(spy.at(0).at(1).toModelIndex(), model.index(2, GroupTableModel::ColumnCount - 1));
        model.setStep(loopTimeline(model.config()).at(1));  // the same step: nothing to repaint
        QCOMPARE(spy.count(), 1);
    }

    void newConfigResetsRows() {
        GroupTableModel model;
        model.setConfig(kColumn);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setConfig(LayerConfig{.batch = 5, .inDim = 8, .features = 12, .tpSize = 6});
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(rowTexts(model, 5), (QStringList{"5", "10:12", "10:12", "waiting"}));
    }
};

QTEST_MAIN(TestGroupTableModel)
#include "tst_group_table_model.moc"
