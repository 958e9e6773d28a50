#!/usr/bin/env bash
# A one-node Slurm cluster on 127.0.0.1 for the job-array test
# (tests/it/slurm.rs), from Debian's packages, without systemd:
#   bash .ci/slurm.sh up     # install if needed, start munged, slurmctld, slurmd
#   bash .ci/slurm.sh down   # stop every daemon it started
# `up` prints `export SLURM_CONF=...`; the test reads GLOSSA_SLURM_CONF.
# Everything it writes lives in $GLOSSA_SLURM_DIR (default /tmp/glossa-slurm).
set -euo pipefail
dir=${GLOSSA_SLURM_DIR:-/tmp/glossa-slurm}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
as_munge() {
  if [ -z "$SUDO" ]; then runuser -u munge -- "$@"; else sudo -u munge "$@"; fi
}

down() {
  for pid in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pid" ] && $SUDO kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
}

up() {
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    # On stderr: stdout carries only the `export` lines .ci/run evaluates.
    {
      echo "== apt-get install slurmctld slurmd slurm-client munge"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
    } >&2
  fi
  down
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  # munged refuses a key folder others can read and a socket folder they
  # cannot enter.
  $SUDO install -d -m 0700 -o munge -g munge /etc/munge
  [ -s /etc/munge/munge.key ] || as_munge /usr/sbin/mungekey --create
  $SUDO install -d -m 0755 -o munge -g munge /run/munge /var/lib/munge /var/log/munge
  as_munge /usr/sbin/munged --pid-file="$dir/munged.pid" --force
  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  cat >"$dir/slurm.conf" <<EOF
ClusterName=glossa
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# Daemons listen on 127.0.0.1 only.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
# No cgroups in a container: track processes by /proc.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# A requeued or resubmitted task starts at once, not minutes later.
SchedulerParameters=sched_interval=1
AuthInfo=cred_expire=5
ReturnToService=2
MaxArraySize=1000
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  export SLURM_CONF="$dir/slurm.conf"
  $SUDO env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmctld -c
  $SUDO env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmd
  for _ in $(seq 1 30); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 1
  done
  echo "slurm did not come up; logs in $dir/log" >&2
  tail -20 "$dir"/log/*.log >&2 || true
  return 1
}

case "${1:-}" in
up) up ;;
down) down ;;
*)
  echo "usage: bash .ci/slurm.sh up|down" >&2
  exit 2
  ;;
esac
