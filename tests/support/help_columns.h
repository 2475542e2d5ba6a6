#pragma once

// The columns where a --help text's option lines ("  --name VALUE  words") start their words.

#include <QRegularExpression>
#include <QSet>
#include <QString>

namespace tp::test {

struct HelpColumns {
    int options = 0;          ///< the option lines
    QSet<qsizetype> columns;  ///< where their words start; one column when they are aligned
};

inline HelpColumns helpColumns(const QString& help) {
    static const QRegularExpression option("^  (--\\S+( \\S+)?) +\\S");
    HelpColumns found;
    for (const QString& line : help.split('\n'))
        if (const QRegularExpressionMatch match = option.match(line); match.hasMatch()) {
            found.columns.insert(match.capturedEnd() - 1);
            ++found.options;
        }
    return found;
}

}  // namespace tp::test
