// runs.csv as a spreadsheet opens it (issue 31): UTF-8 marked as such, and
// only the columns that apply to the runs it lists; a repeated comparison's
// median and range, and the user's baseline, as the runs table has them
// (issue 30).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <string>

#include "run_export.h"
#include "record/run_record.h"

namespace {

const QByteArray kByteOrderMark("\xEF\xBB\xBF");

dp::RunRecord finishedRun(const std::string& id, const std::string& dataset, int devices)
{
    dp::RunRecord run;
    run.id = id;
    run.started_at = "2026-01-01T00:00:00Z";
    run.status = dp::RunStatus::finished;
    run.config.dataset = dataset;
    for (int i = 0; i < devices; ++i)
        run.config.devices.push_back("cpu:" + std::to_string(i));
    run.epochs.push_back({1, 0.5, 0.8, 0.82, 4.0});
    return run;
}

// The header's column names, after the byte-order mark.
QStringList headerOf(const QByteArray& csv)
{
    const QByteArray firstLine = csv.mid(kByteOrderMark.size()).split('\r').value(0);
    return QString::fromUtf8(firstLine).split(QLatin1Char(','));
}

}  // namespace

class TestRunExport : public QObject {
    Q_OBJECT

private slots:
    void csvStartsWithTheUtf8ByteOrderMark()
    {
        const QByteArray runs = runsToCsv({finishedRun("a", "fashion-mnist", 1)});
        QVERIFY(runs.startsWith(kByteOrderMark));
        QVERIFY(runs.mid(kByteOrderMark.size()).startsWith("id,label,"));
        // Once: a label's "×" is UTF-8 after it.
        QCOMPARE(runs.count(kByteOrderMark), 1);
        QVERIFY(runs.contains("1\xC3\x97 cpu"));
        QVERIFY(epochsToCsv({finishedRun("a", "fashion-mnist", 1)}).startsWith(kByteOrderMark + "run_id,"));
        QVERIFY(runsToCsv({}).startsWith(kByteOrderMark + "id,label,"));
    }

    // Issue 44: a run named "=HYPERLINK(...)" went into runs.csv as it is,
    // a formula a spreadsheet runs on opening. Text cells that start like a
    // formula get OWASP's leading quote; numbers stay numbers.
    void formulaLikeNamesAreWrittenAsText()
    {
        const QStringList names{QStringLiteral("=HYPERLINK(\"http://x\")"), QStringLiteral("+1 device"),
                                QStringLiteral("-lr test"), QStringLiteral("@SUM(A1)"),
                                QStringLiteral("\tindented"), QStringLiteral("plain = fine")};
        std::vector<dp::RunRecord> runs;
        for (const QString& name : names) {
            dp::RunRecord run = finishedRun("=id" + std::to_string(runs.size()), "fashion-mnist", 1);
            run.name = name.toStdString();
            run.epochs[0].train_loss = 0.125;
            runs.push_back(run);
        }
        for (const QByteArray& csv : {runsToCsv(runs), epochsToCsv(runs)}) {
            const QList<QByteArray> lines = csv.mid(kByteOrderMark.size()).split('\n');
            for (qsizetype i = 0; i < names.size(); ++i) {
                const QStringList cells = QString::fromUtf8(lines[i + 1]).trimmed().split(QLatin1Char(','));
                const QString name = names[i];
                const QString expected = name.startsWith(QLatin1String("plain")) ? name : "'" + name;
                QVERIFY2(cells.value(0) == "'=id" + QString::number(i), qPrintable(cells.join('|')));
                // The quoted name (one with a quote mark is written in double quotes).
                const QString label = cells.value(1).startsWith('"')
                        ? cells.value(1).mid(1, cells.value(1).size() - 2).replace(QStringLiteral("\"\""), QStringLiteral("\""))
                        : cells.value(1);
                QCOMPARE(label, expected);
            }
        }
        // The epochs' numbers as numbers: the loss, not '0.125.
        const QString epochLine = QString::fromUtf8(epochsToCsv(runs).split('\n').value(1));
        QVERIFY2(epochLine.contains(QStringLiteral(",1,0.125,0.8,")), qPrintable(epochLine));
    }

