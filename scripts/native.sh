#!/usr/bin/env bash
# Builds the extension sheaf_native (native/postgres) and installs it into the local PostgreSQL
# server, so that `sheaf install` can take the native path there (docs/native.md). Needs the
# server's PGXS: Debian's postgresql-server-dev-<major>, installed with apt-get when we are root.
# Without it (or without the right to install), says why and exits 0: everything runs on PL/pgSQL
# and the native tests are skipped, each naming this reason.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'native: %s\n' "$*" >&2; }

major=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
if [[ -z $major ]]; then
  say "no PostgreSQL server under /usr/lib/postgresql: skipped"
  exit 0
fi
pg_config=/usr/lib/postgresql/$major/bin/pg_config
[[ -x $pg_config ]] || pg_config=$(command -v pg_config || true)
pgxs=$([[ -n $pg_config ]] && "$pg_config" --pgxs 2>/dev/null || true)
if [[ -z $pgxs || ! -f $pgxs ]]; then
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
    say "PGXS for PostgreSQL $major is missing (postgresql-server-dev-$major) and we cannot install it: skipped"
    exit 0
  fi
  say "installing postgresql-server-dev-$major"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "postgresql-server-dev-$major" >/dev/null ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "postgresql-server-dev-$major" >/dev/null; }
  pg_config=/usr/lib/postgresql/$major/bin/pg_config
fi
libdir=$("$pg_config" --pkglibdir)
if [[ ! -w $libdir ]]; then
  say "cannot write $libdir (run as root or as the owner of the PostgreSQL installation): skipped"
  exit 0
fi
# with_llvm=no: no JIT bitcode, so no clang is needed.
make -s -C native/postgres PG_CONFIG="$pg_config" with_llvm=no
make -s -C native/postgres install PG_CONFIG="$pg_config" with_llvm=no >/dev/null
say "sheaf_native built and installed for PostgreSQL $major"
