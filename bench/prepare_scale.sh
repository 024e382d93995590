#!/usr/bin/env bash
# OLTP prepare at scale, DB Dyno against Debian's sysbench 1.0.20, on the same sandbox
# MariaDB with a 1 GiB buffer pool (set for the run, put back at exit), both tools with
# the same options, alternating round by round (the first tool changes every round) so
# that drift hits both alike. Two datasets by default: 1 table of 10,000,000 rows and 16
# tables of 1,000,000 rows, each loaded into an empty schema. Prints one Markdown table
# per dataset; docs/benchmarks.md records a run.
#
#   bash bench/prepare_scale.sh                         # both datasets, 3 rounds, --threads=4
#   DATASETS="1x2000000" ROUNDS=1 bash bench/prepare_scale.sh   # a quick look
#   DBDYNO_BIN=path/to/dbdyno bash bench/prepare_scale.sh         # a binary already built
#
# Figures, per tool and dataset (medians over the rounds, every round listed too):
# - wall time of the whole prepare;
# - load phase: from the start until the last table's rows are in, read off each
#   tool's own lines as they appear (both print "Creating a secondary index on
#   'sbtestN'..." when a table's rows are in; the last such line ends the phase), and
#   index tail: from then to the end (the index builds both tools pay; sysbench loads
#   one table per thread, DB Dyno cuts every table into chunks for all threads);
# - server CPU (user + system of the sandbox server over the prepare, /proc/PID/stat),
#   in total and per row: other load on the machine inflates it less than wall time;
# - client CPU (user + system of the tool, /usr/bin/time).
# After the first round each dataset is checked: every table has every id once, its
# `k` index, and as many rows as the other tool's. Talks only to the sandbox on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-4}
DATASETS=${DATASETS:-"1x10000000 16x1000000"}
BUFFER_POOL=${BUFFER_POOL:-1073741824}
DB=dbdyno_prepare_bench

bench_need sysbench time
bench_cargo_env
bench_sandbox
bench_dbdyno

admin() { bench_admin "$1"; }
bench_own_database "$DB"
bench_workdir
pool_before=$(admin "SELECT @@innodb_buffer_pool_size" | tail -1)
admin "SET GLOBAL innodb_buffer_pool_size = $BUFFER_POOL"
bench_at_exit "admin 'SET GLOBAL innodb_buffer_pool_size = $pool_before' >/dev/null 2>&1"
# The resize runs in the background: wait until the server says it is done.
for _ in $(seq 1 120); do
  admin "SHOW STATUS LIKE 'Innodb_buffer_pool_resize_status'" | grep -qiE "resizing|withdraw|allocat" || break
  sleep 1
done
[ "$(admin "SELECT @@innodb_buffer_pool_size" | tail -1)" = "$BUFFER_POOL" ] \
  || { echo "the server did not take innodb_buffer_pool_size = $BUFFER_POOL" >&2; exit 1; }

bench_conn "$DBDYNO_TEST_MYSQL_USER" "$DB"
export MYSQL_PWD="$DBDYNO_TEST_MYSQL_PASSWORD"
pid=$(cat "$DBDYNO_SANDBOX_DIR/mysqld.pid")
server_cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f\n", ($14 + $15) / hz}' "/proc/$pid/stat"; }
now() { date +%s.%N; }

# Every line of stdin with the seconds since $1 in front.
stamp() {
  local start=$1 line
  while IFS= read -r line; do
    printf '%.3f %s\n' "$(awk -v a="$(now)" -v b="$start" 'BEGIN {print a - b}')" "$line"
  done
}

