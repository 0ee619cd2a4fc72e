# Sourced by the scripts that show dp-workbench on a screen (screenshots.sh,
# drive-menus.sh) with the script's name: sets repo_root and binary (the
# Release build's dp-workbench, or DP_WORKBENCH), and ends the script with
# one line when it is not built.
script_name="$1"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="${DP_WORKBENCH:-$repo_root/build/release/app/dp-workbench}"
if [[ ! -x "$binary" ]]; then
  echo "$script_name: $binary not found; build with scripts/build" >&2
  exit 1
fi
