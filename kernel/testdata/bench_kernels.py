"""Compare the pathnotes kernel with ipykernel through jupyter_client, the way
a front end sees them. Run by hand (it is a benchmark, not a test):

    go build -o /tmp/pn/pathnotes . && /tmp/pn/pathnotes install --prefix /tmp/pn/prefix
    JUPYTER_PATH=/tmp/pn/prefix/share/jupyter /usr/bin/python3 kernel/testdata/bench_kernels.py

It measures, for each kernelspec named on the command line (default:
pathnotes python3):

  start     process start to the first kernel_info_reply (median of --starts runs)
  first     process start to the execute_reply of a first cell `1`, sent
            right after that kernel_info_reply (median of the same runs)
  cpu       CPU time the kernel process (all its threads) used from its start
            to that execute_reply: unlike the times above, it does not grow
            with the machine's load (median of the same runs)
  rtt       a trivial execute_request to its reply and status idle
            (median and 90th percentile of --rounds runs, after a warm-up)
  client    CPU time of the client's thread per round trip of rtt: what
            jupyter_client itself spends (signing, date parsing, its event
            loop), which no kernel can shorten
  waits     the rest of a round trip of rtt, on average: the time the
            client sat waiting for the kernel
  cell cpu  CPU time the kernel process used per round trip of rtt
  writes    write system calls the kernel process made per round trip of rtt
  raw       the same round trip from a bare pyzmq client in one thread (no
            client threads or queues): what the kernel itself costs
  rss       resident memory of the kernel process at idle, after the warm-up
"""

import argparse
import os
import platform
import statistics
import time

import zmq
from jupyter_client.manager import KernelManager

# A trivial cell for each language: an assignment, no output.
SETUP = {"go": "x := 0", "python": "x = 0"}
TRIVIAL = {"go": "x = 1", "python": "x = 1"}


def kernel_pid(km):
    prov = getattr(km, "provisioner", None)
    proc = getattr(prov, "process", None) if prov else None
    if proc is None:
        proc = getattr(km, "kernel", None)
    return proc.pid


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def shell_reply(kc, msg_id):
    """Wait for the shell reply to msg_id."""
    while True:
        reply = kc.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def cpu_seconds(pid):
    """CPU time used so far by all threads of process pid (their scheduler
    statistics, in nanoseconds)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # the thread has exited
    return total / 1e9


def write_calls(pid):
    """Write system calls made so far by process pid."""
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("syscw:"):
                return int(line.split()[1])
    return -1


def start(name, first_cell=False):
    """Start a kernel; return (manager, client, seconds to the first
    kernel_info_reply, (seconds to the execute_reply of a first cell `1`,
    CPU seconds of the kernel until then) or None when first_cell is false)."""
    km = KernelManager(kernel_name=name)
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    shell_reply(kc, kc.kernel_info())
    elapsed = time.perf_counter() - t0
    first = None
    if first_cell:
        reply = shell_reply(kc, kc.execute("1"))
        first = (time.perf_counter() - t0, cpu_seconds(kernel_pid(km)))
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"first cell: {reply['content']}")
    # Before executing, make sure iopub is subscribed (a PUB socket drops
    # what it publishes before the subscription arrives), as front ends do.
    kc.wait_for_ready(timeout=30)
    return km, kc, elapsed, first


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def execute(kc, code):
    """Send one execute_request; return seconds until its reply and idle status
    have both arrived (the client's threads queue them as they come, so
    waiting for one and then the other measures the later of the two)."""
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    while True:
        m = kc.get_shell_msg(timeout=30)
        if m["parent_header"].get("msg_id") == msg_id:
            if m["content"]["status"] != "ok":
                raise RuntimeError(f"{code!r}: {m['content']}")
            break
    while True:
        m = kc.get_iopub_msg(timeout=30)
        if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                and m["content"]["execution_state"] == "idle"):
            break
    return time.perf_counter() - t0


def raw_rtts(km, code, rounds):
    """Round trips of execute_request measured with bare sockets polled in
    this thread, signed by the kernel manager's session."""
    info = km.get_connection_info()
    ctx = zmq.Context.instance()
    shell = ctx.socket(zmq.DEALER)
    shell.connect(f"tcp://{info['ip']}:{info['shell_port']}")
    iopub = ctx.socket(zmq.SUB)
    iopub.setsockopt(zmq.SUBSCRIBE, b"")
    iopub.connect(f"tcp://{info['ip']}:{info['iopub_port']}")
    time.sleep(0.5)  # let the subscription reach the kernel
    session = km.session
    poller = zmq.Poller()
    poller.register(shell, zmq.POLLIN)
    poller.register(iopub, zmq.POLLIN)
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        msg_id = session.send(shell, "execute_request", {"code": code, "silent": False})["header"]["msg_id"]
        got_reply = got_idle = False
        while not (got_reply and got_idle):
            for sock, _ in poller.poll(10000):
                _, msg = session.recv(sock, mode=0)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if sock is shell:
                    got_reply = True
                elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    got_idle = True
        out.append(time.perf_counter() - t0)
    shell.close()
    iopub.close()
    return sorted(out)