    void fashionMnistRunsHaveNoSyntheticDataColumns()
    {
        const QStringList header = headerOf(
                runsToCsv({finishedRun("a", "fashion-mnist", 1), finishedRun("b", "fashion-mnist", 2)}));
        QVERIFY2(header.contains(QStringLiteral("dataset")), qPrintable(header.join(',')));
        QVERIFY(!header.contains(QStringLiteral("input_size")));
        QVERIFY(!header.contains(QStringLiteral("samples")));
        // Empty for every run: no checkpoints, records or traces, no baseline's speedup... 
        for (const char* empty : {"load_path", "save_path", "record_path", "trace_path", "data_dir"})
            QVERIFY2(!header.contains(QLatin1String(empty)), empty);
        // ... but the 2-device run has one.
        QVERIFY(header.contains(QStringLiteral("speedup")));
        QVERIFY(header.contains(QStringLiteral("batch_size")));
    }

    void randomDataRunsKeepTheirSizes()
    {
        dp::RunRecord random = finishedRun("r", "random", 1);
        random.config.samples = 1000;
        const QByteArray csv = runsToCsv({finishedRun("a", "fashion-mnist", 1), random});
        const QStringList header = headerOf(csv);
        const qsizetype samples = header.indexOf(QStringLiteral("samples"));
        QVERIFY(samples >= 0 && header.contains(QStringLiteral("input_size")));
        const QList<QByteArray> lines = csv.split('\n');
        // The Fashion-MNIST run's cell is empty, the random run's its size.
        QCOMPARE(QString::fromUtf8(lines[1].trimmed()).split(',').value(samples), QString());
        QCOMPARE(QString::fromUtf8(lines[2].trimmed()).split(',').value(samples), QStringLiteral("1000"));
    }

    // 1 vs 2 devices, twice (1, 2, 1, 2 in one group): 2x, then 2.5x.
    void repeatedComparisonExportsItsMedianAndRange()
    {
        std::vector<dp::RunRecord> runs;
        for (const double seconds : {2.0, 1.6}) {
            runs.push_back(finishedRun("one-" + std::to_string(runs.size()), "fashion-mnist", 1));
            runs.push_back(finishedRun("two-" + std::to_string(runs.size()), "fashion-mnist", 2));
            runs.back().epochs.back().seconds = seconds;
        }
        for (dp::RunRecord& run : runs)
            run.comparison_group = "compare-1";
        const QJsonArray rows = QJsonDocument::fromJson(runsToJson(runs)).array();
        const QJsonObject second = rows[3].toObject();
        QCOMPARE(second[QStringLiteral("baseline_id")].toString(), QStringLiteral("one-2"));
        QCOMPARE(second[QStringLiteral("speedup")].toDouble(), 2.5);
        QCOMPARE(second[QStringLiteral("repeats")].toInt(), 2);
        QCOMPARE(second[QStringLiteral("speedup_median")].toDouble(), 2.25);
        QCOMPARE(second[QStringLiteral("speedup_min")].toDouble(), 2.0);
        QCOMPARE(second[QStringLiteral("speedup_max")].toDouble(), 2.5);
        QCOMPARE(second[QStringLiteral("scaling")].toString(), QStringLiteral("strong"));
        QVERIFY(rows[0].toObject()[QStringLiteral("repeats")].isNull());  // a baseline
        QVERIFY(headerOf(runsToCsv(runs)).contains(QStringLiteral("speedup_median")));

        // The user's pick of baseline is the export's too.
        const QJsonArray chosen = QJsonDocument::fromJson(runsToJson(runs, 0.8, "one-0")).array();
        QCOMPARE(chosen[3].toObject()[QStringLiteral("baseline_id")].toString(), QStringLiteral("one-0"));
    }
};

QTEST_GUILESS_MAIN(TestRunExport)
#include "test_run_export.moc"
