"""Device, port, GID and P_Key queries through libibverbs (ipathverbs).

Usage: query_test.py NDEVICES NPORTS, with rvtsw loaded with that many
devices and ports.
"""
import sys

from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError
import pyverbs.enums as e

GID_PREFIX = "fe80:0000:0000:0000"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def check_port(ctx, name, unit, port, nports):
    attr = ctx.query_port(port)
    check(attr.state == e.IBV_PORT_ACTIVE, f"{name}/{port} state {attr.state}")
    check(attr.lid == unit * nports + port, f"{name}/{port} lid {attr.lid}")
    check(attr.active_mtu == e.IBV_MTU_4096, f"{name}/{port} mtu")
    check(attr.pkey_tbl_len == 1, f"{name}/{port} pkey_tbl_len")
    check(attr.gid_tbl_len == 1, f"{name}/{port} gid_tbl_len")
    check(attr.link_layer == e.IBV_LINK_LAYER_INFINIBAND, f"{name} ll")
    gid = str(ctx.query_gid(port, 0))
    check(gid.startswith(GID_PREFIX), f"{name}/{port} gid {gid}")
    check(ctx.query_pkey(port, 0) == 0xFFFF, f"{name}/{port} pkey")
    # libibverbs reads P_Keys from sysfs, which has no entry past the
    # table: the query fails, with no errno of the kernel's to check.
    try:
        ctx.query_pkey(port, 1)
    except PyverbsRDMAError:
        pass
    else:
        raise AssertionError("pkey index 1 should fail")
    return gid


def main():
    ndev, nports = int(sys.argv[1]), int(sys.argv[2])
    gids = set()
    for unit in range(ndev):
        name = f"rvtsw_{unit}"
        with Context(name=name) as ctx:
            dev = ctx.query_device()
            check(dev.phys_port_cnt == nports, f"{name} ports")
            check(dev.node_guid != 0, f"{name} node guid")
            for port in range(1, nports + 1):
                gids.add(check_port(ctx, name, unit, port, nports))
    check(len(gids) == ndev * nports, f"GIDs not unique: {gids}")
    print(f"{ndev} devices x {nports} ports: queries as expected")


if __name__ == "__main__":
    main()
