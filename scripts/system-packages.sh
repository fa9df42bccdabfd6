#!/usr/bin/env bash
# Checks that the system packages the test suite needs (scripts/system-packages.txt) are present. When some
# are missing: as root on a machine with apt-get, installs them (after `apt-get update`) and says so;
# otherwise stops at once (exit 1) printing the one command that installs them.
# Run by `npm test` (pretest) and by `.ci/run`. `--check` never installs (reports and exits 1 instead).
# SLUICE_SYSTEM_PACKAGES may name another list file (the script's own test uses it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=${SLUICE_SYSTEM_PACKAGES:-$here/system-packages.txt}
check_only=false
[ "${1:-}" = '--check' ] && check_only=true

# True when one of the `|`-separated probes finds the program: a command on PATH, or an existing path (glob).
present() {
  local probe path
  IFS='|' read -r -a probes <<<"$1"
  for probe in "${probes[@]}"; do
    if [[ $probe == /* ]]; then
      for path in $probe; do [ -e "$path" ] && return 0; done
    elif command -v "$probe" >/dev/null 2>&1; then
      return 0
    fi
  done
  return 1
}

missing=()
while read -r pkg probe _; do
  [[ -z $pkg || $pkg == \#* ]] && continue
  [ -n "$probe" ] || { echo "system-packages: $list: no probe for $pkg" >&2; exit 2; }
  present "$probe" || missing+=("$pkg")
done <"$list"

if [ "${#missing[@]}" -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi

command="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if ! $check_only && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system packages: installing ${missing[*]} (apt-get, as root)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "system packages: installed ${missing[*]}"
  exit 0
fi

{
  echo "system packages missing: ${missing[*]} (the test suite needs them; see scripts/system-packages.txt)"
  if command -v apt-get >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] && echo "install them with:" || echo "install them with (as root):"
    [ "$(id -u)" -eq 0 ] && echo "  $command" || echo "  sudo sh -c '$command'"
  else
    echo "no apt-get here: install the equivalents of these Debian packages with your system's package manager"
  fi
} >&2
exit 1