def bench(name, starts, rounds):
    start_times, first_times, cpu_times = [], [], []
    for _ in range(starts):
        km, kc, t, (first, cpu) = start(name, first_cell=True)
        start_times.append(t)
        first_times.append(first)
        cpu_times.append(cpu)
        stop(km, kc)
    km, kc, _, _ = start(name)
    lang = km.kernel_spec.language
    execute(kc, SETUP[lang])
    for _ in range(20):
        execute(kc, TRIVIAL[lang])
    pid = kernel_pid(km)
    cpu0, writes0 = cpu_seconds(pid), write_calls(pid)
    wall0, client0 = time.perf_counter(), time.thread_time()
    rtts = sorted(execute(kc, TRIVIAL[lang]) for _ in range(rounds))
    client = (time.thread_time() - client0) / rounds
    waits = (time.perf_counter() - wall0) / rounds - client
    cell_cpu = (cpu_seconds(pid) - cpu0) / rounds
    cell_writes = (write_calls(pid) - writes0) / rounds
    raw = raw_rtts(km, TRIVIAL[lang], rounds)
    time.sleep(1)
    rss = rss_kib(kernel_pid(km))
    stop(km, kc)
    return {
        "kernel": name,
        "start_ms": statistics.median(start_times) * 1e3,
        "first_ms": statistics.median(first_times) * 1e3,
        "cpu_ms": statistics.median(cpu_times) * 1e3,
        "rtt_median_ms": statistics.median(rtts) * 1e3,
        "rtt_p90_ms": rtts[int(0.9 * len(rtts))] * 1e3,
        "client_ms": client * 1e3,
        "waits_ms": waits * 1e3,
        "cell_cpu_ms": cell_cpu * 1e3,
        "cell_writes": cell_writes,
        "raw_median_ms": statistics.median(raw) * 1e3,
        "rss_mib": rss / 1024,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", default=["pathnotes", "python3"])
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=500)
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}")
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'kernel':<12} {'start (ms)':>10} {'first (ms)':>10} {'cpu (ms)':>8} {'rtt median (ms)':>16} {'rtt p90 (ms)':>13} {'client (ms)':>12} {'waits (ms)':>11} {'cell cpu (ms)':>14} {'writes':>7} {'raw median (ms)':>16} {'idle RSS (MiB)':>15}")
    for name in args.kernels:
        r = bench(name, args.starts, args.rounds)
        print(f"{r['kernel']:<12} {r['start_ms']:>10.0f} {r['first_ms']:>10.0f} {r['cpu_ms']:>8.0f} {r['rtt_median_ms']:>16.2f} {r['rtt_p90_ms']:>13.2f} {r['client_ms']:>12.2f} {r['waits_ms']:>11.2f} {r['cell_cpu_ms']:>14.2f} {r['cell_writes']:>7.1f} "
              f"{r['raw_median_ms']:>16.2f} {r['rss_mib']:>15.1f}")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
