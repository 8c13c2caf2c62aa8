#!/usr/bin/env bash
# The production topology of docs/operations.md ("Scaling out") on one machine, from Debian's
# packages, for tests and evaluation: etcd, two PostgreSQL nodes managed by Patroni (a primary and
# a synchronous standby), HAProxy sending writes to whichever node Patroni's REST API calls the
# primary and reads to the standby, and PgBouncer in transaction mode in front of the writes.
#
#   scripts/ha-topology.sh up DIR     start everything under DIR; prints the addresses as KEY=value
#   scripts/ha-topology.sh down DIR   stop everything started under DIR and remove DIR
#   scripts/ha-topology.sh primary DIR   the name of the node that is primary now (node1 or node2)
#   scripts/ha-topology.sh kill DIR NODE  SIGKILL to the node's Patroni and PostgreSQL (the machine dies)
#
# Ports come from HA_BASE_PORT (default 25400): +0 PgBouncer, +1 HAProxy writes, +2 HAProxy reads,
# +3 etcd, +10/+11 PostgreSQL of node1/node2, +20/+21 their Patroni REST APIs.
# Installs patroni, etcd-server, haproxy and pgbouncer with apt-get when they are missing. As root,
# PostgreSQL and Patroni run as the `postgres` user.
set -euo pipefail

cmd=${1:?usage: ha-topology.sh up|down|primary DIR}
dir=${2:?usage: ha-topology.sh up|down|primary DIR}
base=${HA_BASE_PORT:-25400}
pgbouncer_port=$base
write_port=$((base + 1))
read_port=$((base + 2))
etcd_port=$((base + 3))
etcd_peer_port=$((base + 4))

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_bin() {
  local v
  v=$(ls /usr/lib/postgresql | sort -n | tail -1)
  echo "/usr/lib/postgresql/$v/bin"
}

install_missing() {
  local missing=()
  command -v patroni >/dev/null 2>&1 || missing+=(patroni)
  command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || missing+=(etcd-server)
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
      { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  fi
}

# wait_for DESCRIPTION COMMAND...: retries COMMAND for up to 60 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 300); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "ha-topology: $what did not come up (logs under $dir)" >&2
  return 1
}

patroni_config() { # node index
  local node=node$1 pg_port=$((base + 10 + $1 - 1)) api_port=$((base + 20 + $1 - 1))
  cat <<EOF
scope: envoy
name: $node
restapi:
  listen: 127.0.0.1:$api_port
  connect_address: 127.0.0.1:$api_port
etcd3:
  hosts: 127.0.0.1:$etcd_port
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: 'on'
        max_wal_senders: 8
        max_replication_slots: 8
        wal_log_hints: 'on'
  initdb:
    - encoding: UTF8
    - data-checksums
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $dir/$node/data
  bin_dir: $(pg_bin)
  pgpass: $dir/$node/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
  parameters:
    unix_socket_directories: '$dir/$node'
tags:
  nofailover: false
EOF
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

up() {
  install_missing
  for port in $pgbouncer_port $write_port $read_port $etcd_port $etcd_peer_port \
    $((base + 10)) $((base + 11)) $((base + 20)) $((base + 21)); do
    port_free "$port" || {
      echo "ha-topology: port $port is in use (another topology still up? set HA_BASE_PORT)" >&2
      exit 1
    }
  done
  mkdir -p "$dir"
  chmod 777 "$dir"
  # etcd, one member.
  mkdir -p "$dir/etcd"
  setsid etcd --name ha --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "ha=http://127.0.0.1:$etcd_peer_port" >"$dir/etcd.log" 2>&1 </dev/null &
  echo $! >"$dir/etcd.pid"
  wait_for etcd curl -sf "http://127.0.0.1:$etcd_port/health"
  # Two Patroni nodes; node1 first, so that it bootstraps the cluster and becomes the primary.
  for i in 1 2; do
    mkdir -p "$dir/node$i"
    patroni_config "$i" >"$dir/node$i/patroni.yml"
    chown -R postgres: "$dir/node$i" 2>/dev/null || true
    as_postgres setsid patroni "$dir/node$i/patroni.yml" >"$dir/node$i/patroni.log" 2>&1 </dev/null &
    if [ "$i" = 1 ]; then wait_for "node1 as primary" curl -sf "http://127.0.0.1:$((base + 20))/primary"; fi
  done
  wait_for "node2 as a synchronous standby" curl -sf "http://127.0.0.1:$((base + 21))/sync"
  # HAProxy: writes to the node whose REST API answers /primary, reads to a standby (else the primary).
  cat >"$dir/haproxy.cfg" <<EOF
global
  maxconn 512
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen writes
  bind 127.0.0.1:$write_port
  option httpchk OPTIONS /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$((base + 10)) check port $((base + 20))
  server node2 127.0.0.1:$((base + 11)) check port $((base + 21))
listen reads
  bind 127.0.0.1:$read_port
  balance roundrobin
  option httpchk OPTIONS /replica
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$((base + 10)) check port $((base + 20))
  server node2 127.0.0.1:$((base + 11)) check port $((base + 21))
EOF
  setsid haproxy -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 </dev/null &
  echo $! >"$dir/haproxy.pid"
  # PgBouncer in transaction mode in front of the writes.
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$write_port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 40
server_check_delay = 0
server_login_retry = 1
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  echo '"postgres" ""' >"$dir/userlist.txt"
  chown postgres: "$dir/pgbouncer.ini" "$dir/userlist.txt" 2>/dev/null || true
  as_postgres /usr/sbin/pgbouncer -d "$dir/pgbouncer.ini"
  wait_for "HAProxy to the primary" "$(pg_bin)/pg_isready" -h 127.0.0.1 -p "$write_port"
  wait_for PgBouncer "$(pg_bin)/pg_isready" -h 127.0.0.1 -p "$pgbouncer_port"
  echo "DATABASE_URL=postgres://postgres@127.0.0.1:$pgbouncer_port/postgres"
  echo "DATABASE_DIRECT_URL=postgres://postgres@127.0.0.1:$write_port/postgres"
  echo "DATABASE_READ_URLS=postgres://postgres@127.0.0.1:$read_port/postgres"
  echo "DB_POOLER=transaction"
}

# The node whose REST API calls itself the primary.
primary() {
  for i in 1 2; do
    if curl -sf "http://127.0.0.1:$((base + 20 + i - 1))/primary" >/dev/null 2>&1; then
      echo "node$i"
      return 0
    fi
  done
  return 1
}

kill_node() { # node
  local node=$1
  pkill -KILL -f "patroni $dir/$node/patroni.yml" || true
  [ -f "$dir/$node/data/postmaster.pid" ] && kill -KILL "$(head -1 "$dir/$node/data/postmaster.pid")" 2>/dev/null || true
}

down() {
  [ -d "$dir" ] || return 0
  for node in node1 node2; do kill_node "$node"; done
  for pidfile in "$dir/pgbouncer.pid" "$dir/haproxy.pid" "$dir/etcd.pid"; do
    [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
  done
  # PostgreSQL's children end once their postmaster is gone; wait for them to let go of the folder.
  for _ in $(seq 1 50); do
    pgrep -f "$dir/" >/dev/null 2>&1 || break
    pkill -KILL -f "$dir/" 2>/dev/null || true
    sleep 0.1
  done
  rm -rf "$dir"
}

case "$cmd" in
up) up ;;
down) down ;;
primary) primary ;;
kill) kill_node "${3:?usage: ha-topology.sh kill DIR NODE}" ;;
*)
  echo "usage: ha-topology.sh up|down|primary DIR" >&2
  exit 2
  ;;
esac
