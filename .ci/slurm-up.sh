#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine for the pipeline's
# Slurm integration test (and for trying `pipeline run --executor slurm`).
#
#   .ci/slurm-up.sh          install if needed, configure, start, wait until the node is idle
#   .ci/slurm-up.sh stop     stop the daemons this script started
#
# Needs root on Debian 12 (packages slurmctld slurmd slurm-client munge).
# Safe to run twice: what is installed, configured or running is left as it
# is. State, spool, logs and pid files live in $RENN_SLURM_DIR (default
# /tmp/renn-slurm); the config is /etc/slurm/slurm.conf, written only if
# absent or written by this script before. Accounting is off, so sacct
# does not work here; the pipeline falls back to squeue.
set -euo pipefail

dir=${RENN_SLURM_DIR:-/tmp/renn-slurm}
conf=/etc/slurm/slurm.conf
marker="# written by renn .ci/slurm-up.sh"
wait_secs=${RENN_SLURM_WAIT:-60}

say() { echo "slurm-up: $*" >&2; }
die() { say "$*"; exit 1; }

# alive PIDFILE: the process named in PIDFILE is running.
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_daemon PIDFILE: stop the daemon named in PIDFILE and wait until it
# has gone (10 s, then SIGKILL).
stop_daemon() {
	local pid
	if alive "$1"; then
		pid=$(cat "$1")
		say "stopping $(basename "$1" .pid) (pid $pid)"
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
	fi
	rm -f "$1"
}

stop() {
	stop_daemon "$dir/slurmd.pid"
	stop_daemon "$dir/slurmctld.pid"
	stop_daemon /run/munge/munged.pid
}

if [[ ${1:-} == stop ]]; then
	stop
	exit 0
fi
[[ $# -eq 0 ]] || die "usage: $0 [stop]"
[[ $(id -u) -eq 0 ]] || die "must run as root (installs packages, starts slurmd)"

# 1. Packages.
pkgs=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	timeout 300 apt-get update -qq || die "apt-get update failed"
	timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
fi

mkdir -p "$dir/state" "$dir/spool"
chmod 755 "$dir"

# 2. Munge: a key, then the daemon (as the munge user, as Debian runs it).
key=/etc/munge/munge.key
if [[ ! -s $key ]]; then
	say "creating $key"
	mkdir -p /etc/munge
	if command -v mungekey >/dev/null; then
		mungekey --create --keyfile="$key" --force
	else
		dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
	fi
fi
chown munge:munge /etc/munge "$key"
chmod 700 /etc/munge
chmod 600 "$key"
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
if ! timeout 5 munge -n 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1; then
	say "starting munged"
	rm -f /run/munge/munge.socket.2.lock
	# Its output goes to a file, so no caller waits on a pipe it holds.
	runuser -u munge -- munged </dev/null >>"$dir/munged.out" 2>&1 ||
		die "munged did not start; see $dir/munged.out and /var/log/munge/munged.log"
	for _ in $(seq 50); do
		timeout 5 munge -n 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1 && break
		sleep 0.2
	done
	timeout 5 munge -n | timeout 5 unmunge >/dev/null || die "munge does not work; see /var/log/munge/munged.log"
fi

# 3. slurm.conf: this node, every CPU and all its memory as slurmd sees them.
if [[ -e $conf ]] && ! grep -qxF "$marker" "$conf"; then
	die "$conf exists and was not written by this script; not touching it"
fi
node=$(slurmd -C | head -n 1) # NodeName=<host> CPUs=... RealMemory=...
[[ $node == NodeName=* ]] || die "slurmd -C printed no node line: $node"
host=${node%% *}
host=${host#NodeName=}
new=$(cat <<EOF
$marker
# A single-node cluster for tests: no accounting, state under $dir.
ClusterName=renn
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
# Schedule at once when a job ends: the default waits up to 3 s, which
# dominates a test made of many short jobs.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
KillWait=5
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
if [[ ! -e $conf ]] || [[ $(cat "$conf") != "$new" ]]; then
	say "writing $conf"
	mkdir -p /etc/slurm
	printf '%s\n' "$new" >"$conf"
	# A changed config needs restarted daemons.
	stop_daemon "$dir/slurmd.pid"
	stop_daemon "$dir/slurmctld.pid"
fi

# 4. Daemons, in the foreground (-D) of background shells, so they need no
# init system; setsid keeps a Ctrl-C at this terminal away from them.
if ! alive "$dir/slurmctld.pid"; then
	say "starting slurmctld"
	setsid slurmctld -D -i >>"$dir/slurmctld.out" 2>&1 </dev/null &
fi
for _ in $(seq 100); do timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.2; done
timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' || {
	tail -n 20 "$dir/slurmctld.log" "$dir/slurmctld.out" >&2 || true
	die "slurmctld did not come up"
}
if ! alive "$dir/slurmd.pid"; then
	say "starting slurmd"
	setsid slurmd -D >>"$dir/slurmd.out" 2>&1 </dev/null &
fi

# 5. Wait until the node takes jobs.
deadline=$((SECONDS + wait_secs))
while :; do
	state=$(timeout 5 sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1 || true)
	case $state in
	idle | mixed | allocated | completing) break ;;
	down* | drain* | fail*) timeout 5 scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
	esac
	if ((SECONDS >= deadline)); then
		tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
		die "node $host is '${state:-unknown}' after ${wait_secs}s, want idle"
	fi
	sleep 0.5
done
say "node $host is $state (config $conf, logs in $dir); stop with: $0 stop"
