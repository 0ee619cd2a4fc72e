#!/bin/bash
# The adversarial pass (issue 43): hostile locales, encodings, image sizes, histories, disks,
# signals and MPI ranks, command lines and files against build/release/app/{dp-train,dp-workbench}.
# Not part of CI or scripts/test: it takes ~15 minutes on 2 cores.
#
#   bash tests/adversarial/run.sh              # every case; a table of counts, then the failures
#   bash tests/adversarial/run.sh --only disks # the cases whose category or name holds "disks"
#   bash tests/adversarial/run.sh --list       # the cases, without running them
#
# As root it enters a mount namespace of its own (unshare -m) so that the disk cases can mount
# small and read-only tmpfs folders; otherwise those cases are left out. Exit status 1 when a
# case fails (those in other branches' scope are labelled "known").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $(id -u) == 0 && ${DP_ADVERSARIAL_NS:-} != 1 ]] && command -v unshare >/dev/null; then
    export DP_ADVERSARIAL_NS=1
    # A private mount namespace: the tmpfs mounts vanish with it, whatever happens.
    exec unshare -m --propagation private /bin/bash "$here/run.sh" "$@"
fi
exec /usr/bin/python3 "$here/cases.py" "$@"
