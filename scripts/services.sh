#!/usr/bin/env bash
# Makes the test servers reachable: PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and
# MariaDB on 127.0.0.1:3306 (user root, empty password).
# A running server is left alone; an installed but stopped one is started; a missing one is
# installed with apt-get when we are root on Debian. Anything else ends with instructions.
# The local PostgreSQL also gets the extension sheaf_native (scripts/native.sh), where it can be built,
# and pglogical for the replication tests' scratch clusters, where apt-get can install it; MariaDB
# gets galera-4 for the scratch Galera cluster's tests, likewise.
# Servers named by SHEAF_PG_URL / SHEAF_MYSQL_URL, or deselected by SHEAF_TEST_TARGETS, are skipped.
set -euo pipefail

targets=${SHEAF_TEST_TARGETS:-postgres,mariadb,pglite}
wants() { [[ ",$targets," == *",$1,"* ]]; }

say() { printf 'services: %s\n' "$*" >&2; }
die() {
  say "$*"
  say "start the servers yourself, or run only the embedded target: SHEAF_TEST_TARGETS=pglite npm test"
  exit 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 60); do
    port_open "$1" && return 0
    sleep 0.5
  done
  return 1
}

can_install() { [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; }

apt_updated=
apt_install() {
  can_install || die "$1 is not installed and we cannot install it (need root and apt-get)"
  if [[ -z $apt_updated ]]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  say "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

pg_trust_loopback() {
  # A fresh Debian cluster asks for passwords over TCP; the tests connect as postgres without one.
  local hba
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba" && continue
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  done
}

start_postgres() {
  if port_open 5432; then return; fi
  local fresh=
  if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt_install postgresql
    fresh=1
  fi
  if [[ -z $(ls /etc/postgresql 2>/dev/null) ]]; then
    can_install || die "PostgreSQL has no cluster; create one with pg_createcluster"
    pg_createcluster "$(ls /usr/lib/postgresql | sort -V | tail -n 1)" main >/dev/null
    fresh=1
  fi
  [[ -n $fresh ]] && pg_trust_loopback
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if port_open 5432; then
    # The package's own scripts may have started it already: pick up the new pg_hba.conf.
    pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    return
  fi
  say "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start ||
    die "PostgreSQL $version did not start (see /var/log/postgresql/)"
  wait_port 5432 || die "PostgreSQL did not open 127.0.0.1:5432"
}

# Best effort, like sheaf_native: without pglogical the tests that need it are skipped, naming why.
install_pglogical() {
  local major package
  major=$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)
  [[ -n $major && ! -f /usr/lib/postgresql/$major/lib/pglogical.so ]] || return 0
  package=postgresql-$major-pglogical
  if ! can_install; then
    say "$package is not installed and we cannot install it (need root and apt-get): its tests are skipped"
    return 0
  fi
  say "installing $package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1; } ||
    say "apt-get could not install $package: its tests are skipped"
}

# Best effort too: galera-4 (and rsync, its state transfer) for the tests that start a scratch
# three-node Galera cluster of MariaDB; without them those tests are skipped, naming why.
install_galera() {
  [[ -f /usr/lib/galera/libgalera_smm.so ]] && command -v rsync >/dev/null && return 0
  if ! can_install; then
    say "galera-4 is not installed and we cannot install it (need root and apt-get): its tests are skipped"
    return 0
  fi
  say "installing galera-4 and rsync"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends galera-4 rsync >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends galera-4 rsync >/dev/null 2>&1; } ||
    say "apt-get could not install galera-4: its tests are skipped"
}

mariadb_root_login() { mariadb -h127.0.0.1 -P3306 -uroot -e 'select 1' >/dev/null 2>&1; }

start_mariadb() {
  if ! port_open 3306; then
    [[ -x /usr/sbin/mariadbd ]] || apt_install mariadb-server mariadb-client
  fi
  if ! port_open 3306; then
    say "starting MariaDB"
    mkdir -p /run/mysqld
    chown mysql:mysql /run/mysqld 2>/dev/null || true
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql ||
      die "MariaDB did not start (see /var/log/mysql/)"
    wait_port 3306 || die "MariaDB did not open 127.0.0.1:3306"
  fi
  mariadb_root_login && return
  # A fresh Debian install lets root in only through the unix socket: allow the empty TCP login the
  # tests use (a development machine only; never run this against a server that matters).
  [[ $(id -u) == 0 ]] || die "MariaDB refuses root@127.0.0.1 without a password"
  say "allowing root@127.0.0.1 with an empty password"
  mariadb -uroot <<'SQL'
alter user root@localhost identified via mysql_native_password using password('') or unix_socket;
create user if not exists root@'127.0.0.1' identified by '';
grant all privileges on *.* to root@'127.0.0.1' with grant option;
create database if not exists test;
SQL
  mariadb_root_login || die "MariaDB still refuses root@127.0.0.1"
}

if wants postgres && [[ -z ${SHEAF_PG_URL:-} ]]; then
  start_postgres
  bash scripts/native.sh
  install_pglogical
fi
if wants mariadb && [[ -z ${SHEAF_MYSQL_URL:-} ]]; then
  start_mariadb
  install_galera
fi
exit 0
