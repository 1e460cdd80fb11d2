"""A throwaway PostgreSQL for the cluster tests (docs/service.md#cluster): initdb in a temporary
folder, run by the unprivileged `postgres` user when the tests run as root (PostgreSQL refuses
root), its socket in that folder and a free loopback port; removed on stop, also when the test
fails (atexit). Every wait polls for the event (the server accepting connections) with a bounded
timeout; nothing sleeps for time."""
import atexit
import hashlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

PGBIN = "/usr/lib/postgresql/15/bin"
TIMEOUT = 120  # s: the bound of a start or stop


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Postgres:
    """initdb + postgres as a child process. uri(db) is a socket connection string (no password:
    local connections are trusted); TCP connections to 127.0.0.1 need the password of user tplan."""

    PASSWORD = "tplan-test-secret"

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="tplan-pg-")
        self.data = os.path.join(self.root, "data")
        self.port = free_port()
        self.proc = None
        self.user = None
        if os.getuid() == 0:
            self.user = pwd.getpwnam("postgres")
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.root, 0o755)
        atexit.register(self.destroy)
        pwfile = os.path.join(self.root, "pw")
        with open(pwfile, "w") as f:
            f.write(self.PASSWORD + "\n")
        if self.user:
            os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
        r = subprocess.run([os.path.join(PGBIN, "initdb"), "-D", self.data, "-U", "tplan", "--pwfile", pwfile,
                            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"],
                           capture_output=True, text=True, preexec_fn=self._drop)
        if r.returncode != 0:
            raise RuntimeError("initdb failed: " + r.stderr[-2000:])
        # The port was free when chosen, but a server of another test running at the same time may
        # bind it before postgres does (initdb takes a second): then postgres exits at once, and
        # another free port is tried. A restart keeps its port (clients hold it in their URIs).
        for attempt in range(5):
            try:
                self.start()
                break
            except RuntimeError:
                if attempt == 4 or "already in use" not in self.log():
                    raise
                self.port = free_port()

    def _drop(self):
        if self.user:
            os.setgid(self.user.pw_gid)
            os.setuid(self.user.pw_uid)

    def start(self):
        log = open(os.path.join(self.root, "postgres.log"), "a")
        self.proc = subprocess.Popen(
            [os.path.join(PGBIN, "postgres"), "-D", self.data, "-k", self.root, "-p", str(self.port),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=self._drop)
        log.close()
        deadline = time.time() + TIMEOUT
        while True:  # poll for the event: the server answers
            r = subprocess.run([os.path.join(PGBIN, "pg_isready"), "-h", self.root, "-p", str(self.port), "-U",
                                "tplan", "-d", "postgres", "-t", "5"], capture_output=True)
            if r.returncode == 0:
                return
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("postgres did not start:\n" + self.log()[-3000:])

    def stop(self, sig=signal.SIGINT):
        """SIGINT: fast shutdown (clients disconnected); SIGKILL: a crash."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(TIMEOUT)
        self.proc = None

    def restart(self):
        self.stop()
        self.start()

    def destroy(self):
        try:
            self.stop(signal.SIGQUIT)
        except Exception:  # noqa: BLE001 - removal must go on
            pass
        shutil.rmtree(self.root, ignore_errors=True)

    def log(self):
        try:
            return open(os.path.join(self.root, "postgres.log")).read()
        except OSError:
            return ""

    def psql(self, sql, db="postgres"):
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t",
                            "-v", "ON_ERROR_STOP=1", "-h", self.root, "-p", str(self.port), "-U", "tplan", "-d", db,
                            "-c", sql], capture_output=True, text=True, env=dict(os.environ, PGCONNECT_TIMEOUT="10"))
        if r.returncode != 0:
            raise RuntimeError("psql %s: %s" % (sql[:80], r.stderr.strip()))
        return r.stdout.strip()

    def create_db(self, name):
        self.psql('CREATE DATABASE "%s"' % name)
        return self.uri(name)

    def uri(self, db):
        return "postgresql:///%s?host=%s&port=%d&user=tplan" % (db, self.root, self.port)

    def tcp_uri(self, db):
        return "postgresql://tplan@127.0.0.1:%d/%s" % (self.port, db)


def db_name_for(path):
    """A database name per data folder: a server restarted on the same folder finds its jobs."""
    return "t" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:20]
