#include "workbench_resources.h"

// Q_INIT_RESOURCE declares the generated qInitResources_workbench(), so it
// must run outside any namespace.
static void initWorkbenchResources()
{
    Q_INIT_RESOURCE(workbench);
}

void registerWorkbenchResources()
{
    static const bool registered = (initWorkbenchResources(), true);
    (void)registered;
}

QIcon workbenchIcon()
{
    registerWorkbenchResources();
    return QIcon(QStringLiteral(":/icons/dp-workbench.svg"));
}
