# Sourced by tests/e2e/pi.sh and benches/pi-long.sh: the pi the project pins (npm
# @mariozechner/pi-coding-agent), installed on first use into CTX_PI_HOME (default ~/.cache/ctx-pi),
# and again when the one there is another version. Sets PI_VERSION and pi_bin.
PI_VERSION=0.73.1
pi_home=${CTX_PI_HOME:-$HOME/.cache/ctx-pi}
pi_bin=$pi_home/node_modules/.bin/pi
if [[ ! -x $pi_bin ]] || [[ $("$pi_bin" --version 2>/dev/null) != "$PI_VERSION" ]]; then
  mkdir -p "$pi_home"
  (cd "$pi_home" && npm install --no-audit --no-fund --silent "@mariozechner/pi-coding-agent@$PI_VERSION" >&2)
fi
