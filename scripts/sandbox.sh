#!/usr/bin/env bash
# The project's own MariaDB: a private server for tests, demos and development.
#
#   scripts/sandbox.sh start     create on first use, start, wait until it answers
#   scripts/sandbox.sh stop      clean shutdown, waits for the process to exit
#   scripts/sandbox.sh restart   stop + start (tests call this mid-run; under a second)
#   scripts/sandbox.sh status    exit 0 when running, 3 when stopped
#   scripts/sandbox.sh env       shell exports for tests:  eval "$(scripts/sandbox.sh env)"
#   scripts/sandbox.sh sql ...   mariadb client as the admin account on the socket
#   scripts/sandbox.sh reset     stop and delete everything (next start is a fresh server)
#
# Everything lives in .work/sandbox/ under the project root (git-ignored): data/, my.cnf,
# mysqld.sock, mysqld.pid, mysqld.log. The server reads only that my.cnf (never
# /etc/mysql), listens on 127.0.0.1 only, on its own port, and runs as the invoking
# user. It needs no system MariaDB service and never touches port 3306.
#
# Environment:
#   DBDYNO_SANDBOX_PORT     TCP port (default 33306)
#   DBDYNO_SANDBOX_DIR      where it lives (default <project>/.work/sandbox)
#   DBDYNO_SANDBOX_TIMEOUT  seconds to wait for start/stop (default 60)
#   DBDYNO_SANDBOX_EXTRA_CNF  lines appended to the server's [mariadbd] section, for a
#                           private sandbox with other settings (a test that needs a
#                           tiny back_log sets "back_log = 1"); later lines win
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SELF="$DBDYNO_ROOT/scripts/sandbox.sh"
SANDBOX_DIR="${DBDYNO_SANDBOX_DIR:-$DBDYNO_ROOT/.work/sandbox}"
case "$SANDBOX_DIR" in /*) ;; *) SANDBOX_DIR="$PWD/$SANDBOX_DIR" ;; esac
DATA_DIR="$SANDBOX_DIR/data"
TMP_DIR="$SANDBOX_DIR/tmp"
CNF="$SANDBOX_DIR/my.cnf"
SOCKET="$SANDBOX_DIR/mysqld.sock"
PID_FILE="$SANDBOX_DIR/mysqld.pid"
LOG_FILE="$SANDBOX_DIR/mysqld.log"
PORT_FILE="$SANDBOX_DIR/port"             # port of the server that is running now
INIT_MARK="$SANDBOX_DIR/.accounts-created" # bootstrap SQL finished once
LOCK_FILE="$SANDBOX_DIR.lock"              # outside the dir, so `reset` can delete it
TIMEOUT="${DBDYNO_SANDBOX_TIMEOUT:-60}"

# Accounts. Tests read them through `env`; change them here only.
DB=sbtest
USER_NAME=sbtest
USER_PASSWORD=sbtest
ADMIN_NAME=dbdyno_admin
ADMIN_PASSWORD=dbdyno_admin
# The OS user that owns the server. mariadb-install-db gives it a MariaDB account of the
# same name, authenticated by unix_socket: it can log in through the socket without a
# password, and not at all over TCP. As root this is MariaDB's root.
OS_USER="$(id -un)"

configured_port() { printf '%s' "${DBDYNO_SANDBOX_PORT:-33306}"; }

# The port to report: the running server's when there is one and no override.
effective_port() {
    if [ -z "${DBDYNO_SANDBOX_PORT:-}" ] && is_running && [ -s "$PORT_FILE" ]; then
        cat "$PORT_FILE"
    else
        configured_port
    fi
}

# Finds a program in PATH or in the sbin directories a non-root PATH often lacks.
find_bin() {
    local name dir
    for name in "$@"; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
        for dir in /usr/sbin /usr/local/sbin /usr/libexec /usr/local/mysql/bin; do
            if [ -x "$dir/$name" ]; then
                printf '%s\n' "$dir/$name"
                return 0
            fi
        done
    done
    return 1
}

need_bin() {
    find_bin "$@" || die "none of [$*] found: install MariaDB with scripts/deps.sh"
}

server_pid() {
    [ -s "$PID_FILE" ] || return 1
    local pid
    pid="$(tr -dc '0-9' <"$PID_FILE")"
    [ -n "$pid" ] || return 1
    printf '%s' "$pid"
}

# True while the process exists and is not a zombie. An exited server has closed its
# files and sockets; how soon its parent (init) reaps it does not matter to us.
pid_alive() {
    kill -0 "$1" 2>/dev/null || return 1
    [ "$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" != Z ]
}

# True when the pid file names a live mariadbd (guards against a recycled pid).
is_running() {
    local pid comm
    pid="$(server_pid)" || return 1
    pid_alive "$pid" || return 1
    comm="$(cat "/proc/$pid/comm" 2>/dev/null || true)"
    case "$comm" in mariadbd | mysqld | "") return 0 ;; *) return 1 ;; esac
}

# The server answers on its socket ("alive" even before accounts exist).
answers() {
    "$ADMIN_BIN" --no-defaults --socket="$SOCKET" --user="$OS_USER" \
        --connect-timeout=2 ping >/dev/null 2>&1
}

# True when something (not necessarily MariaDB) accepts TCP connections on the port.
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

client() {
    "$CLIENT_BIN" --no-defaults --socket="$SOCKET" --user="$OS_USER" "$@"
}

write_cnf() {
    local port=$1
    mkdir -p "$DATA_DIR" "$TMP_DIR"
    {
        echo "# Written by scripts/sandbox.sh on every start: edit the script, not this file."
        echo "# The server is started with --defaults-file=this file, so /etc/mysql is never read."
        echo "[mariadbd]"
        [ "$(id -u)" -eq 0 ] && echo "user = root"
        echo "datadir = $DATA_DIR"
        echo "tmpdir = $TMP_DIR"
        echo "socket = $SOCKET"
        echo "pid-file = $PID_FILE"
        echo "log-error = $LOG_FILE"
        echo "port = $port"
        echo "bind-address = 127.0.0.1"
        echo "skip-name-resolve"
        echo "character-set-server = utf8mb4"
        echo "collation-server = utf8mb4_general_ci"
        echo "innodb_buffer_pool_size = 256M"
        echo "innodb_log_file_size = 128M"
        echo "# Fast sandbox: flush the redo log once a second, not at every commit. A crash"
        echo "# of the machine may lose the last second of commits; nothing here needs them."
        echo "innodb_flush_log_at_trx_commit = 2"
        echo "max_connections = 500"
        echo "performance_schema = OFF"
        echo "# max_prepared_stmt_count stays at the server default on purpose: tests check"
        echo "# that dbdyno warns when a run needs more prepared statements than it allows."
        if [ -n "${DBDYNO_SANDBOX_EXTRA_CNF:-}" ]; then
            echo "# DBDYNO_SANDBOX_EXTRA_CNF"
            printf '%s\n' "$DBDYNO_SANDBOX_EXTRA_CNF"
        fi
    } >"$CNF"
}

install_db() {
    local install_bin args
    install_bin="$(need_bin mariadb-install-db mysql_install_db)"
    info "creating sandbox data directory (mariadb-install-db)"
    args=(--defaults-file="$CNF" --datadir="$DATA_DIR" --skip-test-db
        --auth-root-authentication-method=socket --auth-root-socket-user="$OS_USER")
    [ "$(id -u)" -eq 0 ] && args+=(--user=root)
    if ! "$install_bin" "${args[@]}" >"$SANDBOX_DIR/install.log" 2>&1 9>&-; then
        tail -n 30 "$SANDBOX_DIR/install.log" >&2
        rm -rf "$DATA_DIR"
        die "mariadb-install-db failed (log: $SANDBOX_DIR/install.log)"
    fi
}

# Idempotent: safe to run again after a half-finished first start.
create_accounts() {
    info "creating database '$DB' and accounts '$USER_NAME', '$ADMIN_NAME'"
    local host sql="CREATE DATABASE IF NOT EXISTS \`$DB\`;"
    for host in 127.0.0.1 localhost; do
        sql+="
CREATE USER IF NOT EXISTS '$USER_NAME'@'$host' IDENTIFIED BY '$USER_PASSWORD';
ALTER USER '$USER_NAME'@'$host' IDENTIFIED BY '$USER_PASSWORD';
GRANT ALL ON \`$DB\`.* TO '$USER_NAME'@'$host';
GRANT PROCESS, RELOAD, REPLICATION CLIENT ON *.* TO '$USER_NAME'@'$host';
CREATE USER IF NOT EXISTS '$ADMIN_NAME'@'$host' IDENTIFIED BY '$ADMIN_PASSWORD';
ALTER USER '$ADMIN_NAME'@'$host' IDENTIFIED BY '$ADMIN_PASSWORD';
GRANT ALL PRIVILEGES ON *.* TO '$ADMIN_NAME'@'$host' WITH GRANT OPTION;"
    done
    # Root (and the owner account) only through the socket: drop anonymous accounts and
    # any root account that is not @localhost.
    local extra
    extra="$(client -N -B -e "SELECT CONCAT(QUOTE(User), '@', QUOTE(Host)) FROM mysql.user
        WHERE User = '' OR (User IN ('root', '$OS_USER') AND Host <> 'localhost')")"
    local acct
    for acct in $extra; do sql+=" DROP USER $acct;"; done
    # mariadb-install-db also grants PROXY to root@<hostname>, an account that does not
    # exist; with skip-name-resolve the server warns about it at every start.
    sql+=" DELETE FROM mysql.proxies_priv WHERE Host <> 'localhost'; FLUSH PRIVILEGES;"
    client -e "$sql"
    touch "$INIT_MARK"
}

log_tail() {
    log "---- last lines of $LOG_FILE ----"
    tail -n 25 "$LOG_FILE" >&2 2>/dev/null || true
    log "----"
}

# Holds the lock for the rest of the script: start/stop/restart/reset never interleave,
# even when several test threads ask for a restart at once.
take_lock() {
    mkdir -p "$(dirname "$LOCK_FILE")"
    exec 9>"$LOCK_FILE"
    flock -w $((TIMEOUT * 2)) 9 || die "another sandbox.sh holds $LOCK_FILE for too long"
}

do_start() {
    local port
    port="$(configured_port)"
    if is_running; then
        local running_port
        running_port="$(cat "$PORT_FILE" 2>/dev/null || echo "?")"
        if [ -n "${DBDYNO_SANDBOX_PORT:-}" ] && [ "$running_port" != "$port" ]; then
            die "sandbox already running on port $running_port; stop it first to use port $port"
        fi
        info "sandbox already running (pid $(server_pid), port $running_port)"
        return 0
    fi

    MARIADBD_BIN="$(need_bin mariadbd mysqld)"
    [ "${#SOCKET}" -lt 100 ] ||
        die "socket path too long for a unix socket (${#SOCKET} chars): set DBDYNO_SANDBOX_DIR to a shorter path"
    if port_in_use "$port"; then
        die "port $port on 127.0.0.1 is taken by another program: set DBDYNO_SANDBOX_PORT to a free port"
    fi

    rm -f "$PID_FILE" "$SOCKET" "$SOCKET.lock"
    write_cnf "$port"
    [ -d "$DATA_DIR/mysql" ] || install_db

    info "starting sandbox MariaDB on 127.0.0.1:$port"
    local log_offset=0
    [ -f "$LOG_FILE" ] && log_offset="$(stat -c %s "$LOG_FILE")"
    # Own session (setsid): Ctrl-C in the caller's terminal or the end of the calling
    # job does not reach the server. fd 9 (our lock) must not leak into it.
    setsid -f "$MARIADBD_BIN" --defaults-file="$CNF" </dev/null >>"$LOG_FILE" 2>&1 9>&-

    local deadline=$((SECONDS + TIMEOUT))
    until answers; do
        if tail -c +$((log_offset + 1)) "$LOG_FILE" 2>/dev/null | grep -q '\[ERROR\] Aborting'; then
            log_tail
            die "sandbox MariaDB failed to start"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            log_tail
            die "sandbox MariaDB did not answer within ${TIMEOUT}s"
        fi
        sleep 0.1
    done
    printf '%s\n' "$port" >"$PORT_FILE"
    [ -f "$INIT_MARK" ] || create_accounts
    info "sandbox ready: pid $(server_pid), 127.0.0.1:$port, socket $SOCKET"
}

do_stop() {
    local pid
    if ! is_running; then
        rm -f "$PID_FILE" "$PORT_FILE"
        info "sandbox not running"
        return 0
    fi
    pid="$(server_pid)"
    info "stopping sandbox MariaDB (pid $pid)"
    # The SHUTDOWN statement returns at once (mariadb-admin shutdown polls in whole
    # seconds); we poll the process ourselves. SIGTERM is the same clean shutdown.
    client --connect-timeout=5 -e 'SHUTDOWN' >/dev/null 2>&1 ||
        kill -TERM "$pid" 2>/dev/null || true

    local deadline=$((SECONDS + TIMEOUT))
    while pid_alive "$pid"; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            warn "sandbox did not stop within ${TIMEOUT}s: killing pid $pid"
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
            break
        fi
        sleep 0.05
    done
    rm -f "$PID_FILE" "$PORT_FILE"
    info "sandbox stopped"
}

do_status() {
    if is_running; then
        local version
        version="$(client -N -B -e 'SELECT VERSION()' 2>/dev/null || echo "not answering")"
        echo "sandbox: running"
        echo "  pid      $(server_pid)"
        echo "  address  127.0.0.1:$(effective_port)"
        echo "  socket   $SOCKET"
        echo "  datadir  $DATA_DIR"
        echo "  version  $version"
        echo "  log      $LOG_FILE"
        return 0
    fi
    if [ -d "$DATA_DIR/mysql" ]; then
        echo "sandbox: stopped (data in $DATA_DIR)"
    else
        echo "sandbox: not created yet ($SANDBOX_DIR)"
    fi
    return 3
}

do_env() {
    local name value
    while read -r name value; do
        printf 'export %s=%q\n' "$name" "$value"
    done <<EOF
DBDYNO_TEST_MYSQL_HOST 127.0.0.1
DBDYNO_TEST_MYSQL_PORT $(effective_port)
DBDYNO_TEST_MYSQL_USER $USER_NAME
DBDYNO_TEST_MYSQL_PASSWORD $USER_PASSWORD
DBDYNO_TEST_MYSQL_DB $DB
DBDYNO_TEST_MYSQL_SOCKET $SOCKET
DBDYNO_TEST_MYSQL_ADMIN_USER $ADMIN_NAME
DBDYNO_TEST_MYSQL_ADMIN_PASSWORD $ADMIN_PASSWORD
DBDYNO_SANDBOX_DIR $SANDBOX_DIR
DBDYNO_SANDBOX_PORT $(effective_port)
DBDYNO_SANDBOX_SCRIPT $SELF
EOF
}

do_reset() {
    do_stop
    # Delete only what looks like a sandbox (a guard against a mistyped DBDYNO_SANDBOX_DIR).
    if [ -e "$SANDBOX_DIR" ]; then
        [ -f "$CNF" ] || [ -d "$DATA_DIR" ] || [ -z "$(ls -A "$SANDBOX_DIR")" ] ||
            die "$SANDBOX_DIR does not look like a sandbox (no my.cnf, no data/): not deleting it"
        rm -rf "$SANDBOX_DIR"
    fi
    info "sandbox deleted ($SANDBOX_DIR); the next start creates a fresh one"
}

usage() {
    sed -n '2,20p' "$SELF" | sed 's/^# \{0,1\}//'
}

main() {
    local cmd="${1:-}"
    [ $# -gt 0 ] && shift
    case "$cmd" in
        start | stop | restart | reset | status | sql)
            ADMIN_BIN="$(need_bin mariadb-admin mysqladmin)"
            CLIENT_BIN="$(need_bin mariadb mysql)"
            ;;
    esac
    case "$cmd" in
        start) take_lock && do_start ;;
        stop) take_lock && do_stop ;;
        restart) take_lock && do_stop && do_start ;;
        reset) take_lock && do_reset ;;
        status) do_status ;;
        env) do_env ;;
        sql)
            is_running || die "sandbox not running: scripts/sandbox.sh start"
            exec "$CLIENT_BIN" --no-defaults --socket="$SOCKET" --user="$OS_USER" "$@"
            ;;
        -h | --help | help) usage ;;
        "") usage >&2 && exit 2 ;;
        *) die "unknown command '$cmd' (start|stop|restart|status|env|sql|reset)" ;;
    esac
}

main "$@"
