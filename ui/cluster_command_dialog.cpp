#include "cluster_command_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "cluster_command.h"

ClusterCommandDialog::ClusterCommandDialog(const dp::TrainConfig& config, QWidget* parent)
    : QDialog(parent),
      config_(config),
      processesSpin_(new QSpinBox(this)),
      hostfileEdit_(new QLineEdit(QStringLiteral("hosts"), this)),
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
    commandView_->setObjectName(QStringLiteral("commandView"));
    commandView_->setReadOnly(true);
    commandView_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    commandView_->setMinimumSize(560, 90);

    auto* explanation = new QLabel(
        tr("Runs these settings with one process per device under Open MPI. Every node needs "
           "dp-train and the data at the same paths. Rank 0 writes run.json: import it with "
           "File ▸ Import run record… to compare the cluster run with local ones."),
        this);
    explanation->setWordWrap(true);

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
    layout->addLayout(form);
    layout->addWidget(commandView_, 1);
    layout->addWidget(buttons);

    connect(processesSpin_, &QSpinBox::valueChanged, this, &ClusterCommandDialog::updateCommand);
    connect(hostfileEdit_, &QLineEdit::textChanged, this, &ClusterCommandDialog::updateCommand);
    updateCommand();
}

QString ClusterCommandDialog::command() const
{
    return commandView_->toPlainText();
}

void ClusterCommandDialog::updateCommand()
{
    commandView_->setPlainText(
        mpirunCommand(config_, processesSpin_->value(), hostfileEdit_->text().trimmed()));
}
