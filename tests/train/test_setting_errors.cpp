// The settings schema says which setting a problem is about
// (dp::SettingError), so front ends point at the field without reading the
// message; the range rule and the data folder rule are decided once, here.
#include <QtTest>

#include <QTemporaryDir>

#include "config/config_fields.h"
#include "config/train_config.h"
#include "config/training_data.h"
#include "core/error.h"

namespace {

dp::TrainConfig small()
{
    dp::TrainConfig config;
    config.model = "linear";
    config.dataset = "random";
    config.devices = {"cpu:0x2"};
    return config;
}

// The setting validate() blames, or "" for an Error about none, "-" for no error.
QString blamed(const dp::TrainConfig& config)
{
    try {
        dp::validate(config);
    } catch (const dp::SettingError& error) {
        return QString::fromStdString(error.setting());
    } catch (const dp::Error&) {
        return QString();
    }
    return QStringLiteral("-");
}

}  // namespace

class TestSettingErrors : public QObject {
    Q_OBJECT

private slots:
    // Issue 41: the all-reduce strategy is an enum with one parser and one
    // printer (config/all_reduce_strategy.h); its words stay those that
    // records, the history, the CLI and the settings file have always held.
    void allReduceStrategyKeepsItsWords()
    {
        const dp::ConfigField& field = dp::config_field("allreduce");
        QCOMPARE(dp::field_kind(field), dp::FieldKind::text);
        dp::TrainConfig config;
        QCOMPARE(dp::field_text(field, config), std::string("ring"));  // the default, as before
        for (const char* word : {"naive", "ring", "dataparallel", "mpi"}) {
            dp::set_field_text(field, config, word);
            QCOMPARE(dp::field_text(field, config), std::string(word));
            QCOMPARE(std::string(dp::all_reduce_strategy_name(dp::parse_all_reduce_strategy(word))),
                     std::string(word));
        }
        QCOMPARE(dp::field_choices(field), (std::vector<std::string>{"naive", "ring", "dataparallel"}));
        // An unknown word is refused where it is read, naming the known ones.
        try {
            dp::set_field_text(field, config, "tree");
            QFAIL("the all-reduce strategy 'tree' was taken");
        } catch (const dp::Error& error) {
            QCOMPARE(std::string(error.what()),
                     std::string("unknown all-reduce strategy 'tree' (known: naive, ring, dataparallel)"));
        }
        // mpi is what records of earlier MPI runs say: read, never run.
        config = small();
        config.allreduce = dp::AllReduceStrategy::mpi;
        QCOMPARE(blamed(config), QStringLiteral("allreduce"));
        QCOMPARE(dp::strategy_as_run(dp::AllReduceStrategy::mpi), dp::AllReduceStrategy::ring);
        QCOMPARE(dp::schedule_strategy(dp::AllReduceStrategy::mpi), dp::AllReduceStrategy::ring);
        QCOMPARE(dp::schedule_strategy(dp::AllReduceStrategy::dataparallel), dp::AllReduceStrategy::naive);
    }

    void eachProblemNamesItsSetting()
    {
        QCOMPARE(blamed(small()), QStringLiteral("-"));
        dp::TrainConfig config = small();
        config.batch_size = 1;  // two devices, one sample
        QCOMPARE(blamed(config), QStringLiteral("batch_size"));
        config = small();
        config.model = "nonesuch";
        QCOMPARE(blamed(config), QStringLiteral("model"));
        config = small();
        config.lr = -1;
        QCOMPARE(blamed(config), QStringLiteral("lr"));
        config = small();
        config.sync_bn = true;
        config.accumulate = 2;
        QCOMPARE(blamed(config), QStringLiteral("sync_bn"));
        config = small();
        config.allreduce = dp::AllReduceStrategy::dataparallel;
        QCOMPARE(blamed(config), QStringLiteral("-"));
        config.accumulate = 2;
        QCOMPARE(blamed(config), QStringLiteral("accumulate"));
        config = small();
        config.devices = {"cpu:0", "cpu:0"};
        QCOMPARE(blamed(config), QStringLiteral("devices"));
        QTemporaryDir folder;
        config = small();
        config.save_path = folder.path().toStdString();  // a folder, not a file
        QCOMPARE(blamed(config), QStringLiteral("save_path"));
        config = small();
        config.samples = 1;
        QCOMPARE(blamed(config), QStringLiteral("samples"));
    }

    void oneSettingsProblemAlone()
    {
        dp::TrainConfig config = small();
        config.bucket_mb = 0;
        const auto problem = dp::setting_problem(dp::config_field("bucket_mb"), config);
        QVERIFY(problem.has_value());
        QCOMPARE(QString::fromStdString(*problem),
                 QStringLiteral("{bucket_mb} must be a positive number (got 0)"));
        QVERIFY(!dp::setting_problem(dp::config_field("lr"), config));
    }

    void rangeBreaksAreDecidedOnce()
    {
        dp::TrainConfig config = small();
        const dp::ConfigField& lr = dp::config_field("lr");
        QCOMPARE(dp::range_break(lr, config), dp::RangeBreak::none);
        config.lr = 0;  // the minimum is excluded
        QCOMPARE(dp::range_break(lr, config), dp::RangeBreak::below_minimum);
        config.lr = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(dp::range_break(lr, config), dp::RangeBreak::not_finite);
        config.limit_train = 0;  // the minimum is included
        QCOMPARE(dp::range_break(dp::config_field("limit_train"), config), dp::RangeBreak::none);
        QCOMPARE(dp::range_break(dp::config_field("model"), config), dp::RangeBreak::none);
    }

    void dataFolderProblemsByKind()
    {
        using Kind = dp::DataFolderProblem::Kind;
        dp::TrainConfig config = small();
        QCOMPARE(dp::data_folder_problem(config).kind, Kind::none);  // random: no folder
        config.dataset = "mnist-format";
        QCOMPARE(dp::data_folder_problem(config).kind, Kind::no_folder);
        QTemporaryDir folder;
        config.data_dir = folder.filePath(QStringLiteral("absent")).toStdString();
        QCOMPARE(dp::data_folder_problem(config).kind, Kind::no_such_folder);
        config.data_dir = folder.path().toStdString();
        QCOMPARE(dp::data_folder_problem(config).kind, Kind::no_files);
        QFile labels(folder.filePath(QStringLiteral("train-labels-idx1-ubyte")));
        QVERIFY(labels.open(QIODevice::WriteOnly));
        labels.close();
        const dp::DataFolderProblem some = dp::data_folder_problem(config);
        QCOMPARE(some.kind, Kind::missing_files);
        QCOMPARE(some.missing.size(), std::size_t(3));
        config.data_dir = labels.fileName().toStdString();
        QCOMPARE(dp::data_folder_problem(config).kind, Kind::not_a_folder);
    }
};

QTEST_GUILESS_MAIN(TestSettingErrors)
#include "test_setting_errors.moc"
