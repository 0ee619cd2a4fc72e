#include "cluster_command_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include "cluster_command.h"

namespace {

// A terminal's width, less room for its prompt's first characters.
constexpr int kCommandColumns = 78;

}  // namespace

ClusterCommandDialog::ClusterCommandDialog(const dp::TrainConfig& config, QWidget* parent)
    : QDialog(parent),
      config_(config),
      processesSpin_(new QSpinBox(this)),
      hostfileEdit_(new QLineEdit(QStringLiteral("hosts"), this)),
      programNote_(new QLabel(this)),
      commandView_(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Cluster command"));
    setObjectName(QStringLiteral("clusterCommandDialog"));
    processesSpin_->setObjectName(QStringLiteral("processesSpin"));
    processesSpin_->setRange(1, 4096);
    processesSpin_->setValue(std::max<int>(1, int(config.devices.size())));
    processesSpin_->setToolTip(tr("MPI ranks: one per device (a GPU, or a CPU core's worth of threads)."));
    hostfileEdit_->setObjectName(QStringLiteral("hostfileEdit"));
    hostfileEdit_->setPlaceholderText(tr("none: this machine only"));
    hostfileEdit_->setToolTip(tr("Open MPI's host file: one line per node, \"node1 slots=2\"."));
    programNote_->setObjectName(QStringLiteral("dpTrainNote"));
    programNote_->setWordWrap(true);
    programNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    commandView_->setObjectName(QStringLiteral("commandView"));
    commandView_->setReadOnly(true);
    // The command carries its own line breaks; the view's wrapping would
    // break at hyphens, inside option names.
    commandView_->setLineWrapMode(QPlainTextEdit::NoWrap);
    commandView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const QFontMetrics metrics(commandView_->font());
    commandView_->setMinimumSize(
        metrics.horizontalAdvance(QString(kCommandColumns + 2, QLatin1Char('m')))
            + commandView_->verticalScrollBar()->sizeHint().width(),
        8 * metrics.lineSpacing());

    auto* explanation = new QLabel(
        tr("Runs these settings with one process per device under Open MPI. Every node needs "
           "dp-train and the data at the same paths. Rank 0 writes run.json: import it with "
           "File ▸ Import run record… to compare the cluster run with local ones."),
        this);
    explanation->setWordWrap(true);

    // What the command changes of these settings, if anything.
    const QStringList changes = clusterChanges(config);
    auto* changesNote = new QLabel(changes.join(QLatin1Char(' ')), this);
    changesNote->setObjectName(QStringLiteral("clusterChangesNote"));
    changesNote->setWordWrap(true);
    changesNote->setVisible(!changes.isEmpty());

    auto* form = new QFormLayout;
    form->addRow(tr("Processes"), processesSpin_);
    form->addRow(tr("Host file"), hostfileEdit_);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copyButton = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
    copyButton->setObjectName(QStringLiteral("copyButton"));
    connect(copyButton, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(command()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addWidget(changesNote);
    layout->addLayout(form);
    layout->addWidget(programNote_);
    layout->addWidget(commandView_, 1);
    layout->addWidget(buttons);

    connect(processesSpin_, &QSpinBox::valueChanged, this, &ClusterCommandDialog::updateCommand);
    connect(hostfileEdit_, &QLineEdit::textChanged, this, &ClusterCommandDialog::updateCommand);
    lookForDpTrainIn(QCoreApplication::applicationDirPath());
}

QString ClusterCommandDialog::command() const
{
    return commandView_->toPlainText();
}

void ClusterCommandDialog::lookForDpTrainIn(const QString& folder)
{
    dpTrain_ = dpTrainIn(folder);
    if (dpTrain_.isEmpty()) {
        dpTrain_ = QStringLiteral("dp-train");
        programNote_->setText(
            tr("No dp-train beside this program (in %1), so the command runs the dp-train on "
               "each node's PATH. Build it beside dp-workbench (cmake --build --preset release "
               "--target dp-train), or replace dp-train with its full path.")
                .arg(QDir::toNativeSeparators(folder)));
    } else {
        programNote_->setText(tr("dp-train: %1, the one beside this dp-workbench.")
                                  .arg(QDir::toNativeSeparators(dpTrain_)));
    }
    updateCommand();
}

void ClusterCommandDialog::updateCommand()
{
    commandView_->setPlainText(shellCommand(
        mpirunWords(config_, processesSpin_->value(), hostfileEdit_->text().trimmed(), dpTrain_),
        kCommandColumns));
}
