"""A barrier between the two guests of a pair (tools/vm/pair.sh), over
their link: both call it with the same NAME and pass it together, each
learning the WORD the other brought (e.g. "ok" or "fail" of a step).

Usage: barrier.py ROLE PEER_ADDR PORT TIMEOUT NAME WORD

Role b listens on PORT and takes one connection; role a connects to
PEER_ADDR:PORT (again and again until b listens). a sends "NAME WORD",
b answers with its own "NAME WORD". Prints the peer's WORD and exits 0;
exits 1 when TIMEOUT seconds pass first, 3 when the peer is at another
barrier (the two are out of step): both sides then fail.
"""
import socket
import sys
import time


def exchange(conn, name, word, deadline):
    """Send our line, read the peer's; return the peer's word."""
    conn.settimeout(max(deadline - time.monotonic(), 0.1))
    conn.sendall(f"{name} {word}\n".encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(256)
        if not chunk:
            raise ConnectionError("peer closed before answering")
        data += chunk
    peer_name, _, peer_word = data.decode().strip().partition(" ")
    if peer_name != name:
        print(f"barrier {name}: the peer is at barrier {peer_name}",
              file=sys.stderr)
        sys.exit(3)
    return peer_word


def serve(port, name, word, deadline):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as srv:
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("", port))
        srv.listen(1)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            srv.settimeout(left)
            conn, _ = srv.accept()
            with conn:
                try:
                    return exchange(conn, name, word, deadline)
                except (ConnectionError, socket.timeout):
                    # A connection of an attempt a gave up on: take the next.
                    continue


def connect(peer, port, name, word, deadline):
    while True:
        if time.monotonic() >= deadline:
            raise TimeoutError
        try:
            left = deadline - time.monotonic()
            with socket.create_connection((peer, port),
                                          timeout=min(2, left)) as conn:
                return exchange(conn, name, word, deadline)
        except (OSError, ConnectionError):
            # b is not listening yet, or closed a listener of the barrier
            # before this one under our connection: again.
            time.sleep(0.2)


def main():
    role, peer, port, timeout, name, word = sys.argv[1:7]
    deadline = time.monotonic() + float(timeout)
    try:
        if role == "b":
            got = serve(int(port), name, word, deadline)
        else:
            got = connect(peer, int(port), name, word, deadline)
    except (TimeoutError, socket.timeout):
        print(f"barrier {name}: no peer within {timeout} s", file=sys.stderr)
        return 1
    print(got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