# prepare TOOL TABLES ROWS: one prepare into the empty schema; appends
# "wall load index_tail server_cpu client_cpu" to $work/TOOL.TABLESxROWS.
prepare() {
  local tool=$1 tables=$2 rows=$3 before start end cmd
  local opts=(--tables="$tables" --table-size="$rows" --threads="$THREADS")
  if [ "$tool" = sysbench ]; then
    cmd=(stdbuf -oL sysbench oltp_read_write --db-driver=mysql --mysql-password="$MYSQL_PWD")
  else
    cmd=("$DBDYNO" oltp_read_write)
  fi
  [ "$(pid_now)" = "$pid" ] || { echo "the sandbox server restarted: stop other work on it" >&2; exit 1; }
  before=$(server_cpu_s)
  start=$(now)
  /usr/bin/time -f '%U %S' -o "$work/time" "${cmd[@]}" "${CONN[@]}" "${opts[@]}" prepare 2>&1 \
    | stamp "$start" >"$work/out" || { cat "$work/out" >&2; exit 1; }
  end=$(now)
  local server wall last_rows client
  server=$(awk -v a="$(server_cpu_s)" -v b="$before" 'BEGIN {printf "%.2f", a - b}')
  wall=$(awk -v a="$end" -v b="$start" 'BEGIN {printf "%.2f", a - b}')
  last_rows=$(grep "Creating a secondary index" "$work/out" | tail -1 | cut -d' ' -f1)
  client=$(awk '{printf "%.2f", $1 + $2}' "$work/time")
  echo "$wall ${last_rows:-$wall} $(awk -v w="$wall" -v l="${last_rows:-$wall}" 'BEGIN {printf "%.2f", w - l}') $server $client" \
    >>"$work/$tool.${tables}x$rows"
}
pid_now() { cat "$DBDYNO_SANDBOX_DIR/mysqld.pid"; }

# verify TABLES ROWS: every table holds ids 1..ROWS once and its k index; prints the
# rows of the whole dataset.
verify() {
  local tables=$1 rows=$2 t got total=0
  for t in $(seq 1 "$tables"); do
    got=$(admin "SELECT CONCAT(MIN(id), ' ', MAX(id), ' ', COUNT(*), ' ', COUNT(DISTINCT id)) FROM $DB.sbtest$t" | tail -1)
    [ "$got" = "1 $rows $rows $rows" ] || { echo "sbtest$t: min max count distinct = $got, want 1 $rows $rows $rows" >&2; exit 1; }
    admin "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '$DB' AND TABLE_NAME = 'sbtest$t' AND INDEX_NAME = 'k_$t'" | grep -q 1 \
      || { echo "sbtest$t has no index k_$t" >&2; exit 1; }
    total=$((total + rows))
  done
  echo "$total"
}

drop_tables() {
  local tables=$1 t list=""
  for t in $(seq 1 "$tables"); do list="$list${list:+, }$DB.sbtest$t"; done
  admin "DROP TABLE IF EXISTS $list"
}

for dataset in $DATASETS; do
  tables=${dataset%x*}; rows=${dataset#*x}
  drop_tables "$tables"
  for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then order="dbdyno sysbench"; else order="sysbench dbdyno"; fi
    for tool in $order; do
      prepare "$tool" "$tables" "$rows"
      echo "$dataset round $round $tool: $(tail -1 "$work/$tool.$dataset") (wall load index_tail server_cpu client_cpu)" >&2
      [ "$round" = 1 ] && verify "$tables" "$rows" >"$work/$tool.$dataset.rows"
      drop_tables "$tables"
    done
  done
done

col() { awk -v c="$2" '{print $c}' "$work/$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
for dataset in $DATASETS; do
  tables=${dataset%x*}; rows=${dataset#*x}
  echo
  echo "prepare --tables=$tables --table-size=$rows --threads=$THREADS, buffer pool $((BUFFER_POOL >> 20)) MiB, $ROUNDS rounds, medians:"
  echo
  echo "| measure | sysbench | dbdyno | ratio (sysbench / dbdyno) |"
  echo "|---|---|---|---|"
  for m in "wall time (s):1" "load phase (s):2" "index tail (s):3" "server CPU (s):4" "client CPU (s):5"; do
    name=${m%:*}; c=${m#*:}
    sb=$(col "sysbench.$dataset" "$c"); db=$(col "dbdyno.$dataset" "$c")
    echo "| $name | $sb | $db | $(ratio "$sb" "$db") |"
  done
  sb_rows=$(cat "$work/sysbench.$dataset.rows"); db_rows=$(cat "$work/dbdyno.$dataset.rows")
  [ "$sb_rows" = "$db_rows" ] || { echo "the tools loaded $sb_rows and $db_rows rows" >&2; exit 1; }
  sb=$(awk -v s="$(col "sysbench.$dataset" 4)" -v r="$sb_rows" 'BEGIN {printf "%.2f", s * 1e6 / r}')
  db=$(awk -v s="$(col "dbdyno.$dataset" 4)" -v r="$db_rows" 'BEGIN {printf "%.2f", s * 1e6 / r}')
  echo "| server CPU per row (µs) | $sb | $db | $(ratio "$sb" "$db") |"
  echo
  echo "every round (wall load index_tail server_cpu client_cpu):"
  for tool in sysbench dbdyno; do echo "  $tool: $(tr '\n' ';' <"$work/$tool.$dataset")"; done
done
