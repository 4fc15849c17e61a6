#!/usr/bin/env python3
"""Chapter 07's HTTP against real peers: one scenario per run.

    peers.py SCENARIO --get PEER_GET --serve PEER_SERVE

Starts the peer (nginx, Python's http.server, or chapter 07's server for
curl and ab) on a free loopback port in a temporary folder, runs the
scenario, checks what came back, and always stops the peer and removes the
folder, also when the test's time limit sends SIGTERM. Exit 0: passed;
1: failed (the reason is printed last); 77: skipped, a program it needs is
not installed. Python 3 standard library only. See README.md here.
"""
import argparse
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77


class Failed(Exception):
    """The scenario's outcome is not what the issue asks for."""


class Skipped(Exception):
    """A peer program is not installed."""


def need(*programs):
    """The path of each program; Skipped if one is not installed."""
    paths = []
    for program in programs:
        path = shutil.which(program) or (
            shutil.which(program, path="/usr/sbin:/sbin:/usr/local/sbin"))
        if path is None:
            raise Skipped(f"{program} is not installed")
        paths.append(path)
    return paths


def check(condition, why):
    if not condition:
        raise Failed(why)


def die_with_parent():
    """In a peer, before exec: on Linux, SIGKILL when this script dies, even
    by SIGKILL (a time limit's), so that no peer outlives its test."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port():
    """A loopback port nobody listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Failed(f"the peer exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise Failed(f"nothing listens on port {port} after {seconds} s")


def run(argv, timeout=15, env=None):
    """Runs a program to the end; its exit status, stdout and stderr."""
    print("$", " ".join(repr(a) if ("\r" in a or " " in a) else a for a in argv),
          flush=True)
    try:
        p = subprocess.run(argv, capture_output=True, timeout=timeout, env=env,
                           preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        raise Failed(f"{os.path.basename(argv[0])} took over {timeout} s\n{out}")
    out = p.stdout.decode(errors="replace")
    err = p.stderr.decode(errors="replace")
    if out:
        print(out.rstrip("\n"))
    if err:
        print(err.rstrip("\n"))
    return p.returncode, out, err


def outcome(summary):
    """peer_get's summary lines as a dict: 'ok' -> 1500, 'status 200' -> 1500."""
    d = {}
    for line in summary.splitlines():
        words = line.split()
        if len(words) >= 2 and words[-1].isdigit():
            d[" ".join(words[:-1])] = int(words[-1])
    return d


class Peers:
    """What a scenario runs in: the temp folder, the peers it started."""

    def __init__(self, args):
        self.get = args.get
        self.serve = args.serve
        self.dir = tempfile.mkdtemp(prefix="taal-peers-")
        self.procs = []
        self.serve_stderr = None  # peer_serve's summary: to the test's output
        self.server = None  # peer_serve, if started

    def close(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def start(self, argv, **kw):
        proc = subprocess.Popen(argv, preexec_fn=die_with_parent, **kw)
        self.procs.append(proc)
        return proc

    # ---- nginx --------------------------------------------------------------
    def nginx(self, server_conf, http_conf=""):
        """nginx as this user, in the foreground, on a free port: its own
        conf, with pid, logs and temp files in the temp folder. Returns
        (port, access log path)."""
        (nginx,) = need("nginx")
        port = free_port()
        for sub in ("logs", "tmp", "html"):
            os.makedirs(self.path(sub), exist_ok=True)
        temps = "\n".join(
            f"    {kind}_temp_path {self.path('tmp', kind)};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        conf = f"""
daemon off;
master_process off;
worker_processes 1;
pid {self.path('nginx.pid')};
error_log {self.path('logs', 'error.log')} warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    access_log {self.path('logs', 'access.log')};
{temps}
    default_type application/octet-stream;
    types {{ text/plain txt; text/html html shtml; }}
{http_conf}
    server {{
        listen 127.0.0.1:{port};
        server_name peer;
        root {self.path('html')};
{server_conf}
    }}
}}
"""
        conf_path = self.write("nginx.conf", conf.encode())
        proc = self.start([nginx, "-p", self.dir, "-e", self.path("logs", "error.log"),
                           "-c", conf_path],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_listening(port, proc)
        except Failed:
            err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None else ""
            raise Failed(f"nginx did not start: {err}")
        return port, self.path("logs", "access.log")

    def html(self, name, data):
        os.makedirs(self.path("html"), exist_ok=True)
        with open(self.path("html", name), "wb") as f:
            f.write(data)
        return self.path("html", name)

    # ---- chapter 07's server ------------------------------------------------
    def taal_server(self):
        """peer_serve on a free port; its bodies written in dir/bodies.
        Returns the port."""
        bodies = self.path("bodies")
        os.makedirs(bodies)
        proc = self.start([self.serve, "--seconds", "60", "--write-bodies", bodies],
                          stdout=subprocess.PIPE, stderr=self.serve_stderr)
        self.server = proc
        line = proc.stdout.readline().decode()
        m = re.match(r"port (\d+)$", line.strip())
        check(m, f"peer_serve printed {line!r}, not its port")
        return int(m.group(1))

    def stop_taal_server(self):
        """SIGTERM to peer_serve: it must close its server and exit 0 (under
        a sanitizer, a leak or an error found at exit fails the test)."""
        if self.server is None:
            return
        self.server.terminate()
        try:
            rc = self.server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            raise Failed("peer_serve did not stop within 5 s of SIGTERM")
        check(rc == 0, f"peer_serve exited with status {rc} after SIGTERM")

    def body(self, name):
        with open(self.path("bodies", name), "rb") as f:
            return f.read()

    def peer_get(self, port, *args, timeout=15):
        return run([self.get, "--port", str(port), "--timeout", str(timeout - 1)]
                   + list(args), timeout=timeout)


# ---- the scenarios --------------------------------------------------------------
# Each takes a Peers and raises Failed (or Skipped); returning is passing.

def client_nginx_keepalive_limit(p):
    """1,500 concurrent GETs, nginx's default keepalive_requests (1,000):
    nginx closes the connection after its 1,000th response, and the
    requests sent behind it must be sent again, not fail. Once taking
    turns (the session's default), once pipelined 64 deep, where up to 63
    requests are in flight behind the last response."""
    p.html("small.txt", b"small file\n")
    port, _ = p.nginx("")
    for depth in ("1", "64"):
        rc, out, _ = p.peer_get(port, "--count", "1500", "--concurrency", "1500",
                                "--pipeline", depth, "--expect-status", "200",
                                "--expect-file", p.path("html", "small.txt"), "/small.txt")
        got = outcome(out)
        check(rc == 0 and got.get("ok") == 1500,
              f"{got.get('ok', 0)} of 1500 GETs succeeded, pipeline {depth} "
              "(issue 25, defect 4)")


def client_nginx_idle_close(p):
    """keepalive_timeout 1s, two GETs 1.5 s apart: nginx closes the idle
    connection in between; the second GET must not fail with TAAL_EEOF."""
    p.html("small.txt", b"small file\n")
    port, _ = p.nginx("        keepalive_timeout 1s;")
    rc, out, _ = p.peer_get(port, "--count", "2", "--concurrency", "1", "--pause", "1.5",
                            "--expect-status", "200", "--expect-file",
                            p.path("html", "small.txt"), "/small.txt")
    got = outcome(out)
    check(rc == 0 and got.get("ok") == 2,
          f"{got.get('ok', 0)} of 2 GETs across an idle close succeeded "
          "(issue 25, defect 4)")


def client_nginx_204_301(p):
    """return 204 and return 301 /x: the right status; the 204 with an
    empty body, the 301 (not followed) with the body curl gets and its
    Location; then all three pipelined on one connection, so a wrongly
    framed response would show; then a relative redirect, followed."""
    (curl,) = need("curl")
    p.html("small.txt", b"small file\n")
    port, _ = p.nginx("        location = /204 { return 204; }\n"
                      "        location = /301 { return 301 /x; }\n"
                      "        location = /moved { absolute_redirect off; "
                      "return 301 /small.txt; }")
    rc, out, _ = p.peer_get(port, "--expect-status", "204", "--expect-empty",
                            "--count", "3", "--concurrency", "3", "/204")
    check(rc == 0, "GET /204: not 204 with an empty body, every time")
    rc, body, _ = run([curl, "-s", f"http://127.0.0.1:{port}/301"])
    check(rc == 0, "curl could not GET /301")
    ref = p.write("301.body", body.encode())
    rc, out, _ = p.peer_get(port, "--no-redirects", "--expect-status", "301",
                            "--expect-file", ref, "--header", "Location", "/301")
    check(rc == 0, "GET /301: not 301 with the body curl got")
    check(re.search(r"^header Location: \S*/x$", out, re.M), "GET /301: no Location .../x")
    rc, out, _ = p.peer_get(port, "--any", "--no-redirects", "--pipeline", "3",
                            "/204", "/301", "/small.txt")
    got = outcome(out)
    check(got.get("ok") == 3 and got.get("status 204") == 1 and got.get("status 301") == 1
          and got.get("status 200") == 1,
          "204, 301 and 200 pipelined on one connection did not all come back right")
    rc, out, _ = p.peer_get(port, "--expect-status", "200", "--expect-file",
                            p.path("html", "small.txt"), "/moved")
    check(rc == 0, "GET /moved: the relative redirect to /small.txt was not followed")


def client_nginx_chunked(p):
    """A body nginx sends chunked (SSI: its length is not known in
    advance), about 100 KB in several chunks: byte-exact."""
    (curl,) = need("curl")
    part = b"".join(b"part line %05d\n" % i for i in range(6000))
    p.html("part.txt", part)
    p.html("page.shtml", b"head\n<!--# include virtual=\"/part.txt\" -->tail\n")
    expected = p.write("expected", b"head\n" + part + b"tail\n")
    port, _ = p.nginx("        ssi on;")
    rc, _, err = run([curl, "-sv", "-o", os.devnull, f"http://127.0.0.1:{port}/page.shtml"])
    check(rc == 0 and re.search(r"^< Transfer-Encoding: chunked", err, re.M | re.I),
          "nginx did not send /page.shtml chunked: the scenario proves nothing")
    rc, out, _ = p.peer_get(port, "--count", "20", "--concurrency", "10",
                            "--expect-status", "200", "--expect-file", expected,
                            "/page.shtml")
    check(rc == 0, "chunked bodies from nginx not all received byte-exact")


def client_nginx_large_file(p):
    """An 8 MiB file, max_body raised to 16 MiB: byte-exact (sha256
    printed for the record)."""
    data = hashlib.sha256(b"taal").digest() * (8 * 1024 * 1024 // 32)
    p.html("large.bin", data)
    port, _ = p.nginx("")
    rc, out, _ = p.peer_get(port, "--max-body", str(16 << 20), "--count", "2",
                            "--concurrency", "2", "--expect-status", "200",
                            "--expect-file", p.path("html", "large.bin"), "/large.bin")
    print("sha256", hashlib.sha256(data).hexdigest())
    check(rc == 0, "the 8 MiB file did not arrive byte-exact, twice")


def client_python_closes_each(p):
    """Python's http.server answers HTTP/1.0 and closes after each
    response: 5 concurrent GETs, all must succeed (the 4 sent behind the
    first are sent again on new connections)."""
    os.makedirs(p.path("www"))
    with open(p.path("www", "hello.txt"), "wb") as f:
        f.write(b"hello from http.server\n")
    port = free_port()
    proc = p.start([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                    "--directory", p.path("www"), str(port)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, proc)
    rc, out, _ = p.peer_get(port, "--count", "5", "--concurrency", "5",
                            "--expect-status", "200", "--expect-file",
                            p.path("www", "hello.txt"), "/hello.txt")
    got = outcome(out)
    check(rc == 0, f"{got.get('ok', 0)} of 5 GETs succeeded (issue 25, defect 4)")


def client_crlf_url_refused(p):
    """A URL with CR/LF in it must be refused before anything is written
    (or percent-encoded): nginx's access log then shows the one request
    that came after it, never the smuggled GET /gone."""
    p.html("small.txt", b"small file\n")
    port, log = p.nginx("")
    smuggle = "/small.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /gone"
    rc, out, _ = p.peer_get(port, "--any", smuggle)
    got = outcome(out)
    refused = got.get("ok", 0) == 0
    rc, _, _ = p.peer_get(port, "--expect-status", "200", "/small.txt")
    check(rc == 0, "a plain GET after the bad URL failed")
    time.sleep(0.2)  # nginx writes its log line after the response
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        print("access.log:", line)
    # A percent-encoded URL leaves "%0D%0AGET%20/gone" in its one line: fine.
    check(not any('"GET /gone HTTP/' in line for line in lines),
          "nginx received the smuggled request GET /gone (issue 25, defect 1)")
    check(len(lines) == (1 if refused else 2),
          f"nginx logged {len(lines)} requests, expected {1 if refused else 2}")


def server_curl_head_then_get(p):
    """HEAD on /chunked, then GET on the same connection: the HEAD's reply
    must carry no body, not even the last chunk (0 CRLF CRLF), or the next
    response on the connection starts with it. Checked twice: with curl
    (-I URL --next URL, reusing the connection), and with the two requests
    written at once on one socket, where the byte after the HEAD's header
    must be the GET's status line."""
    (curl,) = need("curl")
    port = p.taal_server()
    url = f"http://127.0.0.1:{port}/chunked"
    got = p.path("got")
    rc, _, err = run([curl, "-sv", "--max-time", "5", "-I", url, "--next", "-o", got, url])
    check(rc == 0, f"curl failed with exit status {rc} (issue 25, defect 2)")
    check("Re-using existing connection" in err or "Reusing existing" in err,
          "curl did not reuse the connection for the GET")
    with open(got, "rb") as f:
        check(f.read() == p.body("chunked"), "the GET's body after the HEAD is not exact")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"HEAD /chunked HTTP/1.1\r\nHost: peer\r\n\r\n"
                  b"GET / HTTP/1.1\r\nHost: peer\r\n\r\n")
        data = b""
        while data.count(b"\r\n\r\n") < 2 or len(data.split(b"\r\n\r\n", 1)[1]) < 9:
            piece = s.recv(65536)
            if not piece:
                break
            data += piece
    after_head = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""
    print("after the HEAD's header:", repr(after_head[:40]))
    check(after_head.startswith(b"HTTP/1.1 200 "),
          "the reply to HEAD /chunked is followed by body bytes, not by the next "
          "response (issue 25, defect 2)")


def server_curl_http10_keepalive(p):
    """HTTP/1.0 with Connection: keep-alive, two URLs: the server must say
    keep-alive, so curl reuses the connection, and both complete."""
    (curl,) = need("curl")
    port = p.taal_server()
    url = f"http://127.0.0.1:{port}/"
    rc, out, err = run([curl, "-sv", "-0", "--max-time", "5", "-H",
                        "Connection: keep-alive", url, url])
    check(rc == 0, f"curl failed with exit status {rc}")
    check(out == p.body("root").decode() * 2, "the two bodies are not exact")
    check(re.search(r"^< Connection: keep-alive", err, re.M | re.I),
          "no 'Connection: keep-alive' in the reply to a 1.0 keep-alive request "
          "(issue 25, defect 3)")
    check("Re-using existing connection" in err or "Reusing existing" in err,
          "curl did not reuse the connection (issue 25, defect 3)")


def server_curl_expect_100(p):
    """A 2 MB upload, for which curl sends Expect: 100-continue and waits
    up to 1 s for the 100: it must complete in well under that (0.5 s).
    Twice: as a POST, which a fixed route may refuse at once (405) instead
    of asking for the body, and as a GET with the body, which the route
    answers 200, so the server must say 100 Continue and read the body."""
    (curl,) = need("curl")
    port = p.taal_server()
    upload = p.write("upload", b"x" * (2 * 1000 * 1000))
    for method, codes in (("POST", ("200", "405", "501")), ("GET", ("200",))):
        rc, out, err = run([curl, "-sv", "--max-time", "5", "-X", method, "-o", os.devnull,
                            "-w", "%{http_code} %{time_total}", "--data-binary",
                            "@" + upload, f"http://127.0.0.1:{port}/"])
        check(rc == 0, f"{method}: curl failed with exit status {rc}")
        check(re.search(r"^> Expect: 100-continue", err, re.M | re.I),
              "curl sent no Expect: the scenario proves nothing")
        code, seconds = out.split()
        check(code in codes, f"{method} with Expect: status {code}, not {' or '.join(codes)}")
        check(float(seconds) < 0.5,
              f"{method} took {seconds} s: Expect: 100-continue not answered "
              "(issue 25, defect 6)")
        if code == "200":
            check(re.search(r"^< HTTP/1.1 100 Continue", err, re.M),
                  f"{method}: a 200 without a 100 Continue first")


def server_no_host_400(p):
    """HTTP/1.1 without Host (RFC 9112 3.2): 400."""
    port = p.taal_server()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        reply = b""
        while b"\r\n" not in reply:
            piece = s.recv(4096)
            if not piece:
                break
            reply += piece
    status = reply.split(b"\r\n", 1)[0].decode(errors="replace")
    print("reply:", status)
    check(re.match(r"HTTP/1\.[01] 400 ", status),
          f"an HTTP/1.1 request without Host got {status!r} (issue 25, defect 6)")


def ab_run(p, *args):
    (ab,) = need("ab")
    port = p.taal_server()
    # -t first: ab stops after 8 s, and says how many completed (a -n
    # after it still sets the count); -s alone does not stop a run that
    # hangs, as the server's idle timeout keeps waking it.
    rc, out, err = run([ab, "-q", "-s", "5", "-t", "8"] + list(args)
                       + [f"http://127.0.0.1:{port}/"], timeout=17)
    complete = re.search(r"^Complete requests:\s+(\d+)", out, re.M)
    failed = re.search(r"^Failed requests:\s+(\d+)", out, re.M)
    rate = re.search(r"^Requests per second:\s+([\d.]+)", out, re.M)
    return rc, (int(complete.group(1)) if complete else 0), \
        (int(failed.group(1)) if failed else None), (rate.group(1) if rate else "-")


def server_ab_keepalive(p):
    """ab -k -n 20000 -c 50 (HTTP/1.0 keep-alive): every request complete,
    none failed."""
    rc, complete, failed, rate = ab_run(p, "-k", "-n", "20000", "-c", "50")
    check(rc == 0 and complete == 20000 and failed == 0,
          f"ab -k: {complete} of 20000 complete, {failed} failed (issue 25, defect 3)")
    print(f"ab -k: {rate} req/s")


def server_ab(p):
    """ab -n 5000 -c 50, a connection per request: every request complete,
    none failed."""
    rc, complete, failed, rate = ab_run(p, "-n", "5000", "-c", "50")
    check(rc == 0 and complete == 5000 and failed == 0,
          f"ab: {complete} of 5000 complete, {failed} failed")
    print(f"ab: {rate} req/s")


SCENARIOS = {f.__name__: f for f in (
    client_nginx_keepalive_limit, client_nginx_idle_close, client_nginx_204_301,
    client_nginx_chunked, client_nginx_large_file, client_python_closes_each,
    client_crlf_url_refused, server_curl_head_then_get, server_curl_http10_keepalive,
    server_curl_expect_100, server_no_host_400, server_ab_keepalive, server_ab)}

# ---- measure.sh: the table, re-measured ----------------------------------
ROWS = [
    ("client_nginx_keepalive_limit", "client vs nginx: 1,500 concurrent GETs, keepalive_requests 1000"),
    ("client_nginx_idle_close", "client vs nginx: 2 GETs 1.5 s apart, keepalive_timeout 1s"),
    ("client_nginx_204_301", "client vs nginx: 204 and 301, status and body"),
    ("client_nginx_chunked", "client vs nginx: chunked (SSI), byte-exact"),
    ("client_nginx_large_file", "client vs nginx: 8 MiB file, byte-exact"),
    ("client_python_closes_each", "client vs http.server (1.0, closes): 5 concurrent GETs"),
    ("client_crlf_url_refused", "client: CR/LF in a URL refused, nothing smuggled"),
    ("server_curl_head_then_get", "server vs curl: HEAD /chunked then GET, one connection"),
    ("server_curl_http10_keepalive", "server vs curl: HTTP/1.0 keep-alive reused"),
    ("server_curl_expect_100", "server vs curl: Expect: 100-continue, 2 MB, < 0.5 s"),
    ("server_no_host_400", "server: HTTP/1.1 without Host gets 400"),
    ("server_ab_keepalive", "server vs ab -k -n 20000 -c 50"),
    ("server_ab", "server vs ab -n 5000 -c 50"),
]


def rate_of(argv, pattern, timeout=30):
    try:
        p = subprocess.run(argv, capture_output=True, timeout=timeout,
                           preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        return "timeout"
    m = re.search(pattern, p.stdout.decode(errors="replace"), re.M)
    return f"{float(m.group(1)):,.0f}" if m else "failed"


def references(args):
    """Throughput rows: wrk against the server, and ab and wrk against nginx
    serving the same 25-byte body on this machine."""
    rows = []
    wrk = shutil.which("wrk")
    ab = shutil.which("ab")
    p = Peers(args)
    p.serve_stderr = subprocess.DEVNULL
    try:
        port = p.taal_server()
        if wrk:
            rows.append(("server vs wrk -t2 -c50 -d5s", "-", rate_of(
                [wrk, "-t2", "-c50", "-d5s", f"http://127.0.0.1:{port}/"],
                r"^Requests/sec:\s+([\d.]+)")))
    finally:
        p.close()
    p = Peers(args)
    try:
        p.html("index.txt", b"hello from taal's server\n")
        port, _ = p.nginx("        access_log off;")
        url = f"http://127.0.0.1:{port}/index.txt"
        if ab:
            for flags in (["-k", "-n", "20000"], ["-n", "5000"]):
                rows.append((f"nginx vs ab {' '.join(flags)} -c 50 (reference)", "-",
                             rate_of([ab, "-q", "-s", "5"] + flags + ["-c", "50", url],
                                     r"^Requests per second:\s+([\d.]+)")))
        if wrk:
            rows.append(("nginx vs wrk -t2 -c50 -d5s (reference)", "-", rate_of(
                [wrk, "-t2", "-c50", "-d5s", url], r"^Requests/sec:\s+([\d.]+)")))
    except Skipped:
        rows.append(("nginx (reference)", "skipped", "-"))
    finally:
        p.close()
    return rows


def measure(args):
    rows, notes = [], []
    for name, title in ROWS:
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, __file__, name, "--get", args.get,
                            "--serve", args.serve], capture_output=True, timeout=60)
        out = p.stdout.decode(errors="replace")
        result = {0: "pass", SKIP: "skipped"}.get(p.returncode, "FAIL")
        m = re.search(r"^ab(?: -k)?: ([\d.]+) req/s", out, re.M)
        rate = f"{float(m.group(1)):,.0f}" if m and result == "pass" else "-"
        if result == "FAIL":
            why = re.search(r"^FAILED: (.*)", out, re.M)
            notes.append(f"{name}: {why.group(1) if why else 'exit ' + str(p.returncode)}")
        rows.append((title, result, rate))
        print(f"  {name}: {result} ({time.monotonic() - t0:.1f} s)", file=sys.stderr)
    rows += references(args)
    width = max(len(r[0]) for r in rows)
    print(f"| {'scenario':<{width}} | result  |    req/s |")
    print(f"|{'-' * (width + 2)}|---------|---------:|")
    for title, result, rate in rows:
        print(f"| {title:<{width}} | {result:<7} | {rate:>8} |")
    for note in notes:
        print(f"- {note}")
    return 0 if all(r[1] != "FAIL" for r in rows) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS) + ["measure"])
    parser.add_argument("--get", required=True, help="the peer_get program")
    parser.add_argument("--serve", required=True, help="the peer_serve program")
    args = parser.parse_args()

    # ctest's time limit, or ^C, ends the run through the finally below.
    def stop(signum, frame):
        raise SystemExit(f"stopped by signal {signum}")
    signal.signal(signal.SIGTERM, stop)
    if args.scenario == "measure":
        return measure(args)

    peers = Peers(args)
    try:
        print(SCENARIOS[args.scenario].__doc__.strip(), flush=True)
        SCENARIOS[args.scenario](peers)
        peers.stop_taal_server()
    except Skipped as e:
        print(f"skipped: {e}")
        return SKIP
    except Failed as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        peers.close()
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
