#!/usr/bin/env bash
# Builds the extension sheaf_native (native/postgres) and installs it into the local PostgreSQL
# server, so that `sheaf install` can take the native path there (docs/native.md).
# Needs the server's PGXS and headers (Debian's postgresql-server-dev-<major>, installed with apt-get
# when we are root and use the server's own pg_config), a C compiler and make. Whatever is missing,
# it says why in one line and exits 0: everything then runs on PL/pgSQL and the native tests are
# skipped, each naming the reason. PG_CONFIG picks another installation; nothing is installed for it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'native: %s\n' "$*" >&2; }
skip() {
  say "$* (the native tests are skipped; everything else runs on PL/pgSQL)"
  exit 0
}

if [[ -n ${PG_CONFIG:-} ]]; then
  pg_config=$(command -v "$PG_CONFIG" || echo "$PG_CONFIG")
  package=
else
  major=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
  [[ -n $major ]] || skip "no PostgreSQL server under /usr/lib/postgresql"
  pg_config=/usr/lib/postgresql/$major/bin/pg_config
  package=postgresql-server-dev-$major
fi
[[ -x $pg_config ]] || skip "$pg_config is not an executable pg_config"

# pg_config answers from the client package too: PGXS and postgres.h come only with the server's dev
# package, and a machine may have the first without the second.
missing() {
  local pgxs headers
  pgxs=$("$pg_config" --pgxs 2>/dev/null || true)
  headers=$("$pg_config" --includedir-server 2>/dev/null || true)
  if [[ -z $pgxs || ! -f $pgxs ]]; then
    echo "no PGXS (${pgxs:-not reported by $pg_config})"
  elif [[ -z $headers || ! -f $headers/postgres.h ]]; then
    echo "no server headers (${headers:-not reported by $pg_config}/postgres.h)"
  fi
}

lack=$(missing)
if [[ -n $lack ]]; then
  [[ -n $package ]] || skip "$lack for PG_CONFIG=$pg_config"
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    skip "$lack: $package is not installed and we cannot install it (need root and apt-get)"
  fi
  say "$lack: installing $package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1; } ||
    skip "apt-get could not install $package"
  lack=$(missing)
  [[ -z $lack ]] || skip "$lack even after installing $package"
fi

command -v make >/dev/null || skip "make is not installed"
cc=$("$pg_config" --cc 2>/dev/null || true)
cc=${cc%% *}
command -v "${cc:-cc}" >/dev/null || skip "the C compiler $pg_config names (${cc:-none}) is not installed"

libdir=$("$pg_config" --pkglibdir)
sharedir=$("$pg_config" --sharedir)
[[ -w $libdir && -w $sharedir/extension ]] ||
  skip "cannot write $libdir and $sharedir/extension (run as root or as the owner of the PostgreSQL installation)"

# Everything it needs is here: a build that fails now is sheaf's defect, and fails the run.
# with_llvm=no: no JIT bitcode, so no clang is needed.
# From clean: PGXS does not track headers, so an object built before a header changed would be kept.
make -s -C native/postgres clean PG_CONFIG="$pg_config" >/dev/null
make -s -C native/postgres PG_CONFIG="$pg_config" with_llvm=no PG_CPPFLAGS="-Wall -Werror"
make -s -C native/postgres install PG_CONFIG="$pg_config" with_llvm=no >/dev/null
say "sheaf_native built and installed into $libdir"
