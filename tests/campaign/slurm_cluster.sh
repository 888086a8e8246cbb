#!/usr/bin/env bash
# A throwaway single-node Slurm cluster for tests: munged, slurmctld and slurmd on 127.0.0.1 with a
# generated slurm.conf, munge key and state in DIR, free non-default ports, 2 CPUs.
#   slurm_cluster.sh start DIR   starts it (prints `export SLURM_CONF=DIR/slurm.conf`); fails saying why
#   slurm_cluster.sh stop DIR    cancels every job and stops the daemons it started (by their pid files)
# Needs Debian's slurm-wlm and munge (scripts/setup.sh installs them) and root (slurmd runs jobs as
# the submitting user and must be able to switch to it).
set -euo pipefail
cmd="${1:?start|stop}"
dir="$(cd "${2:?DIR}" && pwd)"

die() { echo "slurm_cluster: $*" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

stop() {
  export SLURM_CONF="$dir/slurm.conf"
  if [ -f "$dir/slurmctld.pid" ] && command -v scancel >/dev/null; then
    timeout 10 scancel --user="$(id -un)" >/dev/null 2>&1 || true
    sleep 1
  fi
  for d in slurmd slurmctld munged; do
    local pidfile="$dir/$d.pid"
    [ -f "$pidfile" ] || continue
    local pid; pid="$(cat "$pidfile")"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
  # Job steps slurmd started and that outlived it (each has the cluster's spool folder in its command line).
  for pid in $(pgrep -f "slurmstepd.*" 2>/dev/null || true); do
    grep -qs "$dir" "/proc/$pid/environ" && kill -9 "$pid" 2>/dev/null || true
  done
}

start() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd switches to the submitting user); this test starts a private cluster as root"
  for b in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
    command -v "$b" >/dev/null || die "$b is missing: install slurm-wlm and munge (scripts/setup.sh does)"
  done
  mkdir -p "$dir/state" "$dir/spool"
  chmod 700 "$dir"
  mungekey -c -f -k "$dir/munge.key" -b 1024
  chmod 400 "$dir/munge.key"
  munged -f --socket="$dir/munge.sock" --key-file="$dir/munge.key" --log-file="$dir/munged.log" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" || die "munged did not start: $(tail -3 "$dir/munged.log" 2>/dev/null)"
  local ctl_port d_port; ctl_port="$(free_port)"; d_port="$(free_port)"
  [ "$ctl_port" != "$d_port" ] || d_port="$(free_port)"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=asmevo-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
MinJobAge=300
SlurmdTimeout=30
NodeName=asmevo-node NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=asmevo Nodes=asmevo-node Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" -i || die "slurmctld did not start: $(tail -5 "$dir/slurmctld.log" 2>/dev/null)"
  slurmd -f "$SLURM_CONF" -N asmevo-node || die "slurmd did not start: $(tail -5 "$dir/slurmd.log" 2>/dev/null)"
  for _ in $(seq 100); do
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.2
  done
  die "the node did not become idle in 20 s: sinfo says '$(sinfo -h -N -o '%T %E' 2>&1)'; slurmctld.log: $(tail -3 "$dir/slurmctld.log" 2>/dev/null); slurmd.log: $(tail -3 "$dir/slurmd.log" 2>/dev/null)"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) die "usage: slurm_cluster.sh start|stop DIR" ;;
esac
