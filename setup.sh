#!/usr/bin/env bash
# One command for a new user: installs what Talking Cards needs, then runs it.
#   bash setup.sh play [options]   set up, then start a game (talking-cards play ...)
#   bash setup.sh test [pytest options]   set up (with test extras), then run the test suite
#   bash setup.sh bench            set up, then run the benchmarks
#   bash setup.sh                  set up only
# Safe to run again: installed pieces are skipped.
set -euo pipefail
cd "$(dirname "$0")"

what=${1:-setup}
[ $# -gt 0 ] && shift

apt_packages=(python3 python3-venv python3-pip espeak-ng libespeak-ng1 libportaudio2 alsa-utils)
# The tests also need a PulseAudio daemon: their virtual sound card (paplay, parec, ALSA routing).
if [ "$what" = test ] || [ "$what" = bench ]; then
  apt_packages+=(pulseaudio pulseaudio-utils libasound2-plugins)
fi

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing system packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "Creating the Python environment in .venv"
  python3 -m venv .venv
fi
extras=""
if [ "$what" = test ] || [ "$what" = bench ]; then extras="[test]"; fi
stamp=".venv/.installed$extras"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "Installing Talking Cards and its Python packages"
  # The build tools are chatty: keep their output in a log, show it only if something fails.
  if ! { .venv/bin/python -m pip install -q --upgrade pip &&
         .venv/bin/python -m pip install -q -e ".$extras"; } > .venv/install.log 2>&1; then
    cat .venv/install.log
    echo "Installing the Python packages failed (log above)." >&2
    exit 1
  fi
  touch "$stamp"
fi

case "$what" in
  play)  exec .venv/bin/talking-cards play "$@" ;;
  # Two workers (pytest-xdist): the suite is mostly decoding speech, so two cores take it in
  # about half the time; more would not fit a 4 GB Raspberry Pi (the whole suite in one
  # process grew to 0.9 GB).
  test)  exec .venv/bin/python -m pytest -q -n "${TEST_WORKERS:-2}" "$@" ;;
  bench) for b in bench/*.py; do echo "== $b"; .venv/bin/python "$b"; done ;;
  setup) echo "Ready. Start a game with: .venv/bin/talking-cards play" ;;
  *) echo "usage: bash setup.sh [play|test|bench] [options]" >&2; exit 2 ;;
esac
