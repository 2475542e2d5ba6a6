// How the passes run their groups' products (layer/group_tasks.h): in turn outside any parallel
// region, or side by side, each once, on the threads of a team.

#include "layer/group_tasks.h"

#include <omp.h>
#include <QTest>

#include <atomic>
#include <vector>

using namespace tp;

class TestGroupTasks : public QObject {
    Q_OBJECT

private slots:
    // Groups the threads do not share run in order on the calling thread, outside any parallel
    // region, even an inactive one (where OpenBLAS's threads ran a product slower); shared, each
    // runs once on a thread of the team.
    void groupTasksRunOutsideARegionUnlessShared() {
        std::vector<Index> order;
        bool outside = true;
        forEachTask(5, false, [&](Index task) {
            order.push_back(task);
            outside = outside && omp_get_level() == 0;
        });
        QCOMPARE(order, (std::vector<Index>{0, 1, 2, 3, 4}));
        QVERIFY(outside);

        std::vector<std::atomic<int>> runs(8);
        std::atomic<bool> inTeam{true};
        forEachTask(8, true, [&](Index task) {
            ++runs[std::size_t(task)];
            if (omp_get_level() != 1)
                inTeam = false;
        });
        for (const std::atomic<int>& r : runs)
            QCOMPARE(r.load(), 1);
        QVERIFY(inTeam);
    }

    // A plan as make() lays it out is in place in both modes, and a run of its groups is one group
    // over their parts side by side; a plan whose groups were swapped, or whose group reads other
    // columns of x than its kernel rows, is not.
    void runsOfGroupsInPlace() {
        const ShardingPlan column = ShardingPlan::make(ParallelMode::Column, 6, 12, 4);
        const ShardingPlan row = ShardingPlan::make(ParallelMode::Row, 12, 6, 4);
        QVERIFY(column.groupsInPlace());
        QVERIFY(row.groupsInPlace());
        const ShardGroup c = column.run(1, 2);
        QVERIFY(c.kernelCols == (IndexRange{3, 9}) && c.outputCols == (IndexRange{3, 9}));
        QVERIFY(c.kernelRows == (IndexRange{0, 6}) && c.inputCols == (IndexRange{0, 6}));
        const ShardGroup r = row.run(2, 2);
        QVERIFY(r.kernelRows == (IndexRange{6, 12}) && r.inputCols == (IndexRange{6, 12}));
        QVERIFY(r.kernelCols == (IndexRange{0, 6}) && r.outputCols == (IndexRange{0, 6}));

        ShardingPlan swapped = column;
        std::swap(swapped.groups[0].kernelCols, swapped.groups[1].kernelCols);
        QVERIFY(!swapped.groupsInPlace());
        ShardingPlan offset = row;
        offset.groups[3].inputCols = {0, 3};
        QVERIFY(!offset.groupsInPlace());

        // Runs only where the groups are in place and tp is a multiple of the threads.
        const Index threads = omp_get_max_threads();
        const ShardingPlan eight = ShardingPlan::make(ParallelMode::Row, 16, 4, 8);
        QCOMPARE(groupRunLength(eight), threads > 1 && 8 % threads == 0 ? 8 / threads : 1);
        QCOMPARE(groupRunLength(swapped), Index(1));
    }
};

QTEST_APPLESS_MAIN(TestGroupTasks)
#include "tst_group_tasks.moc"
