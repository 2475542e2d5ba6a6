#include "python_numpy.h"

#include <QFile>
#include <QStandardPaths>

namespace tp::test {

bool pythonPresent() {
    return !QStandardPaths::findExecutable("python3").isEmpty() ||
           QFile::exists("/usr/bin/python3");
}

QString pythonWithNumpy() {
    static const QString found = [] {
        for (const QString& candidate :
             {QStandardPaths::findExecutable("python3"), QStringLiteral("/usr/bin/python3")}) {
            if (candidate.isEmpty())
                continue;
            const ProcessRun probe =
                runProcess(candidate, {"-c", "import numpy"}, {.timeoutMs = 60000});
            if (probe.finished && probe.exitCode == 0)
                return candidate;
        }
        return QString();
    }();
    return found;
}

ProcessRun runNumpy(const QString& script, const QStringList& args) {
    return runProcess(pythonWithNumpy(), QStringList{"-c", script} + args, {.timeoutMs = 60000});
}

}  // namespace tp::test
