#!/bin/bash
# 70-traffic's data path over rvtsw's packet engine: every suite of it
# again with rvtsw's wire_all, which sends RC and UC even to the sending
# port's own LID as packets (Documentation/wire.rst), where 70-traffic
# has them go through rdmavt's loopback. The same checks hold; its
# loopback-counted sees no loopback and the packets on the link instead.
# Its results are this suite's (guest.sh names a suite by its file).
export RVT_RVTSW_PARAMS="wire_all=1 ${RVT_RVTSW_PARAMS:-}"
exec bash "$(dirname "${BASH_SOURCE[0]}")/70-traffic.sh"
