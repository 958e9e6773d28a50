#!/usr/bin/env bash
# Jane Austen's six novels (Debian r-cran-janeaustenr, public domain), for
# the `novel` corpus of bench/real.sh and tests/it/real_data.rs: the .deb
# is downloaded and unpacked under target/real-data/janeaustenr (installing
# it would pull in R; bench/real_data.py reads its R data itself).
# Prints the path of the R data file.
#   bash bench/austen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/real-data/janeaustenr
rdb="$dir/usr/lib/R/site-library/janeaustenr/data/Rdata.rdb"
download() {
  # As root, apt's download sandbox user could not write here.
  (cd "$dir" && rm -f r-cran-janeaustenr_*.deb &&
    apt-get download -qq -o APT::Sandbox::User=root r-cran-janeaustenr >/dev/null)
}
if [ ! -f "$rdb" ]; then
  echo "== apt-get download r-cran-janeaustenr (unpacked in $dir)" >&2
  mkdir -p "$dir"
  if ! download 2>/dev/null; then
    # A fresh machine may have no package lists yet.
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    download
  fi
  dpkg -x "$dir"/r-cran-janeaustenr_*.deb "$dir"
fi
echo "$rdb"
