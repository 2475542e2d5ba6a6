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
};

QTEST_APPLESS_MAIN(TestGroupTasks)
#include "tst_group_tasks.moc"
